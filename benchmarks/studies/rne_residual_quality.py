"""RNE clustering quality: the two residual forms on many data sets, against random subsets.

RNE's objective is ``||A H||_1`` with A the LLE residual matrix. ufsel offers
two forms (``RNE(residual=...)``): ``"reconstruction"``, ``A = (I - W) X``
(row i the LLE reconstruction error of sample i, the form the paper's
notation describes), and ``"transposed"``, ``A = (I - W^T) X`` (what the
authors' ``RNE_obj.m`` computes). This script fits RNE with each form on each
data set (as given, or after a preprocessing), for each feature count, and
scores every selection with ``ufsel.evaluation`` (k-means ACC / NMI) on the
*raw* columns, next to random subsets of the same size.

Rows are appended to a CSV as they are computed (``--out``; a rerun skips the
rows already there), and a summary per form is printed at the end: mean ACC /
NMI over all (data set, count) cells, the number of cells each form wins,
and the mean margin over random subsets.

Usage::

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \\
        python benchmarks/studies/rne_residual_quality.py --datasets jaffe orl coil20 \\
        [--n-features 50 100] [--residual reconstruction transposed] \\
        [--preprocess none] [--out benchmarks/results/rne_residual_quality.csv]
"""

from __future__ import annotations

import argparse
import csv
import os
import time
import warnings

import numpy as np
from sklearn.preprocessing import MinMaxScaler, StandardScaler, normalize

from ufsel import RNE
from ufsel.datasets import load_dataset
from ufsel.evaluation import evaluate_selection

PREPROCESS = {
    "none": lambda X: X,
    "l2_rows": normalize,  # demo_RNE.m: NormalizeFea(X, 1), samples to unit norm
    "standardize": lambda X: StandardScaler().fit_transform(X),
    "minmax": lambda X: MinMaxScaler().fit_transform(X),
    "unit_columns": lambda X: normalize(X, axis=0),  # features to unit l2 norm
}
#: Data sets of the evidence table: every shared set with 200 <= d <= 1100
#: and at least 3 classes (RNE's d x d products make the high-dimensional
#: microarray sets minutes per fit).
DEFAULT_DATASETS = ["jaffe", "orl", "yale", "imm40", "coil20", "umist", "isolet", "usps",
                    "palm", "lung_discrete", "mnist4k"]
FIELDS = ["dataset", "preprocess", "selection", "n_features", "acc", "nmi", "fit_s"]  # fit_s: s/iters


