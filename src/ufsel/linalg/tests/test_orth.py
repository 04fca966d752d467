"""The Stiefel quadratic solver, simplex projection and adaptive neighbours against brute force."""

import numpy as np
import pytest
from scipy import optimize
from scipy.sparse import linalg as splinalg

from ufsel.graph import adaptive_neighbors
from ufsel.linalg import (
    partial_eigh,
    polar_factor,
    project_simplex,
    stiefel_quadratic,
    stiefel_quadratic_objective,
)


def _sym(rng, d):
    M = rng.standard_normal((d, d))
    return M + M.T


@pytest.mark.parametrize("adaptive", [True, False])
def test_gpi_orthonormal_and_monotone(adaptive):
    rng = np.random.default_rng(0)
    d, k = 30, 4
    A = _sym(rng, d)
    B = rng.standard_normal((d, k))
    W, hist = stiefel_quadratic(A, B, max_iter=500, tol=1e-12, adaptive=adaptive)
    np.testing.assert_allclose(W.T @ W, np.eye(k), atol=1e-12)
    assert np.all(np.diff(hist) <= 1e-10 * np.abs(hist[:-1]))
    assert hist[-1] < hist[0]
    assert hist[-1] == pytest.approx(stiefel_quadratic_objective(A, B, W), rel=1e-12)
    # First-order optimality on the Stiefel manifold: the Riemannian gradient
    # (I - W W^T) G + W skew(W^T G), G = A W - B, vanishes and W^T G is symmetric.
    G = A @ W - B
    assert np.linalg.norm(G - W @ (W.T @ G)) < 1e-4 * np.linalg.norm(G)
    WtG = W.T @ G
    assert np.linalg.norm(WtG - WtG.T) < 1e-4 * np.linalg.norm(WtG)


@pytest.mark.parametrize("seed", [3, 7, 9, 10])
def test_trust_region_with_inverse_and_no_linear_term(seed):
    # B = 0: rotations within span(W) leave f unchanged (a singular Hessian there). The
    # inverse preconditioner does not search those flat directions; with a floored
    # scale there instead (the first version), all four stopped short of the tolerance.
    rng = np.random.default_rng(seed)
    d, k = 40, 4
    Q = polar_factor(rng.standard_normal((d, d)))
    spectrum = np.r_[np.linspace(1.0, 2.0, k), np.geomspace(5.0, 1e4, d - k)]
    A = (Q * spectrum) @ Q.T
    W0 = polar_factor(rng.standard_normal((d, k)))
    W, hist, ok = stiefel_quadratic(lambda Z: A @ Z, np.zeros((d, k)), W0,
                                    method="trust_region", gtol=1e-12, max_iter=200,
                                    return_converged=True,
                                    inverse=lambda R: np.linalg.solve(A, R))
    assert ok and len(hist) < 40
    V = Q[:, :k]
    np.testing.assert_allclose(W @ W.T, V @ V.T, atol=1e-10)


def random_stiefel_problem(seed):
    """``(A, B, V)``: d in [5, 40), k in [1, 5); A with k negative eigenvalues in [-5, -1]
    (eigenvectors V, the minimiser's span when B = 0) and d - k in [0, 10^u], u uniform in
    [0, 4]; B = 0 for even seeds, random for odd ones. Also used by
    benchmarks/studies/trust_region_termination.py."""
    rng = np.random.default_rng(seed)
    d, k = int(rng.integers(5, 40)), int(rng.integers(1, 5))
    Q = polar_factor(rng.standard_normal((d, d)))
    spectrum = np.r_[-np.sort(rng.uniform(1, 5, k))[::-1],
                     np.linspace(0.0, 10 ** rng.uniform(0, 4), d - k)]
    A = (Q * spectrum) @ Q.T
    B = (np.zeros((d, k)) if seed % 2 == 0
         else rng.standard_normal((d, k)) * 10 ** rng.uniform(-3, 1))
    return A, B, Q[:, :k]


