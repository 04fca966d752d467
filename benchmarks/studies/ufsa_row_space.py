"""UFSA on wide data: the paper's W (``w_space="full"``) against W in the row space of X.

    UFSEL_DATA=/path/to/shared/data PYTHONPATH=src python benchmarks/studies/ufsa_row_space.py \
        [--datasets jaffe nci9 ...] [--n-features 30] [--random-subsets 20] [--cap 120] \
        [--out ufsa_row_space.csv]

For every leaderboard data set with more features than samples (d > n, from the
checked-in ``benchmarks/results/leaderboard/summary.json``), or the ``--datasets``
given: UFSA at its defaults with c = the number of classes and ``random_state=0``, once
with ``w_space="full"`` (the paper's form) and once with ``w_space="row_space"``. For
each fit it prints and writes

- the CPU time of the fit (one BLAS thread; a fit over ``--cap`` CPU seconds is
  stopped and reported as timed out),
- ``row_share``: the share of ``||W||_F^2`` that lies in the row space of the
  standardised data (1 for ``row_space`` by construction),
- the NMI of k-means (10 runs, k-means++, seed 0, as the leaderboard) on the
  ``--n-features`` top features,

and the mean and standard deviation of the same NMI on ``--random-subsets`` random
feature subsets of that size (seeds 0, 1, ...).

The leaderboard protocol (ACC over the grid of counts against the random baseline, both
protocols) runs through the benchmark runner::

    ufsel bench benchmarks/studies/ufsa_row_space.toml --out OUT
    python benchmarks/studies/ufsa_row_space.py --board OUT [--out table.csv]

``--board OUT`` only prints the table: for each data set and protocol, the mean ACC over
the grid of the paper's form (the checked-in leaderboard's ``ufsa`` row of
``vs_random.csv``), of ``w_space="row_space"`` (OUT's ``ufsa_row_space`` row) and of the
random subsets, and each one's outcome against random (win / tie / loss, the
leaderboard's paired test).
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ufsel import UFSA
from ufsel.datasets import load_dataset
from ufsel.evaluation import evaluate_clustering
from ufsel.selectors.adaptive_graph._ufsa_wstep import row_space_basis  # private: needs public API

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _harness
from _harness import leaderboard_datasets  # noqa: E402

FIELDS = ("dataset", "n", "d", "c", "w_space", "status", "cpu_s", "n_iter", "row_share",
          "nmi", "random_nmi_mean", "random_nmi_std")


class _CpuCap(Exception):
    pass


def _on_cap(signum, frame):
    raise _CpuCap


def fit_capped(X, c, k, cap, **params):
    """The fit (or None past ``cap`` CPU seconds) and its CPU time."""
    signal.signal(signal.SIGPROF, _on_cap)
    t0 = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, cap)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sel = UFSA(k, n_clusters=c, random_state=0, **params).fit(X)
    except _CpuCap:
        sel = None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return sel, time.process_time() - t0


def row_share(X, W):
    """``||P W||_F^2 / ||W||_F^2``, P the projection on the row space of the data UFSA
    fits (standardised, constant features left out)."""
    std = X.std(axis=0)
    keep = std > 1e-12 * std.max()
    Q = row_space_basis(X[:, keep] / std[keep])
    Wk = W[keep]
    return float(np.sum((Q.T @ Wk) ** 2) / np.sum(Wk ** 2))


def nmi(X, y, cols):
    return evaluate_clustering(X[:, cols], y, n_runs=10, random_state=0)["nmi_mean"]


BOARD_FIELDS = ("dataset", "protocol", "full_status", "full_acc", "full_outcome", "row_status",
                "row_acc", "row_outcome", "random_acc")
LEADERBOARD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "results", "leaderboard", "vs_random.csv")


def board_table(out_dir):
    """Rows of the leaderboard-protocol comparison (see the module docstring)."""
    def read(path, method):
        with open(path, newline="", encoding="utf-8") as fh:
            return {(r["dataset"], r["protocol"]): r for r in csv.DictReader(fh)
                    if r["method"] == method and r["metric"] == "acc"
                    and r["grid"] == "fseval_small"}

    full = read(LEADERBOARD, "ufsa")
    row = read(os.path.join(out_dir, "vs_random.csv"), "ufsa_row_space")
    rows = []
    for key in sorted(row, key=lambda k: (k[1], k[0])):
        f, r = full.get(key, {}), row[key]

        def acc(x):
            return round(float(x), 4) if x not in ("", None) else ""

        rows.append(dict(dataset=key[0], protocol=key[1], full_status=f.get("status", ""),
                         full_acc=acc(f.get("method_mean")), full_outcome=f.get("outcome", ""),
                         row_status=r["status"], row_acc=acc(r["method_mean"]),
                         row_outcome=r["outcome"], random_acc=acc(r["random_mean"])))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default=None,
                    help="results folder of ufsa_row_space.toml: print the protocol table")
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--n-features", type=int, default=30)
    ap.add_argument("--random-subsets", type=int, default=20)
    ap.add_argument("--cap", type=float, default=120.0, help="CPU seconds per fit")
    ap.add_argument("--out", default=None, help="CSV file for the table")
    args = ap.parse_args(argv)
    if args.board:
        rows = board_table(args.board)
        print(" | ".join(BOARD_FIELDS))
        for r in rows:
            print(" | ".join(str(r[f]) for f in BOARD_FIELDS))
        if args.out:
            with open(args.out, "w", newline="", encoding="utf-8") as fh:
                w = csv.DictWriter(fh, fieldnames=BOARD_FIELDS)
                w.writeheader()
                w.writerows(rows)
        return
    if not os.environ.get("UFSEL_DATA"):
        sys.exit("set UFSEL_DATA to the directory holding the .mat files")
    board = leaderboard_datasets()
    names = args.datasets or [k for k, v in board.items() if v["n_features"] > v["n_samples"]]
    print(f"load average before: {' '.join(f'{v:.1f}' for v in os.getloadavg())}", flush=True)
    print(" | ".join(FIELDS), flush=True)
    rows = []
    for name in names:
        b = load_dataset(board.get(name, {}).get("name", name))
        X = np.ascontiguousarray(b.data, dtype=np.float64)
        y = b.target
        n, d = X.shape
        c = int(np.unique(y).size)
        k = min(args.n_features, d)
        rng = np.random.default_rng(0)
        rand = [nmi(X, y, np.sort(rng.choice(d, k, replace=False)))
                for _ in range(args.random_subsets)]
        for w_space in ("full", "row_space"):
            sel, cpu = fit_capped(X, c, k, args.cap, w_space=w_space)
            row = dict(dataset=name, n=n, d=d, c=c, w_space=w_space,
                       status="ok" if sel is not None else "timed out", cpu_s=round(cpu, 2),
                       n_iter="", row_share="", nmi="",
                       random_nmi_mean=round(float(np.mean(rand)), 4),
                       random_nmi_std=round(float(np.std(rand)), 4))
            if sel is not None:
                row.update(n_iter=sel.n_iter_,
                           row_share=round(row_share(X, sel.components_), 4),
                           nmi=round(nmi(X, y, sel.get_support()), 4))
            rows.append(row)
            print(" | ".join(str(row[f]) for f in FIELDS), flush=True)
    if args.out:
        with open(args.out, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
    print(f"load average after: {' '.join(f'{v:.1f}' for v in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
