"""ufsel's configuration: the thread count and the memory limits, per thread.

``set_config`` changes the settings it is given for the current thread,
``config_context`` for the duration of a ``with`` block, and ``get_config`` reads
them, as scikit-learn's functions of the same names do.
"""

from __future__ import annotations

import contextlib
import os
import threading
from numbers import Integral

__all__ = ["config_context", "get_config", "set_config"]

#: The default of both memory limits: 4 GiB.
DEFAULT_MAX_BYTES = 4 * 1024**3

#: The share of the memory available when a fit starts that ``max_fit_bytes`` allows
#: by default.
FIT_MEMORY_SHARE = 0.6


def available_memory():
    """Bytes of memory available to a new allocation now, or None where unknown.

    Linux's ``MemAvailable`` (free memory plus the page cache and buffers the kernel
    can reclaim) from ``/proc/meminfo``; elsewhere the free pages of
    ``os.sysconf("SC_AVPHYS_PAGES")``, or half the physical memory
    (``SC_PHYS_PAGES``) where that is all the system tells.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    for name, share in (("SC_AVPHYS_PAGES", 1.0), ("SC_PHYS_PAGES", 0.5)):
        try:
            pages, size = os.sysconf(name), os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, ValueError, OSError):
            continue
        if pages > 0 and size > 0:
            return int(pages * size * share)
    return None


def _default_max_fit_bytes():
    avail = available_memory()
    return DEFAULT_MAX_BYTES if avail is None else max(1, int(FIT_MEMORY_SHARE * avail))

_local = threading.local()


class _Unchanged:
    """The default of a setting that ``set_config`` leaves as it is."""

    def __repr__(self):
        return "<unchanged>"


_UNCHANGED = _Unchanged()


def _env_n_threads():
    env = os.environ.get("UFSEL_NUM_THREADS", "").strip()
    if not env:
        return None
    try:
        value = int(env)
    except ValueError:
        raise ValueError(f"UFSEL_NUM_THREADS must be a positive integer, got {env!r}.") from None
    if value < 1:
        raise ValueError(f"UFSEL_NUM_THREADS must be a positive integer, got {env!r}.")
    return value


def _positive_int(name, value, *, allow_none):
    if value is None and allow_none:
        return None
    if not isinstance(value, Integral) or isinstance(value, bool) or value < 1:
        kind = "a positive integer or None" if allow_none else "a positive integer"
        raise ValueError(f"{name} must be {kind}, got {value!r}.")
    return int(value)


#: setting -> (the default when not set, the check of a new value)
_SETTINGS = {
    "n_threads": (_env_n_threads, lambda v: _positive_int("n_threads", v, allow_none=True)),
    "max_dense_bytes": (lambda: DEFAULT_MAX_BYTES,
                        lambda v: _positive_int("max_dense_bytes", v, allow_none=False)),
    "max_gram_bytes": (lambda: DEFAULT_MAX_BYTES,
                       lambda v: _positive_int("max_gram_bytes", v, allow_none=False)),
    "max_fit_bytes": (_default_max_fit_bytes,
                      lambda v: _positive_int("max_fit_bytes", v, allow_none=True)),
}


def get_config():
    """The current ufsel configuration.

    Returns
    -------
    config : dict
        ``"n_threads"``: the explicit thread count, or None when the policy decides
        (one thread for small problems, the caller's setting for large ones;
        :func:`ufsel.utils.thread_limit`). ``"max_dense_bytes"``: the largest dense
        copy of sparse input a selector that needs dense data may make.
        ``"max_gram_bytes"``: the largest d x d Gram matrix that is formed.
        ``"max_fit_bytes"``: the largest estimated peak memory of a fit (None: no
        limit); unless set, 60% of the memory available at the time of the call.
    """
    return {key: getattr(_local, key) if hasattr(_local, key) else default()
            for key, (default, _) in _SETTINGS.items()}


def set_config(n_threads=_UNCHANGED, *, max_dense_bytes=_UNCHANGED, max_gram_bytes=_UNCHANGED,
               max_fit_bytes=_UNCHANGED):
    """Set ufsel's configuration for the current thread; a setting not passed is unchanged.

    Parameters
    ----------
    n_threads : int or None, optional
        Number of BLAS and OpenMP threads for every computation ufsel makes;
        None restores the policy (one thread for small problems, the caller's
        setting for large ones). The environment variable ``UFSEL_NUM_THREADS``
        sets the default.
    max_dense_bytes : int, optional
        Sparse input whose dense copy would take more bytes is refused (with a
        ValueError) by the selectors whose mathematics needs dense data; 4 GiB by
        default.
    max_gram_bytes : int, optional
        A d x d Gram matrix of more bytes is refused rather than formed; 4 GiB by
        default.
    max_fit_bytes : int or None, optional
        A fit whose estimated peak memory (:func:`ufsel.utils.estimate_fit_memory`)
        exceeds it is refused before any work, with a
        :class:`~ufsel.exceptions.MemoryLimitError` that names the largest cost
        and what fits instead; None removes the limit. By default 60% of the
        memory available when the fit starts (Linux's ``MemAvailable``,
        elsewhere ``os.sysconf``), read anew at each fit.
    """
    given = {"n_threads": n_threads, "max_dense_bytes": max_dense_bytes,
             "max_gram_bytes": max_gram_bytes, "max_fit_bytes": max_fit_bytes}
    checked = {key: _SETTINGS[key][1](value) for key, value in given.items()
               if value is not _UNCHANGED}
    for key, value in checked.items():
        setattr(_local, key, value)


@contextlib.contextmanager
def config_context(*, n_threads=_UNCHANGED, max_dense_bytes=_UNCHANGED,
                   max_gram_bytes=_UNCHANGED, max_fit_bytes=_UNCHANGED):
    """Temporarily set ufsel's configuration (see :func:`set_config`).

    Parameters
    ----------
    n_threads : int or None, optional
        As in :func:`set_config`.
    max_dense_bytes : int, optional
        As in :func:`set_config`.
    max_gram_bytes : int, optional
        As in :func:`set_config`.
    max_fit_bytes : int or None, optional
        As in :func:`set_config`.

    Yields
    ------
    None
    """
    old = {key: getattr(_local, key, _UNCHANGED) for key in _SETTINGS}
    set_config(n_threads, max_dense_bytes=max_dense_bytes, max_gram_bytes=max_gram_bytes,
               max_fit_bytes=max_fit_bytes)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is _UNCHANGED:
                if hasattr(_local, key):
                    delattr(_local, key)
            else:
                setattr(_local, key, value)
