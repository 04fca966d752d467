"""Reading and writing a user's data files (ufsel.datasets.read_data / write_data)."""

import os
import stat
import sys

import numpy as np
import pytest
from scipy import io, sparse

from ufsel.datasets import FORMATS, _readers, load_dataset, read_data, read_labels, write_data
from ufsel.utils import atomic_open, atomic_write_text

RNG = np.random.RandomState(0)
X = RNG.standard_normal((7, 4)) * [1, 10, 1e-3, 1e6]
NAMES = ["alpha", "beta gamma", "c,d", "delta"]
Y_TEXT = np.array(["a", "b", "a", "c", "b", "a", "c"], dtype=object)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


# ------------------------------------------------------------------ CSV / TSV
def test_csv_header_names_and_exact_values(tmp_path):
    p = tmp_path / "d.csv"
    lines = [",".join(f'"{n}"' if "," in n else n for n in NAMES)]
    lines += [",".join(repr(float(v)) for v in row) for row in X]
    p.write_text("\n".join(lines) + "\n")
    b = read_data(p)
    np.testing.assert_array_equal(b.data, X)
    assert list(b.feature_names) == NAMES
    assert b.target is None and b.format == "csv" and b.name == "d"


def test_tsv_and_csv_without_header(tmp_path):
    p = tmp_path / "d.tsv"
    p.write_text("\n".join("\t".join(repr(float(v)) for v in row) for row in X))
    b = read_data(p)
    np.testing.assert_array_equal(b.data, X)  # the first row is data, not a header
    assert list(b.feature_names) == ["f0", "f1", "f2", "f3"]
    q = tmp_path / "d.txt"
    q.write_text("x,y\n1,2\n3,4\n")
    np.testing.assert_array_equal(read_data(q, format="csv").data, [[1, 2], [3, 4]])


def test_csv_label_column_is_not_a_feature(tmp_path):
    p = tmp_path / "d.csv"
    rows = [f"{float(X[i, 0])!r},{Y_TEXT[i]},{float(X[i, 1])!r}" for i in range(7)]
    p.write_text("u,species,v\n" + "\n".join(rows) + "\n")
    b = read_data(p, label_column="species")
    np.testing.assert_array_equal(b.data, X[:, :2])
    assert list(b.feature_names) == ["u", "v"]
    assert list(b.target) == list(Y_TEXT)
    with pytest.raises(ValueError, match=r"'species' is not numeric \(line 2 holds 'a'\)"):
        read_data(p)
    with pytest.raises(ValueError, match="no column 'kind'"):
        read_data(p, label_column="kind")


