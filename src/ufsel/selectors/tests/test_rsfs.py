"""RSFS: the three steps against brute force / direct solves, objective tracking, planted features."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.exceptions import ConvergenceWarning

from ufsel import RSFS
from ufsel.datasets import make_planted_clusters
from ufsel.graph import local_kernel_regression_weights, local_learning_laplacian
from ufsel.linalg import pos_neg_parts
from ufsel.selectors.sparse_regression._rsfs import (
    rsfs_f_step,
    rsfs_objective,
    rsfs_w_step,
    rsfs_z_step,
)


@pytest.fixture
def problem():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((20, 6))
    F = rng.uniform(0.1, 1.0, (20, 3))
    Z = rng.standard_normal((20, 3)) * (rng.uniform(size=(20, 3)) < 0.2)
    return X, F, Z


def test_z_step_is_minimiser_of_eq12_brute_force(problem):
    X, F, _ = problem
    rng = np.random.RandomState(1)
    W = rng.standard_normal((6, 3)) * 0.3
    alpha, gamma = 0.8, 0.5
    Z = rsfs_z_step(X, F, W, alpha, gamma)
    E = F - X @ W
    # Eq. (12) is separable: minimise (e - z)^2 + (gamma/alpha)|z| entrywise by brute force.
    for e, zhat in zip(E.ravel()[:15], Z.ravel()[:15]):
        res = minimize_scalar(lambda t, e=e: (e - t) ** 2 + gamma / alpha * abs(t),
                              bounds=(-5, 5), method="bounded", options={"xatol": 1e-10})
        assert abs(res.x - zhat) < 1e-6
    grid = np.linspace(-3, 3, 60001)
    e = E[0, 0]
    assert abs(grid[np.argmin((e - grid) ** 2 + gamma / alpha * np.abs(grid))] - Z[0, 0]) < 2e-4
    # and the minimum value is the Huber function of Eq. (14)
    thr = gamma / (2 * alpha)
    huber = np.where(np.abs(E) <= thr, E**2, gamma / alpha * np.abs(E) - thr**2)
    np.testing.assert_allclose((E - Z) ** 2 + gamma / alpha * np.abs(Z), huber, atol=1e-12)


@pytest.mark.parametrize("shape", [(20, 6), (8, 30)])
def test_w_step_equals_direct_solve(shape):
    rng = np.random.RandomState(2)
    X = rng.standard_normal(shape)
    n, d = shape
    F, Z = rng.uniform(size=(n, 3)), rng.standard_normal((n, 3)) * 0.1
    D = rng.uniform(0.5, 3.0, d)
    alpha, beta = 0.7, 0.2
    direct = np.linalg.inv(X.T @ X + beta / alpha * np.diag(D)) @ X.T @ (F - Z)  # Eq. (11)
    for method in ("auto", "primal", "push_through"):
        np.testing.assert_allclose(rsfs_w_step(X, F, Z, D, alpha, beta, method=method), direct,
                                   rtol=1e-8, atol=1e-10)


def test_f_step_fixed_point_and_nonnegative(problem):
    X, F, Z = problem
    S = local_kernel_regression_weights(X, 4)
    M = local_learning_laplacian(S)
    Mp, Mn = pos_neg_parts(M)
    A = np.random.RandomState(3).standard_normal(F.shape)
    F1 = rsfs_f_step(Mp, Mn, F, A, 0.5, 10.0)
    assert np.all(F1 >= 0)
    # Eq. (17): at a fixed point, [MF + aF + nu F F^T F - nu F - aA]_ij F_ij = 0.
    Ap, An = pos_neg_parts(A)
    ratio = (Mn @ F + 10 * F + 0.5 * Ap) / (Mp @ F + 0.5 * F + 10 * F @ F.T @ F + 0.5 * An)
    np.testing.assert_allclose(F1, F * ratio)


def test_objective_matches_definition(problem):
    X, F, Z = problem
    W = np.random.RandomState(4).standard_normal((6, 3))
    M = local_learning_laplacian(local_kernel_regression_weights(X, 4))
    val = rsfs_objective(X, M, F, W, Z, 0.5, 0.3, 0.2, nu=4.0)
    ref = (np.trace(F.T @ M.toarray() @ F) + 0.5 * np.linalg.norm(F - Z - X @ W) ** 2
           + 0.3 * np.linalg.norm(W, axis=1).sum() + 0.2 * np.abs(Z).sum()
           + 2.0 * np.linalg.norm(F.T @ F - np.eye(3)) ** 2)
    assert np.isclose(val, ref)


@pytest.mark.parametrize("graph", ["local_kernel", "heat"])
def test_objective_with_nu_tracked_and_decreases(graph):
    X, _, _ = make_planted_clusters(n_samples=120, n_noise=25, random_state=1)
    sel = RSFS(5, n_clusters=4, graph=graph, max_iter=200, random_state=0).fit(X)
    obj = sel.objective_
    assert obj.shape == (sel.n_iter_,) and np.all(np.isfinite(obj))
    assert obj[-1] < obj[0]
    assert np.all(sel.F_ >= 0)


def test_sqrt_rule_stable_for_large_nu():
    X, _, _ = make_planted_clusters(n_samples=120, n_noise=25, random_state=1)
    sel = RSFS(5, n_clusters=4, nu=1e8, f_update="sqrt", max_iter=200, random_state=0).fit(X)
    assert sel.objective_[-1] < sel.objective_[0]
    np.testing.assert_allclose(np.diag(sel.F_.T @ sel.F_), 1.0, atol=1e-3)


def test_planted_informative_features_found_and_deterministic():
    X, _, informative = make_planted_clusters(random_state=0)
    X0 = X.copy()
    a = RSFS(5, n_clusters=4, random_state=0).fit(X)
    b = RSFS(5, n_clusters=4, random_state=0).fit(X)
    np.testing.assert_array_equal(X, X0)
    assert set(np.flatnonzero(a.get_support())) == set(informative)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_allclose(a.scores_, np.linalg.norm(a.W_, axis=1))


def test_convergence_warning_at_max_iter():
    X, _, _ = make_planted_clusters(n_samples=60, n_noise=10, random_state=0)
    with pytest.warns(ConvergenceWarning, match="RSFS did not converge"):
        RSFS(n_clusters=3, max_iter=2, tol=0.0, random_state=0).fit(X)


def test_wide_data_push_through_path():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((30, 200))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sel = RSFS(10, n_clusters=3, max_iter=10, random_state=0).fit(X)
    assert np.all(np.isfinite(sel.scores_))
