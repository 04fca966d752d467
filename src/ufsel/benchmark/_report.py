"""``ufsel report RESULTS_DIR``: one static HTML page from a results folder.

The page has no script and no external resource: inline CSS, figures as
relative ``<img>`` links to ``figures/*.png`` (SVG copies beside them), so it
opens from disk in any browser and can be archived with its folder.
"""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path

from ..utils._html import escape as _e
from ..utils._html import html_page
from ..utils._html import html_table as _table
from ._cache import atomic_write_text
from ._statistics import _num
from ._tables import over_fast_cap, read_csv

__all__ = ["write_report"]

METRIC_NAMES = {"acc": "clustering accuracy (ACC)",
                "nmi": "normalized mutual information (NMI, max normalisation)",
                "nmi_arithmetic": "NMI, arithmetic normalisation (scikit-learn's, FSEVAL's)",
                "nn_error": "1-NN leave-one-out error"}
PROTOCOL_NAMES = {"n_classes": "K = number of classes (from the labels)",
                  "label_free": "label-free K (estimate_n_clusters)", "": ""}
STATUS_TEXT = {"timed out": "timed out", "failed": "failed", "not run": "not run"}


def _pct(v, spread=None):
    x = _num(v)
    if x is None:
        return "&ndash;"
    s = _num(spread)
    return f"{100 * x:.1f}" + (f" <span class='muted'>± {100 * s:.1f}</span>" if s else "")


def _comparison_section(rows, left_out=()):
    if left_out:  # the rows of data sets this run did not include say only "not run"
        rows = [r for r in rows if r["dataset"] not in set(left_out)]
    if not rows:
        return ""
    parts = ["<h2 id='paper'>Paper vs ufsel</h2>",
             "<p>The paper's printed numbers beside ufsel's on the same data sets and feature "
             "counts, in both tuning modes; the mode marked &#9733; follows the paper's "
             "protocol. Difference = ufsel &minus; paper (green: ufsel better, red: worse). "
             "The data sets may differ from the paper's copies (see the data notes).</p>"]
    groups = {}
    for r in rows:
        groups.setdefault((r["source"], r["metric"]), []).append(r)
    for (source, metric), rr in groups.items():
        scale = _num(rr[0]["scale"]) or 1
        unit = " (%)" if scale == 100 else ""
        ks = sorted({str(r["n_features"]) for r in rr if str(r["n_features"]) != "all"})
        kdesc = f", {ks[0]} features" if len(ks) == 1 else ""
        parts.append(f"<h3>{_e(source)}: {_e(METRIC_NAMES.get(metric, metric))}{_e(kdesc)}</h3>")
        lower_better = metric == "nn_error"

        def cls(x, lower_better=lower_better):
            if x is None or x == 0:
                return ""
            return "pos" if (x < 0) == lower_better else "neg"

        def fmt(x):
            return "&ndash;" if x is None else f"{x:.1f}"

        def fmtd(x):
            if x is None:
                return "&ndash;"
            x = round(x, 1) or 0.0  # no "-0.0"
            return f"<span class='{cls(x)}'>{x:+.1f}</span>"

        paper_mode = next((r["paper_tuning"] for r in rr if r["paper_tuning"] != "baseline"),
                          "")
        star = {t: " &#9733;" if t == paper_mode else "" for t in ("defaults", "best_over_grid")}
        body = []
        for r in rr:
            body.append([_e(r["dataset"]), _e(r["method"]), _e(r["n_features"]),
                         fmt(_num(r["paper"])),
                         fmt(_num(r["ufsel_defaults"])), fmtd(_num(r["difference_defaults"])),
                         fmt(_num(r["ufsel_best_over_grid"])),
                         fmtd(_num(r["difference_best_over_grid"])), _e(r["note"])])
        parts.append(_table(["data set", "method", "features", f"paper{unit}",
                             f"ufsel defaults{star['defaults']}", "difference",
                             f"ufsel best over grid{star['best_over_grid']}", "difference",
                             "note"], body, left=3, left_last=True))
    return "".join(parts)


def _better(metric, a, b):
    return a > b if metric != "nn_error" else a < b


