"""Sparse k-nearest-neighbour affinity graphs: heat-kernel bandwidths and affinities.

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

import numpy as np
from scipy import sparse
from sklearn.metrics import pairwise_distances
from sklearn.utils import check_random_state

from ..utils import is_dask_array
from ._knn import knn_from_distances, knn_graph, plan_search

__all__ = [
    "BANDWIDTH_SAMPLE_SIZE",
    "SYMMETRIZE",
    "WEIGHTS",
    "bandwidth_and_neighbours",
    "bandwidth_before_search",
    "heat_kernel_bandwidth",
    "knn_affinity",
    "knn_affinity_and_bandwidth",
    "shares_distance_matrix",
    "symmetrize",
]

WEIGHTS = ("heat", "binary", "cosine")
SYMMETRIZE = ("max", "mean", "min", "none")

#: Points on which :func:`heat_kernel_bandwidth` estimates the bandwidth by default (a
#: random sample of this many when there are more).
BANDWIDTH_SAMPLE_SIZE = 3000


def heat_kernel_bandwidth(X, method="mean", *, sample_size=BANDWIDTH_SAMPLE_SIZE,
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



def shares_distance_matrix(X, algorithm, t):
    """Whether :func:`knn_affinity` computes one distance matrix for both the heat-kernel
    bandwidth and the neighbours.

    True for dense float64 X of at most :data:`BANDWIDTH_SAMPLE_SIZE` rows (the
    bandwidth then uses every point, so the matrix it needs holds every pair), an
    estimated bandwidth, and a search that :func:`~ufsel.graph.plan_search` plans
    as exact brute force (more than ``KD_TREE_MAX_FEATURES`` features, or
    ``algorithm="brute"``; with fewer features scikit-learn searches a k-d tree,
    whose distances are computed differently).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    algorithm : str
        The neighbour search requested.
    t : str or float
        The bandwidth: ``"mean"`` or ``"median"`` (estimated) or a number.
    """
    if not (isinstance(t, str) and isinstance(X, np.ndarray) and X.dtype == np.float64
            and X.shape[0] <= BANDWIDTH_SAMPLE_SIZE and algorithm in ("auto", "exact", "brute")):
        return False
    plan = plan_search(X.shape[0], X.shape[1], k=None, algorithm=algorithm)
    return plan.how == "exact" and plan.backend == "brute"


def bandwidth_before_search(X, t, random_state=None):
    """The bandwidth, estimated before any neighbour search, unless the search will share it.

    Where :func:`shares_distance_matrix` holds, ``t`` is returned as it is (the
    search's distance matrix gives it, from every pair, with no random sample);
    otherwise an estimated ``t`` is computed now, so that its random sample is drawn
    from ``random_state`` before a search uses the same generator.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    t : str or float
        ``"mean"``, ``"median"`` or a bandwidth.
    random_state : int, RandomState or None, default=None
        Seeds the bandwidth's sample.
    """
    if isinstance(t, str) and not shares_distance_matrix(X, "auto", t):
        return heat_kernel_bandwidth(X, t, random_state=random_state)
    return t


def bandwidth_and_neighbours(X, n_neighbors, t, *, n_jobs=None):
    """``(t, distances, indices)`` from one matrix of all pairwise distances.

    For the inputs where :func:`shares_distance_matrix` holds: the heat-kernel
    bandwidth ``t`` ("mean" or "median", over every pair) and each sample's
    ``n_neighbors`` nearest others (ties to the smaller index, see
    :func:`~ufsel.graph._knn.knn_from_distances`). The distances are
    ``pairwise_distances``', the same GEMM formula as scikit-learn's brute-force
    search.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_neighbors : int
    t : {"mean", "median"}
        How the bandwidth is estimated.
    n_jobs : int, optional
    """
    D = pairwise_distances(X, metric="euclidean", n_jobs=n_jobs)
    t = _bandwidth_from_distances(D, t)
    dist, ind = knn_from_distances(D, n_neighbors)
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
    if weight == "heat" and shares_distance_matrix(X, algorithm, t):
        # The bandwidth needs every pairwise distance; the neighbours come from the same
        # matrix instead of a second pass over all pairs (about half the time of the
        # graph).
        t, dist, ind = bandwidth_and_neighbours(X, n_neighbors, t, n_jobs=n_jobs)
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
