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
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    "check_fit_memory",
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
    """

    n: int
    d: int
    nnz: int | None = None
    itemsize: int = 8
    kind: str = "dense"
    copied: bool = True

    @property
    def sparse(self):
        """Whether X is a sparse matrix."""
        return self.kind == "sparse"

    @property
    def dask(self):
        """Whether X is a dask array."""
        return self.kind == "dask"

    def __str__(self):
        extra = f", {self.nnz:,} non-zeros" if self.sparse else ""
        return f"{self.kind} {self.n} x {self.d}{extra}"


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
        What is allocated -> bytes, the largest first.
    """

    owner: str
    shape: DataShape
    terms: dict = field(default_factory=dict)

    @property
    def total(self):
        """The estimated peak, in bytes: the sum of the terms."""
        return int(sum(self.terms.values()))

    @property
    def dominant(self):
        """``(name, bytes)`` of the largest term."""
        return max(self.terms.items(), key=lambda kv: kv[1]) if self.terms else ("nothing", 0)

    def __str__(self):
        lines = [f"{self.owner} on {self.shape}: {self.total / _GiB:.2f} GiB"]
        lines += [f"  {b / _GiB:9.3f} GiB  {name}" for name, b in self.terms.items()]
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
        return DataShape(n, d, None, itemsize, "dask", False)
    if sparse.issparse(X):
        copied = X.format not in ("csr", "csc") or X.dtype not in (np.float64, np.float32)
        return DataShape(n, d, int(X.nnz), itemsize, "sparse", copied)
    copied = not (isinstance(X, np.ndarray) and X.flags.f_contiguous
                  and X.dtype in (np.float64, np.float32))
    return DataShape(n, d, None, itemsize, "dense", copied)


# ---------------------------------------------------------------- cost blocks
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
    if shape.dask:
        return terms
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
    >>> from ufsel import UFSA
    >>> from ufsel.utils import estimate_fit_memory
    >>> est = estimate_fit_memory(UFSA(), (200_000, 50_000), nnz=5_000_000)
    >>> est.dominant[0]
    'a 50000 x 50000 Gram'
    """
    shape = _shape_of(X, nnz, dtype)
    terms = {}
    for name, size in estimator._memory_terms(shape).items():
        if size > 0:
            terms[name] = int(size)
    terms = dict(sorted(terms.items(), key=lambda kv: -kv[1]))
    return FitMemoryEstimate(type(estimator).__name__, shape, terms)


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
        smaller = DataShape(shape.n, mid, nnz, shape.itemsize, shape.kind, shape.copied)
        if estimate_fit_memory(estimator, smaller).total <= limit:
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
        if anchored.total <= limit:
            tips.append(f'{name}(graph="anchor") ({format_bytes(anchored.total)})')
    fits = [cls.__name__ for _, cls in sorted(SELECTORS.items())
            if cls.__name__ != name and estimate_fit_memory(cls(), shape).total <= limit]
    if fits:
        tips.append(f"another method: {', '.join(fits)}")
    if get_selector_tags(estimator).supports_dask and not shape.dask:
        lazy = DataShape(shape.n, shape.d, None, shape.itemsize, "dask", False)
        if estimate_fit_memory(estimator, lazy).total <= limit:
            tips.append("X as a dask array (read blockwise)")
    return tips


def check_fit_memory(estimator, X, *, limit=None):
    """Refuse a fit whose estimated peak memory exceeds the limit, before any work.

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
    if limit is None or estimate.total <= limit:
        return estimate
    what, size = estimate.dominant
    shape = estimate.shape
    tips = _alternatives(estimator, shape, limit)
    instead = f" What fits instead: {'; '.join(tips)}." if tips else ""
    raise MemoryLimitError(
        f"{estimate.owner} would need about {format_bytes(estimate.total)} to fit X of shape "
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

