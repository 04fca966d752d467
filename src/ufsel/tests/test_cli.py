import csv
import json
import os
import stat
import subprocess
import sys

import numpy as np
import pytest
from scipy import io

from ufsel.cli import _select as cli_select
from ufsel.cli import build_parser, main
from ufsel.datasets import make_planted_clusters, read_data

N_INF, N_NOISE, K = 4, 8, 3


@pytest.fixture(scope="module")
def planted():
    X, y, informative = make_planted_clusters(90, N_INF, N_NOISE, K, random_state=0)
    names = [f"g{j}" for j in range(X.shape[1])]
    return X, y, np.asarray(informative), names


@pytest.fixture
def csv_file(tmp_path, planted):
    """A CSV of unlabeled data with a header, as a user would have it."""
    X, _, _, names = planted
    p = tmp_path / "cells.csv"
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerows([repr(float(v)) for v in row] for row in X)
    return p


@pytest.fixture
def labelled_csv(tmp_path, planted):
    X, y, _, names = planted
    p = tmp_path / "cells_labelled.csv"
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["kind", *names])
        w.writerows([f"type{y[i]}", *(repr(float(v)) for v in X[i])] for i in range(len(y)))
    return p


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _select(tmp_path, data, *extra, out="rank.csv"):
    return main(["select", "--data", str(data), "--method", "mcfs", "--n-clusters", str(K),
                 "--n-features", str(N_INF), "--param", "n_neighbors=5",
                 "--out", str(tmp_path / out), *extra])


def test_csv_without_labels_named_ranking_sidecar_and_transform(tmp_path, csv_file, planted,
                                                                 capsys, umask022):
    X, _, _, names = planted
    assert _select(tmp_path, csv_file, "--transform-out", str(tmp_path / "sel.csv")) == 0
    out = capsys.readouterr().out
    assert "MCFS(" in out and "n_clusters=3" in out and "n_neighbors=5" in out
    rows = _rows(tmp_path / "rank.csv")
    assert [r["rank"] for r in rows] == [str(i) for i in range(1, X.shape[1] + 1)]
    assert all(r["name"] == names[int(r["feature"])] for r in rows)
    # the CLI runs exactly what the Python API runs, with the parameters it printed
    from ufsel import MCFS

    api = MCFS(n_clusters=K, n_neighbors=5, n_features_to_select=N_INF, random_state=0).fit(X)
    assert [int(r["rank"]) for r in sorted(rows, key=lambda r: int(r["feature"]))] == \
        list(api.ranking_)
    assert [float(r["score"]) for r in sorted(rows, key=lambda r: int(r["feature"]))] == \
        list(api.scores_)
    chosen = sorted(int(r["feature"]) for r in rows if r["selected"] == "True")
    assert chosen == list(np.flatnonzero(api.get_support()))
    # the selected columns, by name, in the input's format
    b = read_data(tmp_path / "sel.csv")
    assert sorted(b.feature_names) == sorted(names[j] for j in chosen)
    np.testing.assert_array_equal(b.data, X[:, [names.index(c) for c in b.feature_names]])
    meta = json.loads((tmp_path / "rank.csv.json").read_text())
    assert meta["method"] == "MCFS" and meta["parameters"]["n_clusters"] == K
    assert meta["parameters"]["n_neighbors"] == 5 and meta["parameters"]["random_state"] == 0
    assert meta["input"] == {"path": str(csv_file), "format": "csv", "n_samples": 90,
                             "n_features": N_INF + N_NOISE, "labels": None, "id_column": None,
                             "dropped_columns": []}
    # a named method gets the automatic route's label-free verdict, printed and recorded
    from ufsel.model_selection import AutoSelector

    auto = AutoSelector(n_features_to_select=4, methods=["mcfs"], choice="criterion",
                        candidate_n_clusters="estimate", method_params={"n_neighbors": 5},
                        n_clusters=K, n_resamples=0, random_state=0).fit(X)
    v = auto.verdict_
    assert v.summary().strip() in out and meta["verdict"] == v.summary()
    assert meta["beats_random"] is v.beats_random and v.held_out
    assert meta["verdict_details"]["p_value"] == v.p_value
    assert meta["verdict_details"]["stability"] is None  # not asked for
    assert meta["constant_features"] == [] and all(r["constant"] == "False" for r in rows)
    assert [f["name"] for f in meta["selected_features"]] == list(b.feature_names)
    assert meta["n_features_selected"] == N_INF and meta["evaluation_with_labels"] is None
    assert meta["ufsel_version"] and meta["timing_s"]["total_s"] >= meta["timing_s"]["select_s"]
    for f in ("rank.csv", "rank.csv.json", "sel.csv"):
        assert stat.S_IMODE(os.stat(tmp_path / f).st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["cells.csv", "rank.csv", "rank.csv.json", "sel.csv"])  # no temporary files


