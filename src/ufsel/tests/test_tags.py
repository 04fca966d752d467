"""The selector tags (``ufsel.utils.get_selector_tags``) agree with what each selector does."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils import get_tags

from ufsel import SPEC
from ufsel._registry import SELECTORS
from ufsel.selectors import FAMILIES
from ufsel.utils import SelectorTags, get_selector_tags

from ._common import NAMES, params_of


def test_every_registered_selector_is_in_a_family():
    assert sorted(n for family in FAMILIES.values() for n in family) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_selector_exposes_its_tags(name):
    est = SELECTORS[name]()
    tags = get_tags(est)
    assert isinstance(tags.selector_tags, SelectorTags)
    assert get_selector_tags(est) == tags.selector_tags
    assert all(isinstance(getattr(tags.selector_tags, f), bool)
               for f in ("uses_n_clusters", "scores_depend_on_count", "supports_dask",
                         "sparse_native"))
    for private in ("_scores_depend_on_count", "_supports_dask", "_sparse_native",
                    "_uses_n_clusters"):
        assert not hasattr(est, private)


@pytest.mark.parametrize("name", NAMES)
def test_count_and_cluster_tags_agree_with_the_class(name):
    cls = SELECTORS[name]
    tags = get_selector_tags(cls())
    from ufsel.base import BaseSelector

    overrides = cls._fit_rankings is not BaseSelector._fit_rankings
    assert tags.scores_depend_on_count == overrides
    if name != "spec":
        assert tags.uses_n_clusters == ("n_clusters" in cls().get_params())


def test_spec_uses_n_clusters_follows_its_scoring():
    assert get_selector_tags(SPEC(scoring="phi3")).uses_n_clusters
    assert not get_selector_tags(SPEC(scoring="phi2")).uses_n_clusters


def test_a_plain_estimator_gets_the_defaults():
    from sklearn.preprocessing import StandardScaler

    assert get_selector_tags(StandardScaler()) == SelectorTags()


@pytest.mark.parametrize("name", NAMES)
def test_supports_dask_agrees_with_fit(name):
    da = pytest.importorskip("dask.array")
    X = np.random.RandomState(0).rand(40, 6)
    est = SELECTORS[name](**params_of(name))
    Xd = da.from_array(X, chunks=(20, 6))
    if get_selector_tags(est).supports_dask:
        est.fit(Xd)
        assert est.ranking_.shape == (6,)
    else:
        with pytest.raises(TypeError, match="does not accept dask arrays"):
            est.fit(Xd)
