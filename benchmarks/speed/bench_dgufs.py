"""DGUFS leaderboard fits: CPU time per count, iterations, and where each iteration's time goes.

One leaderboard cell of DGUFS is ``fit_rankings(X, counts)``: one fit per count
(``counts`` from ``benchmarks/results/leaderboard/summary.json``), raw X,
``random_state=0``. DGUFS has no ``n_clusters``, so both protocols fit the same
thing. For each data set this script fits the chosen counts one by one on one
BLAS thread and prints, per fit, the CPU time (``time.process_time``), the number
of iterations, the final rank of L, and the CPU time of each stage:

- ``knn``: the k-NN sample graph S (once per fit);
- ``eig``: the L-step's eigensolve (``_rank_prox``), once per iteration;
- ``y``: the Y-step (the HSIC scores), once per iteration;
- ``m``: the M-step (entrywise n x n), once per iteration;
- ``rest``: the kernel, ``L = V w V^T``, the multiplier update and the objective.

It also times ``scipy.linalg.eigvalsh`` of one dense symmetric n x n matrix (the
Householder tridiagonal reduction that any dense eigensolver pays, without a single
eigenvector) and prints the cell's lower bound ``len(counts) x 21 x that``: with the
default ``n_iter_no_change=20`` a fit that does not reach ``tol`` runs at least 21
iterations. ``--max-iter`` caps the iterations (per-iteration cost on large n);
``--profile`` prints a cProfile of the first fit. ``--spectrum`` records the
L-step input T of the first fit at a few iterations and times, on each, ``eigvalsh``,
the solver in use (``eigh(subset_by_value=...)``) and ARPACK (``eigsh``, k = rank + 8),
and prints the eigenvalues of T just above and below the threshold. ``--drift`` records
every L-step of the first fit and prints, per iteration, the threshold, the rank, the
gap between the eigenvalues on either side of the threshold, and how far the new
kept eigenvectors lie outside the span of the previous iteration's (the median and
largest norm of ``(I - V_prev V_prev^T) v``: what a warm-started subspace solver
would have to recover), with the CPU time of one Cholesky factorisation of an n x n
matrix (``n^3 / 3`` flops: the certificate any iterative solver would need, that no
eigenvalue above the threshold was missed). Run with one thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \\
        python benchmarks/speed/bench_dgufs.py --datasets coil20,palm [--which ends|all|first] \\
        [--max-iter N] [--profile] [--spectrum] [--drift]

Timings on a shared machine are noisy; the split between the stages is the point.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import linalg

from ufsel.datasets import load_dataset
from ufsel.selectors.adaptive_graph import (  # private: needs public API
    _dgufs as dg,  # private: needs public API (per-stage timers)
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import leaderboard_datasets  # noqa: E402

STAGES = {"eig": "_rank_prox", "y": "_y_step", "m": "_m_step"}


class StageTimer:
    """Wraps DGUFS's step functions and the graph build and sums their CPU time."""

    def __init__(self):
        self.acc, self.ranks, self._orig = {}, [], {}

    def _wrap(self, key, owner, attr):
        f = getattr(owner, attr)
        self._orig[(owner, attr)] = f

        def timed(*args, **kwargs):
            t = time.process_time()
            out = f(*args, **kwargs)
            self.acc[key] = self.acc.get(key, 0.0) + time.process_time() - t
            if key == "eig":
                self.ranks.append(out[0].size)
            return out

        setattr(owner, attr, timed)

    def __enter__(self):
        for key, attr in STAGES.items():
            self._wrap(key, dg, attr)
        self._wrap("knn", dg.DGUFS, "_knn_affinity")
        return self

    def __exit__(self, *exc):
        for (owner, attr), f in self._orig.items():
            setattr(owner, attr, f)

    def reset(self):
        self.acc.clear()
        self.ranks.clear()


