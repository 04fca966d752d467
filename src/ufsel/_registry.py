"""Name registry of the selectors, used by the CLI, the benchmark and the common tests.

A selector is registered once, with a lowercase name, in ``ufsel/__init__.py``;
every registered selector is covered automatically by the common test suite
(its fast test parameters are in ``ufsel/tests/_common.py``).
"""

from __future__ import annotations

__all__ = ["SELECTORS", "register", "get_selector"]

#: name -> selector class
SELECTORS: dict[str, type] = {}


def register(name, cls):
    """Register ``cls`` under ``name`` (lowercase).

    Parameters
    ----------
    name : str
        The name (stored in lowercase) under which :func:`get_selector` and the
        command line find the class.
    cls : type
        A :class:`BaseSelector` subclass.
    """
    key = name.lower()
    if key in SELECTORS and SELECTORS[key] is not cls:
        raise ValueError(f"a selector named {key!r} is already registered.")
    SELECTORS[key] = cls
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
