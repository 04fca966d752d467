"""The leaderboard's parts of the experiment system: verdict, flagged cells, caps, protocols."""

import csv
import json

import numpy as np
import pytest

from ufsel._registry import SELECTORS
from ufsel.base import BaseSelector
from ufsel.benchmark import run
from ufsel.benchmark._experiment import experiment_from_dict, grid_counts
from ufsel.benchmark.tests._helpers import REPO, quiet


class LowestVariance(BaseSelector):
    """Keeps the features of *lowest* variance: a selector worse than random subsets."""

    def _fit(self, X):
        return -np.var(X, axis=0)


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def verdict_dir(tmp_path_factory):
    pytest.importorskip("matplotlib")
    pytest.importorskip("scikit_posthocs")
    out = tmp_path_factory.mktemp("verdict")
    exp = {
        "experiment": {"name": "verdict", "title": "tiny leaderboard"},
        "datasets": ["wine", "iris", "breast_cancer"],
        "evaluation": {"n_features": [2, 3], "kmeans_runs": 5, "random_baseline_seeds": 3,
                       "nn_loo": False, "tuning": ["defaults"]},
        "methods": {"maxvariance": {}, "laplacianscore": {}, "lowestvariance": {}},
    }
    mp = pytest.MonkeyPatch()
    mp.setitem(SELECTORS, "lowestvariance", LowestVariance)
    try:
        run(exp, out, **quiet())
    finally:
        mp.undo()
    return out


def test_report_gives_a_verdict_with_a_cd_diagram_and_flagged_cells(verdict_dir):
    page = (verdict_dir / "report.html").read_text()
    assert "<h2 id='verdict'>Verdict</h2>" in page
    # the CD diagram is drawn and shown in the verdict
    cd = verdict_dir / "figures" / "cd_n_classes_counts_acc.png"
    assert cd.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "src='figures/cd_n_classes_counts_acc.png'" in page
    # mean ranks sorted best first, and lowestvariance is ranked last of all
    ranks = [r for r in _rows(verdict_dir / "ranks.csv")
             if r["metric"] == "acc" and r["grid"] == "counts"]
    means = [float(r["mean_rank"]) for r in ranks]
    assert means == sorted(means) and ranks[-1]["method"] == "lowestvariance"
    # the selector below random is flagged and bold marks a best cell
    assert "class='r below'" in page or "class=' below'" in page or "below'>&#9660;" in page
    assert "&#9660;" in page and "best'" in page
    vs = [r for r in _rows(verdict_dir / "vs_random.csv")
          if r["method"] == "lowestvariance" and r["metric"] == "acc"]
    assert vs and {r["outcome"] for r in vs} <= {"loss", "tie"} and any(
        r["outcome"] == "loss" for r in vs)
    # honest wording: the K = classes defaults are not "what a user without labels gets"
    assert "what a user without labels gets" not in page
    # no dead link: the paper section is absent, and so is its link
    assert "href='#paper'" not in page


def test_a_capped_fit_appears_as_timed_out(tmp_path):
    exp = {
        "experiment": {"name": "capped"},
        "datasets": ["wine"],
        "evaluation": {"n_features": [2], "kmeans_runs": 2, "random_baseline_seeds": 2,
                       "nn_loo": False, "tuning": ["defaults"], "fit_timeout": 1},
        # UFSA with tol = 0 iterates far beyond one second of CPU time
        "methods": {"ufsa": {"fixed": {"max_iter": 10 ** 7, "tol": 0.0}},
                    "maxvariance": {}},
    }
    res = run(exp, tmp_path, plots=False, **quiet())
    rows = [r for r in _rows(tmp_path / "results.csv") if r["method"] == "ufsa"]
    assert rows and all(r["status"] == "timed out" and r["value"] == "" for r in rows)
    assert res.summary["fits_timed_out"] == 1
    assert ">timed out<" in (tmp_path / "report.html").read_text()
    # the cap is remembered: a resumed run does not try again
    res2 = run(exp, tmp_path, plots=False, **quiet())
    assert res2.summary["fits_computed"] == 0 and res2.summary["fits_timed_out"] == 1


def test_single_class_labels_are_refused(tmp_path):
    scipy_io = pytest.importorskip("scipy.io")
    rng = np.random.RandomState(0)
    scipy_io.savemat(tmp_path / "oneclass.mat", {"X": rng.rand(30, 5), "Y": np.ones((30, 1))})
    exp = {"experiment": {"name": "oneclass"}, "datasets": ["oneclass"],
           "evaluation": {"n_features": [2], "kmeans_runs": 2, "random_baseline_seeds": 2},
           "methods": {"maxvariance": {}}}
    res = run(exp, tmp_path / "out", data_dir=tmp_path, plots=False, **quiet())
    assert res.results == []
    reasons = [f["reason"] for f in res.summary["failures"]]
    assert any("single class" in r for r in reasons)


def test_ratio_grids_follow_fseval():
    # k = ceil(p d), with 0.07 * 100 = 7 exactly (not 8 from binary rounding)
    assert grid_counts({"ratios": [0.005, 0.07, 0.1]}, 100) == [1, 7, 10]
    assert grid_counts({"counts": [10, 50, 200]}, 100) == [10, 50]
    exp = experiment_from_dict({
        "datasets": ["wine"], "methods": {"mcfs": {}},
        "evaluation": {"grids": {"small": {"ratios": [0.1, 0.2]}, "papers": {"counts": [5]}},
                       "protocols": ["n_classes", "label_free"]}})
    assert exp.counts_for(exp.datasets[0], 13) == {"small": [2, 3], "papers": [5]}
    with pytest.raises(ValueError, match="protocols"):
        experiment_from_dict({"datasets": ["wine"], "evaluation": {"protocols": ["oracle"]}})
    with pytest.raises(ValueError, match="ratios"):
        experiment_from_dict({"datasets": ["wine"],
                              "evaluation": {"grids": {"g": {"ratios": [1.5]}}}})


