"""PivotedQR: the greedy pivot rule, LAPACK's pivot order, restarts, ties, tall and sparse input."""

import numpy as np
import pytest
from scipy import linalg, sparse

from ufsel import PivotedQR
from ufsel.selectors.filters import _pivoted_qr as pq


def _brute_force_order(X, tol=1e-8):
    """The greedy rule written out: pick the column least explained by the chosen ones."""
    Xc = X - X.mean(axis=0)
    d = X.shape[1]
    remaining = [j for j in range(d) if np.ptp(X[:, j]) > 0]
    order = []
    while remaining:
        chosen, first = [], None
        while True:
            best, arg = -1.0, None
            for j in remaining:
                if j in chosen:
                    continue
                if chosen:
                    coef = np.linalg.lstsq(Xc[:, chosen], Xc[:, j], rcond=None)[0]
                    r = np.linalg.norm(Xc[:, j] - Xc[:, chosen] @ coef)
                else:
                    r = np.linalg.norm(Xc[:, j])
                if r > best:
                    best, arg = r, j
            if arg is None or (first is not None and best <= tol * first):
                break
            first = best if first is None else first
            chosen.append(arg)
        order += chosen
        remaining = [j for j in remaining if j not in chosen]
    return order


@pytest.mark.parametrize("shape", [(12, 5), (6, 11), (7, 7)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_order_equals_brute_force_greedy(shape, seed):
    rng = np.random.RandomState(seed)
    X = rng.randn(*shape) * rng.uniform(0.5, 3.0, shape[1])
    sel = PivotedQR().fit(X)
    assert np.argsort(sel.ranking_).tolist() == _brute_force_order(X)


@pytest.mark.parametrize("seed", range(4))
def test_first_round_is_lapack_pivot_order(seed):
    rng = np.random.RandomState(seed)
    X = rng.randn(40, 25) @ rng.randn(25, 25)
    Xc = X - X.mean(axis=0)
    _, _, piv = linalg.qr(Xc, pivoting=True)
    order = np.argsort(PivotedQR().fit(X).ranking_)
    np.testing.assert_array_equal(order, piv)


def test_restarts_rank_every_feature_when_d_exceeds_n():
    rng = np.random.RandomState(0)
    X = rng.randn(8, 30)
    sel = PivotedQR().fit(X)
    # the centred data have rank 7: rounds of 7, 7, 7, 7 and 2 features
    counts = np.bincount(sel.rounds_)
    assert counts.tolist() == [7, 7, 7, 7, 2]
    assert np.all(sel.rounds_ >= 0)
    # within a round the relative residual is non-increasing and the first is 1
    order = np.argsort(sel.ranking_)
    for r in range(counts.size):
        rho = sel.residuals_[order[sel.rounds_[order] == r]]
        assert rho[0] == 1.0 and np.all(np.diff(rho) <= 1e-12)
    # a round's features are linearly independent after centring
    Xc = X - X.mean(axis=0)
    for r in range(counts.size):
        assert np.linalg.matrix_rank(Xc[:, sel.rounds_ == r]) == counts[r]


def test_copies_and_combinations_of_chosen_features_come_last():
    rng = np.random.RandomState(1)
    B = rng.randn(60, 4) * [4.0, 3.0, 2.0, 1.0]
    copies = np.column_stack([2 * B[:, 0], B[:, 1] - B[:, 2], B @ [1, 1, 1, 1]])
    X = np.column_stack([copies[:, 0], B, copies[:, 1:]])  # 0, 5, 6 depend on 1..4
    sel = PivotedQR(n_features_to_select=4).fit(X)
    # the first round takes 4 independent columns, and exactly one of the copies of
    # B[:, 0] (the larger, 2 B[:, 0]); the dependent ones restart in later rounds
    first = set(np.flatnonzero(sel.rounds_ == 0))
    assert len(first) == 4 and np.linalg.matrix_rank(X[:, sorted(first)]) == 4
    assert 0 in first and 1 not in first
    assert sel.get_support().sum() == 4 and set(np.flatnonzero(sel.get_support())) == first


def test_exact_duplicates_are_the_only_order_dependent_tie():
    rng = np.random.RandomState(2)
    A = rng.randn(30, 5)
    X = np.column_stack([A, A[:, 2]])  # column 5 duplicates column 2
    sel = PivotedQR().fit(X)
    assert sel.rounds_[5] == 1 and sel.rounds_[2] == 0  # the first copy wins the tie
    perm = np.array([5, 0, 1, 3, 4, 2])  # duplicate now comes first
    selp = PivotedQR().fit(X[:, perm])
    assert selp.rounds_[0] == 0 and selp.rounds_[5] == 1
    # the two copies swap scores; every other feature keeps its own
    np.testing.assert_allclose(selp.scores_[1:5], sel.scores_[perm][1:5])
    np.testing.assert_allclose(selp.scores_[[0, 5]], sel.scores_[[2, 5]])


def test_columns_of_equal_norm_tie_by_content_not_position():
    # two columns with the same values in a different row order: equal norms, so
    # the first pivot is a tie that the content key (not the column index) decides
    rng = np.random.RandomState(3)
    a = rng.randn(20)
    X = np.column_stack([a, a[::-1], 0.1 * rng.randn(20)])
    first = np.argmin(PivotedQR().fit(X).ranking_)
    first_swapped = np.argmin(PivotedQR().fit(X[:, [1, 0, 2]]).ranking_)
    assert [0, 1][first] == [1, 0][first_swapped]


def test_tall_blocked_qr_equals_one_block(monkeypatch):
    rng = np.random.RandomState(4)
    X = rng.randn(500, 12) @ rng.randn(12, 12) + 5.0
    whole = PivotedQR().fit(X)
    monkeypatch.setattr(pq, "BLOCK_ROWS", 37)
    blocked = PivotedQR().fit(X)
    np.testing.assert_array_equal(blocked.ranking_, whole.ranking_)
    np.testing.assert_allclose(blocked.scores_, whole.scores_, rtol=1e-10)
    R = pq._centred_factor(X, X.mean(axis=0))
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(R.T @ R, Xc.T @ Xc, rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("shape", [(300, 20), (15, 40)])
def test_sparse_equals_dense(shape, monkeypatch):
    monkeypatch.setattr(pq, "BLOCK_ROWS", 64)
    rng = np.random.RandomState(5)
    X = sparse.random(*shape, density=0.3, random_state=rng, format="csr") * 10
    a = PivotedQR().fit(X)
    b = PivotedQR().fit(X.toarray())
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-9)


def test_constant_features_last_and_scored_zero():
    rng = np.random.RandomState(6)
    X = np.column_stack([rng.randn(20), np.full(20, 3.0), rng.randn(20)])
    sel = PivotedQR().fit(X)
    assert sel.ranking_[1] == 3 and sel.scores_[1] == 0.0 and sel.rounds_[1] == -1



def test_picks_one_feature_per_source_where_maxvariance_picks_copies():
    # three latent sources; the strongest has six noisy near-copies, the others two
    # each: MaxVariance spends its three picks on copies of the strongest source,
    # PivotedQR picks one feature of each source (the least redundant three)
    rng = np.random.RandomState(8)
    n = 200
    src = rng.randn(n, 3)
    cols, origin = [], []
    for s, (scale, copies) in enumerate([(5.0, 6), (2.0, 2), (1.5, 2)]):
        for _ in range(copies):
            cols.append(scale * src[:, s] + 0.05 * rng.randn(n))
            origin.append(s)
    X = np.column_stack(cols)
    origin = np.array(origin)
    from ufsel import MaxVariance

    mv = MaxVariance(n_features_to_select=3).fit(X).get_support()
    pq_sel = PivotedQR(n_features_to_select=3).fit(X).get_support()
    assert sorted(origin[mv]) == [0, 0, 0]
    assert sorted(origin[pq_sel]) == [0, 1, 2]
