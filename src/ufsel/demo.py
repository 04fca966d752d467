"""``python -m ufsel.demo`` (``make demo``): a small benchmark on ``digits``.

Runs every registered selector on scikit-learn's digits (1797 x 64, 10
classes) beside the all-features and random-subset baselines, prints the ACC
and NMI table, and writes the results folder with its HTML report
(``demo_results/report.html``). It is the same as::

    ufsel bench experiments/demo_digits.toml --out demo_results

plus the registered selectors that the experiment file does not list, on two worker
processes (`--n-jobs`). Each fit is capped at 150 s of CPU time, a guard against a runaway
fit, well above what the slowest method (DGUFS) needs on digits; the last line says
whether every method gave a value, and names any that did not and why.
Rerunning it reuses the cache in ``demo_results/cache``.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys

__all__ = ["DEMO_EXPERIMENT", "demo_experiment", "format_table", "methods_without_value",
           "main"]

#: The experiment of ``experiments/demo_digits.toml`` (a test keeps them equal).
DEMO_EXPERIMENT = {
    "datasets": ["digits"],
    "experiment": {
        "name": "demo_digits",
        "title": "ufsel demo: digits (1797 x 64, 10 classes)",
        "description": "Every method with its defaults and a small grid, beside all features "
                       "and random subsets.",
    },
    "evaluation": {
        "n_features": [4, 8, 16, 24, 32], "kmeans_runs": 10, "kmeans_report": "mean",
        "nn_loo": True, "seed": 0, "random_baseline_seeds": 5,
        "tuning": ["defaults", "best_over_grid"], "fit_timeout": 150,
    },
    "methods": {
        "maxvariance": {},
        "laplacianscore": {"grid": {"n_neighbors": [5, 10]}},
        "mcfs": {"fixed": {"n_clusters": "n_classes"}, "grid": {"n_neighbors": [3, 5, 10]}},
    },
}


def demo_experiment():
    """The demo experiment with every registered selector added (defaults only)."""
    from ._registry import SELECTORS

    doc = copy.deepcopy(DEMO_EXPERIMENT)
    for name in sorted(SELECTORS):
        if name in doc["methods"]:
            continue
        params = SELECTORS[name]().get_params()
        doc["methods"][name] = ({"fixed": {"n_clusters": "n_classes"}}
                                if "n_clusters" in params else {})
    return doc


def format_table(results, metric="acc", tuning="defaults"):
    """A plain-text table of ``metric`` (in %) by method and feature count."""
    rows = [r for r in results if r["metric"] == metric]
    ks = sorted({int(r["n_features"]) for r in rows if r["method"] != "all_features"})
    methods = []
    for r in rows:
        if r["method"] not in methods:
            methods.append(r["method"])
    width = max([len(m) for m in methods] + [14])
    lines = [f"{metric.upper()} (%), tuning: {tuning}; baselines: random (mean over seeds), "
             "all features",
             f"{'method':<{width}}" + "".join(f"{k:>8}" for k in ks)]
    for m in methods:
        want = "baseline" if m in ("random", "all_features") else tuning
        mr = {int(r["n_features"]): r for r in rows if r["method"] == m and r["tuning"] == want}
        if not mr:
            continue
        if m == "all_features":
            v = float(next(iter(mr.values()))["value"])
            cells = [v] * len(ks)
        else:
            # a failed or timed-out cell has no value (status column): nan
            cells = [float(mr[k]["value"]) if k in mr and mr[k]["value"] not in (None, "")
                     else float("nan") for k in ks]
        lines.append(f"{m:<{width}}" + "".join(f"{100 * c:8.1f}" for c in cells))
    return "\n".join(lines)


def methods_without_value(results, tuning="defaults"):
    """{method: why} for each method with a cell that has no value (timed out, failed)."""
    missing = {}
    for r in results:
        if r["method"] in ("random", "all_features") or r["tuning"] != tuning:
            continue
        if r["value"] in (None, "") or r.get("status", "ok") != "ok":
            why = r.get("reason") or r.get("status") or "no value"
            missing.setdefault(r["method"], why)
    return missing


def main(argv=None):
    from .benchmark import run

    p = argparse.ArgumentParser(prog="python -m ufsel.demo", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="demo_results", help="results folder (default demo_results)")
    p.add_argument("--n-jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="parallel workers (default: 2, or 1 on a one-core machine)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    res = run(demo_experiment(), args.out, n_jobs=args.n_jobs, progress=not args.no_progress)
    print()
    for metric in ("acc", "nmi"):
        print(format_table(res.results, metric))
        print()
    if "report" in res.files:
        print(f"HTML report: {res.files['report']}")
    methods = {r["method"] for r in res.results} - {"random", "all_features"}
    missing = methods_without_value(res.results)
    if missing:
        print("No value for: " + "; ".join(f"{m} ({why})" for m, why in sorted(missing.items())))
    else:
        print(f"Every one of the {len(methods)} methods gave a value at every feature count.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
