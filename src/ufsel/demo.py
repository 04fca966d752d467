"""``python -m ufsel.demo`` (``make demo``): a small benchmark on ``digits``.

Runs the registered selectors on scikit-learn's digits (1797 x 64, 10 classes)
beside the all-features and random-subset baselines, one selector at a time,
and prints each selector's k-means accuracy as soon as it is evaluated; then
the NMI table, and the results folder with its HTML report
(``demo_results/report.html``). ``make demo`` runs every selector but the
slowest three (:data:`SLOW_SELECTORS`: DGUFS, SOGFS and UFSA, seconds to more
than a minute per fit on digits); ``make demo-all`` (``--all``) runs them too,
after the others. The selectors and settings are those of::

    ufsel bench experiments/demo_digits.toml --out demo_results

plus the registered selectors that the experiment file does not list, with
their defaults, in one process (``--n-jobs`` starts workers). With ``--all``,
each fit is capped at 150 s of CPU time, a guard against a runaway fit, well
above what the slowest method (DGUFS) needs on digits. The last lines say which
selectors ran and whether each gave a value, and name any that did not and why.
Rerunning it reuses the cache in ``demo_results/cache``, so ``make demo-all``
after ``make demo`` fits only the slow three.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

__all__ = ["DEMO_EXPERIMENT", "SLOW_SELECTORS", "demo_experiment", "format_table",
           "methods_without_value", "main"]

#: The experiment of ``experiments/demo_digits.toml`` (a test keeps them equal).
DEMO_EXPERIMENT = {
    "datasets": ["digits"],
    "experiment": {
        "name": "demo_digits",
        "title": "ufsel demo: digits (1797 x 64, 10 classes)",
        "description": "Every method with its defaults, beside all features and random "
                       "subsets.",
    },
    "evaluation": {
        "n_features": [4, 8, 16, 32], "kmeans_runs": 10, "kmeans_report": "mean",
        "nn_loo": False, "seed": 0, "random_baseline_seeds": 5, "tuning": ["defaults"],
        "fit_timeout": 150,
    },
    "methods": {
        "maxvariance": {},
        "laplacianscore": {},
        "mcfs": {"fixed": {"n_clusters": "n_classes"}},
    },
}

#: Registered names of the selectors that ``make demo`` leaves to ``make demo-all``: a fit
#: on digits takes them from seconds (SOGFS, UFSA) to more than a minute (DGUFS) of CPU
#: time, where each of the others takes under two seconds.
SLOW_SELECTORS = ("dgufs", "sogfs", "ufsa")


def demo_experiment(include_slow=True):
    """The demo experiment with the registered selectors added (defaults only).

    Parameters
    ----------
    include_slow : bool, default=True
        Include the selectors of :data:`SLOW_SELECTORS` (``make demo-all``); they
        come after all the others. Without them, fits are not capped (each of the
        others takes under two seconds on digits), which saves starting a process
        per fit.
    """
    from . import SELECTORS

    doc = copy.deepcopy(DEMO_EXPERIMENT)
    fast = [name for name in sorted(SELECTORS) if name not in SLOW_SELECTORS]
    slow = [name for name in sorted(SELECTORS) if name in SLOW_SELECTORS]
    for name in fast + (slow if include_slow else []):
        if name in doc["methods"]:
            continue
        params = SELECTORS[name]().get_params()
        doc["methods"][name] = ({"fixed": {"n_clusters": "n_classes"}}
                                if "n_clusters" in params else {})
    if not include_slow:
        for name in SLOW_SELECTORS:
            doc["methods"].pop(name, None)
        # no fit here comes near the cap, and capping one costs a process of its own
        doc["evaluation"]["fit_timeout"] = 0
    return doc


def _columns(results, metric):
    """The feature counts of ``results`` (the baselines' and the methods')."""
    return sorted({int(r["n_features"]) for r in results
                   if r["metric"] == metric and r["method"] != "all_features"})


def _cells(results, method, ks, metric="acc", tuning="defaults"):
    """``metric`` of ``method`` at each count of ``ks`` (nan where it has no value)."""
    want = "baseline" if method in ("random", "all_features") else tuning
    mr = {int(r["n_features"]): r for r in results
          if r["metric"] == metric and r["method"] == method and r["tuning"] == want}
    if not mr:
        return None
    if method == "all_features":
        return [float(next(iter(mr.values()))["value"])] * len(ks)
    # a failed or timed-out cell has no value (status column): nan
    return [float(mr[k]["value"]) if k in mr and mr[k]["value"] not in (None, "")
            else float("nan") for k in ks]


def _row(label, cells, width):
    return f"{label:<{width}}" + "".join(f"{100 * c:8.1f}" for c in cells)


def format_table(results, metric="acc", tuning="defaults"):
    """A plain-text table of ``metric`` (in %) by method and feature count."""
    ks = _columns(results, metric)
    methods = []
    for r in results:
        if r["metric"] == metric and r["method"] not in methods:
            methods.append(r["method"])
    width = max([len(m) for m in methods] + [14])
    lines = [f"{metric.upper()} (%), tuning: {tuning}; baselines: random (mean over seeds), "
             "all features",
             f"{'method':<{width}}" + "".join(f"{k:>8}" for k in ks)]
    for m in methods:
        cells = _cells(results, m, ks, metric, tuning)
        if cells is not None:
            lines.append(_row(m, cells, width))
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


def _fit_seconds(results, method):
    """The fit time of ``method`` at its defaults, in seconds (None when unknown)."""
    for r in results:
        if r["method"] == method and r["tuning"] == "defaults" and r.get("fit_time_s") not in (
                None, ""):
            return float(r["fit_time_s"])
    return None


def _stage(doc, method):
    """The experiment ``doc`` with ``method`` as its only method (None: the baselines only)."""
    one = copy.deepcopy(doc)
    one["methods"] = {} if method is None else {method: doc["methods"][method]}
    return one


def main(argv=None):
    from . import SELECTORS, get_selector
    from .benchmark import run
    from .utils import atomic_write_text

    p = argparse.ArgumentParser(prog="python -m ufsel.demo",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="demo_results", help="results folder (default demo_results)")
    # One process by default: on digits, starting worker processes (each imports the
    # library) costs more CPU time than a second core saves, and on a shared machine the
    # CPU time is what the wait depends on (benchmarks/speed/bench_demo.py).
    p.add_argument("--n-jobs", type=int, default=1,
                   help="parallel worker processes (default 1)")
    p.add_argument("--all", action="store_true",
                   help="also run the slowest selectors (" + ", ".join(
                       get_selector(n).__name__ for n in SLOW_SELECTORS) + "), after the others")
    p.add_argument("--no-progress", action="store_true",
                   help="print the tables at the end only, not each selector as it finishes")
    args = p.parse_args(argv)
    t_start = time.perf_counter()
    doc = demo_experiment(include_slow=args.all)
    methods = list(doc["methods"])
    ev = doc["evaluation"]
    ks = ev["n_features"]
    slow_names = ", ".join(get_selector(n).__name__ for n in SLOW_SELECTORS)
    say = (lambda *a, **kw: None) if args.no_progress else print
    say(f"ufsel demo: {len(methods)} selectors on digits (1797 x 64, 10 classes), one at a "
        f"time{'' if args.all else f' ({slow_names}, the slowest, run with make demo-all)'}.")
    say(f"k-means accuracy (ACC, %, mean of {ev['kmeans_runs']} runs) on each selector's top "
        f"k features, at its defaults; random: mean of {ev['random_baseline_seeds']} random "
        "k-subsets.")
    width = max(len(m) for m in methods + ["all_features"]) + 2
    say(f"{'k =':<{width}}" + "".join(f"{k:>8}" for k in ks) + "     fit", flush=True)

    # One run per selector into the same folder (they share its cache), so that each line
    # prints as soon as that selector is evaluated; a first run evaluates the baselines.
    # Those runs' entries are kept out of the folder's run history: the last run, which
    # finds everything in the cache and writes the tables, figures and report, stands for
    # this whole command there.
    out = Path(args.out)
    summary_path = out / "summary.json"
    previous_summary = summary_path.read_text() if summary_path.is_file() else None
    fits_cached = fits_total = 0
    for method in [None, *methods]:
        if method is not None:
            say(f"{method:<{width}}", end="", flush=True)
        res = run(_stage(doc, method), out, n_jobs=args.n_jobs, progress=False, plots=False,
                  report=False, verbose=False)
        if method is None:
            for base in ("random", "all_features"):
                say(_row(base, _cells(res.results, base, ks), width), flush=True)
            continue
        fits_cached += res.summary["fits_cached"]
        fits_total += res.summary["fits_planned"]
        fit = _fit_seconds(res.results, method)
        why = methods_without_value(res.results).get(method)
        say(_row("", _cells(res.results, method, ks), 0)
            + (f"  {fit:5.1f} s" if fit is not None else "")
            + (f"  ({why})" if why else ""), flush=True)
    if previous_summary is None:
        summary_path.unlink(missing_ok=True)
    else:
        atomic_write_text(summary_path, previous_summary)
    res = run(doc, out, n_jobs=args.n_jobs, progress=False, verbose=False)
    wall = time.perf_counter() - t_start

    print()
    if args.no_progress:
        print(format_table(res.results, "acc"))
        print()
    print(format_table(res.results, "nmi"))
    print()
    if "report" in res.files:
        print(f"HTML report: {res.files['report']}")
    missing = methods_without_value(res.results)
    n_all = len(SELECTORS)
    not_run = [get_selector(n).__name__ for n in sorted(set(SELECTORS) - set(methods))]
    ran = (f"all {n_all} registered selectors" if not not_run else
           f"{len(methods)} of the {n_all} registered selectors (not run: "
           f"{', '.join(not_run)}; make demo-all runs every one)")
    print(f"Ran {ran} on digits in {wall:.0f} s"
          + (f" ({fits_cached} of their {fits_total} fits from the cache of an earlier run)"
             if fits_cached else "") + ".")
    if missing:
        print("No value for: " + "; ".join(f"{m} ({why})" for m, why in sorted(missing.items())))
    else:
        print(f"Every one of the {len(methods)} selectors gave a value at every feature count.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