def _results_section(results, experiment, *, max_datasets=8):
    """Per-count tables: the best cell of each column in bold, cells below random flagged."""
    datasets = [d["label"] for d in experiment["datasets"]]
    parts = ["<h2 id='tables'>Results per feature count</h2>"]
    if len({r["dataset"] for r in results}) > max_datasets:
        parts.append("<p>Too many data sets for per-count tables on this page: every value "
                     "is in <a href='results.csv'>results.csv</a> (one row per data set, "
                     "protocol, method, feature count and metric).</p>")
        return "".join(parts)
    parts.append(
        "<p>Values in %. ACC and NMI: "
        + ("the k-means run with the lowest objective" if experiment.get(
            "kmeans_report") == "best_objective" else "mean over the k-means runs")
        + f" ({experiment.get('kmeans_runs')} runs, "
        + f"{experiment.get('kmeans_init', 'random')} start; ± is the standard deviation over the "
        "runs, or over the random draws for the random baseline). <b>Bold</b>: the best "
        "method in the column (feature count) of that data set; <span class='below'>"
        "&#9660; shaded</span>: worse than the mean of the random subsets of the same size. "
        "<b>defaults</b>: each method's default parameters (with the experiment's fixed "
        "protocol parameters); <b>best over grid</b>: for each feature count and metric, "
        "the best grid setting judged with the labels (what the papers report; "
        "optimistic).</p>")
    methods = [m["label"] for m in experiment["methods"]]
    protocols = experiment.get("protocols", ["n_classes"])
    for metric in ("acc", "nmi", "nmi_arithmetic", "nn_error"):
        mrows = [r for r in results if r["metric"] == metric]
        if not mrows:
            continue
        ks = sorted({int(r["n_features"]) for r in mrows if r["method"] != "all_features"})
        if len(ks) > 10:
            step = math.ceil(len(ks) / 10)
            ks = ks[::step]
        for protocol in protocols:
            for tuning in experiment["tuning"]:
                ptxt = f", {PROTOCOL_NAMES[protocol]}" if len(protocols) > 1 else ""
                parts.append(f"<h3>{_e(METRIC_NAMES[metric])}, tuning: "
                             f"{_e(tuning.replace('_', ' '))}{_e(ptxt)}</h3>")
                body, classes = [], []
                for ds in datasets:
                    table = {}
                    for m in methods + ["random", "all_features"]:
                        want = "baseline" if m in ("random", "all_features") else tuning
                        table[m] = {int(r["n_features"]): r for r in mrows
                                    if r["dataset"] == ds and r["method"] == m
                                    and r["tuning"] == want
                                    and r.get("protocol", "") in (protocol, "")}
                    best, rand = {}, {}
                    for k in ks:
                        vals = [_num(table[m][k]["value"]) for m in methods if k in table[m]]
                        vals = [v for v in vals if v is not None]
                        if vals:
                            best[k] = max(vals) if metric != "nn_error" else min(vals)
                        if k in table["random"]:
                            rand[k] = _num(table["random"][k]["value"])
                    for m in methods + ["random", "all_features"]:
                        rr = table[m]
                        if not rr:
                            continue
                        if m == "all_features":
                            r = next(iter(rr.values()))
                            cells = [_pct(r["value"], r["spread"])] * len(ks)
                            label = f"all features ({r['n_features']})"
                        else:
                            cells = [_cell(rr.get(k), metric, best.get(k),
                                           rand.get(k) if m != "random" else None)
                                     for k in ks]
                            label = m
                        body.append([_e(ds), _e(label)] + cells)
                        classes.append("baseline" if m in ("random", "all_features") else "")
                parts.append(_table(["data set", "method"] + [str(k) for k in ks], body,
                                    left=2, row_classes=classes))
    return "".join(parts)


def _cell(r, metric, best, rand):
    """A table cell: value (bold when best, flagged when below random) or the status."""
    if r is None:
        return "&ndash;"
    v = _num(r["value"])
    if v is None:
        return (_e(STATUS_TEXT.get(r.get("status"), r.get("status") or "&ndash;")), "status")
    cls = []
    if best is not None and abs(v - best) < 1e-12:
        cls.append("best")
    text = _pct(v, r.get("spread"))
    if rand is not None and _better(metric, rand, v) and abs(v - rand) > 1e-12:
        cls.append("below")
        text = "&#9660; " + text
    return (text, " ".join(cls))


