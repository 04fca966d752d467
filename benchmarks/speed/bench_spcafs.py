"""SPCAFS cost benchmark: wall time and peak memory on two synthetic shapes.

    PYTHONPATH=src python benchmarks/speed/bench_spcafs.py            # both shapes
    PYTHONPATH=src python benchmarks/speed/bench_spcafs.py --shape tall

Shapes: ``tall`` n = 100,000 x d = 500 (dense S_t path: one O(n d^2)
scatter, then d x d eigenproblems), ``wide`` n = 200 x d = 20,000 (LinearOperator
path: S_t - gamma G is never formed). The data are a low-rank signal (10
clusters living in 20 features) plus unit noise. Peak memory is reported two
ways: tracemalloc's peak of Python/NumPy allocations made by the fit (the data
matrix excluded), and the process's maximum resident set size (data included).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import measure  # noqa: E402

from ufsel import SPCAFS  # noqa: E402

SHAPES = {"tall": (100_000, 500), "wide": (200, 20_000)}


def make_data(n, d, n_informative=20, n_clusters=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    centres = 3.0 * rng.standard_normal((n_clusters, n_informative))
    X[:, :n_informative] += centres[rng.integers(n_clusters, size=n)]
    return X


def run(shape, gamma, n_components, max_iter):
    n, d = SHAPES[shape]
    X = make_data(n, d)
    sel = SPCAFS(20, n_components=n_components, gamma=gamma, max_iter=max_iter,
                 random_state=0)
    _, meas = measure(sel.fit, X)
    hits = len(set(np.flatnonzero(sel.get_support())) & set(range(20)))
    print(f"{shape:5s} n={n:>7d} d={d:>6d} m={n_components} gamma={gamma:g} "
          f"solver={sel.solver_:8s} n_iter={sel.n_iter_:3d} wall={meas.wall:7.2f}s cpu={meas.cpu:7.2f}s "
          f"fit_peak_traced={meas.peak_traced_mib:8.1f}MiB max_rss={meas.max_rss_mib:8.1f}MiB "
          f"data={X.nbytes / 2**20:.1f}MiB informative_in_top20={hits}/20 "
          f"warnings={len(meas.warnings)}", flush=True)
    return meas.wall


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", choices=sorted(SHAPES) + ["all"], default="all")
    ap.add_argument("--gamma", type=float, default=None,
                    help="default: 1e4 (tall), 1e2 (wide); both in the paper's grid")
    ap.add_argument("--n-components", type=int, default=9)
    ap.add_argument("--max-iter", type=int, default=100)
    args = ap.parse_args(argv)
    shapes = sorted(SHAPES) if args.shape == "all" else [args.shape]
    for shape in shapes:
        gamma = args.gamma if args.gamma is not None else {"tall": 1e4, "wide": 1e2}[shape]
        run(shape, gamma, args.n_components, args.max_iter)


if __name__ == "__main__":
    sys.exit(main())
