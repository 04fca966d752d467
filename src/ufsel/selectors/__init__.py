"""The selectors, grouped by family.

- :mod:`ufsel.selectors.filters`: one score per feature, no iterative model;
- :mod:`ufsel.selectors.sparse_regression`: a row-sparse W fitted to a target;
- :mod:`ufsel.selectors.adaptive_graph`: the graph is learned with the selection.

:data:`FAMILIES` is the one table of registered selectors: family -> {name: class}.
"""

from .adaptive_graph import DGUFS, RNE, SOGFS, UFSA
from .filters import EVSC, SPEC, LaplacianScore, MaxVariance, MoransI, PivotedQR
from .sparse_regression import EUFS, JELSR, LGDFS, MCFS, NDFS, RSFS, RUFS, SPCAFS, UDFS, QAlpha

#: family -> {registered name: selector class}, in the order the API reference lists them
FAMILIES = {
    "filters": {
        "maxvariance": MaxVariance,
        "laplacianscore": LaplacianScore,
        "moransi": MoransI,
        "spec": SPEC,
        "evsc": EVSC,
        "pivotedqr": PivotedQR,
    },
    "sparse_regression": {
        "mcfs": MCFS,
        "rsfs": RSFS,
        "lgdfs": LGDFS,
        "spcafs": SPCAFS,
        "udfs": UDFS,
        "ndfs": NDFS,
        "jelsr": JELSR,
        "rufs": RUFS,
        "eufs": EUFS,
        "qalpha": QAlpha,
    },
    "adaptive_graph": {
        "ufsa": UFSA,
        "sogfs": SOGFS,
        "dgufs": DGUFS,
        "rne": RNE,
    },
}

# The classes are public as ``ufsel.<ClassName>``; this package adds the family table.
__all__ = ["FAMILIES"]
