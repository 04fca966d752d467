"""Lower bound on RNE's leaderboard fit time: the reference schedule's flops over DGEMM's rate.

RNE (Liu et al., KBS 2020) fits one H of shape (d, m) per selected count m, with the
reference schedule of 50 outer x 30 inner multiplicative steps. Each step multiplies H by
the positive and negative parts of ``A^T A`` (d x d) and forms ``H (H^T H)``: with the
products that ``ufsel.RNE`` uses (see its Notes),

- ``4 d^2 m + 3 d m^2`` flops a step when ``n >= d / 2``;
- ``2 d^2 m + 4 n d m + 3 d m^2`` when ``n < d / 2``.

The leaderboard fits every count of its grid (FSEVAL's 0.5 %, 1 %, ..., 10 % of d), so one
leaderboard fit of RNE costs ``1500 * sum over the counts`` of that. This script prints, for
every leaderboard data set, that flop count and the time it takes at the DGEMM rate that
this machine reaches on one thread (measured here on a d x d by d x m product at the data
set's largest count), against the leaderboard's cap of 20 s of CPU time::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/studies/rne_leaderboard_cost.py

The bound leaves out everything but the matrix products (the LLE weights, ``A^T A``, the
element-wise work), so a data set whose bound is above the cap cannot be fitted inside it
without computing less than the reference schedule does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import leaderboard_datasets  # noqa: E402

STEPS = 50 * 30  # the reference's outer x inner iterations
CAP = 20.0


def step_flops(n, d, m):
    """Flops of one multiplicative H step of ``ufsel.RNE`` (its Notes, "Cost")."""
    if 2 * n < d:
        return 2 * d * d * m + 4 * n * d * m + 3 * d * m * m
    return 4 * d * d * m + 3 * d * m * m


def gemm_rate(d, m, repeats=3):
    """DGEMM flops per CPU second on a (d x d) @ (d x m) product, best of ``repeats``."""
    rng = np.random.default_rng(0)
    G = rng.random((d, d))
    H = np.asfortranarray(rng.random((d, m)))
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        G @ H
        best = min(best, time.process_time() - t0)
    return 2.0 * d * d * m / max(best, 1e-9)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", help="comma-separated leaderboard data sets (default: all)")
    args = p.parse_args(argv)
    datasets = leaderboard_datasets()
    names = args.datasets.split(",") if args.datasets else list(datasets)
    print("| data set | n | d | counts | sum of m | Tflop | DGEMM GFLOP/s | bound (s) | inside 20 s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        info = datasets[name]
        n, d, counts = info["n_samples"], info["n_features"], info["counts"]
        flops = STEPS * sum(step_flops(n, d, m) for m in counts)
        rate = gemm_rate(d, max(counts))
        bound = flops / rate
        print(f"| {name} | {n} | {d} | {len(counts)} | {sum(counts)} | {flops / 1e12:.3g} | "
              f"{rate / 1e9:.1f} | {bound:.3g} | {'yes' if bound < CAP else 'no'} |",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
