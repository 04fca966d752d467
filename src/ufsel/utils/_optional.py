"""Lazy imports of the optional heavy dependencies.

faiss (``ufsel[ann]``), pynndescent (``ufsel[nndescent]``), pyamg (``ufsel[amg]``), dask
(``ufsel[dask]``) and pandas/pyarrow (``ufsel[parquet]``) are never imported when ufsel is
imported; a function that needs one imports it through :func:`import_optional`, whose error names the
extra to install.
"""

from __future__ import annotations

import importlib

__all__ = ["compute_floats", "import_optional", "is_dask_array", "optional_available",
           "persist_dask"]

#: module name -> the ufsel extra that installs it
EXTRAS = {
    "pynndescent": "nndescent",
    "faiss": "ann",
    "pyamg": "amg",
    "dask": "dask",
    "dask.array": "dask",
    "distributed": "dask",
    "pandas": "parquet",
    "pyarrow": "parquet",
    "pyarrow.parquet": "parquet",
    "anndata": "anndata",
    "matplotlib": "plot",
}


def import_optional(name, *, purpose):
    """Import the optional module ``name`` or raise an ImportError naming the extra.

    Parameters
    ----------
    name : str
        The module to import, such as ``"dask.array"``.
    purpose : str
        What it is needed for, quoted in the error message.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        extra = EXTRAS.get(name, name)
        raise ImportError(
            f"{purpose} needs the optional package {name.split('.')[0]!r}, which is not "
            f"installed. Install it with: pip install 'ufsel[{extra}]'."
        ) from exc


def optional_available(name):
    """True when the optional module ``name`` can be imported.

    Parameters
    ----------
    name : str
        The module name.
    """
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def is_dask_array(X):
    """True for a ``dask.array.Array``, checked without importing dask.

    Parameters
    ----------
    X : object
        Any object.
    """
    cls = type(X)
    return cls.__name__ == "Array" and cls.__module__.split(".")[0] == "dask"


def persist_dask(*arrays):
    """The arrays, each dask array among them persisted (computed and kept on the
    workers, or in memory without a cluster), in one call; other arrays unchanged.

    An iterative method persists its n x c iterates after each step, so that
    the next step's task graph starts from them instead of growing with the
    iterations.

    Parameters
    ----------
    *arrays : ndarray or dask array
        The arrays.

    Returns
    -------
    arrays : tuple
        In the given order.
    """
    return tuple(_on_dask_ones("persist", arrays))


def compute_floats(*values):
    """Python floats of scalar values, the dask ones computed together in one call.

    Parameters
    ----------
    *values : float, NumPy scalar or 0-d dask array
        The values.

    Returns
    -------
    floats : list of float
        In the given order.
    """
    return [float(v) for v in _on_dask_ones("compute", values)]


def _on_dask_ones(how, values):
    """``values`` as a list, its dask arrays replaced by ``dask.persist`` or
    ``dask.compute`` of all of them in one call."""
    lazy = [i for i, v in enumerate(values) if is_dask_array(v)]
    out = list(values)
    if lazy:
        dask = import_optional("dask", purpose="Computing on a dask array")
        for i, v in zip(lazy, getattr(dask, how)(*(values[i] for i in lazy))):
            out[i] = v
    return out
