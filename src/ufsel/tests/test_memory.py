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
    _memory,
    check_fit_memory,
    estimate_fit_memory,
    get_config,
)

from ._common import NAMES, make

KNOB = "ufsel.set_config(max_fit_bytes=...)"

#: The users' case: sparse 200,000 x 50,000 with 5 million non-zeros, exact neighbour search.
USERS_CASE = DataShape(200_000, 50_000, 5_000_000, 8, "sparse", False)


def _no_work(monkeypatch, name):
    def refuse(self, X):  # pragma: no cover - reached only when the check is missing
        raise AssertionError("the fit started before the memory check")

    monkeypatch.setattr(SELECTORS[name], "_fit", refuse)


def _assert_one_line_refusal(exc, name):
    msg = str(exc)
    assert "\n" not in msg
    assert SELECTORS[name].__name__ in msg and KNOB in msg
    assert "would need about" in msg and "over the limit of" in msg


def test_estimate_lists_named_terms_and_their_total(monkeypatch):
    monkeypatch.setattr(_approximate, "backend_installed", lambda module: False)
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


#: The k-NN filters: at the users' case their default (approximate) neighbour search is
#: NN-descent on sparse rows that share few features, whose peak is quadratic in n.
KNN_FILTERS = ("evsc", "laplacianscore", "spec")
#: What fits the users' case on a 24 GiB machine: no d x d matrix, no neighbour search.
# MoransI searches the neighbours of a 30-component PCA embedding, not of the columns
FIT_WIDE_SPARSE = ("maxvariance", "qalpha", "spcafs", "moransi")


def _with_pynndescent_only(monkeypatch):
    """The approximate search as a plain install with ``ufsel[nndescent]`` has it."""
    monkeypatch.setattr(_approximate, "backend_installed",
                        lambda module: module == "pynndescent")


@pytest.mark.parametrize("name", NAMES)
def test_users_wide_sparse_case_refused_unless_it_fits(name, monkeypatch):
    """(b) The sparse 200,000 x 50,000 case (5M non-zeros), from the shape alone and at
    once: on 24 GiB every selector is refused in one line except those that fit."""
    _with_pynndescent_only(monkeypatch)
    t0 = time.perf_counter()
    try:
        estimate = check_fit_memory(SELECTORS[name](), USERS_CASE, limit=24 * 1024**3)
    except MemoryLimitError as exc:
        _assert_one_line_refusal(exc, name)
        assert name not in FIT_WIDE_SPARSE
        if name in KNN_FILTERS:
            assert "NN-descent's pairs of 200000 sparse rows" in str(exc)
        assert time.perf_counter() - t0 < 2.0
        return
    assert name in FIT_WIDE_SPARSE, estimate


def test_exact_search_of_wide_sparse_rows_is_not_what_refuses(monkeypatch):
    """Without an approximate backend the exact search's blocks are small (64 MiB of
    distances, products as sparse as the rows' shared features): the k-NN filters are
    not refused for memory."""
    monkeypatch.setattr(_approximate, "backend_installed", lambda module: False)
    for name in KNN_FILTERS:
        estimate = check_fit_memory(SELECTORS[name](), USERS_CASE, limit=2 * 1024**3)
        assert "the 200000 x 200000 k-NN search blocks" in estimate.terms


def test_sparse_search_plan_matches_a_measured_search():
    """The plan's peak of the exact search of sparse rows against tracemalloc's peak of
    that search (the allocations are NumPy's), within a factor of 2."""
    import tracemalloc

    from ufsel.graph import knn_graph, plan_search

    rng = np.random.default_rng(0)
    for n, d, per_row in ((3000, 5000, 25), (3000, 500, 25)):
        X = sparse.random(n, d, density=per_row / d, format="csr", rng=rng)
        shape = estimate_fit_memory(ufsel.MaxVariance(), X).shape
        plan = plan_search(n, d, k=5, sparse=True, nnz=X.nnz,
                           shared_features=shape.shared_features, algorithm="exact")
        tracemalloc.start()
        knn_graph(X, 5, algorithm="exact")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert 0.5 <= plan.peak_bytes / peak <= 2.0, (n, d, plan, peak)


