"""MoransI: planted markers first, scanpy's statistic, a calibrated null, sparse kept sparse."""

import numpy as np
import pytest
from scipy import sparse

from ufsel import LaplacianScore, MoransI, get_selector
from ufsel.datasets import make_planted_counts
from ufsel.graph import knn_affinity, pca_embedding, pca_knn_affinity
from ufsel.preprocessing import normalize_log1p
from ufsel.selectors.filters import morans_i


@pytest.fixture(scope="module")
def planted():
    X, y, markers = make_planted_counts(2000, 500, 20, n_clusters=5, density=0.2,
                                        fold_change=8.0, dtype=np.float64, random_state=0)
    return normalize_log1p(X), markers


def _dense_morans_i(x, W):
    z = x - x.mean()
    return x.size / W.sum() * (z @ (W @ z)) / (z @ z)


def test_planted_markers_rank_first(planted):
    X, markers = planted
    sel = MoransI(n_features_to_select=len(markers), random_state=0).fit(X)
    assert set(np.flatnonzero(sel.get_support())) == set(markers)
    assert np.all(sel.pvalues_[markers] < 1e-6)


def test_statistic_matches_the_definition_on_any_graph():
    rng = np.random.default_rng(0)
    X = rng.poisson(0.3, size=(120, 5)).astype(float)
    W = sparse.random(120, 120, density=0.05, random_state=1, format="csr")  # not symmetric
    W.setdiag(0)
    ref = [_dense_morans_i(x, W.toarray()) for x in X.T]
    np.testing.assert_allclose(morans_i(X, W).statistic, ref, rtol=1e-10)
    np.testing.assert_allclose(morans_i(sparse.csr_matrix(X), W).statistic, ref, rtol=1e-10)


def test_statistic_matches_scanpy(planted):
    sc = pytest.importorskip("scanpy")
    X, _ = planted
    X = X[:500]
    W = pca_knn_affinity(X, 15, random_state=0)
    ref = sc.metrics.morans_i(W, X.T.tocsr())
    np.testing.assert_allclose(morans_i(X, W).statistic, ref, rtol=0, atol=1e-8)
    W.data = np.random.default_rng(0).random(W.nnz)  # asymmetric weights
    ref = sc.metrics.morans_i(W, np.ascontiguousarray(X.T.toarray()))
    np.testing.assert_allclose(morans_i(X, W).statistic, ref, rtol=0, atol=1e-8)


def test_null_is_calibrated_on_noise():
    """Features unrelated to the graph: z-scores about N(0, 1), p-values about uniform,
    whatever their sparsity (the randomisation null holds for counts)."""
    rng = np.random.default_rng(0)
    n = 1500
    W = knn_affinity(rng.standard_normal((n, 3)), 10, weight="binary", random_state=0)
    X = np.hstack([rng.poisson(0.05, (n, 200)), rng.poisson(3.0, (n, 200))]).astype(float)
    res = morans_i(sparse.csr_matrix(X), W)
    assert abs(np.mean(res.zscore)) < 0.15
    assert 0.85 < np.std(res.zscore) < 1.15
    assert 0.02 < np.mean(res.pvalue < 0.05) < 0.09
    assert res.expected == pytest.approx(-1 / (n - 1))


def test_sparse_input_is_never_densified(planted, monkeypatch):
    X, markers = planted
    expected = MoransI(n_features_to_select=20, random_state=0).fit(X).scores_

    def refusing(name, original):
        def method(self, *args, **kwargs):
            if min(self.shape) > 1:  # a row or column of sums may be densified
                raise AssertionError(f"a {self.shape} sparse matrix was densified ({name})")
            return original(self, *args, **kwargs)
        return method

    for cls in (sparse.csr_matrix, sparse.csc_matrix, sparse.coo_matrix, sparse.csr_array,
                sparse.csc_array, sparse.coo_array):
        for name in ("toarray", "todense"):
            monkeypatch.setattr(cls, name, refusing(name, getattr(cls, name)))
    sel = MoransI(n_features_to_select=20, random_state=0).fit(X)
    np.testing.assert_allclose(sel.scores_, expected)
    LaplacianScore(n_features_to_select=20, graph="pca", random_state=0).fit(X)


def test_precomputed_graph_as_scanpy_gives_it(planted):
    X, _ = planted
    W = pca_knn_affinity(X, 15, random_state=0)
    built = MoransI(random_state=0).fit(X)
    given = MoransI(graph=W).fit(X)
    np.testing.assert_allclose(given.statistic_, built.statistic_)
    with pytest.raises(ValueError, match="graph is 100 x 100 but X has 2000 samples"):
        MoransI(graph=W[:100, :100]).fit(X)


def test_statistic_score_and_float32(planted):
    X, markers = planted
    z = MoransI(random_state=0).fit(X)
    stat = MoransI(rank_by="statistic", random_state=0).fit(X)
    np.testing.assert_allclose(stat.scores_, z.statistic_)
    f32 = MoransI(random_state=0).fit(X.astype(np.float32))
    np.testing.assert_allclose(f32.statistic_, z.statistic_, atol=1e-4)
    assert get_selector("moransi") is MoransI


def test_constant_feature_ranks_last():
    rng = np.random.default_rng(0)
    X = np.hstack([rng.standard_normal((60, 4)), np.full((60, 1), 3.0)])
    sel = MoransI(n_neighbors=5, random_state=0).fit(X)
    assert sel.ranking_[4] == 5 and np.isnan(sel.statistic_[4])


def test_pca_embedding_sparse_matches_dense(planted):
    X, _ = planted
    Es = pca_embedding(X, 10, random_state=0)
    Ed = pca_embedding(X.toarray(), 10, random_state=0)
    assert Es.shape == (2000, 10)
    # the 4 components of the 5 planted types (the noise components are not unique)
    np.testing.assert_allclose(np.abs(Es[:, :4]), np.abs(Ed[:, :4]), atol=1e-4)
    top = pca_embedding(X, 5, n_top_features=50, random_state=0)
    assert top.shape == (2000, 5)
    with pytest.raises(ValueError, match="n_top_features must be a positive integer"):
        pca_embedding(X, 5, n_top_features=0)


def test_pca_graph_option_of_graph_selectors(planted):
    X, markers = planted
    ls = LaplacianScore(n_features_to_select=20, n_neighbors=15, graph="pca",
                        random_state=0).fit(X)
    assert np.isin(markers, np.flatnonzero(ls.get_support())).sum() >= 18
