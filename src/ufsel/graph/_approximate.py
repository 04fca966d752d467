"""The approximate neighbour searches: faiss's HNSW index and pynndescent's NN-descent.

Both are optional (``pip install 'ufsel[ann]'`` or ``'ufsel[nndescent]'``); which one a
search uses is :func:`search_backend`'s choice, and whether a search is approximate at
all is the plan's (:func:`ufsel.graph.plan_search`). Both return float64 distances
recomputed exactly for the pairs they find, without the point itself.
"""

from __future__ import annotations

import importlib.util
import logging
import sys

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from ..utils import import_optional
from ._refine import (
    exact_sq_distances,
    knn_among_candidates,
    merge_neighbor_lists,
    two_hop_candidates,
)

__all__ = [
    "ANN_BACKENDS",
    "HNSW_EF_CONSTRUCTION",
    "HNSW_EF_SEARCH",
    "HNSW_M",
    "approximate_backend",
    "approximate_knn",
    "backend_installed",
    "installed_backend",
    "search_backend",
]

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
    return installed_backend(X is not None and sparse.issparse(X))


def installed_backend(is_sparse):
    """:func:`approximate_backend` from the data's storage alone (for a search planned
    from a shape).

    Parameters
    ----------
    is_sparse : bool
        Whether the data are a sparse matrix.

    Returns
    -------
    backend : {"hnsw", "nndescent"} or None
    """
    if is_sparse and backend_installed("pynndescent"):
        return "nndescent"
    for backend in ANN_BACKENDS:
        if backend_installed(_BACKEND_MODULE[backend]):
            return backend
    return None


def backend_installed(name):
    """True when module ``name`` can be imported, found without importing it.

    Importing pynndescent compiles numba code, so the question is answered from the
    module's spec.

    Parameters
    ----------
    name : str
        A module name (``"faiss"``, ``"pynndescent"``).
    """
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def search_backend(algorithm, is_sparse):
    """The backend an approximate search runs on: ``"hnsw"`` or ``"nndescent"``.

    Parameters
    ----------
    algorithm : str
        The requested algorithm: ``"hnsw"`` or ``"nndescent"`` name the backend; any
        other value takes :func:`installed_backend`'s (HNSW when none is installed and
        the data are dense, so that the missing package is named).
    is_sparse : bool
        Whether the data are a sparse matrix.
    """
    backend = algorithm if algorithm in ANN_BACKENDS else installed_backend(is_sparse)
    if backend == "hnsw" or (backend is None and not is_sparse):
        return "hnsw"
    return "nndescent"


def approximate_knn(X, n_neighbors, metric, backend, *, n_jobs=None, random_state=None,
                    init_indices=None):
    """Each sample's approximate nearest neighbours with ``backend``, itself excluded.

    The search behind :func:`ufsel.graph.knn_graph`'s approximate algorithms (its
    docstring describes the backends, ``random_state`` and ``init_indices``).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    n_neighbors : int
    metric : {"euclidean", "cosine"}
    backend : {"hnsw", "nndescent"}
    n_jobs : int, optional
    random_state : int, RandomState or None, default=None
        Seeds NN-descent.
    init_indices : ndarray of shape (n_samples, m), optional
        Candidate neighbours the result is never worse than.

    Returns
    -------
    distances, indices : ndarrays of shape (n_samples, n_neighbors)
        Float64 distances recomputed exactly for the pairs found, ascending.
    """
    if backend == "hnsw":
        return _knn_hnsw(X, n_neighbors, metric, n_jobs, init_indices)
    return _knn_nndescent(X, n_neighbors, metric, n_jobs, random_state, init_indices)


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
    dist = np.sqrt(exact_sq_distances(Xf, ind))
    order = np.argsort(dist, axis=1, kind="stable")
    dist, ind = np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)
    dist, ind = _drop_self(dist, ind)
    if init_indices is not None:
        cand = np.asarray(init_indices)
        if cand.ndim != 2 or cand.shape[0] != n:
            raise ValueError(f"init_indices must have one row per sample, shape ({n}, m); "
                             f"got {cand.shape}.")
        cand = np.where((cand == np.arange(n)[:, None]) | (cand >= n), -1, cand)
        dist, ind = merge_neighbor_lists((dist, ind), knn_among_candidates(Xf, cand, n_neighbors),
                                  n_neighbors)
    if np.any(ind < 0):
        raise RuntimeError(  # pragma: no cover - HNSW left a row unfilled
            "The HNSW search returned fewer neighbours than requested; use algorithm='exact'."
        )
    if metric == "cosine":
        dist = 0.5 * dist**2
    return dist, ind



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