@pytest.mark.slow
def test_users_wide_sparse_matrix_is_refused_in_fit(monkeypatch):
    """(b) The same case as a real matrix: ``fit`` refuses after validation, in seconds."""
    pytest.importorskip("pynndescent")
    monkeypatch.setattr(_approximate, "backend_installed",
                        lambda module: module == "pynndescent")
    X = sparse.random(200_000, 50_000, density=5e-4, format="csr",
                      rng=np.random.default_rng(0))
    with ufsel.config_context(max_fit_bytes=24 * 1024**3):
        for name in ("laplacianscore", "spec", "evsc", "mcfs", "pivotedqr", "udfs"):
            t0 = time.perf_counter()
            with pytest.raises(MemoryLimitError):
                SELECTORS[name]().fit(X)
            assert time.perf_counter() - t0 < 5.0, name


def test_memory_error_inside_fit_is_one_line(monkeypatch):
    """An allocation the estimate did not foresee: the fit's MemoryError becomes a
    one-line MemoryLimitError naming the selector."""
    def exhaust(self, X):
        raise MemoryError("Allocation failed (probably too large).")

    monkeypatch.setattr(SELECTORS["laplacianscore"], "_fit", exhaust)
    with pytest.raises(MemoryLimitError) as info:
        ufsel.LaplacianScore(n_features_to_select=2).fit(np.random.RandomState(0).rand(30, 4))
    msg = str(info.value)
    assert "\n" not in msg and "LaplacianScore ran out of memory" in msg
    assert info.value.__cause__ is None


#: Ten million rows of 100 float32 features in chunks of 100,000 rows (make_planted_dask).
DASK_CASE = DataShape(10_000_000, 100, None, 4, "dask", False, chunk_rows=100_000)


@pytest.mark.parametrize("name", ["mcfs", "laplacianscore", "spec", "ndfs", "maxvariance"])
def test_dask_ten_million_rows_fit_two_2gb_workers(name, monkeypatch):
    """On two workers of 2 GB (one thread each) the client holds m- and d-sized
    reductions and a worker one chunk at a time: accepted."""
    monkeypatch.setattr(_memory, "dask_worker_memory", lambda: (2 * 10**9, 1, 2))
    estimate = check_fit_memory(SELECTORS[name](), DASK_CASE, limit=4 * 1024**3)
    assert estimate.total < 1024**3
    assert not any("10000000 x" in term for term in estimate.terms)


def test_dask_chunks_too_large_for_a_worker_are_refused(monkeypatch):
    monkeypatch.setattr(_memory, "dask_worker_memory", lambda: (2 * 10**9, 1, 2))
    big_chunks = DataShape(10_000_000, 100, None, 4, "dask", False, chunk_rows=5_000_000)
    with pytest.raises(MemoryLimitError, match="on each dask worker.*X.rechunk") as info:
        check_fit_memory(ufsel.MCFS(), big_chunks, limit=4 * 1024**3)
    assert "\n" not in str(info.value)
    # dask's local scheduler computes the chunks in this process, one per thread
    monkeypatch.setattr(_memory, "dask_worker_memory", lambda: None)
    monkeypatch.setattr(_memory, "_local_threads", lambda: 2)
    estimate = estimate_fit_memory(ufsel.MCFS(), DASK_CASE)
    client = _memory._needed(estimate, 4 * 1024**3)[0]
    assert client == estimate.total + 2 * estimate.worker_total + estimate.cluster_total


def test_dask_shape_reads_the_chunks():
    da = pytest.importorskip("dask.array")
    X = da.zeros((1000, 7), chunks=(300, 7))
    shape = estimate_fit_memory(ufsel.MaxVariance(), X).shape
    assert shape.dask and shape.chunk == 300


def test_lgdfs_at_the_70k_benchmark_shape_is_accepted():
    """LGDFS above the dense eigensolver's size: a sparse local Laplacian and an operator
    for the global one, not two dense n x n matrices."""
    estimate = check_fit_memory(ufsel.LGDFS(), (70_000, 784), limit=8 * 1024**3)
    assert not any("70000 x 70000 local and global" in term for term in estimate.terms)


def test_pivoted_qr_on_wide_sparse_names_its_qr_factor():
    with pytest.raises(MemoryLimitError, match=r"R factor of the QR.*at most \d+ features"):
        check_fit_memory(ufsel.PivotedQR(), USERS_CASE, limit=4 * 1024**3)


def test_knn_methods_name_the_search_and_the_anchor_graph(monkeypatch):
    _with_pynndescent_only(monkeypatch)
    with pytest.raises(MemoryLimitError) as info:
        check_fit_memory(ufsel.LaplacianScore(), USERS_CASE, limit=24 * 1024**3)
    msg = str(info.value)
    assert "NN-descent's pairs" in msg
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
