"""One leaderboard fit of JELSR or UDFS, timed in CPU seconds, optionally under cProfile.

Used by jelsr_udfs_leaderboard_cap.md (run with one BLAS thread)::

    PYTHONPATH=src UFSEL_DATA=/path/to/shared/data OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        python benchmarks/studies/jelsr_udfs_leaderboard_cap.py JELSR usps n_classes [--profile]

The fit is the leaderboard's: the raw data set, K from
benchmarks/results/leaderboard/summary.json for the protocol, random_state=0,
n_features_to_select = the largest count. ``--trace`` (UDFS) prints the CPU time of each
eigen-step and whether the Woodbury step was accepted.
"""

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import ufsel
import ufsel.selectors.sparse_regression._udfs as udfs_module  # private: needs public API (per-iteration trace)
from ufsel.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import leaderboard_datasets  # noqa: E402


def _timed(name, func):
    def wrapper(*args, **kwargs):
        t = time.process_time()
        out = func(*args, **kwargs)
        print(f"  {name}: {time.process_time() - t:.2f} s CPU, accepted={out is not None}",
              flush=True)
        return out
    return wrapper


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("method", choices=["JELSR", "UDFS"])
    p.add_argument("dataset")
    p.add_argument("protocol", choices=["n_classes", "label_free"])
    p.add_argument("--profile", action="store_true", help="print the cProfile summary")
    p.add_argument("--trace", action="store_true", help="UDFS: time each eigen-step")
    args = p.parse_args()
    info = leaderboard_datasets()[args.dataset]
    X = load_dataset(args.dataset).data
    if args.trace:
        udfs_module.RowSpaceQuadratic.step = _timed("Woodbury step",
                                                    udfs_module.RowSpaceQuadratic.step)
        udfs_module.ky_fan_smallest = _timed("dense step", udfs_module.ky_fan_smallest)
    est = getattr(ufsel, args.method)(n_features_to_select=max(info["counts"]),
                                       n_clusters=info["n_clusters"][args.protocol],
                                       random_state=0, verbose=int(args.trace))
    print(args.dataset, X.shape, "K", est.n_clusters, flush=True)
    t = time.process_time()
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        est.fit(X)
        prof.disable()
    else:
        est.fit(X)
    cpu = time.process_time() - t
    if args.profile:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    print(f"cpu {cpu:.2f} s, {est.n_iter_} iterations, objective {est.objective_[-1]:.12g}")


if __name__ == "__main__":
    main()
