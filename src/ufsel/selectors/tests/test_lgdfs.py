"""LGDFS: closed forms against dense formulas, z on the simplex, planted features."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from ufsel import LGDFS
from ufsel.datasets import make_planted_clusters
from ufsel.graph import (
    global_discriminative_laplacian,
    local_discriminative_laplacian,
    local_regions,
    weighted_knn_graph,
)
from ufsel.selectors.sparse_regression._lgdfs import (
    lgdfs_embedding,
    lgdfs_objective,
    lgdfs_regression_norms,
    lgdfs_z_step,
)


def _centering(m):
    return np.eye(m) - np.full((m, m), 1.0 / m)


def _dense_Lg(X, z, lam):
    """Eq. (5) as printed (corrected): H (I + (1/lam) H X^T diag(z) X H)^{-1} H, paper's X = X.T."""
    n = X.shape[0]
    H = _centering(n)
    Xp = X.T  # d x n, the paper's convention
    return H @ np.linalg.inv(np.eye(n) + H @ Xp.T @ np.diag(z) @ Xp @ H / lam) @ H


def _dense_Ll(X, z, regions, lam):
    n, k = regions.shape
    L = np.zeros((n, n))
    Hk = _centering(k)
    for i in range(n):  # the paper's per-point loop, as a reference
        Xi = X[regions[i]].T  # d x k
        Li = Hk @ np.linalg.inv(np.eye(k) + Hk @ Xi.T @ np.diag(z) @ Xi @ Hk / lam) @ Hk
        Si = np.zeros((n, k))
        Si[regions[i], np.arange(k)] = 1.0
        L += Si @ Li @ Si.T
    return L


@pytest.fixture
def small():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((30, 8))
    z = rng.uniform(0.1, 1.0, 8)
    z /= z.sum()
    _, ind = weighted_knn_graph(X, 4, z)
    return X, z, local_regions(ind)


@pytest.mark.parametrize("shift, c", [(0.0, 3), (200.0, 3), (200.0, 9)])
def test_eq12_Wi_equals_eq3_direct_formula(small, shift, c):
    """Eq. (12) (k x k inverse) gives Eq. (3)'s W_i (d x d inverse): compare the norms of Eq. (14).

    Also with raw, uncentred data (a mean of 200, like pixel values: the local norms are
    quadratic forms in the columns of X) and with more columns in Y than points per region.
    """
    X, z, regions = small
    X = X + shift
    rng = np.random.RandomState(2)
    Y = np.linalg.qr(rng.standard_normal((30, c)))[0]
    lam_l, lam_g, alpha = 0.4, 1.3, 0.7
    wbar_sq, fit = lgdfs_regression_norms(X, Y, z, regions, alpha, lam_g, lam_l)
    k = regions.shape[1]
    Hk, Hn = _centering(k), _centering(30)
    acc = np.zeros(8)
    fit_ref = 0.0
    for i in range(30):
        Xi, Yi = X[regions[i]].T, Y[regions[i]]
        Wi = np.linalg.solve(Xi @ Hk @ Xi.T + lam_l * np.diag(1 / z), Xi @ Hk @ Yi)  # Eq. (3)
        bi = (Yi - Xi.T @ Wi).mean(axis=0)  # Eq. (4)
        acc += lam_l * (Wi**2).sum(axis=1)
        fit_ref += lam_l * 0 + np.sum((Yi - Xi.T @ Wi - bi) ** 2)
    W = np.linalg.solve(X.T @ Hn @ X + lam_g * np.diag(1 / z), X.T @ Hn @ Y)
    b = (Y - X @ W).mean(axis=0)
    acc += alpha * lam_g * (W**2).sum(axis=1)
    fit_ref += alpha * np.sum((Y - X @ W - b) ** 2)
    np.testing.assert_allclose(wbar_sq, acc, rtol=1e-9)
    np.testing.assert_allclose(fit, fit_ref, rtol=1e-9)
    # Theorem 1: Eq. (9) at the optimal W_i, W equals Eq. (8).
    eq9 = fit + np.sum(wbar_sq / z)
    eq8 = lgdfs_objective(X, Y, z, regions, alpha, lam_g, lam_l)
    np.testing.assert_allclose(eq9, eq8, rtol=1e-9)


def test_z_step_is_simplex_minimiser_and_decreases_eq8(small):
    X, z, regions = small
    rng = np.random.RandomState(3)
    Y = np.linalg.qr(rng.standard_normal((30, 3)))[0]
    args = (0.7, 1.3, 0.4)
    wbar_sq, _ = lgdfs_regression_norms(X, Y, z, regions, *args)
    z_new = lgdfs_z_step(wbar_sq)
    assert np.all(z_new >= 0) and np.isclose(z_new.sum(), 1.0)
    best = np.sum(wbar_sq / z_new)
    for _ in range(200):  # no point of the simplex does better
        v = rng.dirichlet(np.ones(8))
        assert np.sum(wbar_sq / v) >= best - 1e-12
    assert (lgdfs_objective(X, Y, z_new, regions, *args)
            <= lgdfs_objective(X, Y, z, regions, *args) + 1e-12)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_embedding_is_smallest_nontrivial_eigenvectors(small, solver):
    X, z, regions = small
    L_l = local_discriminative_laplacian(X * np.sqrt(z), regions, 0.5)
    L_g = global_discriminative_laplacian(X, z, 1.0)
    Y, w = lgdfs_embedding(L_l, L_g, 2.0, 3, eigen_solver=solver, tol=1e-12, random_state=0)
    Mdense = L_l.toarray() + 2.0 * (L_g @ np.eye(30))
    P = _centering(30)
    ev = np.linalg.eigvalsh(P @ Mdense @ P)
    np.testing.assert_allclose(w, np.sort(ev)[1:4], atol=1e-8)  # 0 of the constant dropped
    np.testing.assert_allclose(Y.T @ Y, np.eye(3), atol=1e-8)
    np.testing.assert_allclose(Y.sum(axis=0), 0.0, atol=1e-7)
    np.testing.assert_allclose(np.sum(Y * (Mdense @ Y), axis=0), w, atol=1e-8)


