"""The W-step of UFSA and the rule that chooses its solver.

The W-step minimises ``Tr(W^T A W) - 2 Tr(W^T B)`` over ``W^T W = I`` with
``A = 2 X^T L_s X + alpha X^T H X + gamma diag(g)`` and ``B = alpha X^T H F``
(:class:`~ufsel.UFSA`, Notes, step 2), by Riemannian trust regions
(:func:`ufsel.linalg.stiefel_quadratic`). :func:`resolve_solver` chooses, once per fit,
how A is given to them; :class:`WStepSolver` then solves every W-step of the fit that
way. Every solver takes each W-step to the same first-order tolerance, so they differ in
cost, not in the result (to that tolerance).
"""

from __future__ import annotations

import contextlib

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from threadpoolctl import threadpool_limits

from ..._iterate import warn_steps_not_converged
from ...linalg import (
    centered_row_space,
    column_mean_var,
    gram_matrix,
    graph_quadratic,
    polar_factor,
    sparse_dense_matmul,
    stiefel_quadratic,
)

__all__ = ["SOLVERS", "WStepQuadratic", "WStepSolver", "record_fit", "resolve_solver",
           "row_space_basis"]

#: The W-step solvers (the ``solver`` parameter's values besides ``"auto"``).
SOLVERS = ("dense", "cholesky", "pushthrough", "operator")
#: ``solver="auto"`` applies the d x d matrix of the W-step implicitly when
#: d exceeds both n and this many features.
OPERATOR_MIN_D = 2048
#: With d > n the W-steps may invert A by an n x n push-through (Woodbury) system,
#: up to this many samples (see use_pushthrough).
PUSHTHROUGH_MAX_N = 4096
#: Inner conjugate-gradient iterations per outer iteration assumed by use_pushthrough
#: (the order of what pushed-through fits with c = the number of classes take).
INNER_PER_OUTER = 50
#: With ``solver="pushthrough"`` or ``"cholesky"``, a W-step after one that took more
#: than this many trust-region iterations (its start was far from its minimum: the
#: first W-steps, while F moves away from its random start) runs in A's eigenbasis: one
#: d x d decomposition, then iterations that cost O(d c^2), against O(n d c) and an
#: n x n solve per inner step pushed through.
EIGENBASIS_AFTER_ITERATIONS = 15


def use_pushthrough(n, d, c):
    """Whether ``solver="auto"`` takes the push-through W-steps (``"pushthrough"``)
    rather than A's eigendecomposition (``"dense"``), for d <= max(n, 2048).

    Only for d > n and n <= PUSHTHROUGH_MAX_N, and when the inner iterations'
    products, about ``4 n d c + 2 n^2 c`` flops each, ``INNER_PER_OUTER`` of them per
    W-step, cost less than the d x d eigendecomposition (``d^3``, a lower count than
    LAPACK's, which runs at a higher rate). Wide data with few clusters passes the
    test; data with d close to n, or many clusters, does not.
    """
    if d <= n or n > PUSHTHROUGH_MAX_N:
        return False
    return INNER_PER_OUTER * (4 * n * d * c + 2 * n * n * c) < d ** 3


def use_cholesky(d, c):
    """Whether ``solver="auto"`` takes the Cholesky-preconditioned W-steps
    (``"cholesky"``) rather than A's eigendecomposition (``"dense"``).

    Both form A. The eigendecomposition costs about ``9 d^3`` flops (divide and
    conquer, all vectors); the factorisation ``d^3 / 3``, then each inner iteration
    two triangular solves and a product with A, ``4 d^2 c``, against ``O(d c^2)`` in the
    eigenbasis. With ``INNER_PER_OUTER`` inner iterations per W-step, the factor pays
    off when ``INNER_PER_OUTER * 4 d^2 c < 2 d^3`` (a margin for LAPACK's higher rate
    in the decomposition): few columns c against many features d.
    """
    return INNER_PER_OUTER * 4 * c < 2 * d


def resolve_solver(solver, n, d, c, gamma):
    """The solver a fit uses, chosen once per fit from its shape.

    ``"auto"`` resolves to ``"operator"`` when d > max(n, 2048), ``"pushthrough"`` when
    :func:`use_pushthrough`, ``"cholesky"`` when :func:`use_cholesky`, else ``"dense"``.
    ``"pushthrough"`` and ``"cholesky"`` are replaced by ``"dense"`` where their inverse
    does not exist (d <= n for the Woodbury inverse; gamma = 0 for both, so that
    G = gamma diag(g) is not positive and A may be singular).
    """
    if solver == "auto":
        solver = ("operator" if d > max(n, OPERATOR_MIN_D)
                  else "pushthrough" if use_pushthrough(n, d, c)
                  else "cholesky" if use_cholesky(d, c) else "dense")
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


