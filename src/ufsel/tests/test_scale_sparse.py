"""Sparse input end to end, for every registered selector.

A selector sets the tag ``sparse_native`` (:func:`ufsel.utils.get_selector_tags`) when it never forms a dense
n x d copy of sparse X; the tests hold every registered selector to its
declaration:

- sparse-native selectors fit PCMAC (term counts, skipped when the data set
  is missing) and a synthetic TF-IDF matrix with every sparse -> dense
  conversion of an n x d matrix refused (``no_densify``) and the dense-copy
  limit at zero, and transform to sparse output;
- the others do densify (so the flag is not merely missing), refuse sparse
  input above ``max_dense_bytes`` with the clear :func:`ufsel.utils.densify`
  error before allocating anything, and say so in their docstrings;
- every selector's sparse fit (CSR, CSC, COO) equals its dense fit on a
  slice small enough to compare.
"""

import re

import numpy as np
import pytest
from scipy import sparse

import ufsel
from ufsel import JELSR, MCFS, SPEC, UDFS, LaplacianScore, QAlpha
from ufsel._registry import SELECTORS
from ufsel.datasets import load_dataset, make_sparse_tfidf
from ufsel.exceptions import DenseCopyTooLargeError
from ufsel.utils import densify, get_selector_tags

from ._common import NAMES, params_of

# the registry's test parameters stop iterative methods early on purpose
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

NATIVE = [n for n in NAMES if get_selector_tags(SELECTORS[n]()).sparse_native]
DENSIFYING = [n for n in NAMES if n not in NATIVE]

#: Overrides for the larger fits (TF-IDF 400 x 1500, PCMAC 1943 x 3289): fewer
#: iterations. (UDFS's 3289 x 3289 eigenproblem once took minutes with ARPACK on
#: these rank-deficient term counts; "auto" now uses LAPACK for it, see
#: ufsel.linalg.DENSE_SMALLEST_MAX, and this test exercises that default.)
LARGE_PARAMS = {"ufsa": {"max_iter": 2}, "jelsr": {"max_iter": 2},
                "udfs": {"max_iter": 2}}

DOCSTRING_PENDING = {}

#: Absolute score tolerance (relative to the largest score) of the sparse-vs-dense
#: comparison where the sparse path rounds differently and the method amplifies
#: it: UDFS's scores are squared eigenvector rows of a d x d matrix built from
#: sparse row products (1e-16 differences), and the rows of the features
#: W does not use sit at 1e-9 of the largest, where they differ by 30 %.
SCORE_ATOL = {"udfs": 1e-7}

#: How a docstring says that the method densifies sparse input.
_DENSIFIES = re.compile(r"sparse (x|input) is densified", re.IGNORECASE)


def make(name, n_features, **overrides):
    return SELECTORS[name](n_features, **{**params_of(name), **overrides})


@pytest.fixture
def no_densify(monkeypatch):
    """Make every sparse -> dense conversion of a non-square (n x d) matrix fail."""
    def refuse(self, *args, **kwargs):
        if self.shape[0] != self.shape[1] and min(self.shape) > 64:  # n x d, not d x d
            raise AssertionError(f"densified a sparse matrix of shape {self.shape}")
        return orig[type(self)](self, *args, **kwargs)

    orig = {}
    for cls in (sparse.csr_matrix, sparse.csc_matrix, sparse.coo_matrix,
                sparse.csr_array, sparse.csc_array, sparse.coo_array):
        orig[cls] = cls.toarray
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)


@pytest.fixture
def no_dense_copy(ufsel_config):
    """``densify`` refuses every sparse input (limit 16 bytes)."""
    ufsel_config(max_dense_bytes=16)


@pytest.fixture(scope="module")
def tfidf():
    return make_sparse_tfidf(400, 1500, density=0.01, n_topics=3, random_state=0)


@pytest.fixture(scope="module")
def pcmac():
    try:
        data = load_dataset("pcmac")
    except ValueError as exc:
        pytest.skip(f"PCMAC not available: {exc}")
    return sparse.csr_matrix(data.data)


# --------------------------------------------------------- every selector
def _duplicate_groups(X, standardized):
    """Group label of each feature: features with equal columns share one (after each
    column is divided by its standard deviation when the selector standardizes). Such
    features are exchangeable, so which of them gets which score is a documented tie:
    in this TF-IDF slice features 76 and 167 each have one non-zero, in the same
    document, and become equal once standardized; UFSA's two minima then differ only by
    swapping their scores, and which one a fit reaches follows rounding."""
    X = np.asarray(X, dtype=float)
    if standardized:
        std = X.std(axis=0)
        X = X / np.where(std > 0, std, 1.0)
    _, group = np.unique(np.round(X, 10), axis=1, return_inverse=True)
    return group.ravel()


