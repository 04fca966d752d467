"""The memory cost blocks of graphs and eigensolvers, for the selectors' ``_memory_terms``.

The companions of :mod:`ufsel.utils._memory` (which sums the terms and checks them)
for the costs that depend on how :mod:`ufsel.graph` builds a graph: the k-NN search
and graph, the anchor graph, the spectral step, local learning. The decisions are the
fit's own: the search is :func:`ufsel.graph.plan_search`'s plan and the graph
:func:`ufsel.graph.resolve_graph`'s choice, asked with the data's shape.
"""

from __future__ import annotations

from ..linalg import DENSE_EIGH_MAX
from ..utils._memory import (
    ClusterCost,
    DataShape,
    WorkerCost,
    local_terms,
    ridge_term,
    rows_term,
    square_term,
)
from ._affinity import BANDWIDTH_SAMPLE_SIZE
from ._anchor import BLOCK_ROWS, SAMPLE_PER_ANCHOR, resolve_graph
from ._embedding import PCA_COMPONENTS
from ._knn import plan_search

__all__ = ["anchor_terms", "eigen_terms", "graph_terms", "knn_terms", "local_learning_terms",
           "spectral_terms"]

_F8 = 8  # bytes of a float64 or an int64


def knn_terms(shape, n_neighbors, *, algorithm="auto", weight="heat"):
    """The k-NN search and the sparse graph of :func:`ufsel.graph.knn_affinity`.

    The search is the one :func:`ufsel.graph.plan_search` plans for this shape (the
    plan the fit runs): its peak (a k-d tree, blocks of brute-force distances and the
    sparse products behind them, or an approximate index) is the plan's
    ``peak_bytes``. A heat kernel adds the distances its bandwidth is estimated from
    (at most 3,000 samples). The graph holds each sample's neighbours and distances
    and the symmetric sparse affinity, with the copies its construction makes.

    Parameters
    ----------
    shape : DataShape
        The data searched (a dask shape is planned as the array in memory).
    n_neighbors : int
    algorithm : str, default="auto"
        The selector's ``neighbors_algorithm``.
    weight : {"heat", "binary", "cosine"} or None, default="heat"
        The affinity's weights (None: the neighbours only, no kernel).

    Returns
    -------
    terms : dict of str -> int
    """
    n, k = shape.n, n_neighbors
    plan = plan_search(n, shape.d, k=k, sparse=shape.sparse, nnz=shape.nnz,
                       shared_features=shape.shared_features, algorithm=algorithm,
                       metric="cosine" if weight == "cosine" else "euclidean")
    terms = {plan.what: plan.peak_bytes}
    if weight == "heat":
        m = min(n, BANDWIDTH_SAMPLE_SIZE)
        terms["the heat-kernel bandwidth's distances"] = m * m * _F8
    terms[f"the {n}-sample k-NN graph"] = 160 * n * (k + 1)
    return terms


def anchor_terms(shape, n_anchors, n_neighbors):
    """The anchor graph (:func:`ufsel.graph.anchor_graph`).

    The client holds the m dense landmarks in d dimensions and the k-means sample
    they come from, the m x m and m x d reductions and their eigenvectors. Each block
    of rows (a dask chunk on a worker) adds its distances to the landmarks, formed
    ``BLOCK_ROWS`` rows at a time, and its rows of the sparse n x m graph Z; in memory
    Z is kept whole, on dask each chunk's weights are persisted on its worker.

    Parameters
    ----------
    shape : DataShape
    n_anchors : int
        Landmarks m.
    n_neighbors : int
        Landmarks per sample s.

    Returns
    -------
    terms : dict of str -> int
    """
    n, d = shape.n, shape.d
    m = min(n_anchors, n)
    s = min(n_neighbors, m)
    sample = min(n, SAMPLE_PER_ANCHOR * m)
    # the k-means sample stays sparse for sparse X (12 bytes per stored entry)
    sample_bytes = sample * (shape.nnz / max(n, 1) * 12 if shape.sparse else d * _F8)
    client = int(sample_bytes) + 4 * m * d * _F8 + 20 * m * m * _F8
    block = min(shape.chunk, BLOCK_ROWS) * m * 3 * _F8
    terms = {f"the {m} landmarks, their k-means sample and the m x m reductions": client}
    if shape.dask:
        terms[WorkerCost(f"a chunk's distances to the {m} landmarks and its reductions")] = (
            block + 2 * m * (m + d) * _F8)
        terms.update(rows_term(shape, f"the {{rows}} x {m} rows of the anchor graph",
                               s * 3 * _F8))
        terms[ClusterCost(f"the {n} x {s} anchor weights persisted on the workers")] = (
            n * 2 * s * _F8)
    else:
        terms[f"the {min(n, BLOCK_ROWS)} x {m} block of landmark distances"] = block
        terms[f"the {n} x {m} anchor graph"] = n * (s + 1) * 3 * _F8
    return terms


