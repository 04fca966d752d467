"""The thread policy: small problems on one thread, an explicit setting wins."""

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import ufsel
from ufsel.utils import SMALL_PROBLEM_SIZE, thread_limit, threads_for


def _blas_threads():
    return max(m["num_threads"] for m in threadpool_info() if m["user_api"] == "blas")


def test_small_problem_runs_on_one_thread():
    with threadpool_limits(limits=2, user_api="blas"):
        callers = _blas_threads()
        with thread_limit(10):
            assert _blas_threads() == 1
        assert _blas_threads() == callers
        assert threads_for(SMALL_PROBLEM_SIZE) is None
        with thread_limit(SMALL_PROBLEM_SIZE):  # large: the caller's setting stays
            assert _blas_threads() == callers


def test_explicit_setting_wins(monkeypatch):
    with ufsel.config_context(n_threads=2):
        assert threads_for(10) == 2
        assert ufsel.get_config()["n_threads"] == 2
    assert ufsel.get_config()["n_threads"] is None
    monkeypatch.setenv("UFSEL_NUM_THREADS", "3")
    assert threads_for(10**9) == 3
    monkeypatch.setenv("UFSEL_NUM_THREADS", "zero")
    with pytest.raises(ValueError, match="UFSEL_NUM_THREADS"):
        threads_for(10)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_n_threads(bad):
    with pytest.raises(ValueError, match="n_threads"):
        ufsel.set_config(n_threads=bad)


def test_a_library_loaded_later_is_limited_too(monkeypatch):
    import sys

    from ufsel.utils import _threads

    first = _threads._controller()
    assert _threads._controller() is first  # kept while nothing new is imported
    monkeypatch.setitem(sys.modules, "ufsel_test_new_module", object())
    assert _threads._controller() is not first  # an import may have loaded a library
