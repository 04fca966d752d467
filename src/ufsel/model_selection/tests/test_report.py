"""The selection report: one self-contained HTML page, written by the API and the CLI."""

import re
import sys

import pytest

from ufsel.cli import main

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def cli_report(tmp_path_factory):
    """``ufsel select --dataset wine --report``: the default route, with every piece."""
    out = tmp_path_factory.mktemp("report")
    page = out / "r.html"
    assert main(["select", "--dataset", "wine", "--out", str(out / "ranking.csv"),
                 "--report", str(page)]) == 0
    return page


def _figures(text):
    return re.findall(r"<img src='data:image/svg\+xml;base64,", text)


def test_cli_writes_one_self_contained_page(cli_report):
    text = cli_report.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    # nothing to fetch: every src/href is embedded (data:) or an anchor on the page
    links = re.findall(r"""(?:src|href)=['"]([^'"]*)['"]""", text)
    assert links and all(link.startswith(("data:", "#")) for link in links), \
        [link[:40] for link in links if not link.startswith(("data:", "#"))]
    assert len(_figures(text)) >= 4
    for anchor in ("curve", "null", "candidates", "neighbours", "stability"):
        assert f"<h2 id='{anchor}'>" in text
    assert "Not computed" not in text  # the default route computes every piece
    # the folder holds the page and the ranking files only: no temporary file left
    assert sorted(p.name for p in cli_report.parent.iterdir()) == [
        "r.html", "ranking.csv", "ranking.csv.json"]


def test_report_header_says_what_was_done(cli_report):
    import json

    text = cli_report.read_text(encoding="utf-8")
    meta = json.loads((cli_report.parent / "ranking.csv.json").read_text())
    decided_by = meta["count"]["decided_by"]
    assert f"{meta['n_features_selected']} (chosen without labels: {decided_by})" in text
    assert f"<b>{meta['method']}</b>" in text
    assert f"<b>{meta['verdict_details']['outcome']}</b>" in text
    assert "178 samples x 13 features" in text
    for f in meta["selected_features"]:
        assert f"<td class='l'>{f['name']}</td>" in text


def test_report_renders_in_headless_chromium(cli_report, tmp_path):
    from ufsel.benchmark.tests._helpers import load_benchmark_script

    checker = load_benchmark_script("tools/check_report_chromium")
    if checker.find_chromium() is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    problems, shot = checker.check_report(cli_report, tmp_path / "shot.png", height=3000)
    assert problems == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_named_method_with_a_given_count_says_not_computed(tmp_path):
    from ufsel.datasets import make_planted_clusters
    from ufsel.model_selection import AutoSelector, selection_report

    X, _, _ = make_planted_clusters(n_samples=120, random_state=0)
    sel = AutoSelector(n_features_to_select=6, methods=["laplacianscore"], choice="criterion",
                       n_resamples=0, random_state=0).fit(X)
    page = selection_report(sel, tmp_path / "named.html", feature_names=[
        f"gene{j}" for j in range(X.shape[1])])
    text = page.read_text(encoding="utf-8")
    assert "not needed: count given (6 features)" in text  # no curve
    assert "asks the recommender nothing" in text          # no nearest data sets
    assert "not asked (n_resamples=0)" in text             # no stability
    assert len(_figures(text)) >= 1 and "gene" in text
    with pytest.raises(ValueError, match="fitted AutoSelector"):
        selection_report(AutoSelector(), tmp_path / "unfitted.html")


def test_without_matplotlib_one_clear_error(tmp_path, monkeypatch, capsys):
    from ufsel.model_selection import AutoSelector, selection_report

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    with pytest.raises(ImportError, match=r"pip install 'ufsel\[plot\]'"):
        selection_report(AutoSelector(), tmp_path / "r.html")
    # the command refuses before it reads or fits anything
    assert main(["select", "--dataset", "wine", "--report", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ufsel[plot]" in err


@pytest.mark.parametrize("name, message", [("r.txt", "name an .html file"),
                                           ("missing/r.html", "its folder does not exist")])
def test_report_path_is_checked_first(tmp_path, capsys, name, message):
    assert main(["select", "--dataset", "wine", "--report", str(tmp_path / name)]) == 2
    assert message in capsys.readouterr().err
