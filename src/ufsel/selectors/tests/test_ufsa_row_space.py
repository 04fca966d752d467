"""UFSA with ``w_space="row_space"``: W in the row space of the centred data."""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning

from ufsel import UFSA
from ufsel.datasets import make_planted_clusters
from ufsel.selectors.adaptive_graph._ufsa import ufsa_objective
from ufsel.selectors.adaptive_graph._ufsa_wstep import row_space_basis


@pytest.fixture(scope="module")
def wide():
    X, _, _ = make_planted_clusters(40, n_informative=5, n_noise=115, n_clusters=3,
                                    random_state=1)
    return X


def _fit(X, **kw):
    params = dict(n_clusters=3, n_neighbors=5, max_iter=30, random_state=0)
    params.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return UFSA(10, **params).fit(X)


def test_row_space_basis_spans_the_centred_rows(wide):
    Q = row_space_basis(wide)
    n, d = wide.shape
    assert Q.shape == (d, n - 1)
    np.testing.assert_allclose(Q.T @ Q, np.eye(n - 1), atol=1e-12)
    Xc = wide - wide.mean(axis=0)
    np.testing.assert_allclose(Xc @ Q @ Q.T, Xc, atol=1e-10)
    # tall data of full column rank: the whole space
    rng = np.random.default_rng(0)
    T = rng.standard_normal((50, 8))
    Qt = row_space_basis(T)
    np.testing.assert_allclose(Qt @ Qt.T, np.eye(8), atol=1e-12)
    Qs = row_space_basis(sparse.csr_matrix(wide))
    Qd = row_space_basis(wide)
    np.testing.assert_allclose(Qs @ Qs.T, Qd @ Qd.T, atol=1e-10)


def test_row_space_w_lies_in_the_row_space(wide):
    sel = _fit(wide, w_space="row_space", standardize=False)
    W = sel.components_
    Q = row_space_basis(wide)
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-12)
    assert np.linalg.norm(W - Q @ (Q.T @ W)) < 1e-10
    # the paper's form puts most of W outside it (d = 4 n)
    full = _fit(wide, w_space="full", standardize=False)
    Wf = full.components_
    assert np.linalg.norm(Q.T @ Wf) ** 2 / np.linalg.norm(Wf) ** 2 < 0.5


def test_row_space_objective_is_objective_7_of_the_returned_w(wide):
    # objective_ is Eq. (7) itself at the returned W (not a reduced surrogate)
    sel = _fit(wide, w_space="row_space", standardize=False)
    value = ufsa_objective(wide, sel.components_, sel.intercept_, sel.labels_matrix_,
                           sel.similarity_, sel.lambdas_, sel.alpha, sel.gamma, sel.eps)
    np.testing.assert_allclose(value, sel.objective_[-1], rtol=1e-10)
    assert sel.solver_ in ("dense", "cholesky")


def test_row_space_is_the_full_problem_on_tall_data():
    # centred columns linearly independent: the row space is R^d, rotated, and the fit
    # is the paper's form
    X, _, _ = make_planted_clusters(150, n_informative=4, n_noise=8, n_clusters=3,
                                    random_state=0)
    a = _fit(X, w_space="full", solver="dense")
    b = _fit(X, w_space="row_space", solver="dense")
    assert a.n_iter_ == b.n_iter_
    np.testing.assert_allclose(b.objective_, a.objective_, rtol=1e-7)
    np.testing.assert_array_equal(np.argsort(-a.scores_)[:6], np.argsort(-b.scores_)[:6])


def test_row_space_sparse_equals_dense(wide):
    a = _fit(wide, w_space="row_space")
    b = _fit(sparse.csr_matrix(wide), w_space="row_space")
    np.testing.assert_allclose(b.objective_, a.objective_, rtol=1e-8)
    np.testing.assert_allclose(b.scores_, a.scores_, atol=1e-7)


def test_row_space_refusals(wide):
    with pytest.raises(ValueError, match="solver='operator' does not"):
        UFSA(5, n_clusters=3, n_neighbors=5, w_space="row_space", solver="operator").fit(wide)
    with pytest.raises(ValueError, match="n_clusters <= the rank of X"):
        UFSA(5, n_clusters=3, n_neighbors=3, w_space="row_space").fit(wide[:6, :20] * 0
                                                                        + wide[:6, :1])
    with pytest.raises(ValueError, match="w_space"):
        UFSA(5, w_space="nullspace").fit(wide)
