"""UFSA: unsupervised feature selection with adaptive locality preserving projection (Yan, Wang 2018)."""

from __future__ import annotations

import contextlib
import warnings
from numbers import Integral, Real

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ..._iterate import ObjectiveTracker
from ...base import BaseSelector, warn_not_converged
from ...graph import (
    adaptive_neighbors,
    can_weights,
    knn_graph,
    sorted_candidate_distances,
    two_hop_candidates,
)
from ...linalg import (
    column_mean_var,
    gram_matrix,
    graph_quadratic,
    l2p_norm,
    l2p_reweight,
    polar_factor,
    sparse_dense_matmul,
    stiefel_quadratic,
)
from ...utils import threads_for
from ...utils._deprecation import renamed_attribute

__all__ = ["UFSA", "ufsa_objective"]

#: ``solver="auto"`` applies the d x d matrix of the W-step implicitly when
#: d exceeds both n and this many features.
_OPERATOR_MIN_D = 2048
#: ``s_step="auto"`` restricts the S-step to two-hop candidates above this many
#: samples (an exact k-NN search among all n points in every S-step grows like n^2
#: where k-d trees prune poorly).
_EXACT_S_STEP_MAX = 20_000
#: ... hopping through each point's this many strongest neighbours.
_HOP_DEGREE = 8
#: With d > n the W-steps may invert A by an n x n push-through (Woodbury) system,
#: up to this many samples (see _use_pushthrough).
_PUSHTHROUGH_MAX_N = 4096
#: Inner conjugate-gradient iterations per outer iteration assumed by _use_pushthrough
#: (the order of what pushed-through fits with c = the number of classes take).
_INNER_PER_OUTER = 50


#: With ``solver="pushthrough"``, a W-step after one that took more than this many
#: trust-region iterations (its start was far from its minimum: the first W-steps, while
#: F moves away from its random start) runs in A's eigenbasis: one d x d decomposition,
#: then iterations that cost O(d c^2), against O(n d c) and an n x n solve per inner step
#: pushed through.
_EIGENBASIS_AFTER_ITERATIONS = 15


def _use_pushthrough(n, d, c):
    """Whether ``solver="auto"`` takes the push-through W-steps (``"pushthrough"``)
    rather than A's eigendecomposition (``"dense"``), for d <= max(n, 2048).

    Only for d > n and n <= _PUSHTHROUGH_MAX_N, and when the inner iterations'
    products, about ``4 n d c + 2 n^2 c`` flops each, ``_INNER_PER_OUTER`` of them per
    W-step, cost less than the d x d eigendecomposition (``d^3``, a lower count than
    LAPACK's, which runs at a higher rate). Wide data with few clusters passes the
    test; data with d close to n, or many clusters, does not.
    """
    if d <= n or n > _PUSHTHROUGH_MAX_N:
        return False
    return _INNER_PER_OUTER * (4 * n * d * c + 2 * n * n * c) < d ** 3


def _use_cholesky(d, c):
    """Whether ``solver="auto"`` takes the Cholesky-preconditioned W-steps
    (``"cholesky"``) rather than A's eigendecomposition (``"dense"``).

    Both form A. The eigendecomposition costs about ``9 d^3`` flops (divide and
    conquer, all vectors); the factorisation ``d^3 / 3``, then each inner iteration
    two triangular solves and a product with A, ``4 d^2 c``, against ``O(d c^2)`` in the
    eigenbasis. With ``_INNER_PER_OUTER`` inner iterations per W-step, the factor pays
    off when ``_INNER_PER_OUTER * 4 d^2 c < 2 d^3`` (a margin for LAPACK's higher rate
    in the decomposition): few columns c against many features d.
    """
    return _INNER_PER_OUTER * 4 * c < 2 * d


