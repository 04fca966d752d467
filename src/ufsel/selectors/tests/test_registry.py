"""The selector registry: one table, a test file per selector, fit-cache names independent
of module paths."""

import importlib
from pathlib import Path

import pytest

import ufsel
from ufsel.benchmark._runner import _class_path
from ufsel.selectors import FAMILIES

REGISTERED = [(name, cls) for family in FAMILIES.values() for name, cls in family.items()]


def test_registry_is_the_family_table():
    assert dict(REGISTERED) == dict(ufsel.SELECTORS)
    assert len(REGISTERED) == len(ufsel.SELECTORS)  # no name in two families


@pytest.mark.parametrize("name, cls", REGISTERED, ids=[n for n, _ in REGISTERED])
def test_public_name_and_cache_key(name, cls):
    """The fit cache keys a selector as ``ufsel.<ClassName>``, whatever module defines it."""
    assert getattr(ufsel, cls.__name__) is cls
    assert _class_path(cls) == f"ufsel.{cls.__name__}"


@pytest.mark.parametrize("name, cls", REGISTERED, ids=[n for n, _ in REGISTERED])
def test_every_selector_has_its_test_file(name, cls):
    """A selector defined in ``_<module>.py`` is tested in ``tests/test_<module>.py``."""
    module = importlib.import_module(cls.__module__)
    stem = Path(module.__file__).stem.lstrip("_")
    assert (Path(__file__).parent / f"test_{stem}.py").is_file()