def eigvalsh_floor(n, reps=2):
    """CPU seconds of ``eigvalsh`` on one dense symmetric n x n matrix (best of ``reps``)."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n))
    A += A.T
    best = np.inf
    for _ in range(reps):
        t = time.process_time()
        linalg.eigvalsh(A, check_finite=False)
        best = min(best, time.process_time() - t)
    return best


def recorded_l_steps(X, m, keep):
    """Fit DGUFS(m) once; ``keep(A, eta, (w, V))`` of every L-step, in order.

    ``A`` is the L-step input as the solver receives it (before the solver may
    overwrite it); ``(w, V)`` the kept eigenpairs."""
    seen = []
    orig = dg._rank_prox

    def record(A, eta, **kwargs):
        A0 = A.copy()
        out = orig(A, eta, **kwargs)
        seen.append(keep(A0, eta, out))
        return out

    dg._rank_prox = record
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dg.DGUFS(n_features_to_select=m, random_state=0).fit(X)
    finally:
        dg._rank_prox = orig
    return seen


def spectrum(X, m, iters=(1, 5, 10, 20)):
    """Time three eigensolvers on the L-step inputs T of one fit (see the module docstring)."""
    from scipy.sparse.linalg import eigsh

    seen = recorded_l_steps(X, m, lambda A, eta, out: (A.copy(), eta))
    for it in iters:
        if it >= len(seen):
            break
        A, eta = seen[it]
        A = 0.5 * (A + A.T)
        thr = np.sqrt(eta)
        t = time.process_time()
        w = linalg.eigvalsh(A, check_finite=False)
        t_vals = time.process_time() - t
        rank = int(np.sum(w > thr))
        t = time.process_time()
        linalg.eigh(A, subset_by_value=(thr, np.inf), check_finite=False)
        t_evr = time.process_time() - t
        t = time.process_time()
        v0 = np.random.RandomState(0).uniform(-1.0, 1.0, A.shape[0])
        eigsh(A, k=min(rank + 8, A.shape[0] - 1), which="LA", v0=v0)
        t_arp = time.process_time() - t
        print(f"   T at iteration {it + 1}: threshold {thr:.3f}, rank {rank}, eigenvalues "
              f"just above {np.round(w[w > thr][:3], 3)}, just below {np.round(w[w <= thr][-3:], 3)}, "
              f"largest {w[-1]:.1f}; eigvalsh {t_vals:.3f} s, eigh subset {t_evr:.3f} s, "
              f"eigsh {t_arp:.3f} s")


def drift(X, m):
    """Per L-step of one fit: rank, gap at the threshold, eigenvector drift (module docstring)."""
    seen = recorded_l_steps(X, m, lambda A, eta, out: (
        linalg.eigvalsh(0.5 * (A + A.T), check_finite=False), np.sqrt(eta), out[1].copy()))
    prev = None
    for it, (w, thr, V) in enumerate(seen):
        above, below = w[w > thr], w[w <= thr]
        gap = (above[0] if above.size else np.nan) - (below[-1] if below.size else np.nan)
        line = (f"   L-step {it + 1:2d}: threshold {thr:.3f}, rank {V.shape[1]:4d}, gap at the "
                f"threshold {gap:.4f}, spectrum [{w[0]:.1f}, {w[-1]:.1f}]")
        if prev is not None and V.shape[1]:
            out = np.linalg.norm(V - prev @ (prev.T @ V), axis=0)
            line += f", outside the previous span: median {np.median(out):.2f}, max {out.max():.2f}"
        print(line)
        prev = V
    n = X.shape[0]
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n))
    A = A @ A.T + n * np.eye(n)
    t = time.process_time()
    linalg.cholesky(A, check_finite=False)
    print(f"   Cholesky of one {n} x {n} matrix: {time.process_time() - t:.3f} s")


def pick(counts, which):
    if which == "all":
        return list(counts)
    if which == "first":
        return [counts[0]]
    return sorted({counts[0], counts[len(counts) // 2], counts[-1]})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--which", choices=["ends", "all", "first"], default="ends")
    ap.add_argument("--max-iter", type=int, default=None)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--spectrum", action="store_true")
    ap.add_argument("--drift", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    info = leaderboard_datasets()
    rows = []
    for name in args.datasets.split(","):
        X = load_dataset(name).data
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
        n, d = X.shape
        counts = info[name]["counts"]
        floor = eigvalsh_floor(n) if n <= 5000 else None
        print(f"== {name}: n={n} d={d}, {len(counts)} counts {counts}, load {os.getloadavg()}")
        if floor is not None:
            print(f"   eigvalsh({n} x {n}) {floor:.3f} s; cell lower bound "
                  f"{len(counts)} x 21 x {floor:.3f} = {len(counts) * 21 * floor:.1f} s")
        if n > dg.MAX_SAMPLES:
            print(f"   n > {dg.MAX_SAMPLES}: refused (dense n x n state)")
            continue
        if args.spectrum:
            spectrum(X, counts[0])
        if args.drift:
            drift(X, counts[len(counts) // 2])
        per = []
        with StageTimer() as timer:
            for i, k in enumerate(pick(counts, args.which)):
                timer.reset()
                kw = {} if args.max_iter is None else {"max_iter": args.max_iter}
                est = dg.DGUFS(n_features_to_select=k, random_state=0, **kw)
                prof = cProfile.Profile() if (args.profile and i == 0) else None
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t = time.process_time()
                    if prof is not None:
                        prof.enable()
                    est.fit(X)
                    if prof is not None:
                        prof.disable()
                    cpu = time.process_time() - t
                split = {key: round(v, 3) for key, v in timer.acc.items()}
                split["rest"] = round(cpu - sum(timer.acc.values()), 3)
                row = {"dataset": name, "n": n, "d": d, "count": k, "n_iter": est.n_iter_,
                       "cpu_s": round(cpu, 3), "per_iter_s": round(cpu / est.n_iter_, 4),
                       "final_rank": timer.ranks[-1], "eigvalsh_s": floor, **split}
                rows.append(row)
                per.append(cpu)
                print(f"   m={k:4d} iters {est.n_iter_:3d} cpu {cpu:7.2f} s "
                      f"({cpu / est.n_iter_:.3f} s/iter) rank {timer.ranks[-1]:4d} split {split} "
                      f"load {os.getloadavg()[0]:.2f}")
                if prof is not None:
                    pstats.Stats(prof).sort_stats("tottime").print_stats(8)
        if args.max_iter is None:
            print(f"   cell estimate {len(counts)} x mean {np.mean(per):.2f} = "
                  f"{len(counts) * np.mean(per):.1f} s (load {os.getloadavg()})")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
