"""DGUFS (Guo & Zhu 2018): planted features, subset-consistent ranking, bounded ADMM,
closed-form steps against brute force, size limit."""

import itertools

import numpy as np
import pytest

from ufsel import DGUFS
from ufsel.datasets import make_planted_clusters
from ufsel.selectors.adaptive_graph import _dgufs as dg


@pytest.mark.parametrize("seed", [0, 1])
def test_finds_planted_features(seed):
    X, _, informative = make_planted_clusters(random_state=seed)
    sel = DGUFS(5).fit(X)
    assert set(sel.subset_) == set(informative)


def test_ranking_is_consistent_with_subset():
    X, _, _ = make_planted_clusters(random_state=2)
    for m in (3, 8):
        sel = DGUFS(m).fit(X)
        np.testing.assert_array_equal(sel.subset_, np.flatnonzero(sel.get_support()))
        np.testing.assert_array_equal(np.sort(np.argsort(sel.ranking_)[:m]), sel.subset_)
        np.testing.assert_array_equal(np.flatnonzero(np.any(sel.Y_ != 0, axis=1)), sel.subset_)
        np.testing.assert_array_equal(sel.Y_[sel.subset_], X.T[sel.subset_])
    rankings = DGUFS().fit_rankings(X, [3, 8])
    for m, r in rankings.items():
        np.testing.assert_array_equal(np.sort(np.argsort(r)[:m]), DGUFS(m).fit(X).subset_)


def test_iterates_bounded_and_residual_decreases():
    # Run to the reference's residual test (no early stop on the subset). The previous
    # split-ADMM grew by ~1e22 per iteration; here the objective settles, L and M stay
    # in a bounded range and the constraint residual ||L - M||_inf goes to zero.
    X, _, _ = make_planted_clusters(random_state=0)
    sel = DGUFS(5, n_iter_no_change=None, max_iter=400).fit(X)
    obj, res = np.asarray(sel.objective_), np.asarray(sel.residual_)
    assert sel.n_iter_ < 400 and res[-1] < sel.tol
    assert np.all(np.isfinite(obj))
    assert np.abs(obj).max() < 10 * np.abs(obj[-1])
    assert abs(obj[-1] - obj[-2]) <= 1e-6 * abs(obj[-1])
    assert np.abs(sel.L_).max() < 1.0 + 1e-5 and sel.M_.min() >= 0 and sel.M_.max() <= 1
    # the residual shrinks: every window of 20 iterations ends lower than it started
    for i in range(0, res.size - 20, 20):
        assert res[i + 20] < res[i]
    assert res[-1] < 1e-5 * res[0]


def test_objective_recorded_matches_definition():
    X, _, _ = make_planted_clusters(random_state=0)
    sel = DGUFS(5).fit(X)
    got = dg.dgufs_objective(sel.Y_, sel.L_, sel.S_, alpha=1.0, beta=0.5,
                             hsic_scale=sel.hsic_scale_)
    assert got == pytest.approx(sel.objective_[-1], rel=1e-9)
    # scores_ are the per-feature HSIC contributions tau x~_j^T L x~_j of the final Y-step
    Xc = X - X.mean(axis=0)
    s = sel.hsic_scale_ * np.einsum("ij,ij->j", sel.L_ @ Xc, Xc)
    np.testing.assert_allclose(sel.scores_, s, rtol=1e-8, atol=1e-12 * np.abs(s).max())


def _hsic_loss(Xc, L, subset):
    Y = Xc[:, list(subset)]
    return -float(np.sum(Y * (L @ Y)))


def test_y_step_is_the_best_subset():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((9, 6))
    Xc = X - X.mean(axis=0)
    B = rng.standard_normal((9, 3))
    L = B @ B.T
    w, V = np.linalg.eigh(L)
    for m in (1, 2, 3, 5):
        scores, keep = dg._y_step(Xc, L, m)
        best = min(itertools.combinations(range(6), m), key=lambda c: _hsic_loss(Xc, L, c))
        assert set(keep) == set(best)
        _, keep_f = dg._y_step(Xc, None, m, factors=(V, w))  # factored form, same subset
        np.testing.assert_array_equal(keep_f, keep)