def test_truncated_cg_finishes_the_last_newton_step():
    # Near the outer tolerance the inner solve goes on to half of it (a bounded number of
    # extra steps), so that the Newton step's model residual, the next gradient to second
    # order, is below the tolerance; far from it the usual forcing rule stops it.
    from ufsel.linalg._orth import _FINISH, _truncated_cg

    rng = np.random.default_rng(0)
    d = 60
    Q = polar_factor(rng.standard_normal((d, d)))
    A = (Q * np.geomspace(1.0, 30.0, d)) @ Q.T
    grad = 1e-4 * rng.standard_normal((d, 1)) / np.sqrt(d)  # ||grad|| about 1e-4

    def solve(target):
        eta, Heta, boundary = _truncated_cg(grad, lambda v: A @ v, lambda r: r, lambda z: z,
                                            1e3, target)
        assert not boundary
        return np.linalg.norm(grad + Heta), np.linalg.norm(Heta - A @ eta)

    r0 = np.linalg.norm(grad)
    usual = r0 * min(r0, 0.1)  # about 1e-8
    plain, _ = solve(0.0)
    assert plain <= usual
    target = usual / 10.0  # the usual bound is within _FINISH of it: finish to target / 2
    assert usual < _FINISH * target and plain > 0.5 * target
    finished, err = solve(target)
    assert finished <= 0.5 * target and err < 1e-12
    far, _ = solve(usual / (2.0 * _FINISH))  # the usual bound is far above it: unchanged
    assert far == plain


def test_trust_region_reports_convergence_only_at_a_small_gradient():
    # B = 0 with a tolerance below the rounding floor: near the solution f cannot judge a
    # step, and tCG runs along the flat rotations inside span(W) to the boundary. Accepting
    # such steps on rho (rounding noise) raised the gradient up to 2e-7 (relative), after
    # which the stall rule declared convergence on 6 of these 50 problems. The gradient
    # now judges those steps; a solve that reports convergence has a gradient at its
    # rounding floor, and every one has found the minimiser.
    bad = []
    for seed in range(0, 300, 6):
        A, B, V = random_stiefel_problem(seed)
        assert not B.any()
        W, _, ok = stiefel_quadratic(A, B, method="trust_region",
                                     random_state=0, gtol=1e-15, return_converged=True)
        G = A @ W
        rel = np.linalg.norm(G - W @ (W.T @ G)) / np.linalg.norm(G)
        if (ok and rel > 1e-11) or np.abs(W @ W.T - V @ V.T).max() > 1e-8:
            bad.append((seed, ok, rel))
    assert not bad


@pytest.mark.parametrize("method, kw, atol", [
    ("gpi", {"max_iter": 5000, "tol": 1e-15}, 1e-5),
    ("trust_region", {"max_iter": 500, "gtol": 1e-12}, 1e-10),
])
def test_without_linear_term_gives_smallest_eigenvectors(method, kw, atol):
    rng = np.random.default_rng(1)
    d, k = 25, 3
    Q = polar_factor(rng.standard_normal((d, d)))
    spectrum = np.r_[-5.0, -4.0, -3.0, np.linspace(0.0, 10.0, d - k)]
    A = (Q * spectrum) @ Q.T
    W, _, ok = stiefel_quadratic(A, np.zeros((d, k)), method=method, random_state=0,
                                 return_converged=True, **kw)
    assert ok or method == "gpi"  # GPI's 5000 steps stop short of tol=1e-15
    V = Q[:, :k]
    np.testing.assert_allclose(W @ W.T, V @ V.T, atol=atol)


def test_gpi_beats_random_feasible_points():
    # Tiny problem: the solution is no worse than the best of many random
    # orthonormal matrices and than a local optimiser started from each of them.
    rng = np.random.default_rng(2)
    d, k = 4, 2
    A = _sym(rng, d)
    B = rng.standard_normal((d, k))
    W, hist = stiefel_quadratic(A, B, max_iter=2000, tol=1e-14)
    samples = [polar_factor(rng.standard_normal((d, k))) for _ in range(5000)]
    best = min(stiefel_quadratic_objective(A, B, Q) for Q in samples)
    assert hist[-1] <= best + 1e-9

    def f(v):  # penalty-free parametrisation through the polar factor
        Q = polar_factor(v.reshape(d, k))
        return stiefel_quadratic_objective(A, B, Q)

    starts = [rng.standard_normal(d * k) for _ in range(8)]
    brute = min(optimize.minimize(f, s, method="Powell",
                                  options={"maxiter": 20000, "xtol": 1e-10,
                                           "ftol": 1e-12}).fun for s in starts)
    assert hist[-1] <= brute + 1e-6


