"""Reading a user's data file: CSV/TSV, ``.npy``/``.npz``, Parquet, LIBSVM/svmlight, ``.mat``.

Every reader returns the same Bunch as :func:`ufsel.datasets.load_dataset`:
``data`` (float64, dense or CSR), ``target`` (labels, or None: labels are
optional everywhere and only ever used to evaluate a selection),
``feature_names`` (from the file, else ``f0, f1, ...``), ``name``,
``feature_shape``, ``image_order``, ``source`` and ``format``.

The format is taken from the extension (:data:`EXTENSIONS`) unless given.
Decisions, each applying to every format:

- **Numeric features only.** A text column is refused with its name (use
  it as the label column, drop it or encode it first); missing values
  (empty cells, ``NA``, ``NaN``) and infinities are refused with the names of
  the columns holding them, as ufsel's selectors need finite data.
- **Labels are never guessed from a column.** CSV/TSV/Parquet labels are
  read only from the column named by ``label_column``; ``.npz`` and ``.mat``
  files may hold them in a conventionally named variable (``y``, ``gnd``,
  ...); LIBSVM/svmlight lines always begin with one.
- **CSV/TSV are parsed by NumPy's C reader** (:func:`numpy.loadtxt`), with
  or without pandas installed, so the result never depends on which
  optional packages are present. The first row is the header (the feature
  names) unless every one of its fields is a number, in which case the file
  has no header and the names are ``f0, f1, ...``. Fields may be quoted
  with ``"``; ``#`` is an ordinary character (no comments). Compressed text
  files are not read: decompress them first. The delimiter is the
  extension's (``,`` or tab) when the first two lines split on it into the
  same number of fields, else the one :class:`csv.Sniffer` finds among
  ``, ; tab |`` (a ``;``-separated ``.csv`` file is read as such), unless
  ``sep`` names it.
- **Columns that are not features** (an ID, a free-text note) are left out
  with ``drop_columns``; ``id_column`` leaves one out and keeps its values
  as ``row_ids`` (CSV/TSV/Parquet).
- **Parquet** needs pandas and pyarrow (``pip install 'ufsel[parquet]'``).
- **AnnData** ``.h5ad`` files need anndata (``pip install 'ufsel[anndata]'``): the
  matrix is ``X``, a named layer (``layer``) or ``.raw.X`` (``raw``), sparse kept
  as CSR; the feature names are ``var_names``; ``label_column`` names a column of
  ``obs``.
- **LIBSVM/svmlight** files are read by scikit-learn's
  :func:`~sklearn.datasets.load_svmlight_file` and stay sparse (CSR);
  indices are detected as zero- or one-based (``zero_based="auto"``), and
  the number of features is the largest index present.
- **Untrusted input.** Nothing is ever unpickled (``np.load(...,
  allow_pickle=False)``; object arrays are refused); a file that would
  become more than ``MAX_DATA_BYTES`` of float64 is refused before it is
  read (``.npy``/``.npz``/Parquet/``.mat`` by their declared shapes, text
  files by their size: a text value takes at least two bytes, so a text
  file of S bytes holds at most S/2 values, 4 S bytes as float64); every
  parser failure becomes a ``ValueError`` naming the file.
"""

from __future__ import annotations

import csv
import warnings
import zipfile
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.utils import Bunch

from ._loaders import _DATA_KEYS, _LABEL_KEYS, default_feature_names, load_mat

__all__ = ["EXTENSIONS", "FORMATS", "MAX_DATA_BYTES", "extension_format", "read_data",
           "read_labels"]

#: Format name -> the file extensions read as that format.
EXTENSIONS = {
    "csv": (".csv",),
    "tsv": (".tsv", ".tab"),
    "npy": (".npy",),
    "npz": (".npz",),
    "parquet": (".parquet", ".pq"),
    "svmlight": (".svm", ".svmlight", ".libsvm"),
    "mat": (".mat",),
    "h5ad": (".h5ad",),
}
#: The formats :func:`read_data` reads.
FORMATS = tuple(EXTENSIONS)

#: Largest float64 array (bytes) a data file may become; larger ones are
#: refused before they are read.
MAX_DATA_BYTES = 8 * 1024**3

