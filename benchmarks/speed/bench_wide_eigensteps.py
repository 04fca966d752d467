"""UDFS and SOGFS on data with more features than samples: time, clustering, and agreement.

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src python \\
        benchmarks/speed/bench_wide_eigensteps.py [--datasets jaffe orl umist lymphoma warppie10p] \\
        [--repeats 3] [--no-quality] [--row-space]
    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/speed/bench_wide_eigensteps.py \\
        --planted 200 50000

For each data set (``n_clusters`` = the number of classes, 50 features):

- ``udfs s`` / ``sogfs s``: fit time, the fastest of ``--repeats`` fits
  (``UDFS(50, n_clusters=c)`` and ``SOGFS(50, random_state=0)``);
- ``udfs dense``: UDFS with ``eigen_solver="dense"`` against the default, whose steps
  after the first use ARPACK through the Woodbury identity when d > n: iteration counts,
  the largest relative objective difference, the largest score difference relative to
  the largest score, and whether the top 50 agree;
- unless ``--no-quality``: k-means NMI of UDFS's and SOGFS's top 50 (KMeans with
  n_init=10, seeds 0-4, against the classes) and of 5 random subsets of 50
  (``default_rng(0)``); with
  ``--row-space`` also of the variant that restricts W to the row space of the centred X
  (tried and not adopted, see docs/guide/fidelity.md, "Round-off").

With ``--planted N D``: instead, one fit each of ``UDFS(20, n_clusters=5)`` and
``SOGFS(20, n_clusters=5, random_state=0)`` on ``make_planted_clusters(N, 20, D - 20, 5)``
(no data files needed), with the process's peak resident memory after each; a d x d
matrix at D = 50,000 alone would take 20 GB.

Run it under another version's ``src`` (``PYTHONPATH=<worktree>/src``) for the previous
version's times and NMI; the ``udfs dense`` column needs this version. Without
``UFSEL_DATA`` it prints one line and exits 0.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score

from ufsel import SOGFS, UDFS
from ufsel.datasets import load_dataset


def _best_time(make, X, repeats):
    best, est = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        est = make().fit(X)
        best = min(best, time.perf_counter() - start)
    return best, est


def _nmi(X, y, columns, c):
    return float(np.mean([normalized_mutual_info_score(
        y, KMeans(c, n_init=10, random_state=seed).fit_predict(X[:, columns]))
        for seed in range(5)]))


def _row_space_scores(X, c, gamma=1.0, max_iter=50, tol=1e-4):
    """UDFS with W = Q B, Q an orthonormal basis of the centred X's row space."""
    from ufsel.linalg import centered_row_space, ky_fan_smallest, row_norms_sq
    from ufsel.selectors.sparse_regression._udfs import (  # private: needs public API
        udfs_local_scatter,  # private: needs public API
    )
    L = udfs_local_scatter(X, 5, reg=1000.0)
    M = X.T @ (L @ X)
    M = 0.5 * (M + M.T)
    Q = centered_row_space(X)
    K = Q.T @ M @ Q
    g, prev, eps = np.ones(X.shape[1]), None, np.finfo(float).eps
    for _ in range(max_iter):
        B = ky_fan_smallest(K + gamma * (Q.T * g) @ Q, c).vectors
        pi = row_norms_sq(Q @ B)
        f = float(np.sum(B * (K @ B)) + gamma * np.sum(np.sqrt(pi + eps)))
        g = 0.5 * (pi + eps) ** -0.5
        if prev is not None and abs(prev - f) <= tol * abs(prev):
            break
        prev = f
    return pi


def _planted(n, d):
    import resource

    from ufsel.datasets import make_planted_clusters
    X, _, informative = make_planted_clusters(n, 20, d - 20, 5, random_state=0)
    for make in (lambda: UDFS(20, n_clusters=5), lambda: SOGFS(20, n_clusters=5, random_state=0)):
        start = time.perf_counter()
        est = make().fit(X)
        elapsed = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # KiB on Linux
        found = len(set(est.ranking_[:20]) & set(informative))
        print(f"{type(est).__name__:5s} {n} x {d}: {elapsed:.1f} s, {est.n_iter_} iterations, "
              f"peak memory so far {peak:.2f} GiB, planted features in its top 20: {found}",
              flush=True)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+",
                   default=["jaffe", "orl", "umist", "lymphoma", "warppie10p"])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-quality", action="store_true")
    p.add_argument("--row-space", action="store_true")
    p.add_argument("--planted", nargs=2, type=int, metavar=("N", "D"))
    args = p.parse_args(argv)
    if args.planted:
        return _planted(*args.planted)
    if not os.environ.get("UFSEL_DATA"):
        print("UFSEL_DATA is not set: nothing to run.")
        return 0
    warnings.simplefilter("ignore")
    for name in args.datasets:
        ds = load_dataset(name)
        X, y = np.asarray(ds.data, dtype=np.float64), ds.target
        c = len(np.unique(y))
        t_udfs, udfs = _best_time(lambda c=c: UDFS(50, n_clusters=c), X, args.repeats)
        t_sogfs, sogfs = _best_time(lambda: SOGFS(50, random_state=0), X, args.repeats)
        line = (f"{name:11s} n={X.shape[0]} d={X.shape[1]} c={c} | udfs {t_udfs:.2f} s"
                f" | sogfs {t_sogfs:.2f} s")
        if "eigen_solver" in udfs.get_params() and hasattr(udfs, "tied_"):
            dense = UDFS(50, n_clusters=c, eigen_solver="dense").fit(X)
            m = min(udfs.n_iter_, dense.n_iter_)
            obj = np.max(np.abs(udfs.objective_[:m] - dense.objective_[:m])
                         / np.abs(dense.objective_[:m]))
            score = np.max(np.abs(udfs.scores_ - dense.scores_)) / dense.scores_.max()
            same = set(np.flatnonzero(udfs.get_support())) == set(np.flatnonzero(dense.get_support()))
            line += (f" | udfs dense: iterations {udfs.n_iter_}/{dense.n_iter_}, objective "
                     f"{obj:.1e}, scores {score:.1e}, same top 50 {same}")
        if not args.no_quality:
            line += f" | NMI udfs {_nmi(X, y, np.flatnonzero(udfs.get_support()), c):.3f}"
            line += f" sogfs {_nmi(X, y, np.flatnonzero(sogfs.get_support()), c):.3f}"
            rng = np.random.default_rng(0)
            random = np.mean([_nmi(X, y, rng.choice(X.shape[1], 50, replace=False), c)
                              for _ in range(5)])
            line += f" random {random:.3f}"
            if args.row_space:
                top = np.argsort(-_row_space_scores(X, c), kind="stable")[:50]
                line += f" row-space {_nmi(X, y, top, c):.3f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
