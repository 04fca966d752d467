"""The label-free cluster-count estimate against the true class count on every shared data set.

    UFSEL_DATA=/work/shared/data PYTHONPATH=src python benchmarks/studies/estimate_n_clusters.py \
        [--datasets coil20,orl] [--out benchmarks/results/estimate_n_clusters.md]

For each data set: ``ufsel.model_selection.estimate_n_clusters(X, random_state=0)``
at its defaults (the largest eigengap of the normalised Laplacian of the binary
10-NN graph at K >= its number of components; X as loaded, K <= min(50, n // 10)), the true number of classes (used only for the
table), and the wall time. Results are cached one JSON file per data set
(``--cache``, atomic writes), so an interrupted run resumes; the Markdown table
is rewritten after every data set.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import joblib
import numpy as np

from ufsel.datasets import list_datasets, load_dataset
from ufsel.model_selection import estimate_n_clusters
from ufsel.utils import atomic_write_text


def run_one(name):
    b = load_dataset(name)
    X, y = b.data, b.target
    t0 = time.perf_counter()
    k, det = estimate_n_clusters(X, random_state=0, return_details=True)
    dt = time.perf_counter() - t0
    gaps = det.gaps
    second = int(np.argsort(-np.round(gaps, 10), kind="stable")[1]) + 2 if gaps.size > 1 else k
    return {"name": name, "n": X.shape[0], "d": X.shape[1], "truth": int(np.unique(y).size),
            "estimate": int(k), "runner_up": second, "max_clusters": int(det.max_clusters),
            "time_s": dt}


def table(rows, command, load):
    lines = [
        "# Label-free cluster-count estimate vs the true class count",
        "",
        "`estimate_n_clusters(X, random_state=0)`: the largest eigengap of the normalised "
        "Laplacian of the binary 10-NN graph, at K >= its number of connected components; "
        "X as loaded (no standardisation), K in [2, min(50, n // 10)]. "
        "The "
        "class count is used for this table only. `runner-up` = the K of the second largest "
        "gap.",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {platform.machine()}, shared 2-core; load when the table was written: {load}.",
        "",
        "| data set | n | d | classes | estimate | runner-up | max K | time (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['name']} | {r['n']} | {r['d']} | {r['truth']} | {r['estimate']} | "
                     f"{r['runner_up']} | {r['max_clusters']} | {r['time_s']:.2f} |")
    exact = sum(r["estimate"] == r["truth"] for r in rows)
    within = sum(abs(r["estimate"] - r["truth"]) <= max(1, 0.2 * r["truth"]) for r in rows)
    lines += ["", f"Exact on {exact} of {len(rows)} data sets; within max(1, 20 %) of the class "
              f"count on {within}. Median |estimate - classes| = "
              f"{np.median([abs(r['estimate'] - r['truth']) for r in rows]):.0f}.", ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", help="comma-separated names (default: every shared data set)")
    ap.add_argument("--out", default="benchmarks/results/estimate_n_clusters.md")
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "ufsel",
                                                    "estimate_n_clusters"))
    args = ap.parse_args(argv)
    names = (args.datasets.split(",") if args.datasets else
             [r["name"] for r in sorted(list_datasets(), key=lambda r: r["n_samples"] * r["n_features"])
              if r["source"].endswith(".mat")])
    # one cached row per data set (joblib.Memory), so an interrupted run resumes
    cached = joblib.Memory(args.cache, verbose=0).cache(run_one)
    rows = []
    for name in names:
        row = cached(name)
        rows.append(row)
        print(f"{name}: estimate {row['estimate']}, classes {row['truth']}, {row['time_s']:.2f} s",
              flush=True)
        command = ("UFSEL_DATA=/work/shared/data PYTHONPATH=src python "
                   "benchmarks/studies/estimate_n_clusters.py" +
                   (f" --datasets {args.datasets}" if args.datasets else ""))
        atomic_write_text(args.out, table(rows, command, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
