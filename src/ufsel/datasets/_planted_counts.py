"""Planted single-cell-like counts: cell types carried by marker genes, negative-binomial noise."""

from __future__ import annotations

import functools
from numbers import Real

import numpy as np
from scipy import sparse
from scipy.optimize import brentq
from scipy.special import ndtri
from sklearn.utils import check_random_state

from ..utils import import_optional
from ._planted import planted_layout, stream_blocks
from ._planted_dask import _check, _row_chunks

__all__ = ["make_planted_counts", "make_planted_counts_dask", "planted_counts_layout",
           "planted_counts_rows"]

#: Entries (rows x genes) per random stream of the counts: block b holds
#: ``max(1, COUNTS_BLOCK_ENTRIES // n_features)`` rows, drawn densely from
#: ``numpy.random.default_rng((seed, b))`` and kept as CSR, so generation holds the
#: output plus one block's float32 temporaries (16 MiB each).
COUNTS_BLOCK_ENTRIES = 2**22

#: Size factors are drawn at these quantiles of the log-normal when the gene
#: means are calibrated to the requested density.
_CALIBRATION_POINTS = 64


def _check_real(name, value, low, high=np.inf, *, closed=False):
    ok = isinstance(value, Real) and not isinstance(value, bool) and value < high and (
        value >= low if closed else value > low)
    if not ok:
        raise ValueError(f"{name} must be a number in {'[' if closed else '('}{low}, {high}), "
                         f"got {value!r}.")


def _nonzero_probability(mean, dispersion):
    """P(count > 0) of a negative binomial with this mean and size ``dispersion``."""
    return -np.expm1(-dispersion * np.log1p(mean / dispersion))