def test_labels_only_evaluate(tmp_path, csv_file, labelled_csv, capsys):
    """The same selection with and without labels; with them an evaluation says so."""
    assert _select(tmp_path, csv_file, out="plain.csv") == 0
    capsys.readouterr()
    assert _select(tmp_path, labelled_csv, "--label-column", "kind", out="lab.csv") == 0
    out = capsys.readouterr().out
    plain, lab = _rows(tmp_path / "plain.csv"), _rows(tmp_path / "lab.csv")
    assert [(r["name"], r["rank"], r["score"]) for r in plain] == \
        [(r["name"], r["rank"], r["score"]) for r in lab]
    assert "Evaluation WITH LABELS (--label-column kind; never used to select)" in out
    assert f"K = {K} classes" in out and "random 4-feature subsets" in out
    ev = json.loads((tmp_path / "lab.csv.json").read_text())["evaluation_with_labels"]
    assert ev["n_classes"] == K
    # planted clusters: the selected features cluster far better than random subsets
    assert ev["selected"]["acc_mean"] > ev["random_subsets"]["acc_mean"] + 0.1
    labels = tmp_path / "y.txt"
    labels.write_text("\n".join(f"type{v}" for v in planted_labels(labelled_csv)) + "\n")
    assert _select(tmp_path, csv_file, "--labels", str(labels), out="ext.csv") == 0
    assert "Evaluation WITH LABELS (--labels" in capsys.readouterr().out


def planted_labels(path):
    return [r["kind"][4:] for r in _rows(path)]


def test_fraction_of_features(tmp_path, csv_file, capsys):
    assert main(["select", "--data", str(csv_file), "--method", "maxvariance", "--n-features",
                 "0.5", "--out", str(tmp_path / "r.csv")]) == 0
    assert "n_features_to_select=6 [fraction 0.5 of 12]" in capsys.readouterr().out
    assert sum(r["selected"] == "True" for r in _rows(tmp_path / "r.csv")) == 6


@pytest.mark.parametrize("ext", ["npy", "npz", "parquet", "svm", "mat", "tsv"])
def test_transform_out_round_trip(tmp_path, csv_file, planted, ext):
    if ext == "parquet":
        pytest.importorskip("pyarrow")
    X, _, _, names = planted
    target = tmp_path / f"sel.{ext}"
    assert _select(tmp_path, csv_file, "--transform-out", str(target)) == 0
    chosen = [int(r["feature"]) for r in _rows(tmp_path / "rank.csv") if r["selected"] == "True"]
    b = read_data(target)
    data = b.data.toarray() if hasattr(b.data, "toarray") else b.data
    np.testing.assert_array_equal(data, X[:, chosen])  # in rank order
    if ext in ("npz", "parquet", "tsv"):
        assert list(b.feature_names) == [names[j] for j in chosen]


def test_transform_out_defaults_to_the_input_format(tmp_path, planted):
    X = planted[0]
    io.savemat(tmp_path / "u.mat", {"X": X})  # no label variable
    assert _select(tmp_path, tmp_path / "u.mat", "--transform-out", str(tmp_path / "sel")) == 0
    b = read_data(tmp_path / "sel", format="mat")
    assert b.data.shape == (90, N_INF) and b.target is None


