"""``make demo`` (``python -m ufsel.demo``): which selectors it runs, and what it prints."""

import copy
import json

import pytest

from ufsel import SELECTORS, demo, get_selector


def test_demo_runs_every_selector_but_the_slow_ones():
    fast = demo.demo_experiment(include_slow=False)["methods"]
    assert set(demo.SLOW_SELECTORS) <= set(SELECTORS)
    assert set(fast) == set(SELECTORS) - set(demo.SLOW_SELECTORS)
    # the experiment file's tuned methods come first, as listed there
    assert list(fast)[:len(demo.DEMO_EXPERIMENT["methods"])] == list(
        demo.DEMO_EXPERIMENT["methods"])


def test_demo_all_runs_the_slow_selectors_last_under_the_cap():
    doc = demo.demo_experiment(include_slow=True)
    methods = list(doc["methods"])
    assert set(methods) == set(SELECTORS)
    assert methods[-len(demo.SLOW_SELECTORS):] == sorted(demo.SLOW_SELECTORS)
    # the cap of the experiment file guards the slow fits; the fast demo has none
    assert doc["evaluation"]["fit_timeout"] == demo.DEMO_EXPERIMENT["evaluation"][
        "fit_timeout"] > 0
    assert demo.demo_experiment(include_slow=False)["evaluation"]["fit_timeout"] == 0


def test_selectors_that_need_a_cluster_count_get_the_number_of_classes():
    methods = demo.demo_experiment()["methods"]
    for name, spec in methods.items():
        needs = "n_clusters" in get_selector(name)().get_params()
        assert (spec.get("fixed", {}).get("n_clusters") == "n_classes") == needs, name


@pytest.fixture
def small_demo(monkeypatch):
    """The demo with two fast selectors, two feature counts and few k-means runs."""
    pytest.importorskip("matplotlib")
    doc = copy.deepcopy(demo.DEMO_EXPERIMENT)
    doc["evaluation"].update(n_features=[2, 4], kmeans_runs=2, random_baseline_seeds=1,
                             fit_timeout=0)
    doc["methods"] = {"maxvariance": {}, "pivotedqr": {}}
    monkeypatch.setattr(demo, "demo_experiment", lambda include_slow=False: doc)
    monkeypatch.setenv("MPLBACKEND", "Agg")


def test_demo_prints_each_selector_then_says_what_it_ran(small_demo, tmp_path, capsys):
    out = tmp_path / "demo_results"
    assert demo.main(["--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    progress = lines[:lines.index("")]  # the lines printed as the selectors finish
    rows = {line.split()[0]: line.split()[1:] for line in progress
            if line.split()[0] in {"random", "all_features", "maxvariance", "pivotedqr"}}
    assert len(rows["random"]) == 2 and len(rows["all_features"]) == 2
    # a selector's line: its accuracy at each count, then its fit time
    assert len(rows["maxvariance"]) == 4 and rows["maxvariance"][-1] == "s"
    order = [line.split()[0] for line in progress if line.split()[0] in rows]
    assert order == ["random", "all_features", "maxvariance", "pivotedqr"]
    n_all = len(SELECTORS)
    assert f"Ran 2 of the {n_all} registered selectors (not run: " in lines[-2]
    assert "make demo-all runs every one" in lines[-2] and "from the cache" not in lines[-2]
    assert lines[-1] == "Every one of the 2 selectors gave a value at every feature count."
    assert (out / "report.html").is_file()
    # one entry in the folder's run history for the whole command, not one per selector
    assert len(json.loads((out / "summary.json").read_text())["history"]) == 1

    assert demo.main(["--out", str(out), "--no-progress"]) == 0
    again = capsys.readouterr().out.splitlines()
    assert "(2 of their 2 fits from the cache of an earlier run)" in again[-2]
    assert len(json.loads((out / "summary.json").read_text())["history"]) == 2