class WStepQuadratic:
    """The quadratic of the W-step, ``A = 2 X^T L_s X + alpha X^T H X + gamma diag(g)``, as
    a dense matrix (``dense=True``) or as products only, with its diagonal (for the
    trust-region preconditioner), and ``A^{-1}`` by the Woodbury identity for d > n.

    With ``basis`` Q (d x r, orthonormal columns; X then holds the coordinates ``X Q``)
    the quadratic is ``Q^T A Q``, the W-step's restricted to ``W = Q V``: its l2,1 term
    is ``gamma Q^T diag(g) Q`` (dense only)."""

    def __init__(self, X, alpha, dense, basis=None):
        self.X = X
        self.alpha = alpha
        self.dense = dense
        self.basis = basis
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
            if self.basis is None:
                A[np.diag_indices(d)] += gamma * g
            else:
                Q = self.basis
                penalty = Q.T @ (Q * (gamma * g)[:, None])
                A += 0.5 * (penalty + penalty.T)
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


class WStepSolver:
    """Solves the successive W-steps of one fit by one solver (see :func:`resolve_solver`).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)
        The prepared data (constant features left out, scaled). :attr:`X` is the same
        data in the memory layout the solver's products prefer; the fit uses it
        throughout, so that its products do not depend on the solver's choice twice.
    alpha, gamma : float
        The weights of the regression and l2,1 terms.
    solver : {"dense", "cholesky", "pushthrough", "operator"}
        A resolved solver (:func:`resolve_solver`):

        - ``"dense"``: A formed and decomposed in every W-step; the trust-region steps
          run in A's eigenbasis (O(d c^2) per Hessian product), where the eigenvalues
          also precondition the inner conjugate gradients. Divide and conquer: every
          eigenvector is needed, and it is faster than the MRRR driver here;
        - ``"cholesky"``: A formed; the first W-step, and any after one of more than
          :data:`EIGENBASIS_AFTER_ITERATIONS` trust-region iterations, as ``"dense"``;
          the others preconditioned by A's Cholesky factor, with products with A;
        - ``"pushthrough"`` (d > n): the same schedule, the others by products with X,
          preconditioned by ``A^{-1}`` from an n x n (Woodbury) system;
        - ``"operator"``: products with X only, preconditioned by the Woodbury inverse
          when d > n and n <= :data:`PUSHTHROUGH_MAX_N`, by A's diagonal otherwise.
    w_tol, w_max_iter : float, int
        The trust-region tolerance and iteration guard of each W-step.
    serial : bool
        Whether the fit already runs on one BLAS thread (otherwise each W-step is put
        on one: its products are d x c blocks, too small for threads to pay off).
    basis : ndarray of shape (d, r), optional
        Orthonormal columns spanning the subspace W is restricted to (``W = Q V``, see
        :func:`row_space_basis`); the W-steps then run on the r x r quadratic
        ``Q^T A Q`` (``"dense"`` or ``"cholesky"`` only). W and g stay in the d
        features.
    """

    def __init__(self, X, alpha, gamma, solver, *, w_tol, w_max_iter, serial, basis=None):
        if basis is not None and solver not in ("dense", "cholesky"):
            raise ValueError(  # pragma: no cover - resolved by the caller
                f"a W-step restricted to a basis needs a formed matrix, got {solver!r}")
        n, d = X.shape
        # the operator solver's alternative, A's diagonal as the preconditioner, needs
        # many more trust-region iterations when d > n
        self.pushthrough = solver == "pushthrough" or (
            solver == "operator" and n < d and n <= PUSHTHROUGH_MAX_N)
        if self.pushthrough and not sparse.issparse(X):
            # Fortran order for the inner iterations' products (WStepQuadratic.xv, xtu);
            # only for push-through fits (on tall data, with the dense solver, C order is
            # faster)
            X = np.asfortranarray(X)
        self.X = X
        self.solver = solver
        self.gamma = gamma
        self.w_tol, self.w_max_iter, self.serial = w_tol, w_max_iter, serial
        self.basis = basis
        self.quadratic = WStepQuadratic(X if basis is None else np.asarray(X @ basis), alpha,
                                        dense=(solver != "operator"), basis=basis)
        self._operands = {"dense": self._dense, "cholesky": self._cholesky,
                          "pushthrough": self._pushthrough,
                          "operator": self._operator}[solver]
        self._last_iterations = None

    def _eigenbasis_due(self):
        """The first W-step, or one after a W-step of more than
        :data:`EIGENBASIS_AFTER_ITERATIONS` trust-region iterations."""
        return (self._last_iterations is None
                or self._last_iterations > EIGENBASIS_AFTER_ITERATIONS)

    @staticmethod
    def _decompose(A):
        return linalg.eigh(A, driver="evd", overwrite_a=True, check_finite=False)

    def _dense(self, S, g):
        A, _ = self.quadratic.matrix(S, g, self.gamma)
        return A, None, self._decompose(A), None

    def _cholesky(self, S, g):
        A, _ = self.quadratic.matrix(S, g, self.gamma)
        inverse = None if self._eigenbasis_due() else _cholesky_inverse(A)
        if inverse is None:
            return A, None, self._decompose(A), None
        return A, None, None, inverse

    def _pushthrough(self, S, g):
        if not self._eigenbasis_due():
            L = _sym_laplacian(S)
            inverse = self.quadratic.pushthrough_inverse(L, g, self.gamma)
            if inverse is not None:
                return self.quadratic.product(L, g, self.gamma), None, None, inverse
        A, _ = self.quadratic.matrix(S, g, self.gamma)
        return A, None, self._decompose(A), None

    def _operator(self, S, g):
        if self.pushthrough:
            L = _sym_laplacian(S)
            inverse = self.quadratic.pushthrough_inverse(L, g, self.gamma)
            if inverse is not None:
                return self.quadratic.product(L, g, self.gamma), None, None, inverse
        A, diag = self.quadratic.matrix(S, g, self.gamma)
        return A, diag, None, None

    def start(self, F):
        """The initial W, the polar factor of ``X^T H F`` (in the basis' span, if any)."""
        W = polar_factor(self.quadratic.xthf(F))
        return W if self.basis is None else self.basis @ W

    def __call__(self, S, g, B, W):
        """One W-step from W, for the graph S, the l2,1 weights g and ``B = alpha X^T H F``
        (B in the basis' coordinates, ``alpha Q^T X^T H F``, when there is one).

        Returns
        -------
        W : ndarray of shape (d, c)
        n_iter : int
            Trust-region iterations taken.
        converged : bool
            Whether the Riemannian gradient met ``w_tol`` within ``w_max_iter``.
        """
        first = self._last_iterations is None
        if self.basis is not None:
            W = self.basis.T @ W
        A, diag, eig, inverse = self._operands(S, g)
        if first and eig is not None:
            # The first W-step starts in the span of A's c smallest eigenvectors, rotated
            # towards B (see UFSA's Notes): a smooth function of A and B, close to the
            # minimum, so the solver's path is short and does not wander through saddle
            # regions where rounding decides the way.
            Qc = eig[1][:, :W.shape[1]]
            W = Qc @ polar_factor(Qc.T @ B)
        # (a fit already running serially skips threadpoolctl's per-call library scan)
        with (contextlib.nullcontext() if self.serial
              else threadpool_limits(limits=1, user_api="blas")):
            W, history, converged = stiefel_quadratic(
                A, B, W, method="trust_region", max_iter=self.w_max_iter, gtol=self.w_tol,
                return_converged=True, eig=eig, diag=diag, inverse=inverse)
        self._last_iterations = len(history) - 1
        if self.basis is not None:
            W = self.basis @ W
        return W, self._last_iterations, converged