#: Cells read as missing values (pandas' defaults, so that a file saved by
#: pandas with missing values is named as such rather than as text).
_MISSING = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                      "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                      "nan", "null"})

_NAME_KEYS = ("feature_names", "names")


def extension_format(path):
    """The format implied by ``path``'s extension, or None."""
    suffix = Path(path).suffix.lower()
    return next((f for f, exts in EXTENSIONS.items() if suffix in exts), None)


def formats_help():
    """One phrase listing the readable formats and their extensions."""
    return ", ".join(f"{f} ({'/'.join(exts)})" for f, exts in EXTENSIONS.items())


def _format(path, format):
    if format is not None:
        if format not in EXTENSIONS:
            raise ValueError(f"format={format!r} not understood, valid options are {set(FORMATS)}.")
        return format
    fmt = extension_format(path)
    if fmt is None:
        raise ValueError(
            f"{path}: cannot tell the format from the extension {Path(path).suffix or '(none)'!r}. "
            f"ufsel reads {formats_help()}; rename the file or name its format "
            "(--format / format=)."
        )
    return fmt


def read_data(path, *, format=None, label_column=None, name=None, sep=None, drop_columns=None,
              id_column=None, layer=None, raw=False):
    """Read a data file into a Bunch (see the module docstring for the rules).

    Parameters
    ----------
    path : path-like
    format : {"csv", "tsv", "npy", "npz", "parquet", "svmlight", "mat", "h5ad"}, optional
        Default: from the extension (:data:`EXTENSIONS`).
    label_column : str, optional
        The column (CSV/TSV/Parquet) or variable (``.npz``/``.mat``) that holds
        labels; it is not a feature. Not accepted for ``.npy`` and svmlight
        files (whose labels have no name).
    name : str, optional
        The data set's name (default: the file name without extension).
    sep : str, optional
        The CSV/TSV delimiter; default detected (see the module docstring).
    drop_columns : sequence of str, optional
        Named columns (CSV/TSV/Parquet) or features (``.npz``/``.mat`` with
        feature names) that are not features; they may hold text.
    id_column : str, optional
        A CSV/TSV/Parquet column of row identifiers: not a feature, its
        values kept (as text) in the Bunch's ``row_ids``.
    layer : str, optional
        An ``.h5ad`` file's layer to read instead of its ``X``.
    raw : bool, default=False
        Read an ``.h5ad`` file's ``.raw`` (matrix and ``var_names``).

    Returns
    -------
    Bunch
        With ``row_ids`` (None without ``id_column``), and for CSV/TSV the
        ``delimiter`` read.

    Raises
    ------
    FileNotFoundError
        ``path`` is not a file.
    ValueError
        Anything else, in one line naming the file and the fix.
    ImportError
        Parquet without pandas/pyarrow, naming the extra to install.
    """
    path = Path(path)
    fmt = _format(path, format)
    if not path.is_file():
        what = "a folder, not a file" if path.is_dir() else "not found"
        raise FileNotFoundError(f"{path}: {what}.")
    if label_column is not None and fmt in ("npy", "svmlight"):
        raise ValueError(
            f"{path}: a {fmt} file has no named columns, so label_column={label_column!r} "
            "cannot apply; pass the labels as a separate file (--labels) instead."
        )
    drop = [str(c) for c in (drop_columns or ())]
    if id_column is not None and fmt not in ("csv", "tsv", "parquet"):
        raise ValueError(f"{path}: id_column applies to CSV/TSV/Parquet files, not {fmt}.")
    if (layer is not None or raw) and fmt != "h5ad":
        raise ValueError(f"{path}: layer and raw apply to .h5ad files, not {fmt}.")
    if sep is not None and fmt not in ("csv", "tsv"):
        raise ValueError(f"{path}: sep applies to CSV/TSV files, not {fmt}.")
    if sep is not None and len(sep) != 1:
        raise ValueError(f"sep={sep!r}: give one character (',' ';' '|', or a tab).")
    skip = [c for c in (label_column, id_column) if c is not None]
    if len(set(skip + drop)) != len(skip + drop):
        raise ValueError(f"{path}: a column is named twice among the label, ID and dropped "
                         "columns.")
    row_ids = None
    try:
        if fmt in ("csv", "tsv"):
            delimiter = sep or _detect_delimiter(path, "," if fmt == "csv" else "\t")
            b = _read_delimited(path, delimiter, label_column, drop, id_column)
            row_ids = b.pop("row_ids", None)
            b.delimiter = delimiter
        elif fmt == "parquet":
            b, row_ids = _read_parquet(path, label_column, drop, id_column)
            drop = []
        elif fmt == "npy":
            b = _read_npy(path)
        elif fmt == "npz":
            b = _read_npz(path, label_column)
        elif fmt == "svmlight":
            b = _read_svmlight(path)
        elif fmt == "h5ad":
            from ._anndata import read_h5ad

            b = read_h5ad(path, label_column=label_column, layer=layer, raw=raw)
        else:
            b = load_mat(path, label_variable=label_column)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start}); "
                         f"is it really {fmt}?") from exc
    if drop and fmt not in ("csv", "tsv"):
        b = _drop_features(path, b, drop)
    b.row_ids = row_ids
    b.name = name or path.stem
    b.source = str(path)
    b.format = fmt
    b.setdefault("feature_shape", None)
    b.setdefault("image_order", None)
    if b.feature_names is None:
        b.feature_names = default_feature_names(b.data.shape[1])
    _check_finite(path, b.data, b.feature_names)
    if b.data.shape[0] == 0 or b.data.shape[1] == 0:
        raise ValueError(f"{path}: no data (shape {b.data.shape}).")
    return b


