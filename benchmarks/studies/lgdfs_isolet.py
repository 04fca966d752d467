"""Why LGDFS's 30 Isolet features lose to random subsets: a diagnosis.

    UFSEL_DATA=/path/to/shared/data PYTHONPATH=src OMP_NUM_THREADS=1 \
        python benchmarks/studies/lgdfs_isolet.py [--n-features 30] [--dataset isolet]

At its defaults (alpha = lambda = lambda_i = 1, k = 5, c = the number of
classes) LGDFS's 30 Isolet features give a k-means NMI below that of random
subsets of 30 features. The LGDFS paper (ICDM 2013) does not use Isolet; it
tunes alpha, lambda and lambda_i over {0.01, 0.1, 1, 10, 100} with the labels.
This script separates the possible causes:

1. the parameters: the paper's grid values 0.01, 1, 100 for alpha and for
   lambda = lambda_i (9 fits);
2. the iterations: the objective trace (monotone?) and ``n_iter_``;
3. the feature weights z: how concentrated they are (the effective number of
   features ``1 / sum z_j^2``) and whether the top 30 are high- or
   low-variance features;
4. the data's scale: the same on standardised columns.

Evaluation: k-means with the number of classes, 10 runs with random starts
(the papers' protocol), mean NMI (max normalisation) and ACC; random subsets:
10 draws.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from ufsel import LGDFS, LaplacianScore, MaxVariance
from ufsel.datasets import load_dataset
from ufsel.evaluation import evaluate_selection


def score(X, y, sel):
    r = evaluate_selection(X, y, np.sort(sel), n_runs=10, random_state=0, loo=False)
    return r["nmi_mean"], r["acc_mean"]


def main(argv=None):
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="isolet")
    ap.add_argument("--n-features", type=int, default=30)
    args = ap.parse_args(argv)
    b = load_dataset(args.dataset)
    X, y = np.asarray(b.data, dtype=float), np.asarray(b.target)
    c, m = np.unique(y).size, args.n_features
    var = X.var(axis=0)
    var_rank = np.argsort(np.argsort(-var, kind="stable"), kind="stable")  # 0 = largest
    print(f"{args.dataset}: n={X.shape[0]} d={X.shape[1]} classes={c}; {m} features; "
          f"NMI / ACC in %, k-means 10 random starts")
    rnd = [score(X, y, np.random.RandomState(s).choice(X.shape[1], m, replace=False))
           for s in range(10)]
    rn = np.array(rnd)
    print(f"{'random (10 draws)':38s} NMI {100 * rn[:, 0].mean():5.1f} +- "
          f"{100 * rn[:, 0].std():.1f}   ACC {100 * rn[:, 1].mean():5.1f}")
    for name, est in (("MaxVariance", MaxVariance(m)), ("LaplacianScore", LaplacianScore(m))):
        sel = np.flatnonzero(est.fit(X).get_support())
        nmi, acc = score(X, y, sel)
        print(f"{name:38s} NMI {100 * nmi:5.1f}          ACC {100 * acc:5.1f}")
    settings = [("defaults", {}, False), ("defaults, standardised X", {}, True)]
    settings += [(f"alpha={a:g} lambda=lambda_i={lam:g}",
                  dict(alpha=a, lambda_global=lam, lambda_local=lam), False)
                 for a in (0.01, 1.0, 100.0) for lam in (0.01, 1.0, 100.0)
                 if not (a == 1.0 and lam == 1.0)]
    for label, params, std in settings:
        Xf = StandardScaler().fit_transform(X) if std else X
        t0 = time.perf_counter()
        est = LGDFS(m, n_clusters=c, random_state=0, **params).fit(Xf)
        el = time.perf_counter() - t0
        sel = np.flatnonzero(est.get_support())
        nmi, acc = score(X, y, sel)
        z = est.feature_weights_
        obj = np.asarray(est.objective_)
        rises = int(np.sum(np.diff(obj) > 1e-9 * np.abs(obj[:-1]).max())) if obj.size > 1 else 0
        print(f"{label:38s} NMI {100 * nmi:5.1f}          ACC {100 * acc:5.1f} | "
              f"n_iter {est.n_iter_:2d}, objective rises {rises}, "
              f"effective #features 1/sum z^2 = {1 / np.sum(z ** 2):6.1f}, "
              f"median variance rank of the top {m}: {int(np.median(var_rank[sel]))} of "
              f"{X.shape[1]} | {el:.0f} s", flush=True)


if __name__ == "__main__":
    main()
