"""RNE (Liu et al. 2020): LLE weights, planted features, ADMM behaviour."""

import warnings

import numpy as np
import pytest

from ufsel import RNE
from ufsel.datasets import make_planted_clusters
from ufsel.graph import knn_graph, lle_weights
from ufsel.linalg import multiplicative_update, pos_neg_parts, soft_threshold
from ufsel.selectors.adaptive_graph._rne import _MultiplicativeStep, rne_objective


def _fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X)


def test_lle_weights_brute_force():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((30, 6))
    W = lle_weights(X, 4, reg=1e-12).toarray()
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    _, idx = knn_graph(X, 4)
    for i in (0, 11, 29):
        Zl = X[idx[i]] - X[i]
        C = Zl @ Zl.T
        C += 1e-12 * np.trace(C) * np.eye(4)
        w = np.linalg.solve(C, np.ones(4))
        np.testing.assert_allclose(W[i, idx[i]], w / w.sum(), rtol=1e-8)
        assert np.count_nonzero(W[i]) == 4


def _residual(X, residual):
    """The LLE residual matrix of each form, written out."""
    W = lle_weights(X, 5, reg=1e-12)
    return X - (W.T if residual == "transposed" else W) @ X


def test_planted_features_rank_high():
    # Only the reconstruction form: the transposed form penalises the planted
    # features' cluster offsets and finds none of them (see the docstring).
    residual = "reconstruction"
    hits = 0
    for seed in range(3):
        X, _, informative = make_planted_clusters(random_state=seed)
        sel = _fit(RNE(10, residual=residual, random_state=0), X)
        hits += len(set(informative) & set(np.argsort(sel.ranking_)[:5]))
    assert hits >= 9  # about 4 of 5 per data set (chance: 0.5)


@pytest.mark.parametrize("residual", ["reconstruction", "transposed"])
def test_objective_falls_and_h_stays_non_negative(residual):
    X, _, _ = make_planted_clusters(random_state=1)
    sel = _fit(RNE(10, residual=residual, random_state=0), X)
    obj = np.asarray(sel.objective_)
    assert obj[-1] < 0.5 * obj[0]
    assert sel.W_.min() >= 0
    A = _residual(X, residual)
    assert rne_objective(A, sel.W_, 1e3) == pytest.approx(obj[-1])


def test_scores_depend_on_count_and_fit_rankings():
    X, _, _ = make_planted_clusters(n_samples=80, random_state=0)
    est = RNE(random_state=0, max_iter=5)
    r = _fit_rankings(est, X, [3, 6])
    for m in (3, 6):
        np.testing.assert_array_equal(r[m], _fit(RNE(m, random_state=0, max_iter=5), X).ranking_)