def _resolve_solver(solver, n, d, c, gamma):
    """The solver a fit uses: ``"auto"`` resolved (``"operator"`` when d > max(n, 2048),
    ``"pushthrough"`` when :func:`_use_pushthrough`, ``"cholesky"`` when
    :func:`_use_cholesky`, else ``"dense"``), and ``"pushthrough"`` and ``"cholesky"``
    replaced by ``"dense"`` where their inverse does not exist (d <= n for the Woodbury
    inverse; gamma = 0 for both, so that G = gamma diag(g) is not positive and A may
    be singular)."""
    if solver == "auto":
        solver = ("operator" if d > max(n, _OPERATOR_MIN_D)
                  else "pushthrough" if _use_pushthrough(n, d, c)
                  else "cholesky" if _use_cholesky(d, c) else "dense")
    if (solver == "pushthrough" and d <= n) or (solver in ("pushthrough", "cholesky")
                                                and gamma == 0):
        solver = "dense"
    return solver


def _cholesky_inverse(A):
    """``R -> A^{-1} R`` from A's Cholesky factor (A kept), or None when A is not
    numerically positive definite."""
    try:
        factor = linalg.cho_factor(A, lower=True, check_finite=False)
    except linalg.LinAlgError:
        return None

    def inverse(R):
        return linalg.cho_solve(factor, R, check_finite=False)

    return inverse


def _fortran(X):
    return X.flags.f_contiguous and not X.flags.c_contiguous


def _sym_laplacian(S):
    """``L_s = D_s - (S + S^T) / 2`` (sparse), D_s the degrees of the symmetrised S."""
    Ssym = 0.5 * (S + S.T)
    deg = np.asarray(Ssym.sum(axis=1)).ravel()
    return (sparse.diags(deg) - Ssym).tocsr()


def _half_laplacian(S):
    """``K = D_s - S`` (sparse), with ``X^T L_s X = sym(X^T K X)``.

    ``X^T L_s X = X^T D_s X - (X^T S X + X^T S^T X) / 2`` and ``X^T S^T X`` is the
    transpose of ``X^T S X``, so the symmetric part of ``X^T (D_s - S) X`` is the
    graph term. K has the non-zeros of S and the diagonal, about half those of
    ``L_s`` (S + S^T), which halves the sparse product ``K X``, the dearest part of
    the W-step's matrix at large n.
    """
    deg = 0.5 * (np.asarray(S.sum(axis=1)).ravel() + np.asarray(S.sum(axis=0)).ravel())
    return (sparse.diags(deg) - S).tocsr()


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


