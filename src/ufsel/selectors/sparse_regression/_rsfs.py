"""RSFS: Robust Spectral learning for unsupervised Feature Selection (Shi, Du, Shen, ICDM 2014)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import CLUSTER_GRAPH_CONSTRAINTS, ITERATIVE_CONSTRAINTS, ObjectiveTracker
from ...base import BaseSelector, densify
from ...graph import (
    N_ANCHORS,
    anchor_graph,
    determined_spectral_embedding,
    local_kernel_regression_weights,
    local_learning_laplacian,
    resolve_graph,
)
from ...graph._memory import graph_terms
from ...linalg import (
    KMEANS_SAMPLE_ROWS,
    gram_matrix,
    indicator_blocks,
    kmeans_labels,
    l2p_norm,
    l2p_reweight,
    label_counts,
    multiplicative_update,
    pos_neg_parts,
    ridge_solve,
    soft_threshold,
)
from ...utils import compute_floats, is_dask_array, persist_dask
from ...utils._memory import dense_copy_term, densified, ridge_term, rows_term

__all__ = [
    "RSFS",
    "rsfs_objective",
    "rsfs_w_step",
    "rsfs_z_step",
    "rsfs_f_step",
    "rsfs_init_indicator",
]

#: RSFS's own neighbourhood graphs, the paper's first (``graph="auto"`` below the
#: anchor graph's threshold).
_NEIGHBOR_GRAPHS = ("local_kernel", "heat")
#: sigma of footnote 1: ``D_ii = 1 / (2 sqrt(||w_i||^2 + sigma))``.
_SIGMA = 2.220446049250313e-16


def rsfs_objective(X, M, F, W, Z, alpha, beta, gamma, nu=0.0, *, sigma=0.0, XW=None):
    """The RSFS objective, Eq. (8), plus the orthogonality penalty of Eq. (15).

    ``Tr(F^T M F) + alpha ||(F - Z) - X W||_F^2 + beta ||W||_{2,1}
    + gamma ||Z||_1 + (nu / 2) ||F^T F - I||_F^2``

    (samples in rows: the paper's ``X^T W`` is ``X @ W`` here). With
    ``nu = 0`` this is Eq. (8) itself, whose constraint ``F^T F = I`` the
    algorithm only enforces through the penalty. ``sigma > 0`` gives the
    smoothed ``sum_i sqrt(||w_i||^2 + sigma)`` that the reweighted W-step
    minimises (footnote 1).

    Parameters
    ----------
    X : {ndarray, dask array} of shape (n_samples, n_features)
        The data.
    M : sparse matrix, ndarray or operator of shape (n_samples, n_samples)
        The graph Laplacian (anything with ``M @ F``).
    F, Z : {ndarray, dask array} of shape (n_samples, n_clusters)
        The indicator and the noise (dask arrays chunked like a dask X).
    W : ndarray of shape (n_features, n_clusters)
        The coefficients.
    alpha, beta, gamma, nu, sigma : float
        The weights of Eq. (8), the orthogonality penalty and the smoothing of
        the l2,1 norm.
    XW : {ndarray, dask array} of shape (n_samples, n_clusters), optional
        ``X @ W`` if already computed.

    Returns
    -------
    value : float
    """
    c = F.shape[1]
    R = F - Z - (X @ W if XW is None else XW)
    # one pass over dask iterates for the four sums
    graph, fit, ortho, l1 = compute_floats(np.sum(F * (M @ F)), np.sum(R**2),
                                           np.sum((F.T @ F - np.eye(c)) ** 2), np.abs(Z).sum())
    return (graph + alpha * fit + beta * l2p_norm(W, 1.0, sigma)
            + gamma * l1 + 0.5 * nu * ortho)


def rsfs_w_step(X, F, Z, d, alpha, beta, *, gram=None, method="auto"):
    """W-step, Eq. (11): ``W = (X^T X + (beta/alpha) D)^{-1} X^T (F - Z)``.

    The d x d system is replaced by the n x n push-through form
    ``W = G^{-1} X^T (I + X G^{-1} X^T)^{-1} (F - Z)``, ``G = (beta/alpha) D``,
    when d > n (:func:`ufsel.linalg.ridge_solve`).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    F, Z : ndarray of shape (n_samples, n_clusters)
    d : ndarray of shape (n_features,)
        Diagonal of D (footnote 1).
    gram : ndarray of shape (n_features, n_features), optional
        Precomputed ``X^T X``.
    method : {"auto", "primal", "push_through"}
    """
    return ridge_solve(X, F - Z, (beta / alpha) * d, gram=gram, method=method)


def rsfs_z_step(X, F, W, alpha, gamma, *, XW=None):
    """Z-step, Eq. (13): soft thresholding of ``E = F - X W`` at ``gamma / (2 alpha)``.

    The exact minimiser of Eq. (12), ``||E - Z||_F^2 + (gamma/alpha) ||Z||_1``.
    ``XW``: ``X @ W`` if already computed.
    """
    return soft_threshold(F - (X @ W if XW is None else XW), gamma / (2.0 * alpha))


def rsfs_f_step(M_pos, M_neg, F, A, alpha, nu, *, power=1.0):
    """F-step, Eq. (18): one multiplicative update of F.

    ``F <- F * (M^- F + nu F + alpha A^+) / (M^+ F + alpha F + nu F F^T F + alpha A^-)``,
    ``A = X W + Z`` and ``M = M^+ - M^-``, ``A = A^+ - A^-`` the entrywise
    positive/negative parts. F stays non-negative. ``power=0.5`` takes the
    square root of the ratio, as the released code does.
    """
    A_pos, A_neg = pos_neg_parts(A)
    numer = M_neg @ F + nu * F + alpha * A_pos
    denom = M_pos @ F + alpha * F + nu * (F @ (F.T @ F)) + alpha * A_neg
    return multiplicative_update(F, numer, denom, power=power)


def rsfs_init_indicator(affinity, n_clusters, *, offset=0.2, n_init=10, random_state=None):
    """Initial F: spectral embedding, k-means, indicator plus offset, unit columns.

    The paper does not give the initialisation. Following the released code
    (spectral embedding of the graph, then k-means) and NDFS (add 0.2 to the
    indicator so that no entry is 0, because a multiplicative update never
    moves a zero), ``F0 = normalise_columns(P + offset)`` where P is the 0/1
    k-means indicator of the ``n_clusters``-dimensional spectral embedding of
    ``affinity`` (:func:`ufsel.graph.spectral_embedding`).

    Parameters
    ----------
    affinity : sparse matrix of shape (n_samples, n_samples)
        Symmetric non-negative graph.
    n_clusters : int
    offset : float
    n_init : int
        k-means restarts.
    random_state : int, RandomState or None
        Seeds the eigensolver and k-means.

    Returns
    -------
    F0 : ndarray of shape (n_samples, n_clusters)
    """
    rng = check_random_state(random_state)
    n = affinity.shape[0]
    # the whole eigenspace of lambda = 0 when the graph has more components than that
    emb = determined_spectral_embedding(affinity, min(n_clusters, n - 1), canonical=True,
                                        random_state=rng)
    return indicator_from_embedding(emb, n_clusters, offset=offset, n_init=n_init,
                                    random_state=rng)


def indicator_from_embedding(emb, n_clusters, *, offset=0.2, n_init=10, random_state=None,
                             sample_rows=None):
    """:func:`rsfs_init_indicator` from a given embedding: k-means, indicator plus
    offset, unit columns.

    Parameters
    ----------
    emb : {ndarray, dask array} of shape (n_samples, k)
        The spectral embedding.
    n_clusters : int
        Number of clusters (columns of F).
    offset : float
        Added to the 0/1 indicator.
    n_init : int
        k-means restarts.
    random_state : int, RandomState or None
        Seeds k-means.
    sample_rows : int or None
        Above this many rows k-means runs on a seeded row sample and every row
        takes its nearest centre (:func:`ufsel.linalg.kmeans_labels`; needed for a
        dask embedding, which gives a dask F chunked like it); None: all rows.

    Returns
    -------
    F0 : {ndarray, dask array} of shape (n_samples, n_clusters)
    """
    rng = check_random_state(random_state)
    n = emb.shape[0]
    seed = rng.randint(np.iinfo(np.int32).max)
    labels = kmeans_labels(emb, n_clusters, random_state=seed, sample_rows=sample_rows,
                           n_init=n_init)
    if is_dask_array(labels):  # the column norms from the cluster sizes
        norm = np.sqrt(n * offset**2 + label_counts(labels, n_clusters) * (2 * offset + 1))
        return indicator_blocks(labels, n_clusters, 1.0 / norm, offset / norm)
    F = np.full((n, n_clusters), offset, dtype=np.float64)
    F[np.arange(n), labels] += 1.0
    return F / np.linalg.norm(F, axis=0)


class RSFS(BaseSelector):
    """Robust Spectral learning for unsupervised Feature Selection (RSFS).

    Learns a non-negative, nearly orthogonal cluster indicator F on a local kernel
    regression graph, regresses it on X with an l2,1-penalised coefficient matrix W
    and absorbs outlying samples in a sparse noise term Z (Shi, Du and Shen, ICDM
    2014 [1]_). Features are ranked by the row norms of W.

    Requires dense X (sparse input is densified if it fits in memory). A dask array
    is read through the anchor graph, block by block: F, Z and ``X W`` stay dask
    arrays chunked like X, kept on the workers between iterations, and only d x d,
    d x c, m x c and c x c results come to memory.

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of columns of F (the number of clusters).
    alpha : float, default=1.0
        Weight of the robust regression term.
    beta : float, default=1.0
        Weight of ``||W||_{2,1}``.
    gamma : float, default=1.0
        Weight of ``||Z||_1`` (the Huber threshold is ``gamma / (2 alpha)``).
    nu : float, default=10.0
        Orthogonality penalty of Eq. (15) ("set to be large"; with
        ``f_update="paper"`` keep it moderate, see Notes).
    n_neighbors : int, default=5
        k, the neighbourhood size (5 in the paper).
    graph : {"auto", "local_kernel", "heat", "anchor"}, default="auto"
        ``"local_kernel"``: the paper's local kernel regression graph (Eq. 3);
        ``"heat"``: the released code's row-normalised heat-kernel graph;
        ``"anchor"``: the anchor graph of ``n_anchors`` landmarks
        (:func:`ufsel.graph.anchor_graph`, linear in n_samples; each sample linked to
        its ``n_neighbors`` nearest landmarks), whose Laplacian ``M = I - W`` is
        applied through Z and never formed, for large n. ``"auto"``: the anchor
        graph for a dask array and from ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES``
        samples of dense X, the paper's ``"local_kernel"`` graph otherwise
        (:func:`ufsel.graph.resolve_graph`).
    n_anchors : int, default=1000
        Number of landmarks of the anchor graph.
    f_update : {"paper", "sqrt"}, default="paper"
        The F-step: Eq. (18) as printed, or the released code's square-root
        rule.
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-3
        Relative objective change at which iterations stop (the released
        code stops at a relative decrease below 1e-3).
    random_state : int, RandomState or None, default=None
        Seeds the initialisation (eigensolver, k-means) and the bandwidth
        sample.
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w_i||_2``.
    W_ : ndarray of shape (n_features, n_clusters)
    F_ : ndarray or dask array of shape (n_samples, n_clusters)
        The non-negative relaxed cluster indicator (a dask array chunked like X for
        a dask X).
    Z_ : ndarray or dask array of shape (n_samples, n_clusters)
        The sparse noise on F (a dask array for a dask X).
    objective_ : ndarray of shape (`n_iter_`,)
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    LGDFS, MCFS

    Notes
    -----
    **Objective** (Eq. 8 of [1]_ with X of shape (n, d), the paper's X^T, and the
    orthogonality constraint of Eq. 15 replaced by a penalty)::

        min  Tr(F^T M F) + alpha ||(F - Z) - X W||_F^2 + beta ||W||_{2,1}
             + gamma ||Z||_1 + (nu / 2) ||F^T F - I||_F^2     s.t. F >= 0

    ``M = B - S - S^T`` (Eqs. 3 and 5), S the row-stochastic local kernel regression
    weights on the k-NN graph (:func:`ufsel.graph.local_kernel_regression_weights`),
    B the degree matrix of ``S + S^T``; M is sparse.

    **Updates** (Algorithm 1), in this order per iteration:

    1. W-step, Eq. (11): ``W = (X^T X + (beta / alpha) D)^{-1} X^T (F - Z)`` with
       ``D_ii = 1 / (2 sqrt(||w_i||^2 + sigma))`` (footnote 1; D = I initially). When
       d > n the d x d solve is replaced by an n x n one through the push-through
       identity (:func:`ufsel.linalg.ridge_solve`).
    2. Z-step, Eq. (13): ``Z = soft_threshold(F - X W, gamma / (2 alpha))``, the exact
       minimiser of Eq. (12) (the Huber link of Eq. 14).
    3. F-step, Eq. (18) (:func:`rsfs_f_step`), with ``A = X W + Z`` and ``M^+``,
       ``M^-``, ``A^+``, ``A^-`` the entrywise positive and negative parts::

           F <- F * (M^- F + nu F + alpha A^+) / (M^+ F + alpha F + nu F F^T F + alpha A^-)

    4. D from the new W.

    Features are ranked by ``||w_i||_2`` (Algorithm 1, step 11). ``objective_`` is the
    objective above with the smoothed norm ``sum_i sqrt(||w_i||^2 + sigma)``
    (:func:`rsfs_objective`); the paper proves no monotone decrease (the F-step is a
    fixed-point heuristic), the W- and Z-steps do not increase it. Iterations stop
    when its relative change falls below ``tol``.

    **Interpretations** where the paper is silent or garbled:

    - The kernel of Eq. (3) is the heat kernel ``exp(-||x_i - x_j||^2 / (2 t^2))``
      with t the mean pairwise distance (Cai's default, used by the released code).
      ``graph="heat"`` reproduces the released driver instead: the OR-symmetrised
      heat-kernel k-NN graph with rows normalised to sum 1.
    - F is initialised (not given in the paper) from the ``n_clusters``-dimensional
      spectral embedding of ``S + S^T``: k-means on it (``n_init=10``), the 0/1
      indicator plus 0.2 (so that no entry starts at 0, where the multiplicative rule
      would keep it), columns scaled to unit norm (:func:`rsfs_init_indicator`);
      Z = 0 and D = I, as in the released code. k-means runs on a canonical basis of
      the embedding (:func:`ufsel.graph.canonical_embedding`), and on a graph with
      more connected components than ``n_clusters + 1`` the embedding is the whole
      null space of the Laplacian, so the start depends on the graph only, not on
      round-off or the column order. On the anchor graph the embedding is LSC's
      (:meth:`ufsel.graph.AnchorGraph.spectral_coefficients`), and above
      ``ufsel.linalg.KMEANS_SAMPLE_ROWS`` samples k-means runs on a seeded sample of
      its rows, every row then taking its nearest centre.
    - F's columns are not normalised after each step (the released code adds one).
    - ``f_update="paper"`` is Eq. (18) as printed. When the penalty dominates (large
      nu) it maps a scaled ``F^T F = s I`` to ``1 / s``, so the scale of F oscillates
      and the objective does not settle; hence the moderate default ``nu=10``.
      ``f_update="sqrt"`` is the released code's rule (the square root of the same
      ratio), stable for any nu (the released code uses nu = 1e8).
    - X is used as given (no centring, no bias term), as in Eq. (6).

    Each iteration costs one d x d (n x n when d > n) Cholesky solve, a few
    n x d x c products and O(nnz(M) c); the graph is built once. The defaults and
    the options named after the released code are summarised in the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] L. Shi, L. Du, Y.-D. Shen. Robust spectral learning for
       unsupervised feature selection. ICDM 2014.

    Examples
    --------
    >>> from ufsel import RSFS
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, y, informative = make_planted_clusters(random_state=0)
    >>> sel = RSFS(n_features_to_select=5, n_clusters=4, random_state=0).fit(X)
    >>> sel.transform(X).shape
    (200, 5)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        **CLUSTER_GRAPH_CONSTRAINTS,
        **ITERATIVE_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "nu": [Interval(Real, 0, None, closed="left")],
        "graph": [StrOptions({"auto", *_NEIGHBOR_GRAPHS, "anchor"})],
        "n_anchors": [Interval(Integral, 2, None, closed="left")],
        "f_update": [StrOptions({"paper", "sqrt"})],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, alpha=1.0, beta=1.0,
                 gamma=1.0, nu=10.0, n_neighbors=5, graph="auto", n_anchors=N_ANCHORS,
                 f_update="paper", max_iter=100, tol=1e-3, random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.nu = nu
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.n_anchors = n_anchors
        self.f_update = f_update
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.supports_dask = True
        return tags

    def _memory_terms(self, shape):
        return {**super()._memory_terms(shape), **dense_copy_term(shape),
                **graph_terms(densified(shape), self), **ridge_term(shape, 3),
                **rows_term(shape, f"the {{rows}} x {self.n_clusters} embedding and cluster indicator", 6 * self.n_clusters * 8, persisted=True)}

    def _fit(self, X):
        name = type(self).__name__
        graph = resolve_graph(self.graph, X, neighbor_graphs=_NEIGHBOR_GRAPHS)
        if not is_dask_array(X):
            X = densify(X, name)
        n, d = X.shape
        rng = self._start_fit(X)
        alpha, beta, gamma, nu = self.alpha, self.beta, self.gamma, self.nu

        # Steps 1-2: S (Eq. 3) and M = B - S - S^T (Eq. 5), sparse.
        if graph == "anchor":
            ag = anchor_graph(X, self.n_anchors, self.n_neighbors, random_state=rng)
            M, M_pos, M_neg = ag.laplacian_operators()
            emb = ag.embed(ag.spectral_coefficients(min(self.n_clusters, n - 1))[0])
            F = indicator_from_embedding(emb, self.n_clusters, random_state=rng,
                                         sample_rows=KMEANS_SAMPLE_ROWS)
        else:
            sym = "none" if graph == "local_kernel" else "max"
            S = local_kernel_regression_weights(X, self.n_neighbors, symmetrize_mode=sym,
                                                random_state=rng)
            M = local_learning_laplacian(S)
            M_pos, M_neg = pos_neg_parts(M)
            M_pos, M_neg = sparse.csr_matrix(M_pos), sparse.csr_matrix(M_neg)
            # Step 3: initialisation (see the class docstring).
            F = rsfs_init_indicator((S + S.T).tocsr(), self.n_clusters, random_state=rng)
        Z = np.zeros_like(F)
        D = np.ones(d)
        gram = None
        if d <= n:
            gram = gram_matrix(X, owner=name) if is_dask_array(X) else X.T @ X
        power = 1.0 if self.f_update == "paper" else 0.5

        tracker = ObjectiveTracker(name, self.max_iter, self.tol,
                                   hint=f"nu (got {nu}) or alpha (got {alpha})", verbose=self.verbose)
        for _ in range(self.max_iter):
            W = rsfs_w_step(X, F, Z, D, alpha, beta, gram=gram)
            # one n x d x c product per iteration, shared by the three uses (and, for a
            # dask X, the n x c iterates kept on the workers between the steps)
            (XW,) = persist_dask(X @ W)
            Z = rsfs_z_step(X, F, W, alpha, gamma, XW=XW)
            F, Z = persist_dask(rsfs_f_step(M_pos, M_neg, F, XW + Z, alpha, nu, power=power), Z)
            D = l2p_reweight(W, 1.0, _SIGMA)
            obj = rsfs_objective(X, M, F, W, Z, alpha, beta, gamma, nu, sigma=_SIGMA, XW=XW)
            if tracker.append(obj if np.all(np.isfinite(F)) else np.nan):
                break

        self.W_, self.F_, self.Z_ = W, F, Z
        self.objective_ = tracker.finish()
        self.n_iter_ = tracker.n_iter
        return np.linalg.norm(W, axis=1)
