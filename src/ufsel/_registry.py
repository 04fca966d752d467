"""Name registry of the selectors, used by the CLI, the benchmark and the common tests.

A selector is registered once, with a lowercase name, in ``ufsel/__init__.py``;
every registered selector is covered automatically by the common test suite.
"""

from __future__ import annotations

__all__ = ["SELECTORS", "register", "get_selector", "TEST_PARAMS"]

#: name -> selector class
SELECTORS: dict[str, type] = {}

#: name -> constructor parameters that make a fit fast on small test data
TEST_PARAMS: dict[str, dict] = {}


def register(name, cls, *, test_params=None):
    """Register ``cls`` under ``name`` (lowercase); ``test_params`` speed up the common tests.

    Parameters
    ----------
    name : str
        The name (stored in lowercase) under which :func:`get_selector` and the
        command line find the class.
    cls : type
        A :class:`BaseSelector` subclass.
    test_params : dict or None, default=None
        Constructor arguments that make the common estimator tests fast (small
        iteration counts).
    """
    key = name.lower()
    if key in SELECTORS and SELECTORS[key] is not cls:
        raise ValueError(f"a selector named {key!r} is already registered.")
    SELECTORS[key] = cls
    TEST_PARAMS[key] = dict(test_params or {})
    return cls


def get_selector(name):
    """The selector class registered under ``name`` (case-insensitive).

    Parameters
    ----------
    name : str
        A registered name, such as ``"mcfs"`` (see ``ufsel.SELECTORS``).
    """
    try:
        return SELECTORS[name.lower()]
    except KeyError:
        raise ValueError(
            f"Selector {name!r} not found, valid options are {sorted(SELECTORS)}."
        ) from None
