"""Sparse k-nearest-neighbour affinity graphs.

All graphs are returned as ``scipy.sparse`` CSR matrices with O(n k) entries;
no dense n x n matrix is ever formed (the heat-kernel bandwidth is estimated
on a bounded random sample of at most ``sample_size`` points).

The defaults reproduce Deng Cai's ``constructW`` as used by the MCFS, RSFS and
Laplacian Score reference code (the authors' code, see docs/guide/fidelity.md): k nearest neighbours
excluding the point itself, heat-kernel weights ``exp(-d^2 / (2 t^2))`` with
``t`` the mean Euclidean distance between points, OR-symmetrisation
``W = max(W, W^T)``, no self-loops.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import importlib.util
import logging
import sys

import numpy as np
from scipy import sparse
from sklearn import config_context
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state

from ..utils import import_optional, is_dask_array

__all__ = [
    "ANN_BACKENDS",
    "APPROX_NEIGHBORS_MIN_FEATURES",
    "APPROX_NEIGHBORS_MIN_SAMPLES",
    "NEIGHBORS_ALGORITHMS",
    "approximate_backend",
    "heat_kernel_bandwidth",
    "knn_affinity",
    "knn_graph",
    "knn_among_candidates",
    "refine_neighbors",
    "resolve_neighbors_algorithm",
    "two_hop_candidates",
    "symmetrize",
]

WEIGHTS = ("heat", "binary", "cosine")
SYMMETRIZE = ("max", "mean", "min", "none")
NEIGHBORS_ALGORITHMS = ("auto", "exact", "approximate", "hnsw", "nndescent", "brute", "kd_tree",
                        "ball_tree")

#: The approximate-search backends, in order of preference: ``"hnsw"`` is
#: faiss's HNSW index (``pip install 'ufsel[ann]'``, compiled C++, no start-up
#: cost), ``"nndescent"`` is pynndescent (``pip install 'ufsel[nndescent]'``,
#: numba: its JIT compilation adds tens of seconds to its first fit in every process).
ANN_BACKENDS = ("hnsw", "nndescent")
_BACKEND_MODULE = {"hnsw": "faiss", "nndescent": "pynndescent"}

#: HNSW index parameters: ``M`` links per node, the candidate-list lengths of
#: the construction and of the search (the search uses at least twice the
#: number of neighbours asked for). Recall at these settings: above 0.96 on
#: 20,000 x 50 i.i.d. Gaussian points (k = 10; the hardest case, no cluster
#: structure) and above 0.99 on clustered data (``benchmarks/speed/bench_neighbors.py``).
HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH = 32, 80, 64

_logger = logging.getLogger(__name__)
_nndescent_notice_shown = False

#: ``algorithm="auto"`` switches to the approximate search (when an
#: approximate backend is installed) from this many samples; below it the
#: exact search is fast enough (about a minute for 50,000 x 784 on two cores).
APPROX_NEIGHBORS_MIN_SAMPLES = 50_000
#: ... and only for more than this many features (k-d trees are fast below).
APPROX_NEIGHBORS_MIN_FEATURES = 20
#: Memory (MiB) of the exact search's blocks of distances (scikit-learn's
#: ``working_memory``, 1024 by default).
KNN_WORKING_MEMORY_MIB = 64


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
    if algorithm not in NEIGHBORS_ALGORITHMS:
        raise ValueError(
            f"algorithm={algorithm!r} not understood, valid options are "
            f"{set(NEIGHBORS_ALGORITHMS)}."
        )
    if is_dask_array(X):
        raise ValueError(
            "A k-NN graph of a dask array is not computed (n^2 distances); use the anchor "
            "graph (ufsel.graph.anchor_graph, the selectors' graph='anchor'), or X.compute()."
        )
    if algorithm == "auto":
        if (X.shape[0] >= APPROX_NEIGHBORS_MIN_SAMPLES
                and X.shape[1] > APPROX_NEIGHBORS_MIN_FEATURES
                and approximate_backend(X) is not None):
            return "approximate"
        return "exact"
    return "approximate" if algorithm in ("approximate",) + ANN_BACKENDS else "exact"


def approximate_backend(X=None):
    """The backend of the approximate search for X: ``"hnsw"``, ``"nndescent"`` or None.

    faiss's HNSW index (``"hnsw"``, ``pip install 'ufsel[ann]'``) when faiss
    is installed, except for sparse X when pynndescent is installed
    (pynndescent searches sparse rows as they are; faiss needs a dense
    float32 copy); pynndescent (``"nndescent"``) when only it is installed;
    None when neither is.

    Parameters
    ----------
    X : {ndarray, sparse matrix} or None, default=None
        The data to be searched; sparse X prefers pynndescent. None: the backend
        for dense data.
    """
    if X is not None and sparse.issparse(X) and _installed("pynndescent"):
        return "nndescent"
    for backend in ANN_BACKENDS:
        if _installed(_BACKEND_MODULE[backend]):
            return backend
    return None


def _installed(name):
    """True when module ``name`` can be imported, found without importing it (importing
    pynndescent compiles numba code)."""
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def knn_graph(X, n_neighbors=5, *, metric="euclidean", algorithm="auto", n_jobs=None,
              random_state=None, init_indices=None):
    """Indices and distances of each sample's ``n_neighbors`` nearest neighbours.

    The sample itself is never among its neighbours, even when it has exact
    duplicates (scikit-learn's ``kneighbors()`` called without a query removes
    the query point by index, not by distance; the approximate searches
    do the same). On exactly tied distances the exact searches keep
    the points of smaller index (MATLAB's stable ``sort`` in Cai's
    ``constructW.m``), whatever the thread count; see
    :func:`_ties_to_smaller_index`.

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
    how = resolve_neighbors_algorithm(algorithm, X)
    cache = _SEARCHES.get()
    key = None
    if cache is not None and init_indices is None:
        # only NN-descent depends on the seed: seeded by a generator, a search is not kept
        seeded = how == "approximate" and _approximate_search(X, algorithm) == "nndescent"
        if not seeded or random_state is None or isinstance(random_state, (int, np.integer)):
            key = _search_key(X, n_neighbors, metric,
                              (algorithm, how, random_state if seeded else 0))
    if key is not None and key in cache:
        dist, ind = cache[key]
        return dist.copy(), ind.copy()
    dist, ind = _knn_search(X, n_neighbors, metric, algorithm, how, n_jobs, random_state,
                            init_indices)
    if key is not None:
        cache[key] = (dist.copy(), ind.copy())
    return dist, ind