def _fit_rankings(est, X, counts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit_rankings(X, counts)


def _reference_fit(X, m, *, residual="reconstruction", alpha=1e3, max_iter=4, n_inner=30,
                   random_state=0):
    """The ADMM of the docstring written out with explicit temporaries (the pre-BLAS code)."""
    n, d = X.shape
    A = _residual(X, residual)
    Gp, Gm = pos_neg_parts(A.T @ A)
    order = np.lexsort((np.sum(A * A, axis=0), np.abs(A).sum(axis=0)))
    H = np.empty((d, m))
    H[order] = np.random.RandomState(random_state).random((d, m))
    H /= np.linalg.norm(H, axis=0)
    M, Y, mu = A @ H, np.zeros((n, m)), 10.0
    for _ in range(max_iter):
        AMp, AMm = pos_neg_parts(A.T @ M)
        AYp, AYm = pos_neg_parts(A.T @ Y)
        for _ in range(n_inner):
            num = alpha * H + mu * AMp + mu * Gm @ H + AYp
            den = alpha * H @ (H.T @ H) + mu * AMm + mu * Gp @ H + AYm
            H = multiplicative_update(H, num, den, power=0.5, eps=np.finfo(float).eps)
            H[H < 1e-100] = 0.0
        AH = A @ H
        M = soft_threshold(AH - Y / mu, 1.0 / mu)
        Y = Y + mu * (M - AH)
        mu = min(1.1 * mu, 1e10)
    return H


@pytest.mark.parametrize("residual", ["reconstruction", "transposed"])
@pytest.mark.parametrize("n, d, m", [(60, 25, 6), (30, 70, 5)])  # A^T A products; A^T (A H)
def test_fast_path_equals_reference_formula(n, d, m, residual):
    X = np.random.RandomState(n).random_sample((n, d)) ** 2
    sel = _fit(RNE(m, residual=residual, random_state=0, max_iter=4, tol=0.0), X)
    assert (2 * n < d) == _MultiplicativeStep(np.ones((n, d)), 1.0).factored
    H = _reference_fit(X, m, residual=residual)
    np.testing.assert_allclose(sel.W_, H, rtol=1e-10, atol=1e-12 * np.abs(H).max())


@pytest.mark.parametrize("n, d", [(12, 5), (5, 12)])
def test_multiplicative_step_brute_force(n, d):
    rng = np.random.RandomState(d)
    A, M, Y = rng.standard_normal((n, d)), rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
    H = np.asfortranarray(rng.random_sample((d, 3)))
    alpha, mu = 7.0, 2.5
    step = _MultiplicativeStep(A, alpha)
    step.start(A.T @ M, A.T @ Y, mu)
    expected = H.copy()
    for _ in range(3):  # num / den entry by entry, as in the docstring
        G = A.T @ A
        num = np.empty_like(expected)
        den = np.empty_like(expected)
        for j in range(d):
            for k in range(3):
                g = sum(-G[j, i] * expected[i, k] for i in range(d) if G[j, i] < 0)
                p = sum(G[j, i] * expected[i, k] for i in range(d) if G[j, i] > 0)
                am, ay = A[:, j] @ M[:, k], A[:, j] @ Y[:, k]
                num[j, k] = alpha * expected[j, k] + mu * max(am, 0) + max(ay, 0) + mu * g
                hhh = expected[j] @ (expected.T @ expected[:, k])
                den[j, k] = alpha * hhh + mu * max(-am, 0) + max(-ay, 0) + mu * p
        eps = np.finfo(float).eps
        expected = expected * np.sqrt((num + eps) / (den + eps))
        step(H)
        np.testing.assert_allclose(H, expected, rtol=1e-12)


def test_flush_keeps_zeros_and_no_subnormals():
    X, _, _ = make_planted_clusters(n_samples=80, random_state=2)
    sel = _fit(RNE(10, random_state=0, max_iter=20), X)
    H = sel.W_
    assert np.all((H == 0) | (H >= 1e-100))


def test_fit_rankings_runs_one_admm_for_all_counts(monkeypatch):
    X, _, _ = make_planted_clusters(n_samples=60, random_state=0)
    runs = []
    original = RNE._admm

    def counting_admm(self, A, Hs):
        runs.append([H.shape[1] for H in Hs])
        return original(self, A, Hs)

    monkeypatch.setattr(RNE, "_admm", counting_admm)
    r = _fit_rankings(RNE(random_state=0, max_iter=3), X, [4, 2, 7])
    assert runs == [[2, 4, 7]]
    assert sorted(r) == [2, 4, 7]


@pytest.mark.parametrize("residual", ["reconstruction", "transposed"])
def test_shifting_a_feature(residual):
    # (I - W) 1 = 0: the reconstruction form ignores each feature's offset, so
    # the fit is unchanged; (I - W^T) 1 != 0, so the transposed form's is not.
    X, _, _ = make_planted_clusters(n_samples=60, n_informative=3, n_noise=7, random_state=0)
    Xs = X + 5.0 * np.arange(10)
    a = _fit(RNE(4, residual=residual, random_state=0, max_iter=5), X)
    b = _fit(RNE(4, residual=residual, random_state=0, max_iter=5), Xs)
    same = np.allclose(a.scores_, b.scores_, rtol=1e-8, atol=1e-12)
    assert same == (residual == "reconstruction")


def test_default_residual_is_the_authors_transposed_form():
    X, _, _ = make_planted_clusters(n_samples=50, n_informative=3, n_noise=5, random_state=1)
    a = _fit(RNE(3, random_state=0, max_iter=3, tol=0.0), X)
    H = _reference_fit(X, 3, residual="transposed", max_iter=3)
    np.testing.assert_allclose(a.W_, H, rtol=1e-10, atol=1e-12 * np.abs(H).max())


def test_default_runs_every_outer_iteration_without_warning():
    # The reference code has no stopping test; tol=None (the default) runs them all.
    from sklearn.exceptions import ConvergenceWarning

    X, _, _ = make_planted_clusters(n_samples=40, n_informative=3, n_noise=5, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = RNE(3, max_iter=6, n_inner=3, random_state=0).fit(X)
    assert est.n_iter_ == 6 and len(est.objective_) == 6
    with pytest.warns(ConvergenceWarning):
        RNE(3, max_iter=2, n_inner=3, tol=1e-12, random_state=0).fit(X)


def test_multiplicative_step_blocks_are_independent_problems():
    # two H blocks stepped side by side: each block as if stepped alone
    rng = np.random.RandomState(0)
    n, d = 15, 9
    A = rng.standard_normal((n, d))
    Ms = [rng.standard_normal((n, m)) for m in (2, 4)]
    Ys = [rng.standard_normal((n, m)) for m in (2, 4)]
    Hs = [np.asfortranarray(rng.random_sample((d, m))) for m in (2, 4)]
    alpha, mu = 7.0, 2.5
    H = np.asfortranarray(np.hstack(Hs))
    step = _MultiplicativeStep(A, alpha)
    step.start(A.T @ np.hstack(Ms), A.T @ np.hstack(Ys), mu, [(0, 2), (2, 6)])
    for _ in range(3):
        step(H)
    for (lo, hi), Hb, M, Y in zip([(0, 2), (2, 6)], Hs, Ms, Ys):
        alone = _MultiplicativeStep(A, alpha)
        alone.start(A.T @ M, A.T @ Y, mu)
        for _ in range(3):
            alone(Hb)
        np.testing.assert_allclose(H[:, lo:hi], Hb, rtol=1e-12)
    # the coupled reading (one H^T H for both blocks) differs: the test can fail
    joint = np.asfortranarray(np.hstack([h.copy() for h in Hs]))
    coupled = _MultiplicativeStep(A, alpha)
    coupled.start(A.T @ np.hstack(Ms), A.T @ np.hstack(Ys), mu)
    coupled(joint)
    assert not np.allclose(joint, H, rtol=1e-6)


@pytest.mark.parametrize("tol", [None, 0.05, 1e-2])
@pytest.mark.parametrize("shared_state", [False, True])
def test_fit_rankings_in_lockstep_equals_one_fit_per_count(tol, shared_state):
    X, _, _ = make_planted_clusters(random_state=0)
    counts = [2, 3, 5, 8, 12]

    def seed():
        return np.random.RandomState(3) if shared_state else 3

    rankings = RNE(random_state=seed(), tol=tol, max_iter=25).fit_rankings(X, counts)
    state = seed()  # one generator drawn from by the fits in the order of the counts
    for k in counts:
        est = _fit(RNE(k, random_state=state, tol=tol, max_iter=25), X)
        np.testing.assert_array_equal(rankings[k], est.ranking_)