class _WStep:
    """The quadratic of the W-step, ``A = 2 X^T L_s X + alpha X^T H X + gamma diag(g)``, as
    a dense matrix (d small) or as products only with its diagonal (d large, for the
    trust-region preconditioner)."""

    def __init__(self, X, alpha, dense):
        self.X = X
        self.alpha = alpha
        self.dense = dense
        self.mu = np.asarray(X.mean(axis=0)).ravel()
        self.n = X.shape[0]
        if dense:
            if sparse.issparse(X):
                C = gram_matrix(X, owner="UFSA")
                C -= self.n * np.outer(self.mu, self.mu)
            else:
                # Centre first: X^T X - n mu mu^T cancels when |mean| >> std.
                Xc = X - self.mu
                C = gram_matrix(Xc, owner="UFSA")
            self.XtHX = 0.5 * (C + C.T)
        else:
            # diag(X^T H X)_k = n var_k, for the trust-region preconditioner
            self.diag_xthx = self.n * column_mean_var(X)[1]

    def center(self, U):
        return U - U.mean(axis=0)

    def xthf(self, F):
        """``X^T H F``."""
        return np.asarray(self.X.T @ self.center(F))

    def apply_n(self, L, U):
        """``N U`` for an (n, k) block, ``N = 2 L_s + alpha H`` (L the graph Laplacian L_s)."""
        return 2.0 * (L @ U) + self.alpha * self.center(U)

    def xv(self, V):
        """``X V``; with a Fortran-ordered X as ``(V^T X^T)^T``, whose output has n columns
        (faster with OpenBLAS)."""
        X = self.X
        if sparse.issparse(X):
            return np.asarray(X @ V)
        return (V.T @ X.T).T if _fortran(X) else X @ V

    def xtu(self, U):
        """``X^T U``; with a Fortran-ordered X as ``(U^T X)^T`` (faster with OpenBLAS)."""
        X = self.X
        if sparse.issparse(X):
            return np.asarray(X.T @ U)
        return (U.T @ X).T if _fortran(X) else X.T @ U

    def product(self, L, g, gamma):
        """``V -> A V`` for (d, k) blocks, without forming A:
        ``X^T (N (X V)) + gamma g * V``, O(nnz(X) k + nnz(S) k); L the graph
        Laplacian L_s (:func:`_sym_laplacian`)."""
        gg = gamma * g[:, None]

        def matmat(V):
            out = self.xtu(self.apply_n(L, self.xv(V)))
            out += gg * V
            return out

        return matmat

    def pushthrough_inverse(self, L, g, gamma):
        """``R -> A^{-1} R`` for d > n by the Woodbury identity, without forming A.

        ``A = G + X^T N X`` with ``G = gamma diag(g)`` (positive) and the n x n
        ``N = 2 L_s + alpha H``, so
        ``A^{-1} = G^{-1} - G^{-1} X^T N T^{-1} X G^{-1}``, ``T = I + X G^{-1} X^T N``
        (push-through; N need not be invertible, and T's eigenvalues, those of
        ``I + N^{1/2} X G^{-1} X^T N^{1/2}``, are at least 1). With the symmetric
        ``P = N T^{-1}`` (solved for once), ``A^{-1} R = G^{-1} (R - X^T P X G^{-1} R)``.
        Forming T costs O(n^2 d) (``X G^{-1} X^T``) and P O(n^3); each application
        O(nnz(X) k + n^2 k), two products with X and one with P; memory three n x n
        arrays. None when ``gamma g`` has a zero (gamma = 0: A may be singular).
        """
        X, n = self.X, self.n
        Gd = gamma * g
        if not np.all(Gd > 0):
            return None
        XGi = X @ sparse.diags(1.0 / Gd) if sparse.issparse(X) else X / Gd
        K = XGi @ X.T
        K = K.toarray() if sparse.issparse(K) else np.asarray(K)
        # T = I + K N = I + 2 (L_s K)^T + alpha (K - K 1 1^T / n)  (K, L_s symmetric)
        T = 2.0 * sparse_dense_matmul(L, K).T
        T += self.alpha * (K - K.mean(axis=1, keepdims=True))
        del K
        T[np.diag_indices(n)] += 1.0
        # P = N T^{-1}, so that A^{-1} R = G^{-1} (R - X^T P X G^{-1} R): one n x n
        # product per application instead of a triangular solve and a product with N.
        # P = (I + N K)^{-1} N (push-through) is symmetric; P^T = T^{-T} N is solved for,
        # and its rounding asymmetry removed, so the preconditioner is exactly symmetric.
        Nd = 2.0 * L.toarray() if sparse.issparse(L) else 2.0 * np.asarray(L)
        Nd += self.alpha * (np.eye(n) - 1.0 / n)
        P = linalg.solve(T.T, Nd, overwrite_a=True, overwrite_b=True, check_finite=False)
        P = 0.5 * (P + P.T)
        inv_gd = (1.0 / Gd)[:, None]

        def inverse(R):
            Rg = R * inv_gd
            out = self.xtu(P @ self.xv(Rg))
            out *= inv_gd
            np.subtract(Rg, out, out=out)
            return out

        return inverse

    def matrix(self, S, g, gamma):
        """A (dense array, diagonal None) or (LinearOperator, diagonal of A), for the graph S."""
        X = self.X
        d = X.shape[1]
        if self.dense:
            # 2 X^T L_s X = 2 sym(X^T K X), K = D_s - S (see _half_laplacian).
            KX = sparse_dense_matmul(_half_laplacian(S), X)
            XtKX = X.T @ KX
            XtKX = XtKX.toarray() if sparse.issparse(XtKX) else np.asarray(XtKX)
            A = (XtKX + XtKX.T) + self.alpha * self.XtHX
            A[np.diag_indices(d)] += gamma * g
            return A, None
        L = _sym_laplacian(S)
        diag = 2.0 * graph_quadratic(X, L) + self.alpha * self.diag_xthx + gamma * g
        product = self.product(L, g, gamma)

        def matmat(V):
            return product(V.reshape(d, -1))

        op = splinalg.LinearOperator((d, d), matvec=lambda v: matmat(v).ravel(),
                                     matmat=matmat, rmatvec=lambda v: matmat(v).ravel(),
                                     dtype=np.float64)
        return op, diag


