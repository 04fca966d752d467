"""Figures of a benchmark run (the only ufsel module that imports matplotlib).

Imported lazily by the runner and the report; matplotlib comes with the
``bench`` (or ``plot``) extra: ``pip install 'ufsel[bench]'``.

Every figure is written as PNG and SVG under ``RESULTS_DIR/figures/``, in
the tables' unit (percent), with Okabe & Ito's colour-blind-safe palette,
markers on every line and at most eight lines per panel:

* ``curves_<metric>_<tuning>[_<protocol>][_<part>]``: the metric against the
  number of selected features, small multiples (one panel per data set, at
  most 12 per figure), highlight-few: the six methods of best mean rank, the
  all-features line and the random-subset baseline (mean and a band of one
  standard deviation over the draws) (MCFS Figs. 2-5, 8; RSFS Fig. 1; SPCAFS
  Figs. 1-2). Methods that selected identical features on a data set share
  one line, and the panel says so (SPEC with phi2 is Laplacian Score);
* ``cd_<protocol>_<grid>_<metric>``: the critical-difference diagram of the
  mean ranks (scikit-posthocs; Demšar 2006);
* ``sensitivity_<method>_<metric>``: the metric averaged over the feature
  counts for each parameter setting of the grid: a curve for one parameter, a
  heat map for two or more (the best over the remaining ones) (RSFS Fig. 3,
  SPCAFS Fig. 4, LGDFS Fig. 3);
* ``convergence``: ``objective_`` per iteration of each method's default
  setting (SPCAFS Fig. 3); a rise of a minimised objective is marked and
  annotated, and such panels come first.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

try:
    from matplotlib import rc_context
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend
    from matplotlib.ticker import MaxNLocator
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ufsel.benchmark.plot needs matplotlib: pip install 'ufsel[bench]' (or 'ufsel[plot]')."
    ) from exc

from ..utils import atomic_open
from ..utils._html import MARKERS, OKABE_ITO, PLOT_RC
from ._experiment import METRICS
from ._tables import read_csv

__all__ = ["draw_all", "plot_curves", "plot_sensitivity", "plot_convergence", "plot_cd",
           "rising_steps", "highlight_methods"]

METRIC_LABELS = {"acc": "clustering ACC (%)", "nmi": "NMI, max normalisation (%)",
                 "nmi_arithmetic": "NMI, arithmetic normalisation (%)",
                 "nn_error": "1-NN LOO error (%)"}
#: At most this many methods are drawn per panel (with random and all features: 8 lines).
MAX_HIGHLIGHT = 6
PANELS_PER_FIGURE = 12
BASELINE_STYLE = {"all_features": dict(color="black", ls="--", lw=1.3),
                  "random": dict(color="0.35", ls=":", lw=1.8)}
RC = PLOT_RC


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _save(fig, base):
    """Save ``fig`` as base.png and base.svg, each atomically; returns the names."""
    base = Path(base)
    base.parent.mkdir(parents=True, exist_ok=True)
    names = []
    for ext, kw in (("png", {"dpi": 120}), ("svg", {})):
        path = base.with_suffix(f".{ext}")
        with atomic_open(path, "wb") as fh:
            fig.savefig(fh, format=ext, bbox_inches="tight", **kw)
        names.append(path.name)
    return names


def _styles(methods):
    """A fixed colour and marker per highlighted method (Okabe-Ito)."""
    return {m: dict(color=OKABE_ITO[i % len(OKABE_ITO)], marker=MARKERS[i % len(MARKERS)])
            for i, m in enumerate(methods)}


def _panel_grid(n, *, width=4.4, height=3.3):
    ncols = 2 if n == 4 else min(n, 3)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(width * ncols, height * nrows + 0.9), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes


def highlight_methods(results, metric, tuning, methods, protocol=None, limit=MAX_HIGHLIGHT):
    """The ``limit`` methods of best mean rank over every (data set, count) cell."""
    from ._statistics import rank_rows

    higher = METRICS.get(metric, True)
    cells = {}
    for r in results:
        if (r["metric"] == metric and r["tuning"] == tuning and r["method"] in methods
                and (protocol is None or r.get("protocol", "") == protocol)):
            v = _num(r["value"])
            if not math.isnan(v):
                cells.setdefault((r["dataset"], r["n_features"]), {})[r["method"]] = v
    ranks = {m: [] for m in methods}
    for row in cells.values():
        ms = list(row)
        if len(ms) < 2:
            continue
        for m, rk in zip(ms, rank_rows([[row[m] for m in ms]], higher)[0]):
            # a rank scaled to the methods present, so a cell with few methods counts alike
            ranks[m].append((rk - 1) / (len(ms) - 1))
    scored = sorted((sum(v) / len(v), m) for m, v in ranks.items() if v)
    return [m for _, m in scored[:limit]]


def plot_curves(results, metric, tuning, base, *, datasets, methods, title="", protocol=None,
                identical=None, shown=None):
    """Metric (in %) against the number of selected features: one panel per data set.

    Highlight-few design: the ``MAX_HIGHLIGHT`` methods of best mean rank (or
    all, when there are that few), each with its own colour-blind-safe colour
    and marker, beside random subsets (mean and a band of one standard
    deviation) and all features. Methods whose selections are identical to a
    drawn one (``identical``: {(m1, m2): [data sets]}) share its line and
    label ("laplacianscore = spec"). Figures with more than
    ``PANELS_PER_FIGURE`` data sets are split; returns the file names.
    """
    rows = [r for r in results if r["metric"] == metric
            and (protocol is None or r.get("protocol", "") in (protocol, ""))]
    if not rows:
        return []
    if shown is None:
        shown = highlight_methods(rows, metric, tuning, methods, protocol)
    styles = _styles(shown)
    files = []
    chunks = [datasets[i:i + PANELS_PER_FIGURE]
              for i in range(0, len(datasets), PANELS_PER_FIGURE)] or [[]]
    for part, chunk in enumerate(chunks):
        with rc_context(RC):
            fig, axes = _panel_grid(len(chunk))
            for ax, ds in zip(axes, chunk):
                _curve_panel(ax, rows, ds, metric, tuning, shown, styles, identical or {})
            handles = {}
            for ax in axes:
                for h, lab in zip(*ax.get_legend_handles_labels()):
                    handles.setdefault(lab, (h, lab))
            if handles:
                fig.legend([h for h, _ in handles.values()], [lab for _, lab in handles.values()],
                           loc="outside lower center", ncols=min(len(handles), 4),
                           frameon=False)
            direction = "higher is better" if METRICS.get(metric, True) else "lower is better"
            prot = f", K from {protocol.replace('_', '-')}" if protocol else ""
            more = f" ({part + 1}/{len(chunks)})" if len(chunks) > 1 else ""
            fig.suptitle(f"{title}{METRIC_LABELS.get(metric, metric)} ({direction}), "
                         f"tuning: {tuning.replace('_', ' ')}{prot}{more}")
            suffix = f"_{part + 1}" if len(chunks) > 1 else ""
            files += _save(fig, f"{base}{suffix}")
    return files


def _curve_panel(ax, rows, ds, metric, tuning, shown, styles, identical):
    drows = [r for r in rows if r["dataset"] == ds]
    drawn = {}
    for m in shown:
        mr = sorted((r for r in drows if r["method"] == m and r["tuning"] == tuning
                     and not math.isnan(_num(r["value"]))), key=lambda r: int(r["n_features"]))
        if not mr:
            continue
        twins = sorted({x for g, dsets in identical.items() if m in g and ds in dsets
                        for x in g if x != m})
        if any(t in drawn for t in twins):
            continue  # already drawn under its twin's line
        drawn[m] = twins
        ax.plot([int(r["n_features"]) for r in mr], [100 * _num(r["value"]) for r in mr],
                lw=1.6, ms=4.5, label=m, **styles[m])
    same = "; ".join(f"{m} = {' = '.join(t)}" for m, t in drawn.items() if t)
    if same:
        if len(same) > 48:  # tiny data sets: many methods pick the same few features
            same = same[:45] + "..."
        ax.text(0.01, 0.01, f"identical here: {same}", transform=ax.transAxes,
                fontsize=8.5, color="0.25", va="bottom")
    rr = sorted((r for r in drows if r["method"] == "random"), key=lambda r: int(r["n_features"]))
    if rr:
        x = [int(r["n_features"]) for r in rr]
        y = [100 * _num(r["value"]) for r in rr]
        sd = [100 * _num(r["spread"]) for r in rr]
        ax.plot(x, y, label=f"random ({rr[0]['n_repeats']} draws, mean ± sd)",
                **BASELINE_STYLE["random"])
        ax.fill_between(x, [a - b for a, b in zip(y, sd)], [a + b for a, b in zip(y, sd)],
                        color="0.6", alpha=0.25, lw=0)
    af = [r for r in drows if r["method"] == "all_features"]
    ks = [int(r["n_features"]) for r in drows if r["method"] != "all_features"]
    if af and ks:
        ax.axhline(100 * _num(af[0]["value"]), label="all features",
                   **BASELINE_STYLE["all_features"])
    if ks and max(ks) / max(1, min(ks)) > 30:
        ax.set_xscale("log")
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"{ds} (d = {af[0]['n_features']})" if af else ds)
    ax.set_xlabel("number of selected features")
    ax.set_ylabel(METRIC_LABELS.get(metric, metric))
    ax.grid(alpha=0.3)


def plot_cd(friedman, base, *, title=""):
    """Critical-difference diagram (scikit-posthocs) of a :class:`FriedmanResult`."""
    if friedman is None or friedman.nemenyi_p is None:
        return []
    import pandas as pd
    import scikit_posthocs as sp

    k = len(friedman.methods)
    with rc_context(RC):
        fig = Figure(figsize=(10, 1.2 + 0.32 * k), layout="constrained")
        ax = fig.subplots()
        colors = {m: ("0.35" if m == "random" else "#0072B2") for m in friedman.methods}
        sp.critical_difference_diagram(
            pd.Series(friedman.mean_ranks), friedman.nemenyi_p, ax=ax,
            cd=friedman.critical_difference, alpha=friedman.alpha, color_palette=colors,
            label_fmt_left="{label} ({rank:.1f})", label_fmt_right="({rank:.1f}) {label}")
        fig.suptitle(f"{title}mean rank over {len(friedman.datasets)} data sets (1 = best); "
                     f"bars join methods the Nemenyi test does not separate "
                     f"(CD = {friedman.critical_difference:.2f})")
        return _save(fig, base)


def _grid_params(experiment, method):
    for m in experiment.get("methods", []):
        if m["label"] == method:
            return sorted(m.get("grid", {}))
    return []


def plot_sensitivity(runs, experiment, method, metric, base, *, datasets):
    """Mean metric over the feature counts for each grid setting (curve or heat map)."""
    names = _grid_params(experiment, method)
    if not names:
        return []
    report = experiment.get("kmeans_report", "mean")
    col = "nn_error" if metric == "nn_error" else (
        f"{metric}_best_objective" if report == "best_objective" else f"{metric}_mean")
    per_ds = {}
    for ds in datasets:
        acc = {}
        for r in runs:
            if r["dataset"] != ds or r["method"] != method or r["in_grid"] != "true":
                continue
            p = json.loads(r["params"])
            acc.setdefault(tuple(json.dumps(p.get(n)) for n in names), []).append(_num(r[col]))
        if acc:
            per_ds[ds] = {key: sum(v) / len(v) for key, v in acc.items()}
    if not per_ds:
        return []
    higher = METRICS.get(metric, True)
    fig, axes = _panel_grid(len(per_ds))
    for ax, (ds, table) in zip(axes, per_ds.items()):
        vals0 = sorted({k[0] for k in table}, key=_sort_key)
        if len(names) == 1:
            # points, not bars: the differences are small and bars must start at 0
            ax.plot(range(len(vals0)), [100 * table[(v,)] for v in vals0], marker="o",
                    color=OKABE_ITO[0])
            ax.grid(alpha=0.3)
            ax.set_xticks(range(len(vals0)), [_short(v) for v in vals0], rotation=45)
            ax.set_xlabel(names[0])
            ax.set_ylabel(f"mean {METRIC_LABELS.get(metric, metric)}")
        else:
            vals1 = sorted({k[1] for k in table}, key=_sort_key)
            img = [[math.nan] * len(vals0) for _ in vals1]
            for key, v in table.items():
                i, j = vals1.index(key[1]), vals0.index(key[0])
                cur = img[i][j]
                if math.isnan(cur) or (v > cur if higher else v < cur):
                    img[i][j] = 100 * v
            im = ax.imshow(img, origin="lower", aspect="auto",
                           cmap="viridis" if higher else "viridis_r")
            ax.set_xticks(range(len(vals0)), [_short(v) for v in vals0], rotation=45)
            ax.set_yticks(range(len(vals1)), [_short(v) for v in vals1])
            ax.set_xlabel(names[0])
            ax.set_ylabel(names[1])
            fig.colorbar(im, ax=ax, shrink=0.85)
        ax.set_title(ds)
    extra = (f"; best over {', '.join(names[2:])}" if len(names) > 2 else "")
    fig.suptitle(f"{method}: mean {METRIC_LABELS.get(metric, metric)} over the feature counts"
                 f"{extra}", fontsize="medium")
    return _save(fig, base)


def _sort_key(v):
    try:
        return (0, float(json.loads(v)), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(v))


def _short(v):
    try:
        x = float(json.loads(v))
    except (TypeError, ValueError):
        return str(v).strip('"')
    return f"{x:g}"


def rising_steps(objective, rtol=1e-9):
    """Iterations (1-based) where the objective rises (it should never rise: minimised)."""
    out = []
    for i in range(1, len(objective)):
        prev, cur = objective[i - 1], objective[i]
        if cur > prev + rtol * max(1.0, abs(prev)):
            out.append(i + 1)
    return out


def plot_convergence(traces, base, *, limit=PANELS_PER_FIGURE):
    """Objective value per iteration, one panel per (data set, method); rises annotated.

    Every selector here minimises its objective, so a rise is a defect or an
    inexact step: the panels with a rise come first and the rise is marked.
    At most ``limit`` panels.
    """
    traces = [t for t in traces if t.get("objective")]
    if not traces:
        return []
    traces = sorted(traces, key=lambda t: not rising_steps(t["objective"]))[:limit]
    with rc_context(RC):
        fig, axes = _panel_grid(len(traces), height=3.0)
        for ax, t in zip(axes, traces):
            obj = t["objective"]
            ax.plot(range(1, len(obj) + 1), obj, marker="o", ms=3.5, lw=1.4, color=OKABE_ITO[0])
            up = rising_steps(obj)
            if up:
                ax.plot(up, [obj[i - 1] for i in up], ls="none", marker="^", ms=8,
                        color=OKABE_ITO[1], label="objective rises")
                ax.annotate(f"rises at iteration {up[0]}" + (f" (+{len(up) - 1} more)"
                                                            if len(up) > 1 else ""),
                            xy=(up[0], obj[up[0] - 1]), xytext=(0.35, 0.85),
                            textcoords="axes fraction", color=OKABE_ITO[1], fontsize=10,
                            arrowprops=dict(arrowstyle="->", color=OKABE_ITO[1]))
            prot = t.get("protocol", "")
            ax.set_title(f"{t['dataset']} / {t['method']}"
                         + (" (label-free K)" if prot == "label_free" else ""))
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("iteration")
            ax.set_ylabel("objective")
            ax.grid(alpha=0.3)
        fig.suptitle("Convergence of the default settings (objective_ per iteration; "
                     "minimised, so it should never rise)")
        return _save(fig, base)


def draw_all(out_dir):
    """Draw every figure of the results folder; returns the manifest written to figures/."""
    from ._statistics import identical_selections, leaderboard

    out = Path(out_dir)
    figdir = out / "figures"
    experiment = json.loads((out / "experiment.json").read_text())
    results = read_csv(out / "results.csv")
    runs = read_csv(out / "runs.csv")
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").is_file() \
        else None
    traces = json.loads((out / "traces.json").read_text()) if (out / "traces.json").is_file() \
        else []
    datasets = [d["label"] for d in experiment["datasets"]
                if any(r["dataset"] == d["label"] for r in results)]
    methods = [m["label"] for m in experiment["methods"]
               if any(r["method"] == m["label"] for r in results)]
    metrics = [m for m in METRICS if any(r["metric"] == m for r in results)]
    protocols = experiment.get("protocols", ["n_classes"])
    identical = identical_selections(runs)
    # one highlighted set, with one colour and marker per method, for every figure
    main = "acc" if "acc" in metrics else (metrics[0] if metrics else "acc")
    shown = highlight_methods(results, main, experiment["tuning"][0], methods,
                              protocols[0] if len(protocols) > 1 else None)
    for old in figdir.glob("*.*") if figdir.is_dir() else []:
        if old.suffix in (".png", ".svg"):
            old.unlink()  # figures of an earlier layout must not linger
    manifest = []
    for protocol in protocols:
        for metric in metrics:
            for tuning in experiment["tuning"]:
                name = f"curves_{metric}_{tuning}" + (f"_{protocol}" if len(protocols) > 1
                                                      else "")
                files = plot_curves(results, metric, tuning, figdir / name, datasets=datasets,
                                    methods=methods, protocol=protocol if len(protocols) > 1
                                    else None, identical=identical, shown=shown)
                if files:
                    manifest.append({"kind": "curves", "metric": metric, "tuning": tuning,
                                     "protocol": protocol, "files": files,
                                     "shown": shown, "n_methods": len(methods)})
    for board in leaderboard(results, experiment, summary):
        files = plot_cd(board["friedman"], figdir / (f"cd_{board['protocol']}_{board['grid']}_"
                                                     f"{board['metric']}"))
        if files:
            manifest.append({"kind": "cd", "metric": board["metric"], "grid": board["grid"],
                             "protocol": board["protocol"], "files": files})
    for method in methods:
        for metric in metrics[:1]:
            files = plot_sensitivity(runs, experiment, method, metric,
                                     figdir / f"sensitivity_{method}_{metric}", datasets=datasets)
            if files:
                manifest.append({"kind": "sensitivity", "method": method, "metric": metric,
                                 "files": files})
    files = plot_convergence(traces, figdir / "convergence")
    if files:
        manifest.append({"kind": "convergence", "files": files,
                         "rising": [f"{t['dataset']} / {t['method']}" for t in traces
                                    if t.get("objective") and rising_steps(t["objective"])]})
    from ._cache import atomic_write_text

    atomic_write_text(figdir / "index.json", json.dumps(manifest, indent=1))
    return manifest
