"""ufsel: unsupervised feature selection, faithful to the papers and fast.

Every selector is a scikit-learn estimator (``SelectorMixin``) with
``fit(X)``, ``scores_`` (higher is better), ``ranking_`` (1 = best),
``get_support()`` and ``transform()``.
"""

from ._registry import SELECTORS, get_selector, register
from .base import BaseSelector, NumericalError
from .utils import config_context, get_config, set_config

__version__ = "0.1.0"

# --- the selectors, by family (ufsel.selectors.FAMILIES is the one table) ---
from .selectors import (  # noqa: E402
    DGUFS,
    EUFS,
    EVSC,
    FAMILIES,
    JELSR,
    LGDFS,
    MCFS,
    NDFS,
    RNE,
    RSFS,
    RUFS,
    SOGFS,
    SPCAFS,
    SPEC,
    UDFS,
    UFSA,
    LaplacianScore,
    MaxVariance,
    MoransI,
    PivotedQR,
    QAlpha,
)

for _family in FAMILIES.values():
    for _name, _cls in _family.items():
        register(_name, _cls)
del _family, _name, _cls

# --- label-free model selection ---
from .model_selection import AutoSelector, select_features  # noqa: E402

__all__ = [
    "AutoSelector",
    "select_features",
    "BaseSelector",
    "DGUFS",
    "EUFS",
    "EVSC",
    "JELSR",
    "NDFS",
    "RUFS",
    "SPEC",
    "UDFS",
    "LaplacianScore",
    "LGDFS",
    "MCFS",
    "MaxVariance",
    "MoransI",
    "NumericalError",
    "config_context",
    "get_config",
    "set_config",
    "PivotedQR",
    "QAlpha",
    "RNE",
    "RSFS",
    "SELECTORS",
    "SOGFS",
    "SPCAFS",
    "UFSA",
    "get_selector",
    "register",
    "__version__",
]
