"""``load_dataset``: a benchmark data set by name, or a data file by path.

It sits above the two readers (:mod:`._loaders` for the ``.mat`` files and the
built-in sets, :mod:`._readers` for the other formats), which do not import it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._loaders import (
    _NAME_RE,
    BUILTIN,
    DATA_ENV,
    _data_dir,
    _env_dir_exists,
    _load_builtin,
    list_datasets,
    load_mat,
)
from ._readers import extension_format, read_data

__all__ = ["load_dataset"]


def load_dataset(name_or_path, data_dir=None, *, label_column=None, format=None):
    """Load a benchmark data set by name, or a data file by path.

    A name (``"coil20"``) is looked up as ``<name>.mat`` in ``data_dir``, else in
    the directory named by the ``UFSEL_DATA`` environment variable; names hold
    only letters, digits, ``_``, ``-`` and ``.`` (no separators, no ``..``), so
    a name never leaves that directory. A data directory that is given (or
    set in ``UFSEL_DATA``) but is not a folder is an error, except that a
    built-in name loads when ``UFSEL_DATA`` names no folder (it needs none). The names
    ``digits``, ``wine``, ``breast_cancer`` and ``iris`` fall back to
    scikit-learn's bundled copies when the data directory holds no file of
    that name (``"sklearn:wine"`` always takes scikit-learn's); the Bunch's
    ``source`` says which was read.

    A :class:`os.PathLike`, or a string ending in a known extension, is a
    path and is read as given by
    :func:`ufsel.datasets.read_data`: CSV/TSV, ``.npy``/``.npz``, Parquet,
    LIBSVM/svmlight or ``.mat`` (``format`` overrides the extension).

    Parameters
    ----------
    name_or_path : str or path-like
    data_dir : str or path-like, optional
    label_column : str, optional
        For a file: the column (CSV/TSV/Parquet) or variable (``.npz``/``.mat``)
        holding labels. Labels are only ever used to evaluate a selection.
    format : str, optional
        For a file: one of :data:`ufsel.datasets.FORMATS`.

    Returns
    -------
    Bunch
        ``data`` (float64 ndarray, or CSR if the file stores a sparse matrix,
        shape (n_samples, n_features)), ``target`` ((n_samples,) labels, or
        None when the file has none), ``feature_names`` ((n_features,) str;
        ``f0, f1, ...`` where the file names none), ``name``,
        ``feature_shape`` ((height, width) for image data, else None),
        ``image_order`` ("C" or "F": how a row unflattens into an image),
        ``source``, ``format``.
    """
    s = str(name_or_path)
    if s.startswith("sklearn:"):
        if s[8:] not in BUILTIN:
            raise ValueError(f"Built-in data set {s[8:]!r} not found, valid options are {set(BUILTIN)}.")
        return _load_builtin(s[8:])
    p = Path(s)
    if isinstance(name_or_path, os.PathLike) or format is not None or extension_format(p):
        return read_data(p, format=format, label_column=label_column)
    if not _NAME_RE.fullmatch(s) or ".." in s:
        raise ValueError(
            f"{s!r} is not a valid data set name (letters, digits, '_', '-', '.'; no path "
            "separators or '..'): a name is only looked up inside the data directory. To "
            "read a file pass its path with a known extension (.csv, .npy, .mat, ...), or a "
            "pathlib.Path."
        )
    key = s.lower()
    if key in BUILTIN and data_dir is None and not _env_dir_exists():
        return _load_builtin(key)  # needs no folder, whatever UFSEL_DATA says
    ddir = _data_dir(data_dir)
    if ddir is not None:
        f = ddir / f"{key}.mat"
        if f.is_file():
            return load_mat(f, name=key, label_variable=label_column)
    if key in BUILTIN:
        return _load_builtin(key)
    where = f"in {ddir}" if ddir is not None else f"(no data_dir given and {DATA_ENV} is not set)"
    raise ValueError(
        f"Data set {s!r} not found {where}. Available: {sorted(d['name'] for d in list_datasets(data_dir))}. "
        f"Set {DATA_ENV} to the folder holding the .mat files, or pass data_dir; to read a "
        "file, pass its path."
    )
