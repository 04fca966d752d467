"""Loading the benchmark ``.mat`` files and the built-in scikit-learn sets.

The benchmark files follow several key conventions (``fea``/``gnd``,
``X``/``Y``, ``M``/``L``, ``data``/``label`` image stacks, ``data``/``target``
one-hot, ``x``/``y`` and ``DAT``/``labels`` stored d x n); the reader detects
them (see the benchmark data sets' notes that come with the files). A user's ``.mat`` file needs no
label variable (``target`` is then None) and may name its only numeric
matrix as it likes. Other file formats are read by :mod:`._readers`, and
:func:`~ufsel.datasets.load_dataset` (:mod:`._load`) dispatches to both. Files
are read with :func:`scipy.io.loadmat` only: nothing is ever unpickled.

Files are treated as untrusted input: the header is checked first (MATLAB
v7.3 / HDF5 files are named as such); the element tree of a v5 file is
walked before scipy parses it (scipy's compiled reader crashes the
interpreter on some corrupt element types; compressed variables may expand
to at most ``MAX_MAT_BYTES``), which also lists the variables; only the two
chosen variables are loaded; a variable declaring more than
``MAX_MAT_BYTES`` is refused before any allocation; sparse index arrays are
checked before any conversion; and every failure of the parser (truncated or
corrupt files raise many exception types inside scipy) becomes a
``ValueError`` naming the file. A data set *name* is resolved only inside
the data directory.
"""

from __future__ import annotations

import os
import re
import struct
import warnings
import zlib
from pathlib import Path

import numpy as np
from scipy import io, sparse
from sklearn.utils import Bunch

__all__ = ["list_datasets", "load_mat", "DATA_ENV"]

#: Environment variable naming the benchmark data directory.
DATA_ENV = "UFSEL_DATA"

#: Data keys, in order of preference.
_DATA_KEYS = ("fea", "X", "M", "data", "DAT", "x")
#: Label keys, in order of preference.
_LABEL_KEYS = ("gnd", "Y", "L", "label", "labels", "target", "y")

#: Image geometry of the known image data sets: (height, width) and the
#: memory order in which a row unflattens into an image.
IMAGE_SHAPES = {
    "coil20": ((32, 32), "F"), "orl": ((32, 32), "F"), "yale": ((32, 32), "F"),
    "yaleb": ((32, 32), "F"), "jaffe": ((32, 32), "F"), "umist": ((28, 23), "F"),
    "pie": ((32, 32), "F"), "imm40": ((32, 32), "F"), "ar": ((55, 40), "F"),
    "warppie10p": ((55, 44), "F"), "warpar10p": ((60, 40), "F"), "usps": ((16, 16), "C"),
    "palm": ((16, 16), "F"), "mnist4k": ((28, 28), "C"), "mnist10k": ((28, 28), "C"),
    "digits": ((8, 8), "C"),
}

BUILTIN = ("digits", "wine", "breast_cancer", "iris")

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")

#: A .mat variable declaring more bytes than this (dense, 8 bytes per value)
#: is refused before it is read: a corrupt or hostile header cannot make the
#: loader allocate unbounded memory.
MAX_MAT_BYTES = 8 * 1024**3

_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _data_dir(data_dir):
    """The data directory (argument, else ``$UFSEL_DATA``), which must be a folder when set.

    A wrong directory is an error, never a silent fall-back to the built-in
    copies of scikit-learn.
    """
    if data_dir is not None:
        ddir, what = Path(data_dir), "data_dir"
    else:
        env = os.environ.get(DATA_ENV)
        if not env:
            return None
        ddir, what = Path(env), DATA_ENV
    if not ddir.is_dir():
        raise ValueError(
            f"{what}={str(ddir)!r} is not a folder. Point it at the folder holding the "
            f".mat files{'' if what == 'data_dir' else f', or unset {DATA_ENV}'}."
        )
    return ddir


def _env_dir_exists():
    """Whether ``$UFSEL_DATA`` names an existing folder (False when unset)."""
    env = os.environ.get(DATA_ENV)
    return bool(env) and Path(env).is_dir()


def _load_builtin(name):
    from sklearn import datasets as skd

    loader = getattr(skd, f"load_{name}")
    b = loader()
    shape = IMAGE_SHAPES.get(name)
    return Bunch(data=np.asarray(b.data, dtype=np.float64), target=np.asarray(b.target),
                 name=name, feature_shape=shape[0] if shape else None,
                 image_order=shape[1] if shape else None,
                 feature_names=np.array([str(f) for f in b.feature_names], dtype=object),
                 source=f"sklearn.datasets.load_{name}", format="sklearn")


