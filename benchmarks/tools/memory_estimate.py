"""Predicted against measured peak memory of a fit, for every selector.

For each registered selector and each of a few data sizes, one fit runs in its own
process (one BLAS thread) and reports the growth of its peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss`` after the fit, minus the same reading
after importing ufsel, making X and a small warm-up fit that imports what the fit
imports lazily); the parent prints it beside ``ufsel.utils.estimate_fit_memory`` of the
same selector and data, their ratio, and the load average, and writes a markdown table::

    PYTHONPATH=src nice python benchmarks/tools/memory_estimate.py --out memory.md

Why the resident set and not tracemalloc: tracemalloc sees the allocations NumPy
reports to it, but not LAPACK's and BLAS's workspaces, scikit-learn's C++ buffers or
faiss's index, which take real memory and are what exhausts a machine; the peak RSS
counts every allocator. Its cost: pages freed to the allocator but kept by the
process count until reused, and a growth below a few MiB is noise, so the ratio is
shown only where the estimate is at least ``--min-mib``.

Iterative methods run with a few iterations (``max_iter``): their peak is reached in
the first ones, and the whole script stays within minutes on two cores.

``--deciding`` runs instead the cases near the shapes where the check decides
(:data:`DECIDING`): LGDFS at the 70,000 x 784 scale benchmark's shape, sparse rows as
wide and as sparse as the 200,000 x 50,000 users' case (25 stored entries per row) at
sizes that fit, and a dask array on a ``distributed.LocalCluster`` of two workers of
2 GB (one thread each), where the client's peak and each worker's are measured apart
(the workers' ``ru_maxrss`` read with ``Client.run``) against the estimate's client
total and a worker's need (a chunk, and its half of the persisted chunks). Each case's
result is cached in ``--cache`` (one JSON per case, written atomically), so that a run
cut short resumes::

    UFSEL_DATA=... PYTHONPATH=src nice python benchmarks/tools/memory_estimate.py \
        --deciding --cache /tmp/memory_cases --out deciding.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

#: (n_samples, n_features, density or None for dense): small to moderate
SIZES = [(1500, 300, None), (4000, 600, None), (8000, 2000, 0.01)]

#: few iterations: the peak is reached in the first ones
FAST = {"max_iter": 3}

#: The cases near the shapes where the check decides: (case name, selector, extra
#: parameters, data kind, n, d). Data kinds: "dense" (uniform), "sparse" (25 stored
#: entries per row, as the users' 200,000 x 50,000 case), "dask" (make_planted_dask,
#: float32, chunks of 100,000 rows, on two 2 GB workers).
DECIDING = [
    ("lgdfs-70k", "lgdfs", {}, "dense", 70_000, 784),
    ("laplacianscore-sparse-exact", "laplacianscore", {"neighbors_algorithm": "exact"},
     "sparse", 20_000, 50_000),
    ("spec-sparse-exact", "spec", {"neighbors_algorithm": "exact"}, "sparse", 20_000, 50_000),
    ("evsc-sparse-exact", "evsc", {"neighbors_algorithm": "exact"}, "sparse", 20_000, 50_000),
    ("laplacianscore-sparse-nndescent-4k", "laplacianscore",
     {"neighbors_algorithm": "nndescent"}, "sparse", 4_000, 50_000),
    ("laplacianscore-sparse-nndescent-6k-20k", "laplacianscore",
     {"neighbors_algorithm": "nndescent"}, "sparse", 6_000, 20_000),
    ("laplacianscore-sparse-nndescent-40k-2k", "laplacianscore",
     {"neighbors_algorithm": "nndescent"}, "sparse", 40_000, 2_000),
    ("mcfs-dask-2m", "mcfs", {}, "dask", 2_000_000, 100),
    ("laplacianscore-dask-2m", "laplacianscore", {}, "dask", 2_000_000, 100),
    ("spec-dask-2m", "spec", {}, "dask", 2_000_000, 100),
]

#: Stored entries per row of the wide sparse cases (the users' case: 5M over 200,000 rows).
PER_ROW = 25


def _params(cls):
    defaults = cls().get_params()
    params = {k: v for k, v in FAST.items() if k in defaults}
    if "random_state" in defaults:
        params["random_state"] = 0
    return params


def _make(n, d, density):
    import numpy as np
    from scipy import sparse

    if density is None:
        return np.random.RandomState(0).rand(n, d)
    return sparse.random(n, d, density=density, format="csr", rng=np.random.default_rng(0))


def _deciding_data(kind, n, d):
    import numpy as np
    from scipy import sparse

    if kind == "dense":
        return np.random.RandomState(0).rand(n, d)
    if kind == "sparse":
        return sparse.random(n, d, density=PER_ROW / d, format="csr",
                             rng=np.random.default_rng(0))
    from ufsel.datasets import make_planted_dask

    return make_planted_dask(n, d, 10, chunks=100_000, random_state=0)[0]


def _worker_peaks(client):
    """Each worker's peak resident set size, in bytes."""
    import resource

    return list(client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
                .values())


