"""One leaderboard fit of a selector, timed in CPU seconds, optionally profiled.

The fit is the leaderboard's: the raw data set, K from the protocol in
``benchmarks/results/leaderboard/summary.json``, ``random_state=0`` and
``n_features_to_select = max(counts)``. Run with one BLAS thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \\
        python benchmarks/studies/leaderboard_cap.py \\
        mcfs nci9 n_classes [--profile]

Prints the CPU time, the number of iterations and the final objective (where the
method records them) and, with ``--profile``, the 25 most expensive calls by
cumulative CPU time (cProfile with ``time.process_time``).
"""

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np

from ufsel import get_selector
from ufsel.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import leaderboard_datasets  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("method")
    ap.add_argument("dataset")
    ap.add_argument("protocol", choices=["n_classes", "label_free"])
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    entry = leaderboard_datasets()[args.dataset]
    K, counts = entry["n_clusters"][args.protocol], entry["counts"]
    X = np.ascontiguousarray(load_dataset(args.dataset).data, dtype=np.float64)
    cls = get_selector(args.method)
    params = cls().get_params()
    kw = {"n_features_to_select": max(counts)}
    if "n_clusters" in params:
        kw["n_clusters"] = K
    if "random_state" in params:
        kw["random_state"] = 0
    est = cls(**kw)
    prof = cProfile.Profile(time.process_time) if args.profile else None
    t0 = time.process_time()
    if prof:
        prof.enable()
    est.fit(X)
    if prof:
        prof.disable()
    cpu = time.process_time() - t0
    obj = np.ravel(getattr(est, "objective_", [np.nan]))[-1:]
    print(f"{args.method} {args.dataset} {args.protocol} K={K} shape={X.shape} cpu={cpu:.2f}s "
          f"n_iter={getattr(est, 'n_iter_', None)} objective={obj}")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
