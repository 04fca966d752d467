"""Spectral-embedding solvers on a large k-NN graph: ARPACK vs AMG-preconditioned LOBPCG.

``UFSEL_DATA=/path/to/data python benchmarks/speed/bench_spectral.py [--n 70000] [--k 10]``

Builds the 5-NN binary graph of ``make_mnist70k_like`` (NN-descent when
pynndescent is installed) once, then times ``spectral_embedding`` with each
solver and reports the eigenvalues and the agreement of the subspaces
(singular values of ``Y_arpack^T D Y_amg``, all 1 when they span the same
space). Used to set ``ufsel.graph.AMG_MIN_NODES``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from ufsel.datasets import make_mnist70k_like  # noqa: E402
from ufsel.graph import knn_affinity, spectral_embedding  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=70_000)
    ap.add_argument("--k", type=int, default=10, help="eigenvectors")
    args = ap.parse_args(argv)
    X = make_mnist70k_like(args.n, random_state=0).data
    t0 = time.perf_counter()
    W = knn_affinity(X, 5, weight="binary", random_state=0)
    print(f"graph: {args.n} nodes, {W.nnz} edges, {time.perf_counter() - t0:.1f} s")
    deg = np.asarray(W.sum(axis=1)).ravel()
    out = {}
    for solver in ("arpack", "amg"):
        t0 = time.perf_counter()
        Y, lam = spectral_embedding(W, args.k, eigen_solver=solver, random_state=0,
                                    return_eigenvalues=True)
        out[solver] = Y
        print(f"{solver}: {time.perf_counter() - t0:.1f} s, eigenvalues {np.round(lam, 5)}")
    sv = np.linalg.svd(out["arpack"].T @ (deg[:, None] * out["amg"]), compute_uv=False)
    print(f"subspace agreement (singular values): min {sv.min():.6f}, max {sv.max():.6f}")


if __name__ == "__main__":
    main()
