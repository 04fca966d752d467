"""The .mat loader treats files and data set names as untrusted input.

Every malformed file gives a ``ValueError`` naming the file (a missing file a
``FileNotFoundError``), a data set name never leaves the data directory, and
nothing is ever unpickled. The loader is fuzzed with hypothesis on mutated
copies of small valid files: synthetic ones written here, plus the smallest
real benchmark files when ``UFSEL_DATA`` points at them (copied to a
temporary directory, never into the repository). ``benchmarks/tools/fuzz_loader.py``
runs the same fuzzing for longer.
"""

from __future__ import annotations

import os
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import io, sparse

from ufsel.datasets import _loaders, list_datasets, load_dataset, load_mat
from ufsel.datasets._fuzz import check_outcome, copy_real_files, mutate, write_seed_files

#: Examples of the CI fuzz test (the benchmark script runs many more).
_FUZZ_EXAMPLES = int(os.environ.get("UFSEL_FUZZ_EXAMPLES", "120"))


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("seeds")
    return write_seed_files(folder) + copy_real_files(folder / "real")


@pytest.fixture(autouse=True)
def no_unpickling(monkeypatch):
    """Any attempt to unpickle during a test fails it."""

    def refuse(*args, **kwargs):
        raise AssertionError("the loader tried to unpickle")

    for attr in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, attr, refuse)
    monkeypatch.setattr(np, "load", refuse)


def _write(tmp_path, name, blob):
    p = tmp_path / name
    p.write_bytes(blob)
    return p


def _savemat(tmp_path, name, variables, **kw):
    p = tmp_path / name
    io.savemat(p, variables, **kw)
    return p


# ------------------------------------------------------------ valid files
def test_seed_files_load(seeds):
    for p in seeds:
        assert check_outcome(p) == "ok", p
    b = load_mat(next(p for p in seeds if p.name == "dxn_v5.mat"))
    assert b.data.shape == (12, 5)  # stored d x n, transposed back
    b = load_mat(next(p for p in seeds if p.name == "onehot_v5.mat"))
    assert set(b.target) == {1, 2, 3}
    b = load_mat(next(p for p in seeds if p.name == "sparse_v5.mat"))
    assert sparse.issparse(b.data) and b.data.format == "csr"


# --------------------------------------------------------- broken files
@pytest.mark.parametrize("keep", [0, 1, 64, 127, 128, 129, 200, 0.5, -8, -1])
def test_truncated(tmp_path, seeds, keep):
    for src in seeds:
        blob = src.read_bytes()
        n = int(keep * len(blob)) if isinstance(keep, float) else (
            len(blob) + keep if keep < 0 else keep)
        p = _write(tmp_path, src.name, blob[:n])
        outcome = check_outcome(p)  # ValueError, or a consistent load
        if n < 128:
            assert outcome == "ValueError"


