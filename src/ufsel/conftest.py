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