def _random_psd(rng, n, r):
    B = rng.standard_normal((n, r)) * rng.uniform(0.1, 3.0)
    return B @ B.T


@pytest.mark.parametrize("eta", [0.05, 1.0, 6.0])
def test_rank_prox_beats_every_psd_candidate(eta):
    rng = np.random.RandomState(1)
    n = 4
    A = rng.standard_normal((n, n))
    A = A + A.T
    w, V = dg._rank_prox(A, eta)
    P = (V * w) @ V.T
    assert np.all(w > np.sqrt(eta))

    def cost(P, r):
        return float(np.sum((P - A) ** 2)) + eta * r

    best = cost(P, w.size)
    for _ in range(3000):
        r = rng.randint(0, n + 1)
        Q = _random_psd(rng, n, r) if r else np.zeros((n, n))
        assert best <= cost(Q, r) + 1e-12
    for _ in range(500):  # small perturbations of the answer within its rank
        B = V * np.sqrt(w) + 0.01 * rng.standard_normal(V.shape)
        assert best <= cost(B @ B.T, w.size) + 1e-12


def test_rank_prox_partial_solver_matches_dense(monkeypatch):
    rng = np.random.RandomState(0)
    n = 300
    B = rng.standard_normal((n, 7))
    A = B @ B.T / 7 + 0.05 * rng.standard_normal((n, n))
    A = 0.5 * (A + A.T)
    wd, Vd = dg._rank_prox(A, 4.0)
    monkeypatch.setattr(dg, "_DENSE_PROX_MAX", 50)
    wa, Va = dg._rank_prox(A, 4.0, k_hint=2, random_state=0)  # k doubles until enough
    np.testing.assert_allclose(np.sort(wa), np.sort(wd), rtol=1e-10)
    np.testing.assert_allclose((Va * wa) @ Va.T, (Vd * wd) @ Vd.T, atol=1e-9)
    # no hint (the first L-step): LAPACK directly, the same answer
    calls = []
    monkeypatch.setattr(dg, "partial_eigh", lambda *a, **k: calls.append(1))
    wn, Vn = dg._rank_prox(A, 4.0)
    assert not calls
    np.testing.assert_allclose((Vn * wn) @ Vn.T, (Vd * wd) @ Vd.T, atol=1e-9)


@pytest.mark.parametrize("g", [0.01, 0.5, 1.0, 3.0, 40.0])
def test_binary_prox_entrywise_brute_force(g):
    q = np.linspace(-2.0, 25.0, 541)
    p = dg._binary_prox(q.copy(), g)
    cand = np.array([0.0, 1.0]) if g > 1 else np.concatenate([np.linspace(0, 1, 2001),
                                                                 np.clip(q, 0, 1)])
    cost = (cand[None, :] - q[:, None]) ** 2 + g * (cand[None, :] != 0)
    best = cost.min(axis=1)
    got = (p - q) ** 2 + g * (p != 0)
    np.testing.assert_allclose(got, best, atol=1e-12)
    assert np.all((p == 0) | (p == 1)) if g > 1 else np.all((p >= 0) & (p <= 1))


def _al_l_part(L, r, G, Lam, M, mu, alpha):
    return (-float(np.sum(G * L)) + alpha * r + float(np.sum(Lam * (L - M)))
            + 0.5 * mu * float(np.sum((L - M) ** 2)))


def test_l_step_minimises_the_augmented_lagrangian():
    rng = np.random.RandomState(3)
    n, mu, alpha = 4, 0.7, 0.4
    sym = lambda A: 0.5 * (A + A.T)  # noqa: E731
    G = sym(rng.uniform(-1, 1, (n, n)))
    Lam = sym(rng.standard_normal((n, n)))
    M = sym((rng.rand(n, n) > 0.5).astype(float))
    np.fill_diagonal(M, 1.0)
    w, V = dg._l_step(M, G, Lam, mu, alpha)
    L = (V * w) @ V.T
    best = _al_l_part(L, w.size, G, Lam, M, mu, alpha)
    for _ in range(3000):
        r = rng.randint(0, n + 1)
        Q = _random_psd(rng, n, r) if r else np.zeros((n, n))
        assert best <= _al_l_part(Q, r, G, Lam, M, mu, alpha) + 1e-12