def _vs_random_section(vs_random, experiment):
    """The opening verdict: each method's wins, ties and losses against random subsets.

    Drawn from ``vs_random.csv`` alone, so it is there for a run on one data
    set too (the Friedman verdict needs two); one table per protocol, for the
    main metric and the first grid.
    """
    if not vs_random:
        return ""
    metrics = [r["metric"] for r in vs_random]
    metric = "acc" if "acc" in metrics else metrics[0]
    grid = next(r["grid"] for r in vs_random if r["metric"] == metric)
    rows = [r for r in vs_random if r["metric"] == metric and r["grid"] == grid]
    protocols = list(dict.fromkeys(r["protocol"] for r in rows))
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    one = len(datasets) == 1
    paired = next((r["paired_over"] for r in rows if r.get("paired_over")), "")
    parts = ["<h2 id='verdict'>Verdict: each method against random subsets</h2>",
             "<p class='verdict'>Protocol: on each data set, each method at its default "
             "parameters is compared with random feature subsets of the same sizes ("
             f"{_e(experiment.get('random_baseline_seeds'))} draws, their mean) by a paired "
             f"Wilcoxon signed-rank test over {_e(paired or 'the paired observations')}, on "
             f"{_e(METRIC_NAMES.get(metric, metric))} (grid <code>{_e(grid)}</code>): a "
             "<b>win</b> when the method is better with p &lt; 0.05, a <b>loss</b> when it "
             "is worse with p &lt; 0.05, a <b>tie</b> otherwise. Labels are used only to "
             "measure.</p>"]
    for protocol in protocols:
        prow = [r for r in rows if r["protocol"] == protocol]
        methods = list(dict.fromkeys(r["method"] for r in prow))
        if len(protocols) > 1 or protocol:
            parts.append(f"<h3>{_e(PROTOCOL_NAMES.get(protocol, protocol))}</h3>")
        body = []
        for m in methods:
            outs = [r for r in prow if r["method"] == m]
            w, t, lo = (sum(r["outcome"] == x for r in outs) for x in ("win", "tie", "loss"))
            missing = len(outs) - w - t - lo
            if one:
                r = outs[0]
                diff, pv = _num(r["mean_difference"]), _num(r["p_value"])
                outcome = r["outcome"] if r["outcome"] in ("win", "tie", "loss") else (
                    STATUS_TEXT.get(r["status"], r["status"]))
                cls = {"win": "pos", "loss": "neg"}.get(outcome, "")
                body.append([_e(m), (f"<b>{_e(outcome)}</b>", cls),
                             "&ndash;" if diff is None else f"{100 * diff:+.1f}",
                             "&ndash;" if pv is None else f"{pv:.2g}"])
            else:
                body.append([_e(m), str(w), str(t), str(lo),
                             str(missing) if missing else "&ndash;",
                             "<b>yes</b>" if w > len(outs) / 2 else "no"])
        tally = {x: [m for m in methods if any(r["method"] == m and r["outcome"] == x
                                                for r in prow)] for x in ("win", "tie", "loss")}
        if one:
            none = [m for m in methods if not any(m in v for v in tally.values())]
            parts.append("<p>On " + _e(datasets[0]) + ": " + "; ".join(
                f"<b>{len(v)} {w}</b> ({_e(', '.join(v))})" for w, v in (
                    ("beat random", tally["win"]), ("tie", tally["tie"]),
                    ("lose", tally["loss"]), ("no value", none)) if v) + ".</p>")
        header = (["method", "against random", "difference (points)", "p"] if one else
                  ["method", "wins", "ties", "losses", "no value (timed out, failed, not run)",
                   f"beats random on most of the {len(datasets)} data sets"])
        parts.append(_table(header, body))
    parts.append("<p class='muted'>Every test is in <a href='vs_random.csv'>vs_random.csv</a>"
                 " (every metric, with the means it compares).</p>")
    return "".join(parts)


def _scope(experiment, results):
    """(data sets, methods) of the experiment file that this run left out."""
    ran_ds = [d["label"] for d in experiment["datasets"]]
    ran_m = [m["label"] for m in experiment["methods"]]
    src = experiment.get("source_file")
    full_ds, full_m = [], []
    if src and Path(src).is_file():
        from ._experiment import load_experiment

        try:
            full = load_experiment(src)
        except (ValueError, OSError):
            full = None
        if full is not None:
            full_ds = [d.label for d in full.datasets]
            full_m = [m.label for m in full.methods]
    for p in experiment.get("published", []):  # data sets the paper's table names
        full_ds += [d for d in p.get("values", {}) if d not in full_ds]
    return ([d for d in full_ds if d not in ran_ds], [m for m in full_m if m not in ran_m])


