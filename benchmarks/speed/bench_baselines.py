"""Fit time of selectors at their defaults on a data set, and on a large synthetic problem.

Each selector is fitted once with its default parameters, ``n_clusters`` set
to the number of classes where the method has one, ``random_state`` fixed, and
``n_features_to_select`` given on the command line (RNE's H and DGUFS's subset
depend on it). The table gives the wall-clock and process CPU time of one fit
(all threads; on a machine shared with other jobs the wall time overstates the
cost, the CPU time does not), its iterations, the k-means ACC / NMI of the
selected features (``--n-runs`` runs, 0 to skip) and the warnings it raised.
SPEC is fitted once per ``--spec-scorings`` style.

``--large`` also fits every method on ``make_planted_clusters(12000, 20, 180, 10)``
(n above the 5,000 limit of the dense n x n methods, which refuse it) to show
which fits stay sparse, and prints the peak resident memory.

On a shared machine run it with one BLAS thread: with two BLAS threads on
oversubscribed cores, LAPACK calls slow down by up to two orders of magnitude.

Usage::

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \\
        python benchmarks/speed/bench_baselines.py [--dataset coil20] [--n-features 100] \\
        [--n-runs 20] [--methods evsc qalpha ...] [--large]
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np

from ufsel import get_selector
from ufsel.datasets import load_dataset, make_planted_clusters
from ufsel.evaluation import evaluate_selection

METHODS = ("evsc", "qalpha", "eufs", "dgufs", "sogfs", "rne", "udfs", "ndfs", "jelsr", "rufs",
           "spec")


def fits(methods, spec_scorings):
    """(label, selector class, extra parameters) for each fit."""
    for name in methods:
        if name == "spec":
            for scoring in spec_scorings:
                yield f"spec({scoring})", get_selector(name), {"scoring": scoring}
        else:
            yield name, get_selector(name), {}


def run(X, y, label, args):
    c = len(np.unique(y))
    print(f"\n{label}: n={X.shape[0]}, d={X.shape[1]}, classes={c}, "
          f"n_features_to_select={args.n_features}")
    print(f"{'method':11s} {'fit_s':>8s} {'cpu_s':>8s} {'n_iter':>7s} {'ACC':>6s} {'NMI':>6s}  warnings")
    for name, cls, extra in fits(args.methods, args.spec_scorings):
        params = {"n_features_to_select": args.n_features, **extra}
        keys = cls().get_params()
        if "n_clusters" in keys:
            params["n_clusters"] = c
        if "random_state" in keys:
            params["random_state"] = args.random_state
        est = cls(**params)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                est.fit(X)
            except ValueError as exc:          # e.g. DGUFS above its n limit
                print(f"{name:11s} refused: {exc}", flush=True)
                continue
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
        kinds = sorted({w.category.__name__ for w in caught})
        acc = nmi = float("nan")
        if args.n_runs and y is not None:
            res = evaluate_selection(X, y, np.flatnonzero(est.get_support()), n_clusters=c,
                                     n_runs=args.n_runs, random_state=args.random_state,
                                     loo=False)
            acc, nmi = res["acc_mean"], res["nmi_mean"]
        n_iter = getattr(est, "n_iter_", "-")
        print(f"{name:11s} {dt:8.2f} {dc:8.2f} {n_iter!s:>7s} {acc:6.3f} {nmi:6.3f}  {','.join(kinds)}",
              flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="coil20")
    p.add_argument("--n-features", type=int, default=100)
    p.add_argument("--n-runs", type=int, default=20, help="k-means runs for ACC/NMI (0: skip)")
    p.add_argument("--methods", nargs="+", default=list(METHODS))
    p.add_argument("--spec-scorings", nargs="+", default=["phi1", "phi2", "phi3"])
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--large", action="store_true", help="also fit n = 12000 synthetic data")
    args = p.parse_args(argv)

    data = load_dataset(args.dataset)
    run(data.data, data.target, args.dataset, args)
    if args.large:
        X, y, _ = make_planted_clusters(12000, 20, 180, 10, random_state=0)
        run(X, y, "synthetic (make_planted_clusters)", argparse.Namespace(**{**vars(args),
                                                                             "n_runs": 0}))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\npeak RSS {peak:.0f} MiB (a dense 12000 x 12000 float64 matrix alone is "
              f"{12000**2 * 8 / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main()
