"""The planted benchmark as a lazily generated dask array, for data beyond one machine."""

from __future__ import annotations

import functools
from numbers import Integral

import numpy as np

from ..utils import import_optional
from ._planted import planted_layout, planted_stream

__all__ = ["make_planted_dask"]


def _check(name, value, low):
    if not (isinstance(value, Integral) and not isinstance(value, bool) and value >= low):
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")


def _row_chunks(n_samples, chunks):
    """Rows per chunk: ``chunks`` each, the remainder last."""
    return (chunks,) * (n_samples // chunks) + ((n_samples % chunks,) if n_samples % chunks else ())


def _chunk(block_id=None, *, rows, layout, n_features, dtype, labels):
    """Chunk ``block_id``'s rows: drawn from its own stream ``default_rng((seed, b))``."""
    b = block_id[0]
    if labels:
        return planted_stream(layout, b, rows[b], n_features, labels_only=True)
    X, _ = planted_stream(layout, b, rows[b], n_features)
    return X.astype(dtype, copy=False)


def make_planted_dask(n_samples=10_000_000, n_features=100, n_informative=10, *, n_clusters=10,
                      separation=4.0, chunks=100_000, dtype=np.float32, random_state=None):
    """A lazily generated dask array whose clusters are carried by a few planted features.

    ``n_informative`` features hold ``n_clusters`` Gaussian clusters (centres drawn
    with spread ``separation``, unit within-cluster noise); the other features are
    independent standard Gaussian noise; each sample's cluster is uniform. Nothing is
    generated until a chunk is computed: chunk b is drawn from its own random stream
    (``numpy.random.default_rng((seed, b))``), so a chunk's values depend only on
    ``random_state``, ``chunks`` and b, whichever worker computes it and in whatever
    order. Needs dask (``pip install 'ufsel[dask]'``).

    Parameters
    ----------
    n_samples : int, default=10_000_000
        Number of samples.
    n_features : int, default=100
        Number of features.
    n_informative : int, default=10
        Number of planted features carrying the clusters.
    n_clusters : int, default=10
        Number of clusters.
    separation : float, default=4.0
        Spread of the cluster centres in the planted features.
    chunks : int, default=100_000
        Rows per chunk (the columns are one chunk). 100,000 x 100 float32 is 40 MB.
    dtype : {numpy.float32, numpy.float64}, default=numpy.float32
        Data type of X.
    random_state : int, RandomState or None, default=None
        Seeds the layout (centres, column order) and the chunks' streams.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features)
    y : dask.array.Array of shape (n_samples,)
        Cluster of each sample, chunked like X's rows.
    informative : ndarray of shape (n_informative,)
        Sorted column indices of the planted features.

    Examples
    --------
    >>> from ufsel.datasets import make_planted_dask
    >>> X, y, informative = make_planted_dask(1000, 20, 3, chunks=250, random_state=0)
    >>> X.shape, X.chunksize, len(informative)
    ((1000, 20), (250, 20), 3)
    """
    da = import_optional("dask.array", purpose="make_planted_dask")
    dask_base = import_optional("dask", purpose="make_planted_dask").base
    _check("n_samples", n_samples, 1)
    _check("n_features", n_features, 1)
    _check("chunks", chunks, 1)
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype!r}.")
    # validates n_informative and n_clusters; draws seed, centres and column order
    layout = planted_layout(n_features, n_informative, n_clusters, separation=separation,
                            random_state=random_state)
    rows = _row_chunks(n_samples, chunks)
    chunk = functools.partial(_chunk, rows=rows, layout=layout, n_features=n_features,
                              dtype=np.dtype(dtype))
    token = dask_base.tokenize(n_samples, n_features, n_informative, n_clusters, separation,
                               chunks, np.dtype(dtype).str, layout["seed"])
    X = da.map_blocks(functools.partial(chunk, labels=False),
                      chunks=(rows, (n_features,)), dtype=np.dtype(dtype),
                      meta=np.empty((0, 0), dtype=dtype), name=f"make_planted_dask-X-{token}")
    y = da.map_blocks(functools.partial(chunk, labels=True),
                      chunks=(rows,), dtype=np.int64, meta=np.empty((0,), dtype=np.int64),
                      name=f"make_planted_dask-y-{token}")
    return X, y, layout["informative"]