def _verdict_section(boards, vs_random, experiment, identical):
    """Mean-rank tables (best first) with the CD diagrams, and wins over random."""
    if not boards:
        return ""
    protocols = experiment.get("protocols", ["n_classes"])
    first_grid = boards[0]["grid"]
    parts = ["<h2 id='verdict'>Verdict</h2>"]
    wtl = {}
    for r in vs_random:
        wtl.setdefault((r["protocol"], r["grid"], r["metric"], r["method"]), []).append(r)
    main_metric = "acc" if any(b["metric"] == "acc" for b in boards) else boards[0]["metric"]
    for protocol in protocols:
        board = next((b for b in boards if b["protocol"] == protocol and b["grid"] == first_grid
                      and b["metric"] == main_metric), None)
        if board is None or board["friedman"] is None:
            continue
        fr = board["friedman"]
        order = fr.order()
        rows, counts = [], {}
        for i, m in enumerate(order, 1):
            outs = [r["outcome"] for r in wtl.get((protocol, first_grid, main_metric, m), [])]
            w, t, lo = (outs.count(x) for x in ("win", "tie", "loss"))
            other = len(outs) - w - t - lo
            counts[m] = (w, len(outs))
            same_as_best = "" if fr.nemenyi_p is None else (
                "yes" if m == order[0] or fr.nemenyi_p.loc[order[0], m] >= fr.alpha else "no")
            rows.append([str(i), _e(m), f"{fr.mean_ranks[m]:.2f}",
                         "&ndash;" if m == "random" else f"{w} / {t} / {lo}"
                         + (f" <span class='muted'>(+{other} timed out, failed or not "
                            "run)</span>" if other else ""),
                         "&ndash;" if m == "random" else (
                             "<b>yes</b>" if outs and w > len(outs) / 2 else "no"),
                         same_as_best])
        beats = [m for m in order if m != "random" and counts[m][1]
                 and counts[m][0] > counts[m][1] / 2]
        not_beats = [m for m in order if m != "random" and m not in beats]
        n_ds = len(fr.datasets)
        pr = PROTOCOL_NAMES[protocol]
        parts.append(f"<h3>{_e(pr)}: {_e(METRIC_NAMES[main_metric])}, grid "
                     f"<code>{_e(first_grid)}</code></h3>")
        parts.append(
            "<p class='verdict'>"
            + (f"<b>Beat random subsets on most data sets</b> (a significant paired win on "
               f"more than half of them): {_e(', '.join(beats))}. " if beats else
               "<b>No method beats random subsets on most data sets.</b> ")
            + (f"<b>Do not</b>: {_e(', '.join(not_beats))}. " if not_beats else "")
            + f"Friedman test over {n_ds} data sets and {len(fr.methods)} methods: "
            f"&chi;&sup2; = {fr.statistic:.1f}, p = {fr.p_value:.2g}; Nemenyi critical "
            f"difference {fr.critical_difference:.2f} ranks.</p>")
        parts.append(_table(["#", "method", "mean rank", "vs random: win / tie / loss",
                             "beats random on most data sets", "not separable from the best "
                             "(Nemenyi)"], rows, left=2))
        dropped = []
        dropped.append("a method that timed out or failed on a data set ranks last there")
        if board["dropped_methods"]:
            dropped.append("methods without a value on half of the data sets (timed out, "
                           "failed or not run) are left out of the ranks: "
                           + ", ".join(board["dropped_methods"]))
        if board["dropped_datasets"]:
            dropped.append("data sets the run has not finished are left out of the ranks: "
                           + ", ".join(board["dropped_datasets"]))
        if dropped:
            parts.append(f"<p class='muted'>{_e('; '.join(dropped))}.</p>")
        cd = f"figures/cd_{protocol}_{first_grid}_{main_metric}.png"
        parts.append(f"<figure><img src='{_e(cd)}' alt='critical-difference diagram'>"
                     "<figcaption>Critical-difference diagram: mean rank per method (1 = best) "
                     "over the data sets; a bar joins methods whose difference the Nemenyi "
                     "test does not find significant at 5 %.</figcaption></figure>")
    parts.append(
        "<p>How to read it: each method's value on a data set is its mean over the grid's "
        "feature counts (as FSEVAL does); ranks are computed per data set and averaged. "
        "<i>vs random</i> compares, on each data set, the method with random feature subsets "
        "of the same sizes (10 draws) by a Wilcoxon signed-rank test over the pairs "
        "(feature count &times; k-means seed, the same seeds for both); win/loss: p &lt; 0.05. "
        "Every table is in <a href='vs_random.csv'>vs_random.csv</a> and "
        "<a href='ranks.csv'>ranks.csv</a>.</p>")
    if identical:
        items = [f"{' = '.join(g)} on {len(d)} data set{'s' if len(d) > 1 else ''}"
                 for g, d in sorted(identical.items())]
        items = items[:12] + ([f"{len(items) - 12} more pairs"] if len(items) > 12 else [])
        parts.append("<p class='note'>Identical selections (the same features at every "
                     "count, so identical curves and values), pairs identical on at least "
                     "half of the data sets where both ran: " + _e("; ".join(items))
                     + "." + (" SPEC with its default phi2 score ranks the features as "
                              "Laplacian Score does (Zhao &amp; Liu 2007)." if any(
                                  {"spec", "laplacianscore"} <= set(g) for g in identical)
                              else "") + "</p>")
    others = [b for b in boards if b["friedman"] is not None and not (
        b["grid"] == first_grid and b["metric"] == main_metric)]
    if others:
        parts.append("<details><summary>Mean ranks and CD diagrams for every metric, grid and "
                     "protocol</summary>")
        for b in others:
            fr = b["friedman"]
            parts.append(f"<h4>{_e(PROTOCOL_NAMES[b['protocol']])}: "
                         f"{_e(METRIC_NAMES[b['metric']])}, grid <code>{_e(b['grid'])}</code>"
                         f" &mdash; Friedman p = {fr.p_value:.2g}, CD = "
                         f"{fr.critical_difference:.2f}, {len(fr.datasets)} data sets</h4>")
            parts.append("<p>" + _e(", ".join(f"{m} {fr.mean_ranks[m]:.2f}"
                                              for m in fr.order())) + "</p>")
            parts.append(f"<img src='figures/cd_{_e(b['protocol'])}_{_e(b['grid'])}_"
                         f"{_e(b['metric'])}.png' alt='critical-difference diagram'>")
        parts.append("</details>")
    return "".join(parts)


