"""MCFS: Multi-Cluster Feature Selection (Cai, Zhang, He, KDD 2010)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ...base import BaseSelector, ranking_from_scores
from ...graph import (
    EIGEN_SOLVERS,
    GRAPHS,
    N_ANCHORS,
    NEIGHBORS_ALGORITHMS,
    SYMMETRIZE,
    WEIGHTS,
    anchor_graph,
    determined_spectral_embedding,
    resolve_graph,
)
from ...graph._memory import spectral_terms
from ...linalg import gram_matrix, lars_at_cardinalities, transpose_dot
from ...utils import get_config
from ...utils._memory import gram_term

__all__ = ["MCFS", "mcfs_scores"]


def mcfs_scores(X, Y, counts, *, ridge=1e-3, owner="MCFS", XtY=None, weights=None):
    """MCFS feature scores for each cardinality in ``counts``, from one LARS path per eigenvector.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, K)
        Spectral embedding (the K responses of the regressions, Eq. 3).
    counts : sequence of int
        Cardinalities ``d`` of the LASSO solutions (Eq. 4).
    ridge : float
        Added to the Gram matrix diagonal (Cai's ``RidgeAlpha``).
    owner : str
        Name used in error messages.
    XtY : ndarray of shape (n_features, K), optional
        ``X^T Y`` when the caller has it (the anchor graph's, from its m x d
        reduction); computed from X and Y otherwise.
    weights : ndarray of shape (K,), optional
        Factors of the eigenvectors' votes: ``scores[i, j] = max_k weights[k]
        |a_{k,j}|`` (the anchor graph's ``1 - lambda_k``); None: all one (Eq. 5).

    Returns
    -------
    scores : ndarray of shape (len(counts), n_features)
        ``scores[i, j] = max_k |a_{k,j}|`` for cardinality ``counts[i]``, with
        each ``a_k`` normalised to unit L2 norm (times ``weights[k]``).
    entry_step : ndarray of shape (n_features,)
        Earliest LARS step (over all K paths) at which each feature entered;
        used to order features whose score is 0.
    """
    n, d = X.shape
    # dense and wide: the Gram matrix is used through X (push-through), never formed,
    # when forming it (n d^2 flops) costs more than the K paths' extra products through
    # X (about n d per step, up to max(counts) steps a path), or it would not fit
    implicit = isinstance(X, np.ndarray) and d > n and (
        d >= Y.shape[1] * max(counts) or 8 * d * d > get_config()["max_gram_bytes"])
    if implicit:
        G = None
    else:
        G = gram_matrix(X, owner=owner)
        G[np.diag_indices_from(G)] += ridge
    if XtY is None:
        XtY = transpose_dot(X, Y)
    scores = np.zeros((len(counts), X.shape[1]))
    entry = np.full(X.shape[1], np.inf)
    for k in range(Y.shape[1]):
        coefs, entry_k = lars_at_cardinalities(G, XtY[:, k], n, counts,
                                               X=X if implicit else None, ridge=ridge)
        norms = np.linalg.norm(coefs, axis=1, keepdims=True)
        np.divide(coefs, norms, out=coefs, where=norms > 0)
        votes = np.abs(coefs) if weights is None else weights[k] * np.abs(coefs)
        np.maximum(scores, votes, out=scores)
        np.minimum(entry, entry_k, out=entry)
    return scores, entry


class MCFS(BaseSelector):
    """Multi-Cluster Feature Selection (MCFS).

    Embeds the samples with the K smallest non-trivial eigenvectors of a k-NN graph
    Laplacian, regresses each eigenvector on the features with a LASSO of fixed
    cardinality and scores each feature by its largest absolute coefficient over the
    K regressions (Cai, Zhang and He, KDD 2010 [1]_).

    Sparse and dask input are supported; for sparse, dask or dense input with
    n_samples >= n_features the LARS step needs the dense d x d Gram matrix
    ``X^T X`` and raises a ValueError when it exceeds
    ``max_gram_bytes`` (:func:`ufsel.set_config`; reduce the features first, e.g. with
    :class:`MaxVariance`).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        d, the number of features to select (int), a fraction of the features
        (float in (0, 1]), or None for half of them.
    n_clusters : int, default=5
        K, the number of eigenvectors (the number of clusters). The reference
        code's default is 5; the paper's experiments use the number of classes.
    n_neighbors : int, default=5
        p, the graph's neighbourhood size.
    weight : {"binary", "heat", "cosine"}, default="binary"
        Graph weighting (Section 3.1). The paper's experiments use binary;
        Cai's ``constructW`` defaults to the heat kernel.
    t : "mean", "median" or float, default="mean"
        Heat-kernel bandwidth (only for ``weight="heat"``).
    symmetrize : {"max", "mean", "min"}, default="max"
        How the k-NN graph is made symmetric (``max`` is the OR graph of
        ``constructW``).
    ridge : float, default=1e-3
        Ridge term of the LARS regressions.
    eigen_solver : {"auto", "dense", "arpack", "lobpcg", "amg"}, default="auto"
        See :func:`ufsel.graph.spectral_embedding`.
    neighbors_algorithm : {"auto", "exact", "approximate", "brute", "kd_tree", \
"ball_tree"}, default="auto"
        Neighbour search, see :func:`ufsel.graph.knn_graph`.
    graph : {"auto", "knn", "anchor"}, default="auto"
        The sample graph: the k-NN graph, or the anchor graph of ``n_anchors``
        landmarks (:func:`ufsel.graph.anchor_graph`, linear in n_samples; each
        sample linked to its ``n_neighbors`` nearest landmarks; ``weight``, ``t``,
        ``symmetrize``, ``eigen_solver`` and ``neighbors_algorithm`` apply to the
        k-NN graph only). ``"auto"``: the anchor graph for a dask array and from
        ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES`` samples of dense X, the k-NN graph otherwise.
    n_anchors : int, default=1000
        Number of landmarks of the anchor graph (at most n_samples).
    random_state : int, RandomState or None, default=None
        Seeds the eigensolver's start vector, the bandwidth sample, the
        approximate neighbour search and the anchor graph's landmarks.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``max_k |a_{k,j}|`` for d = ``n_features_to_select_``.
    embedding_ : ndarray or dask array of shape (n_samples, n_clusters)
        The spectral embedding Y (a lazy dask array, chunked like X, for a dask X).
        On a k-NN graph with more connected components than
        ``n_clusters + 1`` it has one column per component beyond the first: the
        whole eigenspace of lambda = 0, whose subset an eigensolver would pick by
        round-off, in the basis of :func:`ufsel.graph.canonical_embedding` (scaled by
        a power of two and rounded to 30 bits; the rankings do not depend on the
        scale).
    {selector_attributes}

    See Also
    --------
    LaplacianScore, MaxVariance

    Notes
    -----
    **Algorithm** (Table 1 of [1]_), with d the number of features to select:

    1. Build a p-nearest-neighbour graph W (Section 3.1; p = 5 with binary weights in
       the paper's experiments).
    2. Solve ``L y = lambda D y`` (Eq. 1), ``L = D - W``, and keep
       ``Y = [y_1, ..., y_K]``, the eigenvectors of the K smallest non-trivial
       eigenvalues.
    3. For each ``y_k`` solve ``min ||y_k - X a_k||^2 + beta |a_k|`` (Eq. 3) by LARS,
       stopped when ``a_k`` has d non-zero coefficients (the cardinality constraint
       ``|a_k| = d`` of Eq. 4).
    4. Score feature j by ``MCFS(j) = max_k |a_{k,j}|`` (Eq. 5).

    **Interpretations** where the paper is silent (all follow Cai's ``MCFS_p.m``):

    - With the heat kernel and an estimated bandwidth, neighbours at equal distance go
      to the smaller index, as ``constructW``'s stable sort.
    - The trivial constant eigenvector is dropped, as ``Eigenmap.m`` does; on a
      disconnected graph only the constant direction is removed. With more connected
      components than ``n_clusters + 1`` the embedding is the whole null space of L,
      in the basis of :func:`ufsel.graph.canonical_embedding`, so that it depends on
      the graph only.
    - The regressions use ``X^T X + ridge I`` (``SR.m``'s ``RidgeAlpha``) and the LASSO
      variant of LARS (variables can leave the active set); for cardinality d the
      last path step with exactly d non-zeros is taken.
    - Each ``a_k`` is scaled to unit L2 norm before the maximum (``SR.m``), and the
      score takes the absolute value, as Eq. (5) does.
    - X is used as given, neither centred nor normalised (Cai's demos row-normalise
      beforehand: put :class:`sklearn.preprocessing.Normalizer` in a pipeline).
    - On the anchor graph each eigenvector's vote is weighted by ``1 - lambda_k``
      (``sigma_k^2``, the part of ``y_k`` that one step of ``W`` keeps):
      ``MCFS(j) = max_k (1 - lambda_k) |a_{k,j}|``. With c well-separated clusters
      only c - 1 non-trivial eigenvectors carry them; with K = c the last one lies in
      the anchor graph's bulk (``lambda`` near 0.65 on
      :func:`ufsel.datasets.make_planted`, against 0 for the cluster eigenvectors),
      and its unit-norm LARS coefficients on noise features would outvote the
      planted ones (``benchmarks/studies/mcfs_anchor_planted.md``). On the k-NN
      graph every vote weighs one, as in Eq. (5).
    - Features with score 0 are ranked after all others, by the LARS step at which
      they first entered any path, then by index.
    - The scores depend on d: ``scores_`` are those for ``n_features_to_select_``.
      :meth:`fit_rankings` returns the rankings for several d from one LARS path per
      eigenvector.

    Cost: one sparse k-NN graph, a partial eigensolver for K + 1 eigenpairs
    (O(nnz) per product), one d x d Gram matrix (O(n d^2)) and K LARS paths on it;
    no dense n x n matrix. For dense data with d > n the Gram matrix is not formed
    when d >= K max(counts) (forming it would cost more than the paths save with it)
    or when it exceeds ``max_gram_bytes`` (:func:`ufsel.set_config`):
    the paths use ``X^T (X_A w) + ridge w`` for its active columns (push-through),
    O(n (d + a) + a^2) per LARS step with ``a`` active features, and the active
    block's Cholesky factor is updated by one row per step, as with the formed
    Gram matrix. Input is computed in float64 (the LARS path is sensitive to
    rounding). On the anchor graph (``graph="anchor"``, and ``"auto"`` for a dask
    array or from ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES`` samples) the
    embedding is LSC's: an m x m eigenproblem, and ``X^T Y`` from the m x d
    product ``Z^T X``; a dask array is read in two blockwise passes (``X^T X``,
    and the anchor graph's reductions) after the landmarks' k-means on a row
    sample, and no n x n object is formed. See :doc:`/guide/sparse_large_dask`.
    How the default compares with Cai's code is in the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__;
    the Isolet reproduction is in :doc:`/guide/reproducing_papers`.

    References
    ----------
    .. [1] D. Cai, C. Zhang, X. He. Unsupervised feature selection for
       multi-cluster data. KDD 2010.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from ufsel import MCFS
    >>> X, _ = load_digits(return_X_y=True)
    >>> sel = MCFS(n_features_to_select=10, n_clusters=10, random_state=0).fit(X)
    >>> sel.transform(X).shape
    (1797, 10)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "weight": [StrOptions(set(WEIGHTS))],
        "t": [StrOptions({"mean", "median"}), Interval(Real, 0, None, closed="neither")],
        "symmetrize": [StrOptions(set(SYMMETRIZE) - {"none"})],
        "ridge": [Interval(Real, 0, None, closed="left")],
        "eigen_solver": [StrOptions(set(EIGEN_SOLVERS))],
        "neighbors_algorithm": [StrOptions(set(NEIGHBORS_ALGORITHMS))],
        "graph": [StrOptions(set(GRAPHS))],
        "n_anchors": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_neighbors=5,
                 weight="binary", t="mean", symmetrize="max", ridge=1e-3,
                 eigen_solver="auto", neighbors_algorithm="auto", graph="auto",
                 n_anchors=N_ANCHORS, random_state=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.symmetrize = symmetrize
        self.ridge = ridge
        self.eigen_solver = eigen_solver
        self.neighbors_algorithm = neighbors_algorithm
        self.graph = graph
        self.n_anchors = n_anchors
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_depend_on_count = True
        tags.selector_tags.supports_dask = True
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        terms = {**super()._memory_terms(shape), **spectral_terms(shape, self, self.n_clusters)}
        if shape.sparse or shape.dask or shape.d <= shape.n:  # (dense wide: through X)
            terms.update(gram_term(shape.d, 2))
        return terms

    def _embed(self, X):
        """``mcfs_scores``' inputs: the spectral embedding Y, and ``X^T Y`` and the
        eigenvectors' weights (both None on the k-NN graph)."""
        rng = self._start_fit(X)
        if resolve_graph(self.graph, X) == "anchor":
            g = anchor_graph(X, self.n_anchors, self.n_neighbors, random_state=rng)
            C, lambdas = g.spectral_coefficients(self.n_clusters)
            self.embedding_ = g.embed(C)
            return {"Y": self.embedding_, "XtY": g.transpose_dot_embedding(C),
                    "weights": 1.0 - lambdas}
        W = self._knn_affinity(X, rng)
        # the whole eigenspace of lambda = 0 when the graph has more components than that
        self.embedding_ = determined_spectral_embedding(W, self.n_clusters,
                                                        eigen_solver=self.eigen_solver,
                                                        random_state=rng)
        return {"Y": self.embedding_, "XtY": None, "weights": None}

    def _fit(self, X):
        scores, entry = mcfs_scores(X, counts=[self.n_features_to_select_], ridge=self.ridge,
                                    **self._embed(X))
        return scores[0], entry

    def _fit_rankings(self, X, counts):
        scores, entry = mcfs_scores(X, counts=counts, ridge=self.ridge, **self._embed(X))
        self._set_scores(scores[-1], entry, X=X)
        return {k: ranking_from_scores(s, entry) for k, s in zip(counts, scores)}
