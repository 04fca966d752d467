"""LGDFS on an MNIST-like proxy: fit time, per-stage profile and the result, for one source tree.

    UFSEL_DATA=/path/to/shared/data PYTHONPATH=<tree>/src OMP_NUM_THREADS=1 \
        python benchmarks/studies/lgdfs_scale_regression.py [--n-samples 15000] \
        [--out result.npz] [--compare other.npz]

Fits ``LGDFS(n_clusters=10, random_state=0)`` (the 70,000 x 784 benchmark's
parameters, benchmarks/_runner.py) on
``make_mnist70k_like(n_samples, random_state=0)`` under cProfile and prints
the CPU and wall time, ``n_iter_``, the final objective, and the cumulative time of
the stages (CPU seconds, so that load on a shared machine does not enter): k-NN search, local Laplacian, Woodbury factor, the Y-step (block
LOBPCG and any exact fallback), the regressions. ``--out`` saves ranking_,
objective_ and the weights; ``--compare`` prints how far they are from a
saved run (same ranking? objective ratio).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

import ufsel
from ufsel import LGDFS
from ufsel.datasets import make_mnist70k_like

STAGES = [  # (label, function name as cProfile records it)
    ("k-NN search (weighted_knn_graph)", "weighted_knn_graph"),
    ("L_l (local_discriminative_laplacian)", "local_discriminative_laplacian"),
    ("L_g (global_discriminative_laplacian)", "global_discriminative_laplacian"),
    ("Y-step (lgdfs_embedding)", "lgdfs_embedding"),
    ("  of which scipy lobpcg", "lobpcg"),
    ("  of which residual check (eigen_residuals)", "eigen_residuals"),
    ("  of which exact fallback (_exact)", "_exact"),
    ("  of which ARPACK (eigsh)", "eigsh"),
    ("regressions (lgdfs_regression_norms)", "lgdfs_regression_norms"),
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=15000)
    ap.add_argument("--out")
    ap.add_argument("--compare")
    args = ap.parse_args(argv)
    X = make_mnist70k_like(args.n_samples, random_state=0).data
    print(f"ufsel from {ufsel.__file__}; X {X.shape}")
    est = LGDFS(n_clusters=10, random_state=0)
    prof = cProfile.Profile(time.process_time)  # CPU seconds: the machine is shared
    t0, c0 = time.perf_counter(), time.process_time()
    prof.enable()
    est.fit(X)
    prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    obj = np.asarray(est.objective_)
    print(f"CPU {cpu:.1f} s, wall {wall:.1f} s (under cProfile) | n_iter_ {est.n_iter_} | objective "
          f"{obj[0]:.6g} -> {obj[-1]:.6g}")
    stats = pstats.Stats(prof).stats
    for label, fname in STAGES:
        hits = [(v[3], v[1]) for (_, _, f), v in stats.items() if f == fname]
        if hits:
            print(f"  {label:46s} {sum(h[0] for h in hits):7.1f} s  ({sum(h[1] for h in hits)} calls)")
        else:
            print(f"  {label:46s}       -")
    if args.out:
        np.savez(args.out, ranking=est.ranking_, objective=obj, z=est.feature_weights_)
    if args.compare:
        ref = np.load(args.compare)
        same = np.array_equal(ref["ranking"], est.ranking_)
        top = len(set(ref["ranking"][:50]) & set(est.ranking_[:50]))
        print(f"vs {args.compare}: same ranking_ {same}; top-50 overlap {top}/50; final "
              f"objective ratio {obj[-1] / ref['objective'][-1]:.6f}; max |dz| "
              f"{np.abs(ref['z'] - est.feature_weights_).max():.3g}")


if __name__ == "__main__":
    main()
