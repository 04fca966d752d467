"""Filters: each feature (or greedy column subset) is scored once, without an iterative model.

MaxVariance, Laplacian Score, Moran's I, SPEC, EVSC and PivotedQR.
"""

from ._autocorrelation import MoransI, MoransIResult, morans_i
from ._evsc import EVSC
from ._laplacian_score import LaplacianScore
from ._maxvar import MaxVariance
from ._pivoted_qr import PivotedQR
from ._spec import SPEC

__all__ = ["EVSC", "LaplacianScore", "MaxVariance", "MoransI", "MoransIResult", "PivotedQR",
           "SPEC", "morans_i"]
