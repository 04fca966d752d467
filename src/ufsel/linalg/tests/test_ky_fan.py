"""The c smallest eigenvectors when the c-th eigenvalue is tied: the rotation-invariant average."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg
from scipy.stats import ortho_group

from ufsel.linalg import (
    ky_fan_smallest,
    ky_fan_smallest_diag_low_rank,
    ky_fan_smallest_low_rank,
)


def _with_spectrum(values, seed=0):
    Q = ortho_group.rvs(len(values), random_state=seed)
    return Q @ np.diag(values) @ Q.T, Q


def test_without_a_tie_the_weights_are_the_row_norms_of_the_eigenvectors():
    P, Q = _with_spectrum([1.0, 2.0, 3.0, 5.0, 8.0, 13.0])
    step = ky_fan_smallest(P, 3)
    assert not step.tied
    np.testing.assert_allclose(step.weights, np.sum(Q[:, :3] ** 2, axis=1), atol=1e-12)
    np.testing.assert_allclose(step.vectors @ step.vectors.T, Q[:, :3] @ Q[:, :3].T, atol=1e-12)
    assert step.trace == pytest.approx(6.0)


def test_a_tie_is_averaged_over_the_tied_eigenspace():
    """Eigenvalue 2 four times, one below it, c = 3: Pi = u1 u1^T + (2/4) P_E, which is
    also the mean of W W^T over uniformly random choices of the tied subspace."""
    P, Q = _with_spectrum([1.0, 2.0, 2.0, 2.0, 2.0, 7.0])
    step = ky_fan_smallest(P, 3)
    assert step.tied
    expected = Q[:, 0] ** 2 + 0.5 * np.sum(Q[:, 1:5] ** 2, axis=1)
    np.testing.assert_allclose(step.weights, expected, atol=1e-12)
    assert step.trace == pytest.approx(1.0 + 2.0 * 2.0)
    assert step.weights.sum() == pytest.approx(3.0)
    np.testing.assert_allclose(step.factor @ step.factor.T,
                               np.outer(Q[:, 0], Q[:, 0]) + 0.5 * Q[:, 1:5] @ Q[:, 1:5].T,
                               atol=1e-12)
    # brute force: average the row norms of random members of the tied family
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(4000):
        G = linalg.qr(rng.standard_normal((4, 2)), mode="economic")[0]
        W = np.column_stack([Q[:, 0], Q[:, 1:5] @ G])
        draws.append(np.sum(W ** 2, axis=1))
    np.testing.assert_allclose(np.mean(draws, axis=0), step.weights, atol=2e-2)
    # any member minimises the trace
    assert np.trace(step.vectors.T @ P @ step.vectors) == pytest.approx(step.trace)


def test_the_average_does_not_depend_on_the_basis_or_the_order():
    """Tied eigenvectors rotated, rows and columns permuted: the weights follow exactly,
    where LAPACK's own choice of c tied vectors does not."""
    values = np.array([0.0] * 6 + [1.0, 3.0, 4.0, 9.0])
    P, _ = _with_spectrum(values, seed=3)
    perm = np.random.default_rng(1).permutation(10)
    a = ky_fan_smallest(P, 2)
    b = ky_fan_smallest(P[np.ix_(perm, perm)], 2)
    c = ky_fan_smallest(P * (1 + 1e-12 * np.random.default_rng(2).uniform(-1, 1, P.shape)), 2)
    np.testing.assert_allclose(b.weights, a.weights[perm], atol=1e-10)
    np.testing.assert_allclose(c.weights, a.weights, atol=1e-10)


@pytest.mark.parametrize("c", [1, 2, 9, 15, 17])
def test_low_rank_form_equals_the_full_decomposition(c):
    """P = M + shift I with M = B K B^T (rank 6 in 20 dimensions, one negative eigenvalue):
    P's spectrum is -1.3, then the shift 0.7 fourteen times, then 1.2 ... 6.7. The r x r
    route gives the full decomposition's weights and trace, tied (c = 2 to 14) or not
    (c = 1, 15, 17). Its factor and complement weight rebuild the full route's Pi:
    the complement is above the c-th eigenvalue for c = 1 (weight 0), tied for
    c = 2 to 14 (weight (c - 1) / 14) and below it for c = 15, 17 (weight 1)."""
    rng = np.random.default_rng(4)
    B = linalg.qr(rng.standard_normal((20, 6)), mode="economic")[0]
    K = np.diag([-2.0, 0.5, 1.5, 3.0, 4.0, 6.0])
    R = ortho_group.rvs(6, random_state=5)
    M = B @ R @ K @ R.T @ B.T
    shift = 0.7
    full = ky_fan_smallest(M + shift * np.eye(20), c)
    basis = B @ ortho_group.rvs(6, random_state=6)
    low = ky_fan_smallest_low_rank(M, basis, shift, c)
    assert low.tied == full.tied == (2 <= c <= 14)
    np.testing.assert_allclose(low.weights, full.weights, atol=1e-12)
    assert low.trace == pytest.approx(full.trace, abs=1e-12)
    expected = 0.0 if c == 1 else (c - 1) / 14 if c <= 14 else 1.0
    assert low.complement == pytest.approx(expected)
    Pi = low.factor @ low.factor.T + low.complement * (np.eye(20) - basis @ basis.T)
    np.testing.assert_allclose(Pi, full.factor @ full.factor.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(Pi), low.weights, atol=1e-12)