def _knn_search(X, n_neighbors, metric, algorithm, how, n_jobs, random_state, init_indices):
    if how == "approximate":
        if _approximate_search(X, algorithm) == "hnsw":
            return _knn_hnsw(X, n_neighbors, metric, n_jobs, init_indices)
        return _knn_nndescent(X, n_neighbors, metric, n_jobs, random_state, init_indices)
    backend = algorithm if algorithm in ("brute", "kd_tree", "ball_tree") else "auto"
    n = X.shape[0]
    extra = 1 if n_neighbors < n - 1 else 0  # one more, to see a tie at the boundary
    nn = NearestNeighbors(n_neighbors=n_neighbors + extra, metric=metric, algorithm=backend,
                          n_jobs=n_jobs).fit(X)
    # the brute search's distance blocks: scikit-learn's 1 GiB default, plus the sparse
    # product behind each block for sparse X, is several times X itself
    with config_context(working_memory=KNN_WORKING_MEMORY_MIB):
        dist, ind = nn.kneighbors(return_distance=True)
    return _ties_to_smaller_index(X, dist, ind, n_neighbors, metric)


def _approximate_search(X, algorithm):
    """``"hnsw"`` or ``"nndescent"``: the backend an approximate search of X runs on."""
    backend = algorithm if algorithm in ANN_BACKENDS else approximate_backend(X)
    if backend == "hnsw" or (backend is None and not sparse.issparse(X)):
        return "hnsw"
    return "nndescent"


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
    (:func:`_knn_from_distances`, MATLAB's stable ``sort`` in Cai's
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
            dist[rows], ind[rows] = _knn_from_distances(D, k, rows=rows)
    order = np.lexsort((ind, dist), axis=1)
    rows = np.arange(dist.shape[0])[:, None]
    return dist[rows, order], ind[rows, order]


def padded_rows(M, width=None):
    """The rows of a CSR matrix as padded arrays: column indices (-1 = padding) and values
    (-inf = padding), ``width`` (default: the longest row) columns each, plus the row lengths."""
    M = sparse.csr_matrix(M)
    n = M.shape[0]
    counts = np.diff(M.indptr)
    width = max(int(counts.max()) if n and M.nnz else 0, width or 0)
    cols = np.full((n, width), -1, dtype=np.intp)
    vals = np.full((n, width), -np.inf)
    rows = np.repeat(np.arange(n), counts)
    pos = np.arange(M.nnz) - np.repeat(M.indptr[:-1], counts)
    cols[rows, pos], vals[rows, pos] = M.indices, M.data
    return cols, vals, counts


def two_hop_candidates(graph, max_degree=None, *, min_candidates=0, random_state=None):
    """Each node's neighbours and neighbours' neighbours in a sparse graph (itself excluded).

    One round of NN-descent's local join (Dong, Charikar, Li, WWW 2011): when
    a graph is a good neighbour graph under a metric that changes a little,
    the new near neighbours of a point are mostly among these. The row's own
    neighbours are always among the candidates.

    Parameters
    ----------
    graph : sparse matrix of shape (n, n)
        Edges (directed, row i -> its neighbours), weighted.
    max_degree : int, optional
        Hop only through each node's ``max_degree`` largest-weight edges
        (all of a node's own neighbours stay candidates). Bounds the number
        of candidates by ``degree + max_degree**2``.
    min_candidates : int, default=0
        Rows with fewer candidates (a small isolated group of points) are
        topped up with random other points, so that every row has at least
        this many.
    random_state : int, RandomState or None
        Seeds that top-up.

    Returns
    -------
    candidates : ndarray of shape (n, m)
        Row i lists the candidates of node i, padded with -1; m is the
        largest number of candidates of a node.
    """
    B = sparse.csr_matrix(graph, copy=True)
    B.eliminate_zeros()
    n = B.shape[0]
    H = B
    if max_degree is not None and n and np.diff(B.indptr).max() > max_degree:
        cols, w, _ = padded_rows(abs(B))
        top = np.argpartition(-w, max_degree - 1, axis=1)[:, :max_degree]
        keep = np.isfinite(np.take_along_axis(w, top, axis=1))
        H = sparse.csr_matrix(
            (np.ones(int(keep.sum())),
             (np.repeat(np.arange(n), max_degree)[keep.ravel()],
              np.take_along_axis(cols, top, axis=1)[keep])), shape=(n, n))
    B.data = np.ones_like(B.data, dtype=np.float64)
    H = sparse.csr_matrix(H, copy=True)
    H.data = np.ones_like(H.data, dtype=np.float64)
    C = (B + H @ H).tocsr()
    C.setdiag(0)
    C.eliminate_zeros()
    out, _, counts = padded_rows(C, width=max(int(min_candidates), 1))
    short = np.flatnonzero(counts < min_candidates)
    if short.size:
        rng = check_random_state(random_state)
        for i in short:  # rare: only isolated groups of fewer than min_candidates points
            need = min(min_candidates, n - 1) - counts[i]
            have = set(out[i, : counts[i]].tolist()) | {int(i)}
            if n <= 4 * (need + len(have)):
                pool = np.setdiff1d(np.arange(n), np.fromiter(have, dtype=np.intp))
                extra = rng.choice(pool, size=need, replace=False)
            else:  # rejection sampling: O(need), not O(n)
                extra = []
                while len(extra) < need:
                    j = int(rng.randint(n))
                    if j not in have:
                        have.add(j)
                        extra.append(j)
            out[i, counts[i]: counts[i] + need] = extra
    return out


def knn_among_candidates(X, candidates, n_neighbors, *, chunk_size=4096):
    """The ``n_neighbors`` nearest of each row's candidate points (Euclidean).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Dense (used for low-dimensional projections, where a full search
        costs O(n^2 d) or a poorly pruned tree).
    candidates : ndarray of shape (n, m)
        Candidate indices per row, -1 for padding (as returned by
        :func:`two_hop_candidates`).
    n_neighbors : int
    chunk_size : int, default=4096
        Rows processed at once (bounds the temporary memory).

    Returns
    -------
    distances, indices : ndarrays of shape (n, n_neighbors)
        Ascending; rows with fewer valid candidates are padded with
        ``inf`` / -1.
    """
    X = np.asarray(X, dtype=np.float64)
    cand = np.asarray(candidates)
    n, m = cand.shape
    k = int(n_neighbors)
    dist = np.full((n, k), np.inf)
    ind = np.full((n, k), -1, dtype=np.intp)
    kk = min(k, m)
    for start in range(0, n, chunk_size):
        sl = slice(start, min(start + chunk_size, n))
        c = cand[sl]
        valid = c >= 0
        diff = X[np.where(valid, c, 0)] - X[sl][:, None, :]
        d2 = np.einsum("ijk,ijk->ij", diff, diff)
        d2[~valid] = np.inf
        if kk < m:
            part = np.argpartition(d2, kk - 1, axis=1)[:, :kk]
            d2p = np.take_along_axis(d2, part, axis=1)
        else:
            part, d2p = np.broadcast_to(np.arange(m), c.shape), d2
        order = np.argsort(d2p, axis=1, kind="stable")
        sel = np.take_along_axis(part, order, axis=1)
        d_sel = np.take_along_axis(d2, sel, axis=1)
        i_sel = np.take_along_axis(c, sel, axis=1)
        i_sel = np.where(np.isfinite(d_sel), i_sel, -1)
        dist[sl, :kk] = np.sqrt(d_sel)
        ind[sl, :kk] = i_sel
    return dist, ind


def refine_neighbors(X, indices, *, n_rounds=1):
    """Neighbour lists improved by rounds of NN-descent's local join under a new metric.

    When the metric changes a little (the feature weights of an alternating
    method), a point's new near neighbours are mostly among its neighbours,
    and its neighbours' neighbours (Dong, Charikar and Li, *Efficient k-nearest neighbor graph construction
    for generic similarity measures*, WWW 2011). Each round computes the
    distances to these candidates in X and keeps each row's ``k`` nearest: the
    result is never farther than the given lists (they are among the
    candidates), and a round costs O(n k^2 d) instead of a new search. It is
    approximate: a point that is in no candidate list is not found.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data in the new metric (Euclidean distance).
    indices : ndarray of shape (n_samples, k)
        Current neighbour lists (without the point itself), for instance
        :func:`knn_graph`'s under the previous metric.
    n_rounds : int, default=1
        Local-join rounds; stops early when a round changes no list.

    Returns
    -------
    distances, indices : ndarrays of shape (n_samples, k)
        Sorted by increasing distance, ties to the smaller index.
    """
    X = np.asarray(X)
    ind = np.asarray(indices, dtype=np.intp)
    n, k = ind.shape
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    for _ in range(int(n_rounds)):
        rows = np.repeat(np.arange(n), k)
        G = sparse.csr_matrix((np.ones(n * k), (rows, ind.ravel())), shape=(n, n))
        # each row's neighbours and their neighbours: at most k + k^2 candidates
        cand = two_hop_candidates(G, min_candidates=min(k, n - 1), random_state=0)
        _, new = knn_among_candidates(Xc, cand, k)
        new = np.where(new < 0, ind, new)
        if np.array_equal(np.sort(new, axis=1), np.sort(ind, axis=1)):
            ind = new
            break
        ind = new
    dist = np.sqrt(_exact_d2(Xc, ind))
    order = np.lexsort((ind, dist), axis=1)
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)


