"""MaxVariance, LaplacianScore and MCFS: properties, brute-force checks, the paper's Figure 1."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from ufsel import MCFS, LaplacianScore, MaxVariance
from ufsel.selectors.filters._laplacian_score import laplacian_score
from ufsel.datasets import load_dataset, make_planted_clusters, make_three_gaussians
from ufsel.graph import knn_affinity
from ufsel.metrics import nn_loo_error


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


def test_laplacian_score_matches_dense_formula():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 6)
    W = knn_affinity(X, 5, weight="heat", random_state=0)
    Wd = W.toarray()
    D = np.diag(Wd.sum(1))
    L = D - Wd
    one = np.ones(40)
    ref = []
    for f in X.T:
        ft = f - (f @ D @ one) / (one @ D @ one) * one
        ref.append(ft @ L @ ft / (ft @ D @ ft))
    np.testing.assert_allclose(laplacian_score(X, W), ref, rtol=1e-10)
    np.testing.assert_allclose(laplacian_score(sparse.csr_matrix(X), W), ref, rtol=1e-10)
    ls = LaplacianScore(random_state=0).fit(X)
    np.testing.assert_allclose(ls.scores_, 1 - np.array(ref), rtol=1e-10)


def test_laplacian_score_constant_feature_ranks_last():
    rng = np.random.RandomState(0)
    X = np.hstack([rng.randn(30, 3), np.full((30, 1), 7.0)])
    ls = LaplacianScore().fit(X)
    assert ls.ranking_[3] == 4
    assert np.isnan(ls.laplacian_scores_[3])


@pytest.mark.parametrize("cls", [MaxVariance, LaplacianScore, MCFS])
def test_planted_features_found(cls):
    X, y, informative = make_planted_clusters(200, 5, 45, 4, separation=4.0, noise_scale=1.5,
                                              random_state=0)
    kw = {"n_clusters": 3} if cls is MCFS else {}  # 4 clusters: 3 non-trivial eigenvectors
    sel = cls(n_features_to_select=5, **kw).fit(X)
    assert set(np.flatnonzero(sel.get_support())) == set(informative)


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
