"""Tests of the baselines UDFS, NDFS, JELSR, RUFS, SPEC and their shared blocks."""

import warnings

import numpy as np
import pytest
from scipy import linalg, sparse
from sklearn.exceptions import ConvergenceWarning

from ufsel import JELSR, NDFS, RUFS, SPEC, UDFS
from ufsel.selectors.sparse_regression._ndfs import ndfs_laplacian
from ufsel.selectors.sparse_regression._rufs import rufs_objective
from ufsel.selectors.filters._spec import spec_scores
from ufsel.selectors.sparse_regression._udfs import udfs_local_scatter
from ufsel.datasets import make_planted_clusters
from ufsel.graph import knn_affinity, knn_graph
from ufsel.linalg import (
    scaled_indicator,
)


@pytest.fixture(scope="module")
def planted():
    return [make_planted_clusters(150, 5, 35, 4, random_state=s) for s in range(3)]


def _hits(est, informative, k=5):
    top = np.argsort(est.ranking_)[:k]
    return len(set(top) & set(informative))


def _fit_quiet(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X)


# ----------------------------------------------------------------- planted
@pytest.mark.parametrize("make, k, min_hits", [
    (lambda: UDFS(5, n_clusters=4, gamma=0.1), 5, 4),
    (lambda: NDFS(5, n_clusters=4, random_state=0), 5, 5),
    (lambda: JELSR(5, n_clusters=4, random_state=0), 10, 4),
    (lambda: RUFS(5, n_clusters=4, random_state=0), 5, 5),
    (lambda: SPEC(5, scoring="phi1"), 5, 5),
    (lambda: SPEC(5, scoring="phi2"), 5, 5),
    (lambda: SPEC(5, scoring="phi3", n_clusters=4), 5, 5),
], ids=["udfs", "ndfs", "jelsr", "rufs", "spec1", "spec2", "spec3"])
def test_planted_informative_features_found(planted, make, k, min_hits):
    for X, _, informative in planted:
        est = _fit_quiet(make(), X)
        assert _hits(est, informative, k) >= min_hits


# ------------------------------------------------------ objective decrease
@pytest.mark.parametrize("make", [
    lambda: UDFS(n_clusters=4, gamma=1.0, max_iter=30, tol=0),
    lambda: NDFS(n_clusters=4, max_iter=30, tol=0, random_state=0),
    lambda: NDFS(n_clusters=4, max_iter=30, tol=0, laplacian="unnormalized", random_state=0),
    lambda: JELSR(n_clusters=4, max_iter=30, tol=0, random_state=0),
    lambda: JELSR(n_clusters=4, max_iter=30, tol=0, embedding="laplacian", random_state=0),
    lambda: RUFS(n_clusters=4, max_iter=30, tol=0, random_state=0),
    lambda: RUFS(n_clusters=4, max_iter=30, tol=0, zeta=10.0, f_reg=1e-4, g_l1=0.1,
                 random_state=0),
], ids=["udfs", "ndfs", "ndfs-unnorm", "jelsr", "jelsr-lap", "rufs", "rufs-hidden"])
def test_objective_decreases(planted, make):
    X = planted[0][0]
    est = _fit_quiet(make(), X)
    obj = est.objective_
    assert est.n_iter_ == obj.size >= 2
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))
    assert obj[-1] < obj[0]


def test_convergence_warning_and_determinism(planted):
    X = planted[0][0]
    with pytest.warns(ConvergenceWarning, match="NDFS did not converge"):
        NDFS(n_clusters=4, max_iter=2, tol=0, random_state=0).fit(X)
    for cls in (NDFS, RUFS, JELSR):
        a = _fit_quiet(cls(n_clusters=4, max_iter=5, random_state=3), X)
        b = _fit_quiet(cls(n_clusters=4, max_iter=5, random_state=3), X)
        np.testing.assert_array_equal(a.scores_, b.scores_)


def test_caller_data_untouched(planted):
    X = planted[0][0]
    X0 = X.copy()
    for est in (UDFS(n_clusters=3, max_iter=3), NDFS(n_clusters=3, max_iter=3),
                JELSR(n_clusters=3, max_iter=3), RUFS(n_clusters=3, max_iter=3), SPEC()):
        _fit_quiet(est, X)
        np.testing.assert_array_equal(X, X0)


