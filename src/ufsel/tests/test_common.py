"""Hostile and degenerate input, generated over every registered selector.

Each (selector, case) pair is one test. A case either *works* (the fit
succeeds, no RuntimeWarning is emitted, ``scores_`` is finite, ``ranking_``
is a permutation consistent with ``scores_``, ``get_support`` keeps exactly
``n_features_to_select_`` features, the caller's X is unchanged) or *raises*
a ``ValueError`` whose message names the selector and matches the problem.
"either" cases accept both outcomes (the outcome depends on the method, for
example whether it needs a graph on 4 samples), but never a crash of another
type, a RuntimeWarning, or NaN scores. The table of cases and the promised
behaviour is in ``docs/guide/reliability.md``.

Cases that depend on a parameter (``n_neighbors``, ``n_clusters``) are
generated only for the selectors that have it. Expected failures live in
``_common.EXPECTED_FAILURES`` with a written reason.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from functools import cache
from numbers import Integral

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions

import ufsel
from ufsel._registry import SELECTORS
from ufsel.base import BaseSelector, NumericalError
from ufsel.exceptions import MemoryLimitError
from ufsel.utils import estimate_fit_memory

from ._common import (
    EXPECTED_FAILURES,
    NAMES,
    checksum,
    fit_checked,
    has_param,
    make,
    params_of,
    strict_warnings,
    tiny_data,
)

N, D = 30, 6


@cache
def reference_scores(name):
    """scores_ of a plain fit on the float64 C-ordered tiny data (cached per selector)."""
    return fit_checked(make(name), tiny_data()).scores_.copy()


def assert_scores_close(est, ref, rtol=1e-6):
    scale = max(1.0, float(np.max(np.abs(ref))))
    np.testing.assert_allclose(est.scores_, ref, rtol=rtol, atol=rtol * 1e-3 * scale)


# ---------------------------------------------------------------- cases
@dataclass
class Case:
    """One hostile input: ``build(name) -> (X, constructor overrides)``."""

    build: object
    expect: str  # "works", "raises" or "either"
    match: str = ""  # regex the ValueError message must match ("raises")
    check: object = None  # extra check(est, name) after a successful fit
    needs: tuple = field(default_factory=tuple)  # parameters the selector must have


def _X(**kw):
    return lambda name: (tiny_data(**kw), {})


def _with(fn, **overrides):
    return lambda name: (fn(tiny_data()), dict(overrides))


def _nfs(value):
    return lambda name: (tiny_data(), {"n_features_to_select": value})


def _count(expected):
    def check(est, name):
        assert est.n_features_to_select_ == expected
    return check


def _same_as(transform_ref=None, rtol=1e-6):
    """The scores equal those of the reference fit (or of a fit on transform_ref(X))."""
    def check(est, name):
        if transform_ref is None:
            ref = reference_scores(name)
        else:
            ref = fit_checked(make(name), transform_ref(tiny_data())).scores_
        assert_scores_close(est, ref, rtol=rtol)
    return check


def _set(X, i, j, v):
    X = X.copy()
    X[i, j] = v
    return X


def _const_cols(X):
    X = X.copy()
    X[:, 2] = 3.5
    X[:, 4] = 0.0
    return X


def _disconnected(X):
    X = X.copy()
    X[N // 2:] += 1e6  # two far groups: the k-NN graph has >= 2 components
    return X


def _pd():
    return pytest.importorskip("pandas")


def _df(X, extra=None):
    df = _pd().DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    if extra is not None:
        df["extra"] = extra
    return df


def _readonly(X):
    X = np.array(X)
    X.flags.writeable = False
    return X


def _frame_check(est, name):
    assert list(est.feature_names_in_) == [f"f{j}" for j in range(D)]
    names = est.get_feature_names_out()
    assert list(names) == [f"f{j}" for j in np.flatnonzero(est.get_support())]
    assert_scores_close(est, reference_scores(name), rtol=1e-12)


def _neighbors_too_many(name):
    k = make(name).get_params()["n_neighbors"]
    return tiny_data(n_samples=k), {}


def _neighbors_minimum(name):
    k = make(name).get_params()["n_neighbors"]
    return tiny_data(n_samples=k + 1), {}


CASES = {
    # --- non-finite and malformed input
    "nan": Case(_with(lambda X: _set(X, 3, 1, np.nan)), "raises", r"NaN.*Impute"),
    "inf": Case(_with(lambda X: _set(X, 0, 0, np.inf)), "raises", r"infinity"),
    "neg_inf": Case(_with(lambda X: _set(X, 5, 2, -np.inf)), "raises", r"infinity"),
    "sparse_nan": Case(_with(lambda X: sparse.csr_matrix(_set(X, 2, 2, np.nan))), "raises",
                       r"NaN"),
    "empty_samples": Case(_with(lambda X: X[:0]), "raises", r"0 sample"),
    "empty_features": Case(_with(lambda X: X[:, :0]), "raises", r"0 feature"),
    "one_sample": Case(_with(lambda X: X[:1]), "raises", r"1 sample"),
    "1d_input": Case(_with(lambda X: X[:, 0]), "raises", r"2D array"),
    "3d_input": Case(_with(lambda X: X[:, :, None]), "raises", r"2D array.*got a 3D array"),
    "complex": Case(_with(lambda X: X + 1j), "raises", r"[Cc]omplex"),
    "strings": Case(_with(lambda X: X.astype(str).astype(object)), "either"),
    "words": Case(_with(lambda X: np.where(X > 0, "a", "b").astype(object)), "raises",
                  r"numeric"),
    # --- degenerate but valid data
    "one_feature": Case(_with(lambda X: X[:, :1]), "either", check=_count(1)),
    "two_features": Case(_with(lambda X: X[:, :2]), "either", check=_count(1)),
    "constant_features": Case(_with(_const_cols), "works"),
    "all_constant": Case(_with(lambda X: np.full_like(X, 2.0)), "either"),
    "all_zero": Case(_with(lambda X: np.zeros_like(X)), "either"),
    "duplicate_rows": Case(_with(lambda X: np.repeat(X[:6], 5, axis=0)), "works"),
    "duplicate_columns": Case(_with(lambda X: np.hstack([X[:, :3], X[:, :3]])), "works"),
    "disconnected_graph": Case(_with(_disconnected), "works"),
    "far_outlier": Case(_with(lambda X: _set(X, 0, slice(None), 1e6)), "works"),
    # within the magnitude limits; a method whose own products overflow may
    # answer with NumericalError (a ValueError naming the fix: standardise)
    "near_1e150": Case(_with(lambda X: X * 1e150), "either"),
    "near_1e-150": Case(_with(lambda X: X * 1e-150), "either"),
    "beyond_1e200": Case(_with(lambda X: X * 1e200), "raises", r"magnitude.*Rescale"),
    "below_1e-200": Case(_with(lambda X: X * 1e-200), "raises", r"underflow.*Rescale"),
    "mixed_scales": Case(_with(lambda X: X * np.logspace(-6, 6, D)), "works"),
    "wide_d_gt_n": Case(_X(n_samples=12, n_features=40), "works"),
    # --- graph size
    "n_samples_lt_n_neighbors_plus_1": Case(_neighbors_too_many, "raises", r"n_neighbors",
                                            needs=("n_neighbors",)),
    "n_samples_eq_n_neighbors_plus_1": Case(_neighbors_minimum, "either",
                                            needs=("n_neighbors",)),
    "n_clusters_gt_n_samples": Case(lambda name: (tiny_data(), {"n_clusters": N + 1}),
                                    "raises", r"n_clusters", needs=("n_clusters",)),
    # --- n_features_to_select
    "nfs_0": Case(_nfs(0), "raises", r"n_features_to_select"),
    "nfs_negative": Case(_nfs(-2), "raises", r"n_features_to_select"),
    "nfs_gt_d": Case(_nfs(D + 1), "raises", r"n_features_to_select"),
    "nfs_eq_d": Case(_nfs(D), "works", check=_count(D)),
    "nfs_1": Case(_nfs(1), "works", check=_count(1)),
    "nfs_float_0": Case(_nfs(0.0), "raises", r"n_features_to_select"),
    "nfs_float_1": Case(_nfs(1.0), "works", check=_count(D)),
    "nfs_float_half": Case(_nfs(0.5), "works", check=_count(D // 2)),
    "nfs_float_1e-9": Case(_nfs(1e-9), "works", check=_count(1)),
    "nfs_float_gt_1": Case(_nfs(1.5), "raises", r"n_features_to_select"),
    "nfs_float_nan": Case(_nfs(float("nan")), "raises", r"n_features_to_select"),
    "nfs_none": Case(_nfs(None), "works", check=_count(D // 2)),
    "nfs_true": Case(_nfs(True), "raises", r"n_features_to_select"),
    "nfs_false": Case(_nfs(False), "raises", r"n_features_to_select"),
    "nfs_np_int64": Case(_nfs(np.int64(2)), "works", check=_count(2)),
    "nfs_np_int32": Case(_nfs(np.int32(3)), "works", check=_count(3)),
    "nfs_np_float64": Case(_nfs(np.float64(0.5)), "works", check=_count(D // 2)),
    "nfs_np_bool": Case(_nfs(np.bool_(True)), "raises", r"n_features_to_select"),
    "nfs_string": Case(_nfs("3"), "raises", r"n_features_to_select"),
    # --- dtypes, memory layout, containers
    "int64": Case(_with(lambda X: np.round(X * 10).astype(np.int64)), "works",
                  check=_same_as(lambda X: np.round(X * 10), rtol=1e-12)),
    "int8": Case(_with(lambda X: np.round(X * 10).astype(np.int8)), "works",
                 check=_same_as(lambda X: np.round(X * 10), rtol=1e-12)),
    "bool": Case(_with(lambda X: X > 0.5), "works",
                 check=_same_as(lambda X: (X > 0.5).astype(float), rtol=1e-12)),
    "float32": Case(_with(lambda X: X.astype(np.float32)), "works",
                    check=_same_as(lambda X: X.astype(np.float32).astype(np.float64),
                                   rtol=1e-4)),
    "float16": Case(_with(lambda X: X.astype(np.float16)), "works"),
    "fortran_order": Case(_with(np.asfortranarray), "works", check=_same_as()),
    "non_contiguous": Case(lambda name: (np.repeat(tiny_data(), 2, axis=1)[:, ::2], {}),
                           "works", check=_same_as()),
    "read_only": Case(_with(_readonly), "works", check=_same_as(rtol=1e-12)),
    "read_only_fortran": Case(_with(lambda X: _readonly(np.asfortranarray(X))), "works",
                              check=_same_as()),
    "list_of_lists": Case(_with(lambda X: X.tolist()), "works", check=_same_as(rtol=1e-12)),
    "csr": Case(_with(sparse.csr_matrix), "works", check=_same_as()),
    "csc": Case(_with(sparse.csc_matrix), "works", check=_same_as()),
    "coo": Case(_with(sparse.coo_matrix), "works", check=_same_as()),
    "csr_array": Case(_with(sparse.csr_array), "works", check=_same_as()),
    "csr_int_values": Case(_with(lambda X: sparse.csr_matrix(np.round(X * 10).astype(int))),
                           "works"),
    "sparse_mostly_zero": Case(_with(lambda X: sparse.csr_matrix(np.where(X > 1.0, X, 0.0))),
                               "works"),
    "dataframe": Case(_with(_df), "works", check=_frame_check),
    "dataframe_text_column": Case(_with(lambda X: _df(X, ["a", "b", "c"] * (N // 3))),
                                  "raises", r"numeric"),
    "dataframe_category_column": Case(
        _with(lambda X: _df(X, _pd().Categorical(["u", "v"] * (N // 2)))),
        "raises", r"numeric"),
    "dataframe_datetime_column": Case(
        _with(lambda X: _df(X, _pd().date_range(_pd().Timestamp(2020, 1, 1), periods=N))),
        "raises", r"numeric"),
    "dataframe_nullable_na": Case(
        _with(lambda X: _df(X, _pd().array([1] * (N - 1) + [None], dtype="Int64"))),
        "raises", r"NaN"),
}


def _applies(name, case):
    return all(has_param(name, p) for p in case.needs)


PAIRS = [(n, c) for n in NAMES for c, case in CASES.items() if _applies(n, CASES[c])]


def _param(name, case_name):
    marks = ()
    if (name, case_name) in EXPECTED_FAILURES:
        marks = pytest.mark.xfail(reason=EXPECTED_FAILURES[(name, case_name)], strict=True)
    return pytest.param(name, case_name, id=f"{name}-{case_name}", marks=marks)


def _assert_clear_error(exc, name, match=""):
    msg = str(exc)
    cls = SELECTORS[name].__name__
    assert isinstance(exc, ValueError), f"{type(exc).__name__} is not a ValueError: {msg}"
    assert cls in msg, f"the error does not name the selector {cls}: {msg!r}"
    if match:
        assert re.search(match, msg, re.S), f"{msg!r} does not match {match!r}"


@pytest.mark.parametrize(("name", "case_name"), [_param(n, c) for n, c in PAIRS])
def test_hostile_input(name, case_name):
    case = CASES[case_name]
    X, overrides = case.build(name)
    est = make(name, **overrides)
    before = checksum(X)
    if case.expect == "raises":
        with strict_warnings(), pytest.raises(ValueError) as info:
            est.fit(X)
        _assert_clear_error(info.value, name, case.match)
        assert checksum(X) == before
        return
    try:
        fit_checked(est, X)
    except ValueError as exc:
        if case.expect == "works":
            raise
        _assert_clear_error(exc, name)
        assert checksum(X) == before
        return
    if case.check is not None:
        case.check(est, name)


#: Inputs beyond the memory limit: (builder, what makes them large). The limit is set to
#: half the selector's own estimate, so each is refused by the check before the work.
OVERSIZED = {
    "oversized_wide_sparse": lambda: sparse.random(60, 3000, density=0.01, format="csr",
                                                   random_state=0),
    "oversized_tall_dense": lambda: np.random.RandomState(0).rand(3000, 6),
    "oversized_gram": lambda: np.random.RandomState(0).rand(50, 1500),
}


@pytest.mark.parametrize("case_name", sorted(OVERSIZED))
@pytest.mark.parametrize("name", NAMES)
def test_hostile_oversized_input(name, case_name, monkeypatch):
    """Data over ``max_fit_bytes`` is refused in one line naming the setting, before
    ``_fit`` and without touching X."""
    X = OVERSIZED[case_name]()
    est = make(name)
    before = checksum(X)
    validated = X if sparse.issparse(X) else np.asfortranarray(X)  # (the copy is made)
    limit = estimate_fit_memory(est, validated).total // 2

    def no_work(self, X):  # pragma: no cover - reached only when the check is missing
        raise AssertionError("the fit started before the memory check")

    monkeypatch.setattr(SELECTORS[name], "_fit", no_work)
    with ufsel.config_context(max_fit_bytes=limit), pytest.raises(MemoryLimitError) as info:
        est.fit(X)
    _assert_clear_error(info.value, name, r"ufsel\.set_config\(max_fit_bytes=\.\.\.\)")
    assert "\n" not in str(info.value)
    assert checksum(X) == before


# ------------------------------------------------- beyond a single fit
@pytest.mark.parametrize("name", NAMES)
def test_transform_and_refit(name):
    """transform keeps the selected columns; wrong widths, NaN and refits are handled."""
    X = tiny_data()
    est = fit_checked(make(name, n_features_to_select=2), X)
    Xt = est.transform(X)
    assert Xt.shape == (N, 2)
    np.testing.assert_array_equal(Xt, X[:, est.get_support()])
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :-1])
    with pytest.raises(ValueError, match="NaN"):
        est.transform(np.where(X > 2, np.nan, X))
    # a refit on data of another width forgets the first fit
    fit_checked(est, tiny_data(seed=1, n_features=4))
    assert est.n_features_in_ == 4 and est.scores_.shape == (4,)


@pytest.mark.parametrize("name", NAMES)
def test_fit_rankings_match_fit(name):
    """fit_rankings(X, ks)[k] selects what fit(n_features_to_select=k) selects."""
    X = tiny_data()
    est = make(name)
    with strict_warnings():
        rankings = est.fit_rankings(X, [1, 3, D])
    assert set(rankings) == {1, 3, D}
    for k, ranking in rankings.items():
        assert sorted(ranking.tolist()) == list(range(1, D + 1))
        one = fit_checked(make(name, n_features_to_select=k), X)
        assert set(np.argsort(ranking)[:k]) == set(np.flatnonzero(one.get_support()))
    for bad in ([], [0], [2.5], [True], [-1], ["3"]):
        with pytest.raises(ValueError, match="n_features_list"):
            est.fit_rankings(X, bad)
    with pytest.raises(ValueError, match="n_features_to_select"):
        est.fit_rankings(X, [D + 1])


@pytest.mark.parametrize("name", NAMES)
def test_fit_rankings_validates_like_fit(name):
    """fit_rankings refuses every invalid parameter and bad data exactly where fit does."""
    X = tiny_data()
    est = make(name)
    checked = 0
    for param, constraints in type(est)._parameter_constraints.items():
        if param == "n_features_to_select" or "no_validation" in constraints:
            continue
        bad = make(name, **{param: "not-a-valid-value"})
        with pytest.raises(InvalidParameterError, match=param):
            bad.fit(X)
        with pytest.raises(InvalidParameterError, match=param):
            bad.fit_rankings(X, [1, 2])
        checked += 1
    assert checked == len(type(est)._parameter_constraints) - 1
    with pytest.raises(ValueError, match=f"{type(est).__name__}: X contains NaN"):
        est.fit_rankings(np.where(X > 2, np.nan, X), [1, 2])


def test_fit_rankings_refuses_a_negative_ridge():
    """The case of the report: MCFS(ridge=-5.0) is refused by fit_rankings as by fit."""
    X = tiny_data()
    for call in (lambda est: est.fit(X), lambda est: est.fit_rankings(X, [2, 4])):
        with pytest.raises(InvalidParameterError, match="ridge"):
            call(ufsel.MCFS(ridge=-5.0, n_neighbors=3, n_clusters=2))


# ----------------------------------------- parameters at their extremes
#: Integer parameters that size something relative to the data: their
#: extreme value 10**6 must raise a ValueError on the tiny data. Other
#: unbounded integers (restarts, epochs, ...) only cost time and are tested
#: at their lower bound.
_SIZE_PARAMS = {"n_neighbors", "n_clusters", "n_components", "n_hidden", "rank", "k"}


def _extreme_values(param, constraint):
    """Valid but extreme values of one constraint (bounds, near-bounds, huge)."""
    if isinstance(constraint, StrOptions):
        return sorted(o for o in constraint.options if o not in constraint.deprecated)
    if not isinstance(constraint, Interval):
        return []
    lo, hi = constraint.left, constraint.right
    out = []
    if constraint.type is Integral:
        if lo is not None:
            out.append(int(lo) if constraint.closed in ("left", "both") else int(lo) + 1)
        if hi is not None:
            out.append(int(hi) if constraint.closed in ("right", "both") else int(hi) - 1)
        elif param in _SIZE_PARAMS:
            out.append(10**6)
        return out
    if lo is not None:
        out.append(float(lo) if constraint.closed in ("left", "both")
                   else float(lo) + max(1e-12, abs(lo) * 1e-12))
    if hi is not None:
        out.append(float(hi) if constraint.closed in ("right", "both")
                   else float(hi) - max(1e-12, abs(hi) * 1e-12))
    else:
        out.append(1e12)
    return out


#: Parameters whose extremes are not fitted: they only change the amount of
#: work (a huge max_iter on a converging problem) or are covered elsewhere.
_SKIP_EXTREME = {"n_features_to_select", "random_state", "max_iter", "n_jobs", "verbose"}


def _extreme_cases():
    out = []
    for name in NAMES:
        cls = SELECTORS[name]
        constraints = getattr(cls, "_parameter_constraints", {})
        for param, options in constraints.items():
            if param in _SKIP_EXTREME:
                continue
            for c in options:
                for v in _extreme_values(param, c):
                    key = (name, f"extreme:{param}={v!r}")
                    marks = ()
                    if key in EXPECTED_FAILURES:
                        marks = pytest.mark.xfail(reason=EXPECTED_FAILURES[key], strict=True)
                    out.append(pytest.param(name, param, v, id=f"{name}-{param}={v!r}",
                                            marks=marks))
    return out


@pytest.mark.parametrize(("name", "param", "value"), _extreme_cases())
def test_extreme_parameter(name, param, value):
    """Every valid option and every interval bound of every parameter: a finite
    result or a clear ValueError (NumericalError included), never NaN scores or a
    RuntimeWarning. Sizes (``_SIZE_PARAMS``) at 10**6 must raise."""
    X = tiny_data()
    est = make(name, **{param: value})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            fit_checked(est, X)
        except ValueError as exc:
            _assert_clear_error(exc, name)
            return
    if param in _SIZE_PARAMS and isinstance(value, Integral) and value >= 10**6:
        pytest.fail(f"{param}={value} on {N} samples x {D} features did not raise")


# -------------------------------------------------- numerical health
class _Garbage(BaseSelector):
    """Test double whose _fit misbehaves in the way named by ``mode``."""

    _parameter_constraints = {**BaseSelector._parameter_constraints, "mode": [str]}

    def __init__(self, n_features_to_select=None, *, mode="nan"):
        super().__init__(n_features_to_select=n_features_to_select)
        self.mode = mode

    def _fit(self, X):
        d = X.shape[1]
        if self.mode == "nan":
            return np.full(d, np.nan)
        if self.mode == "inf":
            return np.r_[np.inf, np.zeros(d - 1)]
        if self.mode == "overflow":
            return np.exp(np.full(d, 1000.0))
        if self.mode == "invalid":
            return np.zeros(d) * np.inf
        if self.mode == "singular":
            return np.linalg.solve(np.zeros((d, d)), np.ones(d))
        if self.mode == "tiebreak_nan":
            return np.zeros(d), np.full(d, np.nan)
        return np.zeros(d)


@pytest.mark.parametrize("mode", ["nan", "inf", "overflow", "invalid", "singular"])
def test_base_refuses_non_finite_scores(mode):
    with strict_warnings(), pytest.raises(NumericalError, match="_Garbage"):
        _Garbage(mode=mode).fit(tiny_data())
    assert issubclass(NumericalError, ValueError)


@pytest.mark.parametrize("name", [n for n in NAMES if has_param(n, "max_iter")])
def test_iterative_health(name):
    """Iterative methods: objective_ and n_iter_ recorded, finite, ConvergenceWarning
    at max_iter, and a fit stopped after 2 iterations still returns finite scores."""
    X = tiny_data()
    extra = {"tol": 0.0} if has_param(name, "tol") else {}
    est = make(name, max_iter=2, **extra)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        fit_checked(est, X)
    assert 0 <= est.n_iter_ <= 2
    obj = np.asarray(est.objective_, dtype=float)
    if extra and est.n_iter_ == 2 and obj.size >= 2 and obj[-1] != obj[-2]:
        # tol=0 cannot be met by a changing objective: stopped at max_iter
        assert any(issubclass(w.category, ConvergenceWarning) for w in caught), (
            f"no ConvergenceWarning after max_iter=2 with tol=0 (objective_ {obj})")
    full = fit_checked(make(name), X)
    assert hasattr(full, "objective_") and len(full.objective_) >= 1
    assert np.all(np.isfinite(full.objective_))
    assert 1 <= full.n_iter_ <= full.get_params()["max_iter"]


# ------------------------------------------------------- determinism
@pytest.mark.parametrize("name", NAMES)
def test_clone_refit_identical(name):
    """Two fits with the same random_state, on C and on a copy, are bitwise identical."""
    X = tiny_data()
    a = fit_checked(make(name), X)
    b = fit_checked(clone(a), X.copy())
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    a.fit(X)  # refitting the same instance
    np.testing.assert_array_equal(a.scores_, b.scores_)


def test_suite_covers_every_registered_selector():
    assert set(NAMES) == set(SELECTORS)
    assert {n for n, _ in PAIRS} == set(NAMES)
    for name in NAMES:
        assert params_of(name).items() <= make(name).get_params().items()
    extreme_ids = {p.id for p in _extreme_cases()}
    for name, case in EXPECTED_FAILURES:
        known = (case in CASES if not case.startswith("extreme:")
                 else f"{name}-{case[len('extreme:'):]}" in extreme_ids)
        assert name in SELECTORS and known, f"stale expected failure {(name, case)}"
