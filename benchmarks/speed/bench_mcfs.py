"""MCFS on USPS (9298 x 256) and mnist10k (10000 x 784): ufsel vs scikit-feature.

``UFSEL_DATA=/path/to/data python benchmarks/speed/bench_mcfs.py [--data usps mnist10k]``

Each fit runs in a fresh process; prints wall time, peak RSS (data included)
and the speed-up over scikit-feature's ``MCFS.mcfs`` (with its ``construct_W``
5-NN binary graph), measured in the same run when the separate
scikit-feature venv exists (``SKF_PYTHON``, default /tmp/skf-venv/bin/python).
Targets: >= 10x faster than scikit-feature on USPS, peak memory
well under 1 GB. scikit-feature builds dense n x n matrices (distances,
affinity, full eigendecomposition), so it needs several GB here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness

from _harness import (  # noqa: E402
    SKF_PYTHON,
    fmt,
    fmt_skf,
    ratio,
    run_job,
    skfeature_available,
)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["usps", "mnist10k"])
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--no-skfeature", action="store_true")
    ap.add_argument("--timeout", type=int, default=3600,
                    help="seconds per fit; a scikit-feature run stopped there gives a lower "
                         "bound on the speed-up")
    args = ap.parse_args(argv)
    skf = not args.no_skfeature and skfeature_available()
    print("| data | n x d | ufsel s | ufsel peak MiB | skfeature s | skfeature peak MiB | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for data in args.data:
        job = {"impl": "ufsel", "method": "mcfs", "data": data, "k": args.k,
               "params": {"n_clusters": 10, "n_neighbors": 5, "random_state": 0}}
        res = run_job(job, timeout=args.timeout)
        skf_res = None
        if skf:
            skf_res = run_job({"impl": "skfeature", "method": "mcfs", "data": data, "k": args.k,
                               "params": {"n_clusters": 10, "n_neighbors": 5}},
                              python=SKF_PYTHON, timeout=args.timeout)
        shape = "-" if "error" in res else f"{res['n_samples']} x {res['n_features']}"
        print(f"| {data} | {shape} | {fmt(res, 'wall_s')} | {fmt(res, 'peak_mib', '{:.0f}')} | "
              f"{fmt_skf(skf_res, 'wall_s')} | {fmt_skf(skf_res, 'peak_mib', '{:.0f}')} | "
              f"{ratio(res, skf_res)} |", flush=True)
        for r in (res, skf_res):
            if r is not None and "error" in r:
                print(f"  note: {r['error']}")


if __name__ == "__main__":
    main()