def deciding_child(case):
    """Run in the child process: one deciding case, predicted and measured peaks as JSON."""
    import resource
    import warnings

    from threadpoolctl import threadpool_limits

    import ufsel
    from ufsel.utils import estimate_fit_memory

    warnings.simplefilter("ignore")
    _, name, params, kind, n, d = next(c for c in DECIDING if c[0] == case)
    cls = ufsel.get_selector(name)
    est = cls(n_features_to_select=10, **{**_params(cls), **params})
    X = _deciding_data(kind, n, d)
    client = cluster = None
    if kind == "dask":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="2GB",
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    predicted = estimate_fit_memory(est, X)
    with threadpool_limits(1), ufsel.config_context(max_fit_bytes=None):
        if kind != "dask":  # imports what the fit imports lazily (and numba's compilation)
            try:
                cls(n_features_to_select=2, **{**_params(cls), **params}).fit(X[:300])
            except Exception:
                pass
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        worker_base = _worker_peaks(client) if client else []
        t0 = time.perf_counter()
        status = "ok"
        try:
            est.fit(X)
        except Exception as exc:  # reported, not raised: the row says why
            status = f"{type(exc).__name__}: {str(exc)[:80]}"
        seconds = time.perf_counter() - t0
        measured = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
        workers = ([p - b for p, b in zip(_worker_peaks(client), worker_base)]
                   if client else [])
    if client:
        client.close()
        cluster.close()
    worker_need = (predicted.worker_total + predicted.cluster_total / 2) if workers else None
    print(json.dumps({"case": case, "data": f"{n} x {d} {kind}", "predicted": predicted.total,
                      "measured": measured, "worker_predicted": worker_need,
                      "worker_measured": max(workers) if workers else None,
                      "seconds": seconds, "status": status,
                      "dominant": predicted.dominant[0],
                      "load": os.getloadavg()[0]}))


def _run_child(child_args, timeout, failed):
    """Run this script on ``child_args`` in a fresh one-thread process and return the
    JSON of its last line; on a time-out or no result, ``failed()`` (called then) with
    the error's name as its ``status``."""
    cmd = [sys.executable, __file__, *child_args]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                             check=False)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError) as exc:
        return {**failed(), "status": type(exc).__name__}


