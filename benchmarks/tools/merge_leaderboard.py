"""Replace some methods' rows of a leaderboard run by those of a newer run of the same experiment.

    python benchmarks/tools/merge_leaderboard.py --into benchmarks/results/leaderboard \
        --update OUT --methods ufsa,pivotedqr

A full leaderboard pass takes one to two hours on a 2-core machine, and its cache (every
fit and evaluation) lives outside the repository. After a change to one method, or when a
method is added, it is enough to run the experiment for that method alone, with the same
grids and protocols::

    ufsel bench experiments/leaderboard.toml --out OUT --methods ufsa,pivotedqr \
        --grids fseval_small --protocols n_classes,label_free --no-plots --no-report

and to merge its rows into the checked-in tables with this script. After a change that
affects some data sets only (say, a rule for exact ties among neighbours, which matters
on the data sets with tied rows), rerun those data sets with ``--datasets`` and merge
with the same ``--datasets``: only the rows of those data sets *and* methods are
replaced. The newer run evaluates
the random-subset and all-feature baselines again (they are part of every run). The
script compares them with the checked-in ones and refuses to merge when any value
differs (beyond 1e-12 relative): the baselines, and with them every other method's
comparison against random subsets, must be what the checked-in run computed.

The evaluation's k-means (scikit-learn) computes distances through the BLAS, so its
results can follow the BLAS kernel: a run under another kernel than the checked-in one
can differ in an occasional k-means run, and is then refused. The checked-in leaderboard
reproduces under ``OPENBLAS_CORETYPE=Haswell`` (see its README).

**Cells that timed out at the cap.** The leaderboard's fits run under a short CPU cap
(its "fast" setting). A cell that timed out there is computed once more under a longer
cap, into a folder of its own, and merged with ``--finished-only`` (only the cells the
rerun has a fit and all evaluations for are replaced, so a rerun stopped in time merges
what finished) and,
where only one protocol's fit timed out, ``--protocols``::

    ufsel bench experiments/leaderboard.toml --out OUT --methods rne --datasets madelon \
        --protocols n_classes,label_free --grids fseval_small --fit-timeout 900 \
        --no-plots --no-report
    python benchmarks/tools/merge_leaderboard.py --into benchmarks/results/leaderboard \
        --update OUT --methods rne --finished-only

runtime.csv keeps each fit's CPU time (``fit_cpu_s``) and the cap it ran under
(``fit_cap_s``), and ``over_fast_cap`` marks a value that needed more than the
folder's own cap: a slow cell, not a bad one (the report marks it too).

**A folder without its full tables.** The checked-in leaderboard keeps its summary
tables only (no ``results.csv``, ``runs.csv`` or ``traces.json``). Merged into such a
folder, an update replaces the rows of runtime.csv and vs_random.csv; its random-subset
means must equal the folder's; the ranks (``ranks.csv``) and the report's verdict come
from vs_random.csv, whose per-data-set means are the cells the ranks use.

What it rewrites in ``--into``:

- ``runs.csv``, ``results.csv`` (when ``--into`` has them), ``runtime.csv``,
  ``vs_random.csv``: the rows of the given methods (on the given data sets and
  protocols, all by default) are replaced by the update's (methods not in ``--into``
  yet are added);
- ``traces.json`` (when ``--into`` has it): the same, per method and data set;
- ``experiment.json``: methods the update adds are appended to its method list;
- ``summary.json``: the failures of the merged cells replaced, the fit and evaluation
  counts recomputed from the merged tables (without the full tables: the time-outs and
  failures from the failures, the evaluations the merged cells added counted in), the
  identical selections kept (recomputed from runs.csv where there is one), and the
  update's runs added to its history (marked with the merged methods, and the cells and
  the cap of a ``--finished-only`` merge);
- then ``ufsel report`` redraws the figures, ``ranks.csv`` and ``report.html``.

Parquet copies of the tables (written by ``ufsel bench`` when pyarrow is installed) are
removed, as they would be stale.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from pathlib import Path

from ufsel.benchmark import write_report
from ufsel.benchmark._statistics import identical_selections  # private: needs public API
from ufsel.benchmark._tables import RUNTIME_COLUMNS, over_fast_cap  # private: needs public API
from ufsel.utils import atomic_write_text

TABLES = ("runs", "results", "runtime", "vs_random")
#: the tables a folder keeps without its full tables (the checked-in leaderboard)
SUMMARY_TABLES = ("runtime", "vs_random")
#: result rows that every run computes again, whatever its methods
BASELINES = ("random", "all_features")


def read_table(path):
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames), list(reader)


def baseline_mismatches(base_rows, new_rows):
    """Baseline result rows of the update that differ from (or are missing in) the base.

    Values and spreads are compared to 1e-12 relative: both runs average the same
    per-run scores, but a spread (a standard deviation) can differ in its last bit
    with the order of summation.
    """
    def key(r):
        return (r["dataset"], r["protocol"], r["method"], r["tuning"], r["n_features"],
                r["metric"])

    def same(a, b):
        if a == b:
            return True
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-15)
        except ValueError:
            return False

    base = {key(r): r for r in base_rows if r["method"] in BASELINES}
    bad = []
    for r in new_rows:
        if r["method"] not in BASELINES:
            continue
        b = base.get(key(r))
        if b is None or b["status"] != r["status"] or not (
                same(b["value"], r["value"]) and same(b["spread"], r["spread"])):
            bad.append((key(r), None if b is None else (b["value"], b["spread"]),
                        (r["value"], r["spread"])))
    return bad


def random_mean_mismatches(base_rows, new_rows):
    """vs_random.csv rows of the update whose random-subset mean differs from the base's
    for the same (protocol, grid, metric, data set): the check :func:`baseline_mismatches`
    makes on results.csv, for a base that keeps the summary tables only."""
    def key(r):
        return (r["protocol"], r["grid"], r["metric"], r["dataset"])

    base = {}
    for r in base_rows:
        if r["random_mean"]:
            base.setdefault(key(r), r["random_mean"])
    bad, seen = [], set()
    for r in new_rows:
        k = key(r)
        if not r["random_mean"] or k in seen or k not in base:
            continue
        seen.add(k)
        if not math.isclose(float(base[k]), float(r["random_mean"]), rel_tol=1e-12,
                            abs_tol=1e-15):
            bad.append((k, base[k], r["random_mean"]))
    return bad


def _cells(runtime_rows):
    """The (data set, protocol, method) cells that a run has a fit for (finished, timed
    out or failed): the rows of its runtime.csv."""
    return {(r["dataset"], r["protocol"], r["method"]) for r in runtime_rows}


def _runtime_columns(cols, rows, cap):
    """Bring runtime.csv rows written before CPU times were recorded to the current
    columns: the cap they ran under is the folder's, and a fit that timed out used that
    much CPU time."""
    for r in rows:
        if not r.get("fit_cap_s") and cap:
            r["fit_cap_s"] = repr(float(cap))
        if not r.get("fit_cpu_s") and r.get("status") == "timed out" and r.get("fit_cap_s"):
            r["fit_cpu_s"] = r["fit_cap_s"]
    return cols + [c for c in RUNTIME_COLUMNS if c not in cols]


def merge(into, update, methods, *, datasets=None, protocols=None, finished_only=False,
          redraw=True):
    """Replace the rows of ``methods`` (on ``datasets`` and ``protocols``; None: all) in
    ``into`` by those of ``update``. Returns the recomputed counts and the report's path.

    ``finished_only``: replace only the cells the update has a fit and a verdict for (a
    run that did not reach every cell, such as a long-cap rerun stopped in time). ``into`` may hold
    the summary tables only (no ``results.csv``, as the checked-in leaderboard): then
    runtime.csv and vs_random.csv are merged, and the ranks and the report come from
    vs_random.csv."""
    into, update = Path(into), Path(update)
    methods = set(methods)
    datasets = None if datasets is None else set(datasets)
    protocols = None if protocols is None else set(protocols)
    full = (into / "results.csv").is_file()
    tables_merged = TABLES if full else SUMMARY_TABLES
    summary = json.loads((into / "summary.json").read_text())
    new_summary = json.loads((update / "summary.json").read_text())
    fast_cap = summary.get("fit_timeout_s")
    _, update_runtime = read_table(update / "runtime.csv")
    # a cell whose evaluations (or the random subsets') are not all done has no verdict yet
    unevaluated = {(r["dataset"], r["protocol"], r["method"])
                   for r in read_table(update / "vs_random.csv")[1] if r["status"] == "not run"}
    update_cells = _cells(update_runtime) - unevaluated

    def replaced(row):
        # baseline rows have no protocol; they are never replaced (compared below)
        return (row["method"] in methods
                and (datasets is None or row["dataset"] in datasets)
                and (protocols is None or row.get("protocol", "") in protocols)
                and (not finished_only
                     or (row["dataset"], row.get("protocol", ""), row["method"]) in update_cells))

    tables = {}
    for name in tables_merged:
        cols, base_rows = read_table(into / f"{name}.csv")
        new_cols, new_rows = read_table(update / f"{name}.csv")
        if name == "runtime":
            cols = _runtime_columns(cols, base_rows, fast_cap)
            new_cols = _runtime_columns(new_cols, new_rows, new_summary.get("fit_timeout_s"))
        if new_cols != cols:
            raise SystemExit(f"{name}.csv: the columns of {update} differ from those of {into}")
        if name == "runtime":  # one row per (data set, protocol, method) that was planned
            missing = methods - {r["method"] for r in new_rows}
            if missing and not finished_only:
                raise SystemExit(f"{update} has no rows for {sorted(missing)}")
            if datasets is not None:
                have = {r["dataset"] for r in base_rows}
                unknown = datasets - have
                if unknown:
                    raise SystemExit(f"{into} has no data set {sorted(unknown)}")
                covered = {(r["dataset"], r["method"]) for r in new_rows}
                gaps = sorted((d, m) for d in datasets for m in methods
                              if (d, m) not in covered)
                if gaps and not finished_only:
                    raise SystemExit(f"{update} has no rows for {gaps[:5]}")
        if name == ("results" if full else "vs_random"):
            _check_baselines(name, base_rows, new_rows, into, update)
        rows = [r for r in base_rows if not replaced(r)] + [r for r in new_rows if replaced(r)]
        if name == "runtime":  # the value needed more than the folder's cap: a slow cell
            for r in rows:
                r["over_fast_cap"] = "true" if over_fast_cap(r, fast_cap) else "false"
        tables[name] = (cols, rows)

    kernels = [{b.get("architecture") for b in x.get("blas", [])} for x in (summary, new_summary)]
    if all(kernels) and kernels[0] != kernels[1]:
        print(f"note: {update} ran with the BLAS kernel(s) {sorted(map(str, kernels[1]))}, "
              f"{into} with {sorted(map(str, kernels[0]))}; its baselines agreed all the same",
              file=sys.stderr)

    exp = json.loads((into / "experiment.json").read_text())
    have = {m["label"] for m in exp["methods"]}
    for m in json.loads((update / "experiment.json").read_text())["methods"]:
        if m["label"] in methods and m["label"] not in have:
            exp["methods"].append(m)

    # a failure names its data set, method and parameters (which hold the protocol's
    # cluster count); the update's settings of the merged cells replace the base's
    _, update_results = read_table(update / "results.csv")
    merged_settings = {(r["dataset"], r["method"], r["params"]) for r in update_results
                       if r["method"] not in BASELINES and replaced(r)}

    def failure_replaced(f):
        return (f["dataset"], f["method"], f["params"]) in merged_settings or (
            not finished_only and protocols is None and replaced({**f, "protocol": ""}))

    failures = ([f for f in summary["failures"] if not failure_replaced(f)]
                + [f for f in new_summary["failures"] if failure_replaced(f)])

    def fits(pred):
        return {(f["dataset"], f["method"], f["params"]) for f in failures
                if f["stage"] == "fit" and pred(f["reason"])}

    timed_out = fits(lambda reason: reason.startswith("fit longer"))
    failed = fits(lambda reason: not reason.startswith("fit longer"))
    if full:
        runs = tables["runs"][1]
        ok = {r["fit_key"] for r in runs if r["fit_key"]}
        counts = {"fits_planned": len(ok) + len(timed_out) + len(failed),
                  "evals_total": len({r["eval_key"] for r in runs})}
    else:  # the plan is the same; the merged cells' new evaluations join the count
        _, update_runs = read_table(update / "runs.csv")
        old_values = {(r["dataset"], r["protocol"], r["method"])
                      for r in read_table(into / "runtime.csv")[1]
                      if r["status"] == "ok" and replaced(r)}
        if old_values:
            print(f"note: {len(old_values)} merged cells had a value before; evals_total "
                  "counts their new evaluations as well", file=sys.stderr)
        added = {r["eval_key"] for r in update_runs if r["eval_key"] and replaced(r)}
        counts = {"fits_planned": summary["fits_planned"],
                  "evals_total": summary["evals_total"] + len(added)}
    counts.update(fits_timed_out=len(timed_out), fits_failed=len(failed))
    summary.update(failures=failures, **counts)
    if full:
        summary["identical_selections"] = [
            [list(g), d] for g, d in sorted(identical_selections(runs, min_share=0.5).items())]
    # the update's runs join the history (the report lists every run into the folder),
    # each marked with the methods whose rows it supplied
    marks = {"merged_methods": sorted(methods),
             **({} if datasets is None else {"merged_datasets": sorted(datasets)}),
             **({} if protocols is None else {"merged_protocols": sorted(protocols)}),
             **({"merged_cells": sorted(
                 f"{m}/{d}/{p}" for d, p, m in update_cells
                 if replaced({"dataset": d, "protocol": p, "method": m}))}
                if finished_only else {}),
             "fit_timeout_s": new_summary.get("fit_timeout_s")}
    summary.setdefault("history", []).extend(
        {**h, **marks} for h in new_summary.get("history", []))

    for name, (cols, rows) in tables.items():
        atomic_write_text(into / f"{name}.csv", _csv_text(cols, rows))
        (into / f"{name}.parquet").unlink(missing_ok=True)
    if full:
        traces = [t for t in json.loads((into / "traces.json").read_text()) if not replaced(t)]
        traces += [t for t in json.loads((update / "traces.json").read_text()) if replaced(t)]
        atomic_write_text(into / "traces.json", json.dumps(traces))
    atomic_write_text(into / "experiment.json", json.dumps(exp, indent=2))
    atomic_write_text(into / "summary.json", json.dumps(summary, indent=2))
    report = write_report(into, redraw=redraw)
    return counts, report


def _check_baselines(name, base_rows, new_rows, into, update):
    """Refuse (SystemExit) an update whose recomputed baselines differ from the base's."""
    bad = (baseline_mismatches(base_rows, new_rows) if name == "results"
           else random_mean_mismatches(base_rows, new_rows))
    if bad:
        lines = "\n".join(f"  {k}: {into.name} {a}, {update.name} {b}" for k, a, b in bad[:10])
        raise SystemExit(f"{len(bad)} baseline values differ between the two runs; "
                         f"not merged. First ones:\n{lines}")


