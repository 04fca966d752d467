"""A cell that needed more than the fast cap: recorded, merged in and marked as slow.

The leaderboard runs every fit under a short CPU cap; a fit that times out there is
computed again under a longer cap and merged into the checked-in tables (which keep the
summary tables only, without results.csv). Its value then enters the ranks, and
runtime.csv and the report mark it as slow, with its time, so that a slow method is
told apart from a bad one.
"""

import csv
import shutil

import pytest

from ufsel.benchmark import run
from ufsel.benchmark._report import _runtime_section
from ufsel.benchmark._tables import over_fast_cap
from ufsel.benchmark.tests._helpers import load_benchmark_script, quiet


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_over_fast_cap_needs_a_value_and_more_cpu_than_the_cap():
    ok = {"status": "ok", "fit_cpu_s": "35.5", "fit_cap_s": "900.0"}
    assert over_fast_cap(ok, 20)
    assert not over_fast_cap({**ok, "fit_cpu_s": "12.0"}, 20)  # fast, whatever its cap
    assert not over_fast_cap(ok, 60)
    assert not over_fast_cap({**ok, "status": "timed out"}, 20)  # no value: not slow
    # a row written before CPU times were recorded: the cap it ran under decides
    assert over_fast_cap({"status": "ok", "fit_cpu_s": "", "fit_cap_s": "900"}, 20)
    assert not over_fast_cap({"status": "ok", "fit_cpu_s": "", "fit_cap_s": "20"}, 20)
    assert not over_fast_cap(ok, None)  # a run without a cap has nothing to exceed


def test_the_runtime_table_marks_slow_cells_with_their_time():
    base = {"n_samples": "100", "n_features_total": "10", "protocol": "n_classes", "n_iter": "",
            "grid_settings": "1", "grid_fit_time_total_s": "1.0", "from_cache": "true",
            "warnings": ""}
    rows = [{**base, "dataset": "a", "method": "fastm", "status": "ok", "fit_time_s": "3.0",
             "fit_cpu_s": "2.5", "fit_cap_s": "20.0"},
            {**base, "dataset": "a", "method": "slowm", "status": "ok", "fit_time_s": "80.0",
             "fit_cpu_s": "61.25", "fit_cap_s": "900.0"},
            {**base, "dataset": "a", "method": "hopeless", "status": "timed out",
             "fit_time_s": "1500.0", "fit_cpu_s": "900.0", "fit_cap_s": "900.0"}]
    page = _runtime_section(rows, 20.0)
    cells = page.split("<tr")
    slow = next(c for c in cells if ">slowm<" in c)
    assert "slow: over the 20 s cap, computed under 900 s" in slow and "61.2 CPU" in slow
    fast = next(c for c in cells if ">fastm<" in c)
    assert "slow" not in fast and "2.5 CPU" in fast
    hopeless = next(c for c in cells if ">hopeless<" in c)
    assert "timed out at the 900 s cap" in hopeless and "slow" not in hopeless
    # the note above the table names the slow cell and its CPU time, and only it
    note = page.split("<table")[0]
    assert "1 cell has a value that needed more than the 20 s cap" in note
    assert "slowm on a (n_classes: 61 s CPU)" in note and "hopeless" not in note


def _experiment(methods, cap):
    # NDFS with tol = 0 runs all its iterations: a few seconds of CPU time on wine,
    # over a cap of 1 s and well under one of 120 s
    return {
        "experiment": {"name": "longcap", "title": "a slow cell"},
        "datasets": ["wine", "iris"],
        "evaluation": {"n_features": [2, 3], "kmeans_runs": 2, "random_baseline_seeds": 2,
                       "nn_loo": False, "tuning": ["defaults"], "fit_timeout": cap},
        "methods": {m: ({"fixed": {"max_iter": 12000, "tol": 0.0}} if m == "ndfs" else {})
                    for m in methods},
    }


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    pytest.importorskip("scikit_posthocs")
    root = tmp_path_factory.mktemp("longcap")
    fast, slow = root / "fast", root / "slow"
    run(_experiment(["maxvariance", "laplacianscore", "ndfs"], 1), fast, **quiet(plots=False))
    # the rerun under the long cap, of every method: its tables are what a joint run
    # under the long cap gives, and the merge must reproduce its ranks
    run(_experiment(["maxvariance", "laplacianscore", "ndfs"], 120), slow, **quiet(plots=False))
    into = root / "into"
    shutil.copytree(fast, into)
    for name in ("results.csv", "runs.csv", "traces.json"):  # the checked-in form
        (into / name).unlink()
    merge = load_benchmark_script("tools/merge_leaderboard")
    merge.merge(into, slow, ["ndfs"], finished_only=True, redraw=False)
    return fast, slow, into


def test_a_fit_over_the_fast_cap_gets_its_value_and_is_marked_slow(merged):
    fast, slow, into = merged
    before = [r for r in _rows(fast / "runtime.csv") if r["method"] == "ndfs"]
    assert before and all(r["status"] == "timed out" and r["fit_cap_s"] == "1.0"
                          for r in before)
    after = [r for r in _rows(into / "runtime.csv") if r["method"] == "ndfs"]
    assert len(after) == len(before)
    for r in after:
        assert r["status"] == "ok" and r["over_fast_cap"] == "true"
        assert r["fit_cap_s"] == "120.0" and 1.0 < float(r["fit_cpu_s"]) < 120.0
    others = [r for r in _rows(into / "runtime.csv") if r["method"] != "ndfs"]
    assert others and all(r["over_fast_cap"] == "false" for r in others)
    page = (into / "report.html").read_text()
    assert "slow: over the 1 s cap, computed under 120 s" in page
    assert "ndfs on wine" in page and "ndfs on iris" in page
    # and beside its value in the per-data-set tables
    per_dataset = page.split("id='datasets'")[1].split("<h2")[0]
    assert per_dataset.count("<sup class='slow'>slow</sup></td>") == 2  # wine and iris


def test_the_merged_values_enter_the_ranks_as_a_joint_run_gives_them(merged):
    fast, slow, into = merged
    vs = [r for r in _rows(into / "vs_random.csv") if r["method"] == "ndfs"]
    assert vs and all(r["status"] == "ok" and r["method_mean"] for r in vs)
    key = ("protocol", "grid", "metric", "method", "mean_rank", "n_datasets",
           "friedman_statistic")
    ranks = sorted(tuple(r[k] for k in key) for r in _rows(into / "ranks.csv"))
    assert ranks == sorted(tuple(r[k] for k in key) for r in _rows(slow / "ranks.csv"))
    assert ranks != sorted(tuple(r[k] for k in key) for r in _rows(fast / "ranks.csv"))
    # the fast run's time-outs are gone from the failures and the count
    import json

    summary = json.loads((into / "summary.json").read_text())
    assert summary["fits_timed_out"] == 0
    assert not [f for f in summary["failures"] if f["method"] == "ndfs"]
    assert summary["history"][-1]["fit_timeout_s"] == 120


def test_the_which_method_table_counts_the_slow_values(merged):
    _, _, into = merged
    summary = load_benchmark_script("tools/leaderboard_summary")
    grid = _rows(into / "ranks.csv")[0]["grid"]
    text = summary.tables(*summary.load(into, grid, "acc"))
    ndfs = next(line for line in text.splitlines() if line.startswith("| ndfs |"))
    assert "(2 over the 1 s cap)" in ndfs  # wine and iris, with a rank
    assert ndfs.split("|")[2].strip() != "-"
    others = [line for line in text.splitlines() if line.startswith("| maxvariance |")]
    assert others and "over the" not in others[0]
