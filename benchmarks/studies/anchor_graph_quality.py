"""The anchor graph against the exact k-NN graph: selection quality and top-k overlap.

For LaplacianScore and MCFS (defaults; MCFS with n_clusters = the number of classes, the
leaderboard's ``n_classes`` protocol) on each data set, the exact k-NN graph
(``graph="knn"``) and the anchor graph (``graph="anchor"``) at several landmark counts:
ACC and NMI of k-means++ on the selected features (10 seeds, K = classes, the
leaderboard's evaluation) at 2 %, 5 % and 10 % of the features, the overlap of the two
top-k sets, and the CPU time of the fit::

    PYTHONPATH=src UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 \
        python benchmarks/studies/anchor_graph_quality.py --data usps mnist10k \
        --anchors 250 500 1000 2000 [--mnist70k] [--output anchor_graph_quality.csv]
"""

from __future__ import annotations

import argparse
import csv
import time

import numpy as np

from ufsel import MCFS, LaplacianScore
from ufsel.datasets import load_dataset, make_mnist70k_like
from ufsel.evaluation import evaluate_selection
from ufsel.utils import atomic_open

FRACTIONS = (0.02, 0.05, 0.10)


def fit_rankings(cls, params, X, counts):
    t0 = time.process_time()
    rankings = cls(**params).fit_rankings(X, counts)
    return rankings, time.process_time() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["usps", "mnist10k"])
    ap.add_argument("--anchors", nargs="+", type=int, default=[250, 500, 1000, 2000])
    ap.add_argument("--methods", nargs="+", default=["laplacianscore", "mcfs"])
    ap.add_argument("--mnist70k", action="store_true", help="also the 70,000 x 784 set")
    ap.add_argument("--output", default=None)
    args = ap.parse_args(argv)
    sets = []
    for name in args.data:
        b = load_dataset(name)
        sets.append((name, b.data, b.target))
    if args.mnist70k:
        b = make_mnist70k_like(random_state=0)
        sets.append(("mnist70k", b.data, b.target))
    rows = []
    for name, X, y in sets:
        X = np.asarray(X, dtype=np.float64)
        k_classes = len(np.unique(y))
        counts = sorted({max(1, int(round(f * X.shape[1]))) for f in FRACTIONS})
        for method in args.methods:
            cls = {"laplacianscore": LaplacianScore, "mcfs": MCFS}[method]
            base = {"random_state": 0}
            if cls is MCFS:
                base["n_clusters"] = k_classes
            ref, t_ref = fit_rankings(cls, {**base, "graph": "knn"}, X, counts)
            configs = [("knn", None, ref, t_ref)]
            for m in args.anchors:
                r, t = fit_rankings(cls, {**base, "graph": "anchor", "n_anchors": m}, X, counts)
                configs.append(("anchor", m, r, t))
            for graph, m, rankings, cpu in configs:
                for k in counts:
                    sel = np.argsort(rankings[k], kind="stable")[:k]
                    top_ref = np.argsort(ref[k], kind="stable")[:k]
                    res = evaluate_selection(X, y, sel, n_runs=10, random_state=0, loo=False,
                                             init="k-means++")
                    row = {"data": name, "n": X.shape[0], "d": X.shape[1], "method": method,
                           "graph": graph, "n_anchors": m or "", "k": k,
                           "acc": round(res["acc_mean"], 4), "nmi": round(res["nmi_mean"], 4),
                           "overlap": round(np.intersect1d(sel, top_ref).size / k, 3),
                           "fit_cpu_s": round(cpu, 1)}
                    rows.append(row)
                    print(",".join(str(v) for v in row.values()), flush=True)
    if args.output:
        with atomic_open(args.output, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
