"""Local-learning graphs: kernel regression weights, local and global discriminative Laplacians.

Building blocks of the local-learning family (RSFS, LGDFS and relatives):

- :func:`weighted_knn_graph`: k nearest neighbours in a feature-weighted
  Euclidean distance ``sqrt(sum_j z_j (x_j - x'_j)^2)`` (LGDFS Eq. 10);
- :func:`local_regions`: each sample followed by its neighbours, the index
  sets of the local learning problems;
- :func:`local_kernel_regression_weights`: the row-stochastic local kernel
  regression matrix S of RSFS Eq. (3) (sparse);
- :func:`local_learning_laplacian`: ``M = B - S - S^T`` (RSFS Eq. 5), B the
  degree matrix of ``S + S^T`` (sparse);
- :func:`local_centered_kernels`: the n local k x k kernels
  ``K_i = H_i X_i^T diag(z) X_i H_i``, batched and chunked;
- :func:`local_discriminative_laplacian`: ``L_l = sum_i S_i L_i S_i^T`` with
  ``L_i = H_i (I + K_i / lambda)^{-1} H_i`` (LGDFS Eqs. 6-7), assembled sparse
  from stacked k x k solves (no Python loop over samples);
- :func:`global_discriminative_laplacian`: ``L_g = H (I + H X^T diag(z) X H /
  lambda)^{-1} H`` (LGDFS Eq. 5) as a LinearOperator through the Woodbury
  identity, never formed.

Samples are in rows (X is n x d); the papers' ``X`` is its transpose.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse import linalg as splinalg

from ..linalg import identity_plus_gram_inverse
from ._affinity import (
    bandwidth_and_neighbours,
    heat_kernel_bandwidth,
    knn_affinity,
    shares_distance_matrix,
    symmetrize,
)
from ._knn import knn_graph
from ._spectral import graph_laplacian

__all__ = [
    "weighted_knn_graph",
    "local_regions",
    "local_kernel_regression_weights",
    "local_learning_laplacian",
    "local_centered_kernels",
    "local_discriminative_laplacian",
    "global_discriminative_laplacian",
]

#: Chunks of the batched local problems hold at most this many floats
#: (n_chunk * k * d), about 64 MB.
_CHUNK_ELEMENTS = 2**23


def _scale_columns(X, w):
    """``X diag(w)`` as a new array / matrix (X is never modified)."""
    if sparse.issparse(X):
        return (X @ sparse.diags(w)).tocsr()
    return X * w


def weighted_knn_graph(X, n_neighbors=5, feature_weights=None, *, algorithm="auto", n_jobs=None,
                       random_state=None, init_indices=None):
    """k nearest neighbours in the feature-weighted Euclidean distance.

    ``Dist_z(x, x') = sqrt(sum_j z_j (x_j - x'_j)^2)`` (LGDFS Eq. 10, whose
    printed ``sqrt(x^T diag(z) x')`` is a typo for the weighted distance);
    computed as the plain Euclidean k-NN of ``X diag(sqrt(z))``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    n_neighbors : int
        Neighbours per sample, the sample itself excluded.
    feature_weights : ndarray of shape (n_features,), optional
        Non-negative weights z; None means all ones.
    algorithm, n_jobs, random_state, init_indices
        As in :func:`ufsel.graph.knn_graph` (``init_indices``: the
        neighbours under the previous weights, to warm-start the approximate
        search).

    Returns
    -------
    distances, indices : ndarrays of shape (n_samples, n_neighbors)
    """
    if feature_weights is not None:
        z = np.asarray(feature_weights, dtype=np.float64)
        if z.shape != (X.shape[1],) or np.any(z < 0):
            raise ValueError(
                f"feature_weights must be {X.shape[1]} non-negative numbers, got shape {z.shape}."
            )
        X = _scale_columns(X, np.sqrt(z))
    return knn_graph(X, n_neighbors, algorithm=algorithm, n_jobs=n_jobs,
                     random_state=random_state, init_indices=init_indices)


def local_regions(indices):
    """Index sets of the local regions: ``[i, neighbours of i]`` for each sample i.

    Parameters
    ----------
    indices : ndarray of shape (n_samples, n_neighbors)

    Returns
    -------
    regions : ndarray of shape (n_samples, n_neighbors + 1)
        Row i is sample i followed by its neighbours (the selection matrix
        S_i of LGDFS Eq. 7 in index form).
    """
    n = indices.shape[0]
    return np.hstack([np.arange(n)[:, None], indices]).astype(np.intp)


def local_kernel_regression_weights(X, n_neighbors=5, *, t="mean", symmetrize_mode="none",
                                    random_state=None):
    """Row-stochastic local kernel regression weights S (RSFS Eq. 3), sparse.

    ``s_ij = K(x_i, x_j) / sum_{j' in N_i} K(x_i, x_j')`` for ``j in N_i`` (the
    ``n_neighbors`` nearest neighbours of x_i, x_i excluded) and 0 otherwise,
    so that ``S y`` is the Nadaraya-Watson kernel regression estimate of y at
    each sample from its neighbours (Eq. 2). K is the heat kernel
    ``exp(-||x_i - x_j||^2 / (2 t^2))``; RSFS does not name its kernel, the
    heat kernel with Cai's bandwidth is the one of the authors' released code.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    n_neighbors : int
    t : "mean", "median" or float
        Heat-kernel bandwidth, see :func:`ufsel.graph.heat_kernel_bandwidth`.
    symmetrize_mode : {"none", "max", "mean", "min"}
        ``"none"`` (the paper): neighbourhoods N_i are the directed k-NN sets.
        ``"max"``: the released RSFS driver's graph, Cai's OR-symmetrised
        heat-kernel k-NN graph ``constructW`` whose rows are then normalised
        to sum 1 (the authors' code, see docs/guide/fidelity.md).
    random_state : int, RandomState or None
        Seeds the sample used to estimate the bandwidth.

    Returns
    -------
    S : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Non-negative, zero diagonal, rows sum to 1 (rows of isolated points
        are 0).
    """
    if symmetrize_mode == "none":
        if shares_distance_matrix(X, "auto", t):  # bandwidth and neighbours from one pass
            t, dist, ind = bandwidth_and_neighbours(X, n_neighbors, t)
        else:
            dist, ind = knn_graph(X, n_neighbors)
            if isinstance(t, str):
                t = heat_kernel_bandwidth(X, t, random_state=random_state)
        vals = np.exp(-(dist**2) / (2.0 * float(t) ** 2))
        n = X.shape[0]
        rows = np.repeat(np.arange(n), n_neighbors)
        K = sparse.csr_matrix((vals.ravel(), (rows, ind.ravel())), shape=(n, n))
    else:
        K = knn_affinity(X, n_neighbors, weight="heat", t=t, symmetrize_mode=symmetrize_mode,
                         random_state=random_state)
    rowsum = np.asarray(K.sum(axis=1)).ravel()
    inv = np.zeros_like(rowsum)
    np.divide(1.0, rowsum, out=inv, where=rowsum > 0)
    S = (sparse.diags(inv) @ K).tocsr()
    S.eliminate_zeros()
    return S


def local_learning_laplacian(S):
    """``M = B - S - S^T`` with B the degree matrix of ``S + S^T`` (RSFS Eq. 5), sparse CSR.

    This is the graph Laplacian of the symmetrised local-learning weights
    ``S + S^T``; it is positive semi-definite and ``M 1 = 0``.

    Parameters
    ----------
    S : sparse matrix of shape (n, n)
        Row-stochastic local-learning weights, such as
        :func:`local_kernel_regression_weights`.
    """
    S = sparse.csr_matrix(S)
    return graph_laplacian(symmetrize(S + S.T, "none"))


def row_chunks(n, k, d):
    step = max(1, _CHUNK_ELEMENTS // max(1, k * d))
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def local_centered_kernels(Xz, regions, rows=None):
    """Centred local data blocks and their kernels, batched.

    Parameters
    ----------
    Xz : ndarray of shape (n_samples, n_features)
        Dense data, already scaled by ``sqrt(z)`` column-wise.
    regions : ndarray of shape (n_samples, k)
        See :func:`local_regions`.
    rows : slice, optional
        Only these regions (for chunked processing).

    Returns
    -------
    G : ndarray of shape (m, k, n_features)
        ``H_i X_i^T diag(sqrt z)``: each region's samples, centred within the
        region.
    K : ndarray of shape (m, k, k)
        ``K_i = G_i G_i^T = H_i X_i^T diag(z) X_i H_i``.
    """
    R = regions if rows is None else regions[rows]
    G = Xz[R]  # (m, k, d)
    G -= G.mean(axis=1, keepdims=True)
    K = np.matmul(G, G.transpose(0, 2, 1))
    return G, K


def local_discriminative_laplacian(Xz, regions, lam, *, return_blocks=False):
    """``L_l = sum_i S_i L_i S_i^T``, ``L_i = H_i (I + K_i / lam)^{-1} H_i`` (LGDFS Eqs. 6-7).

    The n k x k systems are solved as one stacked ``np.linalg.solve`` per
    chunk of regions; because ``K_i`` is centred, ``(I + K_i / lam)^{-1}``
    commutes with ``H_i`` and ``L_i = (I + K_i / lam)^{-1} H_i``.

    Parameters
    ----------
    Xz : ndarray of shape (n_samples, n_features)
        Dense data scaled by ``sqrt(z)`` column-wise (z = feature weights).
    regions : ndarray of shape (n_samples, k)
    lam : float > 0
        The local regularisation parameter lambda_i (one value for all i).
    return_blocks : bool, default=False
        Also return the blocks ``L_i`` (LGDFS's regression step reuses them:
        ``(lam I + K_i)^{-1} H_i = L_i / lam``).

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric positive semi-definite, ``L 1 = 0``.
    blocks : ndarray of shape (n_samples, k, k), if ``return_blocks``
        ``L_i`` in the order of ``regions``.
    """
    n, k = regions.shape
    H = np.eye(k) - 1.0 / k
    blocks = []
    for sl in row_chunks(n, k, Xz.shape[1]):
        _, K = local_centered_kernels(Xz, regions, sl)
        K /= lam
        K += np.eye(k)
        Li = np.linalg.solve(K, np.broadcast_to(H, K.shape))
        blocks.append(0.5 * (Li + Li.transpose(0, 2, 1)))
    data = np.concatenate(blocks, axis=0)
    L = scatter_local_blocks(data, regions)
    return (L, data) if return_blocks else L


def scatter_local_blocks(blocks, regions):
    """``sum_i S_i B_i S_i^T`` for k x k blocks B_i on the regions, sparse CSR (n x n).

    Parameters
    ----------
    blocks : ndarray of shape (n_samples, k, k)
    regions : ndarray of shape (n_samples, k)
        See :func:`local_regions`.

    Returns
    -------
    M : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    n, k = regions.shape
    rows = np.broadcast_to(regions[:, :, None], (n, k, k))
    cols = np.broadcast_to(regions[:, None, :], (n, k, k))
    M = sparse.coo_matrix((blocks.ravel(), (rows.ravel(), cols.ravel())), shape=(n, n))
    return M.tocsr()  # duplicates (shared neighbours) are summed


def global_discriminative_laplacian(X, feature_weights, lam, *, method="auto", return_parts=False,
                                    product_dtype=None):
    """``L_g = H (I + (1/lam) H X^T diag(z) X H)^{-1} H`` (LGDFS Eq. 5) as a LinearOperator.

    With ``A = H X diag(sqrt z)`` (n x d, samples in rows, columns centred)
    the inverse is ``I - A (lam I_d + A^T A)^{-1} A^T`` (Woodbury) and
    commutes with H, so ``L_g v = (I + A A^T / lam)^{-1} H v``: O(n d) per
    product after an O(n d^2 + d^3) factorisation; the n x n matrix is never
    formed (when d > n the n x n system is the smaller one and is factorised
    instead, see :func:`ufsel.linalg.identity_plus_gram_inverse`).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense; never modified.
    feature_weights : ndarray of shape (n_features,)
        z >= 0.
    lam : float > 0
        The global regularisation parameter lambda.
    method : {"auto", "woodbury", "direct"}
    return_parts : bool
        Also return ``A`` and the operator ``(I + A A^T / lam)^{-1}`` (LGDFS's
        regression step reuses them).
    product_dtype : dtype, optional
        See :func:`ufsel.linalg.identity_plus_gram_inverse`.

    Returns
    -------
    L : scipy.sparse.linalg.LinearOperator of shape (n_samples, n_samples)
        Symmetric positive semi-definite, eigenvalues in [0, 1], ``L 1 = 0``.
    A : ndarray of shape (n_samples, n_features), if ``return_parts``
    inverse : LinearOperator of shape (n_samples, n_samples), if ``return_parts``
    """
    A = (X - X.mean(axis=0)) * np.sqrt(np.asarray(feature_weights, dtype=np.float64))
    inv = identity_plus_gram_inverse(A, lam, method=method, product_dtype=product_dtype)
    n = X.shape[0]

    def matmat(V):
        V = np.asarray(V).reshape(n, -1)
        Hv = V - V.mean(axis=0)
        out = inv @ Hv
        return out - out.mean(axis=0)

    def matvec(v):
        return matmat(v).ravel()

    op = splinalg.LinearOperator((n, n), matvec=matvec, matmat=matmat, rmatvec=matvec,
                                 rmatmat=matmat, dtype=np.float64)
    return (op, A, inv) if return_parts else op
