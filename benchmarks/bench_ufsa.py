"""UFSA fit time and convergence at its defaults: JAFFE, UMIST, COIL20 (and optionally 70,000 x 784).

    UFSEL_DATA=/path/to/shared/data PYTHONPATH=src python benchmarks/bench_ufsa.py \
        [--datasets jaffe umist coil20] [--mnist70k] [--repeats 3] [--w-max-iter 1000 5000]

Default settings of :class:`ufsel.UFSA` (alpha = gamma = 1, k = 15, max_iter,
tol, w_tol, w_max_iter at their defaults) with c = the number of classes. For
each data set it prints the wall time (the fastest of ``--repeats`` fits), the
CPU time, the number of outer iterations, whether the outer loop converged
(relative change of objective (7) below tol within max_iter), how many
W-steps met w_tol, the total number of generalized power iterations, the
objective at the first and last iteration and ``max |W^T W - I|``. The paper's
Table 4 times (UFSA, Windows, 3.7 GHz CPU, MATLAB) are printed alongside:
JAFFE 1.9178 s, UMIST 5.3407 s.

``--mnist70k`` adds :func:`ufsel.datasets.make_mnist70k_like` (70,000 x 784,
c = 10; needs mnist10k.mat), the size of the 5-minute acceptance target.

The load average is printed before and after: the machine is shared, and
times taken under load are longer than on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ufsel import UFSA
from ufsel.datasets import load_dataset, make_mnist70k_like

#: Table 4 of the paper (mean run time of UFSA, seconds).
PAPER_SECONDS = {"jaffe": 1.9178, "umist": 5.3407}


def bench(name, X, c, repeats, **params):
    walls, cpus = [], []
    for _ in range(repeats):
        sel = UFSA(50, n_clusters=c, random_state=0, **params)
        t0, c0 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            sel.fit(X)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    outer_ok = not any("did not converge" in str(w.message) for w in caught)
    W = sel.components_
    orth = float(np.max(np.abs(W.T @ W - np.eye(W.shape[1]))))
    paper = PAPER_SECONDS.get(name)
    print(f"{name:8s} {params or ''} n={X.shape[0]} d={X.shape[1]} c={c} solver={sel.solver_} "
          f"s_step={sel.s_step_} | wall {min(walls):.2f} s (cpu {min(cpus):.2f} s)"
          + (f", paper {paper:.2f} s" if paper else "")
          + f" | n_iter={sel.n_iter_}/{sel.max_iter} converged={outer_ok} "
          f"W-steps converged {int(sel.w_step_converged_.sum())}/{sel.n_iter_} "
          f"GPI steps {int(sel.w_step_iter_.sum())} | objective {sel.objective_[0]:.6g} -> "
          f"{sel.objective_[-1]:.6g} | max|W^T W - I| {orth:.1e}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=["jaffe", "umist", "coil20"])
    ap.add_argument("--mnist70k", action="store_true")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--w-max-iter", type=int, nargs="*", default=[None],
                    help="also run with these w_max_iter (default: UFSA's default only)")
    args = ap.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        sys.exit("set UFSEL_DATA to the directory holding the .mat files")
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())} "
          f"(shared machine, {os.cpu_count()} cores)", flush=True)
    for name in args.datasets:
        b = load_dataset(name)
        for w in args.w_max_iter:
            bench(name, b.data, np.unique(b.target).size, args.repeats,
                  **({} if w is None else {"w_max_iter": w}))
    if args.mnist70k:
        b = make_mnist70k_like(random_state=0)
        bench("mnist70k", b.data, np.unique(b.target).size, 1)
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    sys.exit(main())