def _per_dataset_section(boards, vs_random, experiment, slow=frozenset()):
    """Grid means per data set and method: best in bold, losses to random flagged, values
    that needed more than the fast cap (``slow``: (protocol, data set, method)) marked."""
    if not boards:
        return ""
    first_grid = boards[0]["grid"]
    main_metric = "acc" if any(b["metric"] == "acc" for b in boards) else boards[0]["metric"]
    loss = {(r["protocol"], r["grid"], r["metric"], r["dataset"], r["method"]): r["outcome"]
            for r in vs_random}
    parts = ["<h2 id='datasets'>Per data set</h2>",
             f"<p>{_e(METRIC_NAMES[main_metric])} in %, mean over the feature counts of grid "
             f"<code>{_e(first_grid)}</code>. <b>Bold</b>: best on the data set. "
             "<span class='below'>&#9660; shaded</span>: significantly worse than random "
             "subsets of the same sizes (paired Wilcoxon test, p &lt; 0.05). Methods in the "
             "order of the verdict."
             + (" <sup class='slow'>slow</sup>: the fit needed more than the run's CPU cap "
                "and was computed under a longer one (see <a href='#runtime'>Runtime</a>)."
                if slow else "") + "</p>"]
    for b in boards:
        if b["grid"] != first_grid or b["metric"] != main_metric:
            continue
        protocol = b["protocol"]
        order = b["friedman"].order() if b["friedman"] else b["methods"]
        order = order + [m for m in b["methods"] if m not in order]
        parts.append(f"<h3>{_e(PROTOCOL_NAMES[protocol])}</h3>")
        body = []
        for ds in b["datasets"]:
            vals = {m: b["cells"].get((ds, m)) for m in order}
            nums = [v for m, v in vals.items() if isinstance(v, float) and m != "random"]
            best = (max(nums) if main_metric != "nn_error" else min(nums)) if nums else None
            row = [_e(ds)]
            for m in order:
                v = vals[m]
                if v is None:
                    row.append("&ndash;")
                elif not isinstance(v, float):
                    row.append((_e(STATUS_TEXT.get(v, v)), "status"))
                else:
                    cls = "best" if best is not None and abs(v - best) < 1e-12 else ""
                    text = f"{100 * v:.1f}"
                    if loss.get((protocol, first_grid, main_metric, ds, m)) == "loss":
                        cls, text = (cls + " below").strip(), "&#9660; " + text
                    if (protocol, ds, m) in slow:
                        text += " <sup class='slow'>slow</sup>"
                    row.append((text, cls))
            body.append(row)
        parts.append(_table(["data set"] + [_e(m) for m in order], body))
    return "".join(parts)