# --------------------------------------------------------------------- UDFS
def _udfs_brute_force(X, k, lam):
    """Paper's definition, one sample at a time: S_(i) selects the i-th neighbourhood."""
    n = X.shape[0]
    _, ind = knn_graph(X, k)
    H = np.eye(k + 1) - 1.0 / (k + 1)
    L = np.zeros((n, n))
    for i in range(n):
        nbh = np.r_[i, ind[i]]
        S = np.zeros((n, k + 1))
        S[nbh, np.arange(k + 1)] = 1.0
        Xt = X[nbh].T @ H  # d x (k+1)
        B = np.linalg.inv(Xt.T @ Xt + lam * np.eye(k + 1))
        L += S @ H @ B @ H @ S.T
    return L


def _udfs_port_scatter(X, k, gamma):
    """scikit-feature's construct_M inner matrix (the defect, restated): S_i mis-indexed
    (column q marks the neighbours of sample q) and lambda = gamma."""
    n = X.shape[0]
    idx = np.argsort(((X[:, None] - X[None]) ** 2).sum(-1), axis=1)[:, : k + 1]
    H = np.eye(k + 1) - 1.0 / (k + 1)
    L = np.zeros((n, n))
    for i in range(n):
        Xt = X[idx[i]].T @ H
        B = np.linalg.inv(Xt.T @ Xt + gamma * np.eye(k + 1))
        S = np.zeros((n, k + 1))
        for q in range(k + 1):
            S[idx[q], q] = 1.0
        L += S @ H @ B @ H @ S.T
    return L


def test_udfs_local_scatter_matches_paper_definition_not_port():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 4)
    for lam in (0.1, 10.0):
        L = udfs_local_scatter(X, 4, reg=lam)
        assert sparse.issparse(L) and L.nnz <= 30 * 25
        ref = _udfs_brute_force(X, 4, lam)
        np.testing.assert_allclose(L.toarray(), ref, atol=1e-12)
        np.testing.assert_allclose(L @ np.ones(30), 0, atol=1e-10)  # H kills constants
        assert linalg.eigvalsh(ref).min() > -1e-10
        # the port's matrix differs (wrong selection matrix), even with gamma == lambda
        assert not np.allclose(_udfs_port_scatter(X, 4, lam), ref, atol=1e-6)


def test_udfs_lambda_not_tied_to_gamma(planted):
    X = planted[0][0]
    a = _fit_quiet(UDFS(n_clusters=4, gamma=1.0, reg=1e3, max_iter=1), X)
    b = _fit_quiet(UDFS(n_clusters=4, gamma=1.0, reg=1e-1, max_iter=1), X)
    c = _fit_quiet(UDFS(n_clusters=4, gamma=5.0, reg=1e3, max_iter=1), X)
    # reg changes M (the local scatter); gamma only the l2,1 weight
    assert not np.allclose(a.objective_, b.objective_)
    L = udfs_local_scatter(X, 5, reg=1e3)
    M = X.T @ (L @ X)
    for est, g in ((a, 1.0), (c, 5.0)):
        W = est.W_
        val = np.sum(W * (M @ W)) + g * np.sum(np.sqrt((W**2).sum(1) + 2.2e-16))
        np.testing.assert_allclose(est.objective_[-1], val, rtol=1e-8)


# --------------------------------------------------------------------- NDFS
def test_ndfs_laplacian_is_degree_matrix_minus_w():
    X = make_planted_clusters(60, 3, 5, 3, random_state=0)[0]
    W = knn_affinity(X, 4, weight="heat")
    deg = np.asarray(W.sum(1)).ravel()
    L = ndfs_laplacian(W, normed=False).toarray()
    np.testing.assert_allclose(L, np.diag(deg) - W.toarray(), atol=1e-14)
    np.testing.assert_allclose(L, L.T, atol=1e-14)
    np.testing.assert_allclose(L @ np.ones(60), 0, atol=1e-12)
    Ln = ndfs_laplacian(W, normed=True).toarray()
    np.testing.assert_allclose(Ln, Ln.T, atol=1e-14)
    np.testing.assert_allclose(Ln @ np.sqrt(deg), 0, atol=1e-12)
    assert linalg.eigvalsh(Ln).min() > -1e-10
    # scikit-feature's `np.array(W.sum(1))[:, 0] - W` broadcasts d_j along rows
    port = deg[None, :] - W.toarray()
    assert not np.allclose(port, port.T)
    assert not np.allclose(port, L)


def test_ndfs_wide_data_and_nonnegative_indicator():
    X, _, informative = make_planted_clusters(40, 4, 96, 3, random_state=0)  # d > n
    est = _fit_quiet(NDFS(4, n_clusters=3, random_state=0), X)
    assert np.all(est.F_ >= 0)
    assert np.all(np.diff(est.objective_) <= 1e-9 * np.abs(est.objective_[:-1]))
    assert _hits(est, informative, 8) >= 3


