"""JELSR: the shift-invert Y-step (n above the dense size, d <= n) against the exact formulas,
sparse and wide input."""

import numpy as np
import pytest
from scipy import linalg, sparse

from ufsel import JELSR
from ufsel.datasets import make_planted_clusters
from ufsel.linalg import DENSE_EIGH_MAX, RidgeFactor
from ufsel.selectors.sparse_regression import _jelsr
from ufsel.selectors.sparse_regression._jelsr import (
    _push_through_inverse,
    _ShiftInvert,
    jelsr_embedding_laplacian,
)

from ._helpers import fit_quiet as _fit_quiet


def _data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(4, d))
    X = centres[rng.integers(0, 4, n)] + rng.normal(size=(n, d))
    X[:, 3] = 2.5  # a constant feature: a zero column of X_c, left out of Z and F
    return X


def _count_shift_invert(monkeypatch):
    """Record, for each Y-step, whether the shift-invert solve was accepted."""
    accepted = []
    solve = _jelsr._shift_invert_smallest

    def counted(*args):
        Y = solve(*args)
        accepted.append(Y is not None)
        return Y

    monkeypatch.setattr(_jelsr, "_shift_invert_smallest", counted)
    return accepted


def _assert_inverse(op, L, Xc, g, beta, rng):
    """op equals the inverse of the explicit ``L + beta (I - X_c (X_c^T X_c + diag(g))^{-1} X_c^T)``."""
    n = Xc.shape[0]
    A = (L.toarray() + beta * np.eye(n)
         - beta * Xc @ np.linalg.solve(Xc.T @ Xc + np.diag(g), Xc.T))
    V = rng.standard_normal((n, 3))
    expected = np.linalg.solve(A, V)
    assert np.allclose(op @ V, expected, rtol=1e-8, atol=1e-10 * np.abs(expected).max())


@pytest.mark.parametrize("as_sparse", [False, True])
def test_shift_invert_operator_is_the_inverse(as_sparse):
    """``A^{-1}`` by Woodbury equals the inverse of the explicitly formed Y-step matrix."""
    X = _data(80, 12)
    rng = np.random.default_rng(1)
    g = rng.uniform(0.1, 3.0, X.shape[1])
    beta = 0.7
    Xc = X - X.mean(axis=0)
    L = jelsr_embedding_laplacian(Xc, 5)
    if as_sparse:
        Xs = sparse.csr_matrix(np.where(rng.random(X.shape) < 0.5, 0.0, X))
        Xc = Xs.toarray() - Xs.toarray().mean(axis=0)
        op = _ShiftInvert(L, Xs, np.asarray(Xs.mean(axis=0)).ravel(), beta).operator(g)
    else:
        op = _ShiftInvert(L, Xc, None, beta).operator(g)
    _assert_inverse(op, L, Xc, g, beta, rng)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_shift_invert_fit_equals_dense_fit(monkeypatch):
    """Above the dense size the default fit (shift-invert ARPACK) follows the exact dense
    LAPACK steps: the same objective trace and the same ranking."""
    n = DENSE_EIGH_MAX + 100
    X = _data(n, 15)
    kw = dict(n_features_to_select=5, n_clusters=3, max_iter=6, random_state=0)
    accepted = _count_shift_invert(monkeypatch)
    auto = JELSR(**kw).fit(X)
    monkeypatch.undo()
    assert accepted and all(accepted)  # every step was the shift-invert one, no fallback
    dense = JELSR(eigen_solver="dense", **kw).fit(X)
    assert auto.n_iter_ == dense.n_iter_
    assert np.allclose(auto.objective_, dense.objective_, rtol=1e-9)
    assert np.allclose(auto.scores_, dense.scores_, rtol=1e-6, atol=1e-12 * dense.scores_.max())
    assert np.array_equal(auto.ranking_, dense.ranking_)
    Y, Yd = auto.embedding_, dense.embedding_
    # the same subspace (eigenvector signs are arbitrary)
    assert np.allclose(linalg.svdvals(Y.T @ Yd), 1.0, atol=1e-8)


@pytest.mark.parametrize("as_sparse", [False, True])
def test_push_through_inverse_is_the_inverse(as_sparse):
    """d > n: ``R^T (R L R^T + beta I)^{-1} R`` from the push-through factor equals the
    inverse of the explicitly formed Y-step matrix."""
    rng = np.random.default_rng(2)
    X = _data(40, 90)
    if as_sparse:
        X = sparse.csr_matrix(np.where(rng.random(X.shape) < 0.6, 0.0, X))
    mu = np.asarray(X.mean(axis=0)).ravel()
    Xc = (X.toarray() if as_sparse else X) - mu
    g = rng.uniform(0.1, 3.0, X.shape[1])
    beta = 1.3
    L = jelsr_embedding_laplacian(Xc, 5)
    fac = RidgeFactor(X, g, mean=mu) if as_sparse else RidgeFactor(Xc, g)
    assert not fac.primal
    op = _push_through_inverse(fac, L, beta)
    _assert_inverse(op, L, Xc, g, beta, rng)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_push_through_fit_equals_dense_fit(monkeypatch):
    """d > n above the dense size: the default fit equals the exact dense-LAPACK fit."""
    n = DENSE_EIGH_MAX + 60
    X = _data(n, n + 40, seed=3)
    kw = dict(n_features_to_select=8, n_clusters=3, max_iter=3, random_state=0)
    accepted = _count_shift_invert(monkeypatch)
    auto = JELSR(**kw).fit(X)
    monkeypatch.undo()
    assert accepted and all(accepted)
    dense = JELSR(eigen_solver="dense", **kw).fit(X)
    assert np.allclose(auto.objective_, dense.objective_, rtol=1e-9)
    assert np.array_equal(auto.ranking_[:50], dense.ranking_[:50])


def test_jelsr_sparse_and_wide_input(planted):
    X = planted[0][0]
    a = _fit_quiet(JELSR(n_clusters=4, max_iter=5, random_state=0), X)
    b = _fit_quiet(JELSR(n_clusters=4, max_iter=5, random_state=0), sparse.csr_matrix(X))
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-6, atol=1e-12)
    Xw, _, _ = make_planted_clusters(30, 4, 66, 3, random_state=0)
    est = _fit_quiet(JELSR(n_clusters=3, max_iter=10, tol=0, random_state=0), Xw)
    assert np.all(np.diff(est.objective_) <= 1e-9 * np.abs(est.objective_[:-1]))
