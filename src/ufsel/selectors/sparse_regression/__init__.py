"""Sparse regression: a row-sparse projection W fitted to a target, features ranked by ||w_j||.

The target is a spectral embedding (MCFS, RSFS, JELSR), learned cluster indicators (UDFS,
NDFS, RUFS, EUFS, Q-alpha), local discriminative regions (LGDFS), or the data itself
(SPCAFS, a row-sparse PCA).
"""

from ._eufs import EUFS
from ._jelsr import JELSR
from ._lgdfs import LGDFS
from ._mcfs import MCFS
from ._ndfs import NDFS
from ._qalpha import QAlpha
from ._rsfs import RSFS
from ._rufs import RUFS
from ._spcafs import SPCAFS
from ._udfs import UDFS

__all__ = ["EUFS", "JELSR", "LGDFS", "MCFS", "NDFS", "QAlpha", "RSFS", "RUFS", "SPCAFS", "UDFS"]
