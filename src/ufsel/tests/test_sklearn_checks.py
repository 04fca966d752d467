"""scikit-learn's common estimator checks on every registered selector."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from ufsel._registry import SELECTORS

from ._common import NAMES, make


def _instances():
    return [make(name) for name in NAMES]


#: Checks a selector may fail, each with its reason.
EXPECTED_FAILED = {}


@parametrize_with_checks(_instances(), expected_failed_checks=lambda est: EXPECTED_FAILED.get(type(est).__name__, {}))
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_registry_not_empty():
    assert {"maxvariance", "laplacianscore", "mcfs"} <= set(SELECTORS)
    with pytest.raises(ValueError, match="valid options"):
        from ufsel import get_selector

        get_selector("nope")
