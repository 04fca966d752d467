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
4. the data's scale: the same on standardised columns;
5. the alternation: z after one iteration (``max_iter=1``: the regions and Y
   of the unweighted data) against z at convergence, and how well the final
   embedding Y itself clusters (NMI of k-means on ``embedding_``);
6. redundancy: the mean absolute correlation between the selected features
   (z scores every feature on its own, so correlated features rise together);
7. the region size: ``n_neighbors=4`` (the paper's k = 5 counts the sample);
8. the two terms of the z-step (Eq. 14): after the first iteration, z split
   into its local part ``sum_i lambda_i ||(W_i)_j||^2`` and its global part
   ``alpha lambda ||W_j||^2``; the top features of each part alone, and the
   share of the local part; beside them the limit lambda -> infinity of the
   global term, ``||x_j^T H Y||`` (each feature's covariance with the same
   Y, no joint regression) (``--decomposition-only`` runs just this).

Evaluation: k-means with the number of classes, 10 runs with random starts
(the papers' protocol), mean NMI (max normalisation) and ACC; random subsets:
10 draws.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import normalized_mutual_info_score
from sklearn.preprocessing import StandardScaler

from ufsel import LGDFS, LaplacianScore, MaxVariance
from ufsel.datasets import load_dataset
from ufsel.evaluation import evaluate_selection
from ufsel.graph import local_regions, weighted_knn_graph
from ufsel.selectors.sparse_regression._lgdfs import (  # private: needs public API
    lgdfs_regression_norms,  # private: needs public API
)


def score(X, y, sel):
    r = evaluate_selection(X, y, np.sort(sel), n_runs=10, random_state=0, loo=False)
    return r["nmi_mean"], r["acc_mean"]


def mean_abs_corr(X, sel):
    """Mean absolute Pearson correlation over the pairs of selected features."""
    r = np.corrcoef(X[:, sel], rowvar=False)
    return float(np.abs(r[np.triu_indices_from(r, 1)]).mean())


def embedding_nmi(Y, y):
    """NMI (max normalisation) of k-means with the number of classes on an embedding."""
    lab = KMeans(np.unique(y).size, n_init=10, random_state=0).fit_predict(Y)
    return normalized_mutual_info_score(y, lab, average_method="max")


def decomposition(X, y, m, c):
    """Eq. (14)'s local and global terms after one iteration, each ranked on its own."""
    est = LGDFS(m, n_clusters=c, max_iter=1, random_state=0).fit(X)
    z0 = np.full(X.shape[1], 1.0 / X.shape[1])
    _, ind = weighted_knn_graph(X, est.n_neighbors, z0, random_state=0)
    regions = local_regions(ind)
    args = (X, est.embedding_, z0, regions)
    both, _ = lgdfs_regression_norms(*args, est.alpha, est.lambda_global, est.lambda_local)
    local, _ = lgdfs_regression_norms(*args, 0.0, est.lambda_global, est.lambda_local)
    glob = both - local
    z = np.sqrt(both) / np.sqrt(both).sum()
    print(f"Eq. (14) after one iteration (defaults): z reproduced to "
          f"{np.abs(z - est.feature_weights_).max():.1e}; local share of sum ||W_bar_j||^2 "
          f"{local.sum() / both.sum():.3f}; rank correlation of the two terms "
          f"{np.corrcoef(np.argsort(np.argsort(local)), np.argsort(np.argsort(glob)))[0, 1]:.2f}")
    Xc = X - X.mean(axis=0)
    cov = np.sum((Xc.T @ (est.embedding_ - est.embedding_.mean(axis=0))) ** 2, axis=1)
    for label, part in (("local term only", local), ("global term only", glob),
                        ("both (LGDFS, max_iter=1)", both),
                        ("||x_j^T H Y||^2 (lambda -> inf)", cov)):
        sel = np.argsort(-part, kind="stable")[:m]
        nmi, acc = score(X, y, sel)
        print(f"  top {m} by the {label:32s} NMI {100 * nmi:5.1f}   ACC {100 * acc:5.1f}",
              flush=True)


def main(argv=None):
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="isolet")
    ap.add_argument("--n-features", type=int, default=30)
    ap.add_argument("--decomposition-only", action="store_true")
    args = ap.parse_args(argv)
    b = load_dataset(args.dataset)
    X, y = np.asarray(b.data, dtype=float), np.asarray(b.target)
    c, m = np.unique(y).size, args.n_features
    if args.decomposition_only:
        return decomposition(X, y, m, c)
    var = X.var(axis=0)
    var_rank = np.argsort(np.argsort(-var, kind="stable"), kind="stable")  # 0 = largest
    print(f"{args.dataset}: n={X.shape[0]} d={X.shape[1]} classes={c}; {m} features; "
          f"NMI / ACC in %, k-means 10 random starts")
    draws = [np.random.RandomState(s).choice(X.shape[1], m, replace=False) for s in range(10)]
    rn = np.array([score(X, y, sel) for sel in draws])
    rc = np.mean([mean_abs_corr(X, sel) for sel in draws])
    print(f"{'random (10 draws)':38s} NMI {100 * rn[:, 0].mean():5.1f} +- "
          f"{100 * rn[:, 0].std():.1f}   ACC {100 * rn[:, 1].mean():5.1f} | mean |r| {rc:.2f}")
    for name, est in (("MaxVariance", MaxVariance(m)), ("LaplacianScore", LaplacianScore(m))):
        sel = np.flatnonzero(est.fit(X).get_support())
        nmi, acc = score(X, y, sel)
        print(f"{name:38s} NMI {100 * nmi:5.1f}          ACC {100 * acc:5.1f} | "
              f"mean |r| {mean_abs_corr(X, sel):.2f}")
    settings = [("defaults", {}, False), ("defaults, max_iter=1", {"max_iter": 1}, False),
                ("defaults, n_neighbors=4 (paper's k=5)", {"n_neighbors": 4}, False),
                ("defaults, standardised X", {}, True)]
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
              f"{X.shape[1]}, mean |r| {mean_abs_corr(X, sel):.2f}, NMI of k-means on Y "
              f"{100 * embedding_nmi(est.embedding_, y):.1f} | {el:.0f} s", flush=True)
    decomposition(X, y, m, c)


if __name__ == "__main__":
    main()