def _pick(keys, candidates, what, path):
    for k in candidates:
        if k in keys:
            return k
    raise ValueError(
        f"{path}: no {what} variable found. Looked for {list(candidates)}, the file holds "
        f"{sorted(keys)}. Rename the variables or load the file yourself and pass the arrays."
    )


def _pick_data(info, path):
    """The data variable: a conventional name, else the file's only numeric matrix."""
    for k in _DATA_KEYS:
        if k in info:
            return k
    # class 0: a MAT v4 variable (numeric or text, unknown before loading)
    matrices = [k for k, (shape, cls) in info.items()
                if k not in _LABEL_KEYS and (cls in _NUMERIC_CLASSES - {4} or cls in (0, _MX_SPARSE))
                and len(shape) in (2, 3) and min(shape) > 1]
    if len(matrices) == 1:
        return matrices[0]
    return _pick(set(info), _DATA_KEYS, "data", path)


def _pick_labels(info, label_variable, path):
    """The label variable: ``label_variable`` if given, else a conventional name, else None."""
    if label_variable is not None:
        if label_variable not in info:
            raise ValueError(
                f"{path}: no variable {label_variable!r} (the label variable asked for); "
                f"the file holds {sorted(info)}."
            )
        return label_variable
    return next((k for k in _LABEL_KEYS if k in info), None)


def _as_labels(lab, path):
    lab = lab.toarray() if sparse.issparse(lab) else np.asarray(lab)
    if lab.dtype == object or lab.dtype.kind not in "biuf":
        raise ValueError(f"{path}: the label variable is not numeric (dtype {lab.dtype}).")
    if lab.ndim > 2:
        raise ValueError(f"{path}: the label variable has {lab.ndim} dimensions, expected 1 or 2.")
    if lab.ndim == 2 and min(lab.shape) > 1:
        # one-hot n x c (or c x n) target
        onehot = lab if lab.shape[0] >= lab.shape[1] else lab.T
        if not (np.isin(onehot, (0, 1)).all() and (onehot.sum(axis=1) == 1).all()):
            raise ValueError(
                f"{path}: the 2-D label variable of shape {lab.shape} is not a one-hot matrix."
            )
        return np.argmax(onehot, axis=1) + 1
    lab = lab.ravel()
    if lab.dtype.kind == "f":
        if not np.all(np.isfinite(lab)):
            raise ValueError(f"{path}: the labels contain NaN or infinite values.")
        if np.all(lab == np.round(lab)) and np.all(np.abs(lab) < 2**53):
            lab = lab.astype(np.int64)
    return lab


def _v73_error(path):
    return ValueError(
        f"{path} is a MATLAB v7.3 (HDF5) file, which scipy cannot read. Re-save it in "
        "MATLAB with save(..., '-v7'), or read it with h5py and pass the arrays."
    )


def _corrupt_error(path, exc):
    return ValueError(
        f"{path} could not be read as a MATLAB .mat file ({type(exc).__name__}: {exc}). "
        "The file may be truncated or corrupt; download it again."
    )


def _sniff(path):
    """Refuse HDF5 (v7.3) files by their header before scipy parses them."""
    with open(path, "rb") as fh:
        head = fh.read(520)
    if not head:
        raise ValueError(f"{path} is empty (0 bytes); download it again.")
    v73 = len(head) >= 128 and head[124:126] in (b"\x00\x02", b"\x02\x00") \
        and head[126:128] in (b"IM", b"MI")
    if v73 or head.startswith(_HDF5_SIGNATURE) or head[512:520] == _HDF5_SIGNATURE:
        raise _v73_error(path)


#: MAT v5 data element types (miINT8 .. miUTF32; 8, 10 and 11 are reserved).
_MI_TYPES = frozenset({1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 14, 15, 16, 17, 18})
_MI_MATRIX, _MI_COMPRESSED = 14, 15


