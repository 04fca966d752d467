"""The memory estimate before the work (``ufsel.utils.check_fit_memory``), for every selector."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from scipy import sparse

import ufsel
from ufsel._registry import SELECTORS
from ufsel.exceptions import MemoryLimitError
from ufsel.graph import _approximate
from ufsel.model_selection import AutoSelector
from ufsel.utils import (
    DataShape,
    FitMemoryEstimate,
    check_fit_memory,
    estimate_fit_memory,
    get_config,
)

from ._common import NAMES, make

KNOB = "ufsel.set_config(max_fit_bytes=...)"

#: The users' case: sparse 200,000 x 50,000 with 5 million non-zeros, exact neighbour search.
USERS_CASE = DataShape(200_000, 50_000, 5_000_000, 8, "sparse", False)


def _exact(name):
    """The selector at its defaults, with the exact neighbour search where it has one."""
    est = SELECTORS[name]()
    if "neighbors_algorithm" in est.get_params():
        est.set_params(neighbors_algorithm="exact")
    return est


def _no_work(monkeypatch, name):
    def refuse(self, X):  # pragma: no cover - reached only when the check is missing
        raise AssertionError("the fit started before the memory check")

    monkeypatch.setattr(SELECTORS[name], "_fit", refuse)


def _assert_one_line_refusal(exc, name):
    msg = str(exc)
    assert "\n" not in msg
    assert SELECTORS[name].__name__ in msg and KNOB in msg
    assert "would need about" in msg and "over the limit of" in msg


def test_estimate_lists_named_terms_and_their_total():
    est = estimate_fit_memory(ufsel.UFSA(), (200_000, 50_000), nnz=5_000_000)
    assert isinstance(est, FitMemoryEstimate)
    assert est.dominant == ("a 50000 x 50000 Gram", 3 * 50_000**2 * 8)
    assert est.total == sum(est.terms.values())
    assert list(est.terms.values()) == sorted(est.terms.values(), reverse=True)
    assert "UFSA on sparse 200000 x 50000" in str(est)


def test_estimate_reads_arrays_and_shapes_alike():
    X = np.asfortranarray(np.random.RandomState(0).rand(30, 5))
    from_array = estimate_fit_memory(ufsel.MaxVariance(), X)
    assert not from_array.shape.copied  # validation keeps a Fortran-ordered float64 X
    assert estimate_fit_memory(ufsel.MaxVariance(), X.shape).shape.copied
    Xs = sparse.random(30, 5, density=0.2, format="csr", random_state=0)
    assert estimate_fit_memory(ufsel.MaxVariance(), Xs).shape.nnz == Xs.nnz


def test_max_fit_bytes_setting():
    assert get_config()["max_fit_bytes"] > 0
    with ufsel.config_context(max_fit_bytes=None):
        assert get_config()["max_fit_bytes"] is None
        check_fit_memory(ufsel.UFSA(), USERS_CASE)  # no limit, no refusal
    with pytest.raises(ValueError, match="max_fit_bytes must be"):
        ufsel.set_config(max_fit_bytes=0)


def test_memory_limit_error_is_a_value_and_a_memory_error():
    assert issubclass(MemoryLimitError, ValueError) and issubclass(MemoryLimitError, MemoryError)


@pytest.mark.parametrize("name", NAMES)
def test_every_selector_refuses_before_any_work(name, monkeypatch):
    """(a) A problem over the limit is refused in one line naming the knob, before ``_fit``."""
    X = np.random.RandomState(0).rand(40, 6)
    _no_work(monkeypatch, name)
    with ufsel.config_context(max_fit_bytes=256), pytest.raises(MemoryLimitError) as info:
        make(name).fit(X)
    _assert_one_line_refusal(info.value, name)


#: The k-NN filters: at the users' case their exact search's row blocks (scikit-learn's
#: working memory, twice) are their largest cost, about 2.5 GiB in all.
KNN_FILTERS = ("evsc", "laplacianscore", "spec")


@pytest.mark.parametrize("name", NAMES)
def test_users_wide_sparse_case_is_refused_by_the_estimate(name, monkeypatch):
    """(b) The sparse 200,000 x 50,000 case (5M non-zeros), exact search, from the shape
    alone and at once: with 4 GiB every selector but MaxVariance, QAlpha and SPCAFS (operators,
    no d x d matrix), MoransI (its graph is on a PCA embedding) and the k-NN filters is refused; those are refused at 2 GiB,
    naming the search."""
    monkeypatch.setattr(_approximate, "backend_installed", lambda module: False)  # no approximate search
    t0 = time.perf_counter()
    limit = 2 * 1024**3 if name in KNN_FILTERS else 4 * 1024**3
    try:
        estimate = check_fit_memory(_exact(name), USERS_CASE, limit=limit)
    except MemoryLimitError as exc:
        _assert_one_line_refusal(exc, name)
        if name in KNN_FILTERS:
            assert "the 200000 x 200000 k-NN search blocks" in str(exc)
        assert time.perf_counter() - t0 < 2.0
        return
    # MoransI searches the neighbours of a 30-component PCA embedding, never of the
    # 50,000 columns: its graph fits
    assert name in ("maxvariance", "qalpha", "spcafs", "moransi"), estimate


@pytest.mark.slow
def test_users_wide_sparse_matrix_is_refused_in_fit():
    """(b) The same case as a real matrix: ``fit`` refuses after validation, in seconds."""
    X = sparse.random(200_000, 50_000, density=5e-4, format="csr",
                      rng=np.random.default_rng(0))
    with ufsel.config_context(max_fit_bytes=1024**3):
        for name in ("laplacianscore", "mcfs", "pivotedqr", "udfs"):
            t0 = time.perf_counter()
            with pytest.raises(MemoryLimitError):
                _exact(name).fit(X)
            assert time.perf_counter() - t0 < 2.0, name


def test_pivoted_qr_on_wide_sparse_names_its_qr_factor():
    with pytest.raises(MemoryLimitError, match=r"R factor of the QR.*at most \d+ features"):
        check_fit_memory(ufsel.PivotedQR(), USERS_CASE, limit=4 * 1024**3)


def test_knn_methods_name_the_search_and_the_anchor_graph():
    with pytest.raises(MemoryLimitError) as info:
        check_fit_memory(_exact("laplacianscore"), USERS_CASE, limit=2 * 1024**3)
    msg = str(info.value)
    assert "the 200000 x 200000 k-NN search blocks" in msg
    assert 'LaplacianScore(graph="anchor")' in msg and "dask array" in msg


def test_auto_selector_checks_before_work(monkeypatch):
    from ufsel.model_selection import _auto

    def refuse(*args, **kwargs):  # pragma: no cover - reached only without the check
        raise AssertionError("the cluster-count estimate ran before the memory check")

    monkeypatch.setattr(_auto, "estimate_n_clusters", refuse)
    X = np.random.RandomState(0).rand(40, 6)
    with ufsel.config_context(max_fit_bytes=256), pytest.raises(MemoryLimitError, match=re.escape(KNOB)):
        AutoSelector().fit(X)


def test_cli_select_refusal_is_one_line_exit_2(tmp_path, capsys):
    from ufsel.cli import main

    data = tmp_path / "x.csv"
    np.savetxt(data, np.random.RandomState(0).rand(40, 6), delimiter=",")
    with ufsel.config_context(max_fit_bytes=256):
        rc = main(["select", "--data", str(data), "--method", "laplacianscore",
                   "--n-features", "2", "--out", str(tmp_path / "r.csv")])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err and KNOB in err
    assert not (tmp_path / "r.csv").exists()
