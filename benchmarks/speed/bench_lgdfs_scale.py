"""LGDFS at scale: CPU time per stage of each iteration, planted hits, peak memory.

Usage::

    python benchmarks/speed/bench_lgdfs_scale.py --data planted:200000 --max-iter 3
    UFSEL_DATA=/path/to/data python benchmarks/speed/bench_lgdfs_scale.py --data mnist70k
    python benchmarks/speed/bench_lgdfs_scale.py --data planted:200000 --neighbors exact

Each stage of Algorithm 1 (the neighbour search or its warm start, the two
Laplacians, the Y-step, the regressions) is timed by wrapping the function
LGDFS calls, in CPU seconds of this process (all threads; ``time.process_time``),
which a loaded machine disturbs less than wall time. ``planted:N`` is
``make_planted(N, 100, 10, random_state=0)`` (float32), ``mnist70k`` is
``make_mnist70k_like(random_state=0)``.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

import ufsel.selectors.sparse_regression._lgdfs as lgdfs_module  # private: needs public API
from ufsel import LGDFS  # noqa: E402

STAGES = {"search": "weighted_knn_graph", "warm start": "refine_neighbors",
          "Laplacians": "_laplacians", "Y-step": "lgdfs_embedding",
          "regressions": "lgdfs_regression_norms"}


def instrument(times):
    """Wrap the functions LGDFS calls; ``times[stage]`` collects CPU seconds per call."""
    for stage, name in STAGES.items():
        real = getattr(lgdfs_module, name)

        def timed(*args, _real=real, _stage=stage, **kwargs):
            t0 = time.process_time()
            try:
                return _real(*args, **kwargs)
            finally:
                times[_stage].append(time.process_time() - t0)
                print(f"  {_stage}: {times[_stage][-1]:.1f} CPU s (process total "
                      f"{time.process_time():.1f})", flush=True)

        setattr(lgdfs_module, name, timed)


def load(spec):
    from ufsel.datasets import make_mnist70k_like, make_planted

    if spec == "mnist70k":
        b = make_mnist70k_like(random_state=0)
        return b.data, None
    n = int(spec.split(":")[1])
    X, _, informative = make_planted(n, 100, 10, random_state=0)
    return X, informative


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="planted:200000")
    ap.add_argument("--max-iter", type=int, default=30)
    ap.add_argument("--neighbors", default="auto", help="LGDFS's neighbors_algorithm")
    ap.add_argument("--n-clusters", type=int, default=10)
    args = ap.parse_args(argv)
    X, informative = load(args.data)
    print(f"{args.data}: {X.shape[0]} x {X.shape[1]} {X.dtype}; load average "
          f"{os.getloadavg()} on {os.cpu_count()} CPUs", flush=True)
    times = defaultdict(list)
    instrument(times)
    warnings.simplefilter("ignore")
    est = LGDFS(n_features_to_select=10, n_clusters=args.n_clusters, max_iter=args.max_iter,
                neighbors_algorithm=args.neighbors, random_state=0, verbose=1)
    c0, w0 = time.process_time(), time.perf_counter()
    est.fit(X)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nLGDFS neighbors_algorithm={args.neighbors!r}: {est.n_iter_} iterations, "
          f"CPU {cpu:.1f} s, wall {wall:.1f} s, peak RSS {peak:.0f} MiB, load average "
          f"{os.getloadavg()}")
    print("| stage | calls | CPU s total | CPU s per call |\n|---|---|---|---|")
    for stage in STAGES:
        t = times.get(stage, [])
        if t:
            print(f"| {stage} | {len(t)} | {sum(t):.1f} | "
                  f"{', '.join(f'{v:.1f}' for v in t[:4])}{' ...' if len(t) > 4 else ''} |")
    other = cpu - sum(sum(t) for t in times.values())
    print(f"| other (start, z-step, checks) | - | {other:.1f} | - |")
    if informative is not None:
        top = np.argsort(est.ranking_, kind="stable")[:10]
        print(f"planted features in the top 10: {len(set(top) & set(informative))} of 10")


if __name__ == "__main__":
    main()
