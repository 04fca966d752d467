"""Laplacian Score (He, Cai, Niyogi, NIPS 2005)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ...base import BaseSelector
from ...graph import (
    GRAPHS,
    N_ANCHORS,
    NEIGHBORS_ALGORITHMS,
    SYMMETRIZE,
    WEIGHTS,
    anchor_graph,
    resolve_graph,
)
from ...graph._memory import graph_terms
from ...linalg import graph_quadratic, weighted_moments

__all__ = ["LaplacianScore", "laplacian_ratio", "laplacian_score"]

#: Score given to features that are constant on the graph (their Laplacian
#: score is 0/0); below every attainable ``1 - L_r`` (which lies in [-1, 1]).
CONSTANT_FEATURE_SCORE = -2.0


def laplacian_score(X, W):
    """The Laplacian score ``L_r`` of every feature (smaller is better).

    ``L_r = f~^T L f~ / f~^T D f~`` with ``f~ = f - (f^T D 1 / 1^T D 1) 1``
    (He et al. 2005, Eq. 5-7). Because ``L 1 = 0``, ``f~^T L f~ = f^T L f``,
    and ``f~^T D f~ = f^T D f - (d^T f)^2 / 1^T d``, so sparse X is never
    centred or densified. ``f^T W f`` comes from
    :func:`ufsel.linalg.graph_quadratic` (row-blocked; blockwise for a dask X),
    the D-moments from :func:`ufsel.linalg.weighted_moments`; all reductions
    accumulate in float64.

    Returns
    -------
    lr : ndarray of shape (n_features,)
        NaN for features that are constant on the graph (``f~^T D f~ = 0``).
    """
    deg = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    fWf = graph_quadratic(X, W)
    dTf, fDf = weighted_moments(X, deg)
    return laplacian_ratio(fDf - fWf, dTf, fDf, deg.sum())  # f^T L f = f^T D f - f^T W f


def laplacian_ratio(fLf, dTf, fDf, total_degree):
    """``L_r = f^T L f / (f^T D f - (d^T f)^2 / 1^T d)`` from the graph reductions.

    NaN where the denominator vanishes (features constant on the graph).
    """
    denom = fDf - dTf**2 / total_degree
    numer = fLf
    scale = np.maximum(np.abs(fDf), np.finfo(float).tiny)
    lr = np.full(fLf.shape[0], np.nan)
    ok = denom > 1e-12 * scale
    lr[ok] = numer[ok] / denom[ok]
    return lr


class LaplacianScore(BaseSelector):
    """Laplacian Score: the features that best preserve the k-NN graph's locality.

    Scores each feature by how smoothly it varies on a k-nearest-neighbour graph of
    the samples, relative to its graph-weighted variance (He, Cai and Niyogi, NIPS
    2005 [1]_). ``scores_`` is ``1 - L_r`` so that higher is better; the paper's
    values are in ``laplacian_scores_``.

    Sparse and dask input are supported; float32 input stays float32.

    Parameters
    ----------
    {n_features_to_select}
    n_neighbors : int, default=5
        Number of nearest neighbours of each sample in the k-NN graph (the sample
        itself excluded).
    weight : {"heat", "binary", "cosine"}, default="heat"
        Edge weights of the k-NN graph: the heat kernel, 1 (binary) or the cosine
        similarity.
    t : "mean", "median" or float, default="mean"
        Heat-kernel bandwidth.
    symmetrize : {"max", "mean", "min"}, default="max"
        How the k-NN graph is made symmetric (``"max"`` is the OR graph of Cai's
        ``constructW``).
    neighbors_algorithm : {"auto", "exact", "approximate", "brute", "kd_tree", \
"ball_tree"}, default="auto"
        Neighbour search, see :func:`ufsel.graph.knn_graph`.
    graph : {"auto", "knn", "anchor"}, default="auto"
        The sample graph: the k-NN graph, or the anchor graph of ``n_anchors``
        landmarks (:func:`ufsel.graph.anchor_graph`, linear in n_samples; each
        sample linked to its ``n_neighbors`` nearest landmarks; ``weight``, ``t``,
        ``symmetrize`` and ``neighbors_algorithm`` apply to the k-NN graph only).
        ``"auto"``: the anchor graph for a dask array and from
        ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES`` samples of dense X, the k-NN graph otherwise.
    n_anchors : int, default=1000
        Number of landmarks of the anchor graph (at most n_samples).
    random_state : int, RandomState or None, default=None
        Seeds the sample on which the bandwidth is estimated (n > 3000),
        the approximate neighbour search and the anchor graph's landmarks.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Score of each feature, higher is better.
    laplacian_scores_ : ndarray of shape (n_features,)
        The paper's ``L_r`` (smaller is better).
    {selector_attributes}

    See Also
    --------
    MaxVariance, MCFS

    Notes
    -----
    With ``S`` the k-NN affinity (heat kernel by default, Eq. 1 of [1]_),
    ``D = diag(S 1)`` and ``L = D - S``, feature f is scored by Eq. (7),
    ``L_r = f~^T L f~ / f~^T D f~``, with ``f~`` the feature minus its D-weighted mean
    (Eq. 6); smaller ``L_r`` is better. ``scores_`` holds ``1 - L_r``
    (``f~^T S f~ / f~^T D f~``, what Cai's ``LaplacianScore.m`` returns).

    **Interpretations**:

    - The graph follows Cai's ``constructW`` defaults (5 neighbours excluding the
      sample itself, heat kernel ``exp(-d^2 / (2 t^2))`` with t the mean pairwise
      distance, ``max(W, W^T)``); every choice is a parameter. Neighbours at equal
      distance go to the smaller index, as ``constructW``'s stable sort (see
      :func:`ufsel.graph.knn_affinity`).
    - Features constant on the graph (``f~^T D f~ = 0``; Cai's code sets the
      denominator to 10000 instead) get ``scores_ = -2``, below every attainable
      value, so they rank last; ``laplacian_scores_`` is NaN there.
    - Sparse X is never densified (see :func:`laplacian_score`); float32 input keeps
      float32 graph and products, with float64 accumulation of the per-feature sums.
    - ``neighbors_algorithm="auto"`` switches to approximate neighbours (NN-descent)
      from 50,000 samples when ``ufsel[ann]`` is installed; pass ``"exact"`` to
      forbid it.
    - On the anchor graph ``W = Z Lambda^{-1} Z^T`` every degree is one, and
      ``f^T L f`` comes from the m x d product ``Z^T X``: no n x n object.
      A dask array always gets it (``graph="knn"`` refuses one), in one blockwise
      pass after the landmarks' k-means on a row sample. See the scale guide,
      :doc:`/guide/sparse_large_dask`.

    See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] X. He, D. Cai, P. Niyogi. Laplacian Score for Feature Selection.
       NIPS 2005.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from ufsel import LaplacianScore
    >>> X, _ = load_wine(return_X_y=True)
    >>> sel = LaplacianScore(n_features_to_select=4).fit(X)
    >>> sel.transform(X).shape
    (178, 4)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "weight": [StrOptions(set(WEIGHTS))],
        "t": [StrOptions({"mean", "median"}), Interval(Real, 0, None, closed="neither")],
        "symmetrize": [StrOptions(set(SYMMETRIZE) - {"none"})],
        "neighbors_algorithm": [StrOptions(set(NEIGHBORS_ALGORITHMS))],
        "graph": [StrOptions(set(GRAPHS))],
        "n_anchors": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, *, n_neighbors=5, weight="heat", t="mean",
                 symmetrize="max", neighbors_algorithm="auto", graph="auto",
                 n_anchors=N_ANCHORS, random_state=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.symmetrize = symmetrize
        self.neighbors_algorithm = neighbors_algorithm
        self.graph = graph
        self.n_anchors = n_anchors
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.selector_tags.supports_dask = True
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        return {**super()._memory_terms(shape), **graph_terms(shape, self)}

    def _fit(self, X):
        rng = self._start_fit(X)
        if resolve_graph(self.graph, X) == "anchor":
            g = anchor_graph(X, self.n_anchors, self.n_neighbors, random_state=rng)
            lr = laplacian_ratio(g.laplacian_quadratic(), g.col_sum, g.col_sq, X.shape[0])
        else:
            lr = laplacian_score(X, self._knn_affinity(X, rng))
        self.laplacian_scores_ = lr
        return np.where(np.isnan(lr), CONSTANT_FEATURE_SCORE, 1.0 - lr)
