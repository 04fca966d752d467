"""The memory a fit will need, estimated before the work, and the one check against it.

Each selector names its own costs in ``_memory_terms(shape)``: a dict from a phrase
that says what is allocated ("a 50000 x 50000 Gram") to its bytes, built from the
blocks below (:func:`gram_term`, ...) and those of graphs in
:mod:`ufsel.graph._memory` (:func:`~ufsel.graph._memory.knn_terms`, ...). :func:`estimate_fit_memory`
adds them up; :func:`check_fit_memory`, called once by every ``fit`` after the data
are validated and before any work, refuses a fit whose estimate exceeds
``max_fit_bytes`` (:func:`ufsel.set_config`) with a one-line
:class:`~ufsel.exceptions.MemoryLimitError`.

The estimate is of the peak of the memory the fit allocates beyond the data it is
given (X itself is not counted, a copy that validation makes is); it models each
method's largest allocations, not every small temporary.
``benchmarks/tools/memory_estimate.py`` compares it with measured peaks.

On a dask array two memories are counted apart: what the client (the process that
calls ``fit``) holds, and what one worker holds while it computes one chunk of rows
(:class:`WorkerCost` terms, from :func:`rows_term`). The client's total is checked
against ``max_fit_bytes``; a worker's against the memory limit of the workers of the
current ``distributed`` client, or, with dask's local schedulers (whose tasks run in
the client's process), added to the client's total once per thread.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import sparse

from ..exceptions import MemoryLimitError
from ._config import get_config
from ._optional import is_dask_array

__all__ = [
    "DataShape",
    "base_terms",
    "embedding_term",
    "local_terms",
    "ridge_term",
    "FitMemoryEstimate",
    "ClusterCost",
    "WorkerCost",
    "check_fit_memory",
    "dask_worker_memory",
    "default_chunk_rows",
    "rows_term",
    "dense_copy_term",
    "densified",
    "estimate_fit_memory",
    "gram_term",
    "square_term",
]

_GiB = 1024**3
_F8 = 8  # bytes of a float64 or an int64


@dataclass(frozen=True)
class DataShape:
    """What the estimate knows of X: its shape, storage and entry size.

    Parameters
    ----------
    n, d : int
        Samples and features.
    nnz : int or None, default=None
        Stored entries of a sparse X; None for dense data.
    itemsize : int, default=8
        Bytes per entry of the validated data (4 for float32 kept as float32).
    kind : {"dense", "sparse", "dask"}, default="dense"
        How X is held.
    copied : bool, default=True
        Whether validation copies X (dense input not Fortran-ordered, or of another
        dtype; sparse input of another format or dtype).
    chunk_rows : int or None, default=None
        Rows of the largest chunk of a dask array; None: dask's default chunking
        (:func:`default_chunk_rows`).
    overlap : float or None, default=None
        Sparse X: the expected number of features two random rows share,
        ``sum_j p_j^2`` with ``p_j`` the share of rows where feature j is stored.
        None: ``(nnz / n)^2 / d``, the value when the stored entries are spread
        evenly over the features (the fewest shared features for that density).
    """

    n: int
    d: int
    nnz: int | None = None
    itemsize: int = 8
    kind: str = "dense"
    copied: bool = True
    chunk_rows: int | None = None
    overlap: float | None = None

    @property
    def sparse(self):
        """Whether X is a sparse matrix."""
        return self.kind == "sparse"

    @property
    def dask(self):
        """Whether X is a dask array."""
        return self.kind == "dask"

    @property
    def chunk(self):
        """Rows a worker holds at once: the largest chunk of a dask array, all n otherwise."""
        if not self.dask:
            return self.n
        return min(self.n, self.chunk_rows or default_chunk_rows(self.d, self.itemsize))

    @property
    def shared_features(self):
        """The expected number of features two random rows share (sparse X; see
        ``overlap``); None for dense data."""
        if not self.sparse:
            return None
        if self.overlap is not None:
            return self.overlap
        per_row = (self.nnz or 0) / max(self.n, 1)
        return per_row * per_row / max(self.d, 1)

    def __str__(self):
        extra = f", {self.nnz:,} non-zeros" if self.sparse else ""
        if self.dask:
            extra = f", chunks of {self.chunk} rows"
        return f"{self.kind} {self.n} x {self.d}{extra}"


class WorkerCost(str):
    """The name of a cost a dask worker holds for one chunk of rows (not the client).

    A ``str`` (so that terms stay a plain dict of names to bytes); the estimate sums
    these apart from the client's terms (:attr:`FitMemoryEstimate.worker_terms`).
    """

    __slots__ = ()


class ClusterCost(WorkerCost):
    """The name of a cost held across a dask cluster, each worker its share (the
    persisted chunks of an array); in memory, the whole of it in the client."""

    __slots__ = ()


def default_chunk_rows(d, itemsize=8):
    """Rows per chunk dask chooses for an n x d array by default (its
    ``array.chunk-size`` setting, 128 MiB, over the row's bytes).

    Parameters
    ----------
    d : int
        Features (the columns are one chunk).
    itemsize : int, default=8
        Bytes per entry.
    """
    limit = 128 * 2**20
    try:
        import dask
        from dask.utils import parse_bytes

        limit = parse_bytes(dask.config.get("array.chunk-size", "128MiB"))
    except ImportError:  # pragma: no cover - dask is an optional dependency
        pass
    return max(1, int(limit // max(d * itemsize, 1)))


@dataclass
class FitMemoryEstimate:
    """The estimated peak memory of one fit, by named cost term.

    Parameters
    ----------
    owner : str
        The selector's class name.
    shape : DataShape
        The data the estimate is for.
    terms : dict of str -> int
        What is allocated -> bytes, the largest first: the process that calls
        ``fit`` (the client, for dask input).
    worker_terms : dict of str -> int
        For dask input, what one worker allocates to compute one chunk -> bytes;
        empty for data in memory.
    """

    owner: str
    shape: DataShape
    terms: dict = field(default_factory=dict)
    worker_terms: dict = field(default_factory=dict)

    @property
    def total(self):
        """The estimated peak of the client (the process that calls ``fit``), in bytes:
        the sum of the terms."""
        return int(sum(self.terms.values()))

    @property
    def worker_total(self):
        """The estimated peak of one dask worker computing one chunk, in bytes (0 for
        data in memory): the chunk's terms, without the cluster's."""
        return int(sum(v for k, v in self.worker_terms.items()
                       if not isinstance(k, ClusterCost)))

    @property
    def cluster_total(self):
        """What the dask cluster holds in all (persisted chunks), in bytes."""
        return int(sum(v for k, v in self.worker_terms.items() if isinstance(k, ClusterCost)))

    @property
    def dominant(self):
        """``(name, bytes)`` of the largest term."""
        return max(self.terms.items(), key=lambda kv: kv[1]) if self.terms else ("nothing", 0)

    def __str__(self):
        lines = [f"{self.owner} on {self.shape}: {self.total / _GiB:.2f} GiB"]
        lines += [f"  {b / _GiB:9.3f} GiB  {name}" for name, b in self.terms.items()]
        if self.worker_terms:
            lines.append(f"  and on the workers: {self.worker_total / _GiB:.2f} GiB per chunk, "
                         f"{self.cluster_total / _GiB:.2f} GiB across the cluster")
            lines += [f"  {b / _GiB:9.3f} GiB  {name}" for name, b in self.worker_terms.items()]
        return "\n".join(lines)


def _shape_of(X, nnz=None, dtype=None):
    """The :class:`DataShape` of X (array, sparse matrix, dask array, or a shape)."""
    if isinstance(X, DataShape):
        return X
    if isinstance(X, tuple):
        n, d = (int(v) for v in X)
        itemsize = np.dtype(dtype or np.float64).itemsize
        kind = "dense" if nnz is None else "sparse"
        return DataShape(n, d, None if nnz is None else int(nnz), itemsize, kind, True)
    n, d = (int(v) for v in X.shape)
    itemsize = 4 if X.dtype == np.float32 else 8
    if is_dask_array(X):
        chunk = max(X.chunks[0]) if X.chunks and X.chunks[0] else None
        return DataShape(n, d, None, itemsize, "dask", False,
                         chunk_rows=None if chunk is None or np.isnan(chunk) else int(chunk))
    if sparse.issparse(X):
        copied = X.format not in ("csr", "csc") or X.dtype not in (np.float64, np.float32)
        return DataShape(n, d, int(X.nnz), itemsize, "sparse", copied,
                         overlap=_shared_features(X))
    copied = not (isinstance(X, np.ndarray) and X.flags.f_contiguous
                  and X.dtype in (np.float64, np.float32))
    return DataShape(n, d, None, itemsize, "dense", copied)


def _shared_features(X):
    """``sum_j p_j^2``: the expected number of features two random rows of the sparse X
    share (``p_j`` the share of rows that store feature j), from the column counts."""
    n = X.shape[0]
    if n == 0 or X.nnz == 0:
        return 0.0
    if X.format == "csr":
        counts = np.bincount(X.indices, minlength=X.shape[1])
    elif X.format == "csc":
        counts = np.diff(X.indptr)
    else:
        counts = np.bincount(sparse.coo_matrix(X).col, minlength=X.shape[1])
    p = counts / n
    return float(p @ p)


# ---------------------------------------------------------------- cost blocks
def rows_term(shape, what, bytes_per_row, *, persisted=False):
    """An n-row block (an embedding, a graph's rows): whole in memory; on a dask array,
    one chunk of rows on a worker, or spread over the workers when it is persisted.

    Parameters
    ----------
    shape : DataShape
        The data.
    what : str
        What is allocated, with ``{rows}`` where its row count goes ("the {rows} x 5
        embedding").
    bytes_per_row : int
        Bytes per row, all copies alive at once included.
    persisted : bool, default=False
        On dask: the block is persisted across the workers (a :class:`ClusterCost` of
        all n rows) rather than computed chunk by chunk (a :class:`WorkerCost`).

    Returns
    -------
    terms : dict of str -> int
        One term.
    """
    if shape.dask and persisted:
        return {ClusterCost(what.format(rows=shape.n) + ", persisted on the workers"):
                shape.n * bytes_per_row}
    if shape.dask:
        rows = shape.chunk
        return {WorkerCost(what.format(rows=rows) + " (one chunk)"): rows * bytes_per_row}
    return {what.format(rows=shape.n): shape.n * bytes_per_row}


def base_terms(shape):
    """The costs every fit has: validation's copy of X, per-feature vectors, and (sparse)
    the column-major copy the per-feature minimum and maximum read.

    Parameters
    ----------
    shape : DataShape
        The data.

    Returns
    -------
    terms : dict of str -> int
        What is allocated -> bytes.
    """
    n, d = shape.n, shape.d
    terms = {"per-feature statistics and scores": 16 * d * _F8}
    if shape.dask:  # a worker's chunk and its float64 copy
        return {**terms, **rows_term(shape, f"a {{rows}} x {d} chunk of X", 2 * d * _F8)}
    if shape.sparse:
        terms["a column-major copy of the sparse X"] = shape.nnz * 12 + (d + 1) * _F8
        if shape.copied:
            terms["validation's copy of X"] = shape.nnz * 12 + (n + 1) * _F8
    else:  # the per-feature variance (constant features) centres a copy of X
        terms[f"the centred {n} x {d} copy the variances read"] = n * d * _F8
        if shape.copied:
            terms["validation's copy of X"] = n * d * shape.itemsize
    return terms


def densified(shape):
    """The shape of the dense copy a method that needs dense data works on."""
    if not shape.sparse:
        return shape
    return DataShape(shape.n, shape.d, None, 8, "dense", False)


def dense_copy_term(shape, copies=1):
    """The dense n x d copy a method that needs dense data makes of sparse X."""
    if not shape.sparse:
        return {}
    return {f"a dense {shape.n} x {shape.d} copy of the sparse X":
            copies * shape.n * shape.d * _F8}


def gram_term(d, copies=2, what="Gram"):
    """A dense d x d matrix (``copies`` of them alive at once: a Gram and its update)."""
    return {f"a {d} x {d} {what}": copies * d * d * _F8}


def square_term(n, copies=1, what="dense affinity"):
    """A dense n x n matrix between samples (``copies`` alive at once)."""
    return {f"a {n} x {n} {what}": copies * n * n * _F8}




# ---------------------------------------------------------------- estimate, check
def estimate_fit_memory(estimator, X, *, nnz=None, dtype=None):
    """The estimated peak memory of ``estimator.fit(X)``, by cost term.

    Parameters
    ----------
    estimator : BaseSelector
        The selector, at the parameters it would be fitted with.
    X : {array-like, sparse matrix, dask array} or tuple of (n_samples, n_features)
        The data, or its shape (then ``nnz`` makes it sparse).
    nnz : int, optional
        With a shape: the number of stored entries of a sparse X.
    dtype : dtype, optional
        With a shape: the dtype of X (float64 by default).

    Returns
    -------
    estimate : FitMemoryEstimate
        The named cost terms (bytes) and their ``total``.

    Examples
    --------
    >>> from ufsel import PivotedQR
    >>> from ufsel.utils import estimate_fit_memory
    >>> est = estimate_fit_memory(PivotedQR(), (200_000, 50_000), nnz=5_000_000)
    >>> est.dominant[0]
    'the 50000 x 50000 R factor of the QR'
    """
    shape = _shape_of(X, nnz, dtype)
    terms, worker = {}, {}
    for name, size in estimator._memory_terms(shape).items():
        if size > 0:
            (worker if isinstance(name, WorkerCost) else terms)[name] = int(size)
    terms = dict(sorted(terms.items(), key=lambda kv: -kv[1]))
    worker = dict(sorted(worker.items(), key=lambda kv: -kv[1]))
    return FitMemoryEstimate(type(estimator).__name__, shape, terms, worker)


def format_bytes(size):
    """``size`` bytes in the largest binary unit that keeps a number of at least 1."""
    for unit, scale in (("GiB", _GiB), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{int(size)} B"


def _fewest_features_cut(estimator, shape, limit):
    """The largest feature count below d at which the estimate fits, or 0 when none does."""
    lo, hi = 0, shape.d - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        nnz = None if shape.nnz is None else max(1, shape.nnz * mid // shape.d)
        smaller = replace(shape, d=mid, nnz=nnz)
        if _fits(estimate_fit_memory(estimator, smaller), limit):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _alternatives(estimator, shape, limit):
    """What fits within ``limit`` instead: fewer features, the anchor graph, Dask, and
    the registered selectors (at their defaults) whose estimate is below it."""
    from sklearn.base import clone

    from .._registry import SELECTORS
    from ._tags import get_selector_tags

    name = type(estimator).__name__
    tips = []
    cut = _fewest_features_cut(estimator, shape, limit)
    if cut:
        tips.append(f"at most {cut} features (select them first, for example with MaxVariance)")
    params = estimator.get_params(deep=False)
    if "graph" in params and params["graph"] != "anchor" and "k-NN" in " ".join(
            estimate_fit_memory(estimator, shape).terms):
        anchored = estimate_fit_memory(clone(estimator).set_params(graph="anchor"), shape)
        if _fits(anchored, limit):
            tips.append(f'{name}(graph="anchor") ({format_bytes(anchored.total)})')
    fits = [cls.__name__ for _, cls in sorted(SELECTORS.items())
            if cls.__name__ != name and _fits(estimate_fit_memory(cls(), shape), limit)]
    if fits:
        tips.append(f"another method: {', '.join(fits)}")
    if get_selector_tags(estimator).supports_dask and not shape.dask:
        lazy = DataShape(shape.n, shape.d, None, shape.itemsize, "dask", False)
        if _fits(estimate_fit_memory(estimator, lazy), limit):
            tips.append("X as a dask array (read blockwise)")
    return tips


def dask_worker_memory():
    """The workers of the current ``distributed`` client, or None without one (dask's
    local schedulers run in the client's process).

    Returns
    -------
    workers : tuple of (int or None, int, int) or None
        The smallest worker's memory limit in bytes (None when unlimited), the most
        threads of a worker, and the number of workers.
    """
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        info = get_client().scheduler_info()
    except (ValueError, OSError):  # no client
        return None
    workers = list(info.get("workers", {}).values())
    if not workers:
        return None
    limits = [w.get("memory_limit") or None for w in workers]
    threads = max(int(w.get("nthreads") or 1) for w in workers)
    known = [v for v in limits if v]
    return (min(known) if len(known) == len(limits) else None), threads, len(workers)


def _local_threads():
    """Threads of dask's local scheduler: chunks computed at once in this process."""
    try:
        from dask.system import CPU_COUNT
    except ImportError:  # pragma: no cover - dask is an optional dependency
        return os.cpu_count() or 1
    return CPU_COUNT


def _workers_spill():
    """Whether ``distributed`` workers spill persisted data to disk (their default)."""
    try:
        import dask
    except ImportError:  # pragma: no cover - dask is an optional dependency
        return False
    return dask.config.get("distributed.worker.memory.spill", 0.7) not in (False, None)


#: The share of a worker's memory limit its chunks may take: ``distributed`` pauses a
#: worker at 80 % of its limit (``distributed.worker.memory.pause``).
WORKER_MEMORY_SHARE = 0.8


def _needed(estimate, limit):
    """``(client bytes, worker bytes or None, worker limit or None)`` the check compares:
    with a ``distributed`` client, the client's total and one worker's (a chunk per
    thread, and its share of the cluster's persisted chunks unless workers spill them
    to disk) against its limit; with a local scheduler, all of it in the client's
    process."""
    if not estimate.worker_terms:
        return estimate.total, None, None
    workers = dask_worker_memory()
    if workers is None:  # the chunks are computed in this process, one per thread
        return (estimate.total + estimate.worker_total * _local_threads()
                + estimate.cluster_total), None, None
    memory, threads, n_workers = workers
    # what a task holds cannot leave the worker; persisted chunks can spill to disk
    per_worker = estimate.worker_total * threads
    if not _workers_spill():
        per_worker += estimate.cluster_total // n_workers
    return (estimate.total, per_worker,
            None if memory is None else int(WORKER_MEMORY_SHARE * memory))


def _fits(estimate, limit):
    """Whether the client's and a worker's needs are both within their limits."""
    client, worker, worker_limit = _needed(estimate, limit)
    return client <= limit and (worker is None or worker_limit is None or worker <= worker_limit)


def check_fit_memory(estimator, X, *, limit=None):
    """Refuse a fit whose estimated peak memory exceeds the limit, before any work.

    On a dask array the client's memory and a worker's are checked apart (see the
    module's description): the client's total against ``limit``, a worker's chunks
    against the workers' memory limit.

    Parameters
    ----------
    estimator : BaseSelector
        The selector, at the parameters it would be fitted with.
    X : {array-like, sparse matrix, dask array} or tuple of (n_samples, n_features)
        The (validated) data, or its shape.
    limit : int, optional
        Bytes; by default the configuration's ``max_fit_bytes``
        (:func:`ufsel.set_config`). None in the configuration: no check.

    Returns
    -------
    estimate : FitMemoryEstimate
        The estimate the check was made with.

    Raises
    ------
    MemoryLimitError
        When the estimate exceeds the limit; one line naming the estimate, its largest
        term, the limit, the setting and what fits instead.
    """
    estimate = estimate_fit_memory(estimator, X)
    if limit is None:
        limit = get_config()["max_fit_bytes"]
    if limit is None:
        return estimate
    client, worker, worker_limit = _needed(estimate, limit)
    shape = estimate.shape
    if worker is not None and worker_limit is not None and worker > worker_limit:
        what, size = max(estimate.worker_terms.items(), key=lambda kv: kv[1])
        raise MemoryLimitError(
            f"{estimate.owner} would need about {format_bytes(worker)} on each dask worker "
            f"to fit X of shape ({shape.n}, {shape.d}), mostly {what} ({format_bytes(size)}), "
            f"over {format_bytes(worker_limit)}, {WORKER_MEMORY_SHARE:.0%} of a worker's "
            "memory limit. Rechunk X into fewer rows per chunk (X.rechunk), or give the "
            "workers more memory."
        )
    if client <= limit:
        return estimate
    what, size = estimate.dominant
    if client > estimate.total:  # a local scheduler: the chunks count in this process
        what, size = max({**estimate.terms, **estimate.worker_terms}.items(),
                         key=lambda kv: kv[1])
    tips = _alternatives(estimator, shape, limit)
    instead = f" What fits instead: {'; '.join(tips)}." if tips else ""
    raise MemoryLimitError(
        f"{estimate.owner} would need about {format_bytes(client)} to fit X of shape "
        f"({shape.n}, {shape.d}), mostly {what} ({format_bytes(size)}), over the limit of "
        f"{format_bytes(limit)} (ufsel.set_config(max_fit_bytes=...)).{instead}"
    )


def ridge_term(shape, copies=3):
    """The linear system of a ridge regression on X: the d x d Gram when d <= n (the
    primal form), the n x n kernel ``X X^T`` otherwise (push-through)."""
    n, d = shape.n, shape.d
    if d <= n:
        return gram_term(d, copies)
    return square_term(n, copies, "kernel X X^T")


def local_terms(shape, n_neighbors):
    """Per-sample neighbourhood blocks (local Gram or regression matrices, (k+1) x (k+1)
    each) and the sparse n x n matrix assembled from them."""
    k1 = n_neighbors + 1
    return {f"the {shape.n} local {k1} x {k1} blocks": shape.n * k1 * k1 * 6 * _F8}


def embedding_term(n, c, copies=6, what="embedding and cluster indicator"):
    """n x c dense matrices (an embedding, an indicator, their updates)."""
    return {f"the {n} x {c} {what}": copies * n * max(c, 1) * _F8}

