"""RNE fit time: the previous H-step formula against the current one, in one process.

The previous implementation (ufsel up to commit 4d624e8) formed every inner
multiplicative step as ``multiplicative_update(H, num, den, power=0.5)`` with
``num``/``den`` summed from fresh n_features x m temporaries, one stacked
GEMM ``[(A^T A)^+; (A^T A)^-] @ H``, ``H @ (H.T @ H)`` and a boolean-mask
flush. It is reproduced below (``old_fit``) so that both run on the same
data, in the same process, under the same machine load; the script prints
their wall times, the ratio, and how far apart the results are (they agree
to rounding: same ranking, H equal to ~1e-13 relative).

Timings on a shared machine are only comparable as ratios taken in the same
run; the absolute time of ``ufsel.RNE`` is printed as well. Run with one
BLAS thread::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \\
        python benchmarks/speed/bench_rne.py [--dataset coil20] [--n-features 50 100 512] \\
        [--max-iter 50] [--skip-old]

``--n-features 512`` is the library default on COIL20 (half of d).

``--leaderboard`` instead profiles the leaderboard's fit of each data set named by
``--dataset`` (comma-separated): ``fit_rankings(X, counts)`` with the counts of
``benchmarks/results/leaderboard/summary.json``, ``random_state=0``, for ``--max-iter``
outer iterations. It prints the CPU time, the share of the products (the flops of
``rne_leaderboard_cost.py``: ``4 d^2 m + 3 d m^2`` a step, ``2 d^2 m + 4 n d m + 3 d m^2``
when n < d / 2) and the rate they reach, a cProfile table, and the load average::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \\
        python benchmarks/speed/bench_rne.py --leaderboard --dataset jaffe,pie --max-iter 2
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ufsel import RNE
from ufsel.datasets import load_dataset
from ufsel.graph import lle_weights
from ufsel.linalg import multiplicative_update, pos_neg_parts, soft_threshold
# RNE's BLAS calls are timed one by one:
from ufsel.selectors.adaptive_graph import _rne as rne_module  # private: needs public API


def old_fit(X, m, *, n_neighbors=5, alpha=1e3, max_iter=50, n_inner=30, random_state=0):
    """The previous RNE fit loop (same start, same ADMM, same stopping rule; tol = 1e-4)."""
    n, d = X.shape
    rng = np.random.RandomState(random_state)
    Wl = lle_weights(X, n_neighbors, reg=1e-3 if n_neighbors > d else 1e-12)
    A = X - Wl @ X
    AApm = np.vstack(pos_neg_parts(A.T @ A))
    order = np.lexsort((np.sum(A * A, axis=0), np.abs(A).sum(axis=0)))
    H = np.empty((d, m))
    H[order] = rng.random((d, m))
    H /= np.maximum(np.linalg.norm(H, axis=0), np.finfo(float).tiny)
    M = A @ H
    Y = np.zeros_like(M)
    mu, tiny, objective = 10.0, np.finfo(float).eps, []
    for _ in range(max_iter):
        AMp, AMm = pos_neg_parts(A.T @ M)
        AYp, AYm = pos_neg_parts(A.T @ Y)
        num0, den0 = mu * AMp + AYp, mu * AMm + AYm
        for _ in range(n_inner):
            P = AApm @ H
            num = alpha * H + num0 + mu * P[d:]
            den = alpha * (H @ (H.T @ H)) + den0 + mu * P[:d]
            H = multiplicative_update(H, num, den, power=0.5, eps=tiny)
            H[H < 1e-100] = 0.0
        AH = A @ H
        M = soft_threshold(AH - Y / mu, 1.0 / mu)
        R = M - AH
        Y += mu * R
        mu = min(1.1 * mu, 1e10)
        G = H.T @ H - np.eye(m)
        objective.append(float(np.abs(A @ H).sum()) + 0.25 * alpha * float(np.sum(G * G)))
        change = (abs(objective[-2] - objective[-1]) / abs(objective[-2])
                  if len(objective) > 1 else np.inf)
        res = float(np.linalg.norm(R)) / max(float(np.linalg.norm(AH)), np.finfo(float).tiny)
        if max(change, res) < 1e-4:
            break
    return H, np.asarray(objective)


def leaderboard_profile(names, max_iter, random_state, top=12):
    """Profile the leaderboard's RNE fit on each data set (see the module docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
    from _harness import leaderboard_datasets

    info = leaderboard_datasets()
    for name in names:
        X = load_dataset(info[name]["name"]).data
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
        n, d = X.shape
        counts = info[name]["counts"]
        est = RNE(max_iter=max_iter, random_state=random_state)
        n_inner = est.n_inner
        sm, sm2 = sum(counts), sum(k * k for k in counts)
        per_step = (2 * d * d * sm + 4 * n * d * sm if 2 * n < d else 4 * d * d * sm) + 3 * d * sm2
        flops = per_step * n_inner * max_iter
        prof = cProfile.Profile()
        load0 = os.getloadavg()[0]
        blas = {f: getattr(rne_module, f) for f in ("dgemm", "dsyrk", "dsymm")}
        spent = [0.0]

        def timed(f, spent=spent):
            def call(*a, **kw):
                t = time.process_time()
                out = f(*a, **kw)
                spent[0] += time.process_time() - t
                return out
            return call

        for f, g in blas.items():  # the BLAS wrappers are invisible to cProfile
            setattr(rne_module, f, timed(g))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.process_time()
                prof.enable()
                est.fit_rankings(X, counts)
                prof.disable()
                cpu = time.process_time() - t0
        finally:
            for f, g in blas.items():
                setattr(rne_module, f, g)
        st = pstats.Stats(prof)
        gemm = spent[0]
        full = cpu * 50 / max_iter
        print(f"== {name}: n={n} d={d}, {len(counts)} counts (sum {sm}), {max_iter} of 50 outer "
              f"iterations: cpu {cpu:.2f} s (load {load0:.2f} -> {os.getloadavg()[0]:.2f}); "
              f"inner-step BLAS products {gemm:.2f} s = {100 * gemm / cpu:.0f} %, {flops / 1e9:.1f} GFLOP at "
              f"{flops / max(gemm, 1e-9) / 1e9:.1f} GFLOP/s; the whole fit about {full:.0f} s",
              flush=True)
        st.sort_stats("tottime").print_stats(top)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="coil20")
    p.add_argument("--n-features", type=int, nargs="+", default=[50, 100, 512])
    p.add_argument("--max-iter", type=int, default=50)
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--skip-old", action="store_true", help="time ufsel.RNE only")
    p.add_argument("--leaderboard", action="store_true",
                   help="profile the leaderboard's fit_rankings on --dataset (comma-separated)")
    args = p.parse_args(argv)
    if args.leaderboard:
        leaderboard_profile(args.dataset.split(","), args.max_iter, args.random_state)
        return

    X = np.asarray(load_dataset(args.dataset).data, dtype=np.float64)
    print(f"{args.dataset}: n={X.shape[0]}, d={X.shape[1]}, max_iter={args.max_iter}")
    print(f"{'m':>5s} {'old_s':>8s} {'new_s':>8s} {'old/new':>8s} {'max|dH|/max|H|':>15s} "
          f"{'same ranking':>13s}")
    for m in args.n_features:
        est = RNE(m, max_iter=args.max_iter, random_state=args.random_state)
        old_s = ratio = diff = float("nan")
        same = "-"
        if not args.skip_old:
            t0 = time.perf_counter()
            H_old, _ = old_fit(X, m, max_iter=args.max_iter, random_state=args.random_state)
            old_s = time.perf_counter() - t0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            est.fit(X)
            new_s = time.perf_counter() - t0
        if not args.skip_old:
            ratio = old_s / new_s
            diff = float(np.abs(H_old - est.W_).max() / np.abs(H_old).max())
            old_rank = np.lexsort((np.arange(X.shape[1]), -np.sum(H_old * H_old, axis=1)))
            same = str(bool(np.array_equal(old_rank, np.argsort(est.ranking_))))
        print(f"{m:5d} {old_s:8.2f} {new_s:8.2f} {ratio:8.2f} {diff:15.2e} {same:>13s}",
              flush=True)


if __name__ == "__main__":
    main()
