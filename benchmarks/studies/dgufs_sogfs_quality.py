"""DGUFS and SOGFS beside MaxVariance and random subsets, in one run .

Protocol (ufsel.evaluation, as the leaderboard): each selector with its default
parameters (``n_clusters`` = number of classes where it has one), fitted once per
number of features through ``fit_rankings``; k-means on the selected columns
20 times (one random start each, ``random_state=0``), mean ACC and NMI (max
normaliser). "random" = the mean over 5 random subsets (seeds 0-4) of each size.
Fit times are wall-clock seconds for all the counts together (DGUFS fits once
per count).

Run (from the repository root, one BLAS thread):
    OMP_NUM_THREADS=1 PYTHONPATH=src UFSEL_DATA=/work/shared/data \
        python benchmarks/studies/dgufs_sogfs_quality.py --dataset coil20
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import ufsel
from ufsel.datasets import load_dataset
from ufsel.evaluation import evaluate_selection


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="coil20")
    ap.add_argument("--n-features", type=int, nargs="+", default=[50, 100])
    ap.add_argument("--methods", nargs="+", default=["maxvariance", "dgufs", "sogfs"])
    ap.add_argument("--n-random", type=int, default=5)
    args = ap.parse_args(argv)
    data = load_dataset(args.dataset)
    X, y = data.data, data.target
    c = np.unique(y).size
    counts = args.n_features

    def evaluate(selections):
        out = []
        for sel in selections:
            r = evaluate_selection(X, y, sel, n_runs=20, random_state=0, loo=False)
            out.append((100 * r["acc_mean"], 100 * r["nmi_mean"]))
        return out

    head = " | ".join(f"{k} ACC | {k} NMI" for k in counts)
    print(f"{args.dataset} {X.shape}, ufsel from {ufsel.__file__}")
    print(f"| method | {head} | fit (s) |")
    print("|---" * (2 * len(counts) + 2) + "|")
    for name in args.methods:
        cls = ufsel.SELECTORS[name]
        params = {"n_clusters": c} if "n_clusters" in cls().get_params() else {}
        if "random_state" in cls().get_params():
            params["random_state"] = 0
        est = cls(**params)
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rankings = est.fit_rankings(X, counts)
        t = time.perf_counter() - t
        res = evaluate([np.argsort(rankings[k], kind="stable")[:k] for k in counts])
        cells = " | ".join(f"{a:.1f} | {b:.1f}" for a, b in res)
        print(f"| {name} | {cells} | {t:.1f} |", flush=True)
    cells = []
    for k in counts:
        res = evaluate([np.random.RandomState(s).permutation(X.shape[1])[:k]
                        for s in range(args.n_random)])
        cells.append(f"{np.mean([a for a, _ in res]):.1f} | {np.mean([b for _, b in res]):.1f}")
    print(f"| random ({args.n_random} subsets) | {' | '.join(cells)} | |", flush=True)


if __name__ == "__main__":
    main()
