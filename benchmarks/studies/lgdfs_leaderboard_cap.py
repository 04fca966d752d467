"""LGDFS leaderboard cells under the 20 s CPU cap: CPU time per stage and per iteration.

One leaderboard fit (raw X, random_state=0, K from summary.json, one fit with
n_features_to_select=max(counts)) per cell, one thread, CPU clock
(``time.process_time``); the stages of each outer iteration are timed by wrapping the
module-level functions LGDFS calls.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src UFSEL_DATA=/work/shared/data \
        nice -n 10 python benchmarks/studies/lgdfs_leaderboard_cap.py --cells yaleb:n_classes
    # the path's sensitivity to a rounding-sized change of X (main's code: PYTHONPATH=<main>/src)
    ... lgdfs_leaderboard_cap.py --cells madelon:n_classes --perturb 1e-13 --out-dir /tmp/x
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

import ufsel.selectors.sparse_regression._lgdfs as lg  # private: needs public API (per-stage timers)
from ufsel import LGDFS
from ufsel.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import leaderboard_datasets  # noqa: E402

STAGES = ("weighted_knn_graph", "local_regions", "_laplacians", "lgdfs_embedding",
          "lgdfs_regression_norms", "randomized_svd")


def run_cell(name, protocol, datasets, out=None, perturb=0.0):
    info = datasets[name]
    ds = load_dataset(name)
    X = np.ascontiguousarray(ds.data, dtype=np.float64)
    if perturb:  # X (1 + perturb N(0, 1)): how far a rounding-sized change moves the path
        X = X * (1 + perturb * np.random.default_rng(1).standard_normal(X.shape))
    K = info["n_clusters"][protocol]
    times = defaultdict(float)
    saved = {s: getattr(lg, s) for s in STAGES}

    def timed(stage, f):
        def g(*a, **k):
            t = time.process_time()
            try:
                return f(*a, **k)
            finally:
                times[stage] += time.process_time() - t
        return g

    for s, f in saved.items():
        setattr(lg, s, timed(s, f))
    try:
        t0 = time.process_time()
        est = LGDFS(n_features_to_select=max(info["counts"]), n_clusters=K, random_state=0)
        est.fit(X)
        total = time.process_time() - t0
    finally:
        for s, f in saved.items():
            setattr(lg, s, f)
    stages = " ".join(f"{s}={times[s]:.1f}" for s in STAGES if times[s])
    print(f"{name:9s} {protocol:10s} n={X.shape[0]} d={X.shape[1]} K={K} CPU {total:6.1f} s "
          f"n_iter={est.n_iter_} obj={est.objective_[-1]:.8g} | {stages}", flush=True)
    print("  objective_ per iteration:", np.array2string(est.objective_, precision=10,
                                                      max_line_width=100), flush=True)
    if out is not None:
        np.savez(out, ranking=est.ranking_, objective=est.objective_, z=est.feature_weights_)
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cells", required=True, help="name:protocol,... (protocol n_classes/label_free)")
    p.add_argument("--out-dir", default=None)
    p.add_argument("--perturb", type=float, default=0.0,
                   help="multiply X by 1 + perturb * N(0, 1) (seed 1) before the fit")
    args = p.parse_args()
    datasets = leaderboard_datasets()
    for cell in args.cells.split(","):
        name, protocol = cell.split(":")
        out = None if args.out_dir is None else Path(args.out_dir) / f"{name}_{protocol}.npz"
        run_cell(name, protocol, datasets, out, args.perturb)


if __name__ == "__main__":
    main()
