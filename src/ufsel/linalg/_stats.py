"""Column statistics and Gram / scatter matrices for dense, sparse and dask X.

These are the heavy O(n d) and O(n d^2) steps of several selectors; they are
kept in one place so that every method gets the sparse-aware and dask-aware
versions. A dask array is reduced blockwise (one pass over the data, never
more than one row block per task in memory) and the small d-vector or d x d
result is returned as a NumPy array.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import sparse
from scipy.sparse import linalg as splinalg
from sklearn.utils.sparsefuncs import mean_variance_axis

from ..utils import get_config, import_optional, is_dask_array

__all__ = [
    "center_unit_norm",
    "column_mean_var",
    "constant_features",
    "gram_matrix",
    "graph_quadratic",
    "scatter_matrix",
    "scatter_operator",
    "sparse_dense_matmul",
    "transpose_dot",
    "weighted_moments",
]

#: Row-block size of :func:`weighted_moments` on in-memory data, and of
#: :func:`graph_quadratic` on sparse data.
_ROW_BLOCK = 8192

#: Bytes of one row block of ``W X`` in :func:`graph_quadratic` (at least 64 rows).
#: Small enough for the allocator to reuse the block's memory: temporaries of several
#: MiB are returned to the operating system when freed and page-faulted in again by
#: the next call.
_QUAD_BLOCK_BYTES = 1 << 20



#: :func:`sparse_dense_matmul` splits the rows across threads above this many
#: multiply-adds (below it thread start-up costs more than it saves).
_THREADED_MIN_WORK = 5 * 10**7


def _blas_threads():
    """The number of threads the BLAS may use (OMP_NUM_THREADS etc. respected)."""
    from threadpoolctl import threadpool_info

    counts = [info.get("num_threads", 1) for info in threadpool_info()
              if info.get("user_api") == "blas"]
    return max(1, min(counts)) if counts else 1


def sparse_dense_matmul(S, X):
    """``S @ X`` for a CSR/CSC matrix S and a dense X, split by rows across threads.

    SciPy's sparse-times-dense product runs on one core but releases the GIL,
    so row blocks of S can be multiplied concurrently; this uses as many
    threads as the BLAS is allowed (so ``OMP_NUM_THREADS=1`` or a
    ``threadpoolctl`` limit keeps it serial). The result equals ``S @ X``
    exactly (each output row is computed by the same code). A sparse X is
    multiplied by SciPy directly (the result is sparse).

    Parameters
    ----------
    S : sparse matrix of shape (n, m)
        CSR or CSC.
    X : {ndarray, sparse matrix} of shape (m, k)
        The dense (or sparse) right-hand side.
    """
    S = sparse.csr_matrix(S)
    if sparse.issparse(X):
        return S @ X
    X = np.asarray(X)
    n = S.shape[0]
    # the size test first: threadpoolctl's query scans the loaded libraries (slow)
    if n < 2048 or S.nnz * (X.shape[1] if X.ndim > 1 else 1) < _THREADED_MIN_WORK:
        return np.asarray(S @ X)
    threads = min(_blas_threads(), n // 1024)
    if threads <= 1:
        return np.asarray(S @ X)
    from concurrent.futures import ThreadPoolExecutor

    bounds = np.linspace(0, n, threads + 1).astype(int)
    out = np.empty((n,) + X.shape[1:], dtype=np.result_type(S.dtype, X.dtype))

    def block(i):
        out[bounds[i]:bounds[i + 1]] = S[bounds[i]:bounds[i + 1]] @ X

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(block, range(threads)))
    return out


def _compute(*arrays):
    dask = import_optional("dask", purpose="Computing on a dask array")
    return dask.compute(*arrays)


def column_mean_var(X):
    """Per-feature mean and (biased, ddof=0) variance, without densifying sparse X.

    For a dask array both come from one pass (sums of x and x^2 per block,
    accumulated in float64, variance as ``E[x^2] - E[x]^2`` clipped at 0).

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data.
    """
    if is_dask_array(X):
        n = X.shape[0]
        s1, s2 = _compute(X.sum(axis=0, dtype=np.float64), (X * X).sum(axis=0, dtype=np.float64))
        mean = s1 / n
        return mean, np.maximum(s2 / n - mean**2, 0.0)
    if sparse.issparse(X):
        mean, var = mean_variance_axis(sparse.csr_matrix(X), axis=0)
        return np.asarray(mean, dtype=np.float64), np.asarray(var, dtype=np.float64)
    X = np.asarray(X)
    return X.mean(axis=0, dtype=np.float64), X.var(axis=0, dtype=np.float64)


#: Relative spread below which a feature counts as constant (see :func:`constant_features`).
CONSTANT_RTOL = 1e-12


def _column_range(X):
    """Per-feature ``(min, max)`` of in-memory X (sparse: implicit zeros included)."""
    if sparse.issparse(X):
        lo, hi = X.min(axis=0), X.max(axis=0)
        lo = lo.toarray() if sparse.issparse(lo) else lo
        hi = hi.toarray() if sparse.issparse(hi) else hi
        return np.asarray(lo, dtype=np.float64).ravel(), np.asarray(hi, dtype=np.float64).ravel()
    return X.min(axis=0).astype(np.float64), X.max(axis=0).astype(np.float64)


def constant_features(X, *, rtol=CONSTANT_RTOL):
    """Boolean mask of the constant features of X (dense, sparse or dask).

    Feature j is constant when all its values are equal, or when its standard
    deviation is at most ``rtol`` times the largest standard deviation of any
    feature (``std_j <= 1e-12 * max_k std_k``, the rule UFSA uses to leave
    features out). The first test catches exact constants whose
    computed variance is not exactly zero (``var`` of n copies of 3.55 is
    ``(4e-16)^2`` in float64, and ``E[x^2] - E[x]^2`` on dask data is far
    worse); the second catches features that vary only by round-off compared
    with the others. When every feature has zero spread, every feature is
    constant. Standard deviations come from :func:`column_mean_var`; sparse X
    is never densified and a dask array is read once.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data.
    rtol : float, default=1e-12
        Largest standard deviation, relative to the largest of any feature, of a
        feature counted as constant.

    Returns
    -------
    mask : ndarray of bool, shape (n_features,)
    """
    if is_dask_array(X):
        n = X.shape[0]
        s1, s2, lo, hi = _compute(X.sum(axis=0, dtype=np.float64),
                                  (X * X).sum(axis=0, dtype=np.float64),
                                  X.min(axis=0), X.max(axis=0))
        mean = s1 / n
        var = np.maximum(s2 / n - mean**2, 0.0)
        lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    else:
        _, var = column_mean_var(X)
        lo, hi = _column_range(X)
    std = np.sqrt(var)
    smax = float(std.max()) if std.size else 0.0
    return (lo == hi) | (std <= rtol * smax)


def __getattr__(name):
    """``MAX_GRAM_BYTES``, deprecated: the configuration's ``max_gram_bytes``."""
    if name == "MAX_GRAM_BYTES":
        warnings.warn("MAX_GRAM_BYTES is deprecated: read ufsel.get_config()['max_gram_bytes'] "
                      "and change it with ufsel.set_config(max_gram_bytes=...).",
                      FutureWarning, stacklevel=2)
        return get_config()["max_gram_bytes"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_gram_size(d, owner):
    """Refuse a d x d float64 matrix above the configuration's ``max_gram_bytes``."""
    need = d * d * 8
    limit = get_config()["max_gram_bytes"]
    if need > limit:
        raise ValueError(
            f"{owner} needs a {d} x {d} matrix ({need / 1024**3:.1f} GiB, limit "
            f"{limit / 1024**3:.1f} GiB, ufsel.set_config(max_gram_bytes=...)). Reduce the "
            "number of features first (for example with MaxVariance) or use a selector "
            "that does not form it."
        )


def transpose_dot(X, Y):
    """``X^T Y`` as a dense ndarray, for dense, sparse or dask X and in-memory Y (n x m).

    For a dask X, Y is split into X's row blocks and the product is a blockwise
    sum (``sum_b X_b^T Y_b``).

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n, d)
        The data.
    Y : ndarray of shape (n, m)
        In memory.
    """
    if is_dask_array(X):
        da = import_optional("dask.array", purpose="Computing on a dask array")
        Y = np.asarray(Y)
        Yd = da.from_array(Y, chunks=(X.chunks[0],) + ((Y.shape[1],) if Y.ndim == 2 else ()))
        return np.asarray(_compute(X.T @ Yd)[0])
    R = X.T @ Y
    return R.toarray() if sparse.issparse(R) else np.asarray(R)


def gram_matrix(X, *, owner="ufsel"):
    """Dense ``X^T X`` (d x d) for dense, sparse or dask X.

    Raises a ValueError naming ``owner`` when the d x d result would exceed
    the configuration's ``max_gram_bytes`` (:func:`ufsel.set_config`).

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data.
    owner : str, default="ufsel"
        Name used in the error message (the calling selector).
    """
    check_gram_size(X.shape[1], owner)
    if is_dask_array(X):
        return np.asarray(_compute(X.T @ X)[0])
    G = X.T @ X
    return G.toarray() if sparse.issparse(G) else np.asarray(G)


def scatter_matrix(X, *, owner="ufsel"):
    """Total scatter ``X^T H X = sum_i (x_i - mean)(x_i - mean)^T`` (no 1/n), dense d x d.

    Computed as ``X^T X - n mean mean^T`` so sparse X is never centred (which
    would densify it); a dask X gives both terms in one blockwise pass. The
    result has X's floating dtype (float32 stays float32).

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data.
    owner : str, default="ufsel"
        Name used in the error message (the calling selector).
    """
    check_gram_size(X.shape[1], owner)
    n = X.shape[0]
    if is_dask_array(X):
        G, s1 = _compute(X.T @ X, X.sum(axis=0, dtype=np.float64))
        G, mu = np.asarray(G), s1 / n
    else:
        G = gram_matrix(X, owner=owner)
        mu = np.asarray(X.mean(axis=0)).ravel()
    G = G - (n * np.outer(mu, mu)).astype(G.dtype, copy=False)
    return 0.5 * (G + G.T)


def center_unit_norm(X):
    """Centre each column and scale it to unit L2 norm (constant columns become 0).

    Returns a new dense float64 array (sparse input is densified: centring
    destroys sparsity). Used by Q-alpha (feature vectors ``m_i``) and by the
    SOGFS reference code.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data.
    """
    M = X.toarray() if sparse.issparse(X) else np.array(X, dtype=np.float64)
    M = M.astype(np.float64, copy=False)
    M -= M.mean(axis=0)
    norms = np.linalg.norm(M, axis=0)
    np.divide(M, norms, out=M, where=norms > 0)
    M[:, norms == 0] = 0.0
    return M
def scatter_operator(X, *, shift=None):
    """The total scatter ``X^T H X`` (minus ``diag(shift)``) as a d x d LinearOperator.

    For sparse X with many features, where the dense d x d scatter matrix
    does not fit: a product costs two sparse products with X (O(nnz)) and
    X is never centred, ``S v = X^T (X v) - n mu (mu^T v)``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    shift : ndarray of shape (n_features,), optional
        When given, the operator is ``X^T H X - diag(shift)``.

    Returns
    -------
    S : scipy.sparse.linalg.LinearOperator of shape (n_features, n_features)
    """
    n, d = X.shape
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    mu = np.asarray(X.mean(axis=0), dtype=dtype).ravel()
    Xt = X.T.tocsr() if sparse.issparse(X) else X.T

    def matmat(V):
        V = V.reshape(d, -1)
        out = np.asarray(Xt @ np.asarray(X @ V)) - n * np.outer(mu, mu @ V)
        if shift is not None:
            out -= shift[:, None] * V
        return out

    return splinalg.LinearOperator((d, d), matvec=matmat, matmat=matmat, rmatvec=matmat,
                                   rmatmat=matmat, dtype=dtype)


def graph_quadratic(X, W, *, block_size=None):
    """``diag(X^T W X)``: ``f^T W f`` for every feature f, W a sparse n x n graph.

    Row-blocked (``sum_blocks colsum(X_B * (W_B X))``), so the n x d product
    ``W X`` is never held whole: for sparse X its fill-in would be about
    k times nnz(X). A dask X is processed one pair of row blocks per task,
    skipping block pairs with no edge.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data.
    W : sparse matrix of shape (n_samples, n_samples)
        The graph.
    block_size : int or None, default=None
        Rows per block; None chooses a size that keeps each block's product
        small.

    Returns
    -------
    q : ndarray of shape (n_features,), float64
    """
    W = sparse.csr_matrix(W)
    if is_dask_array(X):
        return _graph_quadratic_dask(X, W)
    n = X.shape[0]
    if block_size is None:
        block_size = (_ROW_BLOCK if sparse.issparse(X)
                      else max(64, _QUAD_BLOCK_BYTES // (8 * max(X.shape[1], 1))))
    if isinstance(X, np.ndarray) and not X.flags.c_contiguous:
        # ``W_B @ X`` needs X row-major: SciPy copies a column-major X (what a MATLAB
        # file loads as) whole for every row block, and the row slices X_B are strided.
        # One row-major copy up front instead.
        X = np.ascontiguousarray(X)
    q = np.zeros(X.shape[1])
    for start in range(0, n, block_size):
        rows = slice(start, min(start + block_size, n))
        WX = W[rows] @ X
        if sparse.issparse(X):
            q += np.asarray(X[rows].multiply(WX).sum(axis=0), dtype=np.float64).ravel()
        else:
            q += np.einsum("ij,ij->j", X[rows], WX, dtype=np.float64)
    return q


def weighted_moments(X, w):
    """``(X^T w, (X * X)^T w)``: weighted first and second column moments, float64.

    Row-blocked for dense X (no n x d temporary), never densifies sparse X,
    one blockwise pass for a dask X.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data.
    w : ndarray of shape (n_samples,)
        Sample weights.
    """
    w = np.asarray(w, dtype=np.float64)
    if is_dask_array(X):
        da = import_optional("dask.array", purpose="Computing on a dask array")
        wd = da.from_array(w, chunks=(X.chunks[0],))[:, None]
        m1, m2 = _compute((X * wd).sum(axis=0, dtype=np.float64),
                          (X * X * wd).sum(axis=0, dtype=np.float64))
        return np.asarray(m1), np.asarray(m2)
    if sparse.issparse(X):
        return (np.asarray(X.T @ w, dtype=np.float64).ravel(),
                np.asarray(X.multiply(X).T @ w, dtype=np.float64).ravel())
    m1 = np.asarray(X.T @ w, dtype=np.float64)
    m2 = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], _ROW_BLOCK):
        Xb = X[start:start + _ROW_BLOCK]
        m2 += np.einsum("ij,ij,i->j", Xb, Xb, w[start:start + _ROW_BLOCK], dtype=np.float64)
    return m1, m2


def _pair_quadratic(Xa, Wab, Xb):
    return np.einsum("ij,ij->j", np.asarray(Xa), np.asarray(Wab @ Xb), dtype=np.float64)


def _graph_quadratic_dask(X, W):
    dask = import_optional("dask", purpose="Computing on a dask array")
    X = X.rechunk({1: -1})
    blocks = X.to_delayed().ravel()
    offsets = np.concatenate([[0], np.cumsum(X.chunks[0])])
    pair = dask.delayed(_pair_quadratic, pure=True)
    parts = []
    for a, Xa in enumerate(blocks):
        Wa = W[offsets[a]:offsets[a + 1]]
        for b, Xb in enumerate(blocks):
            Wab = Wa[:, offsets[b]:offsets[b + 1]]
            if Wab.nnz:
                parts.append(pair(Xa, Wab, Xb))
    total = dask.delayed(sum)(parts) if parts else np.zeros(X.shape[1])
    return np.asarray(_compute(total)[0], dtype=np.float64)