def _sorted_within_groups(scores, group):
    out = scores.copy()
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        out[members] = np.sort(scores[members])
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_equals_dense(name, fmt, tfidf):
    X = tfidf.data[:, :200]  # small enough to compare with the dense fit
    dense = make(name, 20).fit(X.toarray())
    sel = make(name, 20).fit(X.asformat(fmt))
    scale = np.abs(dense.scores_).max()
    group = _duplicate_groups(X.toarray(), dense.get_params().get("standardize", False))
    np.testing.assert_allclose(_sorted_within_groups(sel.scores_, group),
                               _sorted_within_groups(dense.scores_, group), rtol=1e-6,
                               atol=SCORE_ATOL.get(name, 1e-9) * scale)
    np.testing.assert_array_equal(sel.constant_features_, dense.constant_features_)
    # the same selection (up to exchanging duplicate features) unless the cut falls in a
    # near-tie (features at round-off level)
    order = np.argsort(dense.ranking_)
    s = dense.scores_[order]
    if not dense.constant_features_[order][20] and s[19] - s[20] > 1e-6 * scale:
        np.testing.assert_array_equal(np.sort(group[sel.get_support()]),
                                      np.sort(group[dense.get_support()]))


@pytest.mark.parametrize("name", NATIVE)
def test_native_tfidf_not_densified(name, tfidf, no_densify, no_dense_copy):
    sel = make(name, 30, **LARGE_PARAMS.get(name, {})).fit(tfidf.data)
    assert np.all(np.isfinite(sel.scores_))
    Xt = sel.transform(tfidf.data)
    assert Xt.shape == (400, 30) and sparse.issparse(Xt)


@pytest.mark.parametrize("name", NATIVE)
def test_native_pcmac(name, pcmac, no_densify, no_dense_copy):
    sel = make(name, 50, **LARGE_PARAMS.get(name, {})).fit(pcmac)
    assert np.all(np.isfinite(sel.scores_)) and sel.get_support().sum() == 50
    assert not np.any(sel.get_support() & sel.constant_features_)


@pytest.mark.parametrize("name", DENSIFYING)
def test_densifying_selector_does_densify(name, tfidf, no_densify):
    """The flag is honest: a selector marked as densifying does form dense n x d X."""
    with pytest.raises(AssertionError, match="densified a sparse matrix"):
        make(name, 30).fit(tfidf.data)


@pytest.mark.parametrize("name", DENSIFYING)
def test_densifying_selector_refuses_above_limit(name, tfidf, no_densify, no_dense_copy):
    """Above the limit: the clear densify error, raised before any dense copy is made."""
    cls = SELECTORS[name].__name__
    with pytest.raises(DenseCopyTooLargeError,
                       match=rf"{cls} needs a dense copy of the sparse input.*"
                             r"Use a selector that works on sparse data"):
        make(name, 30).fit(tfidf.data)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=DOCSTRING_PENDING[n], strict=False))
    if n in DOCSTRING_PENDING else n for n in NAMES])
def test_docstring_states_sparse_handling(name):
    doc = SELECTORS[name].__doc__
    if name in NATIVE:
        assert not _DENSIFIES.search(doc), f"{name} is sparse-native but its docstring says otherwise"
    else:
        assert _DENSIFIES.search(doc), f"{name} densifies sparse X; its docstring must say so"


def test_densify_error_names_the_sparse_native_selectors(tfidf, no_dense_copy):
    """``densify`` says what to do in general; the selector's fit adds the selectors that
    work on sparse data (the registry is read by the base, not by the validation)."""
    X = sparse.random(10, 10, density=0.1, format="csr", random_state=0)
    with pytest.raises(DenseCopyTooLargeError) as info:
        densify(X, "Owner")
    assert all(SELECTORS[name].__name__ not in str(info.value) for name in NATIVE)
    with pytest.raises(DenseCopyTooLargeError) as info:
        make(DENSIFYING[0], 30).fit(tfidf.data)
    message = str(info.value)
    assert message.count(SELECTORS[DENSIFYING[0]].__name__) == 1  # named once, in front
    assert "Selectors that work on sparse data:" in message
    for name in NATIVE:
        assert SELECTORS[name].__name__ in message


def test_tfidf_topic_terms_found(tfidf):
    """The topic terms carry the cluster structure: Laplacian Score ranks them first."""
    sel = LaplacianScore(50, n_neighbors=5, weight="cosine").fit(tfidf.data)
    top = np.flatnonzero(sel.get_support())
    assert np.isin(top, tfidf.informative).mean() > 0.8


def test_mcfs_gram_limit_is_a_clear_error(ufsel_config):
    ufsel_config(max_gram_bytes=100 * 100 * 8)
    X = sparse.random(60, 200, density=0.2, random_state=0, format="csr")
    with pytest.raises(ValueError, match="MCFS needs a 200 x 200 matrix"):
        MCFS(5, n_neighbors=3, n_clusters=2).fit(X)


def test_densify_refuses_huge_sparse():
    X = sparse.random(10, 10, density=0.1, format="csr")
    with pytest.raises(ValueError, match="dense copy"):
        densify(X, "Owner", max_bytes=10)
    assert isinstance(densify(X, "Owner"), np.ndarray)
    with ufsel.config_context(max_dense_bytes=10):
        with pytest.raises(ValueError, match=r"limit 0\.0 GiB, ufsel\.set_config"):
            densify(X, "Owner")
        assert isinstance(densify(X, "Owner", max_bytes=800), np.ndarray)