def _elements(buf, pos, end, endian, path):
    """Yield ``(type, start, stop, next)`` for the data elements in ``buf[pos:end]``."""
    while pos < end:
        if end - pos < 8:
            if not any(buf[pos:end]):
                return  # trailing padding
            raise ValueError(f"{path}: truncated data element at byte {pos}; the file is corrupt.")
        tag, nbytes = struct.unpack_from(endian + "II", buf, pos)
        if tag >> 16:  # small data element: type and size packed in 4 bytes
            if (tag & 0xFFFF) not in _MI_TYPES or tag >> 16 > 4:
                raise ValueError(f"{path}: invalid small data element at byte {pos}; the file is corrupt.")
            yield tag & 0xFFFF, pos + 4, pos + 4 + (tag >> 16), pos + 8
            pos += 8
            continue
        if tag not in _MI_TYPES:
            raise ValueError(f"{path}: unknown data element type {tag} at byte {pos}; the file is corrupt.")
        start, stop = pos + 8, pos + 8 + nbytes
        if stop > end:
            raise ValueError(
                f"{path}: a data element at byte {pos} claims {nbytes} bytes but only "
                f"{end - start} remain; the file is truncated or corrupt."
            )
        pos = stop + (-nbytes % 8 if tag != _MI_COMPRESSED else 0)
        yield tag, start, stop, pos


#: mxCHAR_CLASS and the numeric classes mxDOUBLE .. mxUINT64.
_NUMERIC_CLASSES = frozenset({4, *range(6, 16)})
_MX_CELL, _MX_STRUCT, _MX_OBJECT, _MX_SPARSE, _MX_FUNCTION, _MX_OPAQUE = 1, 2, 3, 5, 16, 17
_DATA_TYPES = _MI_TYPES - {_MI_MATRIX, _MI_COMPRESSED}


def _matrix(buf, start, stop, endian, path, depth):
    """Validate one miMATRIX element (recursively) and return ``(name, dims, class)``.

    Besides known element types, the contents must match the header: a
    numeric or char array holds its real part (and its imaginary part when
    the complex flag is set), a sparse array ir, jc and pr (and pi), a cell
    or struct at least one nested matrix per element (and field). scipy's
    reader otherwise reads the next variable's bytes as data and may crash.
    """
    if depth > 32:
        raise ValueError(f"{path}: variables nested more than 32 levels deep; the file is corrupt.")
    els = list(_elements(buf, start, stop, endian, path))
    bad = ValueError(f"{path}: a variable header is malformed; the file is corrupt.")
    if not els or els[0][0] != 6 or els[0][2] - els[0][1] < 4:
        raise bad
    flags = struct.unpack_from(endian + "I", buf, els[0][1])[0]
    cls, is_complex = flags & 0xFF, bool(flags & 0x800)
    if cls == _MX_OPAQUE:  # MATLAB objects: flags, name, then opaque contents
        if len(els) < 2 or els[1][0] not in (1, 2):
            raise bad
        name, dims, rest = bytes(buf[els[1][1]:els[1][2]]).decode("latin-1"), (), els[2:]
    else:
        if len(els) < 3 or els[1][0] != 5 or (els[1][2] - els[1][1]) % 4 or els[2][0] not in (1, 2):
            raise bad
        dims = tuple(int(v) for v in np.frombuffer(buf[els[1][1]:els[1][2]], dtype=endian + "i4"))
        if any(v < 0 for v in dims):
            raise bad
        name, rest = bytes(buf[els[2][1]:els[2][2]]).decode("latin-1"), els[3:]
    count = int(np.prod(dims, dtype=object)) if dims else 0
    if cls in _NUMERIC_CLASSES or cls == _MX_SPARSE:
        need = (3 if cls == _MX_SPARSE else 1) + is_complex
        if len(rest) < need or any(t not in _DATA_TYPES for t, *_ in rest[:need]):
            raise ValueError(
                f"{path}: variable {name!r} lacks its data elements (class {cls}"
                f"{', complex' if is_complex else ''}); the file is corrupt."
            )
        return name, dims, cls
    if cls == _MX_CELL:
        nested = rest
    elif cls in (_MX_STRUCT, _MX_OBJECT):
        skip = 1 if cls == _MX_OBJECT else 0  # class name
        if len(rest) < skip + 2 or rest[skip][0] not in (5, 6) or rest[skip + 1][0] not in (1, 2):
            raise bad
        flen = struct.unpack_from(endian + "i", buf, rest[skip][1])[0]
        nbytes = rest[skip + 1][2] - rest[skip + 1][1]
        if flen <= 0 or nbytes % flen:
            raise bad
        count *= nbytes // flen
        nested = rest[skip + 2:]
    elif cls in (_MX_FUNCTION, _MX_OPAQUE):
        nested, count = [e for e in rest if e[0] == _MI_MATRIX], 0
    else:
        raise ValueError(f"{path}: variable {name!r} has unknown class {cls}; the file is corrupt.")
    if len(nested) < count or any(t != _MI_MATRIX for t, *_ in nested):
        raise ValueError(f"{path}: variable {name!r} lacks nested elements; the file is corrupt.")
    for _, a, b, _ in nested:
        _matrix(buf, a, b, endian, path, depth + 1)
    return name, dims, cls