def test_empty_and_garbage(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        load_mat(_write(tmp_path, "empty.mat", b""))
    rng = np.random.RandomState(0)
    for i in range(5):
        p = _write(tmp_path, f"garbage{i}.mat", rng.bytes(int(rng.randint(1, 4000))))
        with pytest.raises(ValueError, match="garbage"):
            load_mat(p)
    text = _write(tmp_path, "text.mat", b"fea = [1 2 3];\ngnd = [1 1 2];\n" * 10)
    with pytest.raises(ValueError, match="text.mat"):
        load_mat(text)


def test_not_a_regular_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_mat(tmp_path / "missing.mat")
    (tmp_path / "dir.mat").mkdir()
    with pytest.raises(FileNotFoundError):
        load_mat(tmp_path / "dir.mat")


def test_no_recognisable_keys(tmp_path):
    # two unconventionally named matrices: which one is the data is not guessed
    p = _savemat(tmp_path, "nokeys.mat", {"foo": np.ones((3, 2)), "bar": np.ones((3, 4))})
    with pytest.raises(ValueError, match=r"no data variable.*'bar', 'foo'"):
        load_mat(p)
    # labels are optional: a file without a label variable has target None
    p = _savemat(tmp_path, "nolabels.mat", {"fea": np.arange(6.0).reshape(3, 2)})
    b = load_mat(p)
    assert b.target is None and b.data.shape == (3, 2)


def test_label_length_mismatch(tmp_path):
    p = _savemat(tmp_path, "mismatch.mat", {"fea": np.ones((5, 3)), "gnd": np.arange(4.0)})
    with pytest.raises(ValueError, match="4 labels do not match the data of shape"):
        load_mat(p)


@pytest.mark.parametrize(
    ("variables", "match"),
    [
        ({"fea": np.array(["ab", "cd"]), "gnd": np.ones(2)}, "not numeric"),
        ({"fea": np.ones((3, 2)), "gnd": np.array(["a", "b", "c"])}, "not numeric"),
        ({"fea": np.ones((3, 2)) + 1j, "gnd": np.ones(3)}, "not numeric"),
        ({"fea": np.array([[1.0, np.nan], [2.0, 3.0]]), "gnd": np.ones(2)}, "NaN"),
        ({"fea": np.array([[1.0, np.inf], [2.0, 3.0]]), "gnd": np.ones(2)}, "NaN or infinite"),
        ({"X": sparse.csc_matrix(np.array([[1.0, np.nan], [0.0, 3.0]])), "Y": np.ones(2)},
         "NaN"),
        ({"fea": np.ones((2, 2)), "gnd": np.array([1.0, np.nan])}, "labels contain NaN"),
        ({"fea": np.ones((0, 3)), "gnd": np.ones((0, 1))}, "empty"),
        ({"fea": np.ones((2, 2, 2, 2)), "gnd": np.ones(2)}, "dimensions"),
        ({"data": np.ones((4, 3)), "target": np.full((4, 3), 0.5)}, "not a one-hot"),
        ({"fea": np.ones((3, 2)), "gnd": np.ones((3, 2, 2))}, "label variable has 3"),
    ],
)
def test_malformed_variables(tmp_path, variables, match):
    p = _savemat(tmp_path, "bad.mat", variables)
    with pytest.raises(ValueError, match=match):
        load_mat(p)


def test_cell_and_struct_variables(tmp_path):
    cell = np.empty((2,), dtype=object)
    cell[0], cell[1] = np.ones(3), "text"
    p = _savemat(tmp_path, "cell.mat", {"fea": cell, "gnd": np.ones(2)})
    with pytest.raises(ValueError, match="not numeric"):
        load_mat(p)
    p = _savemat(tmp_path, "struct.mat", {"fea": {"a": np.ones(3)}, "gnd": np.ones(1)})
    with pytest.raises(ValueError, match="cell|struct|not numeric|dimensions"):
        load_mat(p)


def _v73_header():
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Sat Nov 21 00:00:00 2026 HDF5 schema 1.00 ."
    return text.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM"


def test_v73_header_bytes(tmp_path):
    p = _write(tmp_path, "v73.mat", _v73_header().ljust(512, b"\x00") + b"\x89HDF\r\n\x1a\n"
               + b"\x00" * 64)
    with pytest.raises(ValueError, match="v7.3"):
        load_mat(p)
    p = _write(tmp_path, "plain.mat", b"\x89HDF\r\n\x1a\n" + b"\x00" * 600)
    with pytest.raises(ValueError, match="HDF5"):
        load_mat(p)


def test_v73_made_with_h5py(tmp_path):
    h5py = pytest.importorskip("h5py")
    p = tmp_path / "v73real.mat"
    with h5py.File(p, "w", userblock_size=512) as f:
        f["fea"] = np.ones((3, 4))
        f["gnd"] = np.arange(4.0)
    with open(p, "r+b") as fh:  # MATLAB writes its 128-byte header into the user block
        fh.write(_v73_header())
    with pytest.raises(ValueError, match="v7.3"):
        load_mat(p)


def test_declared_size_limit(tmp_path, monkeypatch):
    """A header declaring a huge variable is refused before anything is allocated."""
    p = _savemat(tmp_path, "big.mat", {"fea": np.ones((4, 3)), "gnd": np.ones(4)})
    blob = bytearray(p.read_bytes())
    dims = np.array([4, 3], "<i4").tobytes()
    i = blob.index(dims)
    blob[i:i + 8] = np.array([4, 2**30], "<i4").tobytes()  # 32 GiB as float64
    p.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="declares shape"):
        load_mat(p)
    p2 = _savemat(tmp_path, "small.mat", {"fea": np.ones((40, 30)), "gnd": np.ones(40)})
    monkeypatch.setattr(_loaders, "MAX_MAT_BYTES", 1000)
    with pytest.raises(ValueError, match="MAX_MAT_BYTES"):
        load_mat(p2)


# ------------------------------------------------------------- names
@pytest.mark.parametrize(
    "name", ["../../x", "..", "../wine", "a/b", "/etc/passwd", "..\\..\\x", "x\x00y", "",
             "~root", "wine/../../x", " wine", "$HOME"])
def test_names_never_leave_the_data_dir(tmp_path, name):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    secret = tmp_path / "x.mat"  # outside the data dir
    io.savemat(secret, {"fea": np.ones((3, 2)), "gnd": np.ones(3)})
    io.savemat(tmp_path / "wine.mat", {"fea": np.ones((3, 2)), "gnd": np.ones(3)})
    with pytest.raises(ValueError, match="not a valid data set name"):
        load_dataset(name, data_dir=data_dir)