def planted_counts_layout(n_features=5_000, n_markers=200, n_clusters=10, *, density=0.03,
                          fold_change=4.0, marker_mean=5.0, dispersion=10.0, library_sd=0.5,
                          gene_sd=1.0, rare_fraction=None, random_state=None):
    """The fixed part of :func:`make_planted_counts`: seed, genes' means, markers.

    The seed, the column order and the marker columns are those of
    :func:`ufsel.datasets._planted.planted_layout` (the markers are its planted
    features); the genes' relative means then come from the same generator. The
    common scale of the means is solved (bisection) so that the expected fraction
    of non-zero counts is ``density``.

    Parameters
    ----------
    n_features, n_markers, n_clusters, density, fold_change, marker_mean, dispersion, \
library_sd, gene_sd, rare_fraction, random_state
        As in :func:`make_planted_counts`.

    Returns
    -------
    layout : dict
        ``seed``, ``columns``, ``informative`` (as ``planted_layout``), ``means``
        (n_clusters x n_features float64: each type's mean count per gene at size
        factor 1, in output column order), ``dispersion``, ``library_sd``,
        ``block_rows`` (rows per random stream), ``marker_type`` (the type each
        column of ``informative`` is up-regulated in) and ``type_weights`` (each
        type's share of the cells; None when they are equal).
    """
    _check_real("density", density, 0.0, 1.0)
    _check_real("fold_change", fold_change, 1.0)
    _check_real("marker_mean", marker_mean, 0.0)
    _check_real("dispersion", dispersion, 0.0)
    _check_real("library_sd", library_sd, 0.0, closed=True)
    _check_real("gene_sd", gene_sd, 0.0, closed=True)
    if rare_fraction is not None:
        _check_real("rare_fraction", rare_fraction, 0.0, 1.0 / n_clusters)
    rng = check_random_state(random_state)
    layout = planted_layout(n_features, n_markers, n_clusters, random_state=rng)
    del layout["centres"]
    perm = layout["columns"]  # generated gene j goes to column perm[j]; markers first
    relative = np.exp(gene_sd * rng.standard_normal(n_features))
    relative[:n_markers] *= marker_mean
    fold = np.ones((n_clusters, n_features))
    fold[np.arange(n_markers) % n_clusters, np.arange(n_markers)] = fold_change
    means = np.empty_like(fold)
    means[:, perm] = relative * fold
    # size factors at evenly spaced quantiles of their log-normal distribution
    q = (np.arange(_CALIBRATION_POINTS) + 0.5) / _CALIBRATION_POINTS
    size = np.exp(library_sd * ndtri(q))

    # a non-marker gene has one mean; a marker gene one per type (type k: share w_k)
    weights = np.full(n_clusters, 1.0 / n_clusters)
    if rare_fraction is not None:  # the last type is rare, the others share the rest
        weights[:] = (1.0 - rare_fraction) / (n_clusters - 1)
        weights[-1] = rare_fraction
    markers = layout["informative"]
    plain = np.delete(means[0], markers)
    own = means[:, markers].ravel()
    own_weight = np.repeat(weights, len(markers))

    def excess_density(log_scale):
        def nonzero(m, weight):
            return (weight * _nonzero_probability(np.exp(log_scale) * np.outer(m, size),
                                                  dispersion).mean(axis=1)).sum()

        return (nonzero(plain, 1.0) + nonzero(own, own_weight)) / n_features - density

    if not excess_density(-60.0) < 0 < excess_density(60.0):
        raise ValueError(f"density={density} cannot be reached with these gene means.")
    log_scale = brentq(excess_density, -60.0, 60.0, xtol=1e-12)
    layout.update(means=np.exp(log_scale) * means, dispersion=float(dispersion),
                  library_sd=float(library_sd),
                  block_rows=max(1, COUNTS_BLOCK_ENTRIES // n_features),
                  marker_type=(np.arange(n_markers) % n_clusters)[
                      np.argsort(perm[:n_markers])],
                  type_weights=None if rare_fraction is None else weights)
    return layout


def counts_stream(layout, b, *, labels_only=False, dtype=np.float32):
    """Block ``b`` of the planted counts, drawn from ``default_rng((seed, b))``.

    Draws, in this order, each row's cell type (uniform), its size factor
    (log-normal, ``library_sd``) and one exponential variate per entry; an entry is
    zero when its variate exceeds ``-log P(0)`` and otherwise the negative-binomial
    quantile of ``exp(-variate)`` (inverse-CDF sampling, exact, with work
    proportional to the non-zero entries).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (block_rows, n_features)
        Not returned with ``labels_only``.
    y : ndarray of shape (block_rows,)
        The cell types.
    """
    means, r = layout["means"], layout["dispersion"]
    rng = np.random.default_rng((layout["seed"], b))
    n_rows = layout["block_rows"]
    weights = layout.get("type_weights")
    y = (rng.integers(means.shape[0], size=n_rows) if weights is None
         else rng.choice(means.shape[0], size=n_rows, p=weights))
    if labels_only:
        return y
    size = np.exp(layout["library_sd"] * rng.standard_normal(n_rows))
    E = rng.standard_exponential((n_rows, means.shape[1]), dtype=np.float32)
    means32, size32 = means.astype(np.float32), size.astype(np.float32)
    # zero iff E >= -log P(0) = r log1p(mean / r), computed in place
    threshold = means32[y]
    threshold *= size32[:, None] / np.float32(r)
    np.log1p(threshold, out=threshold)
    threshold *= np.float32(r)
    rows, cols = np.nonzero(E < threshold)
    del threshold
    mean = means32[y[rows], cols].astype(np.float64) * size32[rows]
    values = _nb_quantile(np.exp(-E[rows, cols].astype(np.float64)), mean, r)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n_rows))])
    X = sparse.csr_matrix((values.astype(dtype), cols.astype(np.int32), indptr),
                          shape=(n_rows, means.shape[1]))
    return X, y


def _nb_quantile(u, mean, r, max_count=1_000_000):
    """Smallest k >= 1 with CDF(k) >= u for negative binomials (mean, size r), u > P(0)."""
    p = r / (r + mean)
    pmf = np.exp(r * np.log(p))
    cdf = pmf.copy()
    k = np.zeros(u.shape, dtype=np.int64)
    active = np.arange(u.size)
    for step in range(1, max_count + 1):
        # pmf(k) = pmf(k - 1) (k - 1 + r) / k (1 - p)
        pmf[active] *= (step - 1 + r) / step * (1.0 - p[active])
        cdf[active] += pmf[active]
        k[active] = step
        active = active[(cdf[active] < u[active]) & (pmf[active] > 0)]
        if active.size == 0:
            break
    return k


def planted_counts_rows(layout, start, stop, *, labels_only=False, dtype=np.float32):
    """Rows ``start:stop`` of the planted counts of ``layout`` (CSR) and their cell types.

    Any row range gives the rows the whole matrix would have (see
    :func:`ufsel.datasets._planted.stream_blocks`). With ``labels_only``, only the
    cell types are drawn and returned.
    """
    parts, labels = [], []
    for b, lo, hi in stream_blocks(start, stop, layout["block_rows"]):
        if labels_only:
            labels.append(counts_stream(layout, b, labels_only=True)[lo:hi])
            continue
        X, y = counts_stream(layout, b, dtype=dtype)
        parts.append(X[lo:hi])
        labels.append(y[lo:hi])
    if labels_only:
        return np.concatenate(labels) if labels else np.zeros(0, dtype=np.int64)
    d = layout["means"].shape[1]
    if not parts:
        return sparse.csr_matrix((0, d), dtype=dtype), np.zeros(0, dtype=np.int64)
    return sparse.vstack(parts, format="csr", dtype=dtype), np.concatenate(labels)


