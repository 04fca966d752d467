"""NDFS: Nonnegative Discriminative Feature Selection (Li et al., AAAI 2012)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import (
    CLUSTER_GRAPH_CONSTRAINTS,
    ITERATIVE_CONSTRAINTS,
    ObjectiveTracker,
    safeguarded_multiplicative,
)
from ...base import BaseSelector, NumericalError
from ...graph import (
    GRAPHS,
    N_ANCHORS,
    WEIGHTS,
    anchor_graph,
    determined_spectral_embedding,
    graph_laplacian,
    resolve_graph,
)
from ...graph._memory import spectral_terms
from ...linalg import (
    KMEANS_SAMPLE_ROWS,
    gram_matrix,
    kmeans_indicator,
    l2p_norm,
    l2p_reweight,
    pos_neg_parts,
    weighted_ridge,
)
from ...utils import compute_floats, is_dask_array, persist_dask
from ...utils._memory import ridge_term, rows_term

__all__ = ["NDFS", "ndfs_laplacian", "ndfs_objective"]

_EPS = 2.220446049250313e-16


def ndfs_laplacian(W, *, normed=True):
    """The graph Laplacian of NDFS: ``L = D - W``, or ``D^{-1/2} (D - W) D^{-1/2}`` when ``normed``.

    ``D = diag(W 1)`` is the degree *matrix*: ``L_ij = D_ii [i = j] - W_ij``,
    symmetric whenever W is. (scikit-feature's port computes
    ``W.sum(1)[:, 0] - W``, which broadcasts the degree vector along rows:
    ``L_ij = d_j - W_ij``, neither symmetric nor a Laplacian.)

    Returns
    -------
    L : scipy.sparse.csr_matrix, symmetric
    """
    L = graph_laplacian(sparse.csr_matrix(W), normed=normed)
    return (0.5 * (L + L.T)).tocsr()


def ndfs_objective(X, F, W, L, alpha, beta, gamma, eps=_EPS, *, XW=None):
    """NDFS objective with the orthogonality of F relaxed into a penalty::

        Tr(F^T L F) + alpha (||X W - F||_F^2 + beta ||W||_{2,1}) + gamma/2 ||F^T F - I||_F^2

    X is n x d (samples in rows), F n x c, W d x c (X, F and ``XW`` may be dask
    arrays, F chunked like X, and L an operator on them); the l2,1 norm is
    smoothed by ``eps`` as in the reweighting. ``XW`` may pass a precomputed ``X @ W``.
    The factor gamma/2 is the one for which the authors' F-update
    ``F * (gamma F) / (M F + gamma F F^T F)`` is the split-gradient rule (the
    authors' ``AAAI2012.m`` prints ``gamma/4 ||F^T F - I||^2`` as its
    objective, inconsistent with its own update; scikit-feature states gamma/2).
    """
    c = F.shape[1]
    R = (_dot(X, W) if XW is None else XW) - F
    O = F.T @ F - np.eye(c)
    # one pass over dask iterates for the three sums
    graph, fit, ortho = compute_floats(np.sum(F * (L @ F)), np.sum(R * R), np.sum(O * O))
    return graph + alpha * (fit + beta * l2p_norm(W, 1.0, eps)) + 0.5 * gamma * ortho


def _dot(X, W):
    """``X @ W``: an ndarray, or a lazy dask array chunked like a dask X."""
    XW = X @ W
    return XW if is_dask_array(XW) else np.asarray(XW)


class NDFS(BaseSelector):
    """Nonnegative Discriminative Feature Selection (NDFS).

    Learns a non-negative, nearly orthogonal cluster indicator F by spectral
    clustering on a k-NN graph and, jointly, an l2,1-penalised regression W of F on
    the features (Li, Yang, Liu, Zhou and Lu, AAAI 2012 [1]_). Features are ranked
    by the squared row norms of W.

    Sparse input is never densified. A dask array is read through the anchor graph,
    block by block: F and ``X W`` stay dask arrays chunked like X, kept on the
    workers between iterations, and only d x d, d x c, m x c and c x c results come
    to memory.

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of columns of F.
    n_neighbors : int, default=5
        Number of nearest neighbours of each sample in the k-NN graph (the sample
        itself excluded).
    alpha : float, default=1.0
        Weight of the regression term.
    beta : float, default=1.0
        Weight of ``||W||_{2,1}`` inside the regression term.
    gamma : float, default=1e8
        Orthogonality penalty.
    laplacian : {"normalized", "unnormalized"}, default="normalized"
        L in the spectral term: ``D^{-1/2} (D - S) D^{-1/2}`` (FSASL's
        ``NDFS_iter``) or ``D - S``.
    weight : {"heat", "binary", "cosine"}, default="heat"
        Edge weights of the k-NN graph: the heat kernel, 1 (binary) or the cosine
        similarity.
    graph : {"auto", "knn", "anchor"}, default="auto"
        The sample graph: the k-NN graph, or the anchor graph of ``n_anchors``
        landmarks (:func:`ufsel.graph.anchor_graph`, linear in n_samples; each
        sample linked to its ``n_neighbors`` nearest landmarks; its degrees are all
        one, so both ``laplacian`` options give ``I - W``, applied through Z and
        never formed). ``"auto"``: the anchor graph for a dask array and from
        ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES`` samples of dense X, the k-NN graph
        otherwise.
    n_anchors : int, default=1000
        Number of landmarks of the anchor graph (at most n_samples).
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-4
        Relative change of ``objective_`` at which the iterations stop.
    random_state : int, RandomState or None, default=None
        Seeds k-means and the eigensolver.
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^i||^2``.
    W_ : ndarray of shape (n_features, n_clusters)
    F_ : ndarray or dask array of shape (n_samples, n_clusters)
        The non-negative cluster indicator (a dask array chunked like X for a dask X).
    objective_ : ndarray of shape (`n_iter_`,)
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    UDFS, JELSR, RUFS

    Notes
    -----
    **Objective**, with the orthogonality of F relaxed into a penalty::

        min_{F >= 0, W}  Tr(F^T L F) + alpha (||X W - F||_F^2 + beta ||W||_{2,1})
                         + (gamma / 2) ||F^T F - I||_F^2

    **Updates**, alternated until the relative change of ``objective_`` falls below
    ``tol``:

    - ``W = (X^T X + beta D)^{-1} X^T F``, ``D_ii = 1 / (2 ||w^i||)``;
    - ``F <- F * (gamma F) / (M F + gamma F F^T F)`` with
      ``M = L + alpha (I - X (X^T X + beta D)^{-1} X^T)`` (W substituted).

    The objective and both updates follow the first author's code ``AAAI2012.m``
    (distributed in AutoUFSTool and in FSASL's ``fs_unsup_ndfs``) and agree with
    scikit-feature's statement of the objective; the equation numbers of the paper
    are not quoted because its text was not available for checking.

    **Interpretations**:

    - L is the normalised Laplacian ``D^{-1/2} (D - S) D^{-1/2}`` of a k-NN
      heat-kernel graph, as FSASL's ``NDFS_iter``; ``laplacian="unnormalized"`` gives
      ``D - S`` (:func:`ndfs_laplacian`).
    - ``M F`` is applied without forming the n x n matrix M:
      ``M F = L F + alpha (F - X W)``, W from the d x d system when d <= n and from
      the n x n push-through form otherwise (:func:`ufsel.linalg.weighted_ridge`).
    - The authors' F-rule divides by ``M F``, which can have negative entries. To keep
      F non-negative, numerator and denominator are the negative and positive parts
      of the gradient: ``F <- F * (gamma F + L^- F + alpha (XW)^+) /
      (gamma F F^T F + L^+ F + alpha F + alpha (XW)^-)`` with ``L = L^+ - L^-``
      (diagonal and off-diagonal). Both rules have the same fixed points.
    - Initialisation (not in the authors' iteration code): F is the scaled indicator
      of k-means (10 restarts) on the spectral embedding of the same graph, plus 0.2
      times its mean non-zero entry so that the multiplicative updates can move every
      entry; D = I. On a graph with more connected components than
      ``n_clusters + 1`` the embedding is the whole null space of the Laplacian, in
      the basis of :func:`ufsel.graph.canonical_embedding`, so the start depends on the
      graph only. On the anchor graph the embedding is LSC's
      (:meth:`ufsel.graph.AnchorGraph.spectral_coefficients`), and above
      ``ufsel.linalg.KMEANS_SAMPLE_ROWS`` samples k-means runs on a seeded sample of
      its rows, every row then taking its nearest centre.
    - Defaults follow FSASL: alpha = beta = 1, gamma = 1e8, k = 5, heat kernel with
      Cai's mean-distance bandwidth. The per-iteration column normalisation of F in
      ``AAAI2012.m`` is not applied: it is no step of the stated objective and breaks
      its monotone decrease.
    - ``objective_`` is the full objective at the end of each iteration (F updated, W
      from the previous F).

    See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] Z. Li, Y. Yang, J. Liu, X. Zhou, H. Lu. Unsupervised feature
       selection using nonnegative spectral analysis. AAAI 2012.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from ufsel import NDFS
    >>> X, _ = load_digits(return_X_y=True)
    >>> NDFS(n_features_to_select=10, n_clusters=10, random_state=0).fit(X).transform(X).shape
    (1797, 10)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        **CLUSTER_GRAPH_CONSTRAINTS,
        **ITERATIVE_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "laplacian": [StrOptions({"normalized", "unnormalized"})],
        "weight": [StrOptions(set(WEIGHTS))],
        "graph": [StrOptions(set(GRAPHS))],
        "n_anchors": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_neighbors=5, alpha=1.0,
                 beta=1.0, gamma=1e8, laplacian="normalized", weight="heat", graph="auto",
                 n_anchors=N_ANCHORS, max_iter=100, tol=1e-4, random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.laplacian = laplacian
        self.weight = weight
        self.graph = graph
        self.n_anchors = n_anchors
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.supports_dask = True
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        c = self.n_clusters
        return {**super()._memory_terms(shape), **spectral_terms(shape, self, c),
                **ridge_term(shape, 2),
                **rows_term(shape, f"the {{rows}} x {c} embedding and cluster indicator",
                            6 * c * 8, persisted=True)}

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        rng = self._start_fit(X)
        if resolve_graph(self.graph, X) == "anchor":
            ag = anchor_graph(X, self.n_anchors, self.n_neighbors, random_state=rng)
            L, Lpos, Lneg = ag.laplacian_operators()
            Y = ag.embed(ag.spectral_coefficients(self.n_clusters)[0])
            F = kmeans_indicator(Y, self.n_clusters, random_state=rng,
                                 sample_rows=KMEANS_SAMPLE_ROWS)
        else:
            S = self._knn_affinity(X, rng)
            L = ndfs_laplacian(S, normed=self.laplacian == "normalized")
            Lpos = sparse.diags(L.diagonal())
            Lneg = Lpos - L  # off-diagonal part, non-negative
            # the whole eigenspace of lambda = 0 when the graph has more components than that
            Y = determined_spectral_embedding(S, self.n_clusters, random_state=rng)
            F = kmeans_indicator(Y, self.n_clusters, random_state=rng)
        a, b, gam = self.alpha, self.beta, self.gamma
        gram = gram_matrix(X, owner=name) if d <= n else None
        g = np.ones(d)
        track = ObjectiveTracker(name, self.max_iter, self.tol, "alpha, beta or gamma", verbose=self.verbose)
        for _ in range(self.max_iter):
            W = weighted_ridge(X, F, b * g, gram=gram, owner=name)
            # for a dask X, the n x c iterates are kept on the workers between the steps
            (XW,) = persist_dask(_dot(X, W))
            XWp, XWn = pos_neg_parts(XW)
            num = gam * F + Lneg @ F + a * XWp
            den = gam * (F @ (F.T @ F)) + Lpos @ F + a * F + a * XWn
            (ratio,) = persist_dask((num + _EPS) / (den + _EPS))
            if not np.all(np.isfinite(ratio)):
                raise NumericalError(f"{name}: F became non-finite. Lower gamma or alpha.")

            def objective(Fc, W=W, XW=XW):
                return ndfs_objective(X, Fc, W, L, a, b, gam, XW=XW)

            F, value = safeguarded_multiplicative(F, ratio, objective, objective(F))
            (F,) = persist_dask(F)
            g = l2p_reweight(W, 1.0, _EPS)
            if track.append(value):
                break
        self.objective_ = track.finish()
        self.n_iter_ = track.n_iter
        self.W_, self.F_ = W, F
        return np.einsum("ij,ij->i", W, W)
