"""Time the eigenstep-heavy selectors (UDFS, JELSR, RSFS) on ORL, COIL20 and JAFFE.

Each (method, data set) pair runs in a fresh subprocess of the current tree
(``src/`` next to this script); with ``--baseline PATH_TO_SRC`` the same pair
also runs with ``PYTHONPATH=PATH_TO_SRC`` (an older checkout's ``src``, e.g. a
``git worktree`` of an earlier commit), and the table prints the time ratio
new / old, both final objectives and the overlap of the top-50 features.

Parameters: the FSASL setting of the issue's Octave comparison, c = number of
classes, k = 5; UDFS gamma = 1, lambda = 1000, 20 fixed iterations (tol=0);
JELSR alpha = beta = 1, 20 iterations at most; RSFS its defaults.

Usage::

    UFSEL_DATA=/path/to/data python benchmarks/speed/bench_eigensteps.py \
        [--datasets orl coil20 jaffe] [--methods udfs jelsr rsfs] [--baseline OLD/src]

Report the machine load (``uptime``) with any timing: the script prints it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

_WORKER = r"""
import json, sys, time, warnings
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from ufsel import JELSR, RSFS, UDFS
from ufsel.datasets import load_dataset

method, name = sys.argv[1], sys.argv[2]
b = load_dataset(name)
X, c = b.data, int(np.unique(b.target).size)
make = {
    "udfs": lambda: UDFS(50, n_clusters=c, n_neighbors=5, gamma=1.0, reg=1000.0, max_iter=20,
                         tol=0),
    "jelsr": lambda: JELSR(50, n_clusters=c, n_neighbors=5, max_iter=20, random_state=0),
    "rsfs": lambda: RSFS(50, n_clusters=c, n_neighbors=5, random_state=0),
}[method]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    t = time.perf_counter()
    est = make().fit(X)
    sec = time.perf_counter() - t
print(json.dumps({"seconds": sec, "objective": float(est.objective_[-1]),
                  "n_iter": int(est.n_iter_),
                  "top50": np.argsort(est.ranking_)[:50].tolist()}))
"""


def run_one(src, method, name, timeout):
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", _WORKER, method, name], env=env,
                         capture_output=True, text=True, timeout=timeout)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["orl", "coil20", "jaffe"])
    ap.add_argument("--methods", nargs="+", default=["udfs", "jelsr", "rsfs"],
                    choices=["udfs", "jelsr", "rsfs"])
    ap.add_argument("--baseline", help="src folder of an older checkout to compare with")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    args = ap.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        sys.exit("Set UFSEL_DATA to the folder of the benchmark .mat files.")
    print(f"# load before: {os.getloadavg()[0]:.2f} (1-min average), {os.cpu_count()} cores")
    head = f"{'method':7s} {'data':7s} {'new s':>8s} {'new obj':>12s}"
    if args.baseline:
        head += f" {'old s':>8s} {'old obj':>12s} {'new/old':>8s} {'top50 =':>8s}"
    print(head)
    for name in args.datasets:
        for method in args.methods:
            new = run_one(SRC, method, name, args.timeout)
            if "error" in new:
                print(f"{method:7s} {name:7s} error: {new['error']}")
                continue
            row = f"{method:7s} {name:7s} {new['seconds']:8.2f} {new['objective']:12.6f}"
            if args.baseline:
                old = run_one(Path(args.baseline), method, name, args.timeout)
                if "error" in old:
                    row += f"  baseline error: {old['error']}"
                else:
                    same = len(set(new["top50"]) & set(old["top50"]))
                    row += (f" {old['seconds']:8.2f} {old['objective']:12.6f} "
                            f"{new['seconds'] / old['seconds']:8.2f} {same:>5d}/50")
            print(row, flush=True)
    print(f"# load after: {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M:%S')}")


if __name__ == "__main__":
    main()
