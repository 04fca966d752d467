"""ufsel: unsupervised feature selection, faithful to the papers and fast.

Every selector is a scikit-learn estimator (``SelectorMixin``) with
``fit(X)``, ``scores_`` (higher is better), ``ranking_`` (1 = best),
``get_support()`` and ``transform()``.
"""

from ._registry import SELECTORS, get_selector, register
from .base import BaseSelector, NumericalError
from .utils import config_context, get_config, set_config

__version__ = "0.1.0"

# --- foundation selectors: MaxVariance, Laplacian Score, MCFS ---
from ._laplacian_score import LaplacianScore  # noqa: E402
from ._maxvar import MaxVariance  # noqa: E402
from ._mcfs import MCFS  # noqa: E402
from ._pivoted_qr import PivotedQR  # noqa: E402

register("maxvariance", MaxVariance)
register("pivotedqr", PivotedQR)
register("laplacianscore", LaplacianScore)
register("mcfs", MCFS)

# --- seed methods: SPCAFS, UFSA ---
from ._spcafs import SPCAFS  # noqa: E402
from ._ufsa import UFSA  # noqa: E402

register("spcafs", SPCAFS)
register("ufsa", UFSA)

# --- seed methods: RSFS, LGDFS ---
from ._lgdfs import LGDFS  # noqa: E402
from ._rsfs import RSFS  # noqa: E402

register("rsfs", RSFS)
register("lgdfs", LGDFS)

# --- baselines ---
# spectral-regression and embedding baselines: JELSR, NDFS, RUFS, SPEC, UDFS
from ._jelsr import JELSR  # noqa: E402
from ._ndfs import NDFS  # noqa: E402
from ._rufs import RUFS  # noqa: E402
from ._spec import SPEC  # noqa: E402
from ._udfs import UDFS  # noqa: E402

register("udfs", UDFS)
register("ndfs", NDFS)
register("jelsr", JELSR)
register("rufs", RUFS)
register("spec", SPEC)

# further baselines: DGUFS, EUFS, EVSC, Q-alpha, RNE, SOGFS
from ._dgufs import DGUFS  # noqa: E402
from ._eufs import EUFS  # noqa: E402
from ._evsc import EVSC  # noqa: E402
from ._qalpha import QAlpha  # noqa: E402
from ._rne import RNE  # noqa: E402
from ._sogfs import SOGFS  # noqa: E402

register("evsc", EVSC)
register("qalpha", QAlpha)
register("eufs", EUFS)
register("dgufs", DGUFS)
register("sogfs", SOGFS)
register("rne", RNE)

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
