"""Adaptive-neighbour (CAN) graph weights (Nie, Wang, Huang, KDD 2014)."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.spatial import cKDTree

from ..linalg import project_simplex
from ._knn import knn_from_distances, knn_graph, resolve_neighbors_algorithm
from ._refine import DIFF_BLOCK, exact_sq_distances, knn_among_candidates

__all__ = ["adaptive_neighbors", "can_weights", "nearest_by_exact_distance"]


def can_weights(dist_sq, indices, n_neighbors, n_samples=None):
    """Closed-form adaptive-neighbour weights of CAN.

    For each point i, ``s_i = argmin_{s_i in simplex} sum_j d_ij s_ij + lambda_i s_ij^2``
    with ``lambda_i`` chosen so that exactly k neighbours get a non-zero
    weight (CAN, Eq. 13-17)::

        s_ij = (d_{i,k+1} - d_ij) / (k d_{i,k+1} - sum_{l<=k} d_il)   for the k nearest j,

    and ``lambda_i = (k d_{i,k+1} - sum_{l<=k} d_il) / 2``.

    Parameters
    ----------
    dist_sq : ndarray of shape (n, k + 1)
        Squared distances to each point's k+1 nearest other points, ascending
        (the point itself excluded).
    indices : ndarray of shape (n, k + 1)
        Their indices.
    n_neighbors : int
        k.
    n_samples : int, optional
        Number of columns of the result (defaults to n).

    Returns
    -------
    S : scipy.sparse.csr_matrix of shape (n, n_samples)
        Row-stochastic, k non-zeros per row (not symmetric).
    lambdas : ndarray of shape (n,)
        The per-point regularisation ``lambda_i``; the CAN paper sets the
        global ``lambda`` to their mean.
    """
    k = n_neighbors
    n = dist_sq.shape[0]
    if dist_sq.shape[1] < k + 1:
        raise ValueError(f"need the k+1 = {k + 1} nearest distances per point, got {dist_sq.shape[1]}.")
    dk1 = dist_sq[:, k]
    dk = dist_sq[:, :k]
    denom = k * dk1 - dk.sum(axis=1)
    vals = np.empty_like(dk)
    ok = denom > np.finfo(float).eps * np.maximum(1.0, np.abs(dk1))
    vals[ok] = (dk1[ok, None] - dk[ok]) / denom[ok, None]
    vals[~ok] = 1.0 / k  # all k+1 neighbours equidistant: uniform weights
    rows = np.repeat(np.arange(n), k)
    S = sparse.csr_matrix((vals.ravel(), (rows, indices[:, :k].ravel())),
                          shape=(n, n_samples or n))
    return S, denom / 2.0


def adaptive_neighbors(Z, n_neighbors, lambdas=None, n_candidates=None, candidates=None):
    """Adaptive neighbours: each row ``s_i`` on the simplex, minimising
    ``sum_j ||z_i - z_j||^2 s_ij + lambda_i s_ij^2`` (no self-loop).

    The S-step of UFSA (Eq. 17-19) and of SOGFS (with ``z_i = [W^T x_i,
    sqrt(lambda) f_i]``, whose squared distances are SOGFS's
    ``d^x_ij + lambda d^f_ij``, and ``lambda_i = alpha``).

    With ``lambdas=None`` the per-point ``lambda_i`` is chosen by CAN's rule
    (Nie, Wang, Huang KDD 2014, Eq. 16-17) so that exactly ``n_neighbors``
    weights are non-zero, and returned. With given ``lambdas`` the exact
    minimiser is the Euclidean projection of ``-q_i / (2 lambda_i)`` onto the
    simplex (Eq. 19); its support is a set of nearest neighbours of z_i, so
    it is computed on the m nearest candidates, with m doubled until the
    support of every row is smaller than m (then no farther point can enter
    it, and the restricted projection equals the projection over all n).

    Parameters
    ----------
    Z : ndarray of shape (n, c)
        The projected points ``W^T x_i`` as rows.
    n_neighbors : int
        k.
    lambdas : ndarray of shape (n,), optional
    n_candidates : int, optional
        First number of candidates m (default ``3 k``); a caller that knows
        the support sizes of the previous S-step passes a little more than
        their maximum, which saves the k-NN searches of the doubling.
    candidates : ndarray of shape (n, m'), optional
        Restrict row i to these points (-1 = padding), e.g. the two-hop
        neighbourhood of the current graph
        (:func:`ufsel.graph.two_hop_candidates`). Each row is then the exact
        minimiser over its candidates (entries outside get 0), which does
        not increase the objective whenever the candidates contain the
        row's current support. None searches all n points (exact).

    Returns
    -------
    S : scipy.sparse.csr_matrix of shape (n, n)
    lambdas : ndarray of shape (n,)
    """
    n = Z.shape[0]
    k = n_neighbors
    # A k-d tree in few dimensions (n log n); otherwise brute force, several times faster
    # than a tree on clustered projections with more coordinates, up to moderate n.
    algorithm = ("kd_tree" if Z.shape[1] <= _KD_TREE_MAX_DIM
                 else "brute" if n <= 20000 else "auto")
    if candidates is not None and np.sum(candidates >= 0, axis=1).min() < k + 1:
        candidates = None  # some row has too few candidates: exact search

    def search(m):
        # The m nearest by squared distances from differences, ties to the smaller
        # index, whatever the rounding of the search (nearest_by_exact_distance)
        if candidates is None:
            return nearest_by_exact_distance(Z, m, algorithm=algorithm)
        _, ind = knn_among_candidates(Z, candidates, m)
        return sorted_candidate_distances(Z, ind)

    if lambdas is None:
        # k + 1 nearest by exact distance, from a slightly larger search.
        d2, ind = search(min(k + 3, n - 1 if candidates is None else candidates.shape[1]))
        S, lambdas = can_weights(d2[:, :k + 1], ind[:, :k + 1], k)
        pos = lambdas[lambdas > 0]
        floor = 1e-12 * (pos.mean() if pos.size else 1.0)
        return S, np.maximum(lambdas, floor if pos.size else 1.0)
    width = n - 1 if candidates is None else candidates.shape[1]
    # Over candidates, all of them at once (their distances cost one pass), with no
    # search among them and no sort: the simplex projection sorts each row itself and
    # its result does not depend on the order of the entries.
    m = width if candidates is not None else min(width, max(3 * k, k + 10, n_candidates or 0))
    while True:
        d2, ind = (exact_sq_distances(Z, candidates), candidates) if candidates is not None else search(m)
        V = -d2 / (2.0 * lambdas[:, None])
        pad = ind < 0
        if pad.any():
            # Padding: more than 1 below the row's largest entry, which keeps it out
            # of the support of the projection (the threshold exceeds max(v) - 1).
            top = np.max(np.where(pad, -np.inf, V), axis=1)
            V = np.where(pad, top[:, None] - 2.0, V)
            ind = np.where(pad, np.arange(n)[:, None], ind)
        P = project_simplex(V)
        P[pad] = 0.0
        support = np.count_nonzero(P, axis=1)
        if m >= width or support.max() < m:
            break
        m = min(width, 2 * m)
    rows = np.repeat(np.arange(n), m)
    S = sparse.csr_matrix((P.ravel(), (rows, ind.ravel())), shape=(n, n))
    S.eliminate_zeros()
    S.sort_indices()  # one storage order (and summation order) whatever the candidates' order
    return S, lambdas


#: Up to this many points the candidate search of nearest_by_exact_distance is one Gram
#: product and a partial sort in NumPy, faster than scikit-learn's brute force on the
#: small low-dimensional projections of UFSA's S-step. Its rounding is of the same kind
#: (``||a||^2 + ||b||^2 - 2 a.b``), so the exactness check below applies unchanged.
_GRAM_SEARCH_MAX = 4096
#: Up to this many coordinates adaptive_neighbors searches with a k-d tree (SciPy's
#: cKDTree, ``algorithm="kd_tree"`` of nearest_by_exact_distance), whose cost grows like
#: n log n instead of n^2 in few dimensions (UFSA's projections have c coordinates,
#: often few; with more, a tree prunes poorly and brute force is faster). Its squared
#: distances are sums of squared differences, within (p + 2) eps of their own size, so
#: the exactness check uses a relative bound.
_KD_TREE_MAX_DIM = 6


def _kd_tree_search(Z, m):
    """The m nearest other points of each row by a k-d tree: distances and indices (the
    point itself removed by index; where it is not among the m + 1 returned, duplicates
    filled the row and its last entry is dropped)."""
    n = Z.shape[0]
    dist, ind = cKDTree(Z).query(Z, k=m + 1)
    self_pos = np.argmax(ind == np.arange(n)[:, None], axis=1)
    found = ind[np.arange(n), self_pos] == np.arange(n)
    self_pos[~found] = m
    keep = np.ones_like(ind, dtype=bool)
    keep[np.arange(n), self_pos] = False
    return dist[keep].reshape(n, m), ind[keep].reshape(n, m)


def _gram_search(Z, m):
    """The m nearest other points of each row by ``||a||^2 + ||b||^2 - 2 a.b`` (ascending):
    distances (square roots, clipped at 0) and indices."""
    sq = np.einsum("ij,ij->i", Z, Z)
    D = Z @ Z.T
    D *= -2.0
    D += sq[:, None]
    D += sq[None, :]
    d2, ind = knn_from_distances(D, m)
    return np.sqrt(np.maximum(d2, 0.0)), ind


def nearest_by_exact_distance(Z, n_neighbors, *, algorithm="auto", n_extra=3):
    """Each point's ``n_neighbors`` nearest others by the squared distance computed from
    differences, ties to the smaller index: a deterministic function of the points.

    A search ranks by distances with rounding (scikit-learn's brute force
    expands ``||a - b||^2 = ||a||^2 - 2 a.b + ||b||^2``, whose error is about
    ``eps (||a||^2 + ||b||^2)``, far above the distance itself for nearly
    coincident points). So the search returns ``n_neighbors + n_extra``
    candidates, their distances are recomputed from differences and sorted
    by (distance, index), and a row is accepted when its ``n_neighbors``-th
    recomputed distance lies below the search's last distance minus the
    bound on the search's rounding: every point the search left out is then
    farther. Rows that fail (groups of nearly coincident points, e.g. a
    projection that maps many samples to almost the same point) get their
    distances to every point, from differences (O(n p) each). Without this, which members of
    such a group a row keeps was decided by rounding, and differed between
    processes (the BLAS kernels' summation order depends on memory
    alignment). With ``algorithm="kd_tree"`` (dense Z) the search is SciPy's
    k-d tree, whose squared distances are sums of squared differences, so the
    bound is relative to the distance itself. An approximate search
    (:func:`resolve_neighbors_algorithm`) is not checked: its candidates are
    re-sorted only.

    Parameters
    ----------
    Z : ndarray or sparse matrix of shape (n, p)
    n_neighbors : int
    algorithm : str
        As in :func:`knn_graph`.
    n_extra : int
        Candidates searched beyond ``n_neighbors`` at first.

    Returns
    -------
    d2, indices : ndarrays of shape (n, n_neighbors)
        Squared distances (ascending) and indices.
    """
    n = Z.shape[0]
    k = int(n_neighbors)
    if not 1 <= k <= n - 1:
        raise ValueError(f"n_neighbors must be in [1, n_samples - 1] = [1, {n - 1}], got {k}.")
    m = min(k + n_extra, n - 1)
    exact = resolve_neighbors_algorithm(algorithm, Z) == "exact"
    kd_tree = algorithm == "kd_tree" and not sparse.issparse(Z)
    if kd_tree:
        dist, ind = _kd_tree_search(np.asarray(Z, dtype=np.float64), m)
    elif exact and not sparse.issparse(Z) and n <= _GRAM_SEARCH_MAX:
        dist, ind = _gram_search(np.asarray(Z, dtype=np.float64), m)
    else:
        dist, ind = knn_graph(Z, m, algorithm=algorithm)
    d2, ind = sorted_candidate_distances(Z, ind)
    if m >= n - 1 or sparse.issparse(Z) or not exact:
        return d2[:, :k], ind[:, :k]
    sq = np.einsum("ij,ij->i", Z, Z)
    # The search's squared distances are within (p + 4) eps (|a|^2 + |b|^2) of
    # the exact ones (a dot product of length p and two additions), doubled for
    # safety; the recomputed ones within (p + 2) eps of their own size.
    eps = np.finfo(np.float64).eps
    bound = 2.0 * (Z.shape[1] + 4) * eps * (dist[:, -1] ** 2 if kd_tree else sq + sq.max())
    pending = np.flatnonzero(d2[:, k - 1] * (1.0 + 4 * Z.shape[1] * eps) >= dist[:, -1] ** 2 - bound)
    # those rows: distances to every point, from differences (blocks of DIFF_BLOCK numbers)
    chunk = max(1, DIFF_BLOCK // max(n * Z.shape[1], 1))
    for start in range(0, pending.size, chunk):
        rows = pending[start:start + chunk]
        diff = Z[None, :, :] - Z[rows][:, None, :]
        full = np.einsum("ijk,ijk->ij", diff, diff)
        d2[rows, :k], ind[rows, :k] = knn_from_distances(full, k, rows=rows)
    return d2[:, :k], ind[:, :k]


def sorted_candidate_distances(Z, ind, chunk_size=4096):
    """Squared distances ``||z_i - z_j||^2`` for the candidates ``j = ind[i]`` (-1 =
    padding, distance inf), computed from differences, each row sorted by
    (distance, index)."""
    n = ind.shape[0]
    d2 = exact_sq_distances(Z, ind, chunk_size)
    pad = ind < 0
    order = np.lexsort((np.where(pad, n, ind), d2), axis=-1)
    return np.take_along_axis(d2, order, axis=1), np.take_along_axis(ind, order, axis=1)
