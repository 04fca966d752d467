"""Fitted attributes have one name across the selectors; an old name still reads, with a
FutureWarning, for a deprecation period."""

import warnings

import numpy as np
import pytest

from ufsel import RNE, SPCAFS, UFSA
from ufsel.datasets import make_planted_clusters
from ufsel.selectors import FAMILIES

#: (selector, old name): the projection matrix W (n_features x columns) is ``W_`` everywhere
RENAMED = [(UFSA, "components_"), (SPCAFS, "components_"), (RNE, "H_")]


@pytest.fixture(scope="module")
def X():
    return make_planted_clusters(60, 4, 8, 3, random_state=0)[0]


@pytest.mark.parametrize("cls, old", RENAMED, ids=[f"{c.__name__}.{o}" for c, o in RENAMED])
def test_old_name_reads_the_new_one_with_a_future_warning(cls, old, X):
    est = cls(n_features_to_select=3, max_iter=3)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    assert not hasattr(est, old) and not hasattr(est, "W_")  # unfitted: neither name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # three iterations: not converged
        est.fit(X)
    assert "W_" in vars(est) and old not in vars(est)
    assert est.W_.shape[0] == X.shape[1]
    with pytest.warns(FutureWarning, match=rf"{cls.__name__}\.{old} is deprecated.*renamed W_"):
        value = getattr(est, old)
    assert value is est.W_


def test_setting_the_old_name_sets_the_new_one():
    est = UFSA()
    est.components_ = np.eye(2)
    assert "components_" not in vars(est)
    np.testing.assert_array_equal(est.W_, np.eye(2))


def test_no_registered_selector_documents_components_or_h():
    for family in FAMILIES.values():
        for cls in family.values():
            doc = cls.__doc__
            assert "\n    components_ :" not in doc and "\n    H_ :" not in doc, cls.__name__