def graph_terms(shape, estimator):
    """:func:`knn_terms` or :func:`anchor_terms`, whichever graph the estimator's ``graph``
    parameter resolves to for this data (:func:`ufsel.graph.resolve_graph`, as in the fit).

    Parameters
    ----------
    shape : DataShape
    estimator : BaseSelector
        Read for ``graph``, ``n_neighbors``, ``n_anchors``, ``neighbors_algorithm`` and
        ``weight``.

    Returns
    -------
    terms : dict of str -> int
    """
    params = estimator.get_params(deep=False)
    k = params.get("n_neighbors") or 5
    resolved = _resolved_graph(shape, estimator)
    if resolved == "anchor":
        return anchor_terms(shape, params.get("n_anchors", 1000), k)
    if resolved == "pca":  # the neighbours of a dense n x c embedding, not of X's rows
        c = int(min(params.get("n_components") or PCA_COMPONENTS, shape.n, shape.d))
        terms = {f"the {shape.n} x {c} PCA embedding and its solver's blocks":
                 shape.n * c * 8 * 3 + shape.d * (2 * c + 1) * 8}
        terms.update(knn_terms(DataShape(shape.n, c, None, 8, "dense", False), k,
                               algorithm=params.get("neighbors_algorithm", "auto"),
                               weight=params.get("weight", "binary")))
        return terms
    return knn_terms(shape, k, algorithm=params.get("neighbors_algorithm", "auto"),
                     weight=params.get("weight", "heat"))


def _resolved_graph(shape, estimator):
    """:func:`ufsel.graph.resolve_graph` for the estimator's ``graph`` on this shape."""
    graph = estimator.get_params(deep=False).get("graph", "knn")
    own = (graph,) if graph not in ("auto", "anchor") else ("knn",)
    return resolve_graph(graph, shape, neighbor_graphs=own)


def spectral_terms(shape, estimator, n_vectors, copies=3):
    """A graph and its ``n_vectors`` smallest eigenvectors (a spectral embedding).

    On the k-NN graph, :func:`knn_terms` and :func:`eigen_terms`; on the anchor graph,
    :func:`anchor_terms` (whose eigenproblem is m x m) and the n x ``n_vectors``
    embedding, whole in memory and one chunk per worker on dask.

    Parameters
    ----------
    shape : DataShape
    estimator : BaseSelector
        Read as in :func:`graph_terms`.
    n_vectors : int
        Eigenvectors.
    copies : int, default=3
        n x ``n_vectors`` arrays alive at once on the anchor graph (the embedding and
        the products it is formed from).

    Returns
    -------
    terms : dict of str -> int
    """
    terms = graph_terms(shape, estimator)
    if _resolved_graph(shape, estimator) == "anchor":
        return {**terms, **rows_term(shape, f"the {{rows}} x {n_vectors} embedding",
                                     copies * max(n_vectors, 1) * _F8)}
    return {**terms, **eigen_terms(shape.n, n_vectors)}


def eigen_terms(n, n_vectors):
    """The smallest eigenvectors of an n x n graph Laplacian: dense LAPACK (the n x n
    matrix, its eigenvectors and workspace) up to ``DENSE_EIGH_MAX`` nodes, a Krylov
    or LOBPCG block of a few times ``n_vectors`` columns above.

    Parameters
    ----------
    n : int
        Nodes.
    n_vectors : int
        Eigenvectors.

    Returns
    -------
    terms : dict of str -> int
    """
    if n <= DENSE_EIGH_MAX:  # the dense Laplacian and LAPACK's copy of it
        return square_term(n, 1.5, "dense eigendecomposition")
    return {f"the {n} x {n_vectors} eigenvector block": n * (4 * n_vectors + 40) * 3 * _F8}


def local_learning_terms(shape, n_neighbors, what):
    """A local-learning method (UDFS, RUFS): the neighbour search (no kernel), the
    per-sample blocks, the n x n matrix ``what`` assembled from them, and the ridge
    system of its regression.

    Parameters
    ----------
    shape : DataShape
    n_neighbors : int
    what : str
        The n x n matrix's name.

    Returns
    -------
    terms : dict of str -> int
    """
    return {**knn_terms(shape, n_neighbors, weight=None), **local_terms(shape, n_neighbors),
            **square_term(shape.n, 1, what), **ridge_term(shape, 3)}
