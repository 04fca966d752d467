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

``method="trust_region"`` solves the same problem to a first-order tolerance by
the Riemannian trust-region method (Absil, Baker, Gallivan, "Trust-region methods
on Riemannian manifolds", Found. Comput. Math. 7, 2007) with the exact Riemannian
Hessian and a truncated, preconditioned conjugate-gradient inner solver
(Steihaug-Toint). It converges quadratically near a non-degenerate minimiser, where
GPI's rate ``1 - gap/alpha`` is close to 1, and only accepts steps that decrease the
objective, so its objectives are non-increasing too.

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

    Parameters
    ----------
    M : ndarray of shape (d, k)
        With d >= k.
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


def _project_tangent(W, Z):
    """``Z - W sym(W^T Z)``: the projection of Z on the tangent space of the Stiefel
    manifold at W (embedded metric)."""
    WtZ = W.T @ Z
    return Z - W @ (0.5 * (WtZ + WtZ.T))


def _riemannian_gradient(W, AW, B):
    """Half the Riemannian gradient of ``Tr(W^T A W) - 2 Tr(W^T B)`` (embedded metric)."""
    return _project_tangent(W, AW - B)


def stiefel_quadratic_objective(A, B, W):
    """``Tr(W^T A W) - 2 Tr(W^T B)``; A as in :func:`stiefel_quadratic`.

    Parameters
    ----------
    A : ndarray of shape (d, d) or LinearOperator
        Symmetric, as in :func:`stiefel_quadratic`.
    B : ndarray of shape (d, k)
        The linear term.
    W : ndarray of shape (d, k)
        The point, with orthonormal columns.
    """
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


def stiefel_quadratic(A, B, W0=None, *, method="gpi", alpha=None, adaptive=True, max_iter=100,
                      tol=1e-8, random_state=None, gtol=None, return_converged=False, eig=None,
                      diag=None, inverse=None):
    """Minimise ``Tr(W^T A W) - 2 Tr(W^T B)`` subject to ``W^T W = I``.

    Generalized power iteration (Nie, Zhang, Li 2017) or the Riemannian
    trust-region method; see the module docstring for why each iterate keeps
    ``W^T W = I`` and never increases the objective.

    Parameters
    ----------
    A : ndarray, sparse matrix, LinearOperator or callable, shape (d, d)
        Symmetric. A callable must map a (d, k) array to ``A @ array``.
    B : ndarray of shape (d, k)
    W0 : ndarray of shape (d, k), optional
        Starting point (orthonormalised by its polar factor). Defaults to the
        polar factor of B (or of a random matrix if B is zero).
    method : {"gpi", "trust_region"}, default="gpi"
        ``"trust_region"``: Riemannian trust regions (Newton steps on the
        manifold, the Hessian applied through products with A) until the
        Riemannian gradient meets ``gtol`` (default 1e-9); ``alpha``,
        ``adaptive`` and ``tol`` are then not used, and ``max_iter`` counts
        trust-region steps. See the notes.
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
        many steps follow one decomposition. With ``method="trust_region"`` the
        eigenvalues also give its preconditioner.
    diag : ndarray of shape (d,), optional
        The diagonal of A, for the trust-region preconditioner when neither
        ``eig`` nor a dense A is given (without it: no preconditioner).
    inverse : callable, optional
        Maps a (d, k) block R to ``A^{-1} R`` (or to a symmetric positive
        definite approximation of it), for example by a Cholesky factor of A.
        With ``method="trust_region"`` its Jacobi-Davidson correction
        preconditions the inner iterations instead of ``diag`` (see the notes);
        each inner iteration then costs one product with A and one application
        of ``inverse``. Worth it when A is positive definite with a gap between
        the k smallest eigenvalues and the rest, where ``A^{-1}`` is close to the
        shifted inverses the Hessian needs, and an eigendecomposition per
        solve would cost much more than a factorisation.

    Returns
    -------
    W : ndarray of shape (d, k)
        With orthonormal columns.
    objective : ndarray
        Objective at W0 followed by one value per accepted iteration
        (non-increasing; with ``method="trust_region"`` one value per iteration,
        repeated for a refused step).
    converged : bool
        Only with ``return_converged=True``.

    Notes
    -----
    ``method="trust_region"``: each iteration minimises the second-order model
    (exact Riemannian Hessian ``P_W(A xi - xi sym(W^T (A W - B)))``, embedded
    metric) within a trust region by truncated conjugate gradients, retracts by
    the polar factor and accepts the step when it decreases the objective by at
    least a tenth of the model's decrease (measured from ``W - W_new``, accurate
    where ``f(W) - f(W_new)`` is rounding noise). With ``eig`` or ``diag`` the
    inner iterations are preconditioned by the Jacobi-Davidson correction for a
    diagonal A; with ``inverse``, by the correction built from ``A^{-1}``.
    Once a Newton step would lower the objective by less than its
    rounding error, Newton steps continue without that test while they halve
    the gradient; three that do not mean the gradient is at its rounding floor,
    which also counts as converged. Started far from a minimum, the path (and so
    which of several local minima is reached) can depend on the preconditioner.
    """
    if method not in ("gpi", "trust_region"):
        raise ValueError(f"method must be 'gpi' or 'trust_region', got {method!r}.")
    B = np.asarray(B, dtype=np.float64)
    d, k = B.shape
    if eig is not None:
        lam, Q = eig
        lam = np.asarray(lam, dtype=np.float64).reshape(-1, 1)
        if alpha is None:
            alpha = float(lam.max()) * (1.0 + 1e-12) + np.finfo(float).tiny
        W0 = None if W0 is None else Q.T @ np.asarray(W0, dtype=np.float64)
        out = stiefel_quadratic(lambda V: lam * V, Q.T @ B, W0, method=method, alpha=alpha,
                                adaptive=adaptive, max_iter=max_iter, tol=tol,
                                random_state=random_state, gtol=gtol,
                                return_converged=return_converged, diag=lam.ravel())
        return (Q @ out[0],) + tuple(out[1:])
    if k > d:
        raise ValueError(f"W must have at most d={d} columns to be orthonormal, got k={k}.")
    prod = _as_product(A)
    if W0 is None:
        W0 = B if np.any(B) else check_random_state(random_state).standard_normal((d, k))
    W = polar_factor(np.asarray(W0, dtype=np.float64))
    if method == "trust_region":
        if diag is None and isinstance(A, np.ndarray):
            diag = np.diag(A)
        W, history, converged = _trust_region(prod, B, W, diag, 1e-9 if gtol is None else gtol,
                                              max_iter, inverse=inverse)
        return (W, history, converged) if return_converged else (W, history)
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


#: Truncated CG's stopping rule ``||r|| <= ||r_0|| min(||r_0||^theta, kappa)`` (superlinear
#: convergence of the outer Newton steps for theta = 1), its largest number of inner steps,
#: and the trust region's acceptance threshold on rho (Absil, Baker, Gallivan 2007).
_TCG_THETA, _TCG_KAPPA, _TCG_MAX_INNER = 1.0, 0.1, 1000
_RHO_ACCEPT = 0.1
#: When that rule would stop the inner solve within this factor of the outer tolerance
#: (absolute, ``gtol (||A W|| + ||B||)``), the solve goes on to half the tolerance, for at
#: most _FINISH_STEPS more steps, so that the last Newton step meets it instead of leaving
#: one more outer iteration to do so.
_FINISH = 100.0
_FINISH_STEPS = 10
#: Try the half step of a trust-region step that raised f before shrinking the region
#: (see _trust_region).
_BACKTRACK = True
#: Newton steps below the resolution of f that may fail to halve the gradient, in a row,
#: before the gradient counts as at its rounding floor.
_POLISH_STALLS = 3
#: A solve whose Newton decrease is below this many ulps of the size of the objective's
#: terms (``sum |W * A W| + 2 sum |W * B|``) has converged to the resolution of f.
_RESOLUTION = 100.0


def _sym(M):
    return 0.5 * (M + M.T)


def _trust_region(prod, B, W, diag, gtol, max_iter, inverse=None):
    """Riemannian trust regions for ``min Tr(W^T A W) - 2 Tr(W^T B)`` on ``W^T W = I``.

    With the embedded metric, ``G = A W - B`` and ``S = sym(W^T G)``, half the
    Riemannian gradient is ``g = G - W S`` and half the Riemannian Hessian is
    ``H[xi] = P_W(A xi - xi S)``, ``P_W(Z) = Z - W sym(W^T Z)`` the projection on
    the tangent space. Each step minimises the model ``f + 2 <g, eta> + <eta, H eta>``
    over the tangent space within the trust region by truncated conjugate gradients
    (Steihaug-Toint: stops on the boundary, on negative curvature or on a small
    residual), retracts by the polar factor ``polar(W + eta)`` and is accepted when
    the actual decrease is at least 0.1 of the model's (rho, with the usual
    decrease computed from ``W - W_new``, accurate where ``f - f_new`` is rounding
    noise) and not negative; the radius is
    divided by 4 when rho < 1/4 and doubled (up to its cap) when rho > 3/4 on the
    boundary. A step that raised f (rho < 0, with a model decrease above the resolution
    of f and before the polishing below) is first halved along its direction (one more
    product with A; backtracking, Nocedal & Yuan 1998) and taken if the half step
    passes the same test, the radius then halved as well; otherwise the radius shrinks
    and the next iteration solves again. With a stiff A the model fails for all but
    short steps through the polar retraction's higher-order terms, and the region
    otherwise creeps (the halving about halves the iterations of UFSA's first
    W-steps). Halving every refused step, also those with 0 <= rho < 0.1,
    changed the path of a B = 0 test problem into one whose end game accepted a
    rounding-level step and stopped at a gradient 5000 times its tolerance, so only
    steps that raised f are halved. Stops when ``||g||_F <= gtol (||A W||_F + ||B||_F)``, the first-order
    test of :func:`stiefel_quadratic`'s ``gtol``.

    Near the solution f cannot judge the steps any more: once an interior Newton
    step would lower f by less than 100 ulps of the size of f's terms
    (``sum |W * A W| + 2 sum |W * B|``), the polar retraction's own rounding
    (``W^T W = I`` to 1e-15, paired with the large ``W^T A W``) changes f by more
    than the step does, although W is still off by the step's length (1e-7 on a
    40 x 120 test problem). From there on interior Newton steps are taken without
    the decrease test (each changes f by rounding only; the history stays
    non-increasing up to that rounding), while they halve the gradient; when three
    in a row do not, the gradient is at its rounding floor and the solve counts
    as converged. A boundary step in that regime (tCG runs to the boundary along
    flat or nearly flat directions, e.g. the rotations inside span(W) when B = 0)
    is judged by the gradient as well: taken when it lowers ``||g||``, refused
    otherwise (the radius then shrinks). Judged by rho, which is rounding noise
    there, such steps were accepted at random and raised the gradient up to 2e-7
    relative, after which the stall rule declared convergence (6 of 50 B = 0
    problems with a tolerance below the floor; test_orth.py).

    Preconditioner (``diag`` given: A's eigenvalues in its eigenbasis, or its
    diagonal): with ``S = V diag(s) V^T``, a tangent residual r is mapped to
    ``P_W(((r V) / D) V^T)``, ``D_ij = max(diag_i - s_j, floor)``, the inverse of
    ``A xi - xi S`` when A is diagonal and the tangent projection is ignored;
    positive definite, so CG and the trust region (measured in its inverse's norm,
    capped at ``sqrt(k median|diag|)``) stay well defined. The preconditioner
    changes the path: started near a minimum, every path ends there; started far
    away, different paths may end in different local minima (the problem has
    several), as GPI's may.

    With ``inverse`` (``A^{-1}``, positive definite) the normal part is mapped by
    the Jacobi-Davidson correction ``M - M W (W^T M W)^{-1} W^T M`` of ``M = A^{-1}``
    (the shifts ``s_j`` ignored: on the complement of the k smallest eigenvectors,
    where the Hessian's ``A - s_j I`` is positive, ``(lambda - s_j) / lambda`` stays
    close to 1 when those eigenvalues lie above the ``s_j``) and the skew part as
    above (:func:`_inverse_preconditioner`). Since ``A M`` is known without a product
    (``A M R = R``), the preconditioner also returns ``A z``, and the inner iterations
    carry ``A delta`` by recurrence: the Hessian then costs no product with A.

    Returns ``(W, history, converged)``.
    """
    d, k = B.shape
    tiny = np.finfo(float).tiny
    AW = prod(W)
    f = float(np.sum(W * (AW - 2.0 * B)))
    history = [f]
    norm_b = float(np.linalg.norm(B))
    if diag is not None:
        diag = np.asarray(diag, dtype=np.float64).reshape(-1, 1)
        radius_max = np.sqrt(k * max(float(np.median(np.abs(diag))), tiny))
    elif inverse is not None:
        # the trust region is measured in the preconditioner's inverse norm, about A's
        # norm: its scale is A's curvature along W (the Rayleigh quotient), where the
        # steps mostly go
        radius_max = np.sqrt(k * max(float(np.sum(W * AW)) / k, tiny))
    else:
        radius_max = np.sqrt(k)
    radius = radius_max / 8.0
    converged = False
    polish_grad = np.inf  # gradient norm at the last step taken without a decrease test
    stalled = 0  # such steps in a row that did not halve the gradient
    precond = None  # rebuilt when W moves (kept through refused steps)
    for _ in range(max_iter):
        G = AW - B
        S = _sym(W.T @ G)
        grad = G - W @ S
        grad_norm = float(np.linalg.norm(grad))
        gtol_abs = gtol * (float(np.linalg.norm(AW)) + norm_b)
        if grad_norm <= gtol_abs:
            converged = True
            break
        stalled = stalled + 1 if grad_norm > 0.5 * polish_grad else 0
        if stalled >= _POLISH_STALLS:
            converged = True  # at the rounding floor of the gradient (see above)
            break

        def proj(Z, W=W):
            return _project_tangent(W, Z)

        def hess(xi, W=W, S=S, Axi=None):
            return proj((np.asarray(prod(xi)) if Axi is None else Axi) - xi @ S)

        if precond is None:
            if inverse is not None:
                precond = _inverse_preconditioner(W, S, B, inverse, AW)
            elif diag is not None:
                precond = _projected_preconditioner(W, S, B, diag)
            else:
                precond = _identity
        eta, Heta, boundary = _truncated_cg(grad, hess, precond, proj, radius, gtol_abs)
        model = -2.0 * (float(np.sum(grad * eta)) + 0.5 * float(np.sum(eta * Heta)))
        unresolved = model <= _RESOLUTION * np.finfo(float).eps * float(
            np.sum(np.abs(W * AW)) + 2.0 * np.sum(np.abs(W * B)))
        if not boundary and unresolved:
            # below the resolution of f: a Newton step without the decrease test
            W = polar_factor(W + eta)
            AW = np.asarray(prod(W))
            history.append(min(f, float(np.sum(W * (AW - 2.0 * B)))))
            polish_grad = grad_norm
            precond = None
            continue
        W_new, AW_new, f_new, rho, accept = _trial_step(prod, W, AW, B, eta, model)
        if unresolved:
            # f cannot judge a step whose model decrease is below its resolution (rho is
            # rounding noise): the gradient is the test, as for the polishing steps above
            accept = bool(np.isfinite(f_new)) and float(
                np.linalg.norm(_riemannian_gradient(W_new, AW_new, B))) < grad_norm
        elif rho < 0.0 and polish_grad == np.inf and _BACKTRACK:
            # Backtracking (see the docstring): the half step along the same direction
            # costs one product with A instead of a new truncated-CG solve.
            eta, Heta = 0.5 * eta, 0.5 * Heta
            model = -2.0 * (float(np.sum(grad * eta)) + 0.5 * float(np.sum(eta * Heta)))
            W_new, AW_new, f_new, rho, accept = _trial_step(prod, W, AW, B, eta, model)
            radius, boundary = 0.5 * radius, False
        # a refused step (also one with a high rho whose f rose by rounding) shrinks it;
        # below the resolution of f, rho is noise and the gradient test decides
        if not accept or (rho < 0.25 and not unresolved):
            radius /= 4.0
        elif (rho > 0.75 or unresolved) and boundary:
            radius = min(2.0 * radius, radius_max)
        if accept:
            W, AW = W_new, AW_new
            precond = None
            f = min(f_new, f)  # a decrease below the resolution of f is not an increase
        history.append(f)  # one value per iteration, repeated for a refused step
        if not accept and radius < 1e-14 * radius_max:
            break  # no decrease left at the resolution of the objective
    return W, np.asarray(history), converged


def _trial_step(prod, W, AW, B, eta, model):
    """The retracted step ``polar(W + eta)`` and its test against the model decrease:
    ``(W_new, A W_new, f(W_new), rho, accepted)``.

    The actual decrease ``f(W) - f(W_new) = <W - W_new, A (W + W_new) - 2 B>`` (A
    symmetric) is computed from the small difference ``W - W_new``: near the solution
    it is far below the rounding error of f itself, and ``f - f_new`` would be noise.
    Accepted when ``rho > _RHO_ACCEPT`` and the actual decrease is not negative."""
    W_new = polar_factor(W + eta)
    AW_new = np.asarray(prod(W_new))
    f_new = float(np.sum(W_new * (AW_new - 2.0 * B)))
    actual = float(np.sum((W - W_new) * (AW + AW_new - 2.0 * B)))
    rho = actual / model if model > 0 and np.isfinite(f_new) else -np.inf
    return W_new, AW_new, f_new, rho, bool(rho > _RHO_ACCEPT and actual >= 0.0)


def _projected_preconditioner(W, S, B, diag):
    """An approximate inverse of the Riemannian Hessian at W, for A ~ diag(diag).

    With ``S = V diag(s) V^T``, write a tangent vector as ``W Omega + N``
    (``Omega`` skew, ``W^T N = 0``). On the normal part, column j of ``N V`` sees
    ``P (A - s_j I) P`` (P the projection off span(W)), whose inverse on that
    complement, for diagonal ``M_j = (A - s_j I)^{-1}``, is the Jacobi-Davidson
    correction ``M_j - M_j W (W^T M_j W)^{-1} W^T M_j``. On the skew part the
    Hessian acts, for nearly diagonal ``V^T W^T A W V``, as entrywise
    multiplication by ``(c_i + c_j) / 2``, ``c = diag(V^T sym(W^T B) V)``
    (``W^T A W - S = sym(W^T B)``). ``A - s_j I`` is not positive where an
    eigenvalue lies below ``s_j`` (directions inside or near span(W)), and
    ``c_i + c_j`` vanishes when B does: both are floored at a thousandth of their
    median magnitude (the skew part's scale also at least the normal part's
    floor), which keeps the map symmetric positive definite on the tangent space
    (CG needs that) and only slows the inner iterations down."""
    tiny = np.finfo(float).tiny
    s, V = np.linalg.eigh(S)
    D = diag - s[None, :]
    floor = max(1e-3 * float(np.median(np.abs(D))), 1e-14 * float(np.abs(diag).max()), tiny)
    D = np.maximum(D, floor)
    M = 1.0 / D
    # (k, k, k): (W^T M_j W)^{-1}, SPD (M_j > 0, W of full column rank), inverted once
    # per W so that each application costs O(d k^2 + k^3)
    WtMW_inv = np.linalg.inv(np.matmul(W.T[None, :, :] * M.T[:, None, :], W))
    tau = _skew_curvature(W, B, V)
    tau = np.maximum(tau, max(1e-3 * float(np.median(np.abs(tau))), floor))

    def precond(r):
        Om = W.T @ r
        R = (r - W @ Om) @ V
        MR = M * R
        t = np.einsum("jab,bj->ja", WtMW_inv, W.T @ MR)  # row j: (W^T M_j W)^{-1} W^T MR_j
        Z = (MR - M * (W @ t.T)) @ V.T
        return Z + W @ _skew_solve(Om, V, tau)

    return precond


def _skew_curvature(W, B, V):
    """``(c_i + c_j) / 2``, ``c = diag(V^T sym(W^T B) V)``: the Hessian's action on the
    skew part ``W Omega`` in the eigenbasis V of S, for nearly diagonal
    ``V^T W^T A W V`` (``W^T A W - S = sym(W^T B)``)."""
    c = np.diag(V.T @ _sym(W.T @ B) @ V)
    return 0.5 * (c[:, None] + c[None, :])


def _skew_solve(Om, V, tau):
    """The skew part of ``Om`` divided entrywise by ``tau`` in the eigenbasis V of S
    (an entry of ``tau`` that is ``inf`` maps its pair to 0)."""
    return V @ ((V.T @ _sym_skew(Om) @ V) / tau) @ V.T


def _inverse_preconditioner(W, S, B, inverse, AW=None):
    """The preconditioner of :func:`_projected_preconditioner` with ``M_j = A^{-1}``
    for every column (``inverse`` applies it), for positive definite A.

    Normal part: ``M - M W (W^T M W)^{-1} W^T M`` (symmetric positive definite on
    the complement of span(W), and zero on span(W)); skew part: entrywise division
    by ``(c_i + c_j) / 2`` in the eigenbasis V of S, floored as there (the floor
    here a thousandth of the median magnitude, and at least ``1e-12 max |s|``); pairs
    with ``|c_i + c_j| / 2 <= 1e-10 max |s|`` are flat (B = 0: rotations within
    span(W) leave f unchanged, the Hessian is singular there) and are mapped to 0, so
    the inner iterations do not wander along them (with the floor instead, B = 0
    solves stopped short of their tolerance). Positive definite on the rest of the
    tangent space; :func:`_truncated_cg` stops when only flat residual is left.
    Costs one application of ``inverse`` to W per W, then one per call.

    With ``AW`` (``A W``) the returned map also has ``with_image(r) -> (z, A z)``: as
    ``A M R' = R'`` and ``A M W = W``, ``A z = R' - W (W^T M W)^{-1} W^T M R' + A W
    Omega_s`` costs O(d k^2) more and no product with A, so the truncated CG carries
    ``A delta`` by its own recurrence instead of multiplying by A in every step."""
    tiny = np.finfo(float).tiny
    s, V = np.linalg.eigh(S)
    MW = np.asarray(inverse(W))
    WtMW_inv = np.linalg.inv(_sym(W.T @ MW))
    tau = _skew_curvature(W, B, V)
    scale = float(np.abs(s).max())
    floor = max(1e-3 * float(np.median(np.abs(tau))), 1e-12 * scale, tiny)
    # flat pairs (no curvature, e.g. B = 0: rotations within span(W) leave f unchanged)
    # are not searched (divided by inf): their gradient is rounding noise
    tau = np.where(np.abs(tau) <= 1e-10 * scale, np.inf, np.maximum(tau, floor))

    def parts(r):
        """``(z, R', C, Omega_s)``: the preconditioned r and the pieces of ``A z``."""
        Om = W.T @ r
        R = r - W @ Om
        MR = np.asarray(inverse(R))
        C = WtMW_inv @ (W.T @ MR)
        Om_s = _skew_solve(Om, V, tau)
        return MR - MW @ C + W @ Om_s, R, C, Om_s

    def precond(r):
        return parts(r)[0]

    if AW is not None:
        def with_image(r):
            z, R, C, Om_s = parts(r)
            return z, R - W @ C + AW @ Om_s

        precond.with_image = with_image
    return precond


def _identity(r):
    return r


def _sym_skew(M):
    return 0.5 * (M - M.T)


def _truncated_cg(grad, hess, precond, proj, radius, target=0.0):
    """Steihaug-Toint truncated CG for ``min <grad, eta> + 1/2 <eta, H eta>``,
    ``||eta||_{P^{-1}} <= radius`` (P the preconditioner). Returns
    ``(eta, H eta, whether eta ended on the boundary)``.

    Stops at ``||r|| <= ||r_0|| min(||r_0||^theta, kappa)``, or, when that bound is below
    ``_FINISH target`` (``target`` = the outer loop's absolute gradient tolerance), at
    ``target / 2`` or ``_FINISH_STEPS`` steps after the usual bound, whichever comes first:
    the model's residual is the next gradient up to the step's second-order error, so the
    final Newton step then lands below the tolerance instead of needing one more outer
    iteration only to cross it."""
    eta = np.zeros_like(grad)
    Heta = np.zeros_like(grad)
    r = grad
    # with a preconditioner that also gives A z (precond.with_image), A delta is carried
    # by the recurrence delta = -z + beta delta and the Hessian costs no product with A
    # (z, A z), or (z, None) for a preconditioner without the image
    precond_image = getattr(precond, "with_image", None) or (lambda v: (precond(v), None))
    z, Az = precond_image(r)
    delta = -z
    Adelta = None if Az is None else -Az
    rz = float(np.sum(r * z))
    r0 = float(np.linalg.norm(r))
    usual = r0 * min(r0 ** _TCG_THETA, _TCG_KAPPA)
    tol = min(usual, 0.5 * target) if usual < _FINISH * target else usual
    extra = 0  # inner steps past the usual stopping point
    if not rz > 0:
        return eta, Heta, False  # nothing the preconditioner searches (flat directions only)
    # norms in the P^{-1} metric: <eta, eta>, <eta, delta>, <delta, delta>
    e_pe, e_pd, d_pd = 0.0, 0.0, rz
    for _ in range(_TCG_MAX_INNER):  # more than dim steps can help in floating point
        Hd = hess(delta) if Adelta is None else hess(delta, Axi=Adelta)
        dHd = float(np.sum(delta * Hd))
        alpha = rz / dHd if dHd > 0 else np.inf
        e_pe_new = e_pe + 2.0 * alpha * e_pd + alpha * alpha * d_pd
        if dHd <= 0 or e_pe_new >= radius * radius:
            tau = (-e_pd + np.sqrt(e_pd * e_pd + d_pd * (radius * radius - e_pe))) / d_pd
            return eta + tau * delta, Heta + tau * Hd, True
        e_pe = e_pe_new
        eta = eta + alpha * delta
        Heta = Heta + alpha * Hd
        r = proj(r + alpha * Hd)
        rn = float(np.linalg.norm(r))
        if rn <= usual:
            extra += 1
        if rn <= tol or extra > _FINISH_STEPS:
            break
        z, Az = precond_image(r)
        rz_new = float(np.sum(r * z))
        if not rz_new > 0:
            break  # the residual left is in the flat directions the preconditioner skips
        beta = rz_new / rz
        rz = rz_new
        delta = -z + beta * delta
        if Adelta is not None:
            Adelta = -Az + beta * Adelta
        e_pd = beta * (e_pd + alpha * d_pd)
        d_pd = rz + beta * beta * d_pd
    return eta, Heta, False
