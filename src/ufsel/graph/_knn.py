"""Neighbour searches: the plan of a search, the exact search, and the search cache.

:func:`plan_search` decides, from the data's shape and storage alone, how a k-NN
search runs: exact (scikit-learn's k-d tree or blocks of brute-force distances) or
approximate (faiss's HNSW index or pynndescent, :mod:`ufsel.graph._approximate`),
and how much memory it holds at its peak. :func:`knn_graph` runs the plan; the
memory estimate (:mod:`ufsel.graph._memory`) reads the same plan, so the two cannot
disagree. Ties at the k-th neighbour go to the smaller index on every exact path
(MATLAB's stable ``sort`` in Deng Cai's ``constructW.m``).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn import config_context
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import BallTree, KDTree, NearestNeighbors

from ..utils import is_dask_array
from ._approximate import ANN_BACKENDS, approximate_knn, installed_backend, search_backend

__all__ = [
    "APPROX_NEIGHBORS_MIN_FEATURES",
    "APPROX_NEIGHBORS_MIN_SAMPLES",
    "KD_TREE_MAX_FEATURES",
    "KNN_WORKING_MEMORY_MIB",
    "NEIGHBORS_ALGORITHMS",
    "SearchPlan",
    "knn_from_distances",
    "knn_graph",
    "plan_search",
    "resolve_neighbors_algorithm",
    "reuse_neighbor_searches",
]

NEIGHBORS_ALGORITHMS = ("auto", "exact", "approximate", "hnsw", "nndescent", "brute", "kd_tree",
                        "ball_tree")

#: ``algorithm="auto"`` switches to the approximate search (when an
#: approximate backend is installed) from this many samples; below it the
#: exact search is fast enough (about a minute for 50,000 x 784 on two cores).
APPROX_NEIGHBORS_MIN_SAMPLES = 50_000
#: ... and only for more than this many features (k-d trees are fast below).
APPROX_NEIGHBORS_MIN_FEATURES = 20
#: Memory (MiB) of the exact search's blocks of distances (scikit-learn's
#: ``working_memory``, 1024 by default).
KNN_WORKING_MEMORY_MIB = 64
#: scikit-learn's ``algorithm="auto"`` searches a k-d tree for dense data in at most
#: this many dimensions (Euclidean distance, fewer neighbours than half the samples),
#: brute force above.
KD_TREE_MAX_FEATURES = 15

#: pynndescent on sparse rows: bytes per pair of rows at its peak when rows share no
#: feature, and the shared features over which that falls by e (Notes of
#: :func:`plan_search`; fitted to measured peaks).
NNDESCENT_PAIR_BYTES, NNDESCENT_OVERLAP_SCALE = 320.0, 0.025

_F8 = 8


@dataclass(frozen=True)
class SearchPlan:
    """How a k-NN search of data of a given shape runs, and its peak memory.

    Parameters
    ----------
    how : {"exact", "approximate"}
        scikit-learn's exact search or an approximate index.
    backend : {"kd_tree", "ball_tree", "brute", "hnsw", "nndescent"}
        The search structure.
    block_rows : int
        Rows of a block of brute-force distances (all n for the other backends).
    peak_bytes : int
        Memory the search holds at its peak beyond X: the index or tree, the blocks
        of distances and the products behind them, the neighbour lists.
    what : str
        What dominates ``peak_bytes``, in words (for the memory estimate's terms).
    """

    how: str
    backend: str
    block_rows: int
    peak_bytes: int
    what: str


def plan_search(n, d, *, k=5, sparse=False, dask=False, nnz=None, shared_features=None,
                algorithm="auto", metric="euclidean"):
    """The plan of a search for each sample's ``k`` nearest neighbours, from the shape.

    ``"auto"`` picks the approximate search when there are at least
    :data:`APPROX_NEIGHBORS_MIN_SAMPLES` samples, more than
    :data:`APPROX_NEIGHBORS_MIN_FEATURES` features and an approximate backend is
    installed (in few dimensions scikit-learn's k-d tree is exact and fast), and
    the exact search otherwise; ``"hnsw"`` and ``"nndescent"`` are the approximate
    search with that backend; ``"brute"``, ``"kd_tree"`` and ``"ball_tree"`` are
    exact searches with that scikit-learn backend. The exact search of dense
    data in at most :data:`KD_TREE_MAX_FEATURES` dimensions is a k-d tree
    (scikit-learn's own ``"auto"`` rule, made explicit here: a ball tree for a
    metric the k-d tree lacks, brute force for k of half the samples or more);
    otherwise (sparse data,
    more dimensions, the cosine metric) it computes blocks of
    :data:`KNN_WORKING_MEMORY_MIB` MiB of brute-force distances at a time. A dask
    array is refused: an exact k-NN graph takes n^2 distances, and the selectors
    use the anchor graph (:func:`ufsel.graph.anchor_graph`) for it.

    Parameters
    ----------
    n, d : int
        Samples and features.
    k : int or None, default=5
        Neighbours per sample, the sample itself excluded. None: the plan without
        scikit-learn's rule that more than half the samples as neighbours are
        searched by brute force (for a decision made before k is known).
    sparse : bool, default=False
        Whether the data are a sparse matrix.
    dask : bool, default=False
        Whether the data are a dask array (refused).
    nnz : int, optional
        Stored entries of sparse data (for the peak of its blocks' products);
        ``n * d / 100`` when not given.
    shared_features : float, optional
        Sparse data: the expected number of features two random rows share
        (:attr:`ufsel.utils.DataShape.shared_features`); ``(nnz / n)^2 / d`` when
        not given. Few shared features make pairs of rows with a non-zero product
        rare (small sparse products), and NN-descent's random-projection trees
        degenerate (see Notes).
    algorithm : str, default="auto"
        One of :data:`NEIGHBORS_ALGORITHMS`.
    metric : str, default="euclidean"
        The distance (``"cosine"`` is never searched by a tree).

    Returns
    -------
    plan : SearchPlan

    Notes
    -----
    The peak of pynndescent on sparse rows grows with the square of n when rows
    share few features: a random-projection hyperplane (the difference of two rows)
    is orthogonal to every row that shares no feature with them, so the trees split
    off few rows per level and their leaves, whose pairs are all compared and
    queued, stay large. Fitted to peaks measured on random sparse matrices (the
    study note beside ``benchmarks/tools/memory_estimate.py``), the peak is about
    ``NNDESCENT_PAIR_BYTES * exp(-q / NNDESCENT_OVERLAP_SCALE) * n^2`` bytes with q
    the shared features.
    """
    if algorithm not in NEIGHBORS_ALGORITHMS:
        raise ValueError(
            f"algorithm={algorithm!r} not understood, valid options are "
            f"{set(NEIGHBORS_ALGORITHMS)}."
        )
    if dask:
        raise ValueError(
            "A k-NN graph of a dask array is not computed (n^2 distances); use the anchor "
            "graph (ufsel.graph.anchor_graph, the selectors' graph='anchor'), or X.compute()."
        )
    n, d = int(n), int(d)
    nnz = int(nnz) if nnz is not None else n * d // 100
    if shared_features is None:
        shared_features = (nnz / max(n, 1)) ** 2 / max(d, 1)
    lists = n * ((k or 5) + 1) * 2 * _F8 * 2  # neighbour distances and indices, two copies
    approximate = algorithm in ("approximate",) + ANN_BACKENDS or (
        algorithm == "auto" and n >= APPROX_NEIGHBORS_MIN_SAMPLES
        and d > APPROX_NEIGHBORS_MIN_FEATURES and installed_backend(sparse) is not None)
    if approximate:
        backend = search_backend(algorithm, sparse)
        if backend == "nndescent" and sparse:
            # its float32 CSR copy, and the pairs of the trees' leaves (Notes)
            index = 2 * nnz * 8 + int(NNDESCENT_PAIR_BYTES * n * n * math.exp(
                -shared_features / NNDESCENT_OVERLAP_SCALE))
        else:  # faiss's HNSW: a dense float64 and a float32 copy, and its links
            index = n * d * (_F8 + 4)
        index += n * 64 * _F8
        what = (f"NN-descent's pairs of {n} sparse rows that share few features"
                if backend == "nndescent" and sparse and index > 4 * nnz * 12
                else f"the approximate {n}-sample neighbour index")
        return SearchPlan("approximate", backend, n, index + lists, what)
    backend = algorithm if algorithm in ("brute", "kd_tree", "ball_tree") else None
    if sparse:  # scikit-learn searches sparse data by brute force only
        backend = "brute"
    elif backend is None:  # scikit-learn's "auto", made explicit
        backend = "brute"
        if d <= KD_TREE_MAX_FEATURES and (k is None or _with_tie_check(k, n) < n // 2):
            if metric in KDTree.valid_metrics:
                backend = "kd_tree"
            elif metric in BallTree.valid_metrics:
                backend = "ball_tree"
    if backend != "brute":
        # scikit-learn's C-ordered copy of X, the tree's index and node bounds
        tree_bytes = n * d * _F8 + n * _F8 + 2 * (n // 20 + 1) * d * _F8
        return SearchPlan("exact", backend, n, tree_bytes + lists, f"the {n}-sample k-d tree"
                          if backend == "kd_tree" else f"the {n}-sample ball tree")
    rows = max(1, min(n, int(KNN_WORKING_MEMORY_MIB * 2**20 // (n * _F8))))
    if sparse:
        # Per block of rows, scikit-learn's brute search forms the sparse product of the
        # block with X^T (an entry, 12 bytes, per pair of rows that share a feature), its
        # dense copy, and the neighbour selection's index array; X^T is copied to CSR for
        # each product.
        pairs = min(1.0, shared_features)
        block = int(rows * n * (12 * pairs + 2 * _F8)) + nnz * 12 + (d + 1) * _F8
    else:
        # scikit-learn's C-ordered copy of X; dense brute force runs on small tiles
        block = n * d * _F8 + 2 * min(n, 256) * min(n, 256) * _F8
    return SearchPlan("exact", "brute", rows, block + lists,
                      f"the {n} x {n} k-NN search blocks")


def _with_tie_check(k, n):
    """The neighbours the exact search asks scikit-learn for: one more than k, to see
    a tie at the boundary, unless k is every other point."""
    return k + 1 if k < n - 1 else k


def resolve_neighbors_algorithm(algorithm, X):
    """The neighbour search that ``algorithm`` selects for X.

    Returns ``"exact"`` (scikit-learn) or ``"approximate"`` (faiss HNSW
    or pynndescent, see :func:`approximate_backend`). A dask array is refused:
    an exact k-NN graph takes n^2 distances, and the selectors use the anchor
    graph (:func:`ufsel.graph.anchor_graph`) for it. ``"auto"`` picks the
    approximate search when X has at least
    :data:`APPROX_NEIGHBORS_MIN_SAMPLES` rows and more than
    :data:`APPROX_NEIGHBORS_MIN_FEATURES` columns and an approximate backend
    is installed (in few dimensions scikit-learn's k-d tree is exact and
    fast), and the exact search otherwise. ``"hnsw"`` and ``"nndescent"``
    are the approximate search with that backend. ``"brute"``,
    ``"kd_tree"`` and ``"ball_tree"`` are exact searches with that
    scikit-learn backend.

    Parameters
    ----------
    algorithm : str
        One of :data:`NEIGHBORS_ALGORITHMS`.
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data to be searched.
    """
    return plan_search(X.shape[0], X.shape[1], sparse=sparse.issparse(X),
                       dask=is_dask_array(X), algorithm=algorithm).how


def knn_graph(X, n_neighbors=5, *, metric="euclidean", algorithm="auto", n_jobs=None,
              random_state=None, init_indices=None):
    """Indices and distances of each sample's ``n_neighbors`` nearest neighbours.

    The sample itself is never among its neighbours, even when it has exact
    duplicates (scikit-learn's ``kneighbors()`` called without a query removes
    the query point by index, not by distance; the approximate searches
    do the same). On exactly tied distances the exact searches keep
    the points of smaller index (MATLAB's stable ``sort`` in Cai's
    ``constructW.m``), whatever the thread count; see
    :func:`knn_from_distances`.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    n_neighbors : int
    metric : str
        ``"euclidean"`` or ``"cosine"`` (any metric of
        :class:`sklearn.neighbors.NearestNeighbors` for the exact search).
    algorithm : {"auto", "exact", "approximate", "hnsw", "nndescent", "brute", \
"kd_tree", "ball_tree"}
        ``"exact"``: scikit-learn's NearestNeighbors (its own "auto" backend);
        ``"approximate"``: the backend of :func:`approximate_backend`:
        ``"hnsw"``, faiss's HNSW graph index (``pip install 'ufsel[ann]'``;
        compiled, no start-up cost; recall above 0.95 at
        :data:`HNSW_M` / :data:`HNSW_EF_SEARCH`), or ``"nndescent"``,
        NN-descent (pynndescent, ``pip install 'ufsel[nndescent]'``; about
        ``n log n`` distance evaluations, recall typically above 0.9, and a
        numba compilation of tens of seconds on its first fit in each process, announced
        by a one-line logging warning);
        ``"auto"``: see :func:`resolve_neighbors_algorithm` (approximate from
        :data:`APPROX_NEIGHBORS_MIN_SAMPLES` samples when a backend is
        installed). A dask array is refused (see
        :func:`resolve_neighbors_algorithm`). The approximate searches return float64
        distances recomputed exactly for the pairs found.
    n_jobs : int, optional
    random_state : int, RandomState or None
        Seeds NN-descent (the exact searches and HNSW are deterministic:
        the HNSW index is built on one thread, in row order). None seeds
        it with 0, so that callers that do not thread a random state through
        still get reproducible graphs.
    init_indices : ndarray of shape (n_samples, m), optional
        Candidate neighbours (for instance the neighbours of the previous
        iteration of an alternating method whose metric changes a little per
        iteration). In both approximate backends the result is never worse
        than the candidates: NN-descent starts from them (the search refines
        this graph instead of building one from random-projection trees and
        only replaces a neighbour by a nearer one); HNSW cannot start from a
        graph, so it searches afresh and each row keeps the nearest of the
        fresh neighbours and its candidates (exact distances to the
        candidates, :func:`knn_among_candidates`). Entries equal to the
        row's own index or negative are ignored. Used by the approximate
        search only; the exact searches ignore it.

    Returns
    -------
    distances, indices : ndarrays of shape (n_samples, n_neighbors)
        Sorted by increasing distance.
    """
    plan = plan_search(X.shape[0], X.shape[1], k=n_neighbors, sparse=sparse.issparse(X),
                       dask=is_dask_array(X), nnz=getattr(X, "nnz", None), algorithm=algorithm,
                       metric=metric)
    how = plan.how
    cache = _SEARCHES.get()
    key = None
    if cache is not None and init_indices is None:
        # only NN-descent depends on the seed: seeded by a generator, a search is not kept
        seeded = how == "approximate" and search_backend(algorithm, sparse.issparse(X)) == "nndescent"
        if not seeded or random_state is None or isinstance(random_state, (int, np.integer)):
            key = _search_key(X, n_neighbors, metric,
                              (algorithm, how, random_state if seeded else 0))
    if key is not None and key in cache:
        dist, ind = cache[key]
        return dist.copy(), ind.copy()
    if how == "approximate":
        dist, ind = approximate_knn(X, n_neighbors, metric, plan.backend, n_jobs=n_jobs,
                                    random_state=random_state, init_indices=init_indices)
    else:
        dist, ind = _exact_search(X, n_neighbors, metric, plan, n_jobs)
    if key is not None:
        cache[key] = (dist.copy(), ind.copy())
    return dist, ind


def _exact_search(X, n_neighbors, metric, plan, n_jobs):
    """:func:`knn_graph`'s exact search: scikit-learn's, with the plan's backend and block
    size, ties at the boundary resolved by index (:func:`_ties_to_smaller_index`)."""
    nn = NearestNeighbors(n_neighbors=_with_tie_check(n_neighbors, X.shape[0]), metric=metric,
                          algorithm=plan.backend, n_jobs=n_jobs).fit(X)
    with config_context(working_memory=KNN_WORKING_MEMORY_MIB):
        dist, ind = nn.kneighbors(return_distance=True)
    return _ties_to_smaller_index(X, dist, ind, n_neighbors, metric)


#: The searches of the current :func:`reuse_neighbor_searches` scope (None outside).
_SEARCHES = contextvars.ContextVar("ufsel_neighbor_searches", default=None)


def _search_key(X, n_neighbors, metric, backend):
    """What identifies a search: the data's content (a digest of its bytes, so that a
    temporary array at a reused address is never taken for another), its shape and
    dtype, k, the metric and the backend (with its seed). None for data that are not a
    dense array."""
    if not isinstance(X, np.ndarray):
        return None
    data = X if X.flags.c_contiguous else X.T if X.flags.f_contiguous else np.ascontiguousarray(X)
    digest = hashlib.blake2b(memoryview(data).cast("B"), digest_size=16).hexdigest()
    return digest, X.shape, X.dtype.str, X.flags.f_contiguous, n_neighbors, metric, backend


@contextlib.contextmanager
def reuse_neighbor_searches():
    """Within this scope, an exact k-NN search of data already searched is not repeated.

    The searches of :func:`knn_graph` (and so of every graph built from it) are kept for
    the scope, and a search for the same k neighbours of the same data (by content),
    metric and backend returns a copy of the kept result, identical to a new search (the
    approximate backends are deterministic for a given seed; NN-descent seeded by a
    generator, or started from candidate neighbours, searches anew). :class:`~ufsel.model_selection.AutoSelector` uses it, so that its
    graph-based candidates (Laplacian Score, SPEC, MCFS at each scale) search the data
    once.

    Yields
    ------
    None
    """
    token = _SEARCHES.set({})
    try:
        yield
    finally:
        _SEARCHES.reset(token)


#: Distances held at once when rows with a tied k-th neighbour are searched again.
_TIE_BLOCK_ELEMENTS = 1 << 24


def _ties_to_smaller_index(X, dist, ind, n_neighbors, metric):
    """scikit-learn's neighbours with exactly tied distances resolved by index.

    scikit-learn's searches state no rule for ties: which of several equally
    near points a row keeps follows the search's chunks, and with them the
    thread count (digits, integer pixels: 34 of 1797 rows have a tie at the
    5th neighbour). ``dist, ind`` hold ``n_neighbors + 1`` neighbours per row
    (or ``n_neighbors`` when that is every other point). A row whose
    ``n_neighbors``-th and next distances are equal has a tie at the boundary:
    its distances to every point are computed again (``pairwise_distances``,
    in blocks of rows) and the nearest taken with ties to the smaller index
    (:func:`knn_from_distances`, MATLAB's stable ``sort`` in Cai's
    ``constructW.m``, as on the shared-distance path). Every row is then
    ordered by (distance, index).
    """
    k = n_neighbors
    if dist.shape[1] > k:
        tied = np.flatnonzero(dist[:, k - 1] == dist[:, k])
        dist, ind = dist[:, :k].copy(), ind[:, :k].copy()
        # in blocks of rows (bounded memory on data sets with many tied rows)
        step = max(1, _TIE_BLOCK_ELEMENTS // max(X.shape[0], 1))
        for start in range(0, tied.size, step):
            rows = tied[start:start + step]
            D = pairwise_distances(X[rows], X, metric=metric)
            dist[rows], ind[rows] = knn_from_distances(D, k, rows=rows)
    order = np.lexsort((ind, dist), axis=1)
    rows = np.arange(dist.shape[0])[:, None]
    return dist[rows, order], ind[rows, order]



def knn_from_distances(D, n_neighbors, rows=None):
    """Each row's ``n_neighbors`` nearest other points from its distances to all points.

    D is the full distance matrix, or with ``rows`` given, the rows of it that
    belong to the points ``rows`` (``D[r, j]`` = distance from point ``rows[r]``
    to point j). The point itself is removed by index (its duplicates stay
    candidates), and equal distances go to the smaller index, the order of
    MATLAB's stable ``sort`` in Cai's ``constructW.m``; :func:`knn_graph`
    applies the same rule to scikit-learn's searches, which state none.

    Parameters
    ----------
    D : ndarray of shape (r, n)
        Distances; overwritten.
    n_neighbors : int
    rows : ndarray of shape (r,), optional
        The points the rows of D belong to (default: ``arange(n)``, D square).

    Returns
    -------
    distances, indices : ndarrays of shape (r, n_neighbors)
        Sorted by (distance, index).
    """
    r = D.shape[0]
    k = n_neighbors
    D[np.arange(r), np.arange(r) if rows is None else rows] = np.inf
    cand = np.argpartition(D, k - 1, axis=1)[:, :k]
    idx = np.arange(r)[:, None]
    kth = D[idx, cand].max(axis=1)
    # Rows with more than k entries at or below the k-th distance have a tie at the
    # boundary that argpartition broke arbitrarily: redo those rows in index order.
    for i in np.flatnonzero(np.count_nonzero(D <= kth[:, None], axis=1) > k):
        cand[i] = np.argsort(D[i], kind="stable")[:k]
    dist = D[idx, cand]
    order = np.lexsort((cand, dist), axis=1)
    return dist[idx, order], cand[idx, order]
