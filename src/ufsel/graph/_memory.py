"""The memory cost blocks of graphs and eigensolvers, for the selectors' ``_memory_terms``.

The companions of :mod:`ufsel.utils._memory` (which sums the terms and checks them)
for the costs that depend on how :mod:`ufsel.graph` builds a graph: the k-NN search
and graph, the anchor graph, the spectral step, local learning.
"""

from __future__ import annotations

import sklearn

from ..linalg import DENSE_EIGH_MAX
from ..utils._memory import _F8, local_terms, ridge_term, square_term
from ._anchor import ANCHOR_GRAPH_MIN_SAMPLES
from ._approximate import approximate_backend, backend_installed
from ._knn import APPROX_NEIGHBORS_MIN_FEATURES, APPROX_NEIGHBORS_MIN_SAMPLES

__all__ = ["anchor_terms", "eigen_terms", "graph_terms", "knn_terms", "local_learning_terms"]


def _search_rows(n):
    """Rows per block of scikit-learn's chunked distance computation (its
    ``working_memory``, 1 GiB by default), at least one."""
    working = sklearn.get_config()["working_memory"] * 2**20
    return max(1, min(n, int(working // (n * _F8))))


def knn_terms(shape, n_neighbors, *, algorithm="auto", weight="heat"):
    """The k-NN search and the sparse graph of :func:`ufsel.graph.knn_affinity`.

    On sparse X the exact search computes the distances of a block of rows to all n
    samples at a time (scikit-learn's ``working_memory`` per block, and as much again
    for the neighbour selection); on dense X scikit-learn's pairwise reductions work on
    small tiles, and in fewer than 16 dimensions a k-d tree is searched instead. A heat
    kernel adds the distances its bandwidth is estimated from (at most 3,000 samples).
    The approximate search (from 50,000 samples with a backend installed) holds an
    index of about one float32 copy of X. The graph holds each sample's neighbours and
    distances and the symmetric sparse affinity, with the copies its construction makes.
    """

    n, d, k = shape.n, shape.d, n_neighbors
    approx = algorithm in ("approximate", "hnsw", "nndescent") or (
        algorithm == "auto" and n >= APPROX_NEIGHBORS_MIN_SAMPLES
        and d > APPROX_NEIGHBORS_MIN_FEATURES and approximate_backend() is not None)
    terms = {}
    if approx:
        # pynndescent reads sparse rows as they are; faiss's HNSW needs dense float32
        nndescent = algorithm == "nndescent" or (
            algorithm != "hnsw" and shape.sparse and backend_installed("pynndescent"))
        size = shape.nnz * 12 if shape.sparse and nndescent else n * d * 4
        terms[f"the approximate {n}-sample neighbour index"] = 2 * size + n * 64 * _F8
    elif not shape.sparse and d < 16 and algorithm in ("auto", "exact", "kd_tree",
                                                       "ball_tree"):
        terms[f"the {n}-sample k-d tree"] = n * d * _F8 + n * 3 * _F8
    elif shape.sparse:
        rows = _search_rows(n)
        terms[f"the {n} x {n} k-NN search blocks"] = 2 * rows * n * _F8
    else:
        terms[f"the {n} x {n} k-NN search tiles"] = 2 * min(n, 256) * n * _F8
    if weight == "heat":
        m = min(n, 3000)
        terms["the heat-kernel bandwidth's distances"] = m * m * _F8
    terms[f"the {n}-sample k-NN graph"] = 160 * n * (k + 1)
    return terms


def anchor_terms(shape, n_anchors, n_neighbors):
    """The anchor graph (:func:`ufsel.graph.anchor_graph`): m dense landmarks in d
    dimensions (with k-means on a sample), each sample's s nearest landmarks, and the
    m x d product ``Z^T X``."""
    n, d = shape.n, shape.d
    m = min(n_anchors, n)
    return {f"the {n} x {m} anchor graph": n * (n_neighbors + 1) * 3 * _F8 + 4 * m * d * _F8
            + 20 * m * m * _F8}


def graph_terms(shape, estimator):
    """:func:`knn_terms` or :func:`anchor_terms`, whichever graph the estimator's ``graph``
    parameter resolves to for this data (see :func:`ufsel.graph.resolve_graph`)."""
    params = estimator.get_params(deep=False)
    graph = params.get("graph", "knn")
    k = params.get("n_neighbors") or 5
    if graph == "anchor" or shape.dask or (
            graph == "auto" and not shape.sparse and shape.n >= ANCHOR_GRAPH_MIN_SAMPLES):
        return anchor_terms(shape, params.get("n_anchors", 1000), k)
    return knn_terms(shape, k, algorithm=params.get("neighbors_algorithm", "auto"),
                     weight=params.get("weight", "heat"))


def eigen_terms(n, n_vectors):
    """The smallest eigenvectors of an n x n graph Laplacian: dense LAPACK (the n x n
    matrix, its eigenvectors and workspace) up to ``DENSE_EIGH_MAX`` nodes, a Krylov
    or LOBPCG block of a few times ``n_vectors`` columns above."""
    if n <= DENSE_EIGH_MAX:  # the dense Laplacian and LAPACK's copy of it
        return square_term(n, 1.5, "dense eigendecomposition")
    return {f"the {n} x {n_vectors} eigenvector block": n * (4 * n_vectors + 40) * 3 * _F8}


def local_learning_terms(shape, n_neighbors, what):
    """A local-learning method (UDFS, RUFS): the neighbour search (no kernel), the
    per-sample blocks, the n x n matrix ``what`` assembled from them, and the ridge
    system of its regression."""
    return {**knn_terms(shape, n_neighbors, weight=None), **local_terms(shape, n_neighbors),
            **square_term(shape.n, 1, what), **ridge_term(shape, 3)}
