"""UFSA fit time and convergence at its defaults: JAFFE, UMIST, COIL20 (and optionally 70,000 x 784).

    UFSEL_DATA=/path/to/shared/data PYTHONPATH=src python benchmarks/speed/bench_ufsa.py \
        [--datasets jaffe umist coil20] [--mnist70k] [--repeats 3] [--w-max-iter 1000 5000] \
        [--evaluate] [--solver auto|dense|operator] [--n-clusters C] \
        [--lambda-update fixed|adaptive] [--protocol n_classes|label_free] [--profile-top 15] \
        [--max-iter N]

Default settings of :class:`ufsel.UFSA` (alpha = gamma = 1, k = 15, max_iter,
tol, w_tol, w_max_iter at their defaults) with c = the number of classes. For
each data set it prints the wall time (the fastest of ``--repeats`` fits, and with
more than one their median and mean), the
CPU time, the number of outer iterations, whether the outer loop converged
(relative change of objective (7) below tol within max_iter), how many
W-steps met w_tol, the total number of W-step (trust-region) iterations, the
objective at the first and last iteration and ``max |W^T W - I|``. The paper's
Table 4 times (UFSA, Windows, 3.7 GHz CPU, MATLAB) are printed alongside:
JAFFE 1.9178 s, UMIST 5.3407 s.

``--evaluate`` also prints the k-means accuracy and NMI (10 runs, seed 0, c = the
number of classes) on the 50 selected features.

``--solver``, ``--lambda-update`` and ``--n-clusters`` override UFSA's solver, its
lambda_update and c (for example
``--solver operator`` on JAFFE: the products-only W-steps on data that would
take the dense ones).

``--protocol`` takes c from the leaderboard's summary
(benchmarks/results/leaderboard/summary.json, ``n_clusters[protocol]``), for timing
the leaderboard's cells (one fit on the raw data; the count selected does not change it).

After the timed fits, one more fit of each setting runs under cProfile and the
``--profile-top`` functions with the most internal time are printed (0: none), with
the fit's CPU time and its cumulative-time table (the steps' shares). ``--repeats 0``
runs the profiled fit only; ``--max-iter N`` stops every fit after N outer iterations
(the cost per iteration of a fit that would not finish soon).

``--mnist70k`` adds :func:`ufsel.datasets.make_mnist70k_like` (70,000 x 784,
c = 10; needs mnist10k.mat), the size of the 5-minute acceptance target.

``--step-times`` also prints, per outer iteration, the wall time of each step of the
last fit (the W-step's matrix, the W-step's solve, the two-hop candidate search, the
S-step, the objective), the S-step's candidate width and largest / mean support, and the
W-step's trust-region iterations; the steps are timed by wrapping UFSA's module-level functions.

The load average is printed before and after: the machine is shared, and
times taken under load are longer than on an idle machine.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import os
import pstats
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

import ufsel.selectors.adaptive_graph._ufsa as ufsa_module  # private: needs public API (per-step timing hooks)
import ufsel.selectors.adaptive_graph._ufsa_wstep as wstep_module  # private: needs public API
from ufsel import UFSA
from ufsel.datasets import load_dataset, make_mnist70k_like
from ufsel.evaluation import evaluate_clustering

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _harness
from _harness import leaderboard_datasets  # noqa: E402

#: Table 4 of the paper (mean run time of UFSA, seconds).
PAPER_SECONDS = {"jaffe": 1.9178, "umist": 5.3407}


#: The steps timed by ``--step-times``: (owner, attribute, column name).
STEPS = [(wstep_module.WStepQuadratic, "matrix", "W matrix"),
         (wstep_module, "stiefel_quadratic", "W solve"),
         (ufsa_module, "two_hop_candidates", "two-hop"),
         (ufsa_module, "adaptive_neighbors", "S-step"),
         (ufsa_module, "ufsa_objective", "objective")]


def _time_steps():
    """Wrap the steps of STEPS; returns the record (column -> list of seconds, one per call)
    and a function that restores the originals."""
    rec = collections.defaultdict(list)
    saved = []
    for owner, attr, col in STEPS:
        f = getattr(owner, attr)
        saved.append((owner, attr, f))

        def timed(*a, _f=f, _col=col, **k):
            t = time.perf_counter()
            out = _f(*a, **k)
            rec[_col].append(time.perf_counter() - t)
            if _col == "S-step":
                cand = k.get("candidates")
                counts = np.diff(out[0].indptr)
                rec["S width/max/mean"].append(
                    f"{'-' if cand is None else cand.shape[1]}/{counts.max()}/{counts.mean():.1f}")
            return out
        setattr(owner, attr, timed)

    def restore():
        for owner, attr, f in saved:
            setattr(owner, attr, f)
    return rec, restore


def print_step_times(rec, sel):
    cols = [col for _, _, col in STEPS if rec[col]]
    print("iteration " + " ".join(f"{c:>10s}" for c in cols) + "   S width/max/mean  W-step its")
    for i in range(sel.n_iter_):
        cells = " ".join(f"{rec[c][i]:10.2f}" if i < len(rec[c]) else f"{'-':>10s}" for c in cols)
        s = rec["S width/max/mean"]
        print(f"{i:9d} {cells}   {s[i] if i < len(s) else '-':>16s}  {sel.w_step_iter_[i]:9d}")


#: The leaderboard's summary (cluster counts per data set and protocol).


def print_profile(X, c, top, **params):
    """One more fit under cProfile; prints the ``top`` functions by internal time."""
    prof = cProfile.Profile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        c0 = time.process_time()
        prof.enable()
        sel = UFSA(50, n_clusters=c, random_state=0, **params).fit(X)
        prof.disable()
        cpu = time.process_time() - c0
    print(f"profiled fit: cpu {cpu:.2f} s (with the profiler), solver={sel.solver_}, "
          f"n_iter={sel.n_iter_}, W-step iterations {int(sel.w_step_iter_.sum())}, "
          f"objective {sel.objective_[-1]:.10g}")
    for key, title in (("tottime", "internal"), ("cumulative", "cumulative")):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(top)
        text = out.getvalue()
        print(f"profile ({title} time, one more fit):")
        print(text[text.find("   ncalls"):].rstrip(), flush=True)


def bench(name, X, c, repeats, step_times=False, y=None, **params):
    walls, cpus = [], []
    rec = restore = None
    for r in range(repeats):
        sel = UFSA(50, n_clusters=c, random_state=0, **params)
        if step_times and r == repeats - 1:
            rec, restore = _time_steps()
        t0, c0 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            sel.fit(X)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        if restore is not None:
            restore()
    outer_ok = not any("did not converge" in str(w.message) for w in caught)
    W = sel.W_
    orth = float(np.max(np.abs(W.T @ W - np.eye(W.shape[1]))))
    paper = PAPER_SECONDS.get(name)
    print(f"{name:8s} {params or ''} n={X.shape[0]} d={X.shape[1]} c={c} solver={sel.solver_} "
          f"s_step={sel.s_step_} | wall {min(walls):.2f} s (cpu {min(cpus):.2f} s)"
          + (f", median {np.median(walls):.2f} s, mean {np.mean(walls):.2f} s of {repeats}"
             if repeats > 1 else "")
          + (f", paper {paper:.2f} s" if paper else "")
          + f" | n_iter={sel.n_iter_}/{sel.max_iter} converged={outer_ok} "
          f"W-steps converged {int(sel.w_step_converged_.sum())}/{sel.n_iter_} "
          f"W-step iterations {int(sel.w_step_iter_.sum())} | objective {sel.objective_[0]:.6g} -> "
          f"{sel.objective_[-1]:.10g} | max|W^T W - I| {orth:.1e}", flush=True)
    if y is not None:
        r = evaluate_clustering(X[:, sel.get_support()], y, n_runs=10, random_state=0)
        print(f"{name:8s} k-means on the 50 selected features (10 runs): "
              f"ACC {100 * r['acc_mean']:.1f} NMI {100 * r['nmi_mean']:.1f}", flush=True)
    if rec is not None:
        print_step_times(rec, sel)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=["jaffe", "umist", "coil20"])
    ap.add_argument("--mnist70k", action="store_true")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--w-max-iter", type=int, nargs="*", default=[None],
                    help="also run with these w_max_iter (default: UFSA's default only)")
    ap.add_argument("--evaluate", action="store_true",
                    help="also print k-means ACC / NMI on the 50 selected features (labels)")
    ap.add_argument("--solver", choices=["auto", "dense", "operator"], default=None,
                    help="UFSA's solver (default: its default, auto)")
    ap.add_argument("--lambda-update", choices=["fixed", "adaptive"], default=None,
                    help="UFSA's lambda_update (default: its default)")
    ap.add_argument("--n-clusters", type=int, default=None,
                    help="c (default: the number of classes)")
    ap.add_argument("--protocol", choices=["n_classes", "label_free"], default=None,
                    help="c from the leaderboard's summary.json for this protocol")
    ap.add_argument("--profile-top", type=int, default=15,
                    help="print this many functions of a profiled fit (0: no profile)")
    ap.add_argument("--max-iter", type=int, default=None,
                    help="UFSA's max_iter (default: its default)")
    ap.add_argument("--step-times", action="store_true",
                    help="print the time of each step per outer iteration (last fit)")
    args = ap.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        sys.exit("set UFSEL_DATA to the directory holding the .mat files")
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())} "
          f"(shared machine, {os.cpu_count()} cores)", flush=True)
    lambda_update = {} if args.lambda_update is None else {"lambda_update": args.lambda_update}
    extra = {**({} if args.solver is None else {"solver": args.solver}),
             **({} if args.max_iter is None else {"max_iter": args.max_iter}), **lambda_update}
    clusters = {}
    if args.protocol:
        clusters = {k: v["n_clusters"][args.protocol]
                    for k, v in leaderboard_datasets().items()}
    for name in args.datasets:
        b = load_dataset(name)
        c = args.n_clusters or clusters.get(name) or np.unique(b.target).size
        for w in args.w_max_iter:
            params = {**({} if w is None else {"w_max_iter": w}), **extra}
            if args.repeats > 0:
                bench(name, b.data, c, args.repeats, args.step_times,
                      y=b.target if args.evaluate else None, **params)
            if args.profile_top > 0:
                print_profile(b.data, c, args.profile_top, **params)
    if args.mnist70k:
        b = make_mnist70k_like(random_state=0)
        bench("mnist70k", b.data, np.unique(b.target).size, 1, args.step_times, **lambda_update)
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    sys.exit(main())
