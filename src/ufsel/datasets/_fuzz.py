"""Seed files and byte mutations for fuzzing the ``.mat`` loader.

Used by ``tests/test_datasets_untrusted.py`` (a short hypothesis run in CI)
and ``benchmarks/tools/fuzz_loader.py`` (a long run). Not part of the public API.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
from scipy import io, sparse

from ._loaders import DATA_ENV, load_mat

__all__ = ["write_seed_files", "copy_real_files", "mutate", "check_outcome", "REAL_SEEDS"]

#: The smallest real benchmark files, copied (never moved into the repository)
#: to a temporary directory and mutated.
REAL_SEEDS = ("ecoli.mat", "wine.mat", "lung_discrete.mat")


def write_seed_files(folder):
    """Small valid .mat files covering the loader's branches; returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.RandomState(0)
    X = rng.standard_normal((12, 5))
    y = np.arange(12) % 3 + 1
    specs = {
        "fea_gnd_v5.mat": ({"fea": X, "gnd": y[:, None].astype(float)}, "5", False),
        "fea_gnd_v5z.mat": ({"fea": X, "gnd": y[:, None].astype(float)}, "5", True),
        "x_y_v4.mat": ({"X": X, "Y": y[:, None].astype(float)}, "4", False),
        "sparse_v5.mat": ({"X": sparse.csc_matrix(np.where(X > 0.5, X, 0.0)),
                           "Y": y[:, None].astype(float)}, "5", False),
        "onehot_v5.mat": ({"data": X, "target": np.eye(3)[y - 1]}, "5", False),
        "dxn_v5.mat": ({"DAT": X.T.copy(), "labels": y[None, :].astype(float)}, "5", False),
        "stack_v5.mat": ({"data": rng.rand(4, 3, 12), "label": y[:, None]}, "5", False),
    }
    paths = []
    for fname, (variables, fmt, compress) in specs.items():
        p = folder / fname
        io.savemat(p, variables, format=fmt, do_compression=compress)
        paths.append(p)
    return paths


def copy_real_files(folder, data_dir=None):
    """Copy the small real benchmark files (if present) into ``folder``; returns the copies."""
    src = Path(data_dir or os.environ.get(DATA_ENV, "") or "/nonexistent")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in REAL_SEEDS:
        f = src / name
        if f.is_file():
            dst = folder / name
            shutil.copyfile(f, dst)
            dst.chmod(0o644)
            out.append(dst)
    return out


def mutate(blob, ops):
    """Apply byte-level mutations to ``blob``.

    ``ops`` is a sequence of ``(kind, position, value)`` with position a
    fraction in [0, 1) of the current length: ``"set"`` replaces one byte,
    ``"flip"`` xors a bit, ``"truncate"`` cuts the file, ``"insert"`` inserts
    bytes, ``"delete"`` removes up to ``value`` bytes, ``"dup"`` repeats a
    chunk, ``"int32"`` overwrites 4 bytes with a (possibly huge) integer.
    """
    b = bytearray(blob)
    for kind, frac, value in ops:
        if not b and kind != "insert":
            continue
        i = min(int(frac * len(b)), max(len(b) - 1, 0))
        if kind == "set":
            b[i] = value & 0xFF
        elif kind == "flip":
            b[i] ^= 1 << (value % 8)
        elif kind == "truncate":
            del b[i:]
        elif kind == "insert":
            b[i:i] = bytes([value & 0xFF]) * (1 + value % 7)
        elif kind == "delete":
            del b[i:i + 1 + value % 16]
        elif kind == "dup":
            b[i:i] = b[i:i + 1 + value % 64]
        elif kind == "int32":
            b[i:i + 4] = int(value % 2**32).to_bytes(4, "little")
        else:  # pragma: no cover
            raise ValueError(f"unknown mutation {kind!r}")
    return bytes(b)


def check_outcome(path):
    """Load ``path``; return "ok" or "ValueError", raise AssertionError on anything else.

    A successful load must satisfy the loader's contract: 2-D float64 data
    (dense or CSR) with at least one sample and feature, all finite, and one
    label per sample when the file holds labels.
    """
    try:
        b = load_mat(path)
    except ValueError as exc:
        assert str(path) in str(exc), f"error does not name the file: {exc}"
        return "ValueError"
    data = b.data
    assert data.ndim == 2 and data.dtype == np.float64, (data.shape, data.dtype)
    assert data.shape[0] >= 1 and data.shape[1] >= 1
    values = data.data if sparse.issparse(data) else data
    assert np.all(np.isfinite(values))
    if b.target is not None:  # labels are optional
        assert b.target.ndim == 1 and b.target.shape[0] == data.shape[0]
    return "ok"
