"""Per-neighbourhood Gram matrices, batched over all samples.

Local methods (UDFS's local discriminative scatter, LLE reconstruction
weights, local-learning regularisation) need, for every sample i, the small
``m x m`` Gram matrix of the m points of its neighbourhood. They are
computed here in bounded chunks, as one ``(n, m, m)`` stack, so that no
``n x n`` (let alone ``n x n x n``) array is ever formed and no Python loop
runs over the samples.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = ["local_gram", "centered_gram"]

#: Upper bound (bytes) of the dense ``(chunk, m, d)`` block gathered at once.
_CHUNK_BYTES = 64 * 1024**2


def local_gram(X, idx):
    """Gram matrices ``G_i = X[idx[i]] X[idx[i]]^T`` for every row i of ``idx``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    idx : ndarray of int, shape (n_groups, m)
        Row indices of each group (e.g. a sample followed by its neighbours).

    Returns
    -------
    G : ndarray of shape (n_groups, m, m)
        ``G[i, a, b] = <x_{idx[i, a]}, x_{idx[i, b]}>``.

    Sparse X is never densified: each of the ``m (m + 1) / 2`` entries of all
    the ``G_i`` comes from one elementwise product of two row selections of
    X (O(m^2 nnz) in all), so the cost does not grow with d.
    """
    idx = np.asarray(idx)
    ng, m = idx.shape
    d = X.shape[1]
    out = np.empty((ng, m, m))
    if sparse.issparse(X):
        return _local_gram_sparse(sparse.csr_matrix(X), idx, out)
    chunk = max(1, int(_CHUNK_BYTES // max(1, 8 * m * d)))
    for s in range(0, ng, chunk):
        flat = idx[s:s + chunk].ravel()
        rows = X[flat]
        rows = rows.toarray() if sparse.issparse(rows) else np.asarray(rows, dtype=np.float64)
        B = rows.reshape(-1, m, d)
        np.matmul(B, B.transpose(0, 2, 1), out=out[s:s + chunk])
    return out


def _local_gram_sparse(X, idx, out):
    ng, m = idx.shape
    row_nnz = max(1.0, X.nnz / max(1, X.shape[0]))
    # m row selections of a chunk held at once: about 12 bytes per stored entry
    chunk = max(1, int(_CHUNK_BYTES // (12 * m * row_nnz)))
    for s in range(0, ng, chunk):
        blk = idx[s:s + chunk]
        rows = [X[blk[:, a]] for a in range(m)]
        for a in range(m):
            for b in range(a, m):
                v = np.asarray(rows[a].multiply(rows[b]).sum(axis=1), dtype=np.float64).ravel()
                out[s:s + chunk, a, b] = v
                out[s:s + chunk, b, a] = v
    return out


def centered_gram(G):
    """``H G_i H`` for a Gram matrix or a stack of them (the last two axes),
    ``H = I - 11^T / m`` (double centring).

    This is the Gram matrix ``X~_i^T X~_i`` of the locally centred points
    ``X~_i = X_i H`` without forming them.

    Parameters
    ----------
    G : ndarray of shape (..., m, m)
        A Gram matrix or a stack of them.
    """
    return (G - G.mean(axis=-2, keepdims=True) - G.mean(axis=-1, keepdims=True)
            + G.mean(axis=(-2, -1), keepdims=True))
