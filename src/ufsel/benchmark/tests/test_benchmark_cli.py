"""The experiment system: failures, the CLI, experiment files."""

import argparse
import copy
import json

import pytest

from ufsel.benchmark import _runner, load_experiment, run, write_report
from ufsel.benchmark._cli import add_subcommands
from ufsel.benchmark._tables import read_csv
from ufsel.benchmark.tests._helpers import (
    EXPERIMENT,
    REPO,
    quiet,
)


def test_failing_and_unregistered_methods_are_reported_and_the_others_finish(tmp_path):
    exp = copy.deepcopy(EXPERIMENT)
    exp["methods"] = {"failing": {}, "maxvariance": {}, "notamethod": {},
                      "mcfs": {"fixed": {"n_clusters": "n_classes", "no_such_param": 1}}}
    res = run(exp, tmp_path, **quiet(plots=False))
    s = res.summary
    reasons = {f["method"]: (f["stage"], f["reason"]) for f in s["failures"]}
    assert reasons["failing"] == ("fit", "RuntimeError: this selector always fails (test)")
    assert reasons["notamethod"][0] == "plan" and "not registered" in reasons["notamethod"][1]
    assert reasons["mcfs"][0] == "plan" and "no_such_param" in reasons["mcfs"][1]
    assert s["fits_failed"] == 1
    rows = read_csv(tmp_path / "results.csv")
    assert {r["method"] for r in rows if r["status"] == "ok"} == {
        "maxvariance", "random", "all_features"}
    # the failed cells are kept, marked, without a value (never dropped)
    failed = [r for r in rows if r["method"] == "failing"]
    assert failed and all(r["status"] == "failed" and r["value"] == "" for r in failed)
    text = _runner.format_summary(s)
    assert "failing [fit] on wine: RuntimeError" in text and "notamethod [plan]" in text
    assert "this selector always fails" in (tmp_path / "report.html").read_text()
    # a failure is cached: the next run reports it again without trying again
    again = run(exp, tmp_path, **quiet(plots=False, report=False))
    assert again.summary["fits_failed"] == 1 and again.summary["fits_computed"] == 0
    assert again.summary["fits_cached"] == 2
    assert {f["method"] for f in again.summary["failures"] if f["stage"] == "fit"} == {"failing"}


def test_cli_bench_from_flags_and_report(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="ufsel")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    out = tmp_path / "flags"
    args = parser.parse_args(["bench", "--datasets", "wine", "--methods", "maxvariance,mcfs",
                              "--n-features", "2,4", "--kmeans-runs", "2", "--random-seeds", "2",
                              "--out", str(out), "--no-plots", "--no-progress"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "fits:" in text and "2 ran" in text
    mcfs = [json.loads(r["params"]) for r in read_csv(out / "runs.csv") if r["method"] == "mcfs"]
    assert mcfs and all(p["n_clusters"] == 3 for p in mcfs)
    args = parser.parse_args(["report", str(out), "--no-redraw"])
    assert args.func(args) == 0
    assert (out / "report.html").is_file()


def test_experiment_validation_errors():
    with pytest.raises(ValueError, match="unknown key"):
        load_experiment({**EXPERIMENT, "evaluation": {"n_feature": [1]}})
    with pytest.raises(ValueError, match="tuning"):
        load_experiment({**EXPERIMENT, "evaluation": {"tuning": ["best"]}})
    with pytest.raises(ValueError, match="no data set"):
        load_experiment({**EXPERIMENT, "datasets": []})
    with pytest.raises(ValueError, match="added automatically"):
        load_experiment({**EXPERIMENT, "methods": {"random": {}}})
    with pytest.raises(FileNotFoundError):
        load_experiment("no/such/file.toml")
    with pytest.raises(FileNotFoundError, match="not a ufsel results folder"):
        write_report("no/such/dir")


def test_n_classes_tokens():
    from ufsel.benchmark._experiment import resolve_params

    assert resolve_params({"a": "n_classes", "b": "n_classes-1", "c": "n_classes + 2",
                           "d": "heat", "e": 3}, 10) == {"a": 10, "b": 9, "c": 12, "d": "heat",
                                                         "e": 3}


@pytest.mark.parametrize("path", sorted((REPO / "experiments").glob("*.toml")),
                         ids=lambda p: p.name)
def test_shipped_experiment_files_parse(path):
    exp = load_experiment(path)
    assert exp.datasets and exp.methods and exp.n_features
    for p in exp.published:
        for ds, values in p["values"].items():
            assert ds in {d.label for d in exp.datasets}, (path.name, ds)
            for method in values:
                assert method in {m.label for m in exp.methods} | {"all_features", "random"} \
                    or p.get("note"), (path.name, method)
