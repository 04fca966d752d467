"""Quadratic problems on the Stiefel manifold: ``min Tr(W^T A W) - 2 Tr(W^T B)`` s.t. ``W^T W = I``.

The solver is the generalized power iteration (GPI) of Nie, Zhang and Li
("A generalized power iteration method for solving quadratic problem on the
Stiefel manifold", Sci. China Inf. Sci. 60, 2017). With ``alpha >= lambda_max(A)``
the matrix ``A~ = alpha I - A`` is positive semi-definite and the problem is
equivalent to ``max Tr(W^T A~ W) + 2 Tr(W^T B)``. The convex function
``Tr(W^T A~ W)`` lies above its tangent at the current ``W_t``, so
``M = 2 A~ W_t + 2 B`` and ``W_{t+1} = argmax_{W^T W = I} Tr(W^T M) = U V^T``
(thin SVD ``M = U Sigma V^T``, the orthogonal Procrustes solution) never
increases the objective, and every iterate satisfies ``W^T W = I`` to
machine precision because it is a polar factor.

When the spectrum of A is spread (a few huge diagonal entries, as an l2,1
reweighting produces, or data variances over several orders of magnitude),
the safe ``alpha = lambda_max(A)`` makes each step tiny: the update is a
gradient step of length ``1/alpha`` followed by the polar retraction, and the
minimisation converges at the rate ``1 - gap/alpha``. ``adaptive=True``
therefore uses a smaller shift, the Barzilai-Borwein estimate of the curvature
along the last step (computed from Riemannian gradients), and accepts the step
only if the objective did not increase; on rejection the shift is doubled, up
to the safe value, at which the step is guaranteed to be accepted. The
sequence of accepted objectives is thus non-increasing in every case.

A may be a dense array, a sparse matrix, or a ``LinearOperator`` / callable that
maps a (d, k) block to ``A @ block``: only products are used, so a d x d
matrix never has to exist (the push-through of ``X^T L X`` when d > n).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from sklearn.utils import check_random_state

from ._eigen import partial_eigh

__all__ = ["stiefel_quadratic", "stiefel_quadratic_objective", "polar_factor"]


#: ``polar_factor`` takes the Gram route when ``sigma_min(M)^2 / sigma_max(M)^2`` is above
#: this: its error in ``W^T W = I`` is about ``eps / ratio`` (below 1e-12).
_GRAM_POLAR_MIN_RATIO = 1e-4


def polar_factor(M):
    """``U V^T`` from the thin SVD of M: the orthonormal matrix closest to M.

    It solves ``max_{W^T W = I} Tr(W^T M)`` (orthogonal Procrustes). For a
    tall, well-conditioned M (``cond(M) < 100``) it is computed as
    ``M (M^T M)^{-1/2}`` from the eigendecomposition of the k x k Gram matrix,
    the same matrix to rounding (``W^T W = I`` to about ``eps cond(M)^2``,
    below 1e-12) at a sixth of the cost of an SVD of a 1000 x 10 block;
    otherwise from the thin SVD.
    """
    M = np.asarray(M, dtype=np.float64)
    if M.ndim == 2 and M.shape[0] >= M.shape[1] >= 1:
        s2, V = np.linalg.eigh(M.T @ M)
        if s2[0] > _GRAM_POLAR_MIN_RATIO * s2[-1] and s2[-1] > 0:
            return M @ ((V / np.sqrt(s2)) @ V.T)
    U, _, Vt = linalg.svd(M, full_matrices=False, check_finite=False)
    return U @ Vt


def _as_product(A):
    if callable(A) and not isinstance(A, (np.ndarray, splinalg.LinearOperator)) \
            and not sparse.issparse(A):
        return A
    if isinstance(A, splinalg.LinearOperator):
        return A.matmat
    return lambda V: np.asarray(A @ V)


def _riemannian_gradient(W, AW, B):
    """Half the Riemannian gradient of ``Tr(W^T A W) - 2 Tr(W^T B)`` (embedded metric)."""
    G = AW - B
    WtG = W.T @ G
    return G - W @ (0.5 * (WtG + WtG.T))


def stiefel_quadratic_objective(A, B, W):
    """``Tr(W^T A W) - 2 Tr(W^T B)``; A as in :func:`stiefel_quadratic`."""
    AW = _as_product(A)(W)
    return float(np.sum(W * (AW - 2.0 * B)))


def _largest_eig_bound(A, d, random_state):
    """An upper bound (with a small safety margin) of ``lambda_max(A)``."""
    if isinstance(A, np.ndarray) and d <= 300:
        w = linalg.eigvalsh(A, subset_by_index=[d - 1, d - 1], check_finite=False)
        lam = float(w[0])
    else:
        op = A
        if callable(A) and not isinstance(A, splinalg.LinearOperator) and not sparse.issparse(A):
            op = splinalg.LinearOperator((d, d), matvec=lambda v: A(v.reshape(-1, 1)).ravel(),
                                         matmat=A, dtype=np.float64)
        w, _ = partial_eigh(op, 1, which="largest", method="arpack", tol=1e-6,
                            random_state=random_state)
        lam = float(w[0])
    # ARPACK's Ritz value approaches lambda_max from below; the margin covers
    # that, and the acceptance test below catches anything left.
    return lam + 1e-3 * abs(lam) + np.finfo(float).eps


def stiefel_quadratic(A, B, W0=None, *, alpha=None, adaptive=True, max_iter=100, tol=1e-8,
                      random_state=None, gtol=None, return_converged=False, eig=None):
    """Minimise ``Tr(W^T A W) - 2 Tr(W^T B)`` subject to ``W^T W = I``.

    Generalized power iteration (Nie, Zhang, Li 2017); see the module
    docstring for why each iterate keeps ``W^T W = I`` and never increases
    the objective.

    Parameters
    ----------
    A : ndarray, sparse matrix, LinearOperator or callable, shape (d, d)
        Symmetric. A callable must map a (d, k) array to ``A @ array``.
    B : ndarray of shape (d, k)
    W0 : ndarray of shape (d, k), optional
        Starting point (orthonormalised by its polar factor). Defaults to the
        polar factor of B (or of a random matrix if B is zero).
    alpha : float, optional
        An upper bound of ``lambda_max(A)``. Computed when omitted (dense
        ``eigvalsh`` for an ndarray, ARPACK otherwise).
    adaptive : bool, default=True
        Try Barzilai-Borwein shifts first (accepted only when the objective
        does not increase), falling back to ``alpha``; False is the plain GPI.
    max_iter : int, default=100
    tol : float, default=1e-8
        Stop when the relative decrease of the objective is below ``tol``.
    random_state : int, RandomState or None
        Seeds the eigenvalue estimate and a random start.
    gtol : float, optional
        Also stop (and only then count as converged) when the Riemannian
        gradient is small: ``||G - W sym(W^T G)||_F <= gtol (||A W||_F + ||B||_F)``,
        ``G = A W - B``, a first-order optimality test that, unlike the
        relative decrease, does not depend on the size of the objective.
        With ``gtol`` given, ``tol`` is not used.
    return_converged : bool, default=False
        Also return whether the stopping test was met within ``max_iter``.
    eig : tuple (eigenvalues, eigenvectors), optional
        The full eigendecomposition ``A = Q diag(lam) Q^T`` (then ``A`` is not
        used). The iteration runs on ``Q^T W`` and ``Q^T B``, where A is
        diagonal, and returns ``Q (Q^T W)``: the same iterates as in the
        original basis (the polar factor commutes with an orthogonal change of
        basis, ``polar(Q M) = Q polar(M)``, and the objective is invariant), but
        each step costs O(d k^2) instead of a product with A. Worth it when
        many steps follow one decomposition.

    Returns
    -------
    W : ndarray of shape (d, k)
        With orthonormal columns.
    objective : ndarray
        Objective at W0 followed by one value per accepted iteration
        (non-increasing).
    converged : bool
        Only with ``return_converged=True``.
    """
    B = np.asarray(B, dtype=np.float64)
    d, k = B.shape
    if eig is not None:
        lam, Q = eig
        lam = np.asarray(lam, dtype=np.float64).reshape(-1, 1)
        if alpha is None:
            alpha = float(lam.max()) * (1.0 + 1e-12) + np.finfo(float).tiny
        W0 = None if W0 is None else Q.T @ np.asarray(W0, dtype=np.float64)
        out = stiefel_quadratic(lambda V: lam * V, Q.T @ B, W0, alpha=alpha, adaptive=adaptive,
                                max_iter=max_iter, tol=tol, random_state=random_state,
                                gtol=gtol, return_converged=return_converged)
        return (Q @ out[0],) + tuple(out[1:])
    if k > d:
        raise ValueError(f"W must have at most d={d} columns to be orthonormal, got k={k}.")
    prod = _as_product(A)
    if W0 is None:
        W0 = B if np.any(B) else check_random_state(random_state).standard_normal((d, k))
    W = polar_factor(np.asarray(W0, dtype=np.float64))
    if alpha is None:
        alpha = _largest_eig_bound(A, d, random_state)
    alpha_max = max(float(alpha), np.finfo(float).tiny)
    AW = prod(W)
    f = float(np.sum(W * (AW - 2.0 * B)))
    history = [f]
    # First trial shift: the mean Rayleigh quotient of the start (a curvature
    # scale that does not depend on how alpha was estimated).
    rayleigh = float(np.sum(W * AW)) / k
    shift = min(max(rayleigh, alpha_max * 1e-10), alpha_max) if adaptive else alpha_max
    xi = _riemannian_gradient(W, AW, B) if adaptive or gtol is not None else None
    norm_b = float(np.linalg.norm(B))

    def stationary(W, AW, xi):
        return float(np.linalg.norm(xi)) <= gtol * (float(np.linalg.norm(AW)) + norm_b)

    converged = gtol is not None and stationary(W, AW, xi)
    for _ in range(max_iter if not converged else 0):
        while True:
            W_new = polar_factor(shift * W - AW + B)
            AW_new = prod(W_new)
            f_new = float(np.sum(W_new * (AW_new - 2.0 * B)))
            if f_new <= f or shift >= alpha_max:
                break
            shift = min(2.0 * shift, alpha_max)
        if not np.isfinite(f_new) or f_new > f:
            break  # only at the safe shift, by rounding: stay put
        change = (f - f_new) / max(abs(f), np.finfo(float).tiny)
        if adaptive or gtol is not None:
            xi_new = _riemannian_gradient(W_new, AW_new, B)
        if adaptive:
            # Barzilai-Borwein estimate of the curvature along the last step,
            # from Riemannian gradients, as the next trial shift.
            s_k = W_new - W
            y_k = xi_new - xi
            sy = float(np.sum(s_k * y_k))
            ss = float(np.sum(s_k * s_k))
            shift = sy / ss if sy > 0 and ss > 0 else shift / 2.0
            shift = min(max(shift, alpha_max * 1e-10), alpha_max)
        if adaptive or gtol is not None:
            xi = xi_new
        W, AW, f = W_new, AW_new, f_new
        history.append(f)
        if gtol is not None:
            if stationary(W, AW, xi):
                converged = True
                break
        elif change < tol:
            converged = True
            break
    if return_converged:
        return W, np.asarray(history), converged
    return W, np.asarray(history)