def test_float32_sparse_kept(tfidf):
    X = tfidf.data.astype(np.float32)
    ls32 = LaplacianScore(10, n_neighbors=5).fit(X)
    ls64 = LaplacianScore(10, n_neighbors=5).fit(tfidf.data)
    np.testing.assert_allclose(ls32.scores_, ls64.scores_, atol=1e-4)


def test_udfs_gram_limit_is_a_clear_error(ufsel_config):
    ufsel_config(max_gram_bytes=100 * 100 * 8)
    X = sparse.random(300, 200, density=0.2, random_state=0, format="csr")
    with pytest.raises(ValueError, match="UDFS needs a 200 x 200 matrix"):
        UDFS(5, n_neighbors=3, n_clusters=2).fit(X)
    # d > n with dense steps asked for: the d x d matrix is still needed
    with pytest.raises(ValueError, match="UDFS needs a 200 x 200 matrix"):
        UDFS(5, n_neighbors=3, n_clusters=2, eigen_solver="dense").fit(X[:60])


def test_udfs_wide_data_beyond_the_gram_limit(ufsel_config):
    """d > n (d >= 2 n): the first step on X's row space and the later ones through the
    Woodbury identity need only r x r and n x r matrices, so a d x d matrix above the
    size limit is never formed, and the fit equals the dense solves' on that matrix."""
    X = sparse.random(60, 200, density=0.2, random_state=0, format="csr")
    dense = UDFS(5, n_neighbors=3, n_clusters=2, eigen_solver="dense").fit(X)
    ufsel_config(max_gram_bytes=100 * 100 * 8)
    capped = UDFS(5, n_neighbors=3, n_clusters=2).fit(X)
    assert capped.n_iter_ == dense.n_iter_ > 1
    np.testing.assert_allclose(capped.objective_, dense.objective_, rtol=1e-9)
    np.testing.assert_allclose(capped.scores_, dense.scores_, atol=1e-9 * dense.scores_.max())


# ------------------------------------------- the sparse-native paths, one by one
@pytest.mark.parametrize("params", [
    {"scoring": "phi1"}, {"scoring": "phi3", "n_clusters": 3}, {"power": 2.0},
    {"power": 1.5}, {"n_neighbors": None}])
def test_spec_sparse_paths_equal_dense(params, tfidf):
    X = tfidf.data[:, :200]
    dense = SPEC(20, random_state=0, **params).fit(X.toarray())
    sp = SPEC(20, random_state=0, **params).fit(X)
    np.testing.assert_allclose(sp.spec_values_, dense.spec_values_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(400, 200), (120, 1500)])  # d <= n and d > n (push-through)
@pytest.mark.parametrize("embedding", ["lle", "laplacian"])
def test_jelsr_implicit_centring_equals_dense(shape, embedding, tfidf):
    X = tfidf.data[:shape[0], :shape[1]]
    kw = {"n_clusters": 3, "embedding": embedding, "max_iter": 5, "random_state": 0}
    dense, sp = JELSR(20, **kw).fit(X.toarray()), JELSR(20, **kw).fit(X)
    np.testing.assert_allclose(sp.objective_, dense.objective_, rtol=1e-6)
    np.testing.assert_allclose(sp.scores_, dense.scores_, atol=1e-5 * dense.scores_.max())


def test_qalpha_standardised_operator_matches_dense(tfidf):
    from ufsel.linalg import center_unit_norm
    from ufsel.selectors.sparse_regression._qalpha import standardised_operator

    keep = np.ones(200)
    keep[7] = 0.0  # an all-zero column (scale 0)
    X = (tfidf.data[:, :200] @ sparse.diags(keep)).tocsr()
    M, C = standardised_operator(X)
    Md = center_unit_norm(X.toarray())
    V = np.random.RandomState(0).standard_normal((200, 3))
    U = np.random.RandomState(1).standard_normal((400, 3))
    np.testing.assert_allclose(M @ V, Md @ V, atol=1e-12)
    np.testing.assert_allclose(M.T @ U, Md.T @ U, atol=1e-12)
    np.testing.assert_allclose(C, Md.T @ Md, atol=1e-12)
    kw = {"n_clusters": 3, "random_state": 0}
    np.testing.assert_allclose(QAlpha(10, **kw).fit(X).scores_,
                               QAlpha(10, **kw).fit(X.toarray()).scores_, atol=1e-10)


def test_rufs_residual_row_norms_without_the_residual(tfidf):
    from ufsel.selectors.sparse_regression._rufs import residual_row_norms_sq

    rng = np.random.RandomState(0)
    X = tfidf.data[:, :300]
    G, F = rng.uniform(size=(400, 3)), 0.01 * rng.uniform(size=(3, 300))
    np.testing.assert_allclose(residual_row_norms_sq(X, G, F),
                               residual_row_norms_sq(X.toarray(), G, F), rtol=1e-10, atol=1e-14)