def test_fit_z_on_simplex_objective_recorded_and_deterministic():
    X, _, _ = make_planted_clusters(n_samples=80, n_noise=15, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = LGDFS(5, n_clusters=4, max_iter=8, random_state=0).fit(X)
        b = LGDFS(5, n_clusters=4, max_iter=8, random_state=0).fit(X)
    z = a.feature_weights_
    assert np.all(z >= 0) and np.isclose(z.sum(), 1.0)
    np.testing.assert_array_equal(a.scores_, z)
    assert a.objective_.shape == (a.n_iter_,) and np.all(np.isfinite(a.objective_))
    np.testing.assert_array_equal(a.ranking_, b.ranking_)


def test_convergence_warning_at_max_iter():
    X, _, _ = make_planted_clusters(n_samples=60, n_noise=10, random_state=0)
    with pytest.warns(ConvergenceWarning, match="LGDFS did not converge"):
        LGDFS(n_clusters=3, max_iter=2, tol=0.0, random_state=0).fit(X)


def test_planted_informative_features_found():
    X, _, informative = make_planted_clusters(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sel = LGDFS(5, n_clusters=4, random_state=0).fit(X)
    top = set(np.argsort(-sel.scores_)[:5])
    assert len(top & set(informative)) >= 4


def test_large_n_warm_started_path_agrees_with_arpack():
    """Above DENSE_EIGH_MAX: warm block LOBPCG + single-precision L_g products."""
    from ufsel.datasets import make_planted_clusters
    from ufsel.linalg import DENSE_EIGH_MAX

    X, _, informative = make_planted_clusters(DENSE_EIGH_MAX + 100, n_informative=5,
                                              n_noise=15, n_clusters=4, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warm = LGDFS(5, n_clusters=4, max_iter=6, random_state=0).fit(X)
        cold = LGDFS(5, n_clusters=4, max_iter=6, eigen_solver="arpack", random_state=0).fit(X)
    # The inexact Y-steps reach the same objective level as exact eigenvectors.
    np.testing.assert_allclose(warm.objective_[-1], cold.objective_[-1], rtol=2e-2)
    assert np.all(np.diff(warm.objective_) < 0)
    found = [len(set(np.flatnonzero(s.get_support())) & set(informative)) for s in (warm, cold)]
    assert found[0] >= 3 and abs(found[0] - found[1]) <= 1


def test_large_n_y_step_is_lobpcg_only(monkeypatch):
    """Above DENSE_EIGH_MAX the Y-step is a few warm LOBPCG iterations, inexact by design:
    no exact eigensolver (ARPACK, LAPACK) runs in the loop, and no Y-step raises the trace."""
    import scipy.sparse.linalg

    import ufsel.selectors.sparse_regression._lgdfs as lg
    from ufsel.linalg import DENSE_EIGH_MAX

    def forbidden(*args, **kwargs):
        raise AssertionError("exact eigensolver called in the warm LOBPCG path")

    monkeypatch.setattr(scipy.sparse.linalg, "eigsh", forbidden)
    monkeypatch.setattr(lg, "partial_eigh", forbidden)
    monkeypatch.setattr(np.linalg, "eigh", forbidden)
    X, _, _ = make_planted_clusters(DENSE_EIGH_MAX + 100, n_informative=5, n_noise=15,
                                    n_clusters=4, random_state=1)
    rng = np.random.RandomState(0)
    Y0 = rng.standard_normal((X.shape[0], 4))
    regions = local_regions(weighted_knn_graph(X, 5, np.full(20, 1 / 20))[1])
    z = np.full(20, 1 / 20)
    L_l = local_discriminative_laplacian(X * np.sqrt(z), regions, 1.0)
    L_g = global_discriminative_laplacian(X, z, 1.0)
    Q = np.linalg.qr(Y0 - Y0.mean(axis=0))[0]
    Y, w = lgdfs_embedding(L_l, L_g, 1.0, 4, Y0=Y0)
    trace = lambda V: np.sum(V * (L_l @ V)) + np.sum(V * (L_g @ V))  # noqa: E731
    assert trace(Y) <= trace(Q)
    np.testing.assert_allclose(Y.T @ Y, np.eye(4), atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        LGDFS(5, n_clusters=4, max_iter=3, random_state=0).fit(X)
