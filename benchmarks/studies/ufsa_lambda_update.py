"""UFSA's two readings of lambda_i, fixed and adaptive, on many data sets: speed and quality.

    UFSEL_DATA=/path/to/shared/data PYTHONPATH=src OMP_NUM_THREADS=1 \
        python benchmarks/studies/ufsa_lambda_update.py [--datasets jaffe umist ...] \
        [--modes fixed adaptive] [--out benchmarks/results/ufsa_lambda_update.md] \
        [--cache ~/.cache/ufsel/ufsa_lambda_update] [--leaderboard benchmarks/results/leaderboard]

The UFSA paper sets lambda "automatically as in CAN" (Nie, Wang, Huang 2014), which
chooses lambda_i so that s_i has exactly k non-zeros. Two readings
(``UFSA(lambda_update=...)``):

- ``"fixed"``: lambda_i set by CAN's rule in the first S-step, then held, so that
  objective (7) is one function that every step decreases. As the projection contracts,
  the supports grow (UMIST: about 125 neighbours per point instead of k = 15).
- ``"adaptive"``: CAN's rule in every S-step, exactly k neighbours per point (the
  closed form ``s_ij = (d_{i,k+1} - d_ij) / (k d_{i,k+1} - sum_l d_il)``, which the SOGFS
  code uses for its graph); the objective then changes between iterations.

For each data set and reading, one fit with the paper's protocol (c = the number of
classes, alpha = gamma = 1, k = 15, random_state = 0, other parameters at their
defaults). Recorded: the fit's wall time (one process; run it with
``OMP_NUM_THREADS=1`` and nothing else on the machine for the times to mean anything),
outer iterations, whether the relative change of the objective fell below tol, how
many iterations increased the objective, the mean support size of the final S, and the
ranking's quality under FSEVAL's protocol (:func:`_harness.fseval_scores`: the
top ceil(p d) features for p = 0.5 %, 1 %, ..., 10 %, k-means with the number of
classes, seeds 0-9, mean ACC and NMI over the ratios, %). With ``--leaderboard DIR``
the random-subset baseline of that leaderboard run (10 draws, same ratios) is shown
beside them. The labels are used for the evaluation only.

Fits and evaluations are cached per (data set, reading, ufsel version, parameters)
under ``--cache`` (atomic JSON writes), so an interrupted run resumes; delete the
folder to recompute.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from joblib import Memory
from sklearn.exceptions import ConvergenceWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import RATIOS, fseval_scores, ratio_counts, ratio_mean, read_leaderboard  # noqa: E402

import ufsel  # noqa: E402
from ufsel import UFSA  # noqa: E402
from ufsel.datasets import load_dataset  # noqa: E402
from ufsel.utils import atomic_write_text  # noqa: E402

#: The data sets where a fit of either reading takes at most a few minutes on one core
#: (left out: AR, Palm, PIE and YaleB, with 38-100 classes, and USPS, MNIST10k, PCMAC).
DEFAULT_DATASETS = ["wine", "ecoli", "lung_discrete", "colon", "glioma", "leuml", "srbctml",
                    "lymphoma", "yale", "jaffe", "imm40", "warpar10p", "warppie10p", "orl",
                    "umist", "coil20", "isolet", "madelon", "allaml", "leukemia",
                    "prostate_ge", "nci9", "tox171", "mnist4k"]
MODES = ("fixed", "adaptive")


def fit_and_evaluate(name, X, y, mode, version=None, ratios=None):
    """One UFSA fit and its FSEVAL scores, as a table row (``version`` and ``ratios`` are
    only part of the cache key: a new ufsel version or ratio set refits)."""
    c = int(np.unique(y).size)
    params = dict(n_clusters=min(c, X.shape[1]), random_state=0, lambda_update=mode)
    sel = UFSA(**params)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        sel.fit(X)
    wall = time.perf_counter() - t0
    order = np.argsort(sel.ranking_, kind="stable")
    with warnings.catch_warnings():
        # k-means on few, discrete features meets duplicate points ("fewer distinct clusters")
        warnings.simplefilter("ignore", ConvergenceWarning)
        acc, nmi = fseval_scores(X, y, order)
    obj = sel.objective_
    row = dict(dataset=name, mode=mode, n=X.shape[0], d=X.shape[1], c=params["n_clusters"],
               seconds=wall, n_iter=int(sel.n_iter_), max_iter=sel.max_iter,
               converged=not any("did not converge" in str(w.message) for w in caught),
               w_steps_converged=bool(sel.w_step_converged_.all()),
               increases=int(np.sum(np.diff(obj) > 0)),
               support=float(np.diff(sel.similarity_.indptr).mean()),
               objective=float(obj[-1]), acc=acc, nmi=nmi, solver=sel.solver_,
               top50=order[:50].tolist())
    return row


def log_row(row):
    print(f"{row['dataset']:14s} {row['mode']:8s} {row['seconds']:7.1f} s  {row['n_iter']:3d} it  "
          f"converged={row['converged']}  increases={row['increases']}  "
          f"support {row['support']:.1f}  ACC {row['acc']:.2f}  NMI {row['nmi']:.2f}", flush=True)


def write_table(rows, board, path, command, elapsed):
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    by = {(r["dataset"], r["mode"]): r for r in rows}
    lines = [
        "# UFSA: lambda_i fixed after the first S-step, or re-set by CAN's rule in every S-step",
        "",
        f"Command: `{command}`",
        "",
        f"UFSA fits {sum(r['seconds'] for r in rows) / 60:.1f} min in all (this invocation "
        f"{elapsed / 60:.1f} min: fits and evaluations found in the cache are reused), "
        f"ufsel {ufsel.__version__}, "
        f"Python {platform.python_version()}, {os.cpu_count()} cores. Protocol in the script's "
        "docstring: c = the number of classes, alpha = gamma = 1, k = 15; ACC and NMI (%) are "
        "FSEVAL's mean over the 20 ratios 0.5 %-10 % of d, k-means seeds 0-9. "
        "'random' is the leaderboard's 10 random subsets at the same counts. Times are the "
        "wall time of one fit with one thread, indicative only (the fits are not repeated; "
        "benchmarks/speed/bench_ufsa.py times UFSA on an idle machine); 'it' = outer iterations "
        "(max 300), 'up' = iterations that increased objective (7), 'supp' = mean "
        "non-zeros per row of the final S.",
        "",
        "| data set (n x d, c) | fixed: s | it | supp | ACC | NMI | adaptive: s | it | up | ACC "
        "| NMI | time ratio adaptive / fixed | random ACC | random NMI |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    wins = {"acc": 0, "nmi": 0}
    ratios, diffs = [], {"acc": [], "nmi": []}
    for name in names:
        f, a = by.get((name, "fixed")), by.get((name, "adaptive"))
        ref = f or a
        cells = [f"{name} ({ref['n']} x {ref['d']}, {ref['c']})"]
        for r, extra in ((f, False), (a, True)):
            if r is None:
                cells += ["-"] * (6 if extra else 5)
                continue
            it = f"{r['n_iter']}" + ("" if r["converged"] else " (not converged)")
            cells += [f"{r['seconds']:.1f}", it]
            cells += [str(r["increases"])] if extra else [f"{r['support']:.0f}"]
            cells += [f"{r['acc']:.1f}", f"{r['nmi']:.1f}"]
        if f and a:
            ratios.append(a["seconds"] / f["seconds"])
            cells.append(f"{ratios[-1]:.2f}")
            for m in ("acc", "nmi"):
                diffs[m].append(a[m] - f[m])
                wins[m] += a[m] > f[m]
        else:
            cells.append("-")
        rnd = board.get(name, {}).get("random") if board else None
        for m in ("acc", "nmi"):
            v = ratio_mean(rnd[m], ratio_counts(ref["d"], RATIOS)) if rnd else None
            cells.append("-" if v is None else f"{100 * v:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    if ratios:
        lines += [
            "",
            f"Over the {len(ratios)} data sets with both readings: adaptive has the higher ACC on "
            f"{wins['acc']}, the higher NMI on {wins['nmi']}; mean difference adaptive - fixed "
            f"ACC {np.mean(diffs['acc']):+.2f}, NMI {np.mean(diffs['nmi']):+.2f} points; "
            f"time ratio adaptive / fixed median {np.median(ratios):.2f} "
            f"(range {min(ratios):.2f}-{max(ratios):.2f}).",
        ]
    atomic_write_text(Path(path), "\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=DEFAULT_DATASETS)
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    ap.add_argument("--out", default="benchmarks/results/ufsa_lambda_update.md")
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "ufsel" / "ufsa_lambda_update"))
    ap.add_argument("--leaderboard", help="a leaderboard run's folder (its results.csv gives "
                                          "the random-subset baseline)")
    args = ap.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        sys.exit("set UFSEL_DATA to the folder of the shared data sets")
    board = read_leaderboard(Path(args.leaderboard) / "results.csv") if args.leaderboard else None
    cached = Memory(args.cache, verbose=0).cache(fit_and_evaluate)
    t0 = time.perf_counter()
    rows = []
    for name in args.datasets:
        b = load_dataset(name)
        X, y = np.asarray(b.data, dtype=np.float64), np.asarray(b.target)
        for mode in args.modes:
            rows.append(cached(name, X, y, mode, ufsel.__version__, RATIOS.tolist()))
            log_row(rows[-1])
    command = "UFSEL_DATA=... PYTHONPATH=src OMP_NUM_THREADS=1 python benchmarks/studies/ufsa_lambda_update.py " \
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    write_table(rows, board, args.out, command, time.perf_counter() - t0)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