@pytest.mark.parametrize("mu", [1e-3, 0.5, 4.0])
def test_m_step_entrywise_brute_force(mu):
    rng = np.random.RandomState(4)
    n, gamma = 5, 5e-3
    L = rng.uniform(-0.5, 1.5, (n, n))
    Lam = rng.standard_normal((n, n))
    M = dg._m_step(L, Lam, mu, gamma)
    np.testing.assert_array_equal(np.diag(M), 1.0)
    g = 2 * gamma / mu
    cand = np.array([0.0, 1.0]) if g > 1 else np.linspace(0, 1, 20001)
    off = ~np.eye(n, dtype=bool)
    # gamma ||M||_0 - <Lam, M> + mu/2 ||L - M||^2, entry by entry
    cost = lambda v, i, j: (gamma * (v != 0) - Lam[i, j] * v  # noqa: E731
                            + 0.5 * mu * (L[i, j] - v) ** 2)
    for i, j in zip(*np.nonzero(off)):
        assert cost(M[i, j], i, j) <= cost(cand, i, j).min() + 1e-9


def test_refuses_too_many_samples(monkeypatch):
    monkeypatch.setattr(dg, "MAX_SAMPLES", 50)
    X, _, _ = make_planted_clusters(n_samples=60, random_state=0)
    with pytest.raises(ValueError, match="n_samples <= 50"):
        DGUFS(5).fit(X)


def test_rank_prox_drivers_agree_and_overwrite_reads_the_upper_triangle():
    rng = np.random.RandomState(5)
    n = 120
    B = rng.standard_normal((n, 6))
    A = B @ B.T / 6 + 0.05 * rng.standard_normal((n, n))
    A = 0.5 * (A + A.T)
    A[np.triu_indices(n, 1)] += 1e-13 * rng.standard_normal(n * (n - 1) // 2)  # as the L-step's
    w_all, V_all = dg._rank_prox(A, 4.0)  # no hint: every eigenpair (divide and conquer)
    w_sub, V_sub = dg._rank_prox(A, 4.0, k_hint=3)  # small rank: those above the threshold
    np.testing.assert_allclose(w_sub, w_all, rtol=1e-12)
    np.testing.assert_allclose((V_sub * w_sub) @ V_sub.T, (V_all * w_all) @ V_all.T, atol=1e-10)
    upper = np.triu(A) + np.triu(A, 1).T  # the symmetric matrix of A's upper triangle
    for hint in (None, 3):
        w, V = dg._rank_prox(upper, 4.0, k_hint=hint)
        A2 = A.copy()  # C order: solved in its memory as a Fortran array (A's upper triangle)
        w2, V2 = dg._rank_prox(A2, 4.0, k_hint=hint, overwrite_a=True)
        np.testing.assert_allclose(w2, w, rtol=1e-13)
        np.testing.assert_allclose((V2 * w2) @ V2.T, (V * w) @ V.T, atol=1e-12)
        assert not np.array_equal(A2, A)  # the memory was used
        A3 = A.copy()
        A3[np.tril_indices(n, -1)] = 1e6  # the lower triangle is not read
        w3, _ = dg._rank_prox(A3, 4.0, k_hint=hint, overwrite_a=True)
        np.testing.assert_array_equal(w3, w2)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_fit_leaves_the_blas_thread_count_as_it_found_it():
    # the products between the eigensolves run on one BLAS thread (dg._one_blas_thread);
    # the limit must end with them, during the fit and after it. The data are small, so
    # the thread count is set explicitly (the policy would run the whole fit on one).
    from threadpoolctl import threadpool_info, threadpool_limits

    from ufsel import config_context

    def counts():
        return sorted(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    X, _, _ = make_planted_clusters(n_samples=60, random_state=0)
    seen = []
    real = dg._l_step

    def l_step(*args, **kwargs):
        seen.append(counts())
        return real(*args, **kwargs)

    with threadpool_limits(limits=2, user_api="blas"):
        before = counts()
        dg._l_step = l_step
        try:
            with config_context(n_threads=2):
                DGUFS(n_features_to_select=4, max_iter=5).fit(X)
        finally:
            dg._l_step = real
        assert counts() == before
    assert seen and all(c == before for c in seen)  # every eigensolve with every thread