def _write_ranks(out, boards):
    """ranks.csv: mean rank of every method per protocol, grid and metric."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["protocol", "grid", "metric", "method", "mean_rank", "n_datasets",
                "friedman_statistic", "friedman_p", "critical_difference"])
    for b in boards:
        fr = b["friedman"]
        if fr is None:
            continue
        for m in fr.order():
            w.writerow([b["protocol"], b["grid"], b["metric"], m, repr(fr.mean_ranks[m]),
                        len(fr.datasets), repr(fr.statistic), repr(fr.p_value),
                        repr(fr.critical_difference)])
    atomic_write_text(out / "ranks.csv", buf.getvalue())


def _figures_section(manifest):
    if not manifest:
        return ("<h2 id='figures'>Figures</h2><p class='muted'>No figures (matplotlib is not "
                "installed, or there was nothing to draw).</p>")
    parts = ["<h2 id='figures'>Figures</h2>"]
    titles = {"curves": "{metric} in % against the number of selected features (tuning: "
                        "{tuning}{protocol}).{highlight} Random subsets: mean and one "
                        "standard deviation over the draws.",
              "sensitivity": "Parameter sensitivity of {method} ({metric}, %)",
              "convergence": "Convergence of the default settings: objective per iteration. "
                             "Every selector minimises its objective, so a rise is marked "
                             "(&#9650;).{rising}"}
    for f in manifest:
        if f["kind"] == "cd":
            continue  # shown in the verdict
        pngs = [x for x in f["files"] if x.endswith(".png")]
        svgs = [x for x in f["files"] if x.endswith(".svg")]
        rising = f.get("rising") or []
        cap = titles[f["kind"]].format(
            metric=METRIC_NAMES.get(f.get("metric"), f.get("metric")),
            tuning=str(f.get("tuning", "")).replace("_", " "), method=f.get("method", ""),
            protocol=(f"; {PROTOCOL_NAMES.get(f.get('protocol', ''), '')}"
                      if f.get("protocol") else ""),
            rising=(f" Rising: {_e(', '.join(rising))}." if rising else " No curve rises."),
            highlight=(f" Highlight-few: the {len(f['shown'])} methods of best mean rank in "
                       f"ACC ({_e(', '.join(f['shown']))}) of {f['n_methods']}; every method "
                       "is in the tables." if f.get("shown") and f.get("n_methods", 0)
                       > len(f["shown"]) else ""))
        for png, svg in zip(pngs, svgs + [None] * len(pngs)):
            link = f" (<a href='figures/{_e(svg)}'>SVG</a>)" if svg else ""
            parts.append(f"<figure><img src='figures/{_e(png)}' alt='figure'>"
                         f"<figcaption>{cap}{link}</figcaption></figure>")
    return "".join(parts)


def _fit_time_cell(r, fast_cap):
    """The runtime table's fit cell: wall seconds, the CPU seconds where measured, the
    status, and a mark on a value that needed more than the fast cap (slow, not bad)."""
    wall = f"{float(r['fit_time_s']):.2f}" if r["fit_time_s"] else "&ndash;"
    cpu = _num(r.get("fit_cpu_s"))
    cap = _num(r.get("fit_cap_s"))
    text = wall + (f" ({cpu:.1f} CPU)" if cpu is not None else "")
    if over_fast_cap(r, fast_cap):
        return (f"{text} <b class='slow'>slow: over the {fast_cap:g} s cap"
                + (f", computed under {cap:g} s" if cap else "") + "</b>")
    if r.get("status", "ok") != "ok":
        return text + f" <i>({_e(r['status'])}" + (
            f" at the {cap:g} s cap" if cap and r["status"] == "timed out" else "") + ")</i>"
    return text


def _slow_cells_note(rows, fast_cap):
    """One paragraph naming the cells whose value needed more than the fast cap."""
    slow = [r for r in rows if over_fast_cap(r, fast_cap)]
    if not slow:
        return ""
    by_fit = {}
    for r in slow:  # the protocols of one fit share its time
        cpu = _num(r.get("fit_cpu_s"))
        key = (r["dataset"], r["method"], cpu)
        by_fit.setdefault(key, []).append(r["protocol"])
    items = [f"{m} on {d} ({', '.join(p)}: "
             + (f"{cpu:.0f} s CPU" if cpu is not None else "over the cap") + ")"
             for (d, m, cpu), p in sorted(by_fit.items(), key=lambda kv: (kv[0][1], kv[0][0]))]
    many = len(slow) != 1
    return (f"<p class='note'>{len(slow)} cell{'s' if many else ''} ha{'ve' if many else 's'} "
            f"a value that needed more than the "
            f"{fast_cap:g} s cap (marked <b class='slow'>slow</b> below): they were computed "
            f"again under a longer cap, and their values are in the ranks and the statistics. "
            f"A slow method is not a bad one. {_e('; '.join(items))}.</p>")


def _runtime_section(rows, fast_cap=None):
    if not rows:
        return ""
    body = [[_e(r["dataset"]), _e(f"{r['n_samples']} x {r['n_features_total']}"), _e(r["method"]),
             _fit_time_cell(r, fast_cap),
             _e(r["n_iter"]) if r["n_iter"] else "&ndash;",
             _e(r["grid_settings"]), f"{float(r['grid_fit_time_total_s']):.1f}",
             "yes" if r["from_cache"] == "true" else "no", _e(r["warnings"])] for r in rows]
    cap_text = (f" Each fit is ended after {fast_cap:g} s of CPU time (the run's cap, shown "
                "as \"timed out\"); a fit computed again under a longer cap says so."
                if fast_cap else "")
    return ("<h2 id='runtime'>Runtime</h2><p>Fit time of the default setting (wall clock, "
            "and CPU where measured; measured when it was computed, possibly in an earlier "
            "run; the machine may have been shared) and the total over the grid." + cap_text
            + "</p>" + _slow_cells_note(rows, fast_cap)
            + _table(["data set", "n x d", "method", "fit (s)", "iterations", "grid settings",
                      "grid total (s)", "from cache", "warnings"], body, left=3))


def describe_blas(blas):
    """One line for a run's BLAS list (``_runner.blas_info``), e.g.
    ``openblas 0.3.30 (Haswell kernel)``."""
    return "; ".join(f"{b.get('internal_api')} {b.get('version')}"
                     + (f" ({b['architecture']} kernel)" if b.get("architecture") else "")
                     for b in blas)


def _summary_section(summary):
    if not summary:
        return ""
    s = summary
    rows = [["fits", s["fits_computed"], s["fits_cached"], s["fits_failed"]],
            ["evaluations", s["evals_computed"], s["evals_cached"], s["evals_failed"]]]
    parts = ["<h2 id='run'>Run</h2>",
             _table(["", "ran", "cached", "failed"], [[_e(c) for c in r] for r in rows]),
             f"<p>Wall time of the last run: {s['wall_time_s']:.1f} s with n_jobs={s['n_jobs']}."
             "</p>" if s.get("wall_time_s") is not None else "",
             f"<p>BLAS of the last run: {_e(describe_blas(s['blas']))}.</p>"
             if s.get("blas") else "",
             f"<p>Fits ended at the cap of {s['fit_timeout_s']:g} s of CPU time (shown as "
             f"\"timed out\"): {s.get('fits_timed_out', 0)}.</p>" if s.get("fit_timeout_s")
             else ""]
    if len(s.get("history", [])) > 1:
        parts.append("<p>All runs into this folder (a run that was interrupted does not "
                     "appear; its finished work shows as cached in the next one):</p>")
        parts.append(_table(["finished (UTC)", "wall time (s)", "n_jobs", "fits ran",
                             "fits cached", "evaluations ran", "evaluations cached", "failed"], [
            [_e(h["finished_utc"]), f"{h['wall_time_s']:.1f}", _e(h["n_jobs"]),
             _e(h["fits_computed"]), _e(h["fits_cached"]), _e(h["evals_computed"]),
             _e(h["evals_cached"]), _e(h["fits_failed"] + h["evals_failed"])]
            for h in s["history"]]))
    if s.get("datasets"):
        parts.append(_table(["data set", "n", "d", "classes", "preprocess", "feature counts"], [
            [_e(k), _e(v["n_samples"]), _e(v["n_features"]), _e(v["n_classes"]),
             _e(v["preprocess"]), _e(", ".join(str(c) for c in v["counts"]))
             + (f" <span class='muted'>(dropped, &gt; d: {_e(v['dropped'])})</span>"
                if v.get("dropped") else "")]
            for k, v in s["datasets"].items()]))
    if s["failures"]:
        parts.append("<h3>Failed or skipped</h3>")
        parts.append(_table(["data set", "method", "stage", "parameters", "reason"], [
            [_e(f["dataset"]), _e(f["method"]), _e(f["stage"]), _e(f["params"]), _e(f["reason"])]
            for f in s["failures"]], left=5))
    return "".join(parts)


def stored_identical_selections(summary):
    """The identical selections that ``summary.json`` keeps for a folder without
    ``runs.csv`` (``{(method, ...): [data set, ...]}``, as
    :func:`~ufsel.benchmark._statistics.identical_selections` gives them)."""
    return {tuple(group): list(datasets)
            for group, datasets in (summary or {}).get("identical_selections", [])}


def _redraw_cd(out, boards, manifest):
    """Redraw the critical-difference diagrams from ``boards``; the other figures stay."""
    try:
        from .plot import plot_cd
    except ImportError:
        return manifest
    figdir = out / "figures"
    figdir.mkdir(exist_ok=True)
    kept = [f for f in manifest if f["kind"] != "cd"]
    cds = []
    for board in boards:
        files = plot_cd(board["friedman"], figdir / (f"cd_{board['protocol']}_{board['grid']}_"
                                                     f"{board['metric']}"))
        if files:
            cds.append({"kind": "cd", "metric": board["metric"], "grid": board["grid"],
                        "protocol": board["protocol"], "files": files})
    manifest = kept + cds
    atomic_write_text(figdir / "index.json", json.dumps(manifest, indent=1))
    return manifest


def write_report(results_dir, *, redraw=True):
    """Write ``RESULTS_DIR/report.html`` (figures redrawn when matplotlib is available).

    Parameters
    ----------
    results_dir : str or path
        A results folder written by :func:`run`, or one that keeps only its
        summary tables (``vs_random.csv``, ``runtime.csv``, ``summary.json``,
        ``experiment.json``, without ``results.csv``): then the verdict and
        ``ranks.csv`` come from ``vs_random.csv``, only the critical-difference
        diagrams are redrawn, and the per-count tables are left out.
    redraw : bool, default=True
        Redraw the figures (when matplotlib is installed); False reuses the
        figures already there.
    """
    out = Path(results_dir)
    full = (out / "results.csv").is_file()
    if not (full or (out / "vs_random.csv").is_file()) or not (out / "experiment.json").is_file():
        raise FileNotFoundError(
            f"{out} is not a ufsel results folder (no results.csv / experiment.json); run "
            "`ufsel bench EXPERIMENT.toml --out DIR` first.")
    experiment = json.loads((out / "experiment.json").read_text())
    # a folder with the summary tables only (vs_random.csv, runtime.csv, such as a
    # checked-in leaderboard without its full tables): the verdict from vs_random.csv
    results = read_csv(out / "results.csv") if full else []
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").is_file() \
        else None
    manifest_path = out / "figures" / "index.json"
    if full and (redraw or not manifest_path.is_file()):
        try:
            from .plot import draw_all
        except ImportError:
            pass
        else:
            draw_all(out)
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else []
    comparison = read_csv(out / "comparison.csv") if (out / "comparison.csv").is_file() else []
    runtime = read_csv(out / "runtime.csv") if (out / "runtime.csv").is_file() else []
    version = results[0]["ufsel_version"] if results else (summary or {}).get("ufsel_version", "")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    full_title = experiment.get("title") or experiment["name"]
    left_ds, left_m = _scope(experiment, results)
    title = full_title
    ran_ds = [d["label"] for d in experiment["datasets"]]
    if left_ds or left_m:  # a run on part of the experiment is titled by what ran
        n_m = len(experiment["methods"])
        title = (f"{experiment['name']}: {', '.join(ran_ds)}, "
                 f"{n_m} method{'' if n_m == 1 else 's'}")
    head = [f"<h1>{_e(title)}</h1>"]
    if left_ds or left_m:
        left = [f"{len(x)} {w}{'' if len(x) == 1 else 's'} ({', '.join(x)})"
                for x, w in ((left_ds, "data set"), (left_m, "method")) if x]
        head.append(f"<p class='note'>Part of the experiment <i>{_e(full_title)}</i>: this "
                    f"run left out {_e(' and '.join(left))}; they appear nowhere on this "
                    "page.</p>")
    if experiment.get("paper"):
        head.append(f"<p><b>Paper:</b> {_e(experiment['paper'])}</p>")
    if experiment.get("description"):
        head.append(f"<p>{_e(experiment['description'])}</p>")
    verdict_at = len(head)  # the page opens with the verdict, after what the run is
    tables = " ".join(f"<a href='{n}'>{n}</a>" for n in (
        "results.csv", "runs.csv", "comparison.csv", "runtime.csv", "vs_random.csv")
        if (out / n).is_file())
    head.append(f"<p class='muted'>Experiment <code>{_e(experiment['name'])}</code>, "
                f"ufsel {_e(version)}, report written {now}. Tables: {tables}.</p>")
    protocols = experiment.get("protocols", ["n_classes"])
    prot_text = (
        "Two protocols for the cluster count K that the selectors are given: <b>K = number "
        "of classes</b>, read from the labels (the papers' protocol), and a <b>label-free "
        "K</b> estimated from X alone (<code>ufsel.model_selection.estimate_n_clusters</code>"
        "), which is what a user without labels can do."
        if "label_free" in protocols else
        "The selectors that take a cluster count are given the number of classes, read "
        "from the labels (the papers' protocol): even the \"defaults\" use the labels "
        "there, so they are not a label-free result.")
    head.append("<p class='note'>Baselines in every comparison: all features, and random "
                "feature subsets of the same size (mean and spread over "
                f"{_e(experiment.get('random_baseline_seeds'))} draws); the papers never show "
                "the random one. " + prot_text + " \"Best over grid\" chooses parameters with "
                "the labels and is optimistic. The evaluation (k-means with the number of "
                "classes, ACC, NMI, 1-NN error) always uses the labels: that is what is "
                "measured.</p>")
    boards = []
    vs_random = read_csv(out / "vs_random.csv") if (out / "vs_random.csv").is_file() else []
    runs = read_csv(out / "runs.csv") if (out / "runs.csv").is_file() else []
    if len({r["dataset"] for r in results}) >= 2:
        from ._statistics import leaderboard

        boards = leaderboard(results, experiment, summary)
        _write_ranks(out, boards)
    elif not full and len({r["dataset"] for r in vs_random}) >= 2:
        from ._statistics import leaderboard_from_vs_random

        boards = leaderboard_from_vs_random(vs_random, experiment)
        _write_ranks(out, boards)
        if redraw:
            manifest = _redraw_cd(out, boards, manifest)
    from ._statistics import identical_selections

    identical = (identical_selections(runs, min_share=0.5) if runs
                 else stored_identical_selections(summary))
    verdict = _verdict_section(boards, vs_random, experiment, identical)
    if not verdict:  # one data set: no Friedman verdict, but the same wins, ties and losses
        verdict = _vs_random_section(vs_random, experiment)
    sections = [
        ("verdict", "verdict", verdict),
        ("datasets", "per data set", _per_dataset_section(
            boards, vs_random, experiment,
            {(r["protocol"], r["dataset"], r["method"]) for r in runtime
             if over_fast_cap(r, (summary or {}).get("fit_timeout_s"))})),
        ("paper", "paper vs ufsel", _comparison_section(comparison, left_ds)),
        ("figures", "figures", _figures_section(manifest)),
        ("tables", "results", _results_section(results, experiment) if full else
         "<h2 id='tables'>Results per feature count</h2><p>The full table "
         "(<code>results.csv</code>, one row per data set, protocol, method, feature count "
         "and metric) is not in this folder; the verdict comes from "
         "<a href='vs_random.csv'>vs_random.csv</a>, whose means over the counts it "
         "ranks.</p>"),
        ("runtime", "runtime", _runtime_section(runtime, (summary or {}).get("fit_timeout_s"))),
        ("run", "run summary", _summary_section(summary)),
    ]
    if not boards and identical:
        items = [f"{' = '.join(g)} on {', '.join(d)}" for g, d in sorted(identical.items())]
        head.append("<p class='note'>Identical selections (the same features at every count, "
                    "so identical curves): " + _e("; ".join(items)) + ".</p>")
    # links only to the sections this page has
    nav = ("<p>" + " · ".join(f"<a href='#{a}'>{t}</a>" for a, t, html_ in sections if html_)
           + "</p>")
    body = ("".join(head[:verdict_at]) + verdict + "".join(head[verdict_at:]) + nav
            + "".join(html_ for a, _, html_ in sections if a != "verdict"))
    page = html_page(title, body)
    path = out / "report.html"
    atomic_write_text(path, page)
    return path