def test_paths_are_explicit(tmp_path, monkeypatch):
    p = _savemat(tmp_path, "mine.mat", {"fea": np.ones((3, 2)) * [[1], [2], [3]],
                                        "gnd": np.ones(3)})
    assert load_dataset(str(p)).data.shape == (3, 2)  # a string ending in .mat
    assert load_dataset(Path(p)).data.shape == (3, 2)  # a PathLike
    with pytest.raises(FileNotFoundError):
        load_dataset(str(tmp_path / "nope.mat"))
    data_dir = tmp_path / "d"
    data_dir.mkdir()
    monkeypatch.delenv("UFSEL_DATA", raising=False)
    with pytest.raises(ValueError, match="not found"):
        load_dataset("mine", data_dir=data_dir)  # names only look inside data_dir
    with pytest.raises(ValueError, match="valid options"):
        load_dataset("sklearn:../../x")


def test_list_datasets_skips_broken_files(tmp_path):
    io.savemat(tmp_path / "good.mat", {"fea": np.ones((3, 2)) * [[1], [2], [3]],
                                       "gnd": np.arange(3.0)})
    (tmp_path / "broken.mat").write_bytes(b"MATLAB 5.0 MAT-file" + b"\x00" * 20)
    (tmp_path / "v73.mat").write_bytes(_v73_header())
    names = {r["name"] for r in list_datasets(tmp_path)}
    assert "good" in names and "broken" not in names and "v73" not in names


# ------------------------------------------------------------- fuzzing
_OPS = st.tuples(
    st.sampled_from(["set", "flip", "truncate", "insert", "delete", "dup", "int32"]),
    st.floats(0.0, 1.0, exclude_max=True),
    st.integers(0, 2**32 - 1),
)


@settings(max_examples=_FUZZ_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(which=st.integers(0, 10**6), ops=st.lists(_OPS, min_size=1, max_size=6))
def test_fuzz_load_mat(tmp_path, seeds, which, ops):
    """Mutated copies of valid files: a ValueError naming the file, or a load that
    honours the loader's contract; never another exception, never unpickling."""
    src = seeds[which % len(seeds)]
    p = _write(tmp_path, "fuzz.mat", mutate(src.read_bytes(), ops))
    check_outcome(p)


def _sparse_blob(tmp_path):
    X = sparse.csc_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [4.0, 0.0, 5.0]]))
    p = _savemat(tmp_path, "sp.mat", {"X": X, "Y": np.ones(3)}, do_compression=False)
    return bytearray(p.read_bytes()), X.nnz


def test_unknown_element_type_does_not_crash(tmp_path):
    """Regression: scipy's reader crashed the interpreter (SIGSEGV / SIGBUS) on a
    sparse variable whose miDOUBLE data tag was corrupted (found by fuzzing)."""
    blob, nnz = _sparse_blob(tmp_path)
    i = blob.find(struct.pack("<II", 9, 8 * nnz))
    assert i > 0
    blob[i:i + 4] = struct.pack("<I", 2057)
    with pytest.raises(ValueError, match="unknown data element type 2057"):
        load_mat(_write(tmp_path, "crash.mat", bytes(blob)))


def test_sparse_indices_out_of_range(tmp_path):
    blob, nnz = _sparse_blob(tmp_path)
    i = blob.find(struct.pack("<II", 5, 4 * nnz))  # the row-index array ir
    assert i > 0
    blob[i + 8:i + 12] = struct.pack("<i", 10**6)
    with pytest.raises(ValueError, match="corrupt"):
        load_mat(_write(tmp_path, "badidx.mat", bytes(blob)))


def test_compression_bomb_refused(tmp_path, monkeypatch):
    p = _savemat(tmp_path, "z.mat", {"fea": np.zeros((300, 200)), "gnd": np.ones(300)},
                 do_compression=True)
    assert p.stat().st_size < 10_000  # 480 kB of zeros compress to a few kB
    monkeypatch.setattr(_loaders, "MAX_MAT_BYTES", 100_000)
    with pytest.raises(ValueError, match="expand beyond the limit"):
        load_mat(p)


def test_complex_flag_without_imaginary_part(tmp_path):
    """Regression (fuzzing, 2 crashes in 30,000 mutations after the type check): a
    complex flag set on a real matrix made scipy read the next variable as the
    imaginary part and segfault."""
    p = _savemat(tmp_path, "c.mat", {"fea": np.ones((4, 3)), "gnd": np.ones(4)})
    blob = bytearray(p.read_bytes())
    i = blob.find(struct.pack("<IIII", 6, 8, 6, 0))  # array flags of 'fea': class double
    assert i > 0
    blob[i + 8:i + 12] = struct.pack("<I", 6 | 0x800)  # + complex
    with pytest.raises(ValueError, match="lacks its data elements"):
        load_mat(_write(tmp_path, "cplx.mat", bytes(blob)))


def test_nested_cells_and_structs_are_walked(tmp_path):
    cell = np.empty((1, 2), dtype=object)
    cell[0, 0], cell[0, 1] = np.ones(3), {"a": np.arange(2.0), "b": "text"}
    p = _savemat(tmp_path, "nested.mat", {"fea": np.ones((3, 2)) * [[1], [2], [3]],
                                          "gnd": np.ones(3), "extra": cell})
    assert load_mat(p).data.shape == (3, 2)  # extra variables are validated, not loaded
