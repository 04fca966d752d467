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

What it rewrites in ``--into``:

- ``runs.csv``, ``results.csv``, ``runtime.csv``, ``vs_random.csv``: the rows of the
  given methods (on the given data sets, all by default) are replaced by the update's
  (methods not in ``--into`` yet are added);
- ``traces.json``: the same, per method and data set;
- ``experiment.json``: methods the update adds are appended to its method list;
- ``summary.json``: the failures of the given methods replaced, the fit and evaluation
  counts recomputed from the merged tables, and the update's runs added to its history
  (marked with the merged methods);
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
from ufsel.utils import atomic_write_text

TABLES = ("runs", "results", "runtime", "vs_random")
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


def merge(into, update, methods, *, datasets=None, redraw=True):
    """Replace the rows of ``methods`` (on ``datasets``; None: every data set) in ``into``
    by those of ``update``. Returns the recomputed counts and the report's path."""
    into, update = Path(into), Path(update)
    methods = set(methods)
    datasets = None if datasets is None else set(datasets)

    def replaced(row):
        return row["method"] in methods and (datasets is None or row["dataset"] in datasets)

    tables = {}
    for name in TABLES:
        cols, base_rows = read_table(into / f"{name}.csv")
        new_cols, new_rows = read_table(update / f"{name}.csv")
        if new_cols != cols:
            raise SystemExit(f"{name}.csv: the columns of {update} differ from those of {into}")
        if name == "results":
            bad = baseline_mismatches(base_rows, new_rows)
            if bad:
                lines = "\n".join(f"  {k}: {into.name} {a}, {update.name} {b}"
                                  for k, a, b in bad[:10])
                raise SystemExit(f"{len(bad)} baseline values differ between the two runs; "
                                 f"not merged. First ones:\n{lines}")
        if name == "runtime":  # one row per (data set, protocol, method) that was planned
            missing = methods - {r["method"] for r in new_rows}
            if missing:
                raise SystemExit(f"{update} has no rows for {sorted(missing)}")
            if datasets is not None:
                have = {r["dataset"] for r in base_rows}
                unknown = datasets - have
                if unknown:
                    raise SystemExit(f"{into} has no data set {sorted(unknown)}")
                covered = {(r["dataset"], r["method"]) for r in new_rows}
                gaps = sorted((d, m) for d in datasets for m in methods
                              if (d, m) not in covered)
                if gaps:
                    raise SystemExit(f"{update} has no rows for {gaps[:5]}")
        tables[name] = (cols, [r for r in base_rows if not replaced(r)]
                        + [r for r in new_rows if replaced(r)])

    summary = json.loads((into / "summary.json").read_text())
    new_summary = json.loads((update / "summary.json").read_text())
    kernels = [{b.get("architecture") for b in x.get("blas", [])} for x in (summary, new_summary)]
    if all(kernels) and kernels[0] != kernels[1]:
        print(f"note: {update} ran with the BLAS kernel(s) {sorted(map(str, kernels[1]))}, "
              f"{into} with {sorted(map(str, kernels[0]))}; its baselines agreed all the same",
              file=sys.stderr)

    traces = [t for t in json.loads((into / "traces.json").read_text()) if not replaced(t)]
    traces += [t for t in json.loads((update / "traces.json").read_text()) if replaced(t)]

    exp = json.loads((into / "experiment.json").read_text())
    have = {m["label"] for m in exp["methods"]}
    for m in json.loads((update / "experiment.json").read_text())["methods"]:
        if m["label"] in methods and m["label"] not in have:
            exp["methods"].append(m)

    failures = ([f for f in summary["failures"] if not replaced(f)]
                + [f for f in new_summary["failures"] if replaced(f)])
    runs = tables["runs"][1]

    def fits(pred):
        return {(f["dataset"], f["method"], f["params"]) for f in failures
                if f["stage"] == "fit" and pred(f["reason"])}

    timed_out = fits(lambda reason: reason.startswith("fit longer"))
    failed = fits(lambda reason: not reason.startswith("fit longer"))
    ok = {r["fit_key"] for r in runs if r["fit_key"]}
    counts = {"fits_planned": len(ok) + len(timed_out) + len(failed),
              "fits_timed_out": len(timed_out), "fits_failed": len(failed),
              "evals_total": len({r["eval_key"] for r in runs})}
    summary.update(failures=failures, **counts)
    # the update's runs join the history (the report lists every run into the folder),
    # each marked with the methods whose rows it supplied
    marks = {"merged_methods": sorted(methods),
             **({} if datasets is None else {"merged_datasets": sorted(datasets)})}
    summary.setdefault("history", []).extend(
        {**h, **marks} for h in new_summary.get("history", []))

    for name, (cols, rows) in tables.items():
        atomic_write_text(into / f"{name}.csv", _csv_text(cols, rows))
        (into / f"{name}.parquet").unlink(missing_ok=True)
    atomic_write_text(into / "traces.json", json.dumps(traces))
    atomic_write_text(into / "experiment.json", json.dumps(exp, indent=2))
    atomic_write_text(into / "summary.json", json.dumps(summary, indent=2))
    report = write_report(into, redraw=redraw)
    return counts, report


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
    ap.add_argument("--no-redraw", action="store_true", help="keep the existing figures")
    args = ap.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    datasets = None if args.datasets is None else [d for d in args.datasets.split(",") if d]
    counts, report = merge(args.into, args.update, methods, datasets=datasets,
                           redraw=not args.no_redraw)
    where = "" if datasets is None else f" on {', '.join(datasets)}"
    print(f"merged {', '.join(methods)}{where} into {args.into}: {counts}; report {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
