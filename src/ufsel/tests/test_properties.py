"""Hypothesis properties of every registered selector and of the shared blocks.

For each selector (from the registry, with its test parameters and
``random_state=0``):

- permuting the features permutes ``scores_`` (up to a relative tolerance
  of 1e-6; methods in ``PERMUTATION_UP_TO_TIES`` only up to ties, see there);
- ``ranking_`` is a permutation of 1..d consistent with ``scores_`` and
  ``get_support()`` keeps exactly ``n_features_to_select_`` features (checked
  after every fit by ``_common.check_fitted``);
- the same ``random_state`` gives bitwise identical results;
- the caller's array is never modified: fits run on read-only arrays and the
  input's checksum is compared before and after.

The data are small seeded Gaussian blobs (``_common.tiny_data``) whose seed,
shape, column scales, layout and optional constant column hypothesis draws:
arbitrary float arrays would mostly test exact ties in k-NN distances, which
no method resolves in a permutation-invariant way. Examples per selector are
few (``_EXAMPLES``) and the search is derandomised, so CI is reproducible and
fast; ``benchmarks/tools/fuzz_loader.py`` is the place for long runs.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from scipy import sparse

from ufsel.base import BaseSelector, ranking_from_scores
from ufsel.linalg import lars_at_cardinalities

from ._common import (
    NAMES,
    PERMUTATION_UP_TO_TIES,
    check_fitted,
    fit_checked,
    has_param,
    make,
    tiny_data,
)

#: Examples per selector and property; raise it for a longer local search,
#: e.g. ``UFSEL_HYPOTHESIS_EXAMPLES=200 pytest src/ufsel/tests/test_properties.py``.
_EXAMPLES = int(os.environ.get("UFSEL_HYPOTHESIS_EXAMPLES", "6"))
# No shrinking phase: a failing example is reported as found, so that a
# failure costs no more time than a pass (shrinking a slow fit took minutes).
_SETTINGS = settings(max_examples=_EXAMPLES, deadline=None, derandomize=True,
                     phases=[Phase.explicit, Phase.reuse, Phase.generate],
                     suppress_health_check=[HealthCheck.too_slow,
                                            HealthCheck.differing_executors])


@st.composite
def datasets(draw):
    """(X, layout) with X dense float64 (n in [16, 30], d in [2, 8])."""
    n = draw(st.integers(16, 30))
    d = draw(st.integers(2, 8))
    X = tiny_data(seed=draw(st.integers(0, 2**31 - 1)), n_samples=n, n_features=d)
    exps = draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
    X = X * 10.0 ** np.asarray(exps, dtype=float)
    if d > 2 and draw(st.booleans()):
        X[:, draw(st.integers(0, d - 1))] = draw(st.sampled_from([0.0, 1.0, -7.5]))
    layout = draw(st.sampled_from(["C", "F", "readonly", "csr"]))
    return X, layout


def _layout(X, layout):
    if layout == "F":
        return np.asfortranarray(X)
    if layout == "csr":
        return sparse.csr_matrix(X)
    Y = np.array(X)
    if layout == "readonly":
        Y.flags.writeable = False
    return Y


@pytest.mark.parametrize("name", NAMES)
@_SETTINGS
@given(data=datasets(), perm_seed=st.integers(0, 2**16), k_frac=st.floats(0.0, 1.0))
def test_feature_permutation_permutes_scores(name, data, perm_seed, k_frac):
    X, layout = data
    d = X.shape[1]
    k = 1 + int(k_frac * (d - 1))
    perm = np.random.RandomState(perm_seed).permutation(d)
    Xa = _layout(X, layout)
    a = fit_checked(make(name, n_features_to_select=k), Xa)  # invariants + checksum
    b = fit_checked(make(name, n_features_to_select=k), _layout(X[:, perm], layout))
    assert a.get_support().sum() == k and a.transform(Xa).shape == (X.shape[0], k)
    if layout != "csr":
        np.testing.assert_array_equal(np.asarray(Xa), X)
    scale = max(1.0, float(np.max(np.abs(a.scores_))))
    if name in PERMUTATION_UP_TO_TIES:
        np.testing.assert_allclose(np.sort(b.scores_), np.sort(a.scores_), rtol=1e-6,
                                   atol=1e-9 * scale)
        return
    np.testing.assert_allclose(b.scores_, a.scores_[perm], rtol=1e-6, atol=1e-9 * scale)
    # without near-ties at the cut, the same features are selected (the cut is in
    # ranking order: constant features come last whatever their scores)
    order = np.argsort(a.ranking_)
    s, const = a.scores_[order], a.constant_features_[order]
    if k < d and (const[k - 1] != const[k] or s[k - 1] - s[k] > 1e-6 * scale):
        np.testing.assert_array_equal(b.get_support(), a.get_support()[perm])


@pytest.mark.parametrize("name", NAMES)
@settings(_SETTINGS, max_examples=max(1, _EXAMPLES // 2))
@given(data=datasets(), seed=st.integers(0, 2**31 - 1))
def test_same_random_state_same_result(name, data, seed):
    X, layout = data
    rs = {"random_state": seed} if has_param(name, "random_state") else {}
    a = fit_checked(make(name, **rs), _layout(X, layout))
    b = fit_checked(make(name, **rs), _layout(X.copy(), layout))
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_array_equal(a.get_support(), b.get_support())


@pytest.mark.parametrize("name", NAMES)
def test_memory_layout_does_not_change_the_result(name):
    # The same numbers in C order, Fortran order and as a strided view (a slice of a
    # wider array, as a loader that drops a label column returns) give bitwise the
    # same scores: every dense input is brought to one layout before fitting.
    X = tiny_data(seed=3, n_samples=40, n_features=7)
    wide = np.empty((X.shape[0], X.shape[1] + 1))
    wide[:, 1:] = X
    rs = {"random_state": 0} if has_param(name, "random_state") else {}
    fits = [make(name, n_features_to_select=3, **rs).fit(Z)
            for Z in (np.ascontiguousarray(X), np.asfortranarray(X), wide[:, 1:])]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.scores_, fits[0].scores_)
        np.testing.assert_array_equal(other.ranking_, fits[0].ranking_)


# ---------------------------------------------------- shared building blocks
@settings(max_examples=200, deadline=None, derandomize=True)
@given(scores=st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0, 1e300, -1e-300]),
                       min_size=1, max_size=12),
       tie=st.booleans())
def test_ranking_from_scores_is_consistent_permutation(scores, tie):
    s = np.asarray(scores)
    tiebreak = np.arange(s.size)[::-1] if tie else None
    r = ranking_from_scores(s, tiebreak)
    assert sorted(r.tolist()) == list(range(1, s.size + 1))
    order = np.argsort(r)
    assert np.all(np.diff(s[order]) <= 0)
    for i in range(s.size - 1):  # equal scores: lower tiebreak (else index) first
        a, b = order[i], order[i + 1]
        if s[a] == s[b]:
            assert (tiebreak[a] < tiebreak[b]) if tie else (a < b)


class _Const(BaseSelector):
    def _fit(self, X):
        return np.arange(X.shape[1], dtype=float)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(d=st.integers(1, 100_000), m=st.integers(1, 100_000))
def test_fraction_resolves_to_floor(d, m):
    assume(m <= d)
    sel = _Const(n_features_to_select=m / d)
    assert sel._resolve_n_features(d) == m
    sel = _Const(n_features_to_select=min(1.0, (m + 0.5) / d))
    assert sel._resolve_n_features(d) == min(m, d)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), exp=st.integers(-140, 140),
       d=st.integers(2, 9), ridge=st.sampled_from([0.0, 1e-3]))
def test_lars_is_scale_equivariant(seed, exp, d, ridge):
    """Scaling X by c scales the LASSO coefficients by 1/c at every cardinality."""
    rng = np.random.RandomState(seed)
    n = 20
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    counts = sorted({1, max(1, d // 2), d})
    G = X.T @ X + ridge * np.eye(d)
    ref, ref_entry = lars_at_cardinalities(G, X.T @ y, n, counts)
    c = 10.0**exp
    G_c = (c * X).T @ (c * X) + ridge * c**2 * np.eye(d)
    out, entry = lars_at_cardinalities(G_c, (c * X).T @ y, n, counts)
    np.testing.assert_allclose(out * c, ref, rtol=1e-6, atol=1e-9 * np.abs(ref).max())
    np.testing.assert_array_equal(entry, ref_entry)


def test_fitted_check_helper_catches_inconsistency():
    """The invariant checker used above fails on a corrupted fit (it can fail)."""
    est = fit_checked(make(NAMES[0]), tiny_data())
    est.ranking_ = est.ranking_[::-1].copy()
    if not np.all(est.scores_ == est.scores_[0]):
        with pytest.raises(AssertionError):
            check_fitted(est, tiny_data())
