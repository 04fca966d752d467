"""RUFS: Robust Unsupervised Feature Selection (Qian & Zhai, IJCAI 2013)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy import sparse
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import (
    CLUSTER_GRAPH_CONSTRAINTS,
    ITERATIVE_CONSTRAINTS,
    ObjectiveTracker,
    safeguarded_multiplicative,
)
from ...base import BaseSelector
from ...graph import local_krr_laplacian
from ...graph._memory import local_learning_terms
from ...linalg import kmeans_indicator, pos_neg_parts, row_norms_sq, weighted_ridge
from ...utils._memory import embedding_term

__all__ = ["RUFS", "residual_row_norms_sq", "rufs_objective"]

_EPS = 2.220446049250313e-16
#: Smoothing of the l2,1 norms, sqrt(||r||^2 + _SMOOTH): keeps the reweighting finite.
_SMOOTH = 1e-12


def _l21(R, eps=_SMOOTH):
    return float(np.sum(np.sqrt(row_norms_sq(R) + eps)))


def _half_inv_norms(R, eps=_SMOOTH):
    return 0.5 / np.sqrt(row_norms_sq(R) + eps)


#: Rows whose expanded residual ``||x||^2 - 2 g F x^T + ||g F||^2`` is below this
#: fraction of ``||x||^2 + ||g F||^2`` are recomputed from the residual itself.
_CANCELLATION = 1e-6


def residual_row_norms_sq(X, G, F, *, x_sq=None, XFt=None):
    """``||x_i - g_i F||^2`` for every row i, the row norms of the NMF residual ``X - G F``.

    Computed as ``||x_i||^2 - 2 g_i (X F^T)_i + g_i (F F^T) g_i^T``: with
    ``X F^T`` (n x c) at hand this costs O(n c^2), and the n x d residual is
    never formed (sparse X is never densified). The expansion loses relative
    accuracy only where the residual is small against ``||x_i||^2 +
    ||g_i F||^2`` (cancellation, absolute error a few ``eps`` times that
    sum); the rows where it is below ``1e-6`` of that sum are recomputed
    from ``x_i - g_i F`` directly, so every value has a relative error of
    order ``1e-10`` or better. ``x_sq`` (``||x_i||^2``) and ``XFt``
    (``X F^T``) may be passed when already computed.
    """
    sp = sparse.issparse(X)
    if x_sq is None:
        x_sq = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp else row_norms_sq(X)
    if XFt is None:
        XFt = np.asarray(X @ F.T)
    fit = np.einsum("ij,ij->i", G @ (F @ F.T), G)  # one BLAS product, then a row-wise dot
    r = x_sq - 2.0 * np.einsum("ij,ij->i", G, XFt) + fit
    rows = np.flatnonzero(r <= _CANCELLATION * (x_sq + fit))
    if rows.size:
        Xr = X[rows]
        Xr = Xr.toarray() if sp else Xr
        r[rows] = row_norms_sq(Xr - G[rows] @ F)
    return np.maximum(r, 0.0)


def rufs_objective(X, G, F, W, L, nu, alpha, beta, zeta, *, f_reg=0.0, g_l1=0.0, eps=_SMOOTH,
                   XW=None):
    """The RUFS objective (orthogonality relaxed as in the authors' code)::

        ||X - G F||_{2,1} + nu Tr(G^T L G) + alpha ||X W - G||_{2,1} + beta ||W||_{2,1}
        + zeta/4 ||G^T G - I||_F^2  [+ f_reg sum_j ||F_{:,j}||_2 + g_l1 sum G]

    X is n x d (dense or sparse), G n x c (>= 0), F c x d (>= 0), W d x c; the
    l2,1 norms are smoothed (``sqrt(||r||^2 + eps)``). The bracketed terms are
    the reference code's hidden terms (off by default). ``XW`` may pass a
    precomputed ``X @ W``.
    """
    c = G.shape[1]
    O = G.T @ G - np.eye(c)
    val = (float(np.sum(np.sqrt(residual_row_norms_sq(X, G, F) + eps)))
           + nu * float(np.sum(G * (L @ G)))
           + alpha * _l21((X @ W if XW is None else XW) - G, eps) + beta * _l21(W, eps)
           + 0.25 * zeta * float(np.sum(O * O)))
    if f_reg:
        val += f_reg * float(np.sum(np.sqrt(np.sum(F * F, axis=0) + eps)))
    if g_l1:
        val += g_l1 * float(np.sum(G))
    return val


class _RufsTerms:
    """The terms of :func:`rufs_objective`, each recomputed only when its block changes.

    A state dict holds the terms at the current (G, F, W), ``X W``, ``X F^T``
    and the squared residual row norms ``||x_i - g_i F||^2`` (which the G- and
    F-steps reuse for their l2,1 weights; with ``X F^T`` cached a trial G
    costs O(n c^2) for the residual term). The value is summed in the same order as
    :func:`rufs_objective`, so it is the same number, not a rearranged sum.
    """

    def __init__(self, X, L, nu, alpha, beta, zeta, f_reg, g_l1, x_sq):
        self.X, self.L, self.x_sq = X, L, x_sq
        self.nu, self.alpha, self.beta, self.zeta = nu, alpha, beta, zeta
        self.f_reg, self.g_l1 = f_reg, g_l1

    def evaluate(self, G, F, W, state=None, changed="all"):
        st = {} if state is None else dict(state)
        every = changed == "all"
        if every or changed == "F":
            st["XFt"] = np.asarray(self.X @ F.T)
        if every or changed in ("G", "F"):
            st["res_sq"] = residual_row_norms_sq(self.X, G, F, x_sq=self.x_sq, XFt=st["XFt"])
            st["res"] = float(np.sum(np.sqrt(st["res_sq"] + _SMOOTH)))
        if every or changed == "W":
            st["XW"] = self.X @ W
            st["w21"] = _l21(W)
        if every or changed in ("G", "W"):
            st["reg"] = _l21(st["XW"] - G)
        if every or changed == "G":
            c = G.shape[1]
            O = G.T @ G - np.eye(c)
            st["graph"] = float(np.sum(G * (self.L @ G)))
            st["orth"] = float(np.sum(O * O))
            st["g_sum"] = float(np.sum(G))
        if every or changed == "F":
            st["f21"] = float(np.sum(np.sqrt(np.sum(F * F, axis=0) + _SMOOTH)))
        val = (st["res"] + self.nu * st["graph"] + self.alpha * st["reg"] + self.beta * st["w21"]
               + 0.25 * self.zeta * st["orth"])
        if self.f_reg:
            val += self.f_reg * st["f21"]
        if self.g_l1:
            val += self.g_l1 * st["g_sum"]
        st["value"] = val
        return st

    @staticmethod
    def safeguarded(M, ratio, state, evaluate):
        """:func:`ufsel._iterate.safeguarded_multiplicative` carrying the term cache along."""
        cache = {}

        def value(Mc):
            cache["state"] = evaluate(Mc, state)
            return cache["state"]["value"]

        M_new, _ = safeguarded_multiplicative(M, ratio, value, state["value"])
        if M_new is M:
            return M, state
        return M_new, cache["state"]


class RUFS(BaseSelector):
    """Robust Unsupervised Feature Selection (RUFS).

    Factorises the data into non-negative, nearly orthogonal cluster labels G with a
    robust (l2,1) loss, regularises G by a local-learning matrix, and regresses G on
    the features with a robust l2,1 loss and an l2,1 penalty on W (Qian and Zhai,
    IJCAI 2013 [1]_). Features are ranked by the squared row norms of W.

    Sparse input is never densified. The factorisation is meant for non-negative data
    (images, counts).

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of columns of G (the number of clusters).
    n_neighbors : int, default=5
        Number of nearest neighbours of each sample in the k-NN graph (the sample
        itself excluded).
    nu : float, default=1.0
        Weight of the local-learning term.
    alpha : float, default=1.0
        Weight of the robust regression term.
    beta : float, default=1.0
        Weight of ``||W||_{2,1}``.
    zeta : float, default=1e7
        Orthogonality penalty.
    local_reg : float, default=0.1
        Ridge of the local kernel regressions.
    local_kernel : {"heat", "affinity"}, default="heat"
        Kernel of the local regressions: the heat-kernel Gram matrix of each
        neighbourhood, or FSASL's sparse k-NN affinity (reference code).
    f_reg : float, default=0.0
        Reference-code term ``f_reg sum_j ||F_{:,j}||`` (reference: 1e-4).
    g_l1 : float, default=0.0
        Reference-code term ``g_l1 sum(G)`` (reference: 0.1).
    max_iter : int, default=20
        Maximum number of iterations.
    tol : float, default=1e-4
        Relative change of ``objective_`` at which the iterations stop.
    random_state : int, RandomState or None, default=None
        Seeds k-means and the bandwidth sample.
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Score of each feature, higher is better.
    W_ : ndarray of shape (n_features, n_clusters)
    G_ : ndarray of shape (n_samples, n_clusters)
    F_ : ndarray of shape (n_clusters, n_features)
    objective_ : ndarray of shape (`n_iter_`,)
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    NDFS

    Notes
    -----
    **Objective**, as stated in the first author's code ``RUFS.m`` (AutoUFSTool;
    FSASL's ``fs_unsup_rufs.m``), with ``G^T G = I`` relaxed into a penalty as there::

        min_{G >= 0, F >= 0, W}  ||X - G F||_{2,1} + nu Tr(G^T L G)
                                 + alpha ||X W - G||_{2,1} + beta ||W||_{2,1}
                                 + (zeta / 4) ||G^T G - I||_F^2

    L is the local-learning matrix ``(I - A)^T (I - A)``; row i of A is the kernel
    ridge regression predicting sample i from its neighbours N_i,
    ``A[i, N_i] = K(i, N_i) (K(N_i, N_i) + local_reg I)^{-1}``
    (:func:`ufsel.graph.local_krr_laplacian`). The equation numbers of the paper are
    not quoted because its text was not available for checking.

    **Solver** (a deviation: the reference code uses projected L-BFGS). Each l2,1
    norm is majorised at the current point by a weighted squared norm (weights
    ``1 / (2 sqrt(||r_i||^2 + eps))``), then

    - W: the exact minimiser ``W = (X^T A X + (beta / alpha) B)^{-1} X^T A G`` (A, B the
      row weights of ``X W - G`` and of W; push-through when d > n);
    - G: one multiplicative step ``G * (N / P)^p`` from the split gradient of the
      majoriser, with the largest p in (1, 1/2, 1/4, 1/8) that does not increase the
      objective;
    - F: the same for ``F * (B^+ / (B^- + Q F))^p``, ``B = G^T E X``, ``Q = G^T E G``
      (Ding et al.'s semi-NMF rule, monotone for p = 1/2).

    No step increases the objective; iterations stop when its relative change falls
    below ``tol``.

    **Interpretations**:

    - ``local_kernel="heat"`` (default): K is the heat kernel on every pair of
      ``{i} + N_i`` (t = Cai's mean distance), a positive definite Gram matrix, so
      each local regression is a well-posed kernel ridge regression (Wu and
      Schoelkopf's local learning, which the paper cites).
      ``local_kernel="affinity"`` is FSASL's ``localLearnMx_KRR.m`` as written: K is
      the sparse k-NN affinity of ``constructW`` (zero diagonal, indefinite), with
      which ``K + 0.1 I`` can be nearly singular and the same ``nu`` weighs the graph
      term very differently. See the fidelity guide,
      `RUFS: the local learning matrix <../../guide/fidelity.html#rufs-the-local-learning-matrix>`__.
    - The reference code also adds ``gamma sum_j ||F_{:,j}||`` (gamma = 1e-4) and
      ``mu sum(G)`` (mu = 0.1), which its own header does not state; they are
      available as ``f_reg`` and ``g_l1`` (default 0, the stated objective).
    - Initialisation (as ``RUFS.m``): G is the scaled indicator of k-means on X
      (10 restarts from random samples, as ``litekmeans``) plus 0.2 times its mean
      non-zero entry; ``F = max(0, (G^T G)^{-1} G^T X)`` plus 0.2 times its mean
      positive entry; ``W = (X^T X + (beta / alpha) I)^{-1} X^T G``.
    - Defaults: k = 5, ridge 0.1, nu = alpha = beta = 1, zeta = 1e7, ``max_iter=20``
      (FSASL's settings). The reference stops when the projected gradient falls below
      1e-2 of the initial one, which the zeta penalty makes huge at the one-hot start,
      so it stops after one outer iteration; here the relative change decides.
    - With negative entries in X the fit is still defined, but ``G F`` cannot match
      them.
    - The residual ``X - G F`` enters only through its row norms,
      ``||x_i||^2 - 2 g_i F x_i^T + ||g_i F||^2`` (:func:`residual_row_norms_sq`), for
      sparse and dense X alike, so they agree up to round-off.

    Each iteration costs one n x n (d > n) or d x d weighted ridge solve for W,
    O(n c^2) per trial step of G once ``X F^T`` is cached, and O(n d c) for each
    product with X. Before them, the k-means start (10 runs) uses Elkan's variant
    for dense X: the same Lloyd iterations, with the distances that the triangle
    inequality rules out skipped.

    References
    ----------
    .. [1] M. Qian, C. Zhai. Robust unsupervised feature selection. IJCAI 2013.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from ufsel import RUFS
    >>> X, _ = load_digits(return_X_y=True)
    >>> RUFS(n_features_to_select=10, n_clusters=10, random_state=0).fit(X).transform(X).shape
    (1797, 10)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        **CLUSTER_GRAPH_CONSTRAINTS,
        **ITERATIVE_CONSTRAINTS,
        "nu": [Interval(Real, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "zeta": [Interval(Real, 0, None, closed="left")],
        "local_reg": [Interval(Real, 0, None, closed="neither")],
        "f_reg": [Interval(Real, 0, None, closed="left")],
        "g_l1": [Interval(Real, 0, None, closed="left")],
        "local_kernel": [StrOptions({"heat", "affinity"})],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_neighbors=5, nu=1.0,
                 alpha=1.0, beta=1.0, zeta=1e7, local_reg=0.1, local_kernel="heat",
                 f_reg=0.0, g_l1=0.0, max_iter=20, tol=1e-4, random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.nu = nu
        self.alpha = alpha
        self.beta = beta
        self.zeta = zeta
        self.local_reg = local_reg
        self.local_kernel = local_kernel
        self.f_reg = f_reg
        self.g_l1 = g_l1
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        return {**super()._memory_terms(shape),
                **local_learning_terms(shape, self.n_neighbors, "local regression Laplacian"),
                **embedding_term(shape.n, self.n_clusters, 12)}

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        c = self.n_clusters
        rng = self._start_fit(X)
        sp = sparse.issparse(X)
        x_sq = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp else row_norms_sq(X)

        nu, a, b, z = self.nu, self.alpha, self.beta, self.zeta
        L = local_krr_laplacian(X, self.n_neighbors, reg=self.local_reg, kernel=self.local_kernel,
                                random_state=rng)
        Lp, Ln = pos_neg_parts(L)
        # Elkan: the same Lloyd iterations, fewer distances (many clusters, d in the hundreds)
        G = kmeans_indicator(X, c, random_state=rng, init="random",
                             algorithm="elkan" if not sp and c > 1 else "lloyd")
        if sp:  # least squares through the c x c normal equations (G has full column rank)
            F = np.linalg.lstsq(G.T @ G, np.asarray(X.T @ G).T, rcond=None)[0]
        else:
            F = np.linalg.lstsq(G, X, rcond=None)[0]
        F = np.maximum(F, 0.0)
        F += 0.2 * (F[F > 0].mean() if np.any(F > 0) else 1.0)
        W = weighted_ridge(X, G, np.full(d, b / a), owner=name)

        terms = _RufsTerms(X, L, nu, a, b, z, self.f_reg, self.g_l1, x_sq)
        state = terms.evaluate(G, F, W)
        track = ObjectiveTracker(name, self.max_iter, self.tol, "nu, alpha, beta or zeta",
                                 verbose=self.verbose)
        for _ in range(self.max_iter):
            # W-step: exact minimiser of the majoriser at the current point.
            aw = _half_inv_norms(state["XW"] - G)
            W_new = weighted_ridge(X, G, (b / a) * _half_inv_norms(W), sample_weight=aw,
                                   owner=name)
            trial = terms.evaluate(G, F, W_new, state, changed="W")
            if trial["value"] <= state["value"]:  # always, up to round-off in the solve
                W, state = W_new, trial
            # G-step: split-gradient multiplicative step on the majoriser.
            XW = state["XW"]
            e = 0.5 / np.sqrt(state["res_sq"] + _SMOOTH)
            aw = _half_inv_norms(XW - G)
            XFp, XFn = pos_neg_parts(state["XFt"])
            XWp, XWn = pos_neg_parts(XW)
            P = (2 * e[:, None] * (G @ (F @ F.T) + XFn) + 2 * nu * (Lp @ G)
                 + 2 * a * aw[:, None] * (G + XWn) + z * (G @ (G.T @ G)) + self.g_l1)
            N = 2 * e[:, None] * XFp + 2 * nu * (Ln @ G) + 2 * a * aw[:, None] * XWp + z * G
            G, state = terms.safeguarded(G, (N + _EPS) / (P + _EPS), state,
                                         lambda Gc, st, F=F, W=W: terms.evaluate(Gc, F, W, st, changed="G"))
            # F-step: semi-NMF rule on the majoriser of ||X - G F||_{2,1}.
            e = 0.5 / np.sqrt(state["res_sq"] + _SMOOTH)
            B = np.asarray(X.T @ (G * e[:, None])).T if sp else (G * e[:, None]).T @ X
            Bp, Bn = pos_neg_parts(B)
            Q = G.T @ (G * e[:, None])
            Pf = Bn + Q @ F
            if self.f_reg:
                Pf = Pf + 0.5 * self.f_reg * F / np.sqrt(np.sum(F * F, axis=0) + _SMOOTH)
            F, state = terms.safeguarded(F, (Bp + _EPS) / (Pf + _EPS), state,
                                         lambda Fc, st, G=G, W=W: terms.evaluate(G, Fc, W, st, changed="F"))
            if track.append(state["value"]):
                break
        self.objective_ = track.finish()
        self.n_iter_ = track.n_iter
        self.W_, self.G_, self.F_ = W, G, F
        return row_norms_sq(W)
