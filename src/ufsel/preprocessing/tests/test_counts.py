import numpy as np
import pytest
from scipy import sparse
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from ufsel import MaxVariance
from ufsel.datasets import make_planted_counts
from ufsel.preprocessing import (
    NormalizeLog1p,
    PearsonResiduals,
    _counts,
    binomial_deviance,
    normalize_log1p,
    pearson_residual_variance,
    pearson_residuals,
)


@pytest.fixture(scope="module")
def counts():
    X, y, markers = make_planted_counts(600, 120, 12, n_clusters=4, density=0.1,
                                        random_state=0)
    keep = np.ones(X.shape)
    keep[5] = 0  # a sample with no counts
    keep[:, 7] = 0  # a gene with no counts
    X = sparse.csr_matrix(X.multiply(keep), dtype=np.float32)
    return X, y, markers


def _naive_residuals(D, theta, clip):
    mu = np.outer(D.sum(axis=1), D.sum(axis=0)) / D.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        Z = (D - mu) / np.sqrt(mu + mu**2 / theta)
    return np.clip(np.nan_to_num(Z), -clip, clip)


def test_normalize_log1p_keeps_sparsity_and_matches_dense(counts):
    X, _, _ = counts
    Y = normalize_log1p(X, target_sum=1e4)
    assert sparse.isspmatrix_csr(Y) and Y.nnz == X.nnz and Y.dtype == np.float32
    D = X.toarray().astype(np.float64)
    sizes = D.sum(axis=1, keepdims=True)
    expected = np.log1p(np.divide(D * 1e4, sizes, out=np.zeros_like(D), where=sizes > 0))
    np.testing.assert_allclose(Y.toarray(), expected, rtol=1e-5)
    np.testing.assert_allclose(normalize_log1p(D, target_sum=1e4), expected, rtol=1e-12)
    np.testing.assert_allclose(np.expm1(Y.toarray()).sum(axis=1)[sizes.ravel() > 0], 1e4,
                               rtol=1e-4)
    # the default total is the median library size, learned by the transformer
    t = NormalizeLog1p().fit(X)
    assert t.target_sum_ == np.median(sizes[sizes > 0])
    assert abs(t.transform(X) - normalize_log1p(X)).max() == 0


def test_pearson_residuals_formula(counts):
    X, _, _ = counts
    D = X.toarray().astype(np.float64)
    for theta, clip in ((100.0, None), (5.0, 2.0)):
        c = np.sqrt(D.shape[0]) if clip is None else clip
        expected = _naive_residuals(D, theta, c)
        Z = pearson_residuals(X, theta=theta, clip=clip, dtype=np.float64)
        np.testing.assert_allclose(Z, expected, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(pearson_residual_variance(X, theta=theta, clip=clip),
                                   expected.var(axis=0), rtol=1e-9, atol=1e-12)
    assert np.all(Z[5] == 0) and np.all(Z[:, 7] == 0)
    t = PearsonResiduals().fit(X)
    assert t.clip_ == np.sqrt(600)
    np.testing.assert_allclose(t.transform(X), pearson_residuals(X), rtol=1e-6)


def test_residual_variance_over_many_blocks(counts, monkeypatch):
    X, _, _ = counts
    whole = pearson_residual_variance(X)
    monkeypatch.setattr(_counts, "BLOCK_ENTRIES", 7 * X.shape[1])  # 86 blocks of 7 rows
    np.testing.assert_allclose(pearson_residual_variance(X), whole, rtol=1e-10)
    np.testing.assert_allclose(pearson_residuals(X, dtype=np.float64).var(axis=0), whole,
                               rtol=1e-9)


def test_binomial_deviance_formula(counts):
    X, _, _ = counts
    D = X.toarray().astype(np.float64)
    n = D.sum(axis=1, keepdims=True)
    p = D.sum(axis=0) / D.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(D > 0, D * np.log(D / (n * p)), 0.0)
        b = np.where(n - D > 0, (n - D) * np.log((n - D) / (n * (1 - p))), 0.0)
    expected = np.where(p > 0, 2 * np.nan_to_num(a + b).sum(axis=0), 0.0)
    np.testing.assert_allclose(binomial_deviance(X), expected, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(binomial_deviance(D), expected, rtol=1e-9, atol=1e-9)


def test_count_scores_find_the_markers():
    X, _, markers = make_planted_counts(3000, 300, 20, n_clusters=4, fold_change=6.0,
                                        density=0.2, random_state=1)
    for score in (pearson_residual_variance(X), binomial_deviance(X)):
        top = np.argsort(-score)[:20]
        assert np.intersect1d(top, markers).size >= 15


def test_matches_scanpy(counts):
    sc = pytest.importorskip("scanpy")
    anndata = pytest.importorskip("anndata")
    X, _, _ = counts
    # scanpy's residuals are 0/0 for a sample or a gene with no counts; ours are 0
    rows = np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)
    cols = np.flatnonzero(np.asarray(X.sum(axis=0)).ravel() > 0)
    Xk = X[rows][:, cols].astype(np.float64)
    a = anndata.AnnData(Xk.copy())
    sc.experimental.pp.highly_variable_genes(a, flavor="pearson_residuals", n_top_genes=10)
    np.testing.assert_allclose(a.var["residual_variances"].to_numpy(),
                               pearson_residual_variance(Xk), rtol=1e-7)
    a = anndata.AnnData(Xk.copy())
    sc.pp.normalize_total(a, target_sum=1e4)
    sc.pp.log1p(a)
    np.testing.assert_allclose(a.X.toarray(), normalize_log1p(Xk, target_sum=1e4).toarray(),
                               rtol=1e-10)


def test_in_a_pipeline_with_a_selector(counts):
    X, _, _ = counts
    pipe = make_pipeline(NormalizeLog1p(), MaxVariance(n_features_to_select=5)).fit(X)
    assert pipe.transform(X).shape == (600, 5)
    pipe = make_pipeline(PearsonResiduals(), MaxVariance(n_features_to_select=5)).fit(X)
    np.testing.assert_array_equal(
        np.flatnonzero(pipe[-1].get_support()),
        np.sort(np.argsort(-pearson_residual_variance(X), kind="stable")[:5]))


@pytest.mark.parametrize("func", [normalize_log1p, pearson_residuals, binomial_deviance,
                                  pearson_residual_variance])
def test_negative_values_are_refused(func):
    with pytest.raises(ValueError, match="non-negative counts"):
        func(np.array([[1.0, -1.0], [2.0, 0.0]]))


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="theta"):
        PearsonResiduals(theta=0).fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="target_sum"):
        NormalizeLog1p(target_sum=-1).fit(np.ones((3, 2)))


@parametrize_with_checks([NormalizeLog1p(), PearsonResiduals()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