def _walk_v5(buf, pos, end, endian, path, budget, table, compressed=False):
    """Check the element tree of a MAT v5 stream before scipy parses it.

    scipy's compiled reader trusts the element types, sizes and flags it
    finds; a corrupt type (for example 2057 where miDOUBLE = 9 belongs) or a
    complex flag without an imaginary part makes it read outside its buffers
    and crash the interpreter. Every element must have a known type and fit
    inside its container, and every matrix must hold what its header
    announces (:func:`_matrix`); compressed elements are decompressed (at
    most ``budget[0]`` bytes in all, so a compression bomb cannot exhaust
    memory) and checked too. The header of each variable (name, dims, class)
    is appended to ``table``.
    """
    for tag, start, stop, _ in _elements(buf, pos, end, endian, path):
        if tag == _MI_MATRIX:
            table.append(_matrix(buf, start, stop, endian, path, 0))
        elif tag == _MI_COMPRESSED and not compressed:
            try:
                inner = zlib.decompressobj().decompress(bytes(buf[start:stop]), budget[0] + 1)
            except zlib.error as exc:
                raise ValueError(f"{path}: corrupt compressed variable ({exc}).") from exc
            budget[0] -= len(inner)
            if budget[0] < 0:
                raise ValueError(
                    f"{path}: the compressed variables expand beyond the limit of "
                    f"{MAX_MAT_BYTES / 1024**3:.3g} GiB (ufsel.datasets._loaders.MAX_MAT_BYTES)."
                )
            _walk_v5(inner, 0, len(inner), endian, path, budget, table, compressed=True)
        else:
            raise ValueError(f"{path}: unexpected element type {tag} at top level; the file is corrupt.")


def _v5_table(path):
    """Validate a MAT v5 file and list its variables as ``(name, dims, class code)``.

    Returns None for files without a v5 header (v4), which are left to scipy.
    """
    with open(path, "rb") as fh:
        buf = fh.read()
    if len(buf) < 128 or buf[126:128] not in (b"IM", b"MI"):
        return None
    endian = "<" if buf[126:128] == b"IM" else ">"
    table = []
    _walk_v5(memoryview(buf), 128, len(buf), endian, path, [MAX_MAT_BYTES], table)
    return table


def _check_declared_size(path, var, shape, cls, max_bytes):
    if cls == 5:  # mxSPARSE_CLASS: the dims are the dense shape; the data are nnz values
        return
    n = 1
    for dim in shape:
        n *= int(dim)
    if n * 8 > max_bytes:
        raise ValueError(
            f"{path}: variable {var!r} declares shape {tuple(shape)} ({n * 8 / 1024**3:.3g} GiB "
            f"as float64), above the limit of {max_bytes / 1024**3:.3g} GiB. The file is "
            "corrupt, or raise ufsel.datasets._loaders.MAX_MAT_BYTES to load it."
        )


