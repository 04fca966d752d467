"""Small internal utilities: optional imports, dask helpers, atomic file writes, the thread policy."""

from ._atomic import atomic_open, atomic_write_text, default_file_mode
from ._optional import import_optional, is_dask_array, optional_available
from ._progress import ProgressLine
from ._threads import (
    SMALL_PROBLEM_SIZE,
    config_context,
    get_config,
    set_config,
    thread_limit,
    threads_for,
)

__all__ = [
    "ProgressLine",
    "SMALL_PROBLEM_SIZE",
    "config_context",
    "get_config",
    "set_config",
    "thread_limit",
    "threads_for",
    "atomic_open",
    "atomic_write_text",
    "default_file_mode",
    "import_optional",
    "is_dask_array",
    "optional_available",
]
