"""One thread policy for every BLAS and OpenMP call that ufsel makes.

Small problems run on one thread: on a machine with few cores, and more so on a
busy one, a second BLAS or OpenMP thread costs more in synchronisation than it
saves in arithmetic (scikit-learn's ``KMeans`` on a 1000 x 10 subset, an
eigensolve of a 400 x 400 matrix). Large problems run with the caller's setting
(``OMP_NUM_THREADS``, ``threadpoolctl``, or the library's own default). An explicit
setting always wins: ``ufsel.set_config(n_threads=k)``, the context manager
``ufsel.config_context(n_threads=k)``, or the environment variable
``UFSEL_NUM_THREADS``; ``n_threads=None`` (the default) means "by the policy".

The size that separates small from large, :data:`SMALL_PROBLEM_SIZE`, is the number
of matrix entries ``n_samples * n_features`` below which a fit runs on one thread.
``benchmarks/speed/bench_threads.py`` measures where two threads start to pay.
"""

from __future__ import annotations

import contextlib

from ._config import get_config

__all__ = ["SMALL_PROBLEM_SIZE", "thread_limit", "threads_for"]

#: Problems with fewer matrix entries (n_samples * n_features) than this run on one thread.
SMALL_PROBLEM_SIZE = 2_000_000


def threads_for(size):
    """The thread count the policy gives a problem of ``size`` matrix entries.

    Parameters
    ----------
    size : int
        ``n_samples * n_features`` of the problem (or its largest matrix).

    Returns
    -------
    n_threads : int or None
        The explicit setting when there is one; else 1 for a small problem and
        None (leave the caller's setting) for a large one.
    """
    explicit = get_config()["n_threads"]
    if explicit is not None:
        return explicit
    return 1 if size < SMALL_PROBLEM_SIZE else None


@contextlib.contextmanager
def thread_limit(size):
    """Run the block under the thread policy for a problem of ``size`` matrix entries.

    Parameters
    ----------
    size : int
        ``n_samples * n_features`` of the problem; ``0`` for work that is always
        small (k-means on a row sample, say).

    Yields
    ------
    None
    """
    n = threads_for(size)
    if n is None:
        yield
        return
    with _controller().limit(limits=n):
        yield


def _controller():
    """A ``threadpoolctl.ThreadpoolController`` of the libraries loaded now.

    Building one inspects every loaded library (milliseconds); its ``limit`` then costs
    microseconds. It is kept while no module has been imported since: an import can load
    a library with a thread pool of its own (an OpenMP runtime, another BLAS), which a
    kept controller would not limit.
    """
    import sys

    cached = getattr(_controller, "cached", None)
    if cached is None or cached[0] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        cached = _controller.cached = (len(sys.modules), ThreadpoolController())
    return cached[1]