def load_mat(path, *, name=None, label_variable=None):
    """Read one ``.mat`` file into a Bunch (see :func:`load_dataset`).

    The data variable is the first of ``fea, X, M, data, DAT, x`` present,
    else the file's only numeric matrix. The label variable is
    ``label_variable`` when given, else the first of ``gnd, Y, L, label,
    labels, target, y`` present; a file without one is read with
    ``target=None`` (labels are never needed to select features). With
    labels, data stored d x n are recognised by the number of labels and
    transposed; without labels the rows are taken as the samples.

    Raises ``FileNotFoundError`` when ``path`` is not a regular file and a
    ``ValueError`` naming the file and the problem for anything else: an
    empty, truncated or corrupt file, a v7.3 (HDF5) file, no recognisable
    data variable, non-numeric or non-finite values, labels whose
    number does not match the data, a variable declaring more than
    ``MAX_MAT_BYTES``. Only the data and label variables are loaded, with
    :func:`scipy.io.loadmat` (which never unpickles).

    Parameters
    ----------
    path : str or path
        The ``.mat`` file.
    name : str or None, default=None
        The data set's name in the Bunch; None: the file's stem.
    label_variable : str or None, default=None
        The variable holding the labels; None: the first of the usual names
        present.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No data file at {path}.")
    _sniff(path)
    table = _v5_table(path)
    if table is None:  # MAT v4
        try:
            table = [(var, shape, 5 if cls == "sparse" else 0)
                     for var, shape, cls in io.whosmat(str(path))]
        except Exception as exc:  # truncated / corrupt files raise many types
            raise _corrupt_error(path, exc) from exc
    info = {var: (shape, cls) for var, shape, cls in table}
    dkey = _pick_data(info, path)
    lkey = _pick_labels(info, label_variable, path)
    if lkey == dkey:
        raise ValueError(f"{path}: the label variable {lkey!r} is also the data variable.")
    wanted = [dkey] if lkey is None else [dkey, lkey]
    for var in wanted:
        _check_declared_size(path, var, *info[var], MAX_MAT_BYTES)
    try:
        with warnings.catch_warnings():
            # scipy warns, and goes on, when a header is inconsistent ("returned
            # data may be corrupt"): treat that as the corrupt file it is
            warnings.simplefilter("error")
            mat = io.loadmat(str(path), variable_names=wanted)
    except NotImplementedError as exc:  # v7.3
        raise _v73_error(path) from exc
    except Exception as exc:  # truncated / corrupt files raise many types
        raise _corrupt_error(path, exc) from exc
    missing = [k for k in wanted if k not in mat]
    if missing:  # listed by the header walk but not returned by scipy: corrupt
        raise ValueError(f"{path}: the variable(s) {missing} could not be read; the file is corrupt.")
    data = mat[dkey]
    feature_shape = None
    if sparse.issparse(data):
        try:  # out-of-range indices would crash the compiled conversions below
            data.check_format(full_check=True)
        except ValueError as exc:
            raise ValueError(f"{path}: the sparse variable {dkey!r} is corrupt ({exc}).") from exc
        data = sparse.csr_matrix(data, dtype=np.float64)
    else:
        data = np.asarray(data)
        if data.dtype == object or data.dtype.kind not in "biuf":
            raise ValueError(f"{path}: the data variable {dkey!r} is not numeric (dtype {data.dtype}).")
        if data.ndim == 3:  # h x w x n image stack, MATLAB column-major
            feature_shape = data.shape[:2]
            data = data.reshape(-1, data.shape[2], order="F").T
        if data.ndim != 2:
            raise ValueError(f"{path}: the data variable {dkey!r} has {data.ndim} dimensions, expected 2.")
        data = data.astype(np.float64)
    target = None if lkey is None else _as_labels(mat[lkey], path)
    n = data.shape[0] if target is None else target.shape[0]
    if data.shape[0] != n:
        if data.shape[1] == n:  # stored d x n
            data = data.T.tocsr() if sparse.issparse(data) else np.ascontiguousarray(data.T)
        else:
            raise ValueError(
                f"{path}: {n} labels do not match the data of shape {data.shape} (neither "
                "dimension equals the number of labels)."
            )
    if data.shape[0] == 0 or data.shape[1] == 0:
        raise ValueError(f"{path}: the data variable {dkey!r} is empty (shape {data.shape}).")
    values = data.data if sparse.issparse(data) else data
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"{path}: the data contain NaN or infinite values; impute or remove them and "
            "save the file again, or load it yourself."
        )
    name = name or path.stem
    shape, order = IMAGE_SHAPES.get(name, (feature_shape, "F" if feature_shape else None))
    if shape is not None and int(np.prod(shape)) != data.shape[1]:
        shape, order = None, None
    return Bunch(data=data, target=target, name=name, feature_shape=shape, image_order=order,
                 feature_names=default_feature_names(data.shape[1]), source=str(path),
                 format="mat")


def default_feature_names(n_features):
    """``f0, f1, ...``: the names of features a file does not name."""
    return np.array([f"f{j}" for j in range(n_features)], dtype=object)


def list_datasets(data_dir=None):
    """The data sets available: built-ins and every ``.mat`` file in the data directory.

    Parameters
    ----------
    data_dir : str, path or None, default=None
        The directory of ``.mat`` files; None reads it from the ``UFSEL_DATA``
        environment variable.

    Returns
    -------
    list of dict
        ``name``, ``n_samples``, ``n_features``, ``n_classes`` (None for a
        file without labels), ``source``.
    """
    out = {}
    ddir = _data_dir(data_dir)
    if ddir is not None:
        for f in sorted(ddir.glob("*.mat")):
            try:
                b = load_mat(f, name=f.stem.lower())
            except (ValueError, OSError):
                continue
            out[b.name] = _summary(b, str(f))
    for name in BUILTIN:
        if name not in out:
            b = _load_builtin(name)
            out[name] = _summary(b, b.source)
    return sorted(out.values(), key=lambda r: r["name"])


def _summary(b, source):
    return {"name": b.name, "n_samples": b.data.shape[0], "n_features": b.data.shape[1],
            "n_classes": None if b.target is None else int(np.unique(b.target).size),
            "source": source}
