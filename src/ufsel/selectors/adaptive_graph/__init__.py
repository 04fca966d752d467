"""Adaptive graphs: the similarity graph (or the reconstruction) is learned with the selection.

SOGFS, UFSA, DGUFS and RNE.
"""

from ._dgufs import DGUFS
from ._rne import RNE
from ._sogfs import SOGFS
from ._ufsa import UFSA

__all__ = ["DGUFS", "RNE", "SOGFS", "UFSA"]
