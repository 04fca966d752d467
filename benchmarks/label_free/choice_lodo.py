"""Which way of choosing the method wins, leave-one-data-set-out over the 56-set pool.

    OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 PYTHONPATH=src \
        python benchmarks/label_free/choice_lodo.py [--table FILE.csv]

Each data set is held out in turn; every strategy learns from the other 55 only (their
meta-features and each method's grid-mean ACC against random subsets, labels of the
held-out set never seen) and picks a method for the held-out set, which is then judged
by its own table row: does the picked method's grid-mean ACC beat the random subsets',
and how far is it below the best method chosen with the labels. Strategies:

* ``oracle``: the best method chosen with the held-out set's labels (the ceiling);
* ``fixed``: the method with the largest mean gain over the training sets;
* ``knn-K``: the nearest K data sets by standardised meta-features, weighted
  ``1 / (distance + 0.1)``, the largest weighted mean gain;
* ``knn-borda-K``: the same neighbours, the largest weighted Borda count (the rank of
  each method on each neighbour);
* ``pairwise-K``: the same neighbours, the most weighted pairwise wins;
* ``gbm``: one small gradient-boosted regressor per method (scikit-learn), gain from
  the meta-features, the largest prediction.

The table printed is the rate of beating random (overall and per source) and the mean
gap, per strategy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _weights(rec, features):
    idx, dist = rec.neighbours(features)
    return idx, 1.0 / (dist + 0.1)


def choose(strategy, train, held, methods):
    from ufsel.model_selection import META_FEATURES, MethodRecommender

    if strategy == "oracle":  # chosen with the held-out set's labels: the ceiling
        return max(sorted(m for m in methods if m in held["acc"]), key=held["acc"].get)
    if strategy == "fixed":
        gains = {m: np.mean([r["acc"][m] - r["random"] for r in train if m in r["acc"]])
                 for m in methods}
        return max(sorted(gains), key=gains.get)
    if strategy == "gbm":
        from sklearn.ensemble import GradientBoostingRegressor

        preds = {}
        f = np.array([[held[k] for k in META_FEATURES]])
        for m in methods:
            rows = [r for r in train if m in r["acc"]]
            F = np.array([[r[k] for k in META_FEATURES] for r in rows])
            g = np.array([r["acc"][m] - r["random"] for r in rows])
            model = GradientBoostingRegressor(n_estimators=100, max_depth=2, learning_rate=0.05,
                                              subsample=1.0, random_state=0).fit(F, g)
            preds[m] = float(model.predict(f)[0])
        return max(sorted(preds), key=preds.get)
    kind, _, k = strategy.rpartition("-")
    rec = MethodRecommender(methods, n_neighbors=int(k), table=train)
    if kind == "knn":
        return rec.recommend(held).method
    idx, w = _weights(rec, held)
    score = {m: 0.0 for m in methods}
    for i, wi in zip(idx, w):
        acc = train[i]["acc"]
        have = [m for m in methods if m in acc]
        for m in have:
            if kind == "knn-borda":
                score[m] += wi * sum(acc[m] > acc[o] for o in have) / max(1, len(have) - 1)
            else:  # pairwise: wins against each other method, ties half
                score[m] += wi * sum((acc[m] > acc[o]) + 0.5 * (acc[m] == acc[o])
                                     for o in have if o != m)
    return max(sorted(score), key=score.get)


def evaluate(table, strategies, methods):
    out = {s: [] for s in strategies}
    for i, held in enumerate(table):
        train = table[:i] + table[i + 1:]
        acc = {m: held["acc"][m] for m in methods if m in held["acc"]}
        best = max(acc.values())
        for s in strategies:
            m = choose(s, train, held, methods)
            got = acc.get(m, held["random"])  # a method without a result counts as random
            out[s].append({"dataset": held["dataset"], "source": held["source"], "method": m,
                           "beats": got > held["random"], "gap": best - got})
    return out


def report(out):
    sources = sorted({r["source"] for rows in out.values() for r in rows})
    head = ["strategy", "beats random", *sources, "mean gap (ACC points)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for s, rows in out.items():
        cells = [s, f"{sum(r['beats'] for r in rows)} of {len(rows)}"]
        for src in sources:
            sub = [r for r in rows if r["source"] == src]
            cells.append(f"{sum(r['beats'] for r in sub)}/{len(sub)}")
        cells.append(f"{100 * np.mean([r['gap'] for r in rows]):.1f}")
        print("| " + " | ".join(cells) + " |")


STRATEGIES = ("oracle", "fixed", "knn-3", "knn-5", "knn-7", "knn-10", "knn-borda-5", "knn-borda-10",
              "pairwise-5", "pairwise-10", "gbm")


def main(argv=None):
    from ufsel.model_selection import read_training_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", default=None, help="training table (default: the shipped one)")
    ap.add_argument("--methods", default=None)
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    args = ap.parse_args(argv)
    table = read_training_table(args.table)
    methods = (args.methods.split(",") if args.methods
               else sorted({m for r in table for m in r["acc"]}))
    out = evaluate(table, args.strategies.split(","), methods)
    print(f"{len(table)} data sets, methods {', '.join(methods)}\n")
    report(out)
    return out


if __name__ == "__main__":
    main()