def test_gpi_operator_matches_dense():
    rng = np.random.default_rng(3)
    d, k = 40, 3
    A = _sym(rng, d)
    B = rng.standard_normal((d, k))
    op = splinalg.aslinearoperator(A)
    W1, h1 = stiefel_quadratic(A, B, max_iter=300, tol=1e-14)
    W2, h2 = stiefel_quadratic(op, B, max_iter=300, tol=1e-14, random_state=0)
    W3, _ = stiefel_quadratic(lambda V: A @ V, B, max_iter=300, tol=1e-14, random_state=0)
    assert h2[-1] == pytest.approx(h1[-1], rel=1e-8)
    np.testing.assert_allclose(W1, W2, atol=1e-5)
    np.testing.assert_allclose(W1, W3, atol=1e-5)


def _tangent_project(W, Z):
    return Z - W @ (0.5 * (W.T @ Z + Z.T @ W))


def _tangent_basis(W):
    """An orthonormal basis (columns, vectorised) of the tangent space at W."""
    d, k = W.shape
    E = np.eye(d * k)
    P = np.column_stack([_tangent_project(W, E[i].reshape(d, k)).ravel() for i in range(d * k)])
    U, sv, _ = np.linalg.svd(P, full_matrices=False)
    T = U[:, sv > 1e-10]
    assert T.shape[1] == d * k - k * (k + 1) // 2
    return T


def _riemannian_gradient_norm(A, B, W):
    G = A @ W - B
    return np.linalg.norm(G - W @ (0.5 * (W.T @ G + G.T @ W))) / (
        np.linalg.norm(A @ W) + np.linalg.norm(B))


def _check_local_minimum(A, B, W, hist, gtol):
    d, k = W.shape
    np.testing.assert_allclose(W.T @ W, np.eye(k), atol=1e-13)
    assert np.all(np.diff(hist) <= 1e-13 * np.abs(hist[:-1]))
    assert _riemannian_gradient_norm(A, B, W) <= 10 * gtol
    assert hist[-1] == pytest.approx(stiefel_quadratic_objective(A, B, W), rel=1e-12)
    # second order: a local minimum, not a saddle (half the Riemannian Hessian,
    # P_W(A xi - xi sym(W^T G)), is positive semi-definite on the tangent space)
    T = _tangent_basis(W)
    G = A @ W - B
    S = 0.5 * (W.T @ G + G.T @ W)
    H = np.column_stack([_tangent_project(W, A @ t.reshape(d, k) - t.reshape(d, k) @ S).ravel()
                         for t in T.T])
    Hm = T.T @ H
    assert np.linalg.eigvalsh(0.5 * (Hm + Hm.T)).min() > -1e-8 * np.abs(Hm).max()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trust_region_solves_to_first_order_tolerance(seed):
    # A spread spectrum (condition 1e4, as the l2,1 reweighting makes UFSA's), where
    # GPI crawls: the trust region reaches the stationarity tolerance at a local
    # minimum, keeps W^T W = I and never increases the objective, whether A is dense
    # (diagonal preconditioner), given by its eigendecomposition (exact diagonal) or
    # by products only (no preconditioner). The problem has several local minima, and
    # from a start this far away the three paths need not end in the same one.
    rng = np.random.default_rng(seed)
    d, k = 30, 4
    Q = polar_factor(rng.standard_normal((d, d)))
    A = (Q * np.geomspace(1.0, 1e4, d)) @ Q.T
    B = rng.standard_normal((d, k))
    W0 = polar_factor(rng.standard_normal((d, k)))
    lam, V = np.linalg.eigh(A)
    inverse = (lambda R: np.linalg.solve(A, R))  # noqa: E731
    ways = ((A, None, None), (None, (lam, V), None), (lambda Z: A @ Z, None, None),
            (lambda Z: A @ Z, None, inverse))
    for A_given, eig, inv in ways:
        W, hist, ok = stiefel_quadratic(A_given, B, W0, method="trust_region", gtol=1e-12,
                                        max_iter=500, return_converged=True, eig=eig,
                                        inverse=inv)
        assert ok
        _check_local_minimum(A, B, W, hist, 1e-12)
    # the eigenbasis path does not depend on the eigenvectors' signs
    flip = np.where(rng.random(d) < 0.5, -1.0, 1.0)
    W_flip, _ = stiefel_quadratic(None, B, W0, method="trust_region", eig=(lam, V * flip),
                                  gtol=1e-12, max_iter=500)
    np.testing.assert_allclose(W_flip, _eig_path(A, B, W0, lam, V), atol=1e-12)
    # started near a minimum (where UFSA's warm-started W-steps start), every path
    # ends in that minimum
    W_ref = _eig_path(A, B, W0, lam, V)
    W_near = polar_factor(W_ref + 1e-3 * rng.standard_normal((d, k)))
    for A_given, eig, inv in ways:
        W, _ = stiefel_quadratic(A_given, B, W_near, method="trust_region", gtol=1e-12,
                                 max_iter=500, eig=eig, inverse=inv)
        np.testing.assert_allclose(W, W_ref, atol=1e-9)