def _read_done(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _append(path, row):
    if not path:
        return
    new = not os.path.exists(path)
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow(row)
        fh.flush()
        os.fsync(fh.fileno())


def summarise(rows, residuals):
    """Mean ACC / NMI per selection, cells won, and mean margin over random subsets."""
    cells = {}
    for r in rows:
        key = (r["dataset"], r["preprocess"], int(r["n_features"]))
        cells.setdefault(key, {})[r["selection"]] = (float(r["acc"]), float(r["nmi"]))
    full = {k: v for k, v in cells.items() if all(f"rne:{s}" in v for s in residuals)}
    lines = [f"{len(full)} cells (data set x preprocessing x count) with every form"]
    for metric, j in (("ACC", 0), ("NMI", 1)):
        for s in residuals:
            vals = [v[f"rne:{s}"][j] for v in full.values()]
            wins = sum(v[f"rne:{s}"][j] >= max(v[f"rne:{o}"][j] for o in residuals)
                       for v in full.values())
            marg = [v[f"rne:{s}"][j] - v["random"][j] for v in full.values() if "random" in v]
            lines.append(f"{metric} {s:15s} mean {np.mean(vals):.3f}  best in {wins}/{len(full)}"
                         f"  mean margin over random {np.mean(marg) if marg else float('nan'):+.3f}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=DEFAULT_DATASETS)
    p.add_argument("--n-features", type=int, nargs="+", default=[50, 100])
    p.add_argument("--residual", nargs="+", default=["reconstruction", "transposed"],
                   choices=["reconstruction", "transposed"])
    p.add_argument("--preprocess", nargs="+", default=["none"], choices=list(PREPROCESS))
    p.add_argument("--n-neighbors", type=int, default=5)
    p.add_argument("--tol", type=float, default=None,
                   help="RNE's stopping tolerance (default: the estimator's; 0 runs max_iter "
                        "outer iterations, as the reference code always does)")
    p.add_argument("--n-random", type=int, default=5, help="random subsets per count")
    p.add_argument("--n-runs", type=int, default=10, help="k-means runs per evaluation")
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--out", default=None, help="CSV to append rows to (resumable)")
    p.add_argument("--markdown", default=None, help="write the evidence table (Markdown) here")
    args = p.parse_args(argv)

    done = _read_done(args.out)
    have = {(r["dataset"], r["preprocess"], r["selection"], int(r["n_features"])) for r in done}
    rows = list(done)
    print(f"{'data set':14s} {'prep':6s} {'selection':22s} {'k':>4s} {'ACC':>6s} {'NMI':>6s} "
          f"{'fit_s':>6s}", flush=True)

    def emit(row):
        rows.append(row)
        _append(args.out, row)
        print(f"{row['dataset']:14s} {row['preprocess']:6s} {row['selection']:22s} "
              f"{row['n_features']:4d} {row['acc']:6.3f} {row['nmi']:6.3f} {row['fit_s']:>6}",
              flush=True)

    for name in args.datasets:
        data = load_dataset(name)
        X, y = np.asarray(data.data, dtype=np.float64), data.target
        c = len(np.unique(y))
        counts = [k for k in args.n_features if k < X.shape[1]]

        def score(selected, X=X, y=y, c=c):
            r = evaluate_selection(X, y, selected, n_clusters=c, n_runs=args.n_runs,
                                   random_state=args.random_state, loo=False)
            return float(r["acc_mean"]), float(r["nmi_mean"])

        rng = np.random.RandomState(args.random_state)
        for k in counts if args.n_random else ():
            draws = [rng.choice(X.shape[1], k, replace=False) for _ in range(args.n_random)]
            if (name, "-", "random", k) in have:
                continue
            res = np.array([score(s) for s in draws])
            emit(dict(dataset=name, preprocess="-", selection="random", n_features=k,
                      acc=res[:, 0].mean(), nmi=res[:, 1].mean(), fit_s="-"))
        for prep in args.preprocess:
            Xp = PREPROCESS[prep](X)
            for residual in args.residual:
                for k in counts:
                    if (name, prep, f"rne:{residual}", k) in have:
                        continue
                    kw = {} if args.tol is None else {"tol": args.tol}
                    est = RNE(k, n_neighbors=args.n_neighbors, residual=residual,
                              random_state=args.random_state, **kw)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        t0 = time.perf_counter()
                        est.fit(Xp)
                        dt = time.perf_counter() - t0
                    acc, nmi = score(np.flatnonzero(est.get_support()))
                    emit(dict(dataset=name, preprocess=prep, selection=f"rne:{residual}",
                              n_features=k, acc=acc, nmi=nmi, fit_s=f"{dt:.1f}/{est.n_iter_}"))
    # random rows have preprocess "-": compare them with every preprocessing
    expanded = []
    for r in rows:
        if r["selection"] == "random":
            expanded += [{**r, "preprocess": prep} for prep in args.preprocess]
        else:
            expanded.append(r)
    chosen = [r for r in expanded if r["dataset"] in args.datasets]
    print()
    print(summarise(chosen, args.residual))
    if args.markdown:
        write_markdown(args.markdown, chosen, args)


def write_markdown(path, rows, args):
    """Per (data set, count): ACC / NMI of random subsets and of each residual form."""
    cells = {}
    for r in rows:
        key = (r["dataset"], r["preprocess"], int(r["n_features"]))
        cells.setdefault(key, {})[r["selection"]] = r
    sel = ["random"] + [f"rne:{s}" for s in args.residual]
    head = " | ".join(f"{s} ACC | {s} NMI" for s in sel)
    lines = ["| data set | prep | k | " + head + " |",
             "|---|---|---|" + "---|---|" * len(sel)]
    for (d, prep, k), v in sorted(cells.items()):
        vals = " | ".join(
            f"{float(v[s]['acc']):.3f} | {float(v[s]['nmi']):.3f}" if s in v else "- | -"
            for s in sel)
        lines.append(f"| {d} | {prep} | {k} | {vals} |")
    lines += ["", "```", summarise(rows, args.residual), "```", ""]
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(lines))
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
