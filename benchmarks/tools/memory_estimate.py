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
    args = p.parse_args()

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
            cmd = [sys.executable, __file__, "--child", name, str(n), str(d), str(density)]
            env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, env=env,
                                     timeout=args.timeout, check=False)
                res = json.loads(out.stdout.strip().splitlines()[-1])
            except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError) as exc:
                res = {"measured": float("nan"), "seconds": float("nan"),
                       "status": type(exc).__name__}
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
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, name, n, d, density = sys.argv
        child(name, int(n), int(d), None if density == "None" else float(density))
    else:
        main()
