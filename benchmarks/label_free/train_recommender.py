"""Retrain the method recommender of ``ufsel select`` from benchmark results.

    OPENBLAS_CORETYPE=Haswell UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 PYTHONPATH=src \
        python benchmarks/label_free/train_recommender.py \
        [--bench-results results/my_lab/results.csv] [--out FILE.csv]

Without ``--bench-results`` the training rows are the development pool: the
leaderboard's 34 data sets (``benchmarks/results/label_free/reference_acc.csv``) and
the 22 extra ones (``benchmarks/results/label_free/pool.csv``, from ``pool.py``).
With it, the grid-mean ACC of every method at its defaults (protocol ``n_classes``)
and of the random subsets is read from a ``ufsel bench`` results table (the
``results.csv`` its run writes; its data sets must load by name with ``UFSEL_DATA``
or ``--data-dir``), and those rows are added to (or replace) the pool's. The
meta-features (:func:`ufsel.model_selection.meta_features`, no labels) are computed on
each data set once and cached. The table is written, atomically, to the file
``AutoSelector`` reads (``src/ufsel/model_selection/recommender_table.csv``) unless
``--out`` names another; pass it as ``AutoSelector(recommender=MethodRecommender(
table=read_training_table(PATH)))``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import pool as pool_mod  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "label_free"
PACKAGE_TABLE = REPO / "src" / "ufsel" / "model_selection" / "recommender_table.csv"
#: The methods of the table: those of the pool (the route's candidates and the cheap others).
METHODS = pool_mod.METHODS
SKLEARN = {"iris", "breast_cancer", "digits"}
CACHE = REPO / "results" / "label_free_pool" / "meta"


def source_of(name):
    if name in SKLEARN:
        return "sklearn"
    if name in pool_mod.extra_names():
        return pool_mod.source_of(name)
    return "mat"


def load_any(name, data_dir=None):
    """X and y of a pool data set (extra .npz, scikit-learn built-in or UFSEL_DATA name)."""
    if name in pool_mod.extra_names():
        return pool_mod.load_extra(name)
    from ufsel.datasets import load_dataset

    bunch = load_dataset(f"sklearn:{name}" if name in SKLEARN else name, data_dir=data_dir)
    X = bunch.data
    return X, np.asarray(bunch.target)


def cached_meta(name, data_dir=None, cache=CACHE):
    from ufsel.model_selection import meta_features

    path = Path(cache) / f"{name}.json"
    if path.exists():
        return json.loads(path.read_text())
    X, _ = load_any(name, data_dir)
    feats = meta_features(X, random_state=0)
    pool_mod.write_atomic(path, json.dumps(feats))
    return feats


def pool_accuracies():
    """{data set: {method: grid-mean ACC, 'random': ...}} of the development pool."""
    out = {}
    with open(RESULTS / "reference_acc.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            if r["method"] in METHODS or r["method"] == "random":
                out.setdefault(r["dataset"], {})[r["method"]] = float(r["acc"])
    path = RESULTS / "pool.csv"
    if path.exists():
        with open(path, newline="") as fh:
            for r in csv.DictReader(fh):
                cell = out.setdefault(r["dataset"], {})
                cell[r["method"]] = float(r["acc"])
                cell["random"] = float(r["random_acc"])
    return out


def bench_accuracies(results_csv):
    """The same from a ``ufsel bench`` results.csv: each method's ACC averaged over the
    counts of FSEVAL's grid it was run at."""
    out = {}
    for (ds, method), values in pool_mod.read_bench_acc(results_csv).items():
        out.setdefault(ds, {})[method] = float(np.mean(list(values.values())))
    return {ds: by for ds, by in out.items() if "random" in by}


def build_table(accs, data_dir=None, log=print):
    from ufsel.model_selection import META_FEATURES

    rows = []
    for name in sorted(accs):
        cell = accs[name]
        if "random" not in cell:
            continue
        feats = cached_meta(name, data_dir)
        log(f"{name}: " + ", ".join(f"{k}={feats[k]:.3g}" for k in META_FEATURES))
        rows.append({"dataset": name, "source": source_of(name),
                     **{k: f"{feats[k]:.6g}" for k in META_FEATURES},
                     "random_acc": f"{cell['random']:.6f}",
                     **{f"acc_{m}": (f"{cell[m]:.6f}" if m in cell else "") for m in METHODS}})
    return rows


def write_table(rows, out):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    pool_mod.write_atomic(out, buf.getvalue())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench-results", help="a `ufsel bench` results.csv to learn from")
    ap.add_argument("--data-dir", help="folder of the bench's data sets (default $UFSEL_DATA)")
    ap.add_argument("--out", default=str(PACKAGE_TABLE))
    args = ap.parse_args(argv)
    accs = pool_accuracies()
    if args.bench_results:
        accs.update(bench_accuracies(args.bench_results))
    rows = build_table(accs, args.data_dir)
    write_table(rows, args.out)
    print(f"{len(rows)} data sets written to {args.out}")


if __name__ == "__main__":
    main()
