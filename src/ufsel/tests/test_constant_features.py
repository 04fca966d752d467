"""The library-wide rule: constant features rank last, for every registered selector.

``BaseSelector.fit`` moves the features flagged by
:func:`ufsel.linalg.constant_features` behind all others in ``ranking_``
(``scores_`` stays the method's own quantity); ``fit_rankings`` does the same
for every per-count ranking.
"""

import numpy as np
import pytest
from scipy import sparse

from ufsel import UDFS, UFSA, MaxVariance
from ufsel.base import constant_last
from ufsel.linalg import constant_features

from ._common import NAMES, fit_checked, make

# the registry's test parameters stop iterative methods early on purpose
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

#: Columns planted as constant: an all-zero one (a black border pixel) and one
#: whose computed variance is not exactly zero (n copies of 3.55).
CONST = {1: 0.0, 5: 3.55}
N, D = 40, 8


def planted(seed=0, n=N, d=D, const=CONST):
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % 3
    X = rng.standard_normal((n, d))
    X[:, [0, 2]] += np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])[labels]
    for j, v in const.items():
        X[:, j] = v
    return X


def _assert_constant_last(ranking, const_idx):
    d = ranking.shape[0]
    assert sorted(ranking.tolist()) == list(range(1, d + 1))
    assert set(ranking[list(const_idx)]) == set(range(d - len(const_idx) + 1, d + 1))


# ------------------------------------------------------------- the helpers
def test_constant_features_dense_sparse_agree():
    X = planted()
    X[:, 3] = 1000.0 + 1e-14 * np.arange(N)  # varies by round-off: std << 1e-12 max std
    expected = np.zeros(D, dtype=bool)
    expected[[1, 3, 5]] = True
    assert np.std(np.full(1001, 3.5462613998904544)) > 0  # why exact equality is tested too
    for Xf in (X, np.asfortranarray(X), sparse.csr_matrix(X), sparse.csc_matrix(X),
               X.astype(np.float32)):
        np.testing.assert_array_equal(constant_features(Xf), expected)
    # a large offset: the rounded variance of an exact constant exceeds 1e-12 max std
    Y = np.column_stack([np.full(1001, 3.5462613998904544e4), 1e-3 * planted(n=1001)[:, 0]])
    np.testing.assert_array_equal(constant_features(Y), [True, False])
    np.testing.assert_array_equal(constant_features(np.full((5, 3), 2.0)), [True] * 3)
    np.testing.assert_array_equal(constant_features(sparse.csr_matrix((5, 3))), [True] * 3)


def test_constant_features_dask():
    da = pytest.importorskip("dask.array")
    X = planted()
    np.testing.assert_array_equal(constant_features(da.from_array(X, chunks=(7, D))),
                                  constant_features(X))


def test_constant_last_keeps_order_within_groups():
    ranking = np.array([3, 1, 5, 2, 4, 6])
    const = np.array([False, True, False, False, True, False])
    out = constant_last(ranking, const)
    # non-constant by rank: 3 (r2), 0 (r3), 2 (r5), 5 (r6); then constant: 1 (r1), 4 (r4)
    np.testing.assert_array_equal(out, [2, 5, 3, 1, 6, 4])
    assert constant_last(ranking, np.zeros(6, dtype=bool)) is ranking
    np.testing.assert_array_equal(constant_last(ranking, np.ones(6, dtype=bool)), ranking)


# ------------------------------------------------ every registered selector
@pytest.mark.parametrize("name", NAMES)
def test_constant_columns_ranked_last(name):
    X = planted()
    k = D - len(CONST)
    est = fit_checked(make(name, n_features_to_select=k), X)
    expected = np.isin(np.arange(D), list(CONST))
    np.testing.assert_array_equal(est.constant_features_, expected)
    _assert_constant_last(est.ranking_, CONST)
    assert not est.get_support()[list(CONST)].any()
    assert est.transform(X).shape == (N, k)
    # fit_rankings: every per-count ranking (one LARS path, per-count fits) too
    rankings = make(name).fit_rankings(X, [1, 3, D])
    for r in rankings.values():
        _assert_constant_last(r, CONST)


@pytest.mark.parametrize("name", NAMES)
def test_sparse_and_dense_agree_on_constant_columns(name):
    X = planted()
    dense = make(name, n_features_to_select=3).fit(X)
    sp = make(name, n_features_to_select=3).fit(sparse.csr_matrix(X))
    np.testing.assert_array_equal(sp.constant_features_, dense.constant_features_)
    _assert_constant_last(sp.ranking_, CONST)


@pytest.mark.parametrize("name", NAMES)
def test_all_but_c_constant(name):
    """Only c = 3 informative features vary; all are ranked before the 9 constant ones."""
    X = planted(n=N, d=12, const={j: float(j % 3) for j in range(3, 12)})
    est = fit_checked(make(name, n_features_to_select=3), X)
    assert est.constant_features_.sum() == 9
    np.testing.assert_array_equal(np.flatnonzero(est.get_support()), [0, 1, 2])
    # asking for more features than vary: the constant ones fill up, in score order
    more = fit_checked(make(name, n_features_to_select=5), X)
    assert set(np.flatnonzero(more.get_support())) >= {0, 1, 2}


def test_all_constant_keeps_score_order():
    X = np.full((10, 4), 7.0)
    X[:, 2] = 0.0
    est = MaxVariance(2).fit(X)
    assert est.constant_features_.all()
    np.testing.assert_array_equal(est.ranking_, [1, 2, 3, 4])  # all scores 0: index order


# ------------------------------------- a method whose own scores prefer them
def test_udfs_scores_prefer_constant_but_ranking_does_not():
    """UDFS's objective is smallest on a zero-variance feature: scores_ (the method's own
    quantity) put it first, ranking_ puts it last."""
    X = planted(const={1: 0.0})
    est = UDFS(3, n_clusters=3, n_neighbors=5, random_state=0).fit(X)
    assert np.argmax(est.scores_) == 1
    assert est.ranking_[1] == D
    assert not est.get_support()[1]


def test_ufsa_constant_features_agree_with_base():
    """UFSA leaves constant features out of its optimisation (std <= 1e-12 max std); the
    base's mask is the same here and those features get zero weight."""
    X = planted()
    est = UFSA(3, n_clusters=3, n_neighbors=5, max_iter=5, random_state=0).fit(X)
    np.testing.assert_array_equal(est.constant_features_, np.isin(np.arange(D), list(CONST)))
    assert np.all(est.W_[est.constant_features_] == 0)
    assert np.all(est.scores_[~est.constant_features_] > 0)