def row_space_basis(X):
    """An orthonormal basis Q (d x r) of the row space of the centred X, r its numerical
    rank (at most n - 1).

    UFSA's graph and regression terms see W only through ``H X W`` (the intercept b
    absorbs the mean), so a direction of W outside this space changes no term but the
    l2,1 penalty. For d > n by :func:`ufsel.linalg.centered_row_space` (the n x n
    centred Gram matrix); otherwise from the eigenvectors of the d x d
    ``X^T H X`` with eigenvalues above ``lambda_max max(n, d) eps``, the same
    threshold (on data of full column rank: all of R^d, rotated).
    """
    n, d = X.shape
    if d > n:
        return centered_row_space(X)
    mu = np.asarray(X.mean(axis=0)).ravel()
    if sparse.issparse(X):
        C = gram_matrix(X, owner="UFSA") - n * np.outer(mu, mu)
    else:
        C = gram_matrix(X - mu, owner="UFSA")
    lam, U = linalg.eigh(0.5 * (C + C.T), check_finite=False)
    keep = lam > max(lam[-1], 0.0) * max(n, d) * np.finfo(np.float64).eps
    return np.ascontiguousarray(U[:, keep])


def record_fit(est, W, keep, n_features, objective, w_converged, w_steps):
    """Store what both of UFSA's forms report after their loop, and return the full W.

    Warns once when W-steps stopped at ``w_max_iter``; sets ``W_`` (W, of the kept
    non-constant features, padded with zero rows to all ``n_features``),
    ``objective_``, ``w_step_converged_``, ``w_step_iter_`` and ``n_iter_``.

    Parameters
    ----------
    est : UFSA
        The estimator being fitted.
    W : ndarray of shape (n_kept, n_clusters)
        The projection of the kept features.
    keep : ndarray
        Index (or mask) of the kept features among the ``n_features``.
    n_features : int
        d.
    objective : list of float
        The objective after each iteration.
    w_converged, w_steps : list
        Whether each W-step converged, and its iterations.

    Returns
    -------
    W_full : ndarray of shape (n_features, n_clusters)
    """
    n_bad = len(w_converged) - int(np.sum(w_converged))
    if n_bad:
        warn_steps_not_converged(
            "UFSA", f"{n_bad} of {len(w_converged)} W-steps", "w_max_iter",
            est.w_max_iter, "w_tol", est.w_tol, attribute="w_step_converged_")
    W_full = np.zeros((n_features, W.shape[1]))
    W_full[keep] = W
    est.W_ = W_full
    est.objective_ = np.asarray(objective)
    est.w_step_converged_ = np.asarray(w_converged[:len(objective)], dtype=bool)
    est.w_step_iter_ = np.asarray(w_steps[:len(objective)], dtype=int)
    est.n_iter_ = len(objective)
    return W_full
