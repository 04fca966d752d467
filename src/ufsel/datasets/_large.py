"""Data files too large to read at once: a .npy file by memory map, Parquet by row groups."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.utils import check_random_state

from ..utils import import_optional

__all__ = ["LargeFile", "open_large_file"]

#: Rows per block when a file is read block by block (64 MB of float64 at 100 features).
BLOCK_ROWS = 2**16


class LargeFile:
    """A data file read in row blocks, never whole: a .npy array or a Parquet table.

    A ``.npy`` file is opened as a read-only memory map (only the rows touched
    are read); a Parquet file by its row groups (pyarrow), one group in memory
    at a time. Use :func:`open_large_file` to open one.

    Attributes
    ----------
    path : pathlib.Path
    format : {"npy", "parquet"}
    n_samples, n_features : int
    feature_names : list of str
    """

    def __init__(self, path, format, n_samples, feature_names, *, array=None, parquet=None,
                 columns=None):
        self.path = Path(path)
        self.format = format
        self.n_samples = int(n_samples)
        self.feature_names = list(feature_names)
        self.n_features = len(self.feature_names)
        self._array = array
        self._parquet = parquet
        self._columns = columns

    @property
    def shape(self):
        return (self.n_samples, self.n_features)

    def _row_groups(self):
        """``(first row, number of rows)`` of each Parquet row group."""
        meta = self._parquet.metadata
        start = 0
        for g in range(meta.num_row_groups):
            rows = meta.row_group(g).num_rows
            yield g, start, rows
            start += rows

    def _read_group(self, g, dtype):
        table = self._parquet.read_row_group(g, columns=self._columns)
        return np.column_stack([np.asarray(table.column(c).to_numpy(zero_copy_only=False),
                                           dtype=dtype) for c in self._columns])

    def blocks(self, *, dtype=np.float64, block_rows=BLOCK_ROWS):
        """Yield ``(start, block)``: consecutive row blocks of the data in ``dtype``.

        A .npy file in blocks of ``block_rows`` rows; a Parquet file by row group.
        """
        if self.format == "npy":
            for start in range(0, self.n_samples, block_rows):
                yield start, np.asarray(self._array[start:start + block_rows], dtype=dtype)
        else:
            for g, start, _ in self._row_groups():
                yield start, self._read_group(g, dtype)

    def sample_rows(self, n_rows, *, dtype=np.float64, random_state=None):
        """A uniform random sample of ``n_rows`` rows (all rows when there are fewer),
        in file order, and their indices."""
        rng = check_random_state(random_state)
        n = self.n_samples
        idx = (np.arange(n) if n_rows >= n
               else np.sort(rng.choice(n, int(n_rows), replace=False)))
        if self.format == "npy":
            return np.asarray(self._array[idx], dtype=dtype), idx
        parts = []
        for g, start, rows in self._row_groups():
            lo, hi = np.searchsorted(idx, [start, start + rows])
            if hi > lo:
                parts.append(self._read_group(g, dtype)[idx[lo:hi] - start])
        return np.vstack(parts), idx

    def to_numpy(self, *, dtype=np.float32, progress=None):
        """The whole data in one array of ``dtype``, filled block by block (no other
        copy of the data is held). ``progress(rows_done)`` is called after each block."""
        X = np.empty(self.shape, dtype=dtype)
        for start, block in self.blocks(dtype=dtype):
            X[start:start + block.shape[0]] = block
            if progress is not None:
                progress(start + block.shape[0])
        return X

    def to_dask(self, *, dtype=np.float32, block_rows=BLOCK_ROWS):
        """A dask array of the data, one task per block (each reads its rows only)."""
        da = import_optional("dask.array", purpose="a dask array of a large file")
        dask = import_optional("dask", purpose="a dask array of a large file")
        read = dask.delayed(_read_block, pure=True)
        parts = []
        if self.format == "npy":
            spans = [(s, min(block_rows, self.n_samples - s))
                     for s in range(0, self.n_samples, block_rows)]
            for start, rows in spans:
                parts.append(da.from_delayed(
                    read(str(self.path), "npy", start, rows, None, np.dtype(dtype).str),
                    shape=(rows, self.n_features), dtype=dtype))
        else:
            for g, _, rows in self._row_groups():
                parts.append(da.from_delayed(
                    read(str(self.path), "parquet", g, rows, self._columns,
                         np.dtype(dtype).str),
                    shape=(rows, self.n_features), dtype=dtype))
        return da.concatenate(parts, axis=0)


def _read_block(path, format, where, rows, columns, dtype):
    """One block of a file, read on its own (a dask task; nothing shared with the caller)."""
    if format == "npy":
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
        return np.asarray(arr[where:where + rows], dtype=dtype)
    pq = import_optional("pyarrow.parquet", purpose="Reading Parquet files")
    table = pq.ParquetFile(path).read_row_group(where, columns=columns)
    return np.column_stack([np.asarray(table.column(c).to_numpy(zero_copy_only=False),
                                       dtype=dtype) for c in columns])


def open_large_file(path, *, format=None, drop_columns=()):
    """Open a .npy or Parquet data file for block-wise reading (:class:`LargeFile`).

    Parameters
    ----------
    path : str or path-like
    format : {"npy", "parquet"}, optional
        Taken from the extension when None.
    drop_columns : sequence of str, default=()
        Parquet columns that are not features (labels, IDs).

    Returns
    -------
    LargeFile
    """
    path = Path(path)
    fmt = format or {".npy": "npy", ".parquet": "parquet", ".pq": "parquet"}.get(
        path.suffix.lower())
    if fmt not in ("npy", "parquet"):
        raise ValueError(f"{path}: large files are read from .npy or Parquet, not "
                         f"{path.suffix or 'a file without extension'}.")
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    if fmt == "npy":
        try:
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{path} could not be read as .npy ({exc}).") from exc
        if arr.ndim != 2 or arr.dtype.kind not in "fiub":
            raise ValueError(f"{path}: expected a 2-D numeric array, got shape {arr.shape} "
                             f"of {arr.dtype}.")
        return LargeFile(path, "npy", arr.shape[0], [str(j) for j in range(arr.shape[1])],
                         array=arr)
    pq = import_optional("pyarrow.parquet", purpose="Reading Parquet files")
    try:
        pf = pq.ParquetFile(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} could not be read as Parquet ({exc}).") from exc
    names = list(pf.schema_arrow.names)
    unknown = [c for c in drop_columns if c not in names]
    if unknown:
        raise ValueError(f"{path}: no column {unknown[0]!r} to drop.")
    columns = [c for c in names if c not in set(drop_columns)]
    import pyarrow as pa

    bad = [c for c in columns
           if not (pa.types.is_integer(pf.schema_arrow.field(c).type)
                   or pa.types.is_floating(pf.schema_arrow.field(c).type)
                   or pa.types.is_boolean(pf.schema_arrow.field(c).type))]
    if bad:
        raise ValueError(f"{path}: column {bad[0]!r} is not numeric; drop it with "
                         "--drop-columns.")
    return LargeFile(path, "parquet", pf.metadata.num_rows, columns, parquet=pf,
                     columns=columns)
