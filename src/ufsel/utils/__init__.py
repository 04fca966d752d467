"""Small internal utilities: optional imports, dask helpers, atomic file writes, the
configuration (thread count, memory limits), the thread policy, input validation and the selector tags."""

from ._atomic import atomic_open, atomic_write_text, default_file_mode
from ._config import config_context, get_config, set_config
from ._memory import (
    DataShape,
    FitMemoryEstimate,
    base_terms,
    check_fit_memory,
    estimate_fit_memory,
)
from ._optional import (
    compute_floats,
    import_optional,
    is_dask_array,
    optional_available,
    persist_dask,
)
from ._progress import ProgressLine
from ._tags import SelectorTags, get_selector_tags
from ._threads import SMALL_PROBLEM_SIZE, thread_limit, threads_for
from ._validation import check_magnitude, densify

__all__ = [
    "DataShape",
    "FitMemoryEstimate",
    "ProgressLine",
    "base_terms",
    "check_fit_memory",
    "estimate_fit_memory",
    "SelectorTags",
    "get_selector_tags",
    "SMALL_PROBLEM_SIZE",
    "config_context",
    "get_config",
    "set_config",
    "thread_limit",
    "threads_for",
    "check_magnitude",
    "densify",
    "atomic_open",
    "atomic_write_text",
    "default_file_mode",
    "compute_floats",
    "import_optional",
    "is_dask_array",
    "optional_available",
    "persist_dask",
]