# ------------------------------------------------------------------ checks
def _check_declared(path, shape, what="the data"):
    n = 1
    for dim in shape:
        n *= int(dim)
    if n * 8 > MAX_DATA_BYTES:
        raise ValueError(
            f"{path}: {what} of shape {tuple(int(s) for s in shape)} would take "
            f"{n * 8 / 1024**3:.3g} GiB as float64, above the limit of {MAX_DATA_BYTES / 1024**3:.3g} "
            "GiB (ufsel.datasets._readers.MAX_DATA_BYTES); raise it to read the file."
        )


def _check_text_size(path):
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"{path} is empty (0 bytes).")
    if size * 4 > MAX_DATA_BYTES:
        raise ValueError(
            f"{path}: a {size / 1024**3:.3g} GiB text file may hold up to {size * 4 / 1024**3:.3g} "
            f"GiB of float64 values, above the limit of {MAX_DATA_BYTES / 1024**3:.3g} GiB "
            "(ufsel.datasets._readers.MAX_DATA_BYTES); raise it, or convert the file to "
            ".npy or Parquet."
        )


def _check_finite(path, data, names):
    values = data.data if sparse.issparse(data) else data
    if np.all(np.isfinite(values)):
        return
    if sparse.issparse(data):
        bad = np.unique(data.tocoo().col[~np.isfinite(data.tocoo().data)])
    else:
        bad = np.flatnonzero(~np.all(np.isfinite(data), axis=0))
    raise ValueError(
        f"{path}: {_names(names, bad)} {_verb(bad, 'holds', 'hold')} missing or non-finite values (NaN, inf or empty "
        "cells); impute or remove them first."
    )


def _names(names, idx, limit=5):
    """``column 'a'`` or ``columns 'a', 'b' and 3 more``."""
    shown = ", ".join(repr(str(names[j])) for j in idx[:limit])
    more = f" and {len(idx) - limit} more" if len(idx) > limit else ""
    return f"column{'s' if len(idx) > 1 else ''} {shown}{more}"


def _verb(idx, singular, plural):
    return singular if len(idx) == 1 else plural


def _numeric_dtype(path, dtype, what):
    if dtype.hasobject or dtype.names is not None or dtype.kind not in "biuf":
        raise ValueError(
            f"{path}: {what} has dtype {dtype}; ufsel reads plain numeric arrays (bool, int, "
            "float) only, and never unpickles objects."
        )


