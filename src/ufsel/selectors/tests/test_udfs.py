"""UDFS: the local scatter matrix against the paper's definition, lambda apart from gamma."""

import numpy as np
from scipy import linalg, sparse

from ufsel import UDFS
from ufsel.graph import knn_graph
from ufsel.selectors.sparse_regression._udfs import udfs_local_scatter

from ._helpers import fit_quiet as _fit_quiet


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
