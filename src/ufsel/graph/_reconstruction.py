"""Graphs built from local fits: LLE reconstruction weights and the kernel-ridge local-learning matrix.

Both solve one small ``k x k`` system per sample; the systems are formed from
the batched neighbourhood Gram matrices of :func:`ufsel.linalg.local_gram`
and solved as one stacked ``numpy.linalg.solve`` call, so the cost is
O(n k^2 d + n k^3) and the result is a sparse matrix with O(n k) (or
O(n k^2)) entries; no n x n dense matrix is formed.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from ..linalg import local_gram
from ._affinity import bandwidth_and_neighbours, bandwidth_before_search, knn_affinity
from ._knn import knn_graph
from ._local import local_regions

__all__ = ["lle_weights", "local_krr_laplacian", "reconstruction_laplacian"]


def _neighbourhoods(X, n_neighbors):
    """Each sample followed by its k nearest neighbours (see :func:`local_regions`)."""
    return local_regions(knn_graph(X, n_neighbors)[1])


def lle_weights(X, n_neighbors=5, *, reg=1e-3):
    """Locally linear reconstruction weights (Roweis & Saul 2000), as a sparse matrix.

    For each sample i, ``s_i = argmin ||x_i - sum_{j in N_i} s_ij x_j||^2``
    s.t. ``sum_j s_ij = 1``, over its k nearest neighbours N_i (itself
    excluded). The local covariance ``C = Z Z^T`` (``Z`` the neighbours minus
    ``x_i``) is regularised by ``reg * trace(C) * I`` (``reg`` itself when the
    trace is 0), as scikit-learn's and Roweis's code do.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data.
    n_neighbors : int, default=5
        k, the neighbours of each sample (itself excluded).
    reg : float, default=1e-3
        Regularisation of the local covariance, relative to its trace.

    Returns
    -------
    S : scipy.sparse.csr_matrix of shape (n, n)
        Rows sum to 1; k non-zeros per row; not symmetric.
    """
    n = X.shape[0]
    idx = _neighbourhoods(X, n_neighbors)
    G = local_gram(X, idx)
    gii = G[:, 0, 0][:, None, None]
    gin = G[:, 1:, 0]
    C = G[:, 1:, 1:] - gin[:, :, None] - gin[:, None, :] + gii
    tr = np.trace(C, axis1=1, axis2=2)
    r = np.where(tr > 0, reg * tr, reg)
    C[:, np.arange(n_neighbors), np.arange(n_neighbors)] += r[:, None]
    w = np.linalg.solve(C, np.ones((n, n_neighbors, 1)))[..., 0]
    w /= w.sum(axis=1, keepdims=True)
    rows = np.repeat(np.arange(n), n_neighbors)
    return sparse.csr_matrix((w.ravel(), (rows, idx[:, 1:].ravel())), shape=(n, n))


def reconstruction_laplacian(A):
    """``(I - A)^T (I - A)`` for a sparse row-reconstruction matrix A (sparse, symmetric PSD).

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Row-reconstruction weights, such as :func:`lle_weights`.
    """
    n = A.shape[0]
    B = sparse.identity(n, format="csr") - sparse.csr_matrix(A)
    M = (B.T @ B).tocsr()
    M = 0.5 * (M + M.T)
    return M.tocsr()


def local_krr_laplacian(X, n_neighbors=5, *, reg=0.1, t="mean", kernel="heat", random_state=None):
    """Local-learning regularisation matrix ``T = (I - A)^T (I - A)`` (Wu & Schoelkopf 2007).

    Each sample's label is predicted by a kernel ridge regression fitted on
    its neighbours N_i: ``A[i, N_i] = K(i, N_i) (K(N_i, N_i) + reg I)^{-1}``.
    Two kernels are offered; they differ in what ``K`` is:

    - ``kernel="heat"`` (default): N_i = the k nearest neighbours of sample i
      (itself excluded) and K the heat kernel
      ``exp(-||x_a - x_b||^2 / (2 t^2))`` evaluated on *every* pair of
      ``{i} + N_i``. ``K(N_i, N_i)`` is then the Gram matrix of a positive
      definite kernel (unit diagonal), so each local ridge regression is a
      well-posed kernel ridge regression as in Wu & Schoelkopf, and
      ``|A[i, j]| <= sqrt(k) / reg`` is bounded.
    - ``kernel="affinity"``: FSASL's ``localLearnMx_KRR.m`` as written.
      ``K`` is the sparse k-NN heat-kernel affinity of ``constructW``
      (:func:`ufsel.graph.knn_affinity`: OR-symmetrised ``max(W, W^T)``,
      zero diagonal), N_i = the non-zeros of row i of that *symmetrised*
      graph (so k or more samples), and ``K(N_i, N_i)`` is the sub-matrix of
      the sparse affinity: zero diagonal, and zero wherever two neighbours of
      i are not themselves graph neighbours. That matrix is not a kernel
      Gram matrix (it is indefinite), ``K(N_i, N_i) + reg I`` can be nearly
      singular, and the entries can become large (orders of magnitude above
      those of the ``"heat"`` form), so T is dominated by a few badly conditioned
      neighbourhoods. It is offered to reproduce the reference
      code (RUFS ``local_kernel="affinity"``).

    ``t`` as in :func:`ufsel.graph.knn_affinity` (Cai's mean distance by
    default; ``constructW``'s default, which ``localLearnMx_KRR.m`` uses).
    FSASL uses k = 5, reg = 0.1. Where :func:`ufsel.graph.knn_affinity` takes
    the bandwidth and the neighbours from one distance matrix (dense float64,
    n <= 3,000, more than 15 features), so does this function, with the same
    rule for ties (the smaller index, as MATLAB's stable ``sort``).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data.
    n_neighbors : int, default=5
        k, the neighbours of each sample (itself excluded).
    reg : float, default=0.1
        Ridge of each local kernel regression.
    t : "mean", "median" or float, default="mean"
        Heat-kernel bandwidth, as in :func:`ufsel.graph.knn_affinity`.
    kernel : {"heat", "affinity"}, default="heat"
        The kernel K, see above.
    random_state : int, RandomState or None, default=None
        Seeds the sample on which the bandwidth is estimated.

    Returns
    -------
    T : scipy.sparse.csr_matrix of shape (n, n), symmetric PSD, ``T 1`` not
        necessarily 0 (the ridge shrinks predictions).
    """
    if kernel not in ("heat", "affinity"):
        raise ValueError(f"kernel={kernel!r} not understood, valid options are 'heat' and "
                         "'affinity'.")
    n = X.shape[0]
    t = bandwidth_before_search(X, t, random_state=random_state)
    if kernel == "affinity":  # knn_affinity shares the distance matrix itself
        return reconstruction_laplacian(_affinity_krr_weights(X, n_neighbors, reg, t))
    if isinstance(t, str):  # still to estimate: from the search's own distance matrix
        t, _, ind = bandwidth_and_neighbours(X, n_neighbors, t)
        idx = local_regions(ind)
    else:
        idx = _neighbourhoods(X, n_neighbors)
    G = local_gram(X, idx)
    diag = np.diagonal(G, axis1=1, axis2=2)
    D2 = np.maximum(diag[:, :, None] + diag[:, None, :] - 2.0 * G, 0.0)
    K = np.exp(-D2 / (2.0 * float(t) ** 2))
    Kn = K[:, 1:, 1:].copy()
    Kn[:, np.arange(n_neighbors), np.arange(n_neighbors)] += reg
    a = np.linalg.solve(Kn, K[:, 1:, 0][..., None])[..., 0]  # symmetric K_N: k_i^T K^-1 = (K^-1 k_i)^T
    rows = np.repeat(np.arange(n), n_neighbors)
    A = sparse.csr_matrix((a.ravel(), (rows, idx[:, 1:].ravel())), shape=(n, n))
    return reconstruction_laplacian(A)


#: Largest n for which the affinity's sub-matrices are gathered from a dense n x n copy.
_DENSE_GATHER_MAX = 4096


def _affinity_krr_weights(X, n_neighbors, reg, t):
    """``A[i, N_i] = K(i, N_i) (K(N_i, N_i) + reg I)^{-1}`` with K the sparse k-NN affinity.

    Rows are grouped by their neighbourhood size (the OR-symmetrised graph
    has rows of different lengths) and each group is one stacked solve.
    """
    n = X.shape[0]
    K = knn_affinity(X, n_neighbors, weight="heat", t=t).astype(np.float64)  # t: str or float
    K.sort_indices()
    sizes = np.diff(K.indptr)
    data = np.empty(K.nnz)
    # K(N_i, N_i) gathered from a dense copy when it is small (a sparse fancy-index
    # gather costs more than the solves); from the sparse matrix otherwise.
    dense = K.toarray() if n <= _DENSE_GATHER_MAX else None
    for s in np.unique(sizes[sizes > 0]):
        rows = np.flatnonzero(sizes == s)
        pos = K.indptr[rows][:, None] + np.arange(s)  # (m, s) positions in K.data
        idx = K.indices[pos]
        ki = K.data[pos]
        if dense is not None:
            sub = dense[idx[:, :, None], idx[:, None, :]]
        else:
            sub = np.asarray(K[np.repeat(idx, s, axis=1).ravel(), np.tile(idx, (1, s)).ravel()])
            sub = sub.reshape(len(rows), s, s)
        sub[:, np.arange(s), np.arange(s)] += reg
        data[pos] = np.linalg.solve(sub, ki[..., None])[..., 0]  # K(N, N) symmetric
    return sparse.csr_matrix((data, K.indices.copy(), K.indptr.copy()), shape=(n, n))
