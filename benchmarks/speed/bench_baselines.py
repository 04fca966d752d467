"""Fit time of the baselines EVSC, Q-alpha, EUFS, DGUFS, SOGFS and RNE on a data set.

Each selector is fitted once with its default parameters, ``n_clusters`` set
to the number of classes where the method has one, and
``n_features_to_select`` given on the command line (RNE's H and DGUFS's subset
depend on it). The fit time (wall clock and process CPU time of one fit) and
the k-means ACC/NMI of the selected features are printed as a table.

On a shared machine run it with ``OPENBLAS_NUM_THREADS=1``: with two BLAS
threads on oversubscribed cores, LAPACK calls slow down by up to two orders
of magnitude (a 1024 x 1024 ``eigh`` took 25 s instead of 0.36 s).

Usage::

    UFSEL_DATA=/work/shared/data PYTHONPATH=src python benchmarks/speed/bench_baselines.py \\
        [--dataset coil20] [--n-features 100] [--n-runs 20] [--methods evsc qalpha ...]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from ufsel import get_selector
from ufsel.datasets import load_dataset
from ufsel.evaluation import evaluate_selection

METHODS = ("evsc", "qalpha", "eufs", "dgufs", "sogfs", "rne")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="coil20")
    p.add_argument("--n-features", type=int, default=100)
    p.add_argument("--n-runs", type=int, default=20, help="k-means runs for ACC/NMI (0: skip)")
    p.add_argument("--methods", nargs="+", default=list(METHODS))
    p.add_argument("--random-state", type=int, default=0)
    args = p.parse_args(argv)

    data = load_dataset(args.dataset)
    X, y = data.data, data.target
    c = len(np.unique(y))
    print(f"{args.dataset}: n={X.shape[0]}, d={X.shape[1]}, classes={c}, "
          f"n_features_to_select={args.n_features}")
    print(f"{'method':8s} {'fit_s':>8s} {'cpu_s':>8s} {'n_iter':>7s} {'ACC':>6s} {'NMI':>6s}  warnings")
    for name in args.methods:
        cls = get_selector(name)
        params = {"n_features_to_select": args.n_features}
        keys = cls().get_params()
        if "n_clusters" in keys:
            params["n_clusters"] = c
        if "random_state" in keys:
            params["random_state"] = args.random_state
        est = cls(**params)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0, c0 = time.perf_counter(), time.process_time()
            est.fit(X)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
        kinds = sorted({w.category.__name__ for w in caught})
        acc = nmi = float("nan")
        if args.n_runs:
            res = evaluate_selection(X, y, np.flatnonzero(est.get_support()), n_clusters=c,
                                     n_runs=args.n_runs, random_state=args.random_state,
                                     loo=False)
            acc, nmi = res["acc_mean"], res["nmi_mean"]
        n_iter = getattr(est, "n_iter_", "-")
        print(f"{name:8s} {dt:8.2f} {dc:8.2f} {n_iter!s:>7s} {acc:6.3f} {nmi:6.3f}  {','.join(kinds)}",
              flush=True)


if __name__ == "__main__":
    main()
