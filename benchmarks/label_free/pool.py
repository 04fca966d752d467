"""The development pool: candidate methods against random subsets on the 22 extra data sets.

    OPENBLAS_CORETYPE=Haswell UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 PYTHONPATH=src \
        nice -n 15 python benchmarks/label_free/pool.py [--datasets pima,wine] \
        [--methods maxvariance,mcfs] [--cache-dir results/label_free_pool]

The leaderboard's protocol (FSEVAL's): k = max(1, ceil(p d)) for p = 0.5 %, 1 %, ...,
10 %; each method at its defaults with ``n_clusters`` = the number of classes and
``random_state=0`` (MCFS, whose ranking depends on the count, with its ranking for
each k); k-means++ with K = classes over 10 seeds, ACC (Hungarian) averaged over the
seeds; 20 random subsets of each size (seeded), their mean and 90th percentile. On a
data set of 8 to 20 features every count of the grid is 1 or 2.

Every (data set, method) cell is cached as one JSON file, written atomically, so an
interrupted run resumes; data sets run cheapest first (n d). The result is
``benchmarks/results/label_free/pool.csv``: one row per (data set, method) with the
grid-mean ACC, the random subsets' grid-mean ACC and its mean 90th percentile, and
``pool_curves.csv``: the same per count. The leaderboard's 34 data sets come from
``reference_acc.csv`` (grid means only), added by :func:`read_pool` of
``meta_dataset.py``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
OUT_DIR = REPO / "benchmarks" / "results" / "label_free"
EXTRA_DIR = Path(os.environ.get("UFSEL_DATA", "/work/shared/data")) / "extra"
RATIOS = tuple(round(0.005 * i, 3) for i in range(1, 21))
KMEANS_RUNS, SEED, RANDOM_SUBSETS = 10, 0, 20
#: The route's candidates and the cheap others of the leaderboard (within a few MCFS runs).
METHODS = ("maxvariance", "laplacianscore", "spec", "mcfs", "spcafs", "pivotedqr",
           "evsc", "ndfs", "rsfs")


def grid_counts(d):
    """k = max(1, ceil(p d)) for each ratio of the grid, with repeats."""
    return [max(1, math.ceil(round(p * d, 9))) for p in RATIOS]


def extra_names(folder=EXTRA_DIR):
    return sorted(p.stem for p in Path(folder).glob("*.npz"))


def load_extra(name, folder=EXTRA_DIR):
    with np.load(Path(folder) / f"{name}.npz", allow_pickle=False) as z:
        return np.asarray(z["X"], dtype=np.float64), np.asarray(z["y"])


def source_of(name):
    return "UCR" if name in ("italypowerdemand", "basicmotions") else "KEEL"


def acc_of(X, y, cols):
    from ufsel.evaluation import evaluate_selection

    res = evaluate_selection(X, y, np.asarray(sorted(cols), dtype=np.intp), n_runs=KMEANS_RUNS,
                             random_state=SEED, loo=False, init="k-means++")
    return float(res["acc_mean"])


def read_bench_acc(results_csv):
    """ACC per (data set, method) and count from a ``ufsel bench`` results.csv: each method
    at its defaults with K = classes (protocol ``n_classes``), and the random subsets."""
    cells = {}
    with open(results_csv, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["metric"] != "acc" or r["status"] != "ok" or r["value"] == "":
                continue
            if r["method"] != "random" and (r["protocol"] != "n_classes"
                                            or r["tuning"] != "defaults"):
                continue
            cells.setdefault((r["dataset"], r["method"]), {})[int(r["n_features"])] = float(
                r["value"])
    return cells


def write_atomic(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def method_cell(X, y, method, ks):
    """ACC of the method's top k features for each distinct k of the grid."""
    from ufsel import get_selector
    from ufsel.utils import get_selector_tags

    cls = get_selector(method)
    defaults = cls().get_params()
    params = {"n_features_to_select": max(ks)}
    if "n_clusters" in defaults:
        params["n_clusters"] = int(np.unique(y).size)
    if "random_state" in defaults:
        params["random_state"] = 0
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(**params)
        if get_selector_tags(est).scores_depend_on_count:
            rankings = est.fit_rankings(X, ks)
        else:
            est.fit(X)
            rankings = {k: est.ranking_ for k in ks}
    cpu = time.process_time() - t0
    acc = {int(k): acc_of(X, y, np.argsort(rankings[k], kind="stable")[:k]) for k in ks}
    return {"acc": acc, "fit_cpu_s": cpu}


