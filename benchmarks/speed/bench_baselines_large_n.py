"""Fit time of the baselines UDFS, NDFS, JELSR, RUFS and SPEC on COIL20 and larger n.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 PYTHONPATH=src UFSEL_DATA=/work/shared/data \
        python benchmarks/speed/bench_baselines_large_n.py --large

On a machine shared with other jobs, pin BLAS to one thread
(``OMP_NUM_THREADS=1``): a multi-threaded OpenBLAS that competes for cores
spins and runs 10-25x slower (measured on the 2-core development machine).

Each method is fitted once with its default parameters (n_clusters = number
of classes, random_state=0) and the wall-clock fit time is printed, with the
CPU time of the process (all threads; on a machine shared with other jobs
the wall time overstates the cost, the CPU time does not) and the ACC / NMI
of k-means (10 runs, mean) on the 50 best-ranked features as a
sanity check. ``--large`` also fits on a synthetic problem with n = 12000
samples (above the n = 5000 limit for dense n x n matrices) to show that the
fits stay sparse; it prints the peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np

from ufsel import JELSR, NDFS, RUFS, SPEC, UDFS
from ufsel.datasets import load_dataset, make_planted_clusters
from ufsel.evaluation import evaluate_clustering

METHODS = {
    "UDFS": UDFS,
    "NDFS": NDFS,
    "JELSR": JELSR,
    "RUFS": RUFS,
    "SPEC(phi1)": lambda **kw: SPEC(scoring="phi1", **{k: v for k, v in kw.items() if k != "n_clusters"}),
    "SPEC(phi2)": lambda **kw: SPEC(scoring="phi2", **{k: v for k, v in kw.items() if k != "n_clusters"}),
    "SPEC(phi3)": lambda **kw: SPEC(scoring="phi3", **kw),
}


def run(X, y, c, label, n_select=50, evaluate=True):
    print(f"\n{label}: n={X.shape[0]}, d={X.shape[1]}, c={c}")
    print(f"{'method':<12} {'wall [s]':>8} {'cpu [s]':>8} {'n_iter':>6} {'ACC':>6} {'NMI':>6}")
    for name, make in METHODS.items():
        est = make(n_features_to_select=n_select, n_clusters=c, random_state=0)
        t0, c0 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        acc = nmi = float("nan")
        if evaluate:
            res = evaluate_clustering(est.transform(X), y, n_clusters=c, n_runs=10, random_state=0)
            acc, nmi = res["acc_mean"], res["nmi_mean"]
        print(f"{name:<12} {dt:8.2f} {dc:8.2f} {getattr(est, 'n_iter_', '-'):>6} {acc:6.3f} {nmi:6.3f}",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", action="store_true", help="also fit n = 12000 synthetic data")
    args = ap.parse_args()
    data = load_dataset("coil20")
    X, y = data.data, data.target
    run(X, y, len(np.unique(y)), "COIL20")
    if args.large:
        X, y, _ = make_planted_clusters(12000, 20, 180, 10, random_state=0)
        run(X, y, 10, "synthetic", evaluate=False)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\npeak RSS {peak:.0f} MiB (a dense 12000 x 12000 float64 matrix alone is "
              f"{12000**2 * 8 / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main()