# -------------------------------------------------------------------- JELSR
def test_jelsr_sparse_and_wide_input(planted):
    X = planted[0][0]
    a = _fit_quiet(JELSR(n_clusters=4, max_iter=5, random_state=0), X)
    b = _fit_quiet(JELSR(n_clusters=4, max_iter=5, random_state=0), sparse.csr_matrix(X))
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-6, atol=1e-12)
    Xw, _, _ = make_planted_clusters(30, 4, 66, 3, random_state=0)
    est = _fit_quiet(JELSR(n_clusters=3, max_iter=10, tol=0, random_state=0), Xw)
    assert np.all(np.diff(est.objective_) <= 1e-9 * np.abs(est.objective_[:-1]))


# --------------------------------------------------------------------- RUFS
def test_rufs_objective_terms():
    rng = np.random.RandomState(0)
    X = np.abs(rng.randn(20, 6))
    G = scaled_indicator(rng.randint(0, 3, 20), 3, offset=0.0)
    F = np.abs(rng.randn(3, 6))
    W = rng.randn(6, 3)
    L = sparse.identity(20, format="csr")
    base = rufs_objective(X, G, F, W, L, 0.0, 1.0, 1.0, 0.0, eps=0.0)
    expect = (np.linalg.norm(X - G @ F, axis=1).sum() + np.linalg.norm(X @ W - G, axis=1).sum()
              + np.linalg.norm(W, axis=1).sum())
    np.testing.assert_allclose(base, expect)
    hidden = rufs_objective(X, G, F, W, L, 0.0, 1.0, 1.0, 0.0, f_reg=2.0, g_l1=3.0, eps=0.0)
    np.testing.assert_allclose(hidden - base, 2.0 * np.linalg.norm(F, axis=0).sum() + 3.0 * G.sum())


# --------------------------------------------------------------------- SPEC
def test_spec_values_match_eigendecomposition():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 6)
    X[:, 5] = 2.0  # constant feature: degenerate for phi2
    S = knn_affinity(X, 5, weight="heat")
    deg = np.asarray(S.sum(1)).ravel()
    Dh = np.sqrt(deg)
    Lhat = np.eye(40) - S.toarray() / np.outer(Dh, Dh)
    lam, V = linalg.eigh(Lhat)
    Fh = Dh[:, None] * X
    Fh /= np.linalg.norm(Fh, axis=0)
    alpha = V.T @ Fh
    for r in (1, 2, 0.5):
        phi1 = ((np.clip(lam, 0, 2) ** r)[:, None] * alpha**2).sum(0)
        np.testing.assert_allclose(spec_scores(X, S, scoring="phi1", power=r)[:5], phi1[:5],
                                   rtol=1e-7, atol=1e-12)
        phi2 = spec_scores(X, S, scoring="phi2", power=r)
        np.testing.assert_allclose(phi2[:5], phi1[:5] / (1 - alpha[0, :5] ** 2), rtol=1e-6)
        assert np.isinf(phi2[5])
    k = 4
    phi3 = ((2.0 - lam[1:k])[:, None] * alpha[1:k] ** 2).sum(0)
    np.testing.assert_allclose(spec_scores(X, S, scoring="phi3", n_clusters=k)[:5], phi3[:5],
                               rtol=1e-6)


@pytest.mark.parametrize("scoring", ["phi1", "phi2", "phi3"])
def test_spec_ranking_direction_per_scoring(planted, scoring):
    """phi1/phi2: smaller is better, phi3: larger is better. scikit-feature ranks phi1/phi2
    (styles -1, 0) descending and phi3 (style k) ascending, which selects noise."""
    X, _, informative = planted[0]
    est = SPEC(5, scoring=scoring, n_clusters=4).fit(X)
    assert _hits(est, informative) == 5
    v = est.spec_values_
    port = np.argsort(v)[::-1][:5] if scoring != "phi3" else np.argsort(v)[:5]
    assert len(set(port) & set(informative)) == 0
    assert np.all(est.ranking_[np.argsort(v if scoring != "phi3" else -v)] == np.arange(1, 41))


def test_spec_full_rbf_and_limits(planted):
    X, _, informative = planted[0]
    est = SPEC(5, n_neighbors=None).fit(X)
    assert _hits(est, informative) == 5
    Xc = X.copy()
    Xc[:, 0] = 1.0
    est = SPEC(5).fit(Xc)
    assert est.ranking_[0] == 40  # the constant feature is ranked last