def deciding(args):
    """The deciding cases, each in its own process, cached per case."""
    os.makedirs(args.cache, exist_ok=True)
    rows = []
    for case, *_ in DECIDING:
        path = os.path.join(args.cache, f"{case}.json")
        if not os.path.exists(path):
            res = _run_child(["--deciding-child", case], args.timeout,
                             lambda case=case: {"case": case, "load": os.getloadavg()[0]})
            tmp = path + ".tmp"
            with open(tmp, "w") as fh:
                json.dump(res, fh)
            os.replace(tmp, path)
        with open(path) as fh:
            res = json.load(fh)
        rows.append(res)
        print(_deciding_line(res), flush=True)
    if args.out:
        lines = ["| case | data | predicted MiB | measured MiB | ratio | worker predicted MiB "
                 "| worker measured MiB | ratio | fit s | load | largest term |",
                 "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in rows:
            lines.append("| " + " | ".join(_deciding_cells(r)) + " |")
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


def _mib(v):
    return "-" if v is None else f"{v / 2**20:.0f}"


def _ratio(p, m):
    return "-" if not p or not m or m <= 0 else f"{p / m:.2f}"


def _deciding_cells(r):
    status = "" if r.get("status") == "ok" else f" ({r.get('status')})"
    return [r["case"], r.get("data", "-"), _mib(r.get("predicted")), _mib(r.get("measured")),
            _ratio(r.get("predicted"), r.get("measured")), _mib(r.get("worker_predicted")),
            _mib(r.get("worker_measured")),
            _ratio(r.get("worker_predicted"), r.get("worker_measured")),
            "-" if r.get("seconds") is None else f"{r['seconds']:.0f}",
            f"{r.get('load', float('nan')):.2f}", f"{r.get('dominant', '-')}{status}"]


def _deciding_line(r):
    c = _deciding_cells(r)
    return (f"{c[0]:42s} {c[1]:22s} predicted {c[2]:>7s} MiB measured {c[3]:>7s} MiB "
            f"ratio {c[4]:>5s}  workers {c[5]:>6s} / {c[6]:>6s} MiB ratio {c[7]:>5s}  "
            f"{c[8]:>5s} s  load {c[9]}  {r.get('status')}")


def child(name, n, d, density):
    """Run in the child process: one fit, its peak RSS growth as JSON on stdout."""
    import resource
    import warnings

    from threadpoolctl import threadpool_limits

    import ufsel

    warnings.simplefilter("ignore")
    cls = ufsel.get_selector(name)
    X = _make(n, d, density)
    with threadpool_limits(1), ufsel.config_context(max_fit_bytes=None):
        try:  # imports what the fit imports lazily
            cls(n_features_to_select=2, **_params(cls)).fit(X[:80, :20])
        except Exception:
            pass
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        status = "ok"
        try:
            cls(n_features_to_select=10, **_params(cls)).fit(X)
        except Exception as exc:  # reported, not raised: the row says why
            status = f"{type(exc).__name__}: {str(exc)[:80]}"
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"measured": (peak - base) * 1024, "seconds": time.perf_counter() - t0,
                      "status": status}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--methods", default="", help="comma-separated names (default: all)")
    p.add_argument("--out", default="", help="markdown table to write")
    p.add_argument("--min-mib", type=float, default=20.0)
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--deciding", action="store_true",
                   help="the cases near the shapes where the check decides (DECIDING)")
    p.add_argument("--cache", default="memory_cases",
                   help="folder of the deciding cases' results (one JSON per case)")
    args = p.parse_args()
    if args.deciding:
        deciding(args)
        return

    import ufsel
    from ufsel._registry import SELECTORS  # private: needs public API
    from ufsel.utils import estimate_fit_memory

    names = args.methods.split(",") if args.methods else sorted(SELECTORS)
    rows = []
    for n, d, density in SIZES:
        X = _make(n, d, density)
        for name in names:
            cls = ufsel.get_selector(name)
            predicted = estimate_fit_memory(cls(n_features_to_select=10, **_params(cls)), X)
            res = _run_child(["--child", name, str(n), str(d), str(density)], args.timeout,
                             lambda: {"measured": float("nan"), "seconds": float("nan")})
            mib_p, mib_m = predicted.total / 2**20, res["measured"] / 2**20
            ratio = mib_p / mib_m if mib_m > 0 and mib_p >= args.min_mib else float("nan")
            kind = "dense" if density is None else f"sparse {density:g}"
            row = (name, f"{n} x {d} {kind}", mib_p, mib_m, ratio, res["seconds"],
                   predicted.dominant[0], res["status"])
            rows.append(row)
            print(f"{name:15s} {row[1]:24s} predicted {mib_p:8.1f} MiB  measured {mib_m:8.1f} MiB"
                  f"  ratio {ratio:5.2f}  {res['seconds']:6.1f} s  load {os.getloadavg()[0]:.2f}"
                  f"  {res['status']}", flush=True)
    within = [r for r in rows if r[4] == r[4]]
    good = sum(0.5 <= r[4] <= 2.0 for r in within)
    summary = (f"{good} of {len(within)} fits with an estimate of at least {args.min_mib:g} MiB "
               f"within a factor of 2; load average at the end {os.getloadavg()[0]:.2f}.")
    print(summary)
    if args.out:
        lines = ["| selector | data | predicted MiB | measured MiB | ratio | fit s | largest term |",
                 "|---|---|---:|---:|---:|---:|---|"]
        for name, data, mp, mm, ratio, sec, dom, status in rows:
            r = f"{ratio:.2f}" if ratio == ratio else "-"
            note = "" if status == "ok" else f" ({status})"
            lines.append(f"| {name} | {data} | {mp:.1f} | {mm:.1f} | {r} | {sec:.1f} | "
                         f"{dom}{note} |")
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines + ["", summary, ""]))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--deciding-child":
        deciding_child(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, name, n, d, density = sys.argv
        child(name, int(n), int(d), None if density == "None" else float(density))
    else:
        main()
