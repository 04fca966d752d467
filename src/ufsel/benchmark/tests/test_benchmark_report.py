"""The HTML report opens in headless Chromium without errors; the demo experiment."""

import shutil

import pytest

from ufsel.benchmark import load_experiment, run
from ufsel.benchmark.tests._helpers import EXPERIMENT, REPO, load_benchmark_script


def _checker():
    mod = load_benchmark_script("tools/check_report_chromium")
    if mod.find_chromium() is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return mod


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("report")
    exp = {**EXPERIMENT, "methods": {"maxvariance": {}, "mcfs": {"grid": {"n_neighbors": [3, 5]}}}}
    run(exp, out, progress=False, verbose=False)
    return out


def test_report_renders_in_headless_chromium(report_dir, tmp_path):
    checker = _checker()
    problems, shot = checker.check_report(report_dir, tmp_path / "shot.png", height=1500)
    assert problems == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_report_checker_flags_a_missing_figure(report_dir, tmp_path):
    checker = _checker()
    broken = tmp_path / "broken"
    shutil.copytree(report_dir, broken)
    (broken / "figures" / "curves_acc_defaults.png").unlink()
    problems, _ = checker.check_report(broken, tmp_path / "shot.png", height=600)
    assert any("missing linked file figures/curves_acc_defaults.png" in p for p in problems)


def test_demo_module_matches_the_shipped_demo_file():
    from ufsel.demo import DEMO_EXPERIMENT, demo_experiment

    path = REPO / "experiments" / "demo_digits.toml"
    if not path.is_file():
        pytest.skip("experiments/ is not in this checkout")
    shipped = load_experiment(path).to_dict()
    built = load_experiment(DEMO_EXPERIMENT).to_dict()
    shipped.pop("source_file")
    built.pop("source_file")
    assert shipped == built
    from ufsel._registry import SELECTORS

    assert set(demo_experiment()["methods"]) >= set(SELECTORS)


def test_demo_format_table():
    from ufsel.demo import format_table

    rows = [
        {"metric": "acc", "method": "mcfs", "tuning": "defaults", "n_features": 4, "value": 0.5},
        {"metric": "acc", "method": "mcfs", "tuning": "best_over_grid", "n_features": 4,
         "value": 0.9},
        {"metric": "acc", "method": "random", "tuning": "baseline", "n_features": 4,
         "value": 0.25},
        {"metric": "acc", "method": "all_features", "tuning": "baseline", "n_features": 64,
         "value": 0.75},
    ]
    text = format_table(rows)
    assert "mcfs" in text and "50.0" in text and "90.0" not in text
    assert "25.0" in text and "75.0" in text


def test_demo_names_the_methods_without_a_value():
    from ufsel.demo import methods_without_value

    ok = {"metric": "acc", "tuning": "defaults", "n_features": 4, "value": 0.5, "status": "ok",
          "reason": ""}
    rows = [{**ok, "method": "mcfs"},
            {**ok, "method": "dgufs", "value": "", "status": "timed out",
             "reason": "fit longer than the cap of 30 s of CPU time"},
            {**ok, "method": "random", "tuning": "baseline"},
            {**ok, "method": "udfs", "tuning": "best_over_grid", "value": "",
             "status": "failed"}]
    assert methods_without_value(rows) == {
        "dgufs": "fit longer than the cap of 30 s of CPU time"}
    assert methods_without_value(rows[:1]) == {}


def test_chromium_script_is_importable_without_chromium(monkeypatch):
    mod = load_benchmark_script("tools/check_report_chromium")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert mod.find_chromium() is None
    with pytest.raises(FileNotFoundError):
        mod.check_report(".")


@pytest.fixture(scope="module")
def one_dataset_report(tmp_path_factory):
    """A run of one data set of an experiment whose paper table names two."""
    from ufsel.benchmark.tests._helpers import quiet

    out = tmp_path_factory.mktemp("one")
    exp = {**EXPERIMENT, "methods": {"maxvariance": {}, "mcfs": {}},
           "published": [{"source": "UFSA Table 2", "metric": "acc", "n_features": 2,
                          "scale": 100, "values": {"wine": {"maxvariance": 70.22},
                                                   "coil20": {"maxvariance": 60.0,
                                                              "mcfs": 61.0}}}]}
    run(exp, out, **quiet())
    return out


def test_report_opens_with_the_verdict_against_random(one_dataset_report):
    import re

    from ufsel.benchmark._tables import read_csv

    page = (one_dataset_report / "report.html").read_text()
    body = page[page.index("<body>"):]
    # the verdict comes first: after the title, before the notes and every other section
    assert body.index("id='verdict'") < body.index("Baselines in every comparison")
    assert body.index("id='verdict'") < min(body.index(f"id='{a}'") for a in ("figures", "run"))
    assert "Protocol:" in body and "Wilcoxon signed-rank" in body
    assert "<p>On wine: " in body
    # one row per method with its outcome, as vs_random.csv has it
    rows = {r["method"]: r["outcome"] for r in read_csv(one_dataset_report / "vs_random.csv")
            if r["metric"] == "acc"}
    assert set(rows) == {"maxvariance", "mcfs"}
    section = body[body.index("id='verdict'"):body.index("</table>", body.index("id='verdict'"))]
    for method, outcome in rows.items():
        assert re.search(rf"<td class='l'>{method}</td><td class='[^']*'><b>{outcome}</b>",
                         section), (method, outcome)


def test_partial_run_is_titled_by_what_ran(one_dataset_report):
    page = (one_dataset_report / "report.html").read_text()
    assert "<h1>tiny: wine, 2 methods</h1>" in page
    assert "<title>tiny test experiment</title>" not in page
    assert "Part of the experiment <i>tiny test experiment</i>" in page
    assert "left out 1 data set (coil20)" in page
    # the paper table shows the data set that ran, not rows of "data set not run"
    assert "data set not run" not in page and "coil20</td>" not in page
    assert "70.2" in page


def test_report_scope_reads_the_experiment_file(tmp_path):
    # a run restricted with --methods / --datasets: the report names what the file
    # holds and the run left out (read back from the experiment file)
    from ufsel.benchmark._report import _scope

    src = tmp_path / "exp.toml"
    src.write_text('datasets = ["wine", "iris"]\n\n[experiment]\nname = "scope"\n\n'
                   '[methods.maxvariance]\n\n[methods.mcfs]\n', encoding="utf-8")
    full = load_experiment(src)
    ran = {"datasets": [{"label": full.datasets[0].label}],
           "methods": [{"label": full.methods[0].label}], "source_file": str(src)}
    left_ds, left_m = _scope(ran, None)
    assert left_ds == [full.datasets[1].label]
    assert left_m == [full.methods[1].label]