class UFSA(BaseSelector):
    """Unsupervised Feature Selection with Adaptive locality preserving projection (UFSA).

    Learns an orthonormal projection W, soft labels F in [0, 1] and an adaptive
    neighbour graph S on the projected samples together: S keeps neighbours close
    after projection, F is regressed on the projection, and an l2,1 penalty makes W
    row-sparse (Yan and Wang, 2018 [1]_). Features are ranked by the row norms of W.

    Sparse input stays sparse. Constant features are left out and scored 0.

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
    random_state : int, RandomState or None, default=None
        Seeds the random initial F (W starts from it, see step 1).
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
        S, rows on the simplex.
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
        ``"exact"`` or ``"two_hop"``, the S-step used.
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
    - ``s_step="two_hop"`` restricts row i of the S-step to its current neighbours
      and their neighbours (one local-join round of NN-descent,
      :func:`ufsel.graph.two_hop_candidates`). The current support is among the
      candidates, so Eq. (7) still never increases; a point outside the two-hop
      neighbourhood enters over several iterations instead of one.

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
    gamma makes the inner iterations multiply. Every solver takes each W-step to
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

    _sparse_native = True  # never densifies sparse X
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
        "solver": [StrOptions({"auto", "dense", "cholesky", "pushthrough", "operator"})],
        "s_step": [StrOptions({"auto", "exact", "two_hop"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, alpha=1.0, gamma=1.0,
                 n_neighbors=15, standardize=True, lambda_update="adaptive", eps=1e-10,
                 max_iter=300, tol=1e-4, w_tol=1e-11, w_max_iter=1000, solver="auto",
                 s_step="auto", random_state=None, verbose=0):
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
        self.random_state = random_state
        self.verbose = verbose

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
        # the base runs a fit under the thread policy: one thread for a small problem
        return self._fit_iterations(X, serial=threads_for(self._problem_size(X)) == 1)

    def _fit_iterations(self, X, serial):
        n, d = X.shape
        c, k = self.n_clusters, self.n_neighbors
        alpha, gamma, eps = self.alpha, self.gamma, self.eps
        rng = check_random_state(self.random_state)
        X, keep, scale = self._prepare(X)
        dk = X.shape[1]
        solver = _resolve_solver(self.solver, n, dk, c, gamma)
        # the operator solver's alternative, A's diagonal as the preconditioner, needs
        # many more trust-region iterations when d > n
        pushthrough = solver == "pushthrough" or (
            solver == "operator" and n < dk and n <= _PUSHTHROUGH_MAX_N)
        if pushthrough and not sparse.issparse(X):
            # Fortran order for the inner iterations' products (_WStep.xv, xtu); only for
            # push-through fits (on tall data, with the dense solver, C order is faster)
            X = np.asfortranarray(X)
        step = _WStep(X, alpha, dense=(solver != "operator"))
        adaptive = self.lambda_update == "adaptive"
        two_hop = self.s_step == "two_hop" or (self.s_step == "auto" and n > _EXACT_S_STEP_MAX)

        # Initialisation (Algorithm 3.1, steps 1-2).
        _, ind = knn_graph(X, min(k + 3, n - 1), random_state=rng)
        d2, ind = sorted_candidate_distances(X, ind)
        S, _ = can_weights(d2[:, :k + 1], ind[:, :k + 1], k)
        F = rng.uniform(0.0, 1.0, size=(n, c))
        W = polar_factor(step.xthf(F))
        lambdas = None
        n_candidates = None
        track = ObjectiveTracker("UFSA", self.max_iter, self.tol, verbose=self.verbose,
                                 advice=f"Rescale the data or reduce alpha (got {alpha:g}) / "
                                        f"gamma (got {gamma:g}).")
        objective = track.values
        w_converged, w_steps = [], []
        converged = False
        for it in range(self.max_iter):
            # W-step (b eliminated, Eq. 9-12), under W^T W = I.
            g = l2p_reweight(W, 1.0, eps)
            B = alpha * step.xthf(F)
            # Riemannian trust regions to a first-order tolerance: the W-step is solved,
            # not merely improved, so the result does not depend on the solver's path.
            # Serial BLAS: the products are d x c blocks, too small for threads to pay off.
            # How A is given decides the cost of the inner conjugate gradients:
            # - push-through (d > n, see _use_pushthrough; never for the dense solver's
            #   first W-step, which needs A's eigenvectors for its start): products with
            #   X only, preconditioned by A^{-1} from an n x n system (Woodbury);
            # - dense: the steps run in A's eigenbasis (one O(d^3) decomposition, then
            #   O(d c^2) per Hessian product instead of O(d^2 c)), where the eigenvalues
            #   also precondition the inner conjugate gradients. Divide and conquer: every
            #   eigenvector is needed, and it is faster than the default MRRR driver
            #   here (A is not used afterwards);
            # - cholesky: A formed, its Cholesky factor as the preconditioner A^{-1}
            #   (never for the first W-step, as push-through), products with A;
            # - operator: products with X, preconditioned as push-through up to 4096
            #   samples and by A's diagonal above.
            eig = inverse = diag = None
            if pushthrough and (not step.dense or (
                    it > 0 and w_steps[-1] <= _EIGENBASIS_AFTER_ITERATIONS)):
                L = _sym_laplacian(S)
                inverse = step.pushthrough_inverse(L, g, gamma)
            if inverse is not None:
                A = step.product(L, g, gamma)
            else:
                A, diag = step.matrix(S, g, gamma)
                if solver == "cholesky" and it > 0 and (
                        w_steps[-1] <= _EIGENBASIS_AFTER_ITERATIONS):
                    inverse = _cholesky_inverse(A)
                if step.dense and inverse is None:
                    eig = linalg.eigh(A, driver="evd", overwrite_a=True, check_finite=False)
            if it == 0 and eig is not None:
                # The first W-step starts in the span of A's c smallest eigenvectors,
                # rotated towards B (see the class's Notes): a smooth function of A and
                # B, close to the minimum, so the solver's path is short and does not
                # wander through saddle regions where rounding decides the way.
                Qc = eig[1][:, :c]
                W = Qc @ polar_factor(Qc.T @ B)
            # (a fit already running serially skips threadpoolctl's per-call library scan)
            with contextlib.nullcontext() if serial else threadpool_limits(limits=1,
                                                                             user_api="blas"):
                W, w_hist, w_ok = stiefel_quadratic(A, B, W, method="trust_region",
                                                    max_iter=self.w_max_iter, gtol=self.w_tol,
                                                    return_converged=True, eig=eig, diag=diag,
                                                    inverse=inverse)
            w_converged.append(w_ok)
            w_steps.append(len(w_hist) - 1)
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
                converged = True
                break
        if not converged and self.max_iter > 1:
            warn_not_converged("UFSA", self.max_iter, track.last_change, self.tol)
        n_bad = len(w_converged) - int(np.sum(w_converged))
        if n_bad:
            warnings.warn(
                f"UFSA: {n_bad} of {len(w_converged)} W-steps stopped at w_max_iter="
                f"{self.w_max_iter} trust-region iterations (or could not decrease further) "
                f"before their Riemannian gradient fell below w_tol={self.w_tol:g} "
                f"(see w_step_converged_). Increase w_max_iter or w_tol.",
                ConvergenceWarning, stacklevel=3)
        W_full = np.zeros((d, c))
        W_full[keep] = W
        W = W_full
        self.components_ = W
        self.intercept_ = b
        self.labels_matrix_ = F
        self.similarity_ = S
        self.lambdas_ = lambdas
        self.feature_scale_ = scale
        self.constant_features_ = ~keep
        self.objective_ = np.asarray(objective)
        self.w_step_converged_ = np.asarray(w_converged[:len(objective)], dtype=bool)
        self.w_step_iter_ = np.asarray(w_steps[:len(objective)], dtype=int)
        self.n_iter_ = len(objective)
        self.solver_ = solver
        self.s_step_ = "two_hop" if two_hop else "exact"
        return np.sqrt(np.einsum("ij,ij->i", W, W))


def _orthonormality_error(W):
    """``max |W^T W - I|`` (used by the tests and benchmarks)."""
    return float(np.max(np.abs(W.T @ W - np.eye(W.shape[1]))))