# ------------------------------------------------------------------ labels
def _labels_from_strings(values):
    """Labels read as text: integers or floats when every one parses, else the strings."""
    values = [v.strip() for v in values]
    for kind in (int, float):
        try:
            return np.array([kind(v) for v in values])
        except ValueError:
            continue
    return np.array(values, dtype=object)


def read_labels(path, n_samples):
    """Labels for evaluation from a separate file: ``.npy``, or text with one label per line.

    A text file may start with a header line: it is dropped when the file
    holds exactly ``n_samples + 1`` lines (blank lines at the end are
    ignored). Labels are integers or floats when every one parses, else
    strings.

    Parameters
    ----------
    path : str or path
        The label file.
    n_samples : int
        Number of samples of the data the labels belong to.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: labels file not found.")
    if path.suffix.lower() == ".npy":
        y = _load_npy_checked(path)
        if y.ndim == 2 and 1 in y.shape:
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(f"{path}: labels must be 1-D, got shape {y.shape}.")
    else:
        _check_text_size(path)
        with open(path, encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines()
        while lines and not lines[-1].strip():
            lines.pop()
        if len(lines) == n_samples + 1:
            lines = lines[1:]
        y = _labels_from_strings(lines)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{path}: {y.shape[0]} labels for {n_samples} samples; give one label per sample "
            "(one per line, in the order of the data's rows)."
        )
    _check_labels(path, y)
    return y


def _check_labels(path, y):
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{path}: the labels contain NaN or infinite values.")
    if y.dtype == object and any(v in _MISSING for v in y):
        raise ValueError(f"{path}: some labels are missing (empty cells, NA, ...).")


# -------------------------------------------------------------------- text
def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


#: The delimiters :func:`_detect_delimiter` considers.
_DELIMITERS = ",;\t|"


def _delimiter_name(delimiter):
    return {"\t": "tab", ",": "comma", ";": "semicolon", "|": "bar"}.get(delimiter,
                                                                        repr(delimiter))


def _detect_delimiter(path, default):
    """``default`` when the first two lines split on it alike, else csv.Sniffer's choice."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        lines = [line for _, line in zip(range(20), fh)]
    head = [line for line in lines if line.strip()][:2]
    if not head:
        return default
    counts = [len(next(csv.reader([line], delimiter=default), [])) for line in head]
    if counts[0] > 1 and len(set(counts)) == 1:
        return default
    try:
        return csv.Sniffer().sniff("".join(lines), delimiters=_DELIMITERS).delimiter
    except csv.Error:
        return default


def _unknown_columns(path, asked, names, what):
    missing = [c for c in asked if c not in names]
    if missing:
        raise ValueError(f"{path}: no column(s) {missing} ({what}); the header holds "
                         f"{names[:20]}{' ...' if len(names) > 20 else ''}.")


def _drop_features(path, b, drop):
    """Remove the named features of a Bunch read from a format with feature names."""
    if b.feature_names is None:
        raise ValueError(f"{path}: the file names no features, so drop_columns={drop} cannot "
                         "apply.")
    names = [str(c) for c in b.feature_names]
    _unknown_columns(path, drop, names, "the columns to drop")
    keep = [j for j, c in enumerate(names) if c not in set(drop)]
    if not keep:
        raise ValueError(f"{path}: no feature columns left after dropping {drop}.")
    b.data = b.data[:, keep]
    b.feature_names = np.array([names[j] for j in keep], dtype=object)
    return b


