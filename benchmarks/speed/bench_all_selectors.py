"""The benchmark suite, one command: ``python benchmarks/speed/bench_all_selectors.py``.

For every registered selector and every data set: wall time and peak memory
of ``fit`` (each fit in a fresh process), scikit-feature's implementation of
the same method measured in the same run where it has one (a separate venv,
see ``_harness.SKF_PYTHON``; never a ufsel dependency) and the speed ratio;
for SPCAFS the achieved GFLOP/s of its scatter-matrix step beside a plain
NumPy ``X^T X`` of the same shape, measured in the same process.

Usage::

    UFSEL_DATA=/path/to/data python benchmarks/speed/bench_all_selectors.py \\
        [--data usps mnist10k] [--methods mcfs spcafs] [--no-skfeature] \\
        [--timeout 1800] [--json results.json]

Runs one job at a time (the machine may be shared). Timings on a shared
machine are pessimistic.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness

from _harness import (  # noqa: E402
    BENCH_PARAMS,
    SKF_PYTHON,
    SKFEATURE,
    fmt,
    fmt_skf,
    ratio,
    run_job,
    skfeature_available,
)

import ufsel  # noqa: E402

SKF_PARAMS = {"mcfs": {"n_clusters": 10, "n_neighbors": 5}, "laplacianscore": {"n_neighbors": 5},
              "udfs": {"n_clusters": 10}, "ndfs": {"n_clusters": 10}}


def params_for(name):
    cls = ufsel.get_selector(name)
    p = dict(BENCH_PARAMS.get(name, {}))
    if "random_state" in cls().get_params():
        p.setdefault("random_state", 0)
    return {k: v for k, v in p.items() if k in cls().get_params()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["usps"])
    ap.add_argument("--methods", nargs="+", default=sorted(ufsel.SELECTORS))
    ap.add_argument("--k", type=int, default=50, help="features to select")
    ap.add_argument("--no-skfeature", action="store_true")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--json", help="write all results to this file")
    args = ap.parse_args(argv)
    skf = not args.no_skfeature and skfeature_available()
    print(f"# ufsel {ufsel.__version__} benchmark, {platform.machine()}, {os.cpu_count()} CPUs; "
          f"scikit-feature: {'yes (' + SKF_PYTHON + ')' if skf else 'not run'}")
    print("# wall time and peak RSS of fit() in a fresh process (data included)\n")
    rows, results = [], []
    for data in args.data:
        for name in args.methods:
            job = {"impl": "ufsel", "method": name, "data": data, "k": args.k,
                   "params": params_for(name)}
            res = run_job(job, timeout=args.timeout)
            skf_res = None
            if skf and name in SKFEATURE:
                skf_job = {"impl": "skfeature", "method": name, "data": data, "k": args.k,
                           "params": SKF_PARAMS.get(name, {})}
                skf_res = run_job(skf_job, python=SKF_PYTHON, timeout=args.timeout)
            results.append({"data": data, "method": name, "ufsel": res, "skfeature": skf_res})
            gf = res.get("gflops")
            extra = (f"scatter {gf['scatter_matrix']:.1f} GFLOP/s vs NumPy matmul "
                     f"{gf['numpy_matmul']:.1f}" if gf else res.get("error", ""))
            row = (data, name, fmt(res, "wall_s"), fmt(res, "peak_mib", "{:.0f}"),
                   fmt_skf(skf_res, "wall_s"), fmt_skf(skf_res, "peak_mib", "{:.0f}"),
                   ratio(res, skf_res), extra or (skf_res or {}).get("error", ""))
            rows.append(row)
            print(" | ".join(row), flush=True)
    head = ("data", "method", "ufsel s", "ufsel MiB", "skfeature s", "skfeature MiB",
            "speed-up", "notes")
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
