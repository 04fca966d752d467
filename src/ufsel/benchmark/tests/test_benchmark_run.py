"""The experiment system: tables, plots, cache hits, parallel runs."""

import copy
import json

import pytest

from ufsel.benchmark import _runner, run
from ufsel.benchmark._tables import read_csv
from ufsel.benchmark.tests._helpers import (
    EXPERIMENT,
    quiet,
    rows_without_timing,
)


def test_tiny_run_writes_tables_plots_and_report(tmp_path):
    pytest.importorskip("matplotlib")
    res = run(EXPERIMENT, tmp_path, **quiet())
    s = res.summary
    assert s["fits_failed"] == s["evals_failed"] == 0 and not s["failures"]
    # 1 + 2 + 2 settings; the default setting of mcfs (n_neighbors=5) is also in its grid
    assert s["fits_computed"] == 5 and s["fits_cached"] == 0

    results = read_csv(tmp_path / "results.csv")
    # 3 methods x 2 tuning modes x 3 counts x 3 metrics + random (3 x 3) + all features (3)
    assert len(results) == 3 * 2 * 3 * 3 + 9 + 3
    assert {r["tuning"] for r in results} == {"defaults", "best_over_grid", "baseline"}
    for r in results:
        assert r["ufsel_version"] and r["eval_seed"] == "0" and r["kmeans_runs"] == "3"
        assert r["params"].startswith("{")
    rnd = [r for r in results if r["method"] == "random"]
    assert {r["n_repeats"] for r in rnd} == {"2"} and all(r["spread_over"] == "random seeds"
                                                           for r in rnd)
    allf = [r for r in results if r["method"] == "all_features"]
    assert {r["n_features"] for r in allf} == {"13"}

    # best over grid is never worse than defaults (the defaults setting is in mcfs's grid)
    def val(method, tuning, k, metric):
        return next(float(r["value"]) for r in results if r["method"] == method
                    and r["tuning"] == tuning and r["n_features"] == str(k)
                    and r["metric"] == metric)

    for k in (2, 4, 6):
        assert val("mcfs", "best_over_grid", k, "acc") >= val("mcfs", "defaults", k, "acc")
        assert val("mcfs", "best_over_grid", k, "nn_error") <= val("mcfs", "defaults", k,
                                                                     "nn_error")
    runs = read_csv(tmp_path / "runs.csv")
    assert len(runs) == (1 + 2 + 2) * 3 + 2 * 3 + 1
    assert all(json.loads(r["params"]) is not None for r in runs)
    mc = [json.loads(r["params"]) for r in runs if r["method"] == "mcfs"]
    assert {p["n_clusters"] for p in mc} == {3} and {p["random_state"] for p in mc} == {0}

    comp = read_csv(tmp_path / "comparison.csv")
    assert len(comp) == 2
    for c in comp:
        for t in ("defaults", "best_over_grid"):
            assert abs(float(c[f"difference_{t}"])
                       - (float(c[f"ufsel_{t}"]) - float(c["paper"]))) < 1e-9

    traces = json.loads((tmp_path / "traces.json").read_text())
    assert [t["method"] for t in traces] == ["slowvariance"]
    assert traces[0]["objective"] == [3.0, 2.0, 1.5, 1.25]

    figs = tmp_path / "figures"
    for base in ("curves_acc_defaults", "curves_nmi_best_over_grid", "curves_nn_error_defaults",
                 "sensitivity_mcfs_acc", "sensitivity_slowvariance_acc", "convergence"):
        for ext in ("png", "svg"):
            assert (figs / f"{base}.{ext}").stat().st_size > 1000, base
    html = (tmp_path / "report.html").read_text()
    assert "Paper vs ufsel" in html and "figures/curves_acc_defaults.png" in html
    assert "<script" not in html

    # the BLAS (and its kernel) is recorded: the evaluation's k-means can follow it
    from threadpoolctl import threadpool_info

    apis = {i["internal_api"] for i in threadpool_info() if i["user_api"] == "blas"}
    assert {b["internal_api"] for b in s["blas"]} == apis and apis
    assert s["history"][-1]["blas"] == s["blas"]
    assert "BLAS of the last run: " + s["blas"][0]["internal_api"] in html


def test_second_run_hits_the_cache_and_recomputes_nothing(tmp_path, monkeypatch):
    exp = copy.deepcopy(EXPERIMENT)
    run(exp, tmp_path, **quiet(plots=False))
    first = (tmp_path / "results.csv").read_text()

    def boom(*a, **k):
        raise AssertionError("a cached unit was recomputed")

    monkeypatch.setattr(_runner, "run_fit", boom)
    monkeypatch.setattr(_runner, "run_eval", boom)
    res = run(exp, tmp_path, **quiet(plots=False))
    s = res.summary
    assert s["fits_computed"] == 0 and s["evals_computed"] == 0
    assert s["fits_cached"] == 5 and s["evals_cached"] == s["evals_total"] > 0
    assert (tmp_path / "results.csv").read_text() == first


def test_refit_recomputes_only_the_named_methods_fits(tmp_path, monkeypatch):
    """``refit`` ignores the cached fits of the methods it names (their code changed) and
    keeps every other fit; an unchanged selection's evaluations stay cached."""
    exp = copy.deepcopy(EXPERIMENT)
    run(exp, tmp_path, **quiet(plots=False, report=False))
    first = rows_without_timing(tmp_path / "results.csv")
    fitted = []
    real_fit = _runner.run_fit

    def recording_fit(task, *a, **k):
        fitted.append(task.selector)
        return real_fit(task, *a, **k)

    def boom(*a, **k):
        raise AssertionError("an unchanged selection was evaluated again")

    monkeypatch.setattr(_runner, "run_fit", recording_fit)
    monkeypatch.setattr(_runner, "run_eval", boom)
    res = run(exp, tmp_path, **quiet(plots=False, report=False), refit=["mcfs"])
    s = res.summary
    assert sorted(fitted) == ["mcfs", "mcfs"]  # its two settings, nothing else
    assert s["fits_computed"] == 2 and s["fits_cached"] == 3 and s["evals_computed"] == 0
    # the same code refitted: the same selections, hence the same rows
    assert rows_without_timing(tmp_path / "results.csv") == first
    with pytest.raises(ValueError, match="refit"):
        run(exp, tmp_path, **quiet(plots=False, report=False), refit=["nosuchmethod"])


def test_parallel_run_gives_the_same_rows(tmp_path):
    exp = copy.deepcopy(EXPERIMENT)
    del exp["methods"]["slowvariance"]  # test-only class: not importable by name in workers
    exp["published"] = []
    run(exp, tmp_path / "serial", **quiet(plots=False, report=False))
    res = run(exp, tmp_path / "parallel", **quiet(n_jobs=2, plots=False, report=False))
    assert res.summary["fits_computed"] == 3 and not res.summary["failures"]
    assert rows_without_timing(tmp_path / "serial" / "results.csv") == rows_without_timing(
        tmp_path / "parallel" / "results.csv")