def _read_delimited(path, delimiter, label_column, drop=(), id_column=None):
    _check_text_size(path)
    with open(path, newline="", encoding="utf-8-sig") as fh:
        first = next(csv.reader(fh, delimiter=delimiter), None)
    if not first:
        raise ValueError(f"{path}: the first line is empty; it should be the header or a data row.")
    has_header = not all(_is_number(c) for c in first)
    d = len(first)
    if has_header:
        names = [c.strip() for c in first]
        empty = [j for j, c in enumerate(names) if not c]
        for j in empty:
            names[j] = f"f{j}"
        dup = sorted({c for c in names if names.count(c) > 1})
        if dup:
            raise ValueError(f"{path}: the header repeats the column name(s) {dup}; make them unique.")
    else:
        names = [f"f{j}" for j in range(d)]
    if label_column is not None:
        if not has_header:
            raise ValueError(
                f"{path}: the file has no header row, so label_column={label_column!r} names no "
                "column; add a header or pass the labels as a separate file (--labels)."
            )
        if label_column not in names:
            raise ValueError(
                f"{path}: no column {label_column!r} (the label column asked for); the header "
                f"holds {names[:20]}{' ...' if d > 20 else ''}."
            )
    if (drop or id_column is not None) and not has_header:
        raise ValueError(f"{path}: the file has no header row, so columns to drop or an ID "
                         "column cannot be named; add a header.")
    _unknown_columns(path, drop, names, "the columns to drop")
    if id_column is not None:
        _unknown_columns(path, [id_column], names, "the ID column")
    lab = names.index(label_column) if label_column is not None else None
    skipped = {names.index(c) for c in [*drop, *([id_column] if id_column else [])]}
    cols = [j for j in range(d) if j != lab and j not in skipped]
    if not cols:
        raise ValueError(f"{path}: no feature columns besides the label, ID and dropped "
                         "columns.")
    try:
        with warnings.catch_warnings():  # "input contained no data": refused just below
            warnings.simplefilter("ignore", UserWarning)
            X = np.loadtxt(path, delimiter=delimiter, skiprows=int(has_header), usecols=cols,
                           dtype=np.float64, ndmin=2, quotechar='"', comments=None,
                           encoding="utf-8-sig")
    except ValueError as exc:
        _diagnose_delimited(path, delimiter, has_header, names, cols, exc)
        raise  # pragma: no cover - _diagnose always raises
    if X.shape[0] == 0:
        raise ValueError(f"{path}: a header but no data rows.")
    target = None
    if lab is not None:
        target = _labels_from_strings(_column(path, delimiter, lab, has_header))
        _check_labels(path, target)
    row_ids = None
    if id_column is not None:
        row_ids = np.array([c.strip() for c in _column(path, delimiter, names.index(id_column),
                                                        has_header)], dtype=object)
    return Bunch(data=X, target=target, row_ids=row_ids,
                 feature_names=np.array([names[j] for j in cols], dtype=object))


