"""Candidate refinement: neighbour lists improved among given candidates.

When a metric changes a little between the iterations of an alternating method,
the new near neighbours of a point are mostly among its neighbours and their
neighbours (NN-descent's local join). These functions build such candidate lists
(:func:`two_hop_candidates`), search among them (:func:`knn_among_candidates`,
:func:`refine_neighbors`), compute exact distances to listed points
(:func:`exact_sq_distances`) and merge two lists (:func:`merge_neighbor_lists`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

__all__ = [
    "DIFF_BLOCK",
    "exact_sq_distances",
    "knn_among_candidates",
    "merge_neighbor_lists",
    "padded_rows",
    "refine_neighbors",
    "two_hop_candidates",
]


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
    dist = np.sqrt(exact_sq_distances(Xc, ind))
    order = np.lexsort((ind, dist), axis=1)
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)



def merge_neighbor_lists(a, b, k):
    """The k nearest of two neighbour lists per row, each index once.

    Parameters
    ----------
    a, b : tuple of (distances, indices) ndarrays of shape (n, m_a) and (n, m_b)
        Two lists per row; index -1 is padding (ignored).
    k : int
        Neighbours kept per row.

    Returns
    -------
    distances, indices : ndarrays of shape (n, k)
        Ascending by distance.
    """
    dist, ind = np.hstack([a[0], b[0]]), np.hstack([a[1], b[1]])
    dist = np.where(ind < 0, np.inf, dist)
    order = np.lexsort((dist, ind), axis=-1)  # by index, then distance
    ind, dist = np.take_along_axis(ind, order, axis=1), np.take_along_axis(dist, order, axis=1)
    dup = np.zeros(ind.shape, dtype=bool)
    dup[:, 1:] = ind[:, 1:] == ind[:, :-1]
    dist[dup] = np.inf
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)



#: Numbers per block of pairwise differences formed by :func:`exact_sq_distances` (and
#: the exact fallback of ``nearest_by_exact_distance``): 2 MiB of float64, which stays in cache;
#: much larger blocks cost page faults on the first call of a process and cache misses
#: on later ones.
DIFF_BLOCK = 2**18


def exact_sq_distances(Z, ind, chunk_size=4096):
    """Squared distances ``||z_i - z_ind[i, j]||^2`` of each row to its listed points.

    In float64, from differences for dense Z (each pair's value does not depend on
    its position or on the chunking), pair by pair from ``||a||^2 + ||b||^2 - 2 a.b``
    for sparse Z.

    Parameters
    ----------
    Z : {ndarray, sparse matrix} of shape (n, d)
        The points.
    ind : ndarray of shape (n, m)
        Each row's points, -1 for padding.
    chunk_size : int, default=4096
        Rows per block (dense Z: fewer, so that a block holds at most
        :data:`DIFF_BLOCK` differences).

    Returns
    -------
    d2 : ndarray of shape (n, m)
        inf where ``ind < 0``.
    """
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
        chunk_size = max(1, min(chunk_size, DIFF_BLOCK // max(m * Z.shape[1], 1)))
        for start in range(0, n, chunk_size):
            sl = slice(start, min(start + chunk_size, n))
            diff = Z[safe[sl]] - Z[sl][:, None, :]
            d2[sl] = np.einsum("ijk,ijk->ij", diff, diff)
    d2[pad] = np.inf
    return d2
