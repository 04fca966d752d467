"""k-means on the n x n Gram factor against k-means on the data, for d > n.

:func:`ufsel.linalg.kmeans_indicator` clusters a dense n x d matrix with d > n through
a factor C (n x n, ``C C^T = Z Z^T``: the Cholesky factor of the Gram matrix), which
has the same distances. This script checks, for every shared data set with d > n and
four starts (seeds 0 and 1, ``init="random"`` and ``"k-means++"``), that the labels equal
those of scikit-learn's ``KMeans`` on Z itself with the same seed, and times both (best
of ``--repeats``, ``n_init=10``, as RUFS and NDFS use it). Where the cost rule of
``kmeans_indicator`` skips the factor (d only a little above n, or few clusters), both
columns time the same computation.

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data python benchmarks/speed/bench_kmeans_factor.py

Without ``UFSEL_DATA`` it prints one line and exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", nargs="*", default=None,
                   help="shared data sets (default: every one with more features than samples)")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        print("UFSEL_DATA is not set: no shared data sets to compare on.")
        return 0
    from sklearn.cluster import KMeans

    from ufsel.datasets import list_datasets, load_dataset
    from ufsel.linalg import kmeans_indicator

    names = args.datasets or [e["name"] for e in list_datasets()
                              if e["n_features"] > e["n_samples"] and e["n_classes"]]
    print(f"{'data set':14s} {'n':>5s} {'d':>6s} {'c':>4s}  same labels  raw s  factor s")
    n_same = n_all = 0
    for name in names:
        ds = load_dataset(name)
        Z = ds.data
        if not isinstance(Z, np.ndarray) or Z.shape[1] <= Z.shape[0]:
            continue
        c = len(np.unique(ds.target))
        same = []
        for seed in (0, 1):
            for init in ("random", "k-means++"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    raw = KMeans(c, init=init, n_init=10,
                                 random_state=np.random.RandomState(seed)).fit(Z).labels_
                    fac = kmeans_indicator(Z, c, random_state=np.random.RandomState(seed),
                                           init=init, offset=0.0).argmax(axis=1)
                same.append(bool(np.array_equal(raw, fac)))
        t_raw = t_fac = np.inf
        for _ in range(args.repeats):
            t = time.perf_counter()
            KMeans(c, init="random", n_init=10, random_state=0).fit(Z)
            t_raw = min(t_raw, time.perf_counter() - t)
            t = time.perf_counter()
            kmeans_indicator(Z, c, random_state=0, init="random")
            t_fac = min(t_fac, time.perf_counter() - t)
        n_same += sum(same)
        n_all += len(same)
        print(f"{name:14s} {Z.shape[0]:5d} {Z.shape[1]:6d} {c:4d}  {sum(same)} of {len(same)}"
              f"       {t_raw:6.3f}  {t_fac:6.3f}")
    print(f"same labels: {n_same} of {n_all} starts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
