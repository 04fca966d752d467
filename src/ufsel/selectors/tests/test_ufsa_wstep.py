"""UFSA's W-step: the rule that chooses its solver, once per fit."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from ufsel import UFSA
from ufsel.datasets import make_planted_clusters
from ufsel.selectors.adaptive_graph import _ufsa_wstep
from ufsel.selectors.adaptive_graph._ufsa_wstep import (
    resolve_solver,
    use_cholesky,
    use_pushthrough,
)


def test_pushthrough_rule():
    # JAFFE, UMIST and ORL shapes with c = the number of classes (see its docstring)
    assert use_pushthrough(213, 1024, 10)
    assert not use_pushthrough(575, 644, 20)
    assert not use_pushthrough(400, 1024, 40)
    assert not use_pushthrough(1440, 1024, 20)  # n > d
    assert not use_pushthrough(5000, 60000, 5)  # n above the limit


def test_cholesky_rule():
    assert use_cholesky(500, 2) and use_cholesky(1024, 2)
    assert not use_cholesky(644, 20) and not use_cholesky(256, 4)


@pytest.mark.parametrize("shape, expected", [
    ((2600, 500, 2, 1.0), "cholesky"),      # madelon, n_classes
    ((1166, 1024, 2, 1.0), "cholesky"),     # pie, label_free
    ((575, 644, 20, 1.0), "dense"),         # umist, n_classes
    ((2000, 256, 4, 1.0), "dense"),         # palm, label_free
    ((213, 1024, 10, 1.0), "pushthrough"),  # jaffe
    ((400, 1024, 40, 1.0), "dense"),        # orl, n_classes: many clusters
    ((60, 9712, 9, 1.0), "operator"),       # nci9: d > max(n, 2048)
    ((1943, 3289, 2, 1.0), "operator"),     # pcmac
    ((10000, 784, 10, 1.0), "dense"),       # mnist10k, n_classes
])
def test_auto_solver_by_shape(shape, expected):
    assert resolve_solver("auto", *shape) == expected


def test_explicit_solvers_fall_back_where_their_inverse_does_not_exist():
    assert resolve_solver("cholesky", 2600, 500, 2, 0.0) == "dense"  # gamma = 0
    assert resolve_solver("pushthrough", 213, 1024, 10, 0.0) == "dense"
    assert resolve_solver("pushthrough", 500, 100, 3, 1.0) == "dense"  # d <= n
    assert resolve_solver("operator", 500, 100, 3, 0.0) == "operator"
    assert resolve_solver("dense", 60, 9712, 9, 1.0) == "dense"


@pytest.mark.parametrize("solver", ["auto", "dense", "cholesky", "pushthrough", "operator"])
def test_solver_is_chosen_once_per_fit(monkeypatch, solver):
    # The rule runs once per fit and its answer is the fit's solver_; the W-steps never
    # re-choose (the eigenbasis steps of "cholesky" and "pushthrough" are part of
    # those solvers' schedule).
    calls = []
    resolve = _ufsa_wstep.resolve_solver

    def counting(*args):
        calls.append(resolve(*args))
        return calls[-1]

    import ufsel.selectors.adaptive_graph._ufsa as ufsa_module

    monkeypatch.setattr(ufsa_module, "resolve_solver", counting)
    X, _, _ = make_planted_clusters(40, n_informative=5, n_noise=115, n_clusters=3,
                                    random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sel = UFSA(10, n_clusters=3, n_neighbors=5, max_iter=6, tol=0.0, solver=solver,
                   random_state=0).fit(X)
    assert sel.n_iter_ == 6
    assert calls == [sel.solver_]
    assert sel.solver_ == (resolve_solver("auto", 40, 160, 3, 1.0) if solver == "auto"
                           else solver)


def test_dead_code_is_gone():
    import ufsel.selectors.adaptive_graph._ufsa as ufsa_module

    assert not hasattr(ufsa_module, "_orthonormality_error")


def test_w_step_warning_goes_through_the_shared_path():
    X, _, _ = make_planted_clusters(60, n_informative=4, n_noise=16, n_clusters=3,
                                    random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"UFSA: \d+ of 3 W-steps stopped at "
                                                r"w_max_iter=1 .*w_step_converged_"):
        UFSA(5, n_clusters=3, n_neighbors=5, max_iter=3, tol=0.0, w_max_iter=1,
             random_state=0).fit(X)


def test_dense_input_with_few_non_zeros_is_fitted_as_sparse():
    from scipy import sparse

    from ufsel.selectors.adaptive_graph._ufsa import _fit_as_sparse

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 200)) * (rng.random((60, 200)) < 0.03)
    X[:, :2] += rng.standard_normal((60, 2))  # two dense columns: 4 % in all
    assert _fit_as_sparse(X)
    assert not _fit_as_sparse(np.where(rng.random((60, 200)) < 0.06, 1.0, 0.0))
    kw = dict(n_clusters=3, n_neighbors=5, max_iter=8, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = UFSA(10, **kw).fit(X)
        b = UFSA(10, **kw).fit(sparse.csr_matrix(X))
    # the same fit, bit for bit
    np.testing.assert_array_equal(a.objective_, b.objective_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
