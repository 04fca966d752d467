"""Run the leaderboard's cells without a value once more under a long CPU cap, resumably.

The leaderboard (``benchmarks/results/leaderboard``) runs every fit under a 20 s CPU
cap. A cell (method, data set, protocol) that timed out there, or that ran under a cap
shorter than ``--cap``, is a *hole*. This script lists the holes of the given methods
from the checked-in ``runtime.csv`` and runs them with ``ufsel bench --fit-timeout CAP``
into ``--out``, one data set per invocation, in the order given by ``--datasets`` (else
smallest n x d first), until ``--budget`` seconds of wall time have passed; a data set is
not started after that. Every fit and evaluation is cached in ``OUT/cache``, so the same
command started again resumes where the last one stopped (a fit cut off mid-way starts
over). ``--n-jobs`` shards the fits of one invocation over that many processes (one BLAS
thread each), for a machine with more cores.

A cell whose fit does not finish within ``--cap`` is recorded as timed out after
``--cap`` CPU seconds: its measured lower bound, which the merge keeps and the report
shows ("timed out at the 900 s cap"). With ``--assemble`` the script only writes the
tables of every planned cell from the cache (``--cached-only``, missing work shows as not
run) into ``OUT/assembled`` and prints the merge command::

    OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \\
        python benchmarks/tools/fill_leaderboard_holes.py --out /work/results_holes \\
        --methods ufsa,dgufs --budget 1000 [--datasets pie,ar] [--n-jobs 2] [--dry-run]
    python benchmarks/tools/fill_leaderboard_holes.py --out /work/results_holes \\
        --methods ufsa,dgufs --assemble
    python benchmarks/tools/merge_leaderboard.py --into benchmarks/results/leaderboard \\
        --update /work/results_holes/assembled --methods ufsa,dgufs --finished-only

Run it under ``OPENBLAS_CORETYPE=Haswell`` (the checked-in evaluations' BLAS kernel; the
merge refuses baselines that differ). The load average is printed beside every data
set's wall time.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "experiments" / "leaderboard.toml"
LEADERBOARD = ROOT / "benchmarks" / "results" / "leaderboard"
PROTOCOLS = ("n_classes", "label_free")


def holes(runtime_csv, methods, cap, refused=("failed",)):
    """``{data set: (size, {method: [protocols]})}`` of the cells without a value under ``cap``.

    A cell is a hole when it timed out under a cap below ``cap``; failed cells (the
    documented refusals) are not holes.
    """
    out = {}
    with open(runtime_csv, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["method"] not in methods or r["status"] in refused or r["status"] == "ok":
                continue
            ran_cap = float(r.get("fit_cap_s") or 0.0)
            if r["status"] == "timed out" and ran_cap >= cap:
                continue  # already a lower bound at this cap
            size = int(r["n_samples"]) * int(r["n_features_total"])
            _, cells = out.setdefault(r["dataset"], (size, {}))
            cells.setdefault(r["method"], []).append(r["protocol"])
    return out


def bench_command(out, methods, datasets, protocols, cap, n_jobs, cached_only=False):
    cmd = [sys.executable, "-c", "import sys; from ufsel.cli import main; sys.exit(main())",
           "bench", str(EXPERIMENT), "--out", str(out), "--methods", ",".join(methods),
           "--datasets", ",".join(datasets), "--protocols", ",".join(protocols),
           "--grids", "fseval_small", "--fit-timeout", str(cap), "--n-jobs", str(n_jobs),
           "--no-plots", "--no-report", "--no-progress"]
    return cmd + (["--cached-only"] if cached_only else [])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="results folder (its cache resumes)")
    ap.add_argument("--methods", required=True, help="comma-separated methods")
    ap.add_argument("--datasets", default=None,
                    help="comma-separated data sets, in this order (default: every data set "
                         "with a hole, smallest n x d first)")
    ap.add_argument("--leaderboard", type=Path, default=LEADERBOARD)
    ap.add_argument("--cap", type=float, default=900.0, help="CPU seconds per fit")
    ap.add_argument("--budget", type=float, default=1000.0,
                    help="wall seconds after which no data set is started")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--assemble", action="store_true",
                    help="only write the tables of every planned cell from the cache")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and stop")
    args = ap.parse_args(argv)

    methods = [m for m in args.methods.split(",") if m]
    plan = holes(args.leaderboard / "runtime.csv", set(methods), args.cap)
    if args.datasets:
        order = [d for d in args.datasets.split(",") if d]
        unknown = [d for d in order if d not in plan]
        if unknown:
            print(f"no hole of {methods} on {unknown}; skipped", file=sys.stderr)
        order = [d for d in order if d in plan]
    else:
        order = sorted(plan, key=lambda d: plan[d][0])
    for d in order:
        print(f"plan {d}: " + "; ".join(f"{m} {','.join(p)}" for m, p in sorted(plan[d][1].items())))
    if args.dry_run or not order:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)

    if args.assemble:
        where = args.out / "assembled"
        where.mkdir(exist_ok=True)
        link = where / "cache"
        if not link.exists():
            link.symlink_to((args.out / "cache").resolve())
        ms = sorted({m for d in order for m in plan[d][1]})
        cmd = bench_command(where, ms, order, PROTOCOLS, args.cap, 1, cached_only=True)
        rc = subprocess.call(cmd)
        print(f"\nmerge: python benchmarks/tools/merge_leaderboard.py --into {args.leaderboard} "
              f"--update {where} --methods {','.join(ms)} --finished-only")
        return rc

    start = time.monotonic()
    for d in order:
        elapsed = time.monotonic() - start
        if elapsed > args.budget:
            print(f"budget of {args.budget:.0f} s spent after {elapsed:.0f} s; "
                  f"not started: {d} and later (rerun the same command to resume)")
            break
        cells = plan[d][1]
        ms = sorted(cells)
        protocols = sorted({p for ps in cells.values() for p in ps})
        t0 = time.monotonic()
        load0 = os.getloadavg()[0]
        # one folder (one cache) for every data set, so that --assemble finds them all
        rc = subprocess.call(bench_command(args.out, ms, [d], protocols, args.cap, args.n_jobs))
        print(f"done {d} ({','.join(ms)}; {','.join(protocols)}): rc {rc}, wall "
              f"{time.monotonic() - t0:.0f} s, load {load0:.2f} -> {os.getloadavg()[0]:.2f}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
