"""SPCAFS: Theorem 2 (monotone objective), PCA limit, operator path, planted features."""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning

from ufsel import SPCAFS
from ufsel.datasets import make_planted_clusters
from ufsel.linalg import scatter_matrix
from ufsel.selectors.sparse_regression._spcafs import spcafs_objective, spcafs_path


@pytest.fixture
def X_random():
    rng = np.random.default_rng(0)
    return rng.standard_normal((80, 40)) * rng.uniform(0.2, 3.0, 40)


@pytest.mark.parametrize("p", [1.0, 0.5])
@pytest.mark.parametrize("gamma", [1.0, 30.0, 300.0])
def test_objective_non_increasing(X_random, p, gamma):
    sel = SPCAFS(5, n_components=4, gamma=gamma, p=p, tol=1e-10, max_iter=60,
                 solver="dense")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sel.fit(X_random)
    obj = sel.objective_
    assert obj.size == sel.n_iter_ >= 2
    # Theorem 2: non-increasing, up to rounding.
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1])), np.diff(obj).max()
    assert obj[-1] == pytest.approx(
        spcafs_objective(X_random, sel.W_, gamma, p, sel.eps), rel=1e-10)


@pytest.mark.parametrize("p", [1.0, 0.5])
def test_objective_non_increasing_operator(X_random, p):
    W, obj, _, _ = spcafs_path(X_random, 4, 100.0, p=p, max_iter=40, tol=0.0,
                               solver="operator", random_state=0)
    assert np.all(np.diff(obj) <= 1e-8 * np.abs(obj[:-1]))
    np.testing.assert_allclose(W.T @ W, np.eye(4), atol=1e-8)


def test_objective_function_matches_definition(X_random):
    rng = np.random.default_rng(1)
    W = np.linalg.qr(rng.standard_normal((40, 3)))[0]
    Xc = X_random - X_random.mean(axis=0)
    expected = -np.trace(W.T @ Xc.T @ Xc @ W) + 2.0 * np.sum(
        (np.sum(W**2, axis=1) + 1e-8) ** 0.25)
    assert spcafs_objective(X_random, W, 2.0, 0.5, 1e-8) == pytest.approx(expected, rel=1e-12)
    St = scatter_matrix(X_random)
    assert spcafs_objective(X_random, W, 2.0, 0.5, 1e-8, St=St) == pytest.approx(expected,
                                                                               rel=1e-12)


def test_gamma_to_zero_is_pca(X_random):
    sel = SPCAFS(5, n_components=3, gamma=1e-12).fit(X_random)
    V = PCA(n_components=3).fit(X_random).components_.T
    W = sel.W_
    np.testing.assert_allclose(W @ W.T, V @ V.T, atol=1e-8)
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-10)


@pytest.mark.parametrize("p", [1.0, 0.5])
def test_operator_path_matches_dense(p):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((40, 300)) * rng.uniform(0.2, 3.0, 300)
    kw = dict(n_components=4, gamma=20.0, p=p, tol=1e-9, max_iter=200, random_state=0)
    dense = SPCAFS(20, solver="dense", **kw).fit(X)
    op = SPCAFS(20, solver="operator", **kw).fit(X)
    assert op.solver_ == "operator" and dense.solver_ == "dense"
    np.testing.assert_allclose(op.objective_, dense.objective_, rtol=1e-7)
    np.testing.assert_allclose(op.scores_, dense.scores_, atol=1e-6)
    top = np.argsort(-dense.scores_)[:20]
    assert set(np.flatnonzero(op.get_support())) == set(top)
    np.testing.assert_array_equal(op.ranking_[top], dense.ranking_[top])


def test_sparse_input_matches_dense_input(X_random):
    Xs = sparse.csr_matrix(np.where(np.abs(X_random) > 1.0, X_random, 0.0))
    Xd = Xs.toarray()
    for solver in ("dense", "operator"):
        a = SPCAFS(5, n_components=3, gamma=10.0, solver=solver, random_state=0).fit(Xs)
        b = SPCAFS(5, n_components=3, gamma=10.0, solver=solver, random_state=0).fit(Xd)
        np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-7)
    assert sparse.issparse(Xs)  # the caller's matrix is left alone


def test_planted_informative_features_found():
    X, _, informative = make_planted_clusters(300, n_informative=5, n_noise=95, n_clusters=4,
                                              random_state=0)
    sel = SPCAFS(5, n_components=3, gamma=100.0).fit(X)
    assert set(np.flatnonzero(sel.get_support())) == set(informative)


def test_regularisation_concentrates_rows(X_random):
    # Larger gamma concentrates the energy of W on fewer rows (row sparsity).
    def top_share(gamma):
        s = SPCAFS(5, n_components=3, gamma=gamma, max_iter=300).fit(X_random).scores_ ** 2
        return np.sort(s)[::-1][:5].sum() / s.sum()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert top_share(300.0) > top_share(1e-6) + 0.05


def test_convergence_warning_and_determinism(X_random):
    with pytest.warns(ConvergenceWarning, match="SPCAFS did not converge"):
        SPCAFS(5, n_components=3, gamma=300.0, max_iter=2, tol=0.0).fit(X_random)
    a = SPCAFS(5, n_components=3, gamma=30.0, solver="operator", random_state=3).fit(X_random)
    b = SPCAFS(5, n_components=3, gamma=30.0, solver="operator", random_state=3).fit(X_random)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)


def test_bad_n_components():
    with pytest.raises(ValueError, match="n_components=5 exceeds"):
        SPCAFS(1, n_components=5).fit(np.random.default_rng(0).standard_normal((10, 3)))


def test_first_step_from_the_gram_matrix_when_d_exceeds_n():
    # n < d: the first W (G = I) comes from the n x n Gram matrix; every later
    # step is the d x d eigenproblem. Both must equal the brute-force iteration
    # (full eigh of -S_t + gamma G) step for step.
    rng = np.random.RandomState(3)
    X = rng.rand(15, 40)
    gamma, m = 0.5, 3
    W, obj, _, _ = spcafs_path(X, m, gamma, max_iter=4, tol=0.0)
    St = scatter_matrix(X)
    g = np.ones(40)
    for t in range(4):
        w, V = np.linalg.eigh(-St + gamma * np.diag(g))
        Wb = V[:, :m]
        assert w[m] - w[m - 1] > 1e-8  # the m-dimensional eigenspace is well defined
        g = 0.5 / np.sqrt(np.sum(Wb * Wb, axis=1) + 1e-10)
        np.testing.assert_allclose(obj[t], spcafs_objective(X, Wb, gamma, St=St), rtol=1e-10)
    np.testing.assert_allclose(W @ W.T, Wb @ Wb.T, atol=1e-8)  # same subspace
