"""LaplacianScore against the dense formula; a constant feature ranks last."""

import numpy as np
from scipy import sparse

from ufsel import LaplacianScore
from ufsel.graph import knn_affinity
from ufsel.selectors.filters._laplacian_score import laplacian_score


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
