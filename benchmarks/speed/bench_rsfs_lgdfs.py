"""Speed, memory and dense-formula agreement of RSFS and LGDFS.

1. ``usps``: each method fits USPS (9298 x 256, c = 10) in its own
   subprocess; wall time of ``fit``, its CPU time (user + system, all
   threads: what the fit costs on an idle machine, whatever else runs), the
   1-minute load average, and the subprocess's peak resident memory
   (``ru_maxrss``, the Python interpreter and the data included) are reported.
   Target: < 120 s and < 2 GB each on the 2-core machine.
2. ``reference``: on small problems the library code and a dense
   re-implementation of the papers' formulas (explicit inverses, n x n dense
   matrices, a Python loop over the local regions, the d x d inverse of
   Eq. (3) / Eq. (11) even when d > n) run for the same number of iterations
   from the same initialisation; the rankings are compared.

Run (from the repository root):
    PYTHONPATH=src UFSEL_DATA=/work/shared/data python benchmarks/speed/bench_rsfs_lgdfs.py
    PYTHONPATH=src UFSEL_DATA=/work/shared/data python benchmarks/speed/bench_rsfs_lgdfs.py --only reference
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np
from scipy import sparse
from scipy.stats import spearmanr
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances

from ufsel import LGDFS, RSFS
from ufsel.datasets import load_dataset
from ufsel.graph import determined_spectral_embedding, heat_kernel_bandwidth


# ----------------------------------------------------------------- USPS timing
def fit_one(method, max_iter):
    ds = load_dataset("usps")
    X, y = np.asarray(ds.data, dtype=np.float64), ds.target
    c = np.unique(y).size
    est = (RSFS(n_clusters=c, max_iter=max_iter, random_state=0) if method == "rsfs"
           else LGDFS(n_clusters=c, max_iter=max_iter, random_state=0))
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    secs = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    load = os.getloadavg()[0]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return {"method": method, "n": X.shape[0], "d": X.shape[1], "fit_seconds": secs,
            "fit_cpu_seconds": cpu, "load_average_1min_after": load,
            "n_iter": int(est.n_iter_), "max_iter": max_iter, "peak_rss_mb": peak_mb,
            "objective_first_last": [float(est.objective_[0]), float(est.objective_[-1])]}


def bench_usps(max_iter, methods=("rsfs", "lgdfs")):
    out = []
    for method in methods:
        cmd = [sys.executable, __file__, "--one", method, "--max-iter", str(max_iter[method])]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
        print(json.dumps(out[-1]), flush=True)
    return out


# ------------------------------------------------------ dense-formula references
def dense_rsfs(X, c, alpha, beta, gamma, nu, k, n_iter, random_state=0):
    """RSFS as printed, all dense: Eq. (3) S, Eq. (5) M, Eqs. (11), (13), (18)."""
    n, d = X.shape
    D2 = pairwise_distances(X, squared=True)
    np.fill_diagonal(D2, np.inf)
    t = heat_kernel_bandwidth(X, "mean")
    S = np.zeros((n, n))
    for i in range(n):  # Eq. (3), one row per point
        nb = np.argsort(D2[i], kind="stable")[:k]
        Kv = np.exp(-D2[i, nb] / (2 * t**2))
        S[i, nb] = Kv / Kv.sum()
    B = np.diag((S + S.T).sum(axis=1))
    M = B - S - S.T
    Mp, Mn = (np.abs(M) + M) / 2, (np.abs(M) - M) / 2
    rng = np.random.RandomState(random_state)
    # RSFS's initial F: k-means on the spectral embedding, indicator + 0.2, unit columns
    emb = determined_spectral_embedding(sparse.csr_matrix(S + S.T), min(c, n - 1),
                                        canonical=True, random_state=rng)
    labels = KMeans(c, n_init=10, random_state=rng.randint(np.iinfo(np.int32).max)).fit_predict(emb)
    F = np.full((n, c), 0.2)
    F[np.arange(n), labels] += 1.0
    F /= np.linalg.norm(F, axis=0)
    Z = np.zeros((n, c))
    Dw = np.eye(d)
    for _ in range(n_iter):
        W = np.linalg.inv(X.T @ X + beta / alpha * Dw) @ X.T @ (F - Z)  # Eq. (11)
        E = F - X @ W
        thr = gamma / (2 * alpha)
        Z = np.where(np.abs(E) <= thr, 0.0, (1 - thr / np.maximum(np.abs(E), 1e-300)) * E)  # (13)
        A = X @ W + Z
        Ap, An = (np.abs(A) + A) / 2, (np.abs(A) - A) / 2
        F = F * (Mn @ F + nu * F + alpha * Ap) / (Mp @ F + alpha * F + nu * F @ F.T @ F
                                                   + alpha * An)  # Eq. (18)
        Dw = np.diag(1 / (2 * np.sqrt((W**2).sum(axis=1) + 2.220446049250313e-16)))
    return np.linalg.norm(W, axis=1)


def dense_lgdfs(X, c, alpha, lam_g, lam_l, k, n_iter):
    """LGDFS Algorithm 1 with dense n x n Laplacians and Eq. (3) d x d solves."""
    n, d = X.shape
    z = np.full(d, 1.0 / d)
    Hn = np.eye(n) - 1.0 / n
    Hk = np.eye(k + 1) - 1.0 / (k + 1)
    Xp = X.T  # the papers' d x n
    for _ in range(n_iter):
        D2 = pairwise_distances(X * np.sqrt(z), squared=True)  # Eq. (10)
        np.fill_diagonal(D2, np.inf)
        regions = [np.r_[i, np.argsort(D2[i], kind="stable")[:k]] for i in range(n)]
        Ll = np.zeros((n, n))
        for R in regions:  # Eqs. (6)-(7)
            Xi = Xp[:, R]
            Li = Hk @ np.linalg.inv(np.eye(k + 1) + Hk @ Xi.T @ np.diag(z) @ Xi @ Hk / lam_l) @ Hk
            Ll[np.ix_(R, R)] += Li
        Lg = Hn @ np.linalg.inv(np.eye(n) + Hn @ Xp.T @ np.diag(z) @ Xp @ Hn / lam_g) @ Hn  # (5)
        w, V = np.linalg.eigh(Ll + alpha * Lg)  # Eq. (11), constant vector dropped
        V = V - V.mean(axis=0)
        keep = np.linalg.norm(V, axis=0) > 1e-6
        Y = V[:, keep][:, :c]
        Y, _ = np.linalg.qr(Y)
        wbar = np.zeros(d)
        for R in regions:  # Eq. (3) for every W_i
            Xi, Yi = Xp[:, R], Y[R]
            Wi = np.linalg.solve(Xi @ Hk @ Xi.T + lam_l * np.diag(1 / z), Xi @ Hk @ Yi)
            wbar += lam_l * (Wi**2).sum(axis=1)
        W = np.linalg.solve(Xp @ Hn @ Xp.T + lam_g * np.diag(1 / z), Xp @ Hn @ Y)
        wbar += alpha * lam_g * (W**2).sum(axis=1)
        z = np.sqrt(wbar) / np.sqrt(wbar).sum()  # Eq. (14)
    return z


def compare(name, fast, ref, top=(10, 50)):
    rf, rr = np.argsort(-fast, kind="stable"), np.argsort(-ref, kind="stable")
    out = {"case": name, "spearman": float(spearmanr(fast, ref)[0]),
           "max_rel_score_diff": float(np.max(np.abs(fast - ref)) / np.max(np.abs(ref))),
           "identical_ranking": bool(np.array_equal(rf, rr))}
    for t in top:
        out[f"top{t}_overlap"] = len(set(rf[:t]) & set(rr[:t])) / t
    print(json.dumps(out), flush=True)
    return out


def bench_reference():
    res = []
    usps = load_dataset("usps")
    Xu = np.asarray(usps.data, dtype=np.float64)
    sub = np.random.RandomState(0).choice(Xu.shape[0], 300, replace=False)
    Xs, cs = Xu[sub], 10
    orl = load_dataset("orl")
    Xo = np.asarray(orl.data, dtype=np.float64)[::4] / 255.0  # 100 x 1024: d > n
    n_iter = 15
    for name, X, c in (("usps300 (d<n)", Xs, cs), ("orl100 (d>n)", Xo, 10)):
        params = dict(alpha=1.0, beta=1.0, gamma=1.0, nu=10.0)
        fast = RSFS(n_clusters=c, max_iter=n_iter, tol=0.0, random_state=0, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fast.fit(X)
        ref = dense_rsfs(X, c, k=5, n_iter=n_iter, random_state=0, **params)
        res.append(compare(f"RSFS {name}", fast.scores_, ref))
        lg = LGDFS(n_clusters=c, alpha=1.0, lambda_global=1.0, lambda_local=1.0,
                   max_iter=n_iter, tol=0.0, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            lg.fit(X)
        zr = dense_lgdfs(X, c, 1.0, 1.0, 1.0, 5, n_iter)
        res.append(compare(f"LGDFS {name}", lg.scores_, zr))
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=["usps", "reference"])
    p.add_argument("--methods", nargs="+", default=["rsfs", "lgdfs"])
    p.add_argument("--one", choices=["rsfs", "lgdfs"], help=argparse.SUPPRESS)
    p.add_argument("--max-iter", type=int, default=None)
    p.add_argument("--rsfs-max-iter", type=int, default=100)
    p.add_argument("--lgdfs-max-iter", type=int, default=30)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(fit_one(args.one, args.max_iter)))
        return
    report = {}
    if args.only in (None, "usps"):
        report["usps"] = bench_usps({"rsfs": args.rsfs_max_iter, "lgdfs": args.lgdfs_max_iter},
                                    args.methods)
    if args.only in (None, "reference"):
        report["reference"] = bench_reference()
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
