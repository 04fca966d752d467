"""NDFS: the graph Laplacian D - W, wide data and a non-negative indicator."""

import numpy as np
from scipy import linalg

from ufsel import NDFS
from ufsel.datasets import make_planted_clusters
from ufsel.graph import knn_affinity
from ufsel.selectors.sparse_regression._ndfs import ndfs_laplacian

from ._helpers import fit_quiet as _fit_quiet
from ._helpers import hits as _hits


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
