"""Writing a data matrix (the selected columns) in any format :func:`read_data` reads.

Each file is written atomically and readable by others
(:func:`ufsel.utils.atomic_open`), and reads back through
:func:`ufsel.datasets.read_data` to the same values, names and labels:

- CSV/TSV: a header of the feature names (then the label column, if any),
  values printed as Python's shortest exact repr (float64 round trip);
- ``.npy``: the dense matrix only (names and labels have no place in it);
- ``.npz``: ``X`` (+ ``feature_names`` and ``y``); sparse data as
  :func:`scipy.sparse.save_npz` writes it (no names, no labels);
- Parquet: one column per feature (+ the label column); needs ``ufsel[parquet]``;
- LIBSVM/svmlight: sparse, one-based indices (LIBSVM's convention), the
  labels first on each line (0 when there are none);
- ``.mat``: ``X`` (+ ``Y``), sparse data stay sparse;
- ``.h5ad``: an AnnData (``var_names`` the feature names, the labels a column of
  ``obs``), sparse data stay sparse; needs ``ufsel[anndata]``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from scipy import sparse

from ..utils import atomic_open
from ._readers import FORMATS, _format

__all__ = ["write_data"]


def write_data(path, data, *, feature_names=None, target=None, label_name="label", format=None,
               row_ids=None, id_name="id"):
    """Write ``data`` (n_samples x n_features, dense or sparse) to ``path`` atomically.

    Parameters
    ----------
    path : path-like
    data : {ndarray, sparse matrix} of shape (n_samples, n_features)
    feature_names : sequence of str, optional
        Default ``f0, f1, ...``.
    target : array-like of shape (n_samples,), optional
        Labels to store with the data where the format has room for them
        (not ``.npy`` or sparse ``.npz``).
    label_name : str, default="label"
        Name of the label column (CSV/TSV/Parquet).
    format : str, optional
        One of :data:`ufsel.datasets.FORMATS`; default from the extension.
    row_ids : array-like of shape (n_samples,), optional
        Row identifiers, written as the first column (CSV/TSV/Parquet; read
        back with ``id_column``); the other formats have no room for them and
        refuse them.
    id_name : str, default="id"
        Name of the identifier column.

    Returns
    -------
    path : pathlib.Path
    """
    path = Path(path)
    fmt = _format(path, format)
    n, d = data.shape
    names = [f"f{j}" for j in range(d)] if feature_names is None else [str(c) for c in feature_names]
    if len(names) != d:
        raise ValueError(f"{len(names)} feature names for {d} features.")
    if target is not None:
        target = np.asarray(target)
        if target.shape != (n,):
            raise ValueError(f"target has shape {target.shape}, expected ({n},).")
        if fmt in ("csv", "tsv", "parquet") and label_name in names:
            raise ValueError(f"the label column {label_name!r} is also a feature name.")
    if row_ids is not None:
        row_ids = np.asarray(row_ids)
        if fmt not in ("csv", "tsv", "parquet"):
            raise ValueError(f"a {fmt} file has no room for row identifiers; write CSV, TSV or "
                             "Parquet.")
        if row_ids.shape != (n,):
            raise ValueError(f"row_ids has shape {row_ids.shape}, expected ({n},).")
        if id_name in names or (target is not None and id_name == label_name):
            raise ValueError(f"the ID column {id_name!r} is also a feature or label name.")
    dense = fmt in ("csv", "tsv", "npy", "parquet")
    if dense and sparse.issparse(data):
        data = data.toarray()
    if fmt in ("csv", "tsv"):
        _write_delimited(path, data, names, target, label_name, "," if fmt == "csv" else "\t",
                         row_ids, id_name)
    elif fmt == "npy":
        with atomic_open(path, "wb") as fh:
            np.save(fh, np.asarray(data), allow_pickle=False)
    elif fmt == "npz":
        with atomic_open(path, "wb") as fh:
            if sparse.issparse(data):
                sparse.save_npz(fh, sparse.csr_matrix(data), compressed=True)
            else:
                arrays = {"X": np.asarray(data), "feature_names": np.array(names, dtype=str)}
                if target is not None:
                    arrays["y"] = _plain_labels(target)
                np.savez_compressed(fh, **arrays)
    elif fmt == "parquet":
        _write_parquet(path, data, names, target, label_name, row_ids, id_name)
    elif fmt == "svmlight":
        _write_svmlight(path, data, target)
    elif fmt == "h5ad":
        from ._anndata import write_h5ad

        write_h5ad(path, data, names, target, label_name)
    elif fmt == "mat":
        from scipy import io

        mdict = {"X": data if sparse.issparse(data) else np.asarray(data)}
        if target is not None:
            mdict["Y"] = _plain_labels(target).reshape(-1, 1)
        with atomic_open(path, "wb") as fh:
            io.savemat(fh, mdict, do_compression=True)
    else:  # pragma: no cover - _format validated it
        raise ValueError(f"format {fmt!r} not in {FORMATS}")
    return path


def _plain_labels(y):
    """Labels as a NumPy array that needs no pickling (strings as fixed-width unicode)."""
    y = np.asarray(y)
    return y.astype(str) if y.dtype == object else y


def _write_delimited(path, data, names, target, label_name, delimiter, row_ids=None,
                     id_name="id"):
    header = ([id_name] if row_ids is not None else []) + names + (
        [label_name] if target is not None else [])
    with atomic_open(path, "w", newline="") as fh:
        w = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        w.writerow(header)
        # numbers never need quoting; Python floats' repr is exact and shortest
        rows = np.asarray(data, dtype=np.float64).tolist()
        if target is None and row_ids is None:
            fh.writelines(delimiter.join(map(repr, row)) + "\n" for row in rows)
        else:
            ids = [[str(i)] for i in row_ids] if row_ids is not None else [[]] * len(rows)
            labels = [[str(y)] for y in target] if target is not None else [[]] * len(rows)
            w.writerows([*i, *map(repr, row), *y] for i, row, y in zip(ids, rows, labels))


def _write_svmlight(path, data, target):
    """``<label> <index>:<value> ...`` per row, one-based, values as exact reprs.

    (scikit-learn's ``dump_svmlight_file`` prints 16 significant digits,
    which does not round-trip every float64.)
    """
    n = data.shape[0]
    y = np.zeros(n, dtype=np.int64) if target is None else np.asarray(target)
    if y.dtype.kind not in "biuf":
        raise ValueError("svmlight files hold numeric labels only; these are text.")
    X = sparse.csr_matrix(data)
    X.sort_indices()
    with atomic_open(path, "w", newline="") as fh:
        for i in range(n):
            lo, hi = X.indptr[i], X.indptr[i + 1]
            label = repr(float(y[i])) if y.dtype.kind == "f" else str(int(y[i]))
            cells = " ".join(f"{j + 1}:{float(v)!r}" for j, v in zip(X.indices[lo:hi], X.data[lo:hi]))
            fh.write(f"{label} {cells}\n" if cells else f"{label}\n")


def _write_parquet(path, data, names, target, label_name, row_ids=None, id_name="id"):
    from ..utils import import_optional

    pd = import_optional("pandas", purpose="Writing Parquet files")
    import_optional("pyarrow", purpose="Writing Parquet files")
    df = pd.DataFrame(np.asarray(data), columns=names)
    if target is not None:
        df[label_name] = target
    if row_ids is not None:
        df.insert(0, id_name, [str(i) for i in row_ids])
    with atomic_open(path, "wb") as fh:
        df.to_parquet(fh, index=False)
