"""Compare two versions of ufsel on the leaderboard's fits: CPU time, objective, selection.

After a change to a method's solver, this shows that the new code reaches the same or a
lower objective and the same selection as the old one on the data sets where both finish,
and how much CPU time each takes::

    git archive <old-commit> src | tar -x -C /tmp/ufsel_old
    UFSEL_DATA=/path/to/shared/data python benchmarks/tools/compare_solvers.py \\
        --old-src /tmp/ufsel_old/src --methods ufsa --datasets jaffe,coil20 \\
        --protocols n_classes,label_free --cap 60 --out ufsa_compare.csv

Each cell (method, data set, protocol) is the leaderboard's fit, read from the checked-in
``benchmarks/results/leaderboard/summary.json``: the raw data set, the protocol's cluster
count K, ``random_state=0``, the leaderboard's feature counts. Each version runs in its own
process with one BLAS thread and a CPU-time limit of ``--cap`` seconds (``RLIMIT_CPU``, as
the leaderboard's cap), so a version that does not finish is reported as "timed out".

The columns: CPU seconds of each version (the fit at the largest count, plus, for a method
whose scores depend on the count, the fits at the other counts through ``fit_rankings``),
the final objective of the fit at the largest count (``objective_[-1]``, where the method
records one) and its relative change ``(new - old) / |old|`` (negative: the new solver
reaches a lower value), and the selections: how many of the leaderboard's counts select
the same feature set, and the smallest overlap of the two top-k sets over the counts.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness
from _harness import leaderboard_datasets  # noqa: E402

FIELDS = ("method", "dataset", "protocol", "K", "old_status", "new_status", "old_cpu_s",
          "new_cpu_s", "old_objective", "new_objective", "objective_change", "same_counts",
          "n_counts", "min_overlap")


def _worker(spec):
    """Run in the child process: one leaderboard fit, reported as JSON on stdout."""
    import numpy as np

    from ufsel import get_selector
    from ufsel.datasets import load_dataset
    from ufsel.utils import get_selector_tags

    X = np.ascontiguousarray(load_dataset(spec["name"]).data, dtype=np.float64)
    cls = get_selector(spec["method"])
    params = {"random_state": 0} if "random_state" in cls().get_params() else {}
    if "n_clusters" in cls().get_params():
        params["n_clusters"] = spec["K"]
    counts = sorted(spec["counts"])
    t0 = time.process_time()
    est = cls(n_features_to_select=counts[-1], **params).fit(X)
    rankings = dict.fromkeys(counts, est.ranking_)
    if get_selector_tags(est).scores_depend_on_count and len(counts) > 1:
        rankings.update(est.fit_rankings(X, counts[:-1]))
    cpu = time.process_time() - t0
    objective = getattr(est, "objective_", None)
    if objective is not None and np.size(objective):
        objective = float(np.ravel(objective)[-1])
    else:
        objective = None
    selected = {str(k): sorted(np.argsort(rankings[k], kind="stable")[:k].tolist())
                for k in counts}
    json.dump({"status": "ok", "cpu_s": cpu, "objective": objective, "selected": selected},
              sys.stdout)


def _run(src, spec, cap):
    """One version's fit in a capped child process; its report (a dict)."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 5))

    env = {**os.environ, "PYTHONPATH": str(src), "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "UFSEL_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, __file__, "--worker", json.dumps(spec)],
                          capture_output=True, text=True, env=env, preexec_fn=limit,
                          check=False)
    if proc.returncode == 0:
        return json.loads(proc.stdout)
    if proc.returncode in (-24, 128 + 24):  # SIGXCPU: the cap
        return {"status": "timed out", "cpu_s": float(cap)}
    lines = proc.stderr.strip().splitlines()
    return {"status": "failed: " + (lines[-1] if lines else f"exit {proc.returncode}")}


def compare(old, new):
    """The comparison columns for two reports of the same cell."""
    row = {"old_status": old["status"], "new_status": new["status"],
           "old_cpu_s": old.get("cpu_s"), "new_cpu_s": new.get("cpu_s")}
    if old["status"] != "ok" or new["status"] != "ok":
        return row
    a, b = old["objective"], new["objective"]
    row.update(old_objective=a, new_objective=b)
    if a is not None and b is not None:
        row["objective_change"] = (b - a) / max(abs(a), 1e-300)
    same, overlaps = 0, []
    for k, sel in old["selected"].items():
        s_old, s_new = set(sel), set(new["selected"][k])
        same += s_old == s_new
        overlaps.append(len(s_old & s_new) / max(len(s_old), 1))
    row.update(same_counts=same, n_counts=len(overlaps), min_overlap=min(overlaps))
    return row


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}" if math.isfinite(v) else str(v)
    return str(v)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--old-src", type=Path, help="the old version's src folder")
    p.add_argument("--new-src", type=Path, default=ROOT / "src",
                   help="the new version's src folder (default: this checkout's)")
    p.add_argument("--methods", help="comma-separated registered selector names")
    p.add_argument("--datasets", help="comma-separated leaderboard data sets (default: all)")
    p.add_argument("--protocols", default="n_classes,label_free")
    p.add_argument("--cap", type=int, default=60, help="CPU seconds per fit and version")
    p.add_argument("--out", type=Path, help="CSV file for the table")
    args = p.parse_args(argv)
    if args.worker:
        _worker(json.loads(args.worker))
        return 0
    if args.old_src is None or args.methods is None:
        p.error("--old-src and --methods are required")
    for src in (args.old_src, args.new_src):
        if not (src / "ufsel" / "__init__.py").is_file():
            p.error(f"{src} holds no ufsel package")
    if not os.environ.get("UFSEL_DATA"):
        print("UFSEL_DATA is not set: the shared data sets are needed; skipped.")
        return 0
    datasets = leaderboard_datasets()
    names = args.datasets.split(",") if args.datasets else list(datasets)
    unknown = [d for d in names if d not in datasets]
    if unknown:
        p.error(f"not leaderboard data sets: {', '.join(unknown)}")
    rows = []
    print(" | ".join(FIELDS))
    for method in args.methods.split(","):
        for ds in names:
            info = datasets[ds]
            for protocol in args.protocols.split(","):
                spec = {"method": method, "name": info["name"], "counts": info["counts"],
                        "K": int(info["n_clusters"][protocol])}
                row = {"method": method, "dataset": ds, "protocol": protocol, "K": spec["K"],
                       **compare(_run(args.old_src, spec, args.cap),
                                 _run(args.new_src, spec, args.cap))}
                rows.append(row)
                print(" | ".join(_fmt(row.get(f)) for f in FIELDS), flush=True)
    if args.out:
        with open(args.out, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
