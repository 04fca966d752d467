"""Shared helpers of the reliability suites (test_common, test_properties).

Everything here is generated from the registry (``ufsel._registry.SELECTORS``)
and :data:`TEST_PARAMS`: a registered selector is covered without touching the
suites.
"""

from __future__ import annotations

import hashlib
import warnings
from contextlib import contextmanager

import numpy as np
from scipy import sparse
from sklearn.utils import check_array

import ufsel  # noqa: F401  (registers the selectors)
from ufsel._registry import SELECTORS
from ufsel.linalg import constant_features

#: Registered selector names, sorted (the parametrisation axis of the suites).
NAMES = sorted(SELECTORS)

#: name -> constructor parameters that make a fit fast on the small test data
#: (every selector not listed runs at its defaults; random_state=0 is added by
#: :func:`params_of`).
TEST_PARAMS: dict[str, dict] = {
    "laplacianscore": {"n_neighbors": 3},
    "moransi": {"n_neighbors": 3, "n_components": 2},
    "mcfs": {"n_neighbors": 3, "n_clusters": 2},
    "spcafs": {"n_components": 2, "max_iter": 30},
    "ufsa": {"n_clusters": 2, "n_neighbors": 3, "max_iter": 5, "tol": 1e-2, "w_max_iter": 2000},
    "rsfs": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 5, "tol": 0.1},
    "lgdfs": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 3, "tol": 0.1},
    "udfs": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 5, "tol": 1e-2},
    "ndfs": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 5, "tol": 1e-2},
    "jelsr": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 5, "tol": 1e-2},
    "rufs": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 5, "tol": 1e-2},
    "spec": {"n_neighbors": 3, "n_clusters": 2},
    "evsc": {"n_neighbors": 3, "n_clusters": 2},
    "qalpha": {"n_clusters": 2, "max_iter": 20},
    "eufs": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 20},
    "dgufs": {"n_neighbors": 3, "max_iter": 2},
    "sogfs": {"n_neighbors": 3, "n_clusters": 2, "max_iter": 10},
    "rne": {"n_neighbors": 3, "max_iter": 10, "n_inner": 5},
}

#: (selector name, case) -> written reason, for the few hostile-input cases a
#: method legitimately cannot support. Kept minimal; each entry turns the
#: case into a strict xfail, so a fix shows up as an unexpected pass. A case
#: is a key of ``test_common.CASES`` or ``"extreme:<param>=<value>"`` for
#: ``test_common.test_extreme_parameter``.
_SPEC_N_CLUSTERS = (
    "SPEC uses n_clusters only with scoring='phi3' (the number of eigenvectors "
    "xi_2..xi_k); with the default scoring='phi2' the parameter is ignored, so a "
    "value larger than n_samples is not an error (phi3 checks it)."
)
EXPECTED_FAILURES: dict[tuple[str, str], str] = {
    ("spec", "n_clusters_gt_n_samples"): _SPEC_N_CLUSTERS,
    ("spec", "extreme:n_clusters=1000000"): _SPEC_N_CLUSTERS,
}

#: Methods whose scores follow a feature permutation only up to ties (an exact
#: tie broken by feature index decides a discrete choice, for example which of
#: two equally correlated features LARS activates first). The property test
#: then compares the sorted scores instead of the permuted ones.
PERMUTATION_UP_TO_TIES: dict[str, str] = {}


def params_of(name):
    """The constructor parameters the suites use for selector ``name``."""
    cls = SELECTORS[name]
    params = dict(TEST_PARAMS.get(name, {}))
    if "random_state" in cls().get_params():
        params.setdefault("random_state", 0)
    return params


def make(name, **overrides):
    """A selector instance with the registry's test parameters (random_state=0)."""
    params = params_of(name)
    params.update(overrides)
    return SELECTORS[name](**params)


def has_param(name, param):
    return param in SELECTORS[name]().get_params()


def tiny_data(seed=0, n_samples=30, n_features=6):
    """Small clustered data: 3 Gaussian blobs in 2 informative features, the rest noise."""
    rng = np.random.RandomState(seed)
    labels = np.arange(n_samples) % 3
    X = rng.standard_normal((n_samples, n_features))
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    k = min(2, n_features)
    X[:, :k] += centres[labels][:, :k]
    return X


def checksum(X):
    """Digest of everything a fit could modify in place (values, shape, sparse structure)."""
    h = hashlib.sha256()
    if sparse.issparse(X):
        for part in ("data", "indices", "indptr", "row", "col"):
            a = getattr(X, part, None)
            if a is not None:
                h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr((X.format, X.shape, X.dtype)).encode())
    elif hasattr(X, "to_numpy"):  # DataFrame
        h.update(repr(X.dtypes.tolist()).encode())
        for col in X.columns:
            h.update(repr(X[col].tolist()).encode())
    else:
        a = np.asarray(X)
        h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr((a.shape, a.dtype, a.flags.f_contiguous, a.flags.writeable)).encode())
    return h.hexdigest()


@contextmanager
def strict_warnings():
    """Every RuntimeWarning (division by zero, overflow, invalid value) is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def check_fitted(est, X):
    """Invariants of every fitted selector, whatever the data."""
    d = est.n_features_in_
    s = est.scores_
    assert s.shape == (d,) and s.dtype == np.float64
    assert np.all(np.isfinite(s)), f"non-finite scores_ {s}"
    r = est.ranking_
    assert sorted(r.tolist()) == list(range(1, d + 1)), f"ranking_ {r} is not a permutation"
    const = est.constant_features_
    assert const.shape == (d,) and const.dtype == bool
    Xv = check_array(X, accept_sparse=("csr", "csc"),
                     dtype=[np.float64, np.float32] if est._preserves_float32() else np.float64)
    np.testing.assert_array_equal(const, constant_features(Xv), "constant_features_ is not X's")
    order = np.argsort(r)
    assert not np.any(np.diff(const[order].astype(int)) < 0), (
        f"a constant feature ranks before a non-constant one: ranking_ {r}, constant {const}")
    for group in (~const, const):  # scores_ decide the order within each group
        by_rank = s[order[group[order]]]
        assert np.all(np.diff(by_rank) <= 0), f"ranking_ {r} disagrees with scores_ {s}"
    k = est.n_features_to_select_
    assert 1 <= k <= d
    support = est.get_support()
    assert support.dtype == bool and support.sum() == k
    assert np.array_equal(np.flatnonzero(support), np.sort(np.argsort(r)[:k]))


def fit_checked(est, X, y=None):
    """Fit with RuntimeWarnings as errors, check the invariants and that X is untouched."""
    before = checksum(X)
    with strict_warnings():
        est.fit(X, y)
    assert checksum(X) == before, "fit modified the caller's X"
    check_fitted(est, X)
    return est