def _eig_path(A, B, W0, lam, V):
    return stiefel_quadratic(None, B, W0, method="trust_region", eig=(lam, V), gtol=1e-12,
                             max_iter=500)[0]


def test_trust_region_backtracking_on_a_stiff_plateau(monkeypatch):
    # A flat cluster of eigenvalues in [1.9, 3] next to stiff ones up to 1e5 and a linear
    # term in the stiff span (UFSA's W-step when d > n): the polar retraction's
    # higher-order terms make the quadratic model fail for all but short steps, and the
    # trust region creeps. Trying the half step of a refused step (one product) reaches
    # the same minimum, monotonely, in fewer iterations than shrinking the region only.
    import ufsel.linalg._orth as orth

    counts = {True: 0, False: 0}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        d, c, n_stiff = 100, 8, 40
        lam = np.sort(np.concatenate([rng.uniform(1.9, 3.0, d - n_stiff),
                                      10 ** rng.uniform(2, 5, n_stiff)]))
        Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
        A = (Q * lam) @ Q.T
        B = 30 * Q[:, d - n_stiff:] @ rng.standard_normal((n_stiff, c))
        W0 = Q[:, :c] @ polar_factor(Q[:, :c].T @ B)
        ends = []
        for backtrack in (True, False):
            monkeypatch.setattr(orth, "_BACKTRACK", backtrack)
            W, hist, ok = stiefel_quadratic(A, B, W0, method="trust_region", max_iter=3000,
                                            gtol=1e-11, return_converged=True, eig=(lam, Q))
            assert ok
            assert np.all(np.diff(hist) <= 1e-9 * np.abs(hist[:-1]))
            np.testing.assert_allclose(W.T @ W, np.eye(c), atol=1e-12)
            counts[backtrack] += hist.size - 1
            ends.append(hist[-1])
        assert ends[0] == pytest.approx(ends[1], rel=1e-10)
    assert counts[True] < 0.9 * counts[False], counts


def test_trust_region_beats_brute_force_on_a_tiny_problem():
    rng = np.random.default_rng(2)
    d, k = 4, 2
    A = _sym(rng, d)
    B = rng.standard_normal((d, k))
    samples = [polar_factor(rng.standard_normal((d, k))) for _ in range(5000)]
    best = min(samples, key=lambda Q: stiefel_quadratic_objective(A, B, Q))
    # from the best random point, the local solve can only improve it
    W, hist = stiefel_quadratic(A, B, best, method="trust_region", gtol=1e-13, max_iter=200)
    assert hist[-1] <= stiefel_quadratic_objective(A, B, best) + 1e-12
    assert _riemannian_gradient_norm(A, B, W) <= 1e-12


@pytest.mark.parametrize("kind", ["diagonal", "inverse"])
def test_trust_region_preconditioner_is_symmetric_positive_definite(kind):
    # CG needs an SPD preconditioner on the tangent space {Z : W^T Z + Z^T W = 0}.
    from ufsel.linalg._orth import _inverse_preconditioner, _projected_preconditioner

    rng = np.random.default_rng(4)
    d, k = 20, 3
    lam = np.geomspace(0.1, 1e3, d)
    W = polar_factor(rng.standard_normal((d, k)))
    B = rng.standard_normal((d, k))
    if kind == "diagonal":
        G = lam[:, None] * W - B
        S = 0.5 * (W.T @ G + G.T @ W)
        P = _projected_preconditioner(W, S, B, lam[:, None])
    else:
        Q = polar_factor(rng.standard_normal((d, d)))
        A = (Q * lam) @ Q.T
        G = A @ W - B
        S = 0.5 * (W.T @ G + G.T @ W)
        P = _inverse_preconditioner(W, S, B, lambda R: np.linalg.solve(A, R))
    T = _tangent_basis(W)
    M = np.column_stack([P(T[:, j].reshape(d, k)).ravel() for j in range(T.shape[1])])
    np.testing.assert_allclose(W.T @ M.reshape(d, k, -1).transpose(2, 0, 1)
                               + M.reshape(d, k, -1).transpose(2, 1, 0) @ W, 0.0, atol=1e-10)
    R = T.T @ M
    np.testing.assert_allclose(R, R.T, atol=1e-10 * np.abs(R).max())
    assert np.linalg.eigvalsh(0.5 * (R + R.T)).min() > 0