def test_kmeans_start_is_part_of_the_protocol_and_of_the_cache_key():
    from ufsel.benchmark._units import eval_key
    from ufsel.evaluation import evaluate_selection

    assert experiment_from_dict({"datasets": ["wine"]}).kmeans_init == "random"
    exp = experiment_from_dict({"datasets": ["wine"],
                                "evaluation": {"kmeans_init": "k-means++"}})
    assert exp.kmeans_init == "k-means++" and exp.to_dict()["kmeans_init"] == "k-means++"
    with pytest.raises(ValueError, match="kmeans_init"):
        experiment_from_dict({"datasets": ["wine"], "evaluation": {"kmeans_init": "kmeans"}})
    args = ("fp", [0, 1], 10, 0, True, "v")
    assert eval_key(*args) == eval_key(*args, "random") != eval_key(*args, "k-means++")
    # the start reaches k-means: on structureless data the two starts end in different
    # local minima, with the same seeds
    rng = np.random.RandomState(0)
    X, y = rng.rand(300, 3), rng.randint(0, 6, 300)
    pp = evaluate_selection(X, y, [0, 1, 2], n_runs=5, loo=False, init="k-means++")
    rnd = evaluate_selection(X, y, [0, 1, 2], n_runs=5, loo=False, init="random")
    assert not np.array_equal(pp["inertia_runs"], rnd["inertia_runs"])


def test_label_free_protocol_gives_the_estimated_cluster_count(tmp_path):
    pytest.importorskip("ufsel.model_selection")
    from ufsel.benchmark._units import DataRef, load_data
    from ufsel.model_selection import estimate_n_clusters

    exp = {"experiment": {"name": "protocols"}, "datasets": ["wine"],
           "evaluation": {"n_features": [2, 4], "kmeans_runs": 2, "random_baseline_seeds": 2,
                          "nn_loo": False, "tuning": ["defaults"],
                          "protocols": ["n_classes", "label_free"]},
           "methods": {"mcfs": {}, "maxvariance": {}}}
    res = run(exp, tmp_path, plots=False, report=False, **quiet())
    X, _, _ = load_data(DataRef(label="wine", name="wine"))
    k_free = estimate_n_clusters(X, random_state=0)
    runs = _rows(tmp_path / "runs.csv")
    mcfs = {r["protocol"]: json.loads(r["params"])["n_clusters"] for r in runs
            if r["method"] == "mcfs"}
    assert mcfs == {"n_classes": 3, "label_free": k_free}
    assert res.summary["datasets"]["wine"]["n_clusters"] == {"n_classes": 3,
                                                             "label_free": k_free}
    # MaxVariance takes no cluster count: one fit serves both protocols
    mv = {r["fit_key"] for r in runs if r["method"] == "maxvariance"}
    assert len(mv) == 1


def test_leaderboard_experiment_file_is_valid():
    from ufsel.benchmark import load_experiment

    exp = load_experiment(REPO / "experiments" / "leaderboard.toml")
    assert set(exp.protocols) == {"n_classes", "label_free"}
    assert {"fseval_small", "fseval_large", "papers"} <= set(exp.grids)
    assert exp.kmeans_runs >= 10 and exp.random_baseline_seeds == 10 and exp.fit_timeout > 0
    assert set(exp.metrics) == {"acc", "nmi", "nmi_arithmetic", "nn_error"}
    # every registered selector (the test-only ones aside), except Moran's I: it joined
    # the registry for count data and has not been run on the leaderboard's data sets
    # (the leaderboard README lists it among the holes)
    assert {m.selector for m in exp.methods} == set(SELECTORS) - {"slowvariance", "failing",
                                                                  "moransi"}


def test_rising_objective_steps_and_identical_selections():
    pytest.importorskip("matplotlib")
    from ufsel.benchmark._statistics import identical_selections
    from ufsel.benchmark.plot import rising_steps

    # iterations are 1-based: the objective rises from iteration 2 to 3 only
    assert rising_steps([3.0, 2.0, 2.5, 1.0, 1.0]) == [3]
    assert rising_steps([3.0, 2.0, 1.0]) == []
    runs = [{"dataset": ds, "protocol": "n_classes", "method": m, "selector": m,
             "is_default": "true", "n_features": k, "eval_key": key}
            for ds, m, k, key in [("a", "spec", "2", "x"), ("a", "spec", "4", "y"),
                                  ("a", "laplacianscore", "2", "x"),
                                  ("a", "laplacianscore", "4", "y"),
                                  ("a", "mcfs", "2", "x"), ("a", "mcfs", "4", "z"),
                                  ("b", "spec", "2", "u"), ("b", "laplacianscore", "2", "v")]]
    # identical at every count on "a" only; MCFS agrees at one count, which is not enough
    assert identical_selections(runs) == {("laplacianscore", "spec"): ["a"]}
    # on one of the two data sets where both ran: kept at half, not above
    assert identical_selections(runs, min_share=0.5) == {("laplacianscore", "spec"): ["a"]}
    assert identical_selections(runs, min_share=0.6) == {}
