"""Fixtures shared by the package's tests."""

import contextlib
import os

import pytest

import ufsel


@pytest.fixture
def ufsel_config():
    """Change ufsel's configuration until the end of one test:
    ``ufsel_config(max_gram_bytes=80_000)`` (:func:`ufsel.config_context`)."""
    with contextlib.ExitStack() as stack:
        yield lambda **settings: stack.enter_context(ufsel.config_context(**settings))


@pytest.fixture
def umask022():
    """Run one test under the umask 022 (files the library writes: mode 0o644)."""
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture(scope="module")
def dask_client():
    """A two-worker LocalCluster (threads, no dashboard) for one test module; skipped
    without dask.distributed."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()