def test_inverse_preconditioner_image_equals_the_product():
    # with_image(r) gives the preconditioned residual z and A z without a product with A
    # (A M R' = R', A M W = W); the truncated CG carries A delta by recurrence from it
    from ufsel.linalg._orth import _inverse_preconditioner, _project_tangent

    rng = np.random.default_rng(5)
    d, k = 30, 4
    Q = polar_factor(rng.standard_normal((d, d)))
    A = (Q * np.geomspace(0.1, 1e3, d)) @ Q.T
    W = polar_factor(rng.standard_normal((d, k)))
    B = rng.standard_normal((d, k))
    G = A @ W - B
    S = 0.5 * (W.T @ G + G.T @ W)
    P = _inverse_preconditioner(W, S, B, lambda R: np.linalg.solve(A, R), A @ W)
    for _ in range(3):
        r = _project_tangent(W, rng.standard_normal((d, k)))
        z, Az = P.with_image(r)
        np.testing.assert_array_equal(z, P(r))
        np.testing.assert_allclose(Az, A @ z, rtol=1e-9, atol=1e-9 * np.abs(A @ z).max())
    # without A W, no image (the plain map, as for the other preconditioners)
    assert not hasattr(_inverse_preconditioner(W, S, B, lambda R: np.linalg.solve(A, R)),
                       "with_image")


def test_gpi_rejects_too_many_columns():
    with pytest.raises(ValueError, match="at most"):
        stiefel_quadratic(np.eye(2), np.ones((2, 3)))


def _qp_simplex(v):
    """argmin ||x - v||^2 s.t. x >= 0, sum x = 1, by SLSQP."""
    n = v.size
    res = optimize.minimize(lambda x: np.sum((x - v) ** 2), np.full(n, 1.0 / n),
                            jac=lambda x: 2 * (x - v), method="SLSQP",
                            bounds=[(0, None)] * n,
                            constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1,
                                          "jac": lambda x: np.ones(n)}],
                            options={"ftol": 1e-14, "maxiter": 500})
    return res.x


def test_project_simplex_matches_qp():
    rng = np.random.default_rng(4)
    V = np.vstack([rng.standard_normal((20, 5)) * s for s in (0.1, 1.0, 10.0)])
    P = project_simplex(V)
    for v, p in zip(V, P):
        np.testing.assert_allclose(p, _qp_simplex(v), atol=1e-6)
    assert np.allclose(P.sum(axis=1), 1) and np.all(P >= 0)


def test_adaptive_neighbors_matches_qp_over_all_points():
    rng = np.random.default_rng(5)
    n, k = 25, 3
    Z = rng.standard_normal((n, 2))
    S0, lam = adaptive_neighbors(Z, k)
    # CAN's lambda gives exactly k neighbours, and S0 is the projection for it.
    assert np.all(np.diff(S0.indptr) == k)
    S1, lam1 = adaptive_neighbors(Z, k, lam)
    np.testing.assert_allclose(S1.toarray(), S0.toarray(), atol=1e-10)
    # With other lambdas (more neighbours), compare with the QP over all n - 1 points.
    lam2 = 4.0 * lam
    S2, _ = adaptive_neighbors(Z, k, lam2)
    D = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    for i in range(n):
        others = np.delete(np.arange(n), i)
        x = _qp_simplex(-D[i, others] / (2 * lam2[i]))
        np.testing.assert_allclose(S2[i].toarray().ravel()[others], x, atol=1e-6)
        assert S2[i, i] == 0


def test_partial_eigh_warm_start_and_preconditioner():
    rng = np.random.default_rng(6)
    A = _sym(rng, 200)
    w_ref, V_ref = np.linalg.eigh(A)
    X0 = V_ref[:, :3] + 0.1 * rng.standard_normal((200, 3))
    w, V = partial_eigh(A, 3, which="smallest", method="lobpcg", X0=X0,
                        M=np.eye(200), tol=1e-8, maxiter=2000)
    np.testing.assert_allclose(w, w_ref[:3], rtol=1e-6)
    w, _ = partial_eigh(A, 3, which="largest", method="arpack", X0=V_ref[:, -3:])
    np.testing.assert_allclose(w, w_ref[-3:], rtol=1e-8)
