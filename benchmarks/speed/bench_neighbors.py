"""First-call cost and recall of the neighbour-search backends, each in a FRESH process.

For each backend (``exact``: scikit-learn; ``hnsw``: faiss; ``nndescent``:
pynndescent) a new Python process imports ufsel, builds the data, and times
its first and second ``knn_graph`` call: the first includes every one-off
cost of the process (imports, pynndescent's numba compilation), the second
is the steady-state cost. Recall is measured against the exact neighbours.
A backend that is not installed is reported as such.

Usage::

    python benchmarks/speed/bench_neighbors.py                    # 20,000 x 50, k = 10
    python benchmarks/speed/bench_neighbors.py --n 70000 --d 784 --backends hnsw nndescent

The data are ``--clusters`` Gaussian blobs (0 = i.i.d. Gaussian, the hardest
case for graph indexes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from ufsel.graph import knn_graph
n, d, k, clusters, backend, out = sys.argv[1:7]
n, d, k, clusters = int(n), int(d), int(k), int(clusters)
rng = np.random.RandomState(0)
if clusters:
    centres = rng.standard_normal((clusters, d)) * 4.0
    X = centres[rng.randint(clusters, size=n)] + rng.standard_normal((n, d))
else:
    X = rng.standard_normal((n, d))
t_import = time.perf_counter() - t0
t = time.perf_counter()
_, ind = knn_graph(X, k, algorithm=backend)
first = time.perf_counter() - t
t = time.perf_counter()
knn_graph(X, k, algorithm=backend)
second = time.perf_counter() - t
np.save(out, ind)
print(json.dumps({"import_s": t_import, "first_s": first, "second_s": second}))
"""

MODULES = {"exact": None, "hnsw": "faiss", "nndescent": "pynndescent"}


def _installed(module):
    if module is None:
        return True
    import importlib.util

    return importlib.util.find_spec(module) is not None


def run_backend(backend, args, tmp):
    out = os.path.join(tmp, f"{backend}.npy")
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(args.n), str(args.d), str(args.k), str(args.clusters),
         backend if backend != "exact" else "brute", out],
        capture_output=True, text=True, timeout=args.timeout)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"{backend}: {proc.stderr.strip().splitlines()[-1]}")
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["process_wall_s"] = wall
    res["path"] = out
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--d", type=int, default=50)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--clusters", type=int, default=0)
    p.add_argument("--backends", nargs="+", default=["exact", "hnsw", "nndescent"],
                   choices=sorted(MODULES))
    p.add_argument("--timeout", type=float, default=1800)
    args = p.parse_args(argv)
    import numpy as np

    print(f"data: {args.n} x {args.d}, k = {args.k}, "
          f"{args.clusters or 'no'} clusters; load: {os.getloadavg()[0]:.2f}; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"{'backend':<10} {'import s':>9} {'first fit s':>12} {'second fit s':>13} "
          f"{'process s':>10} {'recall':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        backends = ["exact"] + [b for b in args.backends if b != "exact"]
        exact = None
        for backend in backends:
            if not _installed(MODULES[backend]):
                print(f"{backend:<10} not installed ({MODULES[backend]})")
                continue
            r = run_backend(backend, args, tmp)
            ind = np.load(r["path"])
            if backend == "exact":
                exact = ind
            recall = np.mean([len(set(a) & set(b)) / args.k for a, b in zip(exact, ind)])
            if backend in args.backends:
                print(f"{backend:<10} {r['import_s']:9.2f} {r['first_s']:12.2f} "
                      f"{r['second_s']:13.2f} {r['process_wall_s']:10.2f} {recall:7.4f}",
                      flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
