"""MaxVariance: the scores are the biased variances, sparse and float32 input agree with dense."""

import numpy as np
from scipy import sparse

from ufsel import MaxVariance
from ufsel.datasets import make_three_gaussians


def test_scores_are_biased_variances_and_rank_by_them():
    rng = np.random.RandomState(0)
    X = rng.randn(50, 6) * np.array([1.0, 3.0, 0.5, 2.0, 0.1, 4.0])
    est = MaxVariance(n_features_to_select=2).fit(X)
    np.testing.assert_allclose(est.scores_, X.var(axis=0, ddof=0), rtol=1e-12)
    np.testing.assert_array_equal(np.argsort(est.ranking_), np.argsort(-X.var(axis=0)))
    assert set(np.flatnonzero(est.get_support())) == {1, 5}


def test_figure1_order_a_b_c():
    """Cai et al., Figure 1: variance ranks a > b > c (MCFS picks a and c, test_mcfs.py)."""
    X, _ = make_three_gaussians(100, random_state=0)
    assert list(MaxVariance().fit(X).ranking_) == [1, 2, 3]


def test_sparse_and_float32_input_match_dense():
    rng = np.random.RandomState(1)
    X = np.where(rng.rand(80, 7) < 0.3, rng.randn(80, 7), 0.0)
    dense = MaxVariance().fit(X)
    np.testing.assert_allclose(MaxVariance().fit(sparse.csr_matrix(X)).scores_, dense.scores_,
                               rtol=1e-10, atol=1e-14)
    f32 = MaxVariance().fit(X.astype(np.float32))
    np.testing.assert_allclose(f32.scores_, dense.scores_, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(f32.ranking_, dense.ranking_)