def _counts_layout(n_samples, n_features, n_markers, n_clusters, dtype, **params):
    _check("n_samples", n_samples, 1)
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype!r}.")
    return planted_counts_layout(n_features, n_markers, n_clusters, **params)


def make_planted_counts(n_samples=20_000, n_features=5_000, n_markers=200, *, n_clusters=10,
                        density=0.03, fold_change=4.0, marker_mean=5.0, dispersion=10.0,
                        library_sd=0.5, gene_sd=1.0, rare_fraction=None, dtype=np.float32,
                        random_state=None):
    """Single-cell-like counts: cell types carried by marker genes, negative-binomial noise.

    Each cell (row) has a type, drawn among ``n_clusters`` (uniformly, or with the
    last type rare: ``rare_fraction``), and a size
    factor ``s`` (library size, log-normal with log-scale ``library_sd``). Gene g's
    count in a cell of type k is negative binomial with mean ``s * mu[k, g]`` and
    size ``dispersion`` (variance ``mean + mean^2 / dispersion``). The genes'
    relative means are log-normal (log-scale ``gene_sd``); ``n_markers`` marker
    genes are assigned to the types in turn (``n_markers / n_clusters`` each) and
    their mean is ``fold_change`` times higher in their type; their mean elsewhere is
    ``marker_mean`` times a typical gene's (markers of real data are usually well
    expressed, and a marker too rare to be seen carries no type). The means share one
    scale, solved so that the expected fraction of non-zero counts is ``density``.

    The rows are generated in blocks, each from its own random stream
    (``numpy.random.default_rng((seed, b))``), and kept sparse as they are drawn:
    memory is the output (twice, while the blocks are stacked) plus one block's
    temporaries, and :func:`make_planted_counts_dask` gives the same rows chunk by
    chunk.

    Parameters
    ----------
    n_samples : int, default=20_000
        Number of cells.
    n_features : int, default=5_000
        Number of genes.
    n_markers : int, default=200
        Number of marker genes.
    n_clusters : int, default=10
        Number of cell types (at least 2).
    density : float, default=0.03
        Expected fraction of non-zero counts, in (0, 1).
    fold_change : float, default=4.0
        How much higher a marker's mean is in its own type (> 1).
    marker_mean : float, default=5.0
        How much higher the markers' means are than the other genes' (before
        ``fold_change``), on average.
    dispersion : float, default=10.0
        Size of the negative binomial (smaller: more over-dispersed; Poisson in the
        limit).
    library_sd : float, default=0.5
        Log-scale spread of the size factors (0: equal library sizes on average).
    gene_sd : float, default=1.0
        Log-scale spread of the genes' means.
    rare_fraction : float or None, default=None
        The last type's expected share of the cells (below ``1 / n_clusters``; the
        other types share the rest equally); its markers are
        ``markers[marker_type == n_clusters - 1]`` of :func:`planted_counts_layout`.
        None: every type has the same share.
    dtype : {numpy.float32, numpy.float64}, default=numpy.float32
        Data type of the counts.
    random_state : int, RandomState or None, default=None
        Seeds the layout (genes' means, marker columns) and the row blocks.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The counts (integer values).
    y : ndarray of shape (n_samples,)
        Cell type of each row.
    markers : ndarray of shape (n_markers,)
        Sorted column indices of the marker genes.

    See Also
    --------
    make_planted : the dense Gaussian version.
    make_planted_counts_dask : the same rows as a lazy dask array.

    Examples
    --------
    >>> from ufsel.datasets import make_planted_counts
    >>> X, y, markers = make_planted_counts(1000, 500, 20, random_state=0)
    >>> X.shape, X.format, markers.shape
    ((1000, 500), 'csr', (20,))
    """
    layout = _counts_layout(n_samples, n_features, n_markers, n_clusters, dtype,
                            density=density, fold_change=fold_change,
                            marker_mean=marker_mean, dispersion=dispersion,
                            library_sd=library_sd, gene_sd=gene_sd,
                            rare_fraction=rare_fraction, random_state=random_state)
    X, y = planted_counts_rows(layout, 0, int(n_samples), dtype=np.dtype(dtype))
    return X, y, layout["informative"]


