"""ufsel's configuration: the memory limits beside the thread count, per thread, and the
deprecated module constants that read them."""

import threading

import numpy as np
import pytest
from scipy import sparse

import ufsel
from ufsel.linalg import check_gram_size
from ufsel.utils import densify


def test_defaults_and_context():
    config = ufsel.get_config()
    assert config["max_dense_bytes"] == config["max_gram_bytes"] == 4 * 1024**3
    with ufsel.config_context(max_dense_bytes=100):
        assert ufsel.get_config()["max_dense_bytes"] == 100
        assert ufsel.get_config()["max_gram_bytes"] == 4 * 1024**3  # not passed: unchanged
        with ufsel.config_context(n_threads=2):
            assert ufsel.get_config()["max_dense_bytes"] == 100
        assert ufsel.get_config()["n_threads"] == config["n_threads"]
    assert ufsel.get_config() == config


def test_set_config_changes_only_what_it_is_given():
    with ufsel.config_context(n_threads=2):
        ufsel.set_config(max_gram_bytes=800)
        assert ufsel.get_config()["n_threads"] == 2
        assert ufsel.get_config()["max_gram_bytes"] == 800
        ufsel.set_config(n_threads=None)  # None restores the thread policy
        assert ufsel.get_config()["n_threads"] is None
    assert ufsel.get_config()["max_gram_bytes"] == 4 * 1024**3


def test_limits_are_per_thread():
    seen = []
    with ufsel.config_context(max_dense_bytes=100):
        worker = threading.Thread(target=lambda: seen.append(ufsel.get_config()))
        worker.start()
        worker.join()
    assert seen[0]["max_dense_bytes"] == 4 * 1024**3


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, None, "4"])
def test_bad_limits(bad):
    with pytest.raises(ValueError, match="max_dense_bytes must be a positive integer"):
        ufsel.set_config(max_dense_bytes=bad)
    with pytest.raises(ValueError, match="max_gram_bytes must be a positive integer"):
        with ufsel.config_context(max_gram_bytes=bad):
            pass  # pragma: no cover


def test_the_limits_are_read_at_call_time():
    X = sparse.random(10, 10, density=0.1, format="csr", random_state=0)
    assert isinstance(densify(X, "Owner"), np.ndarray)
    with ufsel.config_context(max_dense_bytes=799):
        with pytest.raises(ValueError, match="Owner needs a dense copy"):
            densify(X, "Owner")
    check_gram_size(10, "Owner")
    with ufsel.config_context(max_gram_bytes=799):
        with pytest.raises(ValueError, match="Owner needs a 10 x 10 matrix"):
            check_gram_size(10, "Owner")


def test_deprecated_module_constants_read_the_configuration():
    from ufsel import base
    from ufsel.linalg import _stats

    with ufsel.config_context(max_dense_bytes=123, max_gram_bytes=456):
        with pytest.warns(FutureWarning, match="max_dense_bytes"):
            assert base.MAX_DENSE_BYTES == 123
        with pytest.warns(FutureWarning, match="max_gram_bytes"):
            assert _stats.MAX_GRAM_BYTES == 456
    with pytest.raises(AttributeError):
        base.NO_SUCH_NAME  # noqa: B018
