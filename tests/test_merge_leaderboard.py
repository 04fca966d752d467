"""benchmarks/tools/merge_leaderboard.py: a method run alone and merged in gives the joint run's tables."""

import csv
import shutil

import pytest

from ufsel.benchmark import run
from ufsel.benchmark.tests._helpers import TIMING, load_benchmark_script, quiet


def _script():
    return load_benchmark_script("tools/merge_leaderboard")


def _experiment(methods):
    return {
        "experiment": {"name": "merge", "title": "tiny leaderboard"},
        "datasets": ["wine", "iris"],
        "evaluation": {"n_features": [2, 3], "kmeans_runs": 3, "random_baseline_seeds": 2,
                       "nn_loo": False, "tuning": ["defaults"]},
        "methods": {m: {} for m in methods},
    }


def _table(path):
    """The rows as a sorted list, without measured times and cache flags."""
    with open(path, newline="") as fh:
        rows = [tuple(sorted((k, v) for k, v in r.items()
                             if k not in TIMING | {"from_cache"}))
                for r in csv.DictReader(fh)]
    return sorted(rows)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    pytest.importorskip("matplotlib")
    pytest.importorskip("scikit_posthocs")
    root = tmp_path_factory.mktemp("merge")
    both, first, second = root / "both", root / "first", root / "second"
    run(_experiment(["maxvariance", "laplacianscore"]), both, **quiet(plots=False))
    run(_experiment(["maxvariance"]), first, **quiet(plots=False))
    run(_experiment(["laplacianscore"]), second, **quiet(plots=False))
    return root, both, first, second


def test_merging_a_separate_run_gives_the_joint_runs_tables(runs):
    merge = _script()
    root, both, first, second = runs
    into = root / "merged"
    shutil.copytree(first, into)
    counts, report = merge.merge(into, second, ["laplacianscore"], redraw=False)
    for name in merge.TABLES:
        assert _table(into / f"{name}.csv") == _table(both / f"{name}.csv"), name
    assert report.is_file() and "laplacianscore" in report.read_text()
    assert counts["evals_total"] > 0


def test_a_baseline_that_differs_is_refused_and_nothing_is_written(runs):
    merge = _script()
    root, _, first, second = runs
    into, update = root / "refused", root / "tampered"
    shutil.copytree(first, into)
    shutil.copytree(second, update)
    path = update / "results.csv"
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        cols, rows = reader.fieldnames, list(reader)
    row = next(r for r in rows if r["method"] == "random")
    row["value"] = repr(float(row["value"]) + 1e-6)
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=cols, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    before = (into / "results.csv").read_bytes()
    with pytest.raises(SystemExit, match="1 baseline values differ"):
        merge.merge(into, update, ["laplacianscore"], redraw=False)
    assert (into / "results.csv").read_bytes() == before


def _rows_of(path, dataset):
    return [r for r in _table(path) if ("dataset", dataset) in r]


def test_merging_some_data_sets_replaces_only_their_rows(runs, tmp_path):
    """A method rerun on one data set replaces that data set's rows and keeps the others."""
    merge = _script()
    _, both, _, _ = runs
    # the checked-in run: Laplacian Score with other parameters than the update's defaults
    exp = _experiment(["maxvariance", "laplacianscore"])
    exp["methods"]["laplacianscore"] = {"fixed": {"n_neighbors": 3}}
    into, update = tmp_path / "into", tmp_path / "update"
    run(exp, into, **quiet(plots=False))
    old = {name: _table(into / f"{name}.csv") for name in merge.TABLES}
    run({**_experiment(["laplacianscore"]), "datasets": ["iris"]}, update, **quiet(plots=False))
    merge.merge(into, update, ["laplacianscore"], datasets=["iris"], redraw=False)
    for name in merge.TABLES:
        # iris: as in the joint run at the defaults; wine: untouched
        assert _rows_of(into / f"{name}.csv", "iris") == _rows_of(both / f"{name}.csv", "iris")
        assert _rows_of(into / f"{name}.csv", "wine") == [r for r in old[name]
                                                          if ("dataset", "wine") in r]
    lap_wine = [r for r in _rows_of(into / "runs.csv", "wine") if ("method", "laplacianscore") in r]
    assert lap_wine and all('"n_neighbors":3' in dict(r)["params"] for r in lap_wine)


def test_merging_a_data_set_the_update_lacks_is_refused(runs, tmp_path):
    merge = _script()
    _, both, first, second = runs
    into = tmp_path / "into"
    shutil.copytree(first, into)
    with pytest.raises(SystemExit, match="no data set"):
        merge.merge(into, second, ["laplacianscore"], datasets=["breast_cancer"], redraw=False)