def _chunk(block_id=None, *, bounds, layout, dtype, labels, dense):
    """Chunk ``block_id``: rows ``bounds[b]:bounds[b + 1]`` of the planted counts."""
    b = block_id[0]
    if labels:
        return planted_counts_rows(layout, bounds[b], bounds[b + 1], labels_only=True)
    X, _ = planted_counts_rows(layout, bounds[b], bounds[b + 1], dtype=dtype)
    return X.toarray() if dense else X


def make_planted_counts_dask(n_samples=1_000_000, n_features=5_000, n_markers=200, *,
                             n_clusters=10, density=0.03, fold_change=4.0, marker_mean=5.0,
                             dispersion=10.0, library_sd=0.5, gene_sd=1.0,
                             rare_fraction=None, chunks=50_000, chunk_format="csr",
                             dtype=np.float32, random_state=None):
    """The planted counts of :func:`make_planted_counts` as a lazy dask array.

    Nothing is generated until a chunk is computed; each chunk draws the random
    streams of its rows (see :func:`make_planted_counts`), so the same parameters
    and ``random_state`` give the same rows as :func:`make_planted_counts`,
    whatever ``chunks`` and whichever worker computes a chunk. Needs dask
    (``pip install 'ufsel[dask]'``).

    Parameters
    ----------
    n_samples, n_features, n_markers, n_clusters, density, fold_change, marker_mean, \
dispersion, library_sd, gene_sd, rare_fraction, dtype, random_state
        As in :func:`make_planted_counts`.
    chunks : int, default=50_000
        Rows per chunk (the genes are one chunk).
    chunk_format : {"csr", "dense"}, default="csr"
        Each chunk a ``scipy.sparse.csr_matrix`` (memory of the non-zero counts
        only), or a dense ndarray (50,000 x 5,000 float32 is 1 GB). ufsel's
        selectors that take dask arrays need dense chunks: their validation and
        blockwise reductions use NumPy operations that scipy.sparse chunks lack.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features)
    y : dask.array.Array of shape (n_samples,)
        Cell type of each row, chunked like X's rows.
    markers : ndarray of shape (n_markers,)
        Sorted column indices of the marker genes.

    Examples
    --------
    >>> from ufsel.datasets import make_planted_counts_dask
    >>> X, y, markers = make_planted_counts_dask(1000, 300, 12, chunks=250, random_state=0)
    >>> X.shape, X.chunksize, len(markers)
    ((1000, 300), (250, 300), 12)
    """
    da = import_optional("dask.array", purpose="make_planted_counts_dask")
    dask_base = import_optional("dask", purpose="make_planted_counts_dask").base
    _check("chunks", chunks, 1)
    if chunk_format not in ("csr", "dense"):
        raise ValueError(f"chunk_format={chunk_format!r} not understood, valid options are "
                         "{'csr', 'dense'}.")
    params = dict(density=density, fold_change=fold_change, marker_mean=marker_mean,
                  dispersion=dispersion, library_sd=library_sd, gene_sd=gene_sd,
                  rare_fraction=rare_fraction)
    layout = _counts_layout(n_samples, n_features, n_markers, n_clusters, dtype,
                            random_state=random_state, **params)
    dtype = np.dtype(dtype)
    rows = _row_chunks(n_samples, chunks)
    bounds = np.concatenate([[0], np.cumsum(rows)]).tolist()
    chunk = functools.partial(_chunk, bounds=bounds, layout=layout, dtype=dtype,
                              dense=chunk_format == "dense")
    token = dask_base.tokenize(n_samples, n_features, n_markers, n_clusters, sorted(params.items()),
                               chunks, chunk_format, dtype.str, layout["seed"])
    meta = (np.empty((0, 0), dtype=dtype) if chunk_format == "dense"
            else sparse.csr_matrix((0, 0), dtype=dtype))
    X = da.map_blocks(functools.partial(chunk, labels=False), chunks=(rows, (n_features,)),
                      dtype=dtype, meta=meta, name=f"make_planted_counts_dask-X-{token}")
    y = da.map_blocks(functools.partial(chunk, labels=True), chunks=(rows,), dtype=np.int64,
                      meta=np.empty((0,), dtype=np.int64),
                      name=f"make_planted_counts_dask-y-{token}")
    return X, y, layout["informative"]