def _csv_text(columns, rows):
    """The table as CSV text, as ``ufsel bench`` writes it (rows read back are strings)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--into", required=True, help="the leaderboard folder to update")
    ap.add_argument("--update", required=True, help="the newer run's --out folder")
    ap.add_argument("--methods", required=True,
                    help="comma-separated methods whose rows are replaced")
    ap.add_argument("--datasets", help="comma-separated data sets: replace the methods' rows "
                                       "on these only (default: on every data set)")
    ap.add_argument("--protocols", help="comma-separated protocols: replace the methods' rows "
                                        "under these only (default: every protocol)")
    ap.add_argument("--finished-only", action="store_true",
                    help="replace only the cells the update has a fit and every evaluation "
                         "for (a rerun that did not reach every cell)")
    ap.add_argument("--no-redraw", action="store_true", help="keep the existing figures")
    args = ap.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    datasets = None if args.datasets is None else [d for d in args.datasets.split(",") if d]
    protocols = None if args.protocols is None else [p for p in args.protocols.split(",") if p]
    counts, report = merge(args.into, args.update, methods, datasets=datasets,
                           protocols=protocols, finished_only=args.finished_only,
                           redraw=not args.no_redraw)
    where = "" if datasets is None else f" on {', '.join(datasets)}"
    print(f"merged {', '.join(methods)}{where} into {args.into}: {counts}; report {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