def test_select_on_named_dataset(tmp_path, capsys):
    rc = main(["select", "--method", "mcfs", "--dataset", "digits", "--n-features", "10",
               "--n-clusters", "10", "--param", "n_neighbors=5", "--out", str(tmp_path / "r.csv")])
    assert rc == 0
    rows = _rows(tmp_path / "r.csv")
    assert len(rows) == 64 and sum(r["selected"] == "True" for r in rows) == 10
    assert rows[0]["name"].startswith("pixel_")
    assert "10 of 64 features selected" in capsys.readouterr().out


def _one_line_error(capsys, argv, match):
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert match in err, err


@pytest.mark.parametrize("case", ["out_folder", "param_no_eq", "unknown_param", "data_dir",
                                  "missing_file", "text_column", "format", "bad_count",
                                  "no_clusters", "both_inputs"])
def test_select_errors_are_one_line(tmp_path, labelled_csv, capsys, case):
    base = ["select", "--data", str(labelled_csv), "--method", "mcfs", "--n-features", "3",
            "--n-clusters", "3", "--out", str(tmp_path / "r.csv")]
    argv, match = {
        "out_folder": (base[:-1] + [str(tmp_path)], "is a folder"),
        "param_no_eq": (base + ["--label-column", "kind", "--param", "n_neighbors"],
                        "is not KEY=VALUE"),
        "unknown_param": (base + ["--param", "bogus=1"], "MCFS has no parameter(s) ['bogus']"),
        "data_dir": (["select", "--dataset", "wine", "--data-dir", str(tmp_path / "nope"),
                      "--method", "maxvariance", "--n-features", "3"], "is not a folder"),
        "missing_file": (["select", "--data", str(tmp_path / "nope.csv"), "--n-features", "3",
                          "--method", "maxvariance"], "nope.csv: not found"),
        "text_column": (base, "column 'kind' is not numeric"),
        "format": (["select", "--data", str(tmp_path / "x.xls"), "--method", "maxvariance",
                    "--n-features", "3"], "ufsel reads csv (.csv)"),
        "bad_count": (base[:-4] + ["--n-features", "1.5"], "is not a count"),
        "no_clusters": (["select", "--data", str(labelled_csv), "--method", "maxvariance",
                         "--n-clusters", "3", "--n-features", "3"], "has no n_clusters"),
        "both_inputs": (base + ["--dataset", "wine"], "exactly one of --data"),
    }[case]
    if case == "format":
        (tmp_path / "x.xls").write_bytes(b"x")
    _one_line_error(capsys, argv, match)
    assert not (tmp_path / "r.csv").exists()


def test_other_subcommands_errors_are_one_line(tmp_path, capsys, monkeypatch):
    _one_line_error(capsys, ["datasets", "--data-dir", str(tmp_path / "nope")], "not a folder")
    monkeypatch.setenv("UFSEL_DATA", str(tmp_path / "nope"))
    _one_line_error(capsys, ["datasets"], "UFSEL_DATA=")
    monkeypatch.delenv("UFSEL_DATA")
    _one_line_error(capsys, ["report", str(tmp_path / "nope")], "")
    _one_line_error(capsys, ["nonsense"], "invalid choice")


def test_ctrl_c_exits_130_in_one_line(tmp_path, csv_file, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_select, "_select", interrupted)
    assert _select(tmp_path, csv_file) == 130
    err = capsys.readouterr().err
    assert err == "ufsel select: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cells.csv"]  # nothing half-written


