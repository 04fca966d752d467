"""The planted benchmark at scale: clusters carried by a few features, noise elsewhere."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["make_planted", "planted_layout", "planted_rows"]

#: Rows generated from one random stream: block ``b`` of the data (rows
#: ``b * PLANTED_BLOCK_ROWS`` onwards) is drawn from ``numpy.random.default_rng((seed, b))``,
#: so any row range can be generated on its own (chunk by chunk, or lazily).
PLANTED_BLOCK_ROWS = 65_536


def planted_layout(n_features=100, n_informative=10, n_clusters=10, *, separation=4.0,
                   random_state=None):
    """The fixed part of :func:`make_planted`: seed, cluster centres and column order.

    Parameters
    ----------
    n_features, n_informative, n_clusters, separation, random_state
        As in :func:`make_planted`.

    Returns
    -------
    layout : dict
        ``seed`` (int, the row blocks' seed), ``centres`` (n_clusters x n_informative),
        ``columns`` (the position of each generated column: the informative ones are
        generated first), ``informative`` (sorted column indices of the planted features).
    """
    if not (isinstance(n_features, Integral) and isinstance(n_informative, Integral)
            and 1 <= n_informative <= n_features):
        raise ValueError(
            f"n_informative must be an integer in [1, n_features={n_features}], got "
            f"{n_informative!r}."
        )
    if not (isinstance(n_clusters, Integral) and n_clusters >= 2):
        raise ValueError(f"n_clusters must be an integer >= 2, got {n_clusters!r}.")
    rng = check_random_state(random_state)
    seed = int(rng.randint(2**31 - 1))
    centres = separation * rng.standard_normal((n_clusters, n_informative))
    perm = rng.permutation(n_features)  # generated column j goes to position perm[j]
    return {"seed": seed, "centres": centres, "columns": perm,
            "informative": np.sort(perm[:n_informative])}


def planted_stream(layout, b, n_rows, n_features, *, labels_only=False):
    """``n_rows`` planted rows drawn from the random stream ``default_rng((seed, b))``.

    The one generator of the planted model: :func:`planted_rows` draws its blocks of
    :data:`PLANTED_BLOCK_ROWS` rows with it, and ``make_planted_dask`` its chunks.

    Parameters
    ----------
    layout : dict
        From :func:`planted_layout`.
    b : int
        The stream's index.
    n_rows, n_features : int
        Shape of the rows drawn.
    labels_only : bool, default=False
        Draw and return only the clusters (the stream's first draw).

    Returns
    -------
    X : ndarray of shape (n_rows, n_features), float32
        The rows, planted columns in place (not returned with ``labels_only``).
    y : ndarray of shape (n_rows,)
        Cluster of each row.
    """
    centres, perm = layout["centres"], layout["columns"]
    rng = np.random.default_rng((layout["seed"], b))
    y = rng.integers(centres.shape[0], size=n_rows)
    if labels_only:
        return y
    block = rng.standard_normal((n_rows, n_features), dtype=np.float32)
    block[:, :centres.shape[1]] += centres[y].astype(np.float32)
    X = np.empty_like(block)
    X[:, perm] = block
    return X, y


def planted_rows(layout, start, stop, n_features, dtype=np.float32):
    """Rows ``start:stop`` of the planted data of ``layout`` (:func:`planted_layout`).

    Any row range gives the same rows as the whole array would: each block of
    :data:`PLANTED_BLOCK_ROWS` rows has its own random stream.

    Returns
    -------
    X : ndarray of shape (stop - start, n_features)
    y : ndarray of shape (stop - start,)
    """
    X = np.empty((stop - start, n_features), dtype=dtype)
    y = np.empty(stop - start, dtype=np.intp)
    b0, b1 = start // PLANTED_BLOCK_ROWS, (stop - 1) // PLANTED_BLOCK_ROWS + 1 if stop > start else 0
    for b in range(b0, b1):
        lo, hi = b * PLANTED_BLOCK_ROWS, (b + 1) * PLANTED_BLOCK_ROWS
        block, yb = planted_stream(layout, b, PLANTED_BLOCK_ROWS, n_features)
        a, e = max(lo, start), min(hi, stop)
        X[a - start:e - start] = block[a - lo:e - lo]
        y[a - start:e - start] = yb[a - lo:e - lo]
    return X, y


def make_planted(n_samples=1_000_000, n_features=100, n_informative=10, *, n_clusters=10,
                 separation=4.0, dtype=np.float32, random_state=None):
    """A large data set whose cluster structure is carried by a few planted features.

    ``n_informative`` features hold ``n_clusters`` Gaussian clusters (centres
    drawn with spread ``separation``, unit within-cluster noise); the other
    features are independent standard Gaussian noise. Each sample's cluster
    is drawn uniformly. The planted benchmark of the scale guide
    (``benchmarks/speed/bench_at_scale.py million``): a selector should rank
    the planted features first.

    The rows are generated in blocks of :data:`PLANTED_BLOCK_ROWS`, each from its
    own random stream, in single precision: memory is the output plus one
    block, and a row range can be generated alone with the same values
    (:func:`planted_rows`).

    Parameters
    ----------
    n_samples : int, default=1_000_000
        Number of samples.
    n_features : int, default=100
        Number of features.
    n_informative : int, default=10
        Number of planted features carrying the clusters.
    n_clusters : int, default=10
        Number of clusters. With ``n_clusters > n_informative`` the centres
        span all the planted features.
    separation : float, default=4.0
        Spread of the cluster centres in the planted features.
    dtype : {numpy.float32, numpy.float64}, default=numpy.float32
        Data type of X (1,000,000 x 100 float32 is 400 MB).
    random_state : int, RandomState or None, default=None
        Seeds the data.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Cluster of each sample.
    informative : ndarray of shape (n_informative,)
        Sorted column indices of the planted features.

    See Also
    --------
    make_planted_clusters : the small version, for tests and examples.

    Examples
    --------
    >>> from ufsel.datasets import make_planted
    >>> X, y, informative = make_planted(1000, 20, 4, random_state=0)
    >>> X.shape, X.dtype, informative.shape
    ((1000, 20), dtype('float32'), (4,))
    """
    if not (isinstance(n_samples, Integral) and n_samples >= 1):
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}.")
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}.")
    layout = planted_layout(n_features, n_informative, n_clusters, separation=separation,
                            random_state=random_state)
    X, y = planted_rows(layout, 0, int(n_samples), n_features, dtype=dtype)
    return X, y, layout["informative"]
