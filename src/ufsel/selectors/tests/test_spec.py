"""SPEC: the three scores against an eigendecomposition, their ranking direction, the limits."""

import numpy as np
import pytest
from scipy import linalg

from ufsel import SPEC
from ufsel.graph import knn_affinity
from ufsel.selectors.filters._spec import spec_scores

from ._helpers import hits as _hits


def test_spec_values_match_eigendecomposition():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 6)
    X[:, 5] = 2.0  # constant feature: degenerate for phi2
    S = knn_affinity(X, 5, weight="heat")
    deg = np.asarray(S.sum(1)).ravel()
    Dh = np.sqrt(deg)
    Lhat = np.eye(40) - S.toarray() / np.outer(Dh, Dh)
    lam, V = linalg.eigh(Lhat)
    Fh = Dh[:, None] * X
    Fh /= np.linalg.norm(Fh, axis=0)
    alpha = V.T @ Fh
    for r in (1, 2, 0.5):
        phi1 = ((np.clip(lam, 0, 2) ** r)[:, None] * alpha**2).sum(0)
        np.testing.assert_allclose(spec_scores(X, S, scoring="phi1", power=r)[:5], phi1[:5],
                                   rtol=1e-7, atol=1e-12)
        phi2 = spec_scores(X, S, scoring="phi2", power=r)
        np.testing.assert_allclose(phi2[:5], phi1[:5] / (1 - alpha[0, :5] ** 2), rtol=1e-6)
        assert np.isinf(phi2[5])
    k = 4
    phi3 = ((2.0 - lam[1:k])[:, None] * alpha[1:k] ** 2).sum(0)
    np.testing.assert_allclose(spec_scores(X, S, scoring="phi3", n_clusters=k)[:5], phi3[:5],
                               rtol=1e-6)


@pytest.mark.parametrize("scoring", ["phi1", "phi2", "phi3"])
def test_spec_ranking_direction_per_scoring(planted, scoring):
    """phi1/phi2: smaller is better, phi3: larger is better. scikit-feature ranks phi1/phi2
    (styles -1, 0) descending and phi3 (style k) ascending, which selects noise."""
    X, _, informative = planted[0]
    est = SPEC(5, scoring=scoring, n_clusters=4).fit(X)
    assert _hits(est, informative) == 5
    v = est.spec_values_
    port = np.argsort(v)[::-1][:5] if scoring != "phi3" else np.argsort(v)[:5]
    assert len(set(port) & set(informative)) == 0
    assert np.all(est.ranking_[np.argsort(v if scoring != "phi3" else -v)] == np.arange(1, 41))


def test_spec_full_rbf_and_limits(planted):
    X, _, informative = planted[0]
    est = SPEC(5, n_neighbors=None).fit(X)
    assert _hits(est, informative) == 5
    Xc = X.copy()
    Xc[:, 0] = 1.0
    est = SPEC(5).fit(Xc)
    assert est.ranking_[0] == 40  # the constant feature is ranked last