def random_cell(X, y, ks):
    rng = np.random.RandomState(SEED)
    d = X.shape[1]
    out = {}
    for k in ks:
        vals = [acc_of(X, y, rng.choice(d, k, replace=False)) for _ in range(RANDOM_SUBSETS)]
        out[int(k)] = {"mean": float(np.mean(vals)), "p90": float(np.percentile(vals, 90))}
    return {"acc": out}


def run(names, methods, cache_dir, log=print):
    from threadpoolctl import threadpool_limits

    shapes = {}
    for name in names:
        X, y = load_extra(name)
        shapes[name] = X.shape
    for name in sorted(names, key=lambda s: shapes[s][0] * shapes[s][1]):
        X, y = load_extra(name)
        ks = sorted(set(grid_counts(X.shape[1])))
        for method in ("random", *methods):
            path = Path(cache_dir) / name / f"{method}.json"
            if path.exists():
                continue
            t0 = time.perf_counter()
            try:
                with threadpool_limits(limits=1):
                    cell = random_cell(X, y, ks) if method == "random" else method_cell(
                        X, y, method, ks)
                cell["status"] = "ok"
            except Exception as exc:  # a method that fails is a row with its error
                cell = {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
            write_atomic(path, json.dumps(cell))
            log(f"{name} {X.shape} {method}: {cell['status']} "
                f"({time.perf_counter() - t0:.1f} s)")


def collect(names, methods, cache_dir, out_dir=OUT_DIR):
    """Write pool.csv (grid means) and pool_curves.csv (per count) from the cache."""
    rows, curves = [], []
    for name in names:
        X, y = load_extra(name)
        n, d = X.shape
        ks = grid_counts(d)
        rpath = Path(cache_dir) / name / "random.json"
        if not rpath.exists():
            continue
        rand = json.loads(rpath.read_text())["acc"]
        r_mean = float(np.mean([rand[str(k)]["mean"] for k in ks]))
        r_p90 = float(np.mean([rand[str(k)]["p90"] for k in ks]))
        for k in sorted(set(ks)):
            curves.append({"dataset": name, "method": "random", "k": k,
                           "acc": f"{rand[str(k)]['mean']:.6f}",
                           "random_p90": f"{rand[str(k)]['p90']:.6f}"})
        for method in methods:
            path = Path(cache_dir) / name / f"{method}.json"
            if not path.exists():
                continue
            cell = json.loads(path.read_text())
            if cell["status"] != "ok":
                continue
            acc = cell["acc"]
            rows.append({"dataset": name, "source": source_of(name), "n": n, "d": d,
                         "classes": int(np.unique(y).size), "method": method,
                         "acc": f"{np.mean([acc[str(k)] for k in ks]):.6f}",
                         "random_acc": f"{r_mean:.6f}", "random_p90": f"{r_p90:.6f}",
                         "fit_cpu_s": f"{cell['fit_cpu_s']:.4f}"})
            for k in sorted(set(ks)):
                curves.append({"dataset": name, "method": method, "k": k,
                               "acc": f"{acc[str(k)]:.6f}", "random_p90": ""})
    for fname, table in (("pool.csv", rows), ("pool_curves.csv", curves)):
        if not table:
            continue
        from io import StringIO

        buf = StringIO()
        w = csv.DictWriter(buf, fieldnames=list(table[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(table)
        write_atomic(Path(out_dir) / fname, buf.getvalue())
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", help="comma-separated names (default: every extra set)")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--cache-dir", default=str(REPO / "results" / "label_free_pool"))
    ap.add_argument("--collect-only", action="store_true")
    args = ap.parse_args(argv)
    names = args.datasets.split(",") if args.datasets else extra_names()
    unknown = sorted(set(names) - set(extra_names()))
    if unknown:
        sys.exit(f"error: no extra data set named {', '.join(unknown)}")
    methods = tuple(args.methods.split(","))
    if not args.collect_only:
        run(names, methods, args.cache_dir, log=lambda m: print(m, flush=True))
    rows = collect(extra_names(), methods, args.cache_dir)
    print(f"{len(rows)} (data set, method) rows in {OUT_DIR / 'pool.csv'}")


if __name__ == "__main__":
    main()
