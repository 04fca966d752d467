"""laplacian_smallest's shift-invert step: SuperLU with a symmetric ordering."""

import numpy as np
from scipy import linalg, sparse

from ufsel.graph import knn_graph, laplacian_smallest
from ufsel.graph._spectral import _shifted_inverse


def _knn_laplacian(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    _, ind = knn_graph(X, 10, random_state=0)
    rows = np.repeat(np.arange(n), ind.shape[1])
    W = sparse.csr_matrix((np.exp(-rng.random(rows.size)), (rows, ind.ravel())), shape=(n, n))
    W = 0.5 * (W + W.T)
    W.setdiag(0)
    W.eliminate_zeros()
    return (sparse.diags(np.asarray(W.sum(axis=1)).ravel()) - W).tocsc()


def test_shifted_inverse_solves_the_shifted_system():
    L = _knn_laplacian(600, 0)
    sigma = -1e-3 * float(abs(L.diagonal()).max())
    op = _shifted_inverse(L, sigma)
    b = np.random.default_rng(1).standard_normal(600)
    x = op.matvec(b)
    r = (L - sigma * sparse.identity(600)) @ x - b
    assert np.linalg.norm(r) <= 1e-12 * np.linalg.norm(b)


def test_laplacian_smallest_above_the_dense_size_equals_lapack():
    L = _knn_laplacian(700, 2)  # connected, above the dense size: shift-invert ARPACK
    w, V = laplacian_smallest(L, 6, random_state=0)
    w_ref, V_ref = linalg.eigh(L.toarray(), subset_by_index=[0, 5])
    np.testing.assert_allclose(w, w_ref, atol=1e-10)
    # the same invariant subspace (eigenvalues may be close, not the vectors one by one)
    np.testing.assert_allclose(V @ V.T @ V_ref, V_ref, atol=1e-8)