def _rows(path, delimiter, has_header):
    """(line number, fields) for each non-empty data row."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        if has_header:
            next(reader, None)
        for row in reader:
            if row and any(c.strip() for c in row):
                yield reader.line_num, row


def _column(path, delimiter, j, has_header):
    return [row[j] for _, row in _rows(path, delimiter, has_header)]


def _diagnose_delimited(path, delimiter, has_header, names, cols, exc):
    """Find why np.loadtxt refused the file and raise a ValueError saying so."""
    d = len(names)
    text, missing = {}, {}
    for line, row in _rows(path, delimiter, has_header):
        if len(row) != d:
            raise ValueError(
                f"{path}: line {line} has {len(row)} field(s), the first line has {d}; every row "
                f"needs one value per column ({_delimiter_name(delimiter)}-separated)."
            ) from exc
        for j in cols:
            cell = row[j].strip()
            if cell in _MISSING:
                missing.setdefault(j, line)
            elif j not in text and not _is_number(cell):
                text[j] = (line, cell)
    if text:
        idx = sorted(text)
        line, cell = text[idx[0]]
        others = [c for c in _DELIMITERS if c != delimiter and any(c in n for n in names)]
        hint = ("" if not others else
                f" The header holds {_delimiter_name(others[0])}s ({others[0]!r}): if the file "
                f"is {_delimiter_name(others[0])}-separated, say so (--sep {others[0]!r} / "
                f"sep={others[0]!r}).")
        raise ValueError(
            f"{path}: {_names(names, idx)} {_verb(idx, 'is', 'are')} not numeric (line "
            f"{line} holds {cell[:40]!r}). ufsel selects among numeric features only: drop "
            "(--drop-columns, --id-column) or encode text columns, or name a label column with "
            f"--label-column.{hint}"
        ) from exc
    if missing:
        idx = sorted(missing)
        raise ValueError(
            f"{path}: {_names(names, idx)} {_verb(idx, 'holds', 'hold')} missing values (first at line "
            f"{missing[idx[0]]}); impute or remove them first."
        ) from exc
    raise ValueError(f"{path} could not be read as delimited text: {exc}") from exc


# ------------------------------------------------------------------- NumPy
def _npy_header(fh, path, what):
    from numpy.lib import format as npformat

    try:
        version = npformat.read_magic(fh)
        if version == (1, 0):
            shape, _, dtype = npformat.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, _, dtype = npformat.read_array_header_2_0(fh)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except ValueError as exc:
        raise ValueError(f"{path}: {what} is not a valid .npy array ({exc}).") from exc
    return shape, dtype


def _load_npy_checked(path):
    with open(path, "rb") as fh:
        shape, dtype = _npy_header(fh, path, "the file")
    _numeric_dtype(path, dtype, "the array")
    _check_declared(path, shape, "the array")
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"{path} could not be read as .npy ({exc}); it may be truncated.") from exc


def _as_matrix(path, a, what):
    """A 2-D float64 matrix from an (n, d) array or an (n, h, w) image stack."""
    if a.ndim == 2:
        return Bunch(data=a.astype(np.float64), feature_shape=None, image_order=None)
    if a.ndim == 3:
        return Bunch(data=a.reshape(a.shape[0], -1).astype(np.float64),
                     feature_shape=tuple(a.shape[1:]), image_order="C")
    raise ValueError(
        f"{path}: {what} has shape {a.shape}; expected (n_samples, n_features) or an image "
        "stack (n_samples, height, width)."
    )


def _read_npy(path):
    b = _as_matrix(path, _load_npy_checked(path), "the array")
    return Bunch(target=None, feature_names=None, **b)


_SPARSE_KEYS = {"format", "shape", "data", "indices", "indptr"}


def _read_npz(path, label_column):
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{path} could not be read as .npz (a zip archive of .npy arrays): "
                         f"{exc}.") from exc
    with zf:
        headers = {}
        for member in zf.namelist():
            if not member.endswith(".npy"):
                continue
            try:
                with zf.open(member) as fh:
                    headers[member[:-4]] = _npy_header(fh, path, f"member {member!r}")
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                raise ValueError(f"{path}: member {member!r} is corrupt ({exc}).") from exc
    if not headers:
        raise ValueError(f"{path}: the archive holds no .npy arrays.")
    for key, (shape, _) in headers.items():
        _check_declared(path, shape, f"array {key!r}")
    if _SPARSE_KEYS <= set(headers):  # written by scipy.sparse.save_npz
        return _read_sparse_npz(path, headers, label_column)
    if label_column is not None and label_column not in headers:
        raise ValueError(f"{path}: no array {label_column!r} (the labels asked for); the file "
                         f"holds {sorted(headers)}.")
    lkey = label_column or next((k for k in _LABEL_KEYS if k in headers), None)
    nkey = next((k for k in _NAME_KEYS if k in headers and k != lkey), None)
    dkey = next((k for k in _DATA_KEYS if k in headers and k != lkey), None)
    if dkey is None:
        rest = [k for k in headers if k not in (lkey, nkey)]
        if len(rest) != 1:
            raise ValueError(
                f"{path}: cannot tell which array holds the data: none is named "
                f"{list(_DATA_KEYS)} and the file holds {sorted(headers)}. Save it as "
                "np.savez(file, X=data) (optionally y=labels, feature_names=names)."
            )
        dkey = rest[0]
    _numeric_dtype(path, headers[dkey][1], f"array {dkey!r}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            X = npz[dkey]
            y = npz[lkey] if lkey else None
            names = npz[nkey] if nkey else None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} could not be read as .npz ({exc}).") from exc
    b = _as_matrix(path, X, f"array {dkey!r}")
    if names is not None:
        names = np.asarray(names)
        if names.dtype.kind != "U" or names.shape != (b.data.shape[1],):
            raise ValueError(
                f"{path}: {nkey!r} must be {b.data.shape[1]} strings (one per feature), got "
                f"dtype {names.dtype}, shape {names.shape}."
            )
        names = names.astype(object)
    return Bunch(target=_npz_labels(path, y, lkey, b.data.shape[0]), feature_names=names, **b)


def _npz_labels(path, y, key, n):
    if y is None:
        return None
    y = np.asarray(y)
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"{path}: the labels {key!r} have shape {y.shape}, expected ({n},).")
    return y


def _read_sparse_npz(path, headers, label_column):
    if label_column is not None:
        raise ValueError(f"{path}: a scipy sparse .npz holds no labels; pass them with --labels.")
    _numeric_dtype(path, headers["data"][1], "the sparse matrix")
    try:
        X = sparse.load_npz(path)  # allow_pickle=False inside
        X = sparse.csr_matrix(X)
        X.check_format(full_check=True)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} could not be read as a scipy sparse .npz ({exc}).") from exc
    return Bunch(data=X.astype(np.float64), target=None, feature_names=None)


# ----------------------------------------------------------------- Parquet
def _read_parquet(path, label_column, drop=(), id_column=None):
    from ..utils import import_optional

    pq = import_optional("pyarrow.parquet", purpose="Reading Parquet files")
    import_optional("pandas", purpose="Reading Parquet files")
    try:
        meta = pq.ParquetFile(path).metadata
        _check_declared(path, (meta.num_rows, meta.num_columns))
        df = pq.read_table(path).to_pandas()
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError) and "MAX_DATA_BYTES" in str(exc):
            raise
        raise ValueError(f"{path} could not be read as Parquet ({exc}).") from exc
    names = [str(c) for c in df.columns]
    _unknown_columns(path, drop, names, "the columns to drop")
    row_ids = None
    if id_column is not None:
        _unknown_columns(path, [id_column], names, "the ID column")
        row_ids = np.array([str(v) for v in df[df.columns[names.index(id_column)]]],
                           dtype=object)
        drop = [*drop, id_column]
    df = df.drop(columns=[df.columns[names.index(c)] for c in drop])
    return frame_to_bunch(df, label_column=label_column, source=path), row_ids


def frame_to_bunch(df, *, label_column=None, source="the DataFrame"):
    """Features, labels and names from a pandas DataFrame (numeric columns only)."""
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        dup = sorted({c for c in names if names.count(c) > 1})
        raise ValueError(f"{source}: repeated column name(s) {dup}; make them unique.")
    target = None
    if label_column is not None:
        if label_column not in names:
            raise ValueError(f"{source}: no column {label_column!r} (the label column asked "
                             f"for); the columns are {names[:20]}{' ...' if len(names) > 20 else ''}.")
        col = df[df.columns[names.index(label_column)]]
        if col.isna().any():
            raise ValueError(f"{source}: the label column {label_column!r} has missing values.")
        target = col.to_numpy()
        if target.dtype.kind not in "biuf":
            target = np.array([str(v) for v in target], dtype=object)
        df = df.drop(columns=df.columns[names.index(label_column)])
        names.remove(label_column)
    if not names:
        raise ValueError(f"{source}: no feature columns besides the label column.")
    text = [j for j, t in enumerate(df.dtypes) if not (t.kind in "biuf" or str(t) == "boolean"
                                                       or str(t).startswith(("Int", "UInt", "Float")))]
    if text:
        raise ValueError(
            f"{source}: {_names(names, text)} {_verb(text, 'is', 'are')} not numeric "
            f"(dtype {df.dtypes.iloc[text[0]]}). ufsel selects among numeric features only: drop "
            "or encode text columns, or name a label column with --label-column."
        )
    X = df.to_numpy(dtype=np.float64, na_value=np.nan)
    return Bunch(data=X, target=target, feature_names=np.array(names, dtype=object))


# ---------------------------------------------------------------- svmlight
def _read_svmlight(path):
    from sklearn.datasets import load_svmlight_file

    _check_text_size(path)
    try:
        X, y = load_svmlight_file(str(path), dtype=np.float64, zero_based="auto")
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{path} could not be read as LIBSVM/svmlight ('<label> <index>:<value> ...' per "
            f"line): {exc}"
        ) from exc
    X = sparse.csr_matrix(X)
    X.sort_indices()
    if np.all(np.isfinite(y)) and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    return Bunch(data=X, target=y, feature_names=None)
