"""Behaviour shared by several selectors: planted informative features are found, the
iterative objectives decrease, fits are deterministic and leave the caller's data alone."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from ufsel import JELSR, MCFS, NDFS, RUFS, SPEC, UDFS, LaplacianScore, MaxVariance
from ufsel.datasets import make_planted_clusters

from ._helpers import fit_quiet as _fit_quiet
from ._helpers import hits as _hits


@pytest.mark.parametrize("make, k, min_hits", [
    (lambda: UDFS(5, n_clusters=4, gamma=0.1), 5, 4),
    (lambda: NDFS(5, n_clusters=4, random_state=0), 5, 5),
    (lambda: JELSR(5, n_clusters=4, random_state=0), 10, 4),
    (lambda: RUFS(5, n_clusters=4, random_state=0), 5, 5),
    (lambda: SPEC(5, scoring="phi1"), 5, 5),
    (lambda: SPEC(5, scoring="phi2"), 5, 5),
    (lambda: SPEC(5, scoring="phi3", n_clusters=4), 5, 5),
], ids=["udfs", "ndfs", "jelsr", "rufs", "spec1", "spec2", "spec3"])
def test_planted_informative_features_found(planted, make, k, min_hits):
    for X, _, informative in planted:
        est = _fit_quiet(make(), X)
        assert _hits(est, informative, k) >= min_hits


@pytest.mark.parametrize("make", [
    lambda: UDFS(n_clusters=4, gamma=1.0, max_iter=30, tol=0),
    lambda: NDFS(n_clusters=4, max_iter=30, tol=0, random_state=0),
    lambda: NDFS(n_clusters=4, max_iter=30, tol=0, laplacian="unnormalized", random_state=0),
    lambda: JELSR(n_clusters=4, max_iter=30, tol=0, random_state=0),
    lambda: JELSR(n_clusters=4, max_iter=30, tol=0, embedding="laplacian", random_state=0),
    lambda: RUFS(n_clusters=4, max_iter=30, tol=0, random_state=0),
    lambda: RUFS(n_clusters=4, max_iter=30, tol=0, zeta=10.0, f_reg=1e-4, g_l1=0.1,
                 random_state=0),
], ids=["udfs", "ndfs", "ndfs-unnorm", "jelsr", "jelsr-lap", "rufs", "rufs-hidden"])
def test_objective_decreases(planted, make):
    X = planted[0][0]
    est = _fit_quiet(make(), X)
    obj = est.objective_
    assert est.n_iter_ == obj.size >= 2
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))
    assert obj[-1] < obj[0]


def test_convergence_warning_and_determinism(planted):
    X = planted[0][0]
    with pytest.warns(ConvergenceWarning, match="NDFS did not converge"):
        NDFS(n_clusters=4, max_iter=2, tol=0, random_state=0).fit(X)
    for cls in (NDFS, RUFS, JELSR):
        a = _fit_quiet(cls(n_clusters=4, max_iter=5, random_state=3), X)
        b = _fit_quiet(cls(n_clusters=4, max_iter=5, random_state=3), X)
        np.testing.assert_array_equal(a.scores_, b.scores_)


def test_caller_data_untouched(planted):
    X = planted[0][0]
    X0 = X.copy()
    for est in (UDFS(n_clusters=3, max_iter=3), NDFS(n_clusters=3, max_iter=3),
                JELSR(n_clusters=3, max_iter=3), RUFS(n_clusters=3, max_iter=3), SPEC()):
        _fit_quiet(est, X)
        np.testing.assert_array_equal(X, X0)


@pytest.mark.parametrize("cls", [MaxVariance, LaplacianScore, MCFS])
def test_planted_features_found(cls):
    X, y, informative = make_planted_clusters(200, 5, 45, 4, separation=4.0, noise_scale=1.5,
                                              random_state=0)
    kw = {"n_clusters": 3} if cls is MCFS else {}  # 4 clusters: 3 non-trivial eigenvectors
    sel = cls(n_features_to_select=5, **kw).fit(X)
    assert set(np.flatnonzero(sel.get_support())) == set(informative)