def test_console_script_on_unlabeled_csv(tmp_path, csv_file):
    """The real process: exit status, stdout, nothing on stderr."""
    r = subprocess.run([sys.executable, "-m", "ufsel.cli", "select", "--data", str(csv_file),
                        "--method", "laplacianscore", "--n-features", "3",
                        "--out", str(tmp_path / "r.csv")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "3 of 12 features selected" in r.stdout and r.stderr == ""
    r = subprocess.run([sys.executable, "-m", "ufsel.cli", "select", "--data",
                        str(tmp_path / "missing.csv"), "--method", "maxvariance",
                        "--n-features", "3"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_datasets_lists_builtins_and_unlabeled_files(tmp_path, capsys):
    io.savemat(tmp_path / "mine.mat", {"X": np.ones((5, 3)) * np.arange(5)[:, None]})
    assert main(["datasets", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "digits" in out and "1797" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("mine"))
    assert line.split()[:4] == ["mine", "5", "3", "-"]  # no labels: no class count


def test_n_clusters_auto_is_label_free_and_printed(tmp_path, csv_file, planted, capsys):
    """No --n-clusters: estimated from the data alone, said so, recorded; labels change nothing."""
    from ufsel.model_selection import estimate_n_clusters

    K_est = estimate_n_clusters(planted[0], random_state=0)
    labels = tmp_path / "y.txt"
    labels.write_text("".join(f"{i % 7}\n" for i in range(90)))  # 7 classes, not K_est
    for out, extra in (("r.csv", []), ("l.csv", ["--labels", str(labels)])):
        rc = main(["select", "--data", str(csv_file), "--method", "mcfs", "--n-features", "4",
                   "--out", str(tmp_path / out), *extra])
        assert rc == 0
        assert f"n_clusters={K_est} [auto: eigengap]" in capsys.readouterr().out
        meta = json.loads((tmp_path / f"{out}.json").read_text())
        assert meta["parameters"]["n_clusters"] == K_est
        assert meta["auto"] == {"n_clusters": "auto: eigengap"}


def test_single_class_labels_are_refused_before_selecting(tmp_path, csv_file, capsys):
    labels = tmp_path / "zeros.txt"
    labels.write_text("0\n" * 90)
    _one_line_error(capsys, ["select", "--data", str(csv_file), "--method", "maxvariance",
                             "--n-features", "3", "--labels", str(labels),
                             "--out", str(tmp_path / "r.csv")], "single class")
    assert not (tmp_path / "r.csv").exists()


def test_method_and_count_auto(tmp_path, csv_file, capsys):
    from ufsel import get_selector
    from ufsel.model_selection import META_FEATURES

    # the recommender chooses among every method of its table; the CLI reports its choice,
    # why (the nearest benchmark data sets) and the verdict
    rc = main(["select", "--data", str(csv_file), "--out", str(tmp_path / "r.csv")])
    assert rc == 0
    out = capsys.readouterr().out
    meta = json.loads((tmp_path / "r.csv.json").read_text())
    assert meta["method_requested"] == "auto"
    rec = meta["recommendation"]
    assert meta["method"] == get_selector(rec["method"]).__name__
    assert f"Recommended {rec['method']}" in out and rec["neighbours"][0]["dataset"] in out
    assert set(rec["meta_features"]) == set(META_FEATURES)
    outcome = meta["verdict_details"]["outcome"]
    lead = ("The chosen method does not beat random subsets here" if outcome == "no better"
            else "AutoSelector chose")
    assert out.count(lead) == 1 and f"{meta['method']}(" in out
    label = ("[auto: relevant features]" if meta["describe"]["few_relevant"]
             else "[auto: feature-count curve]")
    assert label in out
    v = meta["verdict_details"]
    if meta["beats_random"]:
        assert "The selection is better than a random subset" in out
    elif outcome == "not shown" and v["testable"]:
        assert "Not shown" in out and v["reason"] in out
    elif v["testable"]:
        assert "NO better than a random subset" in out and v["reason"] in out
    else:  # too few subsets of the size for p <= alpha (12 features, a small count)
        assert "Not shown: only" in out and v["every_subset"]
        assert v["random_subsets"] < 1 / v["alpha"]
    # the recommender's method is among the candidates, with the cheap filters
    assert rec["method"] in {c["method"] for c in meta["candidates"]}
    assert {"laplacianscore", "pivotedqr"} <= {c["method"] for c in meta["candidates"]}
    assert meta["choice"]["strategy"] == "shortlist" and meta["describe"]["n_relevant"] >= 0
    assert meta["verdict"] in out and isinstance(meta["beats_random"], bool)
    k = meta["n_features_selected"]
    assert k == meta["parameters"]["n_features_to_select"] == len(meta["selected_features"])
    assert sum(r["selected"] == "True" for r in _rows(tmp_path / "r.csv")) == k
    assert meta["n_features_curve"]["counts"]


def test_standardize_selects_on_unit_variance_features(tmp_path, planted, capsys):
    from sklearn.preprocessing import StandardScaler

    from ufsel import LaplacianScore

    X = planted[0] * np.geomspace(1e-3, 1e3, planted[0].shape[1])  # features in wild units
    np.save(tmp_path / "x.npy", X)
    rc = main(["select", "--data", str(tmp_path / "x.npy"), "--method", "laplacianscore",
               "--n-features", "4", "--standardize", "--out", str(tmp_path / "r.csv")])
    assert rc == 0
    assert "on standardized features" in capsys.readouterr().out
    api = LaplacianScore(n_features_to_select=4).fit(StandardScaler().fit_transform(X))
    ranks = [int(r["rank"]) for r in sorted(_rows(tmp_path / "r.csv"), key=lambda r: int(r["feature"]))]
    assert ranks == list(api.ranking_)
    assert json.loads((tmp_path / "r.csv.json").read_text())["standardized"] is True


def test_sparse_svmlight_with_stored_labels(tmp_path, planted, capsys):
    """A LIBSVM file stays sparse; --evaluate uses the labels stored in it."""
    from scipy import sparse

    from ufsel.datasets import write_data

    X, y = np.abs(planted[0]), planted[1]
    write_data(tmp_path / "d.svm", sparse.csr_matrix(np.where(X > 1, X, 0.0)), target=y)
    rc = main(["select", "--data", str(tmp_path / "d.svm"), "--method", "laplacianscore",
               "--n-features", "3", "--evaluate", "--out", str(tmp_path / "r.csv"),
               "--transform-out", str(tmp_path / "sel.svm")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "(svmlight, sparse; labels from the labels stored in" in out
    assert "Evaluation WITH LABELS" in out
    b = read_data(tmp_path / "sel.svm")
    np.testing.assert_array_equal(b.target, y)  # the file's own labels travel with the columns
    assert b.data.shape[0] == 90 and b.data.shape[1] <= 3


def test_missing_parquet_extra_is_one_line_before_selecting(tmp_path, csv_file, capsys,
                                                            monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    _one_line_error(capsys, ["select", "--data", str(csv_file), "--method", "maxvariance",
                             "--n-features", "3", "--out", str(tmp_path / "r.csv"),
                             "--transform-out", str(tmp_path / "sel.parquet")],
                    "pip install 'ufsel[parquet]'")
    assert not (tmp_path / "r.csv").exists()


# ------------------------------------------------------------ a new user's first runs
def _write_rows(path, header, rows, sep=","):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, delimiter=sep, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return path


@pytest.fixture
def semicolon_csv_with_ids(tmp_path, planted):
    """A ';'-separated .csv whose first column is a text sample ID."""
    X, _, _, names = planted
    return _write_rows(tmp_path / "samples.csv", ["sample", *names],
                       ([f"s{i:03d}", *(repr(float(v)) for v in X[i])] for i in range(len(X))),
                       sep=";")


def test_named_method_verdict_stability_and_no_verdict(tmp_path, csv_file, planted, capsys):
    X, _, _, _ = planted
    assert _select(tmp_path, csv_file, "--stability", "4") == 0
    out = capsys.readouterr().out
    meta = json.loads((tmp_path / "rank.csv.json").read_text())
    stab = meta["verdict_details"]["stability"]
    assert stab["n_resamples"] == 4 and stab["ci_low"] <= stab["value"] <= stab["ci_high"]
    assert "Stability under resampling" in out and meta["verdict"].strip() in out
    assert _select(tmp_path, csv_file, "--no-verdict", out="fast.csv") == 0
    out = capsys.readouterr().out
    fast = json.loads((tmp_path / "fast.csv.json").read_text())
    assert fast["verdict"] is None and "beats_random" not in fast
    assert "random subset" not in out
    # the selection itself does not depend on the verdict being computed
    assert fast["selected_features"] == meta["selected_features"]
    assert main(["select", "--data", str(csv_file), "--no-verdict",
                 "--out", str(tmp_path / "a.csv")]) == 2
    assert "--no-verdict applies to a named method" in capsys.readouterr().err


def test_semicolon_csv_is_detected_and_id_column_travels(tmp_path, semicolon_csv_with_ids,
                                                         planted, capsys):
    X, _, _, names = planted
    assert _select(tmp_path, semicolon_csv_with_ids, "--id-column", "sample", "--no-verdict",
                   "--transform-out", str(tmp_path / "sel.csv")) == 0
    out = capsys.readouterr().out
    assert f"90 samples x {X.shape[1]} features (csv, semicolon-separated; row IDs from sample)" in out
    rows = _rows(tmp_path / "rank.csv")
    assert sorted(r["name"] for r in rows) == sorted(names)  # the ID is not a feature
    # the selected columns keep the sample IDs as their first column
    with open(tmp_path / "sel.csv", newline="") as fh:
        table = list(csv.reader(fh))
    assert table[0][0] == "sample" and [r[0] for r in table[1:]] == [f"s{i:03d}" for i in range(90)]
    b = read_data(tmp_path / "sel.csv", id_column="sample")
    assert list(b.row_ids) == [f"s{i:03d}" for i in range(90)] and b.data.shape == (90, N_INF)
    np.testing.assert_array_equal(b.data, X[:, [names.index(c) for c in b.feature_names]])
    # --drop-columns leaves it out the same way (and takes several names)
    assert _select(tmp_path, semicolon_csv_with_ids, "--drop-columns", f"sample,{names[0]}",
                   "--no-verdict", out="drop.csv") == 0
    assert "Not features (--drop-columns): sample, g0." in capsys.readouterr().out
    assert sorted(r["name"] for r in _rows(tmp_path / "drop.csv")) == sorted(names[1:])
    # a wrong --sep: the error names the likely delimiter, in one line
    assert _select(tmp_path, semicolon_csv_with_ids, "--sep", ",", out="x.csv") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "not numeric" in err and "semicolon-separated" in err and "--sep ';'" in err
    # without --id-column the text column is named, and so are the ways to skip it
    assert _select(tmp_path, semicolon_csv_with_ids, out="y.csv") == 2
    err = capsys.readouterr().err
    assert "column 'sample' is not numeric" in err and "--id-column" in err
    assert main(["select", "--dataset", "iris", "--drop-columns", "a",
                 "--out", str(tmp_path / "z.csv")]) == 2
    assert "--drop-columns applies to --data FILE only" in capsys.readouterr().err


@pytest.mark.parametrize("sep", ["\t", "|"])
def test_other_delimiters_are_detected(tmp_path, planted, sep):
    X, _, _, names = planted
    p = _write_rows(tmp_path / "data.csv", names, ([repr(float(v)) for v in row] for row in X),
                    sep=sep)
    b = read_data(p)
    assert list(b.feature_names) == names
    np.testing.assert_array_equal(b.data, X)


def test_constant_feature_warned_once_nan_score_ranked_last(tmp_path, planted, capsys):
    X, _, _, names = planted
    Xc = np.column_stack([X, np.full(X.shape[0], 0.25)])
    p = _write_rows(tmp_path / "c.csv", [*names, "flat"],
                    ([repr(float(v)) for v in row] for row in Xc))
    assert _select(tmp_path, p, "--no-verdict") == 0
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "'flat'" in err and "1 feature is constant" in err
    rows = _rows(tmp_path / "rank.csv")
    flat = [r for r in rows if r["name"] == "flat"]
    assert len(flat) == 1 and flat[0]["rank"] == str(len(rows))  # ranked last ...
    assert np.isnan(float(flat[0]["score"])) and flat[0]["constant"] == "True"  # ... no score
    assert all(r["constant"] == "False" and np.isfinite(float(r["score"]))
               for r in rows if r["name"] != "flat")
    meta = json.loads((tmp_path / "rank.csv.json").read_text())
    assert meta["constant_features"] == ["flat"]


def test_small_things(tmp_path, csv_file, planted, capsys, monkeypatch):
    X, _, _, names = planted
    d = X.shape[1]
    # an extension ufsel does not write is refused before selecting (no CSV text in .xlsx)
    assert _select(tmp_path, csv_file, "--transform-out", str(tmp_path / "x.xlsx")) == 2
    err = capsys.readouterr().err
    assert "does not write .xlsx files" in err and not (tmp_path / "x.xlsx").exists()
    # a count equal to d selects everything, and says so; a larger one is refused
    assert main(["select", "--data", str(csv_file), "--method", "maxvariance", "--n-features",
                 str(d), "--out", str(tmp_path / "all.csv")]) == 0
    out = capsys.readouterr().out
    assert "every feature is selected" in out and "subsets" not in out  # no verdict to give
    assert json.loads((tmp_path / "all.csv.json").read_text())["verdict"] is None
    assert main(["select", "--data", str(csv_file), "--method", "maxvariance", "--n-features",
                 str(d + 1), "--out", str(tmp_path / "more.csv")]) == 2
    assert f"only {d} features" in capsys.readouterr().err
    # counts are singular when they are 1
    one = _write_rows(tmp_path / "one.csv", ["a", "b"], [["1.0", "2.0"]])
    main(["select", "--data", str(one), "--method", "maxvariance", "--n-features", "1",
          "--no-verdict", "--out", str(tmp_path / "one_rank.csv")])
    out = capsys.readouterr().out
    assert "1 sample x 2 features" in out and "1 samples" not in out
    # --help names every method
    from ufsel import SELECTORS

    with pytest.raises(SystemExit):
        build_parser().parse_args(["select", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(name in help_text for name in SELECTORS)


def test_builtin_dataset_needs_no_data_folder(tmp_path, monkeypatch, capsys):
    from ufsel.datasets import load_dataset

    monkeypatch.setenv("UFSEL_DATA", str(tmp_path / "missing"))
    assert load_dataset("digits").data.shape == (1797, 64)
    with pytest.raises(ValueError, match="is not a folder"):  # a non-built-in name still says so
        load_dataset("coil20")
    assert main(["select", "--dataset", "iris", "--method", "maxvariance", "--n-features", "2",
                 "--no-verdict", "--out", str(tmp_path / "r.csv")]) == 0


def test_default_route_finds_planted_columns_and_says_so(tmp_path, capsys):
    """A newcomer's first try: a 500-row CSV with an ID and a notes column, 4 informative
    columns among 16 of noise. The default route keeps the 4 and says "beats random"."""
    import pandas as pd

    from ufsel.datasets import make_sanity_case

    case = make_sanity_case("gauss_newcomer", 0)
    names = [f"c{j}" for j in range(case.X.shape[1])]
    df = pd.DataFrame(case.X, columns=names)
    df.insert(0, "id", np.arange(len(df)))
    df["notes"] = "x"
    df.to_csv(tmp_path / "file.csv", index=False)
    rc = main(["select", "--data", str(tmp_path / "file.csv"), "--id-column", "id",
               "--drop-columns", "notes", "--out", str(tmp_path / "r.csv")])
    captured = capsys.readouterr()
    assert rc == 0
    meta = json.loads((tmp_path / "r.csv.json").read_text())
    kept = {int(c["index"]) for c in meta["selected_features"]}
    assert kept == set(case.planted.tolist())
    assert meta["verdict_details"]["outcome"] == "beats random"
    assert "The selection is better than a random subset" in captured.out
    assert meta["method"] != "EVSC"


def _wide_units_csv(path, n_samples=300, random_state=2):
    """5 planted cluster columns among 25 noise columns whose ranges span 1,000-fold."""
    X, _, informative = make_planted_clusters(n_samples, 5, 25, 4, random_state=random_state)
    noise = np.setdiff1d(np.arange(X.shape[1]), informative)
    X = X.copy()
    X[:, noise] *= np.geomspace(1, 1000, noise.size)
    _write_rows(path, [f"c{j}" for j in range(X.shape[1])],
                ([repr(float(v)) for v in row] for row in X))
    return X, set(np.asarray(informative).tolist())


def test_named_method_standardises_as_the_route_does(tmp_path, capsys):
    """--method takes the route's description step: features in different units are
    standardised, said in one line and recorded, and every planted column is kept."""
    X, informative = _wide_units_csv(tmp_path / "planted.csv")
    rc = main(["select", "--data", str(tmp_path / "planted.csv"), "--method", "mcfs",
               "--n-features", "10", "--out", str(tmp_path / "r.csv")])
    assert rc == 0
    out = capsys.readouterr().out
    meta = json.loads((tmp_path / "r.csv.json").read_text())
    kept = {int(c["index"]) for c in meta["selected_features"]}
    assert informative <= kept
    scaling = [ln for ln in out.splitlines() if ln.startswith("Scaling:")]
    assert len(scaling) == 1 and "standardised" in scaling[0] and "fold" in scaling[0]
    assert meta["standardized"] is True and meta["describe"]["standardized"] is True
    # the named method and the default route describe the data the same way
    from ufsel.model_selection import AutoSelector

    auto = AutoSelector(n_resamples=0, verdict=False).fit(X)
    assert auto.description_.standardized
    assert meta["describe"]["scaling"] == auto.description_.scaling


def test_default_route_reports_what_it_did(tmp_path, capsys):
    """The sidecar's standardized is the truth, a labelled evaluation clusters the columns
    the selection was made on, and no line names a method or count the run did not use."""
    from ufsel import get_selector
    from ufsel.model_selection import standardized

    X, informative = _wide_units_csv(tmp_path / "planted.csv")
    labels = tmp_path / "y.txt"
    _, y, _ = make_planted_clusters(300, 5, 25, 4, random_state=2)
    labels.write_text("".join(f"{v}\n" for v in y))
    rc = main(["select", "--data", str(tmp_path / "planted.csv"), "--labels", str(labels),
               "--stability", "0", "--out", str(tmp_path / "r.csv")])
    assert rc == 0
    out = capsys.readouterr().out
    meta = json.loads((tmp_path / "r.csv.json").read_text())
    assert meta["standardized"] is True and meta["describe"]["standardized"] is True
    support = np.zeros(X.shape[1], bool)
    support[[f["index"] for f in meta["selected_features"]]] = True
    ev = cli_select._evaluate(standardized(X), y, support, 0)
    assert meta["evaluation_with_labels"]["selected"] == ev["selected"]
    assert meta["evaluation_with_labels"]["standardized"] is True
    assert "on the standardized columns" in out
    # the recommendation is printed with what was chosen instead, when it differs
    rec, chosen = meta["recommendation"]["method"], meta["choice"]["method"]
    assert rec in {c["method"] for c in meta["candidates"]}
    if rec != chosen:
        line = f"Chose {get_selector(chosen).__name__} rather than the recommended {rec}: "
        assert line in out
    # the count's label is what decided it
    by = meta["count"]["decided_by"]
    assert f"[auto: {by}]" in out
    if by == "relevant features":
        n_rel = meta["describe"]["n_relevant"]
        assert f"Count: {n_rel} of the {X.shape[1]} features carry structure" in out
        assert meta["n_features_curve"] is None
    # the verdict prints the p-value of the test that decided
    v = meta["verdict_details"]
    if meta["beats_random"]:
        assert (f"decided by the {v['decided_by']} test, p = {v['decisive_p_value']:.3g}"
                in out)


def test_count_label_says_when_raised_to_the_smallest_testable(tmp_path, capsys):
    """On 13 features a single one cannot be tested: the count is raised, and its label
    says so rather than naming the relevant features or the curve."""
    import dataclasses

    from ufsel.cli._common import describe_choice
    from ufsel.model_selection import AutoSelector

    X = make_planted_clusters(80, 2, 11, 3, random_state=0)[0]
    auto = AutoSelector(n_resamples=0, verdict=False).fit(X)
    auto.count_ = dataclasses.replace(auto.count_, decided_by="smallest testable count")
    args = build_parser().parse_args(["select", "--data", "x.csv", "--out", "r.csv"])
    _, _, notes = describe_choice(auto, args, X.shape[1])
    assert notes["n_features_to_select"] == "auto: smallest testable count"
