"""MCFS: the paper's Figure 1 and Table 7, one LARS path for all counts, the push-through
LARS (d > n) against the formed Gram matrix, determinism, DataFrames and bad input."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from ufsel import MCFS, LaplacianScore, MaxVariance
from ufsel.base import ranking_from_scores
from ufsel.datasets import load_dataset, make_planted_clusters, make_three_gaussians
from ufsel.linalg import lars_at_cardinalities
from ufsel.metrics import nn_loo_error
from ufsel.selectors.sparse_regression._mcfs import mcfs_scores


def test_lars_through_x_matches_formed_gram():
    rng = np.random.default_rng(0)
    n, d = 30, 200
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    counts = [5, 40, 150]  # beyond n: only the ridge keeps the active block definite
    ref, ref_entry = lars_at_cardinalities(X.T @ X + 1e-3 * np.eye(d), X.T @ y, n, counts)
    out, entry = lars_at_cardinalities(None, X.T @ y, n, counts, X=X, ridge=1e-3)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-9 * np.abs(ref).max())
    np.testing.assert_array_equal(entry, ref_entry)
    np.testing.assert_array_equal(out != 0, ref != 0)


def test_mcfs_scores_wide_dense_equal_sparse_gram_path():
    # dense wide X takes the push-through path; its sparse copy forms the Gram matrix
    from scipy import sparse

    rng = np.random.default_rng(1)
    X = rng.standard_normal((25, 120))
    Y = rng.standard_normal((25, 3))
    counts = [10, 30]  # d = 120 >= K max(counts) = 90: the Gram matrix is not formed
    dense, dense_entry = mcfs_scores(X, Y, counts)
    formed, formed_entry = mcfs_scores(sparse.csr_matrix(X), Y, counts)
    np.testing.assert_allclose(dense, formed, atol=1e-9)
    for a, b in zip(dense, formed):
        np.testing.assert_array_equal(ranking_from_scores(a, dense_entry),
                                      ranking_from_scores(b, formed_entry))


def test_push_through_only_where_forming_the_gram_costs_more(monkeypatch):
    import ufsel.selectors.sparse_regression._mcfs as mcfs_module

    seen = []
    original = mcfs_module.lars_at_cardinalities

    def spy(G, Xy, n, counts, *, X=None, ridge=0.0):
        seen.append(X is not None)
        return original(G, Xy, n, counts, X=X, ridge=ridge)

    monkeypatch.setattr(mcfs_module, "lars_at_cardinalities", spy)
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((25, 120)), rng.standard_normal((25, 3))
    mcfs_scores(X, Y, [10, 30])  # 120 >= 3 x 30: through X
    mcfs_scores(X, Y, [10, 60])  # 120 < 3 x 60: the Gram matrix is formed
    mcfs_scores(X[:, :20], Y, [2, 5])  # d < n: formed
    assert seen == [True] * 3 + [False] * 3 + [False] * 3


def test_figure1_mcfs_picks_a_and_c_maxvariance_does_not():
    X, _ = make_three_gaussians(100, random_state=0)
    mv = MaxVariance(n_features_to_select=2).fit(X)
    assert list(mv.ranking_) == [1, 2, 3]  # a > b > c
    assert set(np.flatnonzero(mv.get_support())) == {0, 1}
    # Three clusters are separated by the first two non-trivial eigenvectors (the
    # constant one is dropped); a third would describe within-cluster noise.
    for seed in range(5):
        X, _ = make_three_gaussians(100, random_state=seed)
        mc = MCFS(n_features_to_select=2, n_clusters=2, random_state=seed).fit(X)
        assert set(np.flatnonzero(mc.get_support())) == {0, 2}


def test_mcfs_rankings_from_one_path_equal_separate_fits():
    X, _, _ = make_planted_clusters(150, 6, 30, 3, random_state=0)
    est = MCFS(n_clusters=3, random_state=0)
    ranks = est.fit_rankings(X, [3, 8, 15])
    for k in (3, 8, 15):
        single = MCFS(n_features_to_select=k, n_clusters=3, random_state=0).fit(X)
        # same selected set and same order of the features with non-zero score (the
        # order of zero-score features depends on how far each LARS path was followed)
        top = np.argsort(single.ranking_)[: np.count_nonzero(single.scores_)]
        np.testing.assert_array_equal(np.argsort(ranks[k])[: top.size], top)
        assert set(np.argsort(ranks[k])[:k]) == set(np.flatnonzero(single.get_support()))
    assert not hasattr(est, "ranking_")  # fit_rankings leaves self untouched


def test_mcfs_scores_are_unit_norm_coefficient_maxima():
    X, _, _ = make_planted_clusters(120, 5, 20, 3, random_state=2)
    sel = MCFS(n_features_to_select=6, n_clusters=3, random_state=0).fit(X)
    assert 0 < sel.scores_.max() <= 1.0
    assert np.count_nonzero(sel.scores_) >= 6


def test_determinism_and_sparse_equals_dense():
    X, _, _ = make_planted_clusters(2100, 5, 15, 3, random_state=0)  # > DENSE_EIGH_MAX: ARPACK
    a = MCFS(10, n_clusters=3, random_state=7).fit(X)
    b = MCFS(10, n_clusters=3, random_state=7).fit(X)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    Xs = sparse.csr_matrix(np.where(np.abs(X) > 1, X, 0.0))
    for cls in (MaxVariance, LaplacianScore):
        d = cls(random_state=0).fit(Xs.toarray()) if cls is LaplacianScore else cls().fit(Xs.toarray())
        s = cls(random_state=0).fit(Xs) if cls is LaplacianScore else cls().fit(Xs)
        np.testing.assert_allclose(d.scores_, s.scores_, rtol=1e-9, atol=1e-12)


def test_dataframe_feature_names_and_bad_input_messages():
    X, _, _ = make_planted_clusters(40, 3, 3, 2, random_state=0)
    df = pd.DataFrame(X, columns=[f"g{i}" for i in range(6)])
    sel = MCFS(2, n_clusters=2, random_state=0).fit(df)
    assert list(sel.feature_names_in_) == list(df.columns)
    assert len(sel.get_feature_names_out()) == 2
    df["s"] = "x"
    with pytest.raises(ValueError, match="numeric"):
        MaxVariance().fit(df)
    X0 = X.copy()
    with pytest.raises(ValueError, match="n_features_to_select=7"):
        MaxVariance(7).fit(X)
    with pytest.raises(ValueError, match="n_neighbors"):
        MCFS(n_neighbors=5, n_clusters=2).fit(X[:5])
    with pytest.raises(ValueError, match="NaN"):
        MaxVariance().fit(np.where(X > 2, np.nan, X))
    with pytest.raises(ValueError, match="infinity|inf"):
        LaplacianScore().fit(np.where(X > 2, np.inf, X))
    with pytest.raises(ValueError, match="2D"):
        MaxVariance().fit(X[:, 0])
    with pytest.raises(ValueError, match="0 sample|0 feature"):
        MaxVariance().fit(np.empty((0, 3)))
    np.testing.assert_array_equal(X, X0)


DATA = os.environ.get("UFSEL_DATA")


@pytest.mark.skipif(not DATA or not Path(DATA, "coil20.mat").is_file(),
                    reason="benchmark data not available: set UFSEL_DATA")
@pytest.mark.parametrize("name,limit", [("coil20", 0.015), ("orl", 0.10)])
def test_mcfs_paper_table7_1nn_error(name, limit):
    """Acceptance: 50 features, k = 5, K = number of classes (paper: 0.1 % / 8.5 %)."""
    b = load_dataset(name)
    c = np.unique(b.target).size
    sel = MCFS(50, n_clusters=c, n_neighbors=5, random_state=0).fit(b.data)
    assert nn_loo_error(sel.transform(b.data), b.target) <= limit