def _drop_self(dist, ind):
    """Remove each row's own index (or, if absent, its farthest neighbour)."""
    n = ind.shape[0]
    is_self = ind == np.arange(n)[:, None]
    drop = np.where(is_self.any(axis=1), np.argmax(is_self, axis=1), ind.shape[1] - 1)
    keep = np.ones(ind.shape, dtype=bool)
    keep[np.arange(n), drop] = False
    k = ind.shape[1] - 1
    return dist[keep].reshape(n, k), ind[keep].reshape(n, k)


def _nndescent_init_graph(init_indices, n_samples, n_neighbors, random_state):
    """The candidate graph handed to NN-descent.

    pynndescent's heap starts with exactly these entries (no random fill), and
    it skips a row's own index, so every row needs at least ``n_neighbors``
    other candidates: the given ones are widened to their two-hop
    neighbourhood (:func:`two_hop_candidates`), and rows still short are
    topped up with random points.
    """
    cand = np.asarray(init_indices)
    n = n_samples
    if cand.ndim != 2 or cand.shape[0] != n:
        raise ValueError(
            f"init_indices must have one row per sample, shape ({n}, m); got {cand.shape}."
        )
    own = np.arange(n)[:, None]
    cand = np.where((cand == own) | (cand >= n), -1, cand)
    rows = np.repeat(np.arange(n), cand.shape[1])
    valid = cand.ravel() >= 0
    G = sparse.csr_matrix((np.ones(valid.sum()), (rows[valid], cand.ravel()[valid])),
                          shape=(n, n))
    cand = two_hop_candidates(G, min_candidates=min(n_neighbors, n - 1),
                              random_state=random_state)
    return np.ascontiguousarray(cand, dtype=np.int32)