def test_diagonal_plus_low_rank_by_woodbury_equals_the_dense_solve():
    """P = diag(g) + B K B^T (d = 60, rank 8, K PSD): ARPACK on P^{-1} by the Woodbury
    identity gives the dense solve's weights, trace and subspace; a tie at the c-th
    eigenvalue is refused (None), for the caller's dense fallback."""
    rng = np.random.default_rng(7)
    d, r, c = 60, 8, 4
    B = linalg.qr(rng.standard_normal((d, r)), mode="economic")[0]
    G = rng.standard_normal((r, r))
    K = G @ G.T
    g = rng.uniform(0.5, 50.0, d)
    P = np.diag(g) + B @ K @ B.T
    dense = ky_fan_smallest(P, c)
    fast = ky_fan_smallest_diag_low_rank(g, B, K, c)
    assert fast is not None and not fast.tied
    np.testing.assert_allclose(fast.weights, dense.weights, atol=1e-10)
    assert fast.trace == pytest.approx(dense.trace, rel=1e-12)
    np.testing.assert_allclose(fast.vectors @ fast.vectors.T, dense.vectors @ dense.vectors.T,
                               atol=1e-10)
    # the 4th and 5th eigenvalues equal: five coordinates with g = 0.1 outside span(B)
    Bt = B.copy()
    Bt[:5] = 0.0
    Bt = linalg.qr(Bt, mode="economic")[0]
    gt = g.copy()
    gt[:5] = 0.1
    assert ky_fan_smallest_diag_low_rank(gt, Bt, K, c) is None
    assert ky_fan_smallest(np.diag(gt) + Bt @ K @ Bt.T, c).tied


def test_woodbury_solve_with_c_pairs_and_weyls_bound(monkeypatch):
    """When ARPACK cannot deliver the (c+1)-th pair (forced here), c pairs and Weyl's
    bound (the (c+1)-th eigenvalue of diag + PSD is at least the (c+1)-th smallest
    diagonal entry) decide the tie test: a reweighting concentrated on c features gives
    the dense solve's weights; where the bound cannot exclude a tie, None."""
    from scipy.sparse import linalg as splinalg

    from ufsel.linalg import _ky_fan

    real = splinalg.eigsh

    def no_extra_pair(op, k, **kw):
        if k == c + 1:
            raise splinalg.ArpackNoConvergence("forced", np.zeros(0), np.zeros((op.shape[0], 0)))
        return real(op, k=k, **kw)

    monkeypatch.setattr(_ky_fan.splinalg, "eigsh", no_extra_pair)
    rng = np.random.default_rng(9)
    d, r, c = 80, 10, 3
    B = linalg.qr(rng.standard_normal((d, r)), mode="economic")[0]
    G = rng.standard_normal((r, r))
    K = G @ G.T
    g = rng.uniform(1e6, 2e6, d)  # eliminated features: huge, nearly equal weights
    g[[4, 17, 42]] = [0.3, 0.5, 0.8]
    dense = ky_fan_smallest(np.diag(g) + B @ K @ B.T, c)
    fast = ky_fan_smallest_diag_low_rank(g, B, K, c)
    assert fast is not None and not dense.tied
    np.testing.assert_allclose(fast.weights, dense.weights, atol=1e-10)
    # LAPACK's eigenvalues are accurate to about eps ||P|| (2e6 here), not relative
    assert fast.trace == pytest.approx(dense.trace, abs=1e-13 * g.max())
    # a fourth small weight: the bound no longer separates the 3rd eigenvalue from the 4th
    g[60] = 0.9
    assert ky_fan_smallest_diag_low_rank(g, B, K, c) is None


def test_woodbury_solve_finds_an_eigenvector_orthogonal_to_the_all_ones_vector():
    """Two duplicate features (equal rows of B, equal diagonal, the smallest): their
    difference is the smallest eigenvector, orthogonal to the all-ones vector, from which
    Lanczos would find it only through round-off; the seeded start finds it."""
    rng = np.random.default_rng(8)
    d, r, c = 50, 6, 2
    B = rng.standard_normal((d, r))
    B[1] = B[0]
    B = linalg.qr(B, mode="economic")[0]
    G = rng.standard_normal((r, r))
    K = G @ G.T
    g = rng.uniform(0.5, 5.0, d)
    g[:2] = 0.05
    dense = ky_fan_smallest(np.diag(g) + B @ K @ B.T, c)
    fast = ky_fan_smallest_diag_low_rank(g, B, K, c)
    assert fast is not None
    np.testing.assert_allclose(fast.weights, dense.weights, atol=1e-10)
    assert fast.trace == pytest.approx(dense.trace, rel=1e-12)
    assert fast.weights[0] == pytest.approx(fast.weights[1], abs=1e-10)
