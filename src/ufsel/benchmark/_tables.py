"""Turning cached fits and evaluations into the result tables.

``runs.csv``
    One row per data set, method, parameter setting and feature count (the
    whole grid), plus the baselines (one row per random seed).
``results.csv``
    The tidy comparison: one row per data set, method, tuning mode, feature
    count and metric. Tuning modes: ``defaults`` (the selector's defaults plus
    the experiment's fixed protocol parameters) and ``best_over_grid`` (for
    each feature count and metric separately, the best setting of the grid
    *judged with the labels*: the optimistic protocol of the papers). The
    baselines (``all_features``; ``random``: mean and standard deviation over
    several random subsets of each size) carry ``tuning = "baseline"``.
``comparison.csv``
    The paper's published numbers beside ufsel's and the difference.
``runtime.csv``, ``traces.json``
    Fit times (wall clock and, where measured, CPU), the CPU cap the fit ran
    under and whether it needed more than the run's cap (``over_fast_cap``: a
    value computed under a longer cap, see :func:`over_fast_cap`); objective
    values per iteration (``objective_``) of the default setting, for the
    selectors that record them.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np

from ._cache import atomic_write_text, canonical_json, to_jsonable
from ._experiment import METRICS
from ._statistics import _num

__all__ = ["build_tables", "write_tables", "read_csv", "over_fast_cap", "RUN_COLUMNS",
           "RESULT_COLUMNS", "RUNTIME_COLUMNS"]

RUN_COLUMNS = [
    "experiment", "dataset", "n_samples", "n_features_total", "n_classes", "preprocess",
    "protocol", "n_clusters", "method", "selector", "params", "is_default", "in_grid", "n_features",
    "acc_mean", "acc_std", "acc_best_objective", "nmi_mean", "nmi_std", "nmi_best_objective",
    "nmi_arithmetic_mean", "nmi_arithmetic_std", "nmi_arithmetic_best_objective", "nn_error", "fit_time_s", "eval_time_s", "n_iter", "fit_seed", "eval_seed", "kmeans_runs",
    "kmeans_report", "ufsel_version", "warnings", "fit_key", "eval_key",
]
RESULT_COLUMNS = [
    "experiment", "dataset", "protocol", "method", "tuning", "n_features", "metric", "status",
    "value", "spread",
    "spread_over", "n_repeats", "params", "n_settings", "fit_time_s", "fit_seed", "eval_seed",
    "kmeans_runs", "kmeans_report", "ufsel_version", "reason",
]
#: ``status`` of a result row: "ok", or why the cell has no value.
STATUSES = ("ok", "timed out", "failed", "not run")
COMPARISON_COLUMNS = [
    "source", "metric", "n_features", "dataset", "method", "paper", "paper_tuning",
    "ufsel_defaults", "difference_defaults", "ufsel_best_over_grid",
    "difference_best_over_grid", "scale", "note",
]
VS_RANDOM_COLUMNS = [
    "experiment", "protocol", "grid", "metric", "dataset", "method", "status", "outcome",
    "p_value", "mean_difference", "method_mean", "random_mean", "n_pairs", "paired_over",
]
RUNTIME_COLUMNS = [
    "dataset", "n_samples", "n_features_total", "protocol", "method", "status", "fit_time_s", "n_iter",
    "grid_settings", "grid_fit_time_total_s", "from_cache", "warnings", "fit_cpu_s", "fit_cap_s",
    "over_fast_cap",
]


def _metric_value(row, metric, report):
    if metric == "nn_error":
        return row["nn_error"], None
    if report == "best_objective":
        return row[f"{metric}_best_objective"], row[f"{metric}_std"]
    return row[f"{metric}_mean"], row[f"{metric}_std"]


def _better(metric, a, b):
    """True when value a beats b for ``metric``."""
    if b is None or (isinstance(b, float) and np.isnan(b)):
        return a is not None
    if a is None:
        return False
    return a > b if METRICS[metric] else a < b


def build_tables(exp, datasets, settings, requests, evals, version):
    """Assemble runs, results and the extra tables from the cache contents."""
    ds_order = {d.label: i for i, d in enumerate(exp.datasets)}
    m_order = {m.label: i for i, m in enumerate(exp.methods)}
    m_order.update({"random": len(m_order), "all_features": len(m_order) + 1})
    set_index = {id(s): i for i, s in enumerate(settings)}

    runs = []
    for ds_label, owner, k, key in requests:
        ev = evals.get(key)
        if ev is None:
            continue
        info = datasets[ds_label]
        base = {
            "experiment": exp.name, "dataset": ds_label, "n_samples": info["n_samples"],
            "n_features_total": info["n_features"], "n_classes": info["n_classes"],
            "preprocess": info["preprocess"], "n_features": int(k),
            "eval_seed": exp.seed, "kmeans_runs": exp.kmeans_runs,
            "kmeans_report": exp.kmeans_report, "ufsel_version": version, "eval_key": key,
            "eval_time_s": ev.get("eval_time_s"),
        }
        for c in ("acc_mean", "acc_std", "acc_best_objective", "nmi_mean", "nmi_std",
                  "nmi_best_objective", "nmi_arithmetic_mean", "nmi_arithmetic_std",
                  "nmi_arithmetic_best_objective", "nn_error"):
            base[c] = ev.get(c)
        if isinstance(owner, tuple):
            name, seed = owner
            base.update(protocol="", n_clusters=None, method=name, selector="",
                        params=canonical_json(
                {"seed": seed} if seed is not None else {}), is_default=True, in_grid=True,
                fit_time_s=0.0, n_iter=None, fit_seed=seed, fit_key="",
                warnings=" | ".join(f"evaluation: {w}" for w in ev.get("warnings", [])))
            sort = (ds_order[ds_label], m_order[name], "", seed or 0, k)
        else:
            s = owner
            base.update(protocol=s.protocol, n_clusters=s.n_clusters, method=s.method,
                        selector=s.selector, params=canonical_json(s.params_json),
                        is_default=s.is_default, in_grid=s.in_grid,
                        fit_time_s=s.entry["fit_time_s"], n_iter=s.entry.get("n_iter"),
                        fit_seed=s.fit_seed, fit_key=s.key,
                        warnings=" | ".join([f"fit: {w}" for w in s.entry.get("warnings", [])]
                                            + [f"evaluation: {w}"
                                               for w in ev.get("warnings", [])]))
            sort = (ds_order[ds_label], m_order[s.method], s.protocol, set_index[id(s)], k)
        runs.append((sort, base))
    runs.sort(key=lambda t: t[0])
    runs = [r for _, r in runs]

    results = []
    metrics = exp.metrics
    groups = {}
    for r in runs:
        groups.setdefault((r["dataset"], r["method"], r["protocol"]), []).append(r)
    common = {"experiment": exp.name, "eval_seed": exp.seed, "kmeans_runs": exp.kmeans_runs,
              "kmeans_report": exp.kmeans_report, "ufsel_version": version, "status": "ok",
              "reason": ""}
    for (ds_label, method, protocol), rows in groups.items():
        common["protocol"] = protocol
        if method == "all_features":
            r = rows[0]
            for metric in metrics:
                v, sp = _metric_value(r, metric, exp.kmeans_report)
                results.append({**common, "dataset": ds_label, "method": method,
                                "tuning": "baseline", "n_features": r["n_features"],
                                "metric": metric, "value": v, "spread": sp,
                                "spread_over": "k-means runs" if sp is not None else "",
                                "n_repeats": 1, "params": "{}", "n_settings": 1,
                                "fit_time_s": 0.0, "fit_seed": ""})
            continue
        if method == "random":
            by_k = {}
            for r in rows:
                by_k.setdefault(r["n_features"], []).append(r)
            for k in sorted(by_k):
                rr = by_k[k]
                seeds = [r["fit_seed"] for r in rr]
                for metric in metrics:
                    vals = np.array([_metric_value(r, metric, exp.kmeans_report)[0] for r in rr],
                                    dtype=float)
                    results.append({**common, "dataset": ds_label, "method": method,
                                    "tuning": "baseline", "n_features": k, "metric": metric,
                                    "value": float(np.mean(vals)), "spread": float(np.std(vals)),
                                    "spread_over": "random seeds", "n_repeats": len(rr),
                                    "params": canonical_json({"seeds": seeds}),
                                    "n_settings": 1, "fit_time_s": 0.0,
                                    "fit_seed": " ".join(str(s) for s in seeds)})
            continue
        for tuning in exp.tuning:
            cand = [r for r in rows if (r["is_default"] if tuning == "defaults" else r["in_grid"])]
            n_settings = len({r["params"] for r in cand})
            by_k = {}
            for r in cand:
                by_k.setdefault(r["n_features"], []).append(r)
            for k in sorted(by_k):
                for metric in metrics:
                    best, best_v, best_sp = None, None, None
                    for r in by_k[k]:
                        v, sp = _metric_value(r, metric, exp.kmeans_report)
                        if _better(metric, v, best_v):
                            best, best_v, best_sp = r, v, sp
                    if best is None:
                        continue
                    results.append({**common, "dataset": ds_label, "method": method,
                                    "tuning": tuning, "n_features": k, "metric": metric,
                                    "value": best_v, "spread": best_sp,
                                    "spread_over": "k-means runs" if best_sp is not None else "",
                                    "n_repeats": 1, "params": best["params"],
                                    "n_settings": n_settings, "fit_time_s": best["fit_time_s"],
                                    "fit_seed": best["fit_seed"]})

    results += _status_rows(exp, settings, results, common)
    results.sort(key=lambda r: (ds_order.get(r["dataset"], 0), r["protocol"],
                                m_order.get(r["method"], 0)))
    extras = {
        "vs_random": vs_random_rows(exp, datasets, settings, requests, evals),
        "runtime": _runtime_rows(exp, datasets, settings),
        "traces": _traces(settings),
        "comparison": comparison_rows(exp, results, datasets),
    }
    return runs, results, extras


_RUNS_KEY = {"acc": "acc_runs", "nmi": "nmi_runs", "nmi_arithmetic": "nmi_arithmetic_runs"}


def _paired_values(entry, metric):
    """The per-k-means-run values of ``metric`` in an evaluation entry (one for nn_error)."""
    if metric == "nn_error":
        return [entry.get("nn_error")]
    return list(entry.get(_RUNS_KEY[metric]) or [])


def vs_random_rows(exp, datasets, settings, requests, evals):
    """Every method's default setting against random subsets, per data set, grid and metric.

    Paired observations: for each feature count of the grid and each k-means
    run (the same seeds for every subset), the method's value and the mean of
    the random subsets' values; Wilcoxon signed-rank test
    (:func:`ufsel.benchmark._statistics.paired_vs_baseline`). The 1-NN error
    has no seeds: it pairs over the counts only.
    """
    from ._statistics import paired_vs_baseline

    method_keys, random_keys = {}, {}
    for ds_label, owner, k, key in requests:
        if isinstance(owner, tuple):
            if owner[0] == "random":
                random_keys.setdefault((ds_label, k), []).append(key)
        else:
            method_keys[(id(owner), k)] = key
    rows = []
    for s in settings:
        if not s.is_default or s.dataset not in datasets:
            continue
        for grid, counts in datasets[s.dataset].get("grids", {"counts": s.counts}).items():
            for metric in exp.metrics:
                row = {"experiment": exp.name, "protocol": s.protocol, "grid": grid,
                       "metric": metric, "dataset": s.dataset, "method": s.method,
                       "status": s.status, "paired_over": (
                           "feature counts" if metric == "nn_error"
                           else "feature counts x k-means runs")}
                if s.status != "ok":
                    rows.append({**row, "outcome": s.status})
                    continue
                a, b = [], []
                for k in counts:
                    ev = evals.get(method_keys.get((id(s), k)))
                    rands = [evals.get(key) for key in random_keys.get((s.dataset, k), [])]
                    if ev is None or not rands or any(r is None for r in rands):
                        continue
                    mv = _paired_values(ev, metric)
                    rv = np.mean([_paired_values(r, metric) for r in rands], axis=0)
                    if len(mv) != len(rv) or any(v is None for v in mv):
                        continue
                    a.extend(mv)
                    b.extend(rv.tolist())
                if not a:
                    rows.append({**row, "status": "not run", "outcome": "not run"})
                    continue
                res = paired_vs_baseline(a, b, higher_is_better=METRICS[metric])
                rows.append({**row, "outcome": res.outcome, "p_value": res.p_value,
                             "mean_difference": res.mean_difference,
                             "method_mean": float(np.mean(a)), "random_mean": float(np.mean(b)),
                             "n_pairs": res.n_pairs})
    return rows


def _status_rows(exp, settings, results, common):
    """Rows for the cells without a value (fit timed out, failed or not run): never dropped."""
    have = {(r["dataset"], r["method"], r["protocol"], r["tuning"], r["n_features"])
            for r in results}
    out = []
    for s in settings:
        if s.status == "ok":
            continue
        for tuning in exp.tuning:
            if not (s.is_default if tuning == "defaults" else s.in_grid):
                continue
            for k in s.counts:
                if (s.dataset, s.method, s.protocol, tuning, k) in have:
                    continue
                have.add((s.dataset, s.method, s.protocol, tuning, k))
                for metric in exp.metrics:
                    out.append({**common, "dataset": s.dataset, "method": s.method,
                                "protocol": s.protocol, "tuning": tuning, "n_features": k,
                                "metric": metric, "status": s.status, "value": None,
                                "spread": None, "spread_over": "", "n_repeats": 0,
                                "params": canonical_json(s.params_json), "n_settings": 1,
                                "fit_time_s": (s.entry or {}).get("fit_time_s"),
                                "fit_seed": s.fit_seed, "reason": s.reason})
    return out


def over_fast_cap(row, fast_cap):
    """Whether a ``runtime.csv`` row has a value that needed more than ``fast_cap``.

    True for a fit that finished (status "ok") with more than ``fast_cap``
    seconds of CPU time, which it can only have done under a longer cap: a
    *slow* cell, not a bad one. Its CPU time (``fit_cpu_s``) decides; a row
    without one (written before CPU times were recorded) counts as over when
    it was computed under a cap (``fit_cap_s``) longer than ``fast_cap``.
    Rows are dicts of strings (read back) or of values (being built).
    """
    fast = _num(fast_cap)
    if not fast or row.get("status", "ok") != "ok":
        return False
    cpu = _num(row.get("fit_cpu_s"))
    if cpu is not None:
        return cpu > fast
    cap = _num(row.get("fit_cap_s"))
    return cap is not None and cap > fast


def _runtime_rows(exp, datasets, settings):
    rows = []
    for ds in exp.datasets:
        if ds.label not in datasets:
            continue
        info = datasets[ds.label]
        for m, protocol in ((m, p) for m in exp.methods for p in exp.protocols):
            ss = [s for s in settings if s.dataset == ds.label and s.method == m.label
                  and s.protocol == protocol and s.entry is not None]
            if not ss:
                continue
            default = next((s for s in ss if s.is_default), ss[0])
            grid = [s for s in ss if s.in_grid]
            rows.append({
                "dataset": ds.label, "n_samples": info["n_samples"],
                "n_features_total": info["n_features"], "protocol": protocol,
                "method": m.label, "status": default.status,
                "fit_time_s": default.entry["fit_time_s"], "n_iter": default.entry.get("n_iter"),
                "grid_settings": len(grid),
                "grid_fit_time_total_s": float(sum(s.entry["fit_time_s"] or 0 for s in grid)),
                "from_cache": default.cached,
                "warnings": " | ".join(default.entry.get("warnings", [])),
                "fit_cpu_s": default.entry.get("fit_cpu_s"),
                # a cached fit keeps the cap it ran under (older entries: this run's)
                "fit_cap_s": default.entry.get("fit_timeout_s") or exp.fit_timeout or None,
            })
            rows[-1]["over_fast_cap"] = over_fast_cap(rows[-1], exp.fit_timeout)
    return rows


def _traces(settings):
    out = []
    for s in settings:
        if s.entry is not None and s.is_default and s.entry.get("objective"):
            out.append({"dataset": s.dataset, "method": s.method, "protocol": s.protocol,
                        "params": s.params_json,
                        "objective": s.entry["objective"], "n_iter": s.entry.get("n_iter")})
    return out


def _lookup(results, dataset, method, metric, k, tuning):
    for r in results:
        if (r["dataset"] == dataset and r["method"] == method and r["metric"] == metric
                and r["tuning"] == tuning and r.get("protocol") != "label_free" and (k is None or r["n_features"] == k)):
            return r["value"]
    return None


def comparison_rows(exp, results, datasets):
    """Paper vs ufsel (both tuning modes) for every published number of the experiment.

    ``paper_tuning`` names the ufsel mode that matches the paper's protocol
    (``baseline`` for the all-features and random rows, where both columns agree).
    """
    rows = []
    for p in exp.published:
        scale = float(p.get("scale", 1))
        metric = p["metric"]
        for ds_label, methods in p.get("values", {}).items():
            for method, paper in methods.items():
                n_feat = p["n_features"]
                if isinstance(paper, dict):  # { value = ..., n_features = ... }
                    n_feat = paper.get("n_features", n_feat)
                    paper = paper["value"]
                paper = float(paper)
                baseline = method in ("all_features", "random")
                if method == "all_features" or n_feat == "all":
                    k = None
                    vals = {t: _lookup(results, ds_label, "all_features", metric, None,
                                       "baseline") for t in ("defaults", "best_over_grid")}
                else:
                    k = int(n_feat)
                    vals = {t: _lookup(results, ds_label, method, metric, k,
                                       "baseline" if baseline else t)
                            for t in ("defaults", "best_over_grid")}
                note = p.get("note", "")
                if all(v is None for v in vals.values()):
                    why = ("data set not run" if ds_label not in datasets
                           else "method not run (not in the experiment, not registered or failed)")
                    note = f"{note}; {why}" if note else why
                row = {"source": p.get("source", ""), "metric": metric,
                       "n_features": "all" if k is None else k, "dataset": ds_label,
                       "method": method, "paper": paper,
                       "paper_tuning": "baseline" if baseline else p["tuning"],
                       "scale": scale, "note": note}
                for t, v in vals.items():
                    u = None if v is None else v * scale
                    row[f"ufsel_{t}"] = u
                    row[f"difference_{t}"] = None if u is None else u - paper
                rows.append(row)
    return rows


def _csv_text(columns, rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: _fmt(r.get(c)) for c in columns})
    return buf.getvalue()


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return v


def _write_parquet(path, columns, rows):
    """Parquet copy when pandas and pyarrow are installed; None otherwise."""
    try:
        import pandas as pd
        import pyarrow  # noqa: F401
    except ImportError:
        return None
    from ..utils import atomic_open

    df = pd.DataFrame([{c: r.get(c) for c in columns} for r in rows], columns=columns)
    for c in [c for c in df.columns if pd.api.types.is_object_dtype(df[c])]:  # mixed types (a seed or "1000 1001"): as text,
        df[c] = df[c].map(lambda v: v if v is None or isinstance(v, str) else str(v))  # as in CSV
    with atomic_open(path, "wb") as fh:
        df.to_parquet(fh, index=False)
    return path


def write_tables(out, runs, results, extras):
    """Write every table atomically; returns {name: path}."""
    files = {}
    for name, cols, rows in (("runs", RUN_COLUMNS, runs), ("results", RESULT_COLUMNS, results),
                             ("comparison", COMPARISON_COLUMNS, extras["comparison"]),
                             ("runtime", RUNTIME_COLUMNS, extras["runtime"]),
                             ("vs_random", VS_RANDOM_COLUMNS, extras.get("vs_random", []))):
        path = out / f"{name}.csv"
        atomic_write_text(path, _csv_text(cols, rows))
        files[name] = path
        if name in ("runs", "results"):
            pq = _write_parquet(out / f"{name}.parquet", cols, rows)
            if pq is not None:
                files[f"{name}_parquet"] = pq
    atomic_write_text(out / "traces.json", json.dumps(to_jsonable(extras["traces"])))
    files["traces"] = out / "traces.json"
    return files


def read_csv(path):
    """Read a table written by :func:`write_tables` back as a list of dicts (strings)."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))