def _check_approximate_metric(metric):
    if metric not in ("euclidean", "cosine"):
        raise ValueError(
            f"metric={metric!r} is not supported by the approximate search, valid options "
            "are {'euclidean', 'cosine'}; use algorithm='exact' for other metrics."
        )


def _merge_unique(a, b, k):
    """The k nearest of two (distances, indices) lists per row, each index once, -1 ignored."""
    dist, ind = np.hstack([a[0], b[0]]), np.hstack([a[1], b[1]])
    dist = np.where(ind < 0, np.inf, dist)
    order = np.lexsort((dist, ind), axis=-1)  # by index, then distance
    ind, dist = np.take_along_axis(ind, order, axis=1), np.take_along_axis(dist, order, axis=1)
    dup = np.zeros(ind.shape, dtype=bool)
    dup[:, 1:] = ind[:, 1:] == ind[:, :-1]
    dist[dup] = np.inf
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)


def _knn_hnsw(X, n_neighbors, metric, n_jobs, init_indices=None):
    """k-NN graph from faiss's HNSW index (built on one thread: deterministic)."""
    faiss = import_optional("faiss", purpose="algorithm='approximate' (HNSW)")
    _check_approximate_metric(metric)
    from ..utils._validation import densify

    n = X.shape[0]
    Xf = np.asarray(densify(X, "knn_graph") if sparse.issparse(X) else X, dtype=np.float64)
    if metric == "cosine":  # unit rows: squared Euclidean = 2 (cosine distance)
        norms = np.linalg.norm(Xf, axis=1, keepdims=True)
        Xf = Xf / np.where(norms > 0, norms, 1.0)
    X32 = np.ascontiguousarray(Xf, dtype=np.float32)
    k = min(n_neighbors + 1, n)
    threads = faiss.omp_get_max_threads()
    try:
        faiss.omp_set_num_threads(1)  # insertion order fixed: the same graph on any machine
        index = faiss.IndexHNSWFlat(X32.shape[1], HNSW_M)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.add(X32)
        index.hnsw.efSearch = max(HNSW_EF_SEARCH, 2 * k)
        # each query is searched independently: the result does not depend on the threads
        faiss.omp_set_num_threads(max(1, n_jobs) if n_jobs and n_jobs > 0 else threads)
        _, ind = index.search(X32, k)
    finally:
        faiss.omp_set_num_threads(threads)
    ind = ind.astype(np.intp)
    dist = np.sqrt(_exact_d2(Xf, ind))
    order = np.argsort(dist, axis=1, kind="stable")
    dist, ind = np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)
    dist, ind = _drop_self(dist, ind)
    if init_indices is not None:
        cand = np.asarray(init_indices)
        if cand.ndim != 2 or cand.shape[0] != n:
            raise ValueError(f"init_indices must have one row per sample, shape ({n}, m); "
                             f"got {cand.shape}.")
        cand = np.where((cand == np.arange(n)[:, None]) | (cand >= n), -1, cand)
        dist, ind = _merge_unique((dist, ind), knn_among_candidates(Xf, cand, n_neighbors),
                                  n_neighbors)
    if np.any(ind < 0):
        raise RuntimeError(  # pragma: no cover - HNSW left a row unfilled
            "The HNSW search returned fewer neighbours than requested; use algorithm='exact'."
        )
    if metric == "cosine":
        dist = 0.5 * dist**2
    return dist, ind


