"""UFSA paper, Table 2, JAFFE and UMIST rows: k-means ACC of UFSA's selection, paper vs ufsel.

    UFSEL_DATA=/path/to/shared/data PYTHONPATH=src python benchmarks/reproductions/ufsa_table2.py \
        [--out benchmarks/results/ufsa_table2.md]

Protocol of the paper (Yan, Wang 2018, section 4.2): k = 15 neighbours, every
parameter searched over {1e-9, 1e-6, 1e-3, 1, 1e3, 1e6, 1e9}, k-means run 20
times on the selected features, ACC with the Kuhn-Munkres mapping, each
experiment repeated 5 times, the best mean reported, with the number of
selected features in parentheses (UMIST 100, JAFFE 900).

What this script does differently, to fit about 10 minutes of CPU:

- grid: alpha, gamma in {1e-3, 1, 1e3}, the middle of the paper's range, in
  the design of the paper's sensitivity study (Fig. 2: one parameter fixed
  at 1, the other varied), 5 fits per data set (``--design full`` runs all
  9 pairs, ``--grid`` changes the values);
- one UFSA fit per grid point (random_state=0) instead of 5 repeats; the
  ``+-`` printed for ufsel is the standard deviation over the 20 k-means runs,
  the paper's is over its 5 repeats;
- the feature counts are the paper's Table 2 counts (UMIST 100, JAFFE 900),
  not a sweep over Table 1's counts.

The paper's figures are copied from its Table 2 (UFSA column, and the
all-features baseline for reference).

``--protocol-check`` looks for an evaluation protocol under which the paper's
figure could arise: it fits UFSA once per data set (alpha = gamma = 1, k = 15)
and evaluates its top-k features (the Table 2 count), all features and 5
random subsets of the same size under four preprocessings of the selected
columns (none, min-max per feature, z-score per feature, unit-norm rows) and
four ways of reporting k-means over 20 runs (random starts: mean; k-means++:
mean, the run of lowest objective, the best run's ACC).

``--factors`` (with ``--datasets jaffe``) starts from ufsel's reading of the paper
(raw pixels, alpha = gamma = 1, k = 15, the Table 2 count, mean of 20 random-start
k-means runs) and changes one factor at a time: (1) the preprocessing, before UFSA
and k-means alike; (2) alpha, gamma over the paper's range {1e-9, ..., 1e9} (cross
design, each fit cut to ``GRID_BUDGET``) and lambda held fixed; (3) the count, best
and mean over Table 1's counts; (4) the k-means report; (5) the number of outer
iterations; (6) all features, random subsets and a supervised bound (the pixels of
highest ANOVA F against the labels) under the same reading; (7) clustering UFSA's
own outputs (F, the graph S) instead of its pixels; and UFSA's top 30 against random
30-subsets. Every row gives ACC and NMI (%) of UFSA's selection, all features and
the mean of random subsets of the same size. A few minutes of CPU on JAFFE.

``--row-space`` measures how much of UFSA's W lies in the row space of the data
(``row_space_share``): on JAFFE (d > n) almost none of it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import SpectralClustering
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import f_classif
from sklearn.preprocessing import minmax_scale, normalize, scale

from ufsel import UFSA
from ufsel.datasets import load_dataset
from ufsel.evaluation import evaluate_clustering, evaluate_selection
from ufsel.metrics import clustering_accuracy, normalized_mutual_info

#: Table 2 of the paper: (number of features, UFSA ACC %, its +-, all-features ACC %).
PAPER = {
    "jaffe": (900, 96.71, 0.00, 72.82),
    "umist": (100, 47.94, 1.42, 41.23),
}
DEFAULT_GRID = (1e-3, 1.0, 1e3)


def grid_pairs(grid, design):
    """``"full"``: every (alpha, gamma); ``"cross"``: the paper's Fig. 2 design, one
    parameter at 1 and the other over the grid."""
    if design == "full":
        return [(a, g) for a in grid for g in grid]
    pairs = [(a, 1.0) for a in grid] + [(1.0, g) for g in grid]
    return list(dict.fromkeys(pairs))


def run(name, pairs, n_runs):
    k_feat, *_ = PAPER[name]
    b = load_dataset(name)
    X, y = b.data, b.target
    c = np.unique(y).size
    rows = []
    for alpha, gamma in pairs:
        sel = UFSA(k_feat, n_clusters=c, alpha=alpha, gamma=gamma, n_neighbors=15,
                   random_state=0)
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            sel.fit(X)
        wall = time.perf_counter() - t0
        res = evaluate_selection(X, y, np.flatnonzero(sel.get_support()), n_runs=n_runs,
                                 loo=False)
        rows.append(dict(alpha=alpha, gamma=gamma, acc=res["acc_mean"],
                         acc_std=res["acc_std"], nmi=res["nmi_mean"], wall=wall,
                         n_iter=sel.n_iter_, converged=not any(
                             "did not converge" in str(w.message) for w in caught),
                         w_steps_converged=bool(sel.w_step_converged_.all())))
        print(f"  {name} alpha={alpha:g} gamma={gamma:g}: ACC {100 * res['acc_mean']:.2f} "
              f"+- {100 * res['acc_std']:.2f}  fit {wall:.1f} s, {sel.n_iter_} iterations, "
              f"converged={rows[-1]['converged']} (all W-steps met w_tol: "
              f"{rows[-1]['w_steps_converged']})", flush=True)
    base = evaluate_selection(X, y, np.arange(X.shape[1]), n_runs=n_runs, loo=False)
    return X.shape, c, rows, base


PREPROCESSINGS = {
    "none": lambda Z: Z,
    "min-max": minmax_scale,
    "z-score": scale,
    "unit-norm rows": normalize,
}
REPORTS = ("random starts, mean", "k-means++, mean", "k-means++, lowest objective",
           "k-means++, best run")


def _reports(Z, y, n_runs):
    """ACC % of k-means on Z under each of ``REPORTS``."""
    rnd = evaluate_clustering(Z, y, n_runs=n_runs, init="random")
    pp = evaluate_clustering(Z, y, n_runs=n_runs, init="k-means++", report="best_objective")
    return [100 * rnd["acc_mean"], 100 * pp["acc_mean"], 100 * pp["acc_best_objective"],
            100 * float(np.max(pp["acc_runs"]))]


def protocol_check(name, n_runs, n_random=5):
    """Markdown rows: ACC % of UFSA's top-k, all features and random k-subsets under
    every preprocessing and k-means report (k = the paper's Table 2 count)."""
    k_feat, p_acc, _, p_all = PAPER[name]
    b = load_dataset(name)
    X, y = np.asarray(b.data, dtype=np.float64), b.target
    d = X.shape[1]
    sel = UFSA(k_feat, n_clusters=np.unique(y).size, n_neighbors=15, random_state=0).fit(X)
    subsets = {f"UFSA top {k_feat}": np.flatnonzero(sel.get_support()),
               "all features": np.arange(d),
               **{f"random {k_feat} ({i})": cols
                  for i, cols in enumerate(random_subsets(d, k_feat, n_random))}}
    rows = []
    for prep_name, prep in PREPROCESSINGS.items():
        acc = {s: _reports(prep(X[:, cols]), y, n_runs) for s, cols in subsets.items()}
        rand = np.mean([v for s, v in acc.items() if s.startswith("random")], axis=0)
        for label, vals in ((f"UFSA top {k_feat}", acc[f"UFSA top {k_feat}"]),
                            (f"random {k_feat} (mean of {n_random})", rand),
                            ("all features", acc["all features"])):
            rows.append(f"| {name} | {prep_name} | {label} | "
                        + " | ".join(f"{v:.1f}" for v in vals) + " |")
        print(f"  {name} {prep_name} done", flush=True)
    head = (f"Paper: UFSA {p_acc:.2f} % with {k_feat} features, all features {p_all:.2f} %.")
    return head, rows


# --- --factors: the paper's protocol, one factor at a time --------------------------------

#: What section 4.2 and Table 1 of the paper give: the counts searched per data set and
#: the values every parameter was searched over.
PAPER_COUNTS = {"jaffe": tuple(range(100, 1000, 100)), "umist": tuple(range(100, 700, 100))}
PAPER_GRID = (1e-9, 1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9)
#: Readings of "k-means run 20 times, every experiment repeated 5 times" (section 4.2).
KMEANS_READINGS = {
    "mean": "random starts, mean of the runs",
    "5 repeats": "random starts, mean of the runs, over 5 k-means seeds (+- over the seeds)",
    "k-means++": "k-means++ starts, mean of the runs",
    "lowest objective": "k-means++ starts, the run of lowest objective",
    "best run": "random starts, the run of highest ACC",
}
#: Preprocessings of the pixels, applied before UFSA and before k-means alike.
FACTOR_PREPROCESSINGS = {
    "x / 255 (pixels in [0, 1])": lambda Z: Z / 255.0,
    "min-max per feature": PREPROCESSINGS["min-max"],
    "z-score per feature": PREPROCESSINGS["z-score"],
    "unit-norm samples": PREPROCESSINGS["unit-norm rows"],
}
N_RANDOM = 5
#: Iteration budget of each grid fit in --factors: at the ends of the paper's range UFSA
#: runs to max_iter=300 and its W-steps to w_max_iter=1000 (minutes per fit); factor (5)
#: shows what the number of outer iterations changes at alpha = gamma = 1.
GRID_BUDGET = {"max_iter": 10, "w_max_iter": 200}


def kmeans_scores(Z, y, reading="mean", n_runs=20):
    """``(ACC %, NMI %, ACC's +-)`` of k-means on Z under one of ``KMEANS_READINGS``; the
    +- is over the runs, over the 5 seeds' means for ``"5 repeats"`` (the paper's +-),
    NaN for a single run."""
    if reading == "5 repeats":
        runs = [evaluate_clustering(Z, y, n_runs=n_runs, random_state=s) for s in range(5)]
        acc = [r["acc_mean"] for r in runs]
        return 100 * np.mean(acc), 100 * np.mean([r["nmi_mean"] for r in runs]), 100 * np.std(acc)
    if reading in ("k-means++", "lowest objective"):
        r = evaluate_clustering(Z, y, n_runs=n_runs, init="k-means++", report="best_objective")
        if reading == "lowest objective":
            return 100 * r["acc_best_objective"], 100 * r["nmi_best_objective"], np.nan
        return 100 * r["acc_mean"], 100 * r["nmi_mean"], 100 * r["acc_std"]
    r = evaluate_clustering(Z, y, n_runs=n_runs, init="random")
    if reading == "best run":
        best = int(np.argmax(r["acc_runs"]))
        return 100 * r["acc_runs"][best], 100 * r["nmi_runs"][best], np.nan
    return 100 * r["acc_mean"], 100 * r["nmi_mean"], 100 * r["acc_std"]


def random_subsets(d, k, n=N_RANDOM):
    """``n`` random k-subsets of ``range(d)``, the same ones for every call."""
    rng = np.random.default_rng(0)
    return [np.sort(rng.permutation(d)[:k]) for _ in range(n)]


def compare(Z, y, selected, reading="mean", n_runs=20, n_random=N_RANDOM):
    """Scores of UFSA's columns ``selected`` of Z, of all columns and of ``n_random``
    random subsets of the same size (their mean), under one k-means reading."""
    rand = [kmeans_scores(Z[:, cols], y, reading, n_runs)
            for cols in random_subsets(Z.shape[1], selected.size, n_random)]
    rand = np.array(rand)
    # the random subsets' +- is over the subsets
    return dict(ufsa=kmeans_scores(Z[:, selected], y, reading, n_runs),
                all=kmeans_scores(Z, y, reading, n_runs),
                random=(*rand[:, :2].mean(axis=0), rand[:, 0].std()))


def fit_ufsa(Z, n_features, n_clusters, **params):
    """UFSA with the paper's k = 15 and ufsel's defaults unless ``params`` says otherwise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return UFSA(n_features, n_clusters=n_clusters, n_neighbors=15, random_state=0,
                    **params).fit(Z)


def top(sel, k):
    """The k best-ranked columns of a fitted selector."""
    return np.flatnonzero(sel.ranking_ <= k)


def factor_rows(name, grid, n_runs=20, log=print):
    """One row per factor of the paper's protocol, each changed alone from ufsel's
    reading (raw pixels, alpha = gamma = 1, the Table 2 count, random-start k-means,
    mean of the runs). A row is ``(factor, the paper, setting, scores)`` with ``scores``
    from :func:`compare` (``all``/``random`` None where they do not apply)."""
    k_feat = PAPER[name][0]
    b = load_dataset(name)
    X, y = np.asarray(b.data, dtype=np.float64), b.target
    c = np.unique(y).size
    rows = []

    def add(factor, paper, setting, scores):
        rows.append((factor, paper, setting, scores))
        u = scores["ufsa"]
        log(f"  {name} {factor} / {setting}: UFSA ACC {u[0]:.1f} NMI {u[1]:.1f}"
            + (f", all {scores['all'][0]:.1f}, random {scores['random'][0]:.1f}"
               if scores.get("all") else ""), flush=True)

    base = fit_ufsa(X, k_feat, c)
    ref = compare(X, y, top(base, k_feat), n_runs=n_runs)
    add("baseline", "", f"raw pixels, alpha = gamma = 1, {k_feat} features, mean of "
        f"{n_runs} random-start k-means runs", ref)

    # (1) preprocessing: the paper states none
    for label, prep in FACTOR_PREPROCESSINGS.items():
        Z = prep(X)
        add("(1) preprocessing", "not stated", label,
            compare(Z, y, top(fit_ufsa(Z, k_feat, c), k_feat), n_runs=n_runs))
    add("(1) preprocessing", "not stated", "UFSA without its per-feature scaling "
        "(standardize=False)",
        compare(X, y, top(fit_ufsa(X, k_feat, c, standardize=False), k_feat), n_runs=n_runs))

    # (2) parameters: every value of the paper's range, in its Fig. 2 design
    fits = {}
    for alpha, gamma in grid_pairs(grid, "cross"):
        sel = fit_ufsa(X, k_feat, c, alpha=alpha, gamma=gamma, **GRID_BUDGET)
        fits[alpha, gamma] = kmeans_scores(X[:, top(sel, k_feat)], y, n_runs=n_runs)
        log(f"    alpha={alpha:g} gamma={gamma:g}: ACC {fits[alpha, gamma][0]:.1f} NMI "
            f"{fits[alpha, gamma][1]:.1f} ({sel.n_iter_} iterations)", flush=True)
    grid_text = "{" + ", ".join(f"{g:g}" for g in grid) + "}"
    budget = ", ".join(f"{k} = {v}" for k, v in GRID_BUDGET.items())
    for label, pick in (("best", max), ("worst", min)):
        (alpha, gamma), sc = pick(fits.items(), key=lambda kv: kv[1][0])
        add("(2) parameters", "alpha, gamma in {1e-9, ..., 1e9}, best reported",
            f"{label} of the cross grid {grid_text} ({len(fits)} fits, {budget}): "
            f"alpha = {alpha:g}, gamma = {gamma:g}", dict(ufsa=sc))
    add("(2) parameters", "lambda as in CAN [15]", "lambda_i set once (lambda_update='fixed')",
        dict(ufsa=kmeans_scores(X[:, top(fit_ufsa(X, k_feat, c, lambda_update="fixed"),
                                         k_feat)], y, n_runs=n_runs)))

    # (3) feature counts: one ranking serves every count
    per_count = {k: compare(X, y, top(base, k), n_runs=n_runs) for k in PAPER_COUNTS[name]}
    best_k = max(per_count, key=lambda k: per_count[k]["ufsa"][0])
    add("(3) feature counts", f"{{{PAPER_COUNTS[name][0]}, ..., {PAPER_COUNTS[name][-1]}}}, "
        f"{k_feat} reported", f"best count ({best_k})", per_count[best_k])
    add("(3) feature counts", "", f"mean over the {len(per_count)} counts",
        {key: tuple(np.mean([v[key] for v in per_count.values()], axis=0))
         for key in ("ufsa", "all", "random")})

    # (4) k-means protocol
    for reading, text in KMEANS_READINGS.items():
        if reading != "mean":
            add("(4) k-means", "20 runs, 5 repeats, mean +- std", text,
                compare(X, y, top(base, k_feat), reading, n_runs))

    # (5) stopping rule: the paper iterates "until convergence"
    for params, text in ((dict(max_iter=1), "one outer iteration"),
                         (dict(max_iter=5), "5 outer iterations"),
                         (dict(tol=0.0, max_iter=100), "100 outer iterations (tol = 0)")):
        sel = fit_ufsa(X, k_feat, c, **params)
        add("(5) stopping", "until convergence", text,
            dict(ufsa=kmeans_scores(X[:, top(sel, k_feat)], y, n_runs=n_runs)))

    # (6) the most favourable combination of (1) and (4) for all features
    Z = normalize(X)
    add("(6) all / random", "", "unit-norm samples and the run of lowest objective",
        compare(Z, y, top(fit_ufsa(Z, k_feat, c), k_feat), "lowest objective", n_runs))

    # (6) a bound for any selection of this size: the pixels that separate the classes best
    # (ANOVA F against the labels, which no unsupervised method sees)
    f_stat = np.nan_to_num(f_classif(X, y)[0], nan=-np.inf)
    for k in (k_feat, 30):
        add("(6) all / random", "", f"supervised bound: the {k} pixels of highest ANOVA F "
            "against the labels, mean of the runs",
            compare(X, y, np.sort(np.argsort(-f_stat, kind="stable")[:k]), n_runs=n_runs))

    # (7) clustering UFSA's own outputs instead of its selected pixels
    add("(7) what is clustered", "the selected features", "k-means on F (UFSA's n x c "
        "label matrix), mean of the runs", dict(ufsa=kmeans_scores(base.labels_matrix_, y,
                                                                   n_runs=n_runs)))
    A = 0.5 * (base.similarity_ + base.similarity_.T)
    pred = SpectralClustering(c, affinity="precomputed", random_state=0).fit_predict(A)
    add("(7) what is clustered", "", "spectral clustering of UFSA's learned graph S",
        dict(ufsa=(100 * clustering_accuracy(y, pred), 100 * normalized_mutual_info(y, pred),
                   np.nan)))

    # UFSA at 30 features against random subsets of 30, under the baseline reading
    add("30 features", "", "UFSA's top 30 against 20 random 30-subsets, mean of the runs",
        compare(X, y, top(base, 30), n_runs=n_runs, n_random=20))
    return rows


def factors_table(name, rows):
    """Markdown table of :func:`factor_rows`. "selected" is UFSA's selection, except in
    the supervised-bound rows, where it is the selection the row names."""
    k_feat, p_acc, p_std, p_all = PAPER[name]

    def cell(scores, key):
        v = scores.get(key)
        if v is None:
            return ""
        return f"{v[0]:.1f}" + (f" +- {v[2]:.1f}" if np.isfinite(v[2]) else "") + f" | {v[1]:.1f}"

    lines = [f"Paper (Table 2, {name}): UFSA {p_acc:.2f} +- {p_std:.2f} % ACC with {k_feat} "
             f"features, all features {p_all:.2f} %.", "",
             "| factor | the paper | setting tried (everything else as the baseline) | "
             "selected ACC % | selected NMI % | all features ACC % | all NMI % | random "
             "subsets ACC % | random NMI % |", "|---|---|---|---|---|---|---|---|---|"]
    for factor, paper, setting, scores in rows:
        lines.append(f"| {factor} | {paper} | {setting} | {cell(scores, 'ufsa')} | "
                     f"{cell(scores, 'all') or ' | '} | {cell(scores, 'random') or ' | '} |")
    return "\n".join(lines)


def row_space_share(name):
    """How much of UFSA's W (alpha = gamma = 1, the Table 2 count) lies in the row space
    of the centred, scaled data it was fitted on, and the variance of the projections.

    Where d > n, ``X^T H X`` has a null space of dimension at least d - n + 1, on which
    the graph and regression terms of Eq. (7) vanish under ``W^T W = I``; a W found
    there is chosen by the l2,1 term alone and carries no structure of the data."""
    k_feat = PAPER[name][0]
    b = load_dataset(name)
    X, y = np.asarray(b.data, dtype=np.float64), b.target
    sel = fit_ufsa(X, k_feat, np.unique(y).size)
    keep = ~sel.constant_features_
    Xs = (X[:, keep] - X[:, keep].mean(axis=0)) / sel.feature_scale_[keep]
    W = sel.W_[keep]
    _, sv, Vt = np.linalg.svd(Xs, full_matrices=False)
    rank = int(np.sum(sv > 1e-8 * sv[0]))
    share = np.linalg.norm(Vt[:rank] @ W) ** 2 / np.linalg.norm(W) ** 2
    return (f"{name}: n = {X.shape[0]}, d = {int(keep.sum())} non-constant features, rank of "
            f"the centred data {rank}; share of ||W||_F^2 in its row space {share:.3f}; mean "
            f"variance of the columns of X W {np.var(Xs @ W, axis=0).mean():.2e} (features "
            f"scaled to variance 1)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=list(PAPER), choices=list(PAPER))
    ap.add_argument("--grid", nargs="+", type=float, default=list(DEFAULT_GRID))
    ap.add_argument("--design", choices=["cross", "full"], default="cross",
                    help="cross: one parameter at 1, the other over the grid (5 fits for 3 "
                         "values); full: every pair (9 fits)")
    ap.add_argument("--n-runs", type=int, default=20, help="k-means runs (paper: 20)")
    ap.add_argument("--out", help="also write the table (Markdown) to this file")
    ap.add_argument("--protocol-check", action="store_true",
                    help="instead of the grid: ACC of UFSA's Table 2 selection, all features "
                         "and random subsets of the same size under several preprocessings "
                         "and k-means reports (prints a Markdown table)")
    ap.add_argument("--factors", action="store_true",
                    help="instead of the grid: change one factor of the paper's protocol at a "
                         "time (preprocessing, parameters, counts, k-means, stopping, what is "
                         "clustered) and print a Markdown table; --grid sets the parameter "
                         "values (default there: the paper's 1e-9 ... 1e9)")
    ap.add_argument("--row-space", action="store_true",
                    help="instead of the grid: how much of UFSA's W lies in the row space of "
                         "the data (see row_space_share)")
    args = ap.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        sys.exit("set UFSEL_DATA to the directory holding jaffe.mat and umist.mat")
    if args.row_space:
        for name in args.datasets:
            print(row_space_share(name))
        return 0
    if args.factors:
        grid = PAPER_GRID if args.grid == list(DEFAULT_GRID) else args.grid
        for name in args.datasets:
            print("\n" + factors_table(name, factor_rows(name, grid, args.n_runs)))
        return 0
    if args.protocol_check:
        lines = ["| data set | preprocessing | columns | " + " | ".join(REPORTS) + " |",
                 "|---|---|---|" + "---|" * len(REPORTS)]
        heads = []
        for name in args.datasets:
            head, rows = protocol_check(name, args.n_runs)
            heads.append(f"{name}: {head}")
            lines += rows
        print("\n".join(heads) + "\n\n" + "\n".join(lines))
        return 0
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    lines = ["| data set (n x d, c) | features | paper UFSA ACC % | ufsel UFSA ACC % (best of grid) "
             "| best alpha, gamma | ufsel at alpha = gamma = 1 | paper all features | "
             "ufsel all features | fits converged | fit time s (min-max) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name in args.datasets:
        shape, c, rows, base = run(name, grid_pairs(args.grid, args.design), args.n_runs)
        k_feat, p_acc, p_std, p_all = PAPER[name]
        best = max(rows, key=lambda r: r["acc"])
        one = next((r for r in rows if r["alpha"] == 1 and r["gamma"] == 1), None)
        walls = [r["wall"] for r in rows]
        lines.append(
            f"| {name} ({shape[0]} x {shape[1]}, {c}) | {k_feat} | {p_acc:.2f} +- {p_std:.2f} | "
            f"{100 * best['acc']:.2f} +- {100 * best['acc_std']:.2f} | "
            f"{best['alpha']:g}, {best['gamma']:g} | "
            + (f"{100 * one['acc']:.2f} +- {100 * one['acc_std']:.2f}" if one else "n/a")
            + f" | {p_all:.2f} | {100 * base['acc_mean']:.2f} +- {100 * base['acc_std']:.2f} | "
            f"{sum(r['converged'] for r in rows)}/{len(rows)} | "
            f"{min(walls):.1f}-{max(walls):.1f} |")
    total = time.perf_counter() - t0
    load_after = os.getloadavg()
    table = "\n".join(lines)
    cmd = "UFSEL_DATA=... PYTHONPATH=src python benchmarks/reproductions/ufsa_table2.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    note = (f"Command: `{cmd}`\n\nGrid alpha, gamma in {{{', '.join(f'{g:g}' for g in args.grid)}}} "
            f"({args.design} design; the paper: every pair of 1e-9 ... 1e9), k = 15, one fit per grid point (random_state=0), "
            f"k-means {args.n_runs} runs; ufsel's +- is over the k-means runs, the paper's over "
            f"5 repeats. Total {total:.0f} s wall. Load average (1, 5, 15 min) before "
            f"{load_before[0]:.1f}, {load_before[1]:.1f}, {load_before[2]:.1f}, after "
            f"{load_after[0]:.1f}, {load_after[1]:.1f}, {load_after[2]:.1f} on a shared 2-core "
            f"machine: the fit times are inflated by the load.")
    print()
    print(table)
    print()
    print(note)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(out.suffix + ".tmp")
        tmp.write_text("# UFSA, Table 2 of the paper (JAFFE and UMIST rows), paper vs ufsel\n\n"
                       + table + "\n\n" + note + "\n")
        tmp.replace(out)


if __name__ == "__main__":
    sys.exit(main())
