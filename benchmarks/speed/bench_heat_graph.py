"""The heat-kernel k-NN graph: one pass over all pairs against two.

A heat kernel with an estimated bandwidth (Cai's mean distance, ``t="mean"``) needs every
pairwise distance. :func:`ufsel.graph.knn_affinity` takes the neighbours from that same
matrix when it can (dense float64 data, at most 3,000 samples, more than 15 features);
before, it ran scikit-learn's brute-force k-NN search and then computed the full distance
matrix again for the bandwidth. This script times, in one process and on the same data:

- ``two passes``: the previous construction, ``heat_kernel_bandwidth`` and then
  ``knn_affinity`` with that number as ``t``, which searches with scikit-learn's
  ``knn_graph``;
- ``shared``: ``knn_affinity`` as it is now;
- ``LS fit``: a whole :class:`ufsel.LaplacianScore` fit (graph plus scores);

each the best of ``--repeats`` runs, and checks that both graphs have the same edges and
weights (to 1e-12). The ratio is shared / two passes.

Usage::

    UFSEL_DATA=/path/to/data OMP_NUM_THREADS=1 python benchmarks/speed/bench_heat_graph.py
    ... --datasets jaffe orl coil20 isolet --repeats 20

Run it alone on the machine (timings).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import sparse


def _best(f, repeats):
    f()
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["jaffe", "orl", "coil20", "isolet"])
    ap.add_argument("--n-neighbors", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")

    from ufsel import LaplacianScore
    from ufsel.datasets import load_dataset
    from ufsel.graph import heat_kernel_bandwidth, knn_affinity

    k = args.n_neighbors

    def two_passes(X):
        # a numeric bandwidth takes knn_affinity's other path: scikit-learn's search
        return knn_affinity(X, k, weight="heat", t=heat_kernel_bandwidth(X, "mean"))

    print(f"{'data':8s} {'n x d':>12s} {'two passes ms':>14s} {'shared ms':>10s} "
          f"{'ratio':>6s} {'LS fit ms':>10s} {'same graph':>10s}")
    for name in args.datasets:
        X = load_dataset(name).data
        if sparse.issparse(X):
            X = X.toarray()
        X = np.asarray(X, dtype=np.float64)
        old = two_passes(X)
        new = knn_affinity(X, k, weight="heat", t="mean")
        old.sort_indices()
        new.sort_indices()
        same = (np.array_equal(old.indptr, new.indptr) and np.array_equal(old.indices, new.indices)
                and np.allclose(old.data, new.data, rtol=1e-12, atol=0.0))
        t_old = _best(lambda X=X: two_passes(X), args.repeats)
        t_new = _best(lambda X=X: knn_affinity(X, k, weight="heat", t="mean"), args.repeats)
        t_ls = _best(lambda X=X: LaplacianScore(n_neighbors=k).fit(X), args.repeats)
        print(f"{name:8s} {f'{X.shape[0]} x {X.shape[1]}':>12s} {1e3 * t_old:14.2f} "
              f"{1e3 * t_new:10.2f} {t_new / t_old:6.2f} {1e3 * t_ls:10.2f} {str(same):>10s}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