#: Numbers per block of pairwise differences formed by :func:`_exact_d2` (and the exact
#: fallback of ``nearest_by_exact_distance``): 2 MiB of float64, which stays in cache;
#: much larger blocks cost page faults on the first call of a process and cache misses
#: on later ones.
_DIFF_BLOCK = 2**18


def _exact_d2(Z, ind, chunk_size=4096):
    """Squared distances ``||z_i - z_ind[i, j]||^2`` in float64 (inf where ind < 0), from
    differences for dense Z (each pair's value does not depend on its position or on the
    chunking)."""
    n, m = ind.shape
    pad = ind < 0
    safe = np.where(pad, np.arange(n)[:, None], ind)
    if sparse.issparse(Z):
        # Sparse rows: ||a||^2 + ||b||^2 - 2 a.b pair by pair (no dense difference).
        Z = sparse.csr_matrix(Z)
        sq = np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
        d2 = np.empty((n, m))
        for start in range(0, n, chunk_size):
            sl = slice(start, min(start + chunk_size, n))
            rows = np.repeat(np.arange(sl.start, sl.stop), m)
            cols = safe[sl].ravel()
            dots = np.asarray(Z[rows].multiply(Z[cols]).sum(axis=1)).ravel()
            d2[sl] = np.maximum(sq[rows] + sq[cols] - 2.0 * dots, 0.0).reshape(-1, m)
    else:
        d2 = np.empty((n, m))
        chunk_size = max(1, min(chunk_size, _DIFF_BLOCK // max(m * Z.shape[1], 1)))
        for start in range(0, n, chunk_size):
            sl = slice(start, min(start + chunk_size, n))
            diff = Z[safe[sl]] - Z[sl][:, None, :]
            d2[sl] = np.einsum("ijk,ijk->ij", diff, diff)
    d2[pad] = np.inf
    return d2


def _knn_nndescent(X, n_neighbors, metric, n_jobs, random_state, init_indices=None):
    global _nndescent_notice_shown
    pynndescent = import_optional("pynndescent", purpose="algorithm='nndescent' (NN-descent)")
    _check_approximate_metric(metric)
    if not _nndescent_notice_shown:
        _nndescent_notice_shown = True
        _logger.warning(
            "ufsel: approximate neighbours with pynndescent, which compiles with numba on its "
            "first fit in this process (40-70 s pause); pip install 'ufsel[ann]' (faiss) "
            "avoids it."
        )
    if sparse.issparse(X):
        X = sparse.csr_matrix(X, dtype=np.float32)
    init_graph = (None if init_indices is None
                  else _nndescent_init_graph(init_indices, X.shape[0], n_neighbors + 1,
                                             random_state))
    index = pynndescent.NNDescent(
        X, metric=metric, n_neighbors=n_neighbors + 1, init_graph=init_graph,
        random_state=check_random_state(0 if random_state is None else random_state),
        n_jobs=n_jobs or 1,
        low_memory=True, compressed=True, verbose=False,
    )
    ind, dist = index.neighbor_graph
    dist, ind = _drop_self(np.asarray(dist, dtype=np.float64), np.asarray(ind, dtype=np.intp))
    if np.any(ind < 0):
        raise RuntimeError(  # pragma: no cover - NN-descent left a row unfilled
            "NN-descent returned fewer neighbours than requested; use algorithm='exact'."
        )
    return dist, ind


#: Points on which :func:`heat_kernel_bandwidth` estimates the bandwidth by default (a
#: random sample of this many when there are more).
_BANDWIDTH_SAMPLE_SIZE = 3000


def heat_kernel_bandwidth(X, method="mean", *, sample_size=_BANDWIDTH_SAMPLE_SIZE,
                          random_state=None):
    """Bandwidth ``t`` of the heat kernel ``exp(-d^2 / (2 t^2))``.

    ``method="mean"`` is Cai's ``t = mean(mean(EuDist2(X)))``: the mean
    Euclidean (not squared) distance over all ordered pairs, the zero
    diagonal included, computed on a random subset of ``sample_size`` points
    when there are more. ``"median"`` takes the median over distinct pairs.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data.
    method : {"mean", "median"}, default="mean"
        Mean over all ordered pairs (Cai's rule) or median over distinct pairs.
    sample_size : int, default=3000
        Largest number of points the distances are computed on; a random subset
        is drawn from larger data.
    random_state : int, RandomState or None, default=None
        Seeds the subset.
    """
    rng = check_random_state(random_state)
    n = X.shape[0]
    if n > sample_size:
        X = X[np.sort(rng.choice(n, sample_size, replace=False))]
    if is_dask_array(X):
        X = X.compute()
    return _bandwidth_from_distances(pairwise_distances(X, metric="euclidean"), method)


def _bandwidth_from_distances(D, method):
    """:func:`heat_kernel_bandwidth` from the full matrix D of pairwise distances."""
    if method == "mean":
        t = float(D.mean())
    elif method == "median":
        t = float(np.median(D[np.triu_indices_from(D, k=1)])) if D.shape[0] > 1 else 0.0
    else:
        raise ValueError(f"method={method!r} not understood, valid options are {{'mean', 'median'}}.")
    return t if t > 0 else 1.0


def _knn_from_distances(D, n_neighbors, rows=None):
    """Each row's ``n_neighbors`` nearest other points from its distances to all points.

    D is the full distance matrix, or with ``rows`` given, the rows of it that
    belong to the points ``rows`` (``D[r, j]`` = distance from point ``rows[r]``
    to point j). The point itself is removed by index (its duplicates stay
    candidates), and equal distances go to the smaller index, the order of
    MATLAB's stable ``sort`` in Cai's ``constructW.m``; :func:`knn_graph`
    applies the same rule to scikit-learn's searches, which state none.
    Returns
    ``(distances, indices)`` sorted by (distance, index). D is overwritten.
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


def _shares_distance_matrix(X, algorithm, t):
    """Whether :func:`knn_affinity` computes one distance matrix for both the heat-kernel
    bandwidth and the neighbours: dense float64 X of at most
    :data:`_BANDWIDTH_SAMPLE_SIZE` rows (the bandwidth then uses every point, so the
    matrix it needs holds every pair), an estimated bandwidth, and a search that
    would be scikit-learn's brute force (more than 15 features or ``algorithm="brute"``;
    with fewer features scikit-learn picks a k-d tree, whose distances are computed
    differently)."""
    return (isinstance(t, str) and isinstance(X, np.ndarray) and X.dtype == np.float64
            and X.shape[0] <= _BANDWIDTH_SAMPLE_SIZE
            and (algorithm == "brute" or (algorithm in ("auto", "exact") and X.shape[1] > 15
                                          and resolve_neighbors_algorithm(algorithm, X) == "exact")))


def bandwidth_before_search(X, t, random_state=None):
    """The bandwidth, estimated before any neighbour search, unless the search will share it.

    Where :func:`_shares_distance_matrix` holds, ``t`` is returned as it is (the
    search's distance matrix gives it, from every pair, with no random sample);
    otherwise an estimated ``t`` is computed now, so that its random sample is drawn
    from ``random_state`` before a search uses the same generator.
    """
    if isinstance(t, str) and not _shares_distance_matrix(X, "auto", t):
        return heat_kernel_bandwidth(X, t, random_state=random_state)
    return t


def _bandwidth_and_neighbours(X, n_neighbors, t, *, n_jobs=None):
    """``(t, distances, indices)`` from one matrix of all pairwise distances.

    For the inputs where :func:`_shares_distance_matrix` holds: the heat-kernel
    bandwidth ``t`` ("mean" or "median", over every pair) and each sample's
    ``n_neighbors`` nearest others (ties to the smaller index, see
    :func:`_knn_from_distances`). The distances are ``pairwise_distances``', the
    same GEMM formula as scikit-learn's brute-force search.
    """
    D = pairwise_distances(X, metric="euclidean", n_jobs=n_jobs)
    t = _bandwidth_from_distances(D, t)
    dist, ind = _knn_from_distances(D, n_neighbors)
    return t, dist, ind


def symmetrize(W, how="max"):
    """Symmetrise a sparse affinity: ``max`` (OR graph), ``mean``, ``min`` (mutual graph).

    Parameters
    ----------
    W : sparse matrix of shape (n, n)
        A non-negative affinity, not necessarily symmetric.
    how : {"max", "mean", "min", "none"}, default="max"
        ``max(W, W^T)`` (the OR graph of ``constructW``), ``(W + W^T) / 2`` or
        ``min(W, W^T)`` (the mutual graph); "none" returns W as CSR.
    """
    if how == "none":
        return W.tocsr()
    Wt = W.T.tocsr()
    if how == "max":
        S = W.maximum(Wt)
    elif how == "mean":
        S = 0.5 * (W + Wt)
    elif how == "min":
        S = W.minimum(Wt)
    else:
        raise ValueError(f"symmetrize={how!r} not understood, valid options are {set(SYMMETRIZE)}.")
    S = S.tocsr()
    S.eliminate_zeros()
    return S


def knn_affinity(X, n_neighbors=5, *, weight="heat", t="mean", symmetrize_mode="max",
                 algorithm="auto", n_jobs=None, random_state=None):
    """Sparse symmetric k-NN affinity matrix (CSR, no self-loops).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Never modified.
    n_neighbors : int
        Neighbours per sample (the sample itself excluded).
    weight : {"heat", "binary", "cosine"}
        ``heat``: ``exp(-||x_i - x_j||^2 / (2 t^2))``; ``binary``: 1;
        ``cosine``: cosine similarity (neighbours found by cosine distance,
        negative similarities clipped to 0 so the Laplacian stays PSD).
    t : "mean", "median" or float
        Heat-kernel bandwidth, see :func:`heat_kernel_bandwidth`.
    symmetrize_mode : {"max", "mean", "min", "none"}
        ``max`` is Cai's ``max(W, W^T)``.
    algorithm : {"auto", "exact", "approximate", "brute", "kd_tree", "ball_tree"}
        Neighbour search, see :func:`knn_graph`.
    n_jobs : int, optional
    random_state : int, RandomState or None
        Seeds the sample used for the bandwidth and the approximate search.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        float32 when X is float32, float64 otherwise.

    Notes
    -----
    A heat kernel with an estimated bandwidth (``t="mean"`` or ``"median"``) needs all
    pairwise distances. For dense float64 X with at most 3,000 samples and more than 15
    features (where scikit-learn's search is brute force), the neighbours are taken
    from that same distance matrix instead of a second pass over all pairs (half the
    time). On every exact path, equal distances go to the smaller index, as MATLAB's
    stable ``sort`` in Cai's ``constructW.m`` (see :func:`knn_graph`).
    """
    return knn_affinity_and_bandwidth(X, n_neighbors, weight=weight, t=t,
                                      symmetrize_mode=symmetrize_mode, algorithm=algorithm,
                                      n_jobs=n_jobs, random_state=random_state)[0]


def knn_affinity_and_bandwidth(X, n_neighbors=5, *, weight="heat", t="mean",
                               symmetrize_mode="max", algorithm="auto", n_jobs=None,
                               random_state=None):
    """:func:`knn_affinity` and the heat-kernel bandwidth it used: ``(W, t)``.

    For selectors that need t again (EVSC's eigenvalue sensitivities): with an
    estimated bandwidth the distance pass that gives it is shared with the search,
    as in :func:`knn_affinity`. ``t`` is None for ``weight`` other than ``"heat"``.
    """
    if weight not in WEIGHTS:
        raise ValueError(f"weight={weight!r} not understood, valid options are {set(WEIGHTS)}.")
    n = X.shape[0]
    metric = "cosine" if weight == "cosine" else "euclidean"
    rng = check_random_state(random_state)
    if weight == "heat" and _shares_distance_matrix(X, algorithm, t):
        # The bandwidth needs every pairwise distance; the neighbours come from the same
        # matrix instead of a second pass over all pairs (about half the time of the
        # graph).
        t, dist, ind = _bandwidth_and_neighbours(X, n_neighbors, t, n_jobs=n_jobs)
    else:
        dist, ind = knn_graph(X, n_neighbors, metric=metric, algorithm=algorithm, n_jobs=n_jobs,
                              random_state=rng)
    if weight == "binary":
        vals = np.ones_like(dist)
    elif weight == "cosine":
        vals = np.clip(1.0 - dist, 0.0, None)
    else:
        if isinstance(t, str):
            t = heat_kernel_bandwidth(X, t, random_state=rng)
        vals = np.exp(-(dist**2) / (2.0 * float(t) ** 2))
        if dist.size and not np.any(vals > 0):
            raise ValueError(
                f"knn_affinity: with the heat-kernel bandwidth t={float(t):.3g}, every "
                f"affinity exp(-d^2 / (2 t^2)) underflows to 0 (nearest-neighbour distances "
                f"are {float(dist.min()):.3g} or more), so the graph has no edges. Pass a "
                "larger t, or t='mean' / 'median' to estimate it from the data."
            )
    rows = np.repeat(np.arange(n), n_neighbors)
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    W = sparse.csr_matrix((vals.ravel().astype(dtype), (rows, ind.ravel())), shape=(n, n))
    return symmetrize(W, symmetrize_mode), (float(t) if weight == "heat" else None)
