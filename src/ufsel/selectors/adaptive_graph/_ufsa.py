"""UFSA: unsupervised feature selection with adaptive locality preserving projection (Yan, Wang 2018)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import ObjectiveTracker
from ...base import BaseSelector
from ...graph import (
    ANCHOR_GRAPH_MIN_SAMPLES,
    N_ANCHORS,
    adaptive_neighbors,
    can_weights,
    knn_graph,
    resolve_graph,
    sorted_candidate_distances,
    two_hop_candidates,
)
from ...graph._memory import knn_terms
from ...linalg import column_mean_var, l2p_norm, l2p_reweight
from ...utils import threads_for
from ...utils._deprecation import renamed_attribute
from ...utils._memory import embedding_term, gram_term
from ._ufsa_anchor import anchor_memory_terms, fit_anchor
from ._ufsa_wstep import SOLVERS, WStepSolver, record_fit, resolve_solver, row_space_basis

__all__ = ["UFSA", "ufsa_objective"]

#: ``s_step="auto"`` restricts the S-step to two-hop candidates above this many
#: samples (an exact k-NN search among all n points in every S-step grows like n^2
#: where k-d trees prune poorly).
_EXACT_S_STEP_MAX = 20_000
#: ... hopping through each point's this many strongest neighbours.
_HOP_DEGREE = 8
#: Dense input with at most this share of non-zero entries is fitted as a CSR matrix: a
#: sparse product costs about 2 nnz flops at a rate several times below dense BLAS's, so
#: at 5 % it is still at least twice cheaper, and the Gram matrices (X G^-1 X^T of the
#: push-through W-steps, X^T X) follow the non-zeros instead of n^2 d or n d^2.
_SPARSE_MAX_DENSITY = 0.05


def _fit_as_sparse(X):
    """Whether dense X is fitted as a CSR matrix (see _SPARSE_MAX_DENSITY)."""
    return np.count_nonzero(X) <= _SPARSE_MAX_DENSITY * X.size


def ufsa_objective(X, W, b, F, S, lambdas, alpha, gamma, eps=1e-10):
    """Objective (7) of the UFSA paper, with X of shape (n_samples, n_features)::

        sum_ij ( ||W^T x_i - W^T x_j||^2 s_ij + lambda_i s_ij^2 )
        + alpha sum_i ||W^T x_i + b - f_i||^2 + gamma sum_k sqrt(||w^k||^2 + eps)

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)
    W : ndarray of shape (d, c)
    b : ndarray of shape (c,)
    F : ndarray of shape (n, c)
    S : sparse matrix of shape (n, n)
        Row i is s_i.
    lambdas : ndarray of shape (n,) or float
        The per-point (or global) weight of ``s_ij^2``.
    alpha, gamma : floats
    eps : float
        Smoothing of the l2,1 norm (``eps = 0`` gives the exact norm).

    Returns
    -------
    value : float
    """
    Z = np.asarray(X @ W)
    S = sparse.csr_matrix(S)
    rows = np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))
    diff = Z[rows] - Z[S.indices]
    graph = float(np.dot(S.data, np.einsum("ij,ij->i", diff, diff)))
    sq = np.asarray(S.multiply(S).sum(axis=1)).ravel()
    smooth = float(np.dot(np.broadcast_to(lambdas, sq.shape), sq))
    R = Z + b[None, :] - F
    return graph + smooth + alpha * float(np.sum(R * R)) + gamma * l2p_norm(W, 1.0, eps)



class UFSA(BaseSelector):
    """Unsupervised Feature Selection with Adaptive locality preserving projection (UFSA).

    Learns an orthonormal projection W, soft labels F in [0, 1] and an adaptive
    neighbour graph S on the projected samples together: S keeps neighbours close
    after projection, F is regressed on the projection, and an l2,1 penalty makes W
    row-sparse (Yan and Wang, 2018 [1]_). Features are ranked by the row norms of W.

    Sparse input stays sparse, and dense input with at most 5 % non-zero entries is
    fitted as a sparse matrix. Constant features are left out and scored 0.

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of columns of W and F (the number of labels; the
        paper uses the number of classes). At most the number of
        non-constant features: W (n_features x c) has orthonormal columns, so
        a larger c is undefined and refused with a ValueError.
    alpha : float, default=1.0
        Weight of the regression term (the paper's grid: 1e-9, 1e-6, ..., 1e9;
        its sensitivity study fixes alpha = 1).
    gamma : float, default=1.0
        Weight of the l2,1 term (same grid; fixed to 1 in the study of alpha).
    n_neighbors : int, default=15
        k, the neighbourhood size that sets lambda_i (the paper: 15).
    standardize : bool, default=True
        Divide each feature by its standard deviation first (see Notes).
    lambda_update : {"adaptive", "fixed"}, default="adaptive"
        Set lambda_i by CAN's rule in every S-step (exactly k neighbours per
        point) or once, in the first S-step (objective (7) then one function,
        ``objective_`` non-increasing); see Notes.
    eps : float, default=1e-10
        Smoothing of the l2,1 norm.
    max_iter : int, default=300
        Outer iterations (see Notes).
    tol : float, default=1e-4
        Relative decrease of objective (7) at which the iterations stop.
    w_tol : float, default=1e-11
        A W-step stops when its Riemannian gradient is below this, relative
        to ``||A W||_F + ||B||_F`` (or at the gradient's rounding floor).
    w_max_iter : int, default=1000
        Guard on the trust-region iterations of one W-step (a
        ConvergenceWarning when reached).
    solver : {"auto", "dense", "cholesky", "pushthrough", "operator"}, default="auto"
        How the W-step's d x d matrix is handled (see Notes): ``"dense"``, A
        formed and decomposed in every W-step; ``"cholesky"``, A formed in every
        W-step, the first (and any after a W-step of more than 15 trust-region
        iterations) as ``"dense"``, the others preconditioned by A's Cholesky
        factor (needs ``gamma > 0``, otherwise as ``"dense"``); ``"pushthrough"``, the first
        W-step (and any after a W-step of more than 15 trust-region
        iterations) as ``"dense"``, the others by products with X and the
        Woodbury inverse (needs d > n and ``gamma > 0``, otherwise as
        ``"dense"``); ``"operator"``, products only (preconditioned by the
        Woodbury inverse when d > n and n <= 4096, else by A's diagonal).
        ``"auto"``: ``"operator"`` when d > max(n, 2048), ``"pushthrough"``
        when d > n and its products cost less than the decompositions,
        ``"cholesky"`` when ``c < d / 100`` (see Notes), else ``"dense"``.
    s_step : {"auto", "exact", "two_hop"}, default="auto"
        Candidate points of the S-step (see Notes); ``"auto"``
        is ``"exact"`` up to 20,000 samples and ``"two_hop"`` above.
    w_space : {"full", "row_space"}, default="full"
        Where W lives. ``"full"``: all of R^{d x c}, the paper's form.
        ``"row_space"``: W restricted to the row space of the centred (scaled)
        data, ``W = Q V`` with Q an orthonormal basis of that space, so that no
        part of W lies in the null space of ``H X``, where only the l2,1 term
        sees it (see Notes). The W-steps then run on an r x r matrix, r the
        rank of ``H X`` (at most n - 1), with ``solver`` ``"auto"``,
        ``"dense"`` or ``"cholesky"``. On data whose centred columns are
        linearly independent (d < n, as a rule) the two are the same problem.
    graph : {"auto", "paper", "anchor"}, default="auto"
        ``"paper"``: the adaptive graph among the samples (n x n). ``"anchor"``:
        an adaptive bipartite graph between the samples and ``n_anchors``
        anchors, linear in the number of samples (see Notes). ``"auto"`` is
        ``"anchor"`` for dense X from ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES``
        samples and ``"paper"`` below (:func:`ufsel.graph.resolve_graph`).
    n_anchors : int, default=1000
        Number of anchors m of the anchor form.
    random_state : int, RandomState or None, default=None
        Seeds the random initial F (W starts from it, see step 1) and the
        anchors.
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^k||_2``.
    W_ : ndarray of shape (n_features, n_clusters)
        W, with orthonormal columns (in the scaled feature space; zero rows
        for constant features).
    intercept_ : ndarray of shape (n_clusters,)
        b.
    labels_matrix_ : ndarray of shape (n_samples, n_clusters)
        F, in [0, 1].
    similarity_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        S, rows on the simplex; of shape (n_samples, n_anchors) in the anchor
        form.
    anchors_ : ndarray of shape (n_anchors, n_features)
        The anchors ``u_j`` (in the scaled feature space), in the anchor form
        only.
    lambdas_ : ndarray of shape (n_samples,)
        The per-point lambda_i.
    feature_scale_ : ndarray of shape (n_features,)
        The divisor applied to each feature (1 without standardisation).
    objective_ : ndarray of shape (`n_iter_`,)
        Objective (7) after each iteration, with that iteration's ``lambda_i``
        (non-increasing with ``lambda_update="fixed"``).
    {n_iter_}
    w_step_converged_ : ndarray of bool, shape (`n_iter_`,)
        Whether each W-step met ``w_tol`` within ``w_max_iter``.
    w_step_iter_ : ndarray of int, shape (`n_iter_`,)
        Trust-region iterations of each W-step.
    solver_ : str
        ``"dense"``, ``"cholesky"``, ``"pushthrough"`` or ``"operator"``, the
        solver used.
    s_step_ : str
        ``"exact"``, ``"two_hop"`` or ``"anchor"`` (the anchor form), the
        S-step used.
    {selector_attributes}

    See Also
    --------
    SPCAFS, MCFS, LaplacianScore

    Notes
    -----
    **Objective** (Eq. 7 of [1]_, samples as the rows of X, W of shape (d, c), F of
    shape (n, c), b in R^c)::

        min  sum_ij ( ||W^T x_i - W^T x_j||^2 s_ij + lambda_i s_ij^2 )
             + alpha sum_i ||W^T x_i + b - f_i||^2 + gamma ||W||_{2,1}
        s.t. s_i^T 1 = 1, 0 <= s_i <= 1, 0 <= F <= 1, W^T W = I

    **Algorithm** (block coordinate descent; each step minimises, or decreases,
    Eq. 7 for the current ``lambda_i``):

    1. Initialise S by CAN [2]_ on X (k nearest neighbours), F uniformly at random in
       [0, 1] (Algorithm 3.1, steps 1-2) and W as the polar factor of ``X^T H F``.
    2. W-step: with ``L_s = D_s - (S + S^T) / 2``, b eliminated (Eq. 9) and the l2,1
       term majorised at the current W by ``gamma Tr(W^T D_w W)``,
       ``D_w = diag(1 / (2 sqrt(||w^k||^2 + eps)))`` (Eq. 14), minimise
       ``Tr(W^T A W) - 2 Tr(W^T B)`` over ``W^T W = I`` with
       ``A = 2 X^T L_s X + alpha X^T H X + gamma D_w`` and ``B = alpha X^T H F``, by
       Riemannian trust regions [4]_ (:func:`ufsel.linalg.stiefel_quadratic`), until
       the Riemannian gradient is below ``w_tol`` relative to ``||A W|| + ||B||`` or
       ``w_max_iter`` iterations.
    3. b-step: ``b = (F^T 1 - W^T X^T 1) / n`` (Eq. 9).
    4. F-step: ``F = clip(X W + 1 b^T, 0, 1)`` (Eq. 16).
    5. S-step: row i is the projection of ``-q_i / (2 lambda_i)`` onto the simplex,
       ``q_ij = ||W^T x_i - W^T x_j||^2`` (Eq. 19,
       :func:`ufsel.graph.adaptive_neighbors`).

    Features are ranked by ``||w^k||_2`` (Algorithm 3.1, step 15).

    **Interpretations** where the paper is unclear or inconsistent:

    - The printed W-update (Eq. 15) solves the unconstrained stationarity equation
      (13) and ignores ``W^T W = I``; iterated, it shrinks W and F towards the
      trivial solution. It is replaced by the constrained W-step above.
    - Expanding the double sum of Eq. (7) gives twice the graph term of Eq. (8);
      Eq. (7) is the authority, so the factor 2 is kept.
    - The paper sets lambda "as in [15]" (CAN: each s_i has exactly k non-zeros).
      Each point gets its own ``lambda_i`` by CAN's rule. ``lambda_update="adaptive"``
      (default) applies the rule in every S-step, so every row keeps exactly k
      neighbours and ``objective_`` may rise where the ``lambda_i`` change;
      ``"fixed"`` applies it once, in the first S-step, so Eq. (7) is one function
      that every step decreases, but the supports of S then grow as the projection
      contracts and the graph stops being local.
    - The l2,1 norm is smoothed, ``sqrt(||w^k||^2 + eps)``, in the reweighting and in
      ``objective_``.
    - Under ``W^T W = I``, Eq. (7) is smallest along features that barely vary, so its
      exact minimiser prefers constant and near-constant features. Constant features
      (standard deviation at most 1e-12 of the largest) are therefore left out and
      scored 0, and with ``standardize=True`` the others are divided by their
      standard deviation; ``objective_`` is that of the scaled problem.
    - W starts from the polar factor above rather than at random, so the result does
      not depend on the order of the features. With the dense solver the first
      W-step starts from ``Q_c polar(Q_c^T B)``, ``Q_c`` the eigenvectors of A's c
      smallest eigenvalues, so that its path does not cross saddle regions where
      round-off picks the local minimum.
    - ``max_iter=300``: the paper iterates "until convergence" without a number.
    - The S-step's distances are computed from differences and equal distances are
      ordered by index, so the neighbours do not depend on the search's rounding. The
      W-step, and a whole fit on a small problem, run on one BLAS thread.
    - The graph and regression terms see W only through ``H X W`` (b absorbs the
      mean). With more features than samples (d > n) the null space of ``H X`` has
      dimension at least d - n + 1, and the part of W in it changes neither term:
      the l2,1 term alone spreads W over those directions, and the paper's form
      ranks features largely by how it does. ``w_space="row_space"`` restricts W to
      the row space of ``H X``, where every direction of W changes ``H X W``; see
      the fidelity guide,
      `UFSA on wide data <../../guide/fidelity.html#ufsa-on-wide-data>`__.
    - ``s_step="two_hop"`` restricts row i of the S-step to its current neighbours
      and their neighbours (one local-join round of NN-descent,
      :func:`ufsel.graph.two_hop_candidates`). The current support is among the
      candidates, so Eq. (7) still never increases; a point outside the two-hop
      neighbourhood enters over several iterations instead of one.

    **Anchor form** (``graph="anchor"``, and ``"auto"`` from
    ``ANCHOR_GRAPH_MIN_SAMPLES`` samples). S becomes a bipartite graph between the
    samples and m anchors ``u_j`` (the k-means landmarks of
    :func:`ufsel.graph.anchor_landmarks` on a seeded row sample of the scaled data,
    kept fixed), and Eq. (7) becomes::

        sum_ij ( ||W^T x_i - W^T u_j||^2 s_ij + lambda_i s_ij^2 )
        + alpha sum_i ||W^T x_i + b - f_i||^2 + gamma ||W||_{2,1}

    with each row ``s_i`` on the simplex over the m anchors. Exact: every step
    minimises this objective in its block as in the paper's form: the S-step is
    Eq. (19) over all m anchors (CAN's closed form on each sample's k + 1 nearest
    projected anchors, or the projection onto the simplex with fixed ``lambda_i``),
    the W-step uses the d x d matrix
    ``X^T X + U^T diag(S^T 1) U - X^T S U - U^T S^T X`` of the graph term, and the
    b- and F-steps are unchanged. Approximated: a sample's neighbours are anchors,
    not other samples, so the graph ties each projected sample to the projections
    of a few local means rather than of its nearest samples; the anchors do not
    move with W. The initial S is CAN on the nearest anchors in the scaled
    input space, F starts at random and W at the polar factor of ``X^T H F``, as in
    the paper's form. Why: the paper's S-step needs every projected sample's nearest
    samples and its W-step ``X^T L_S X`` over an n x n graph; here an iteration costs
    O(n d c + n m c + n k d + d^3), linear in n, and nothing n x n is formed (the
    nearest anchors are screened in single precision, then ranked by exact
    distances). ``objective_`` is this objective (non-increasing with
    ``lambda_update="fixed"``); ``solver`` and ``s_step`` do not apply (the W-step
    is solved in A's eigenbasis).

    **Cost.** The k-NN searches are on the c-dimensional projections, by a k-d tree
    up to 6 coordinates (O(n log n) per S-step) and by
    all pairwise distances above; either way the neighbours are those of the exact
    distances, ties to the smaller index. S has O(n k) non-zeros. With
    ``solver="dense"`` A (d x d) is formed and decomposed once per W-step,
    ``A = Q diag(lam) Q^T`` (O(n d^2 + d^3)), and the trust-region iterations run in
    A's eigenbasis at O(d c^2 + c^4) per Hessian product. With ``solver="cholesky"``
    (few columns, ``c < d / 100``) A is formed but, after the first W-step, only
    factorised, ``A = R^T R`` (O(d^3 / 3)): the inner conjugate gradients are
    preconditioned by ``A^{-1}`` from two triangular solves and multiply by A,
    O(d^2 c) each; a W-step after one of more than 15 trust-region iterations is
    decomposed again. With ``solver="operator"`` A is only applied, as
    ``X^T (N (X W)) + gamma g * W`` with ``N = 2 L_s + alpha H``, in
    O(nnz(X) c + nnz(S) c). When d > n (up to 4096 samples) the inner conjugate
    gradients are preconditioned by ``A^{-1}`` through the Woodbury identity
    ``A^{-1} = G^{-1} - G^{-1} X^T N (I + X G^{-1} X^T N)^{-1} X G^{-1}``,
    ``G = gamma diag(g)`` (one n x n LU factorisation per W-step);
    ``solver="pushthrough"`` uses that for every W-step except the first and any
    after one of more than 15 trust-region iterations, which are decomposed. These
    preconditioners assume a gap above A's c smallest eigenvalues; a very small
    gamma makes the inner iterations multiply. With ``w_space="row_space"`` the basis Q
    (d x r) comes from one eigendecomposition of the n x n centred Gram matrix (d > n,
    O(n^2 d + n^3)) and every W-step forms and solves the r x r ``Q^T A Q``
    (O(n r^2 + d r^2)), whatever d. Every solver takes each W-step to
    ``w_tol``, so the solvers, and sparse and dense X, give the same result to that
    tolerance. The paper has no public code; see the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] F. Yan, X. Wang. Unsupervised feature selection method based on
       adaptive locality preserving projection. J. Univ. Sci. Technol. China
       48(4):290-297, 2018. doi:10.3969/j.issn.0253-2778.2018.04.004
    .. [2] F. Nie, X. Wang, H. Huang. Clustering and projected clustering with
       adaptive neighbors. KDD 2014.
    .. [3] F. Nie, R. Zhang, X. Li. A generalized power iteration method for
       solving quadratic problem on the Stiefel manifold. Sci. China Inf.
       Sci. 60, 2017.
    .. [4] P.-A. Absil, C. G. Baker, K. A. Gallivan. Trust-region methods on
       Riemannian manifolds. Found. Comput. Math. 7:303-330, 2007.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from ufsel import UFSA
    >>> X, _ = load_wine(return_X_y=True)
    >>> sel = UFSA(n_features_to_select=4, n_clusters=3, random_state=0).fit(X)
    >>> sel.transform(X).shape
    (178, 4)
    """

    components_ = renamed_attribute("W_")

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "standardize": ["boolean"],
        "lambda_update": [StrOptions({"fixed", "adaptive"})],
        "eps": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "w_tol": [Interval(Real, 0, None, closed="neither")],
        "w_max_iter": [Interval(Integral, 1, None, closed="left")],
        "solver": [StrOptions({"auto", *SOLVERS})],
        "s_step": [StrOptions({"auto", "exact", "two_hop"})],
        "w_space": [StrOptions({"full", "row_space"})],
        "graph": [StrOptions({"auto", "paper", "anchor"})],
        "n_anchors": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, alpha=1.0, gamma=1.0,
                 n_neighbors=15, standardize=True, lambda_update="adaptive", eps=1e-10,
                 max_iter=300, tol=1e-4, w_tol=1e-11, w_max_iter=1000, solver="auto",
                 s_step="auto", w_space="full", graph="auto", n_anchors=N_ANCHORS,
                 random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.standardize = standardize
        self.lambda_update = lambda_update
        self.eps = eps
        self.max_iter = max_iter
        self.tol = tol
        self.w_tol = w_tol
        self.w_max_iter = w_max_iter
        self.solver = solver
        self.s_step = s_step
        self.w_space = w_space
        self.graph = graph
        self.n_anchors = n_anchors
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        if self.graph == "anchor" or (self.graph == "auto" and not shape.sparse
                                      and shape.n >= ANCHOR_GRAPH_MIN_SAMPLES):
            return anchor_memory_terms(self, shape)
        return {**super()._memory_terms(shape), **gram_term(shape.d, 3),
                **knn_terms(shape, self.n_neighbors), **embedding_term(shape.n, self.n_clusters)}

    def _check(self, n, d):
        k, c = self.n_neighbors, self.n_clusters
        if n < k + 2:
            raise ValueError(
                f"UFSA sets lambda_i from the k + 1 = {k + 1} nearest neighbours of each "
                f"point and needs n_samples >= n_neighbors + 2 = {k + 2}, got n_samples={n}. "
                f"Pass n_neighbors <= {max(n - 2, 1)}."
            )
        if c > d:
            raise ValueError(
                f"UFSA needs n_clusters <= n_features because W (n_features x n_clusters) "
                f"has orthonormal columns; got n_clusters={c} with n_features={d}. "
                f"Pass n_clusters <= {d}."
            )

    def _prepare(self, X):
        """Drop constant features and (optionally) scale the others to unit variance."""
        if not sparse.issparse(X):
            # C order: the inexact W-steps must not depend on the memory layout.
            X = np.ascontiguousarray(X)
            if _fit_as_sparse(X):
                X = sparse.csr_matrix(X)
        _, var = column_mean_var(X)
        std = np.sqrt(var)
        keep = std > 1e-12 * max(float(std.max()), np.finfo(float).tiny)
        if keep.sum() < self.n_clusters:
            raise ValueError(
                f"UFSA needs at least n_clusters={self.n_clusters} non-constant features, "
                f"got {int(keep.sum())} of n_features={X.shape[1]}. Pass a smaller n_clusters."
            )
        scale = np.where(keep, std, 1.0) if self.standardize else np.ones_like(std)
        if sparse.issparse(X):
            Xw = X.tocsc()[:, np.flatnonzero(keep)] @ sparse.diags(1.0 / scale[keep])
            Xw = Xw.tocsr()
        else:
            Xw = np.ascontiguousarray(X[:, keep] / scale[keep])
        return Xw, keep, scale

    def _fit(self, X):
        n, d = X.shape
        self._check(n, d)
        if resolve_graph(self.graph, X, neighbor_graphs=("paper",)) == "anchor":
            return fit_anchor(self, X)
        # the base runs a fit under the thread policy: one thread for a small problem
        return self._fit_iterations(X, serial=threads_for(self._problem_size(X)) == 1)

    def _fit_iterations(self, X, serial):
        n, d = X.shape
        c, k = self.n_clusters, self.n_neighbors
        alpha, gamma, eps = self.alpha, self.gamma, self.eps
        rng = check_random_state(self.random_state)
        X, keep, scale = self._prepare(X)
        basis = row_space_basis(X) if self.w_space == "row_space" else None
        dk = X.shape[1] if basis is None else basis.shape[1]
        if basis is not None:
            if dk < c:
                raise ValueError(
                    f"UFSA with w_space='row_space' needs n_clusters <= the rank of X, got "
                    f"n_clusters={c} with rank {dk}. Pass n_clusters <= {dk}.")
            if self.solver in ("pushthrough", "operator"):
                raise ValueError(
                    f"UFSA with w_space='row_space' forms the W-step's matrix in the row "
                    f"space; solver={self.solver!r} does not. Pass solver='auto', 'dense' or "
                    "'cholesky'.")
        solver = resolve_solver(self.solver, n, dk, c, gamma)
        w_step = WStepSolver(X, alpha, gamma, solver, w_tol=self.w_tol,
                             w_max_iter=self.w_max_iter, serial=serial, basis=basis)
        X = w_step.X
        step = w_step.quadratic
        adaptive = self.lambda_update == "adaptive"
        two_hop = self.s_step == "two_hop" or (self.s_step == "auto" and n > _EXACT_S_STEP_MAX)

        # Initialisation (Algorithm 3.1, steps 1-2).
        _, ind = knn_graph(X, min(k + 3, n - 1), random_state=rng)
        d2, ind = sorted_candidate_distances(X, ind)
        S, _ = can_weights(d2[:, :k + 1], ind[:, :k + 1], k)
        F = rng.uniform(0.0, 1.0, size=(n, c))
        W = w_step.start(F)
        lambdas = None
        n_candidates = None
        track = ObjectiveTracker("UFSA", self.max_iter, self.tol, verbose=self.verbose,
                                 advice=f"Rescale the data or reduce alpha (got {alpha:g}) / "
                                        f"gamma (got {gamma:g}).")
        w_converged, w_steps = [], []
        for _ in range(self.max_iter):
            # W-step (b eliminated, Eq. 9-12), under W^T W = I.
            g = l2p_reweight(W, 1.0, eps)
            B = alpha * step.xthf(F)
            # Solved to a first-order tolerance, not merely improved, so that the result
            # does not depend on the solver's path.
            W, w_iter, w_ok = w_step(S, g, B, W)
            w_converged.append(w_ok)
            w_steps.append(w_iter)
            # b-step (Eq. 9) and F-step (Eq. 16).
            Z = np.asarray(X @ W)
            b = (F - Z).mean(axis=0)
            F = np.clip(Z + b[None, :], 0.0, 1.0)
            # S-step (Eq. 19); lambda_i set in the first iteration, then fixed
            # (or re-set by CAN's rule every iteration with lambda_update="adaptive").
            S, lambdas = adaptive_neighbors(Z, k, None if adaptive else lambdas,
                                            n_candidates=n_candidates,
                                            candidates=(two_hop_candidates(
                                                S, max_degree=_HOP_DEGREE, min_candidates=k + 1,
                                                random_state=rng) if two_hop else None))
            n_candidates = int(1.25 * np.diff(S.indptr).max()) + 2
            obj = ufsa_objective(X, W, b, F, S, lambdas, alpha, gamma, eps)
            if track.append(obj):
                break
        objective = track.finish()
        W = record_fit(self, W, keep, d, objective, w_converged, w_steps)
        self.intercept_ = b
        self.labels_matrix_ = F
        self.similarity_ = S
        self.lambdas_ = lambdas
        self.feature_scale_ = scale
        self.solver_ = solver
        self.s_step_ = "two_hop" if two_hop else "exact"
        return np.sqrt(np.einsum("ij,ij->i", W, W))

