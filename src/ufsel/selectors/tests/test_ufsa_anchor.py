"""UFSA's anchor form: the bipartite graph's terms, its S-step, descent, planted features,
and the paper's form unchanged below the anchor threshold."""

import numpy as np
import pytest
from scipy import sparse

from ufsel import UFSA
from ufsel.datasets import make_planted
from ufsel.linalg import project_simplex
from ufsel.selectors.adaptive_graph._ufsa_anchor import (
    anchor_s_step,
    graph_matrix,
    ufsa_anchor_objective,
)


@pytest.fixture(scope="module")
def planted():
    return make_planted(3000, 20, 5, n_clusters=4, dtype=np.float64, random_state=0)


@pytest.fixture(scope="module")
def fitted(planted):
    return UFSA(5, n_clusters=4, graph="anchor", n_anchors=200, lambda_update="fixed",
                max_iter=40, random_state=0).fit(planted[0])


def _prepared(sel, X):
    return X / sel.feature_scale_


def test_graph_matrix_is_the_double_sum():
    rng = np.random.default_rng(0)
    X, U = rng.standard_normal((50, 6)), rng.standard_normal((9, 6))
    S = sparse.csr_matrix(project_simplex(rng.standard_normal((50, 9))))
    W = np.linalg.qr(rng.standard_normal((6, 3)))[0]
    M = graph_matrix(X.T @ X, U, S, np.asarray(S.T @ X))
    D = ((X @ W)[:, None, :] - (U @ W)[None, :, :]) ** 2
    assert np.trace(W.T @ M @ W) == pytest.approx(float(np.sum(S.toarray() * D.sum(axis=2))))


@pytest.mark.parametrize("dim", [3, 12])  # the k-d tree and the screened blocks
def test_s_step_is_the_exact_minimiser_over_all_anchors(dim):
    rng = np.random.default_rng(1)
    Z, V = rng.standard_normal((300, dim)), rng.standard_normal((40, dim))
    k = 5
    Q = ((Z[:, None, :] - V[None, :, :]) ** 2).sum(axis=2)
    S, lambdas = anchor_s_step(Z, V, k)  # CAN: exactly k anchors, the k nearest
    assert np.all(np.diff(S.indptr) == k)
    order = np.sort(Q, axis=1)
    np.testing.assert_allclose(lambdas, (k * order[:, k] - order[:, :k].sum(axis=1)) / 2)
    for lam in (lambdas, 5 * lambdas):  # given lambdas: the projection over all m anchors
        S2, _ = anchor_s_step(Z, V, k, lam)
        np.testing.assert_allclose(S2.toarray(), project_simplex(-Q / (2 * lam[:, None])),
                                   atol=1e-12)


def test_objective_decreases_and_matches_the_final_state(planted, fitted):
    X = planted[0]
    obj = fitted.objective_
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))
    Xs = _prepared(fitted, X)
    value = ufsa_anchor_objective(Xs, fitted.W_, fitted.intercept_, fitted.labels_matrix_,
                                  fitted.anchors_, fitted.similarity_, fitted.lambdas_,
                                  fitted.alpha, fitted.gamma, fitted.eps)
    assert value == pytest.approx(obj[-1], rel=1e-10)
    np.testing.assert_allclose(fitted.W_.T @ fitted.W_, np.eye(4), atol=1e-8)
    S = fitted.similarity_
    assert S.shape == (X.shape[0], 200)
    np.testing.assert_allclose(np.asarray(S.sum(axis=1)).ravel(), 1.0)
    F = fitted.labels_matrix_
    assert F.min() >= 0 and F.max() <= 1


@pytest.mark.parametrize("lambda_update", ["adaptive", "fixed"])
def test_anchor_form_finds_the_planted_features(planted, fitted, lambda_update):
    X, _, informative = planted
    sel = fitted if lambda_update == "fixed" else UFSA(
        5, n_clusters=4, graph="anchor", n_anchors=200, random_state=0).fit(X)
    assert len(set(np.flatnonzero(sel.get_support())) & set(informative)) >= 4
    assert sel.s_step_ == "anchor"


def test_auto_is_the_paper_form_below_the_threshold(planted):
    X = planted[0][:400]
    a = UFSA(5, n_clusters=4, max_iter=5, random_state=0).fit(X)
    p = UFSA(5, n_clusters=4, max_iter=5, random_state=0, graph="paper").fit(X)
    np.testing.assert_array_equal(a.scores_, p.scores_)
    np.testing.assert_array_equal(a.objective_, p.objective_)
    assert a.s_step_ != "anchor"


def test_anchor_form_refuses_too_few_anchors(planted):
    with pytest.raises(ValueError, match="n_anchors"):
        UFSA(5, n_clusters=4, graph="anchor", n_anchors=10, random_state=0).fit(planted[0][:300])