def test_csv_missing_values_and_ragged_rows_are_named(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("a,b,c\n1,2,3\n4,,6\n7,NA,9\n")
    with pytest.raises(ValueError, match=r"column 'b' holds missing values \(first at line 3\)"):
        read_data(p)
    p.write_text("a,b,c\n1,2,3\n4,nan,inf\n")  # parsed, then refused as non-finite
    with pytest.raises(ValueError, match=r"columns 'b', 'c' hold missing or non-finite"):
        read_data(p)
    p.write_text("a,b\n1,2\n3\n")
    with pytest.raises(ValueError, match="line 3 has 1 field"):
        read_data(p)
    p.write_text("a,b\n")
    with pytest.raises(ValueError, match="no data rows"):
        read_data(p)
    p.write_text("")
    with pytest.raises(ValueError, match="empty"):
        read_data(p)


# --------------------------------------------------------------------- NumPy
def test_npy_matrix_image_stack_and_refusals(tmp_path, monkeypatch):
    np.save(tmp_path / "x.npy", X)
    b = read_data(tmp_path / "x.npy")
    np.testing.assert_array_equal(b.data, X)
    assert list(b.feature_names) == ["f0", "f1", "f2", "f3"]
    stack = RNG.rand(5, 3, 2)
    np.save(tmp_path / "s.npy", stack)
    b = read_data(tmp_path / "s.npy")
    assert b.data.shape == (5, 6) and b.feature_shape == (3, 2) and b.image_order == "C"
    np.testing.assert_array_equal(b.data[1], stack[1].ravel(order="C"))
    np.save(tmp_path / "o.npy", np.array([[1, "a"]], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="never unpickles"):
        read_data(tmp_path / "o.npy")
    monkeypatch.setattr(_readers, "MAX_DATA_BYTES", 100)
    with pytest.raises(ValueError, match="MAX_DATA_BYTES"):
        read_data(tmp_path / "x.npy")  # 7 x 4 x 8 bytes > 100, refused before reading


def test_npz_dense_sparse_and_ambiguous(tmp_path):
    y = np.arange(7) % 3
    np.savez(tmp_path / "a.npz", X=X, y=y, feature_names=np.array(NAMES))
    b = read_data(tmp_path / "a.npz")
    np.testing.assert_array_equal(b.data, X)
    np.testing.assert_array_equal(b.target, y)
    assert list(b.feature_names) == NAMES
    np.savez(tmp_path / "one.npz", whatever=X)  # a single array is the data
    np.testing.assert_array_equal(read_data(tmp_path / "one.npz").data, X)
    np.savez(tmp_path / "two.npz", p=X, q=X)
    with pytest.raises(ValueError, match="cannot tell which array"):
        read_data(tmp_path / "two.npz")
    S = sparse.random(9, 30, density=0.1, format="csr", random_state=0)
    sparse.save_npz(tmp_path / "s.npz", S)
    b = read_data(tmp_path / "s.npz")
    assert sparse.issparse(b.data) and b.data.format == "csr"
    np.testing.assert_array_equal(b.data.toarray(), S.toarray())
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="could not be read as .npz"):
        read_data(tmp_path / "bad.npz")


# ------------------------------------------------------------------- Parquet
def test_parquet_names_labels_and_text_columns(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = pd.DataFrame(X, columns=NAMES)
    df["kind"] = Y_TEXT
    df.to_parquet(tmp_path / "d.parquet")
    b = read_data(tmp_path / "d.parquet", label_column="kind")
    np.testing.assert_array_equal(b.data, X)
    assert list(b.feature_names) == NAMES and list(b.target) == list(Y_TEXT)
    with pytest.raises(ValueError, match="column 'kind' is not numeric"):
        read_data(tmp_path / "d.parquet")


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    (tmp_path / "d.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # import fails
    with pytest.raises(ImportError, match=r"pip install 'ufsel\[parquet\]'"):
        read_data(tmp_path / "d.parquet")


# ------------------------------------------------------------- svmlight, mat
def test_svmlight_stays_sparse(tmp_path):
    p = tmp_path / "d.svm"
    p.write_text("1 1:0.5 3:2\n-1 2:1.5\n1 3:-1 4:7\n")  # one-based, LIBSVM style
    b = read_data(p)
    assert sparse.issparse(b.data) and b.data.shape == (3, 4)
    np.testing.assert_array_equal(b.data.toarray(), [[0.5, 0, 2, 0], [0, 1.5, 0, 0],
                                                     [0, 0, -1, 7]])
    np.testing.assert_array_equal(b.target, [1, -1, 1])
    p.write_text("1 a:b\n")
    with pytest.raises(ValueError, match="LIBSVM/svmlight"):
        read_data(p)


def test_mat_without_labels_and_named_label_variable(tmp_path):
    io.savemat(tmp_path / "u.mat", {"fea": X})
    b = read_data(tmp_path / "u.mat")
    np.testing.assert_array_equal(b.data, X)
    assert b.target is None and b.format == "mat"
    io.savemat(tmp_path / "l.mat", {"fea": X, "classes": np.arange(7.0)[:, None]})
    assert read_data(tmp_path / "l.mat").target is None  # unconventional name: not guessed
    np.testing.assert_array_equal(read_data(tmp_path / "l.mat", label_column="classes").target,
                                  np.arange(7))


# ------------------------------------------------------------ routing, labels
def test_unknown_format_names_the_readable_ones(tmp_path):
    p = tmp_path / "d.xlsx"
    p.write_bytes(b"PK")
    with pytest.raises(ValueError, match=r"cannot tell the format.*csv \(.csv\).*svmlight") as e:
        read_data(p)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="format='excel' not understood"):
        read_data(p, format="excel")
    with pytest.raises(FileNotFoundError):
        read_data(tmp_path / "missing.csv")
    assert set(FORMATS) == {"csv", "tsv", "npy", "npz", "parquet", "svmlight", "mat", "h5ad"}


def test_load_dataset_routes_paths_and_refuses_wrong_data_dirs(tmp_path, monkeypatch):
    np.save(tmp_path / "x.npy", X)
    np.testing.assert_array_equal(load_dataset(str(tmp_path / "x.npy")).data, X)
    with pytest.raises(ValueError, match="is not a folder"):
        load_dataset("wine", data_dir=tmp_path / "nope")  # no silent scikit-learn fall-back
    monkeypatch.setenv("UFSEL_DATA", str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="UFSEL_DATA=.* is not a folder"):
        load_dataset("coil20")
    # a built-in name needs no folder, whatever UFSEL_DATA says
    assert load_dataset("wine").data.shape == (178, 13)


def test_read_labels(tmp_path):
    p = tmp_path / "y.txt"
    p.write_text("class\ncat\ndog\ncat\n\n")
    assert list(read_labels(p, 3)) == ["cat", "dog", "cat"]  # header dropped, blank ignored
    p.write_text("1\n2\n2\n")
    np.testing.assert_array_equal(read_labels(p, 3), [1, 2, 2])
    with pytest.raises(ValueError, match="3 labels for 4 samples"):
        read_labels(p, 4)
    np.save(tmp_path / "y.npy", np.array([0.0, 1.0]))
    np.testing.assert_array_equal(read_labels(tmp_path / "y.npy", 2), [0.0, 1.0])


# ------------------------------------------------------------------- writing
@pytest.mark.parametrize("ext", ["csv", "tsv", "npy", "npz", "parquet", "svm", "mat"])
def test_write_data_round_trip(tmp_path, ext, umask022):
    if ext == "parquet":
        pytest.importorskip("pyarrow")
    y = np.arange(7) % 3
    p = tmp_path / f"out.{ext}"
    write_data(p, X, feature_names=NAMES, target=y)
    kw = {"label_column": "label"} if ext in ("csv", "tsv", "parquet") else {}
    b = read_data(p, **kw)
    np.testing.assert_array_equal(b.data.toarray() if sparse.issparse(b.data) else b.data, X)
    if ext in ("csv", "tsv", "npz", "parquet"):
        assert list(b.feature_names) == NAMES
    if ext != "npy":
        np.testing.assert_array_equal(b.target, y)
    assert _mode(p) == 0o644
    assert [f.name for f in tmp_path.iterdir()] == [p.name]  # no temporary file left


def test_write_sparse_npz_and_mat_stay_sparse(tmp_path):
    S = sparse.random(6, 5, density=0.3, format="csr", random_state=1)
    for ext in ("npz", "mat", "svm"):
        write_data(tmp_path / f"s.{ext}", S)
        b = read_data(tmp_path / f"s.{ext}")
        assert sparse.issparse(b.data)
        # svmlight: the number of features is the largest index present
        np.testing.assert_array_equal(b.data.toarray(), S.toarray()[:, :b.data.shape[1]])


# ------------------------------------------------------------ atomic writes
def test_atomic_writes_follow_the_umask_and_leave_nothing_on_failure(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
        assert _mode(tmp_path / "a.txt") == 0o644  # mkstemp alone would give 0600
        os.umask(0o077)
        atomic_write_text(tmp_path / "b.txt", "x")
        assert _mode(tmp_path / "b.txt") == 0o600
    finally:
        os.umask(old)
    (tmp_path / "c.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_open(tmp_path / "c.txt") as fh:
        fh.write("new, half written")
        raise KeyboardInterrupt
    assert (tmp_path / "c.txt").read_text() == "old"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["a.txt", "b.txt", "c.txt"]
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path, "x")


# ------------------------------------------- columns that are not features, delimiters
IDS = np.array([f"id{i}" for i in range(X.shape[0])], dtype=object)


@pytest.mark.parametrize("ext", ["csv", "tsv", "parquet"])
def test_row_ids_round_trip_and_dropped_columns(tmp_path, ext):
    if ext == "parquet":
        pytest.importorskip("pyarrow")
        pytest.importorskip("pandas")
    p = write_data(tmp_path / f"x.{ext}", X, feature_names=NAMES, target=Y_TEXT,
                   row_ids=IDS, id_name="sample")
    b = read_data(p, id_column="sample", label_column="label", drop_columns=["beta gamma"])
    assert list(b.row_ids) == list(IDS) and list(b.target) == list(Y_TEXT)
    assert list(b.feature_names) == ["alpha", "c,d", "delta"]
    np.testing.assert_array_equal(b.data, X[:, [0, 2, 3]])
    assert read_data(p, drop_columns=["sample", "label"]).row_ids is None
    with pytest.raises(ValueError, match=r"no column\(s\) \['nope'\] \(the columns to drop\)"):
        read_data(p, id_column="sample", drop_columns=["nope", "label"])
    with pytest.raises(ValueError, match="named twice"):
        read_data(p, id_column="sample", drop_columns=["sample"])


def test_ids_and_sep_are_refused_where_they_cannot_apply(tmp_path):
    p = write_data(tmp_path / "x.npy", X)
    with pytest.raises(ValueError, match="id_column applies to CSV/TSV/Parquet"):
        read_data(p, id_column="a")
    with pytest.raises(ValueError, match="sep applies to CSV/TSV"):
        read_data(p, sep=";")
    with pytest.raises(ValueError, match="room for row identifiers"):
        write_data(tmp_path / "y.npz", X, row_ids=IDS)
    # a named feature of an .npz can be dropped
    z = write_data(tmp_path / "z.npz", X, feature_names=NAMES)
    assert list(read_data(z, drop_columns=["delta"]).feature_names) == NAMES[:3]


def test_delimiter_detection_keeps_the_extension_when_it_fits(tmp_path):
    # commas inside quoted names and ';' inside a name do not fool the detection
    p = tmp_path / "q.csv"
    p.write_text('"a;b","c,d",e\n1,2,3\n4,5,6\n')
    b = read_data(p)
    assert list(b.feature_names) == ["a;b", "c,d", "e"] and b.delimiter == ","
    # a one-column file stays one column
    one = tmp_path / "one.csv"
    one.write_text("x\n1.5\n2.5\n")
    assert read_data(one).data.shape == (2, 1)
    semi = tmp_path / "s.csv"
    semi.write_text("a;b;c\n1,5;2;3\n")  # decimal commas: ';'-separated, text cells named
    with pytest.raises(ValueError, match="column 'a' is not numeric"):
        read_data(semi)
    assert read_data(semi, sep=";", drop_columns=["a"]).data.tolist() == [[2.0, 3.0]]
