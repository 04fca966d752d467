"""The label-free route (AutoSelector) on every shared data set, judged afterwards with the labels.

    UFSEL_DATA=/work/shared/data PYTHONPATH=src OMP_NUM_THREADS=1 \
        python benchmarks/label_free_route.py --leaderboard OUT [--datasets wine,orl] \
        [--out benchmarks/results/label_free_route.md] [--route-cache DIR]

Selection never sees the labels: ``AutoSelector(random_state=0, n_resamples=0)``
(the default route; the stability part of the verdict, computed last, is skipped: it
does not change the ranking) chooses the
number of clusters (eigengap) and the method (among MaxVariance, LaplacianScore,
SPEC, MCFS, SPCAFS, PivotedQR, on the data as given; by the z-score against random
subsets of the multi-scale k-means cluster agreement) and returns one ranking.

The judgement uses the leaderboard's evaluation, so that the route and
everything it is compared with are measured by one protocol and one cache:
``OUT`` is the output folder of ``ufsel bench experiments/leaderboard.toml``
(its ``results.csv`` and its ``cache``). The protocol is FSEVAL's: feature
ratios p = 0.5 %, 1 %, ..., 10 % of d (k = ceil(p d), the ``fseval_small``
grid), k-means++ with K = the number of classes over 10 seeds, Hungarian
accuracy (ACC) and NMI; each value is the mean over the seeds, then over the 20
ratios (a count reached by several ratios counts that many times, as in
FSEVAL). When the chosen method's ranking depends on the count (MCFS: its
LARS cardinality), the chosen configuration is evaluated with its ranking for
each count, as the leaderboard evaluates MCFS. The route's subsets are
evaluated here, through the leaderboard's own evaluation unit and cache keys;
the others are read from ``results.csv``:

* random subsets (10 draws);
* MaxVariance and Laplacian Score;
* every selector at its defaults with ``n_clusters`` = the number of classes
  (the papers' protocol: these baselines know K);
* the best of those, chosen with the labels (an upper bound for any
  label-free choice of one method).

A route candidate that the leaderboard run did not include (PivotedQR, added after
it) is fitted here at its defaults and evaluated the same way, so that it is in every
table and in the label-chosen best.

Resumable: the route's ranking and every evaluation are entries of
content-addressed caches (atomic writes); the Markdown table is rewritten
after each data set. Data sets run in the leaderboard's order.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np
from _leaderboard_results import ratio_counts, ratio_mean, read_leaderboard
from sklearn.exceptions import ConvergenceWarning

import ufsel
from ufsel.benchmark import load_experiment
from ufsel.benchmark._cache import Store, atomic_write_text, content_key
from ufsel.benchmark._report import describe_blas
from ufsel.benchmark._runner import blas_info, random_baseline_orders
from ufsel.benchmark._units import DataRef, EvalTask, eval_key, load_data, run_eval
from ufsel.model_selection import DEFAULT_METHODS, AutoSelector, _auto
from ufsel.model_selection._auto import candidate_params
from ufsel.model_selection._criteria import CRITERIA

REPO = Path(__file__).resolve().parents[1]
GRID = "fseval_small"
#: Bump when AutoSelector's defaults change, so that cached routes (only) are recomputed.
ROUTE_VERSION = "scales-v11"  # v11: every subset as the null where there are at most n_draws; v10: exact k-NN ties to the smaller index; v8/v9: candidates at every criterion scale (v9: SPEC-phi2 once); v7: multi-scale criterion


#: Non-default AutoSelector settings of this run (--criterion, --standardize, --ratios,
#: --candidate-n-clusters, --methods):
#: variants of the route, cached and reported apart from the default one.
VARIANT = {}


def route_ranking(X):
    t0 = time.perf_counter()
    # n_resamples=0: the bootstrap stability comes last in fit and does not change the
    # ranking (it only adds to the verdict), and it is the dearest part on large data.
    kwargs = {k: v for k, v in VARIANT.items() if k != "ratios"}
    ratios = _auto.COMPARISON_RATIOS
    try:
        if "ratios" in VARIANT:
            _auto.COMPARISON_RATIOS = tuple(VARIANT["ratios"])
        sel = AutoSelector(random_state=0, n_resamples=0, **kwargs).fit(X)
    finally:
        _auto.COMPARISON_RATIOS = ratios
    v = sel.verdict_
    return {"ranking": sel.ranking_.tolist(), "time_s": time.perf_counter() - t0,
            "method": sel.method_, "standardize": sel.params_["standardize"],
            "n_clusters": sel.n_clusters_, "n_features": sel.n_features_to_select_,
            "candidate_n_clusters": sel.params_.get("n_clusters"),
            "beats_random": v.beats_random, "z": v.z_score, "p": v.p_value,
            "stability": None if v.stability is None else v.stability.value}


def count_rankings(X, route, ks, key, route_store):
    """The chosen configuration's ranking for each evaluated count, when it depends on the count.

    MCFS's ranking depends on its LARS cardinality: the leaderboard evaluates it with the
    ranking for each count (``fit_rankings``), and so is the route's choice here, rather
    than with the single ranking for the count the route suggested (which, at a large
    suggested count, would judge MCFS by a ranking meant for many more features). None
    for a method whose ranking does not depend on the count.
    """
    cls = ufsel.SELECTORS[route["method"]] if route["method"] in ufsel.SELECTORS else None
    if cls is None or not cls._scores_depend_on_count:
        return None
    ckey = content_key({"route": key, "counts": sorted(set(ks))})
    entry = route_store.get("count_rankings", ckey)
    if entry is None:
        # the configuration the route chose, with AutoSelector's own parameter rule
        params = candidate_params(cls, min(route["candidate_n_clusters"], X.shape[0] - 1))
        Xfit = AutoSelector._standardized(X) if route["standardize"] else X
        rankings = cls(**params).fit_rankings(Xfit, sorted(set(ks)))
        entry = route_store.put("count_rankings", ckey,
                                {str(k): r.tolist() for k, r in rankings.items()})
    return entry


def evaluate(ref, fp, ks, ranking_for, exp, store):
    """ACC and NMI per count of the top-k features of ``ranking_for(k)``, by the leaderboard's
    evaluation unit and cache."""
    acc, nmi = {}, {}
    for k in sorted(set(ks)):
        order = np.argsort(np.asarray(ranking_for(k)), kind="stable")
        sel = tuple(sorted(int(j) for j in order[:k]))
        ekey = eval_key(fp, sel, exp.kmeans_runs, exp.seed, exp.nn_loo, ufsel.__version__,
                        exp.kmeans_init)
        entry = store.get("eval", ekey)
        if entry is None:
            res = run_eval(EvalTask(key=ekey, data=ref, selected=sel,
                                    kmeans_runs=exp.kmeans_runs, seed=exp.seed,
                                    nn_loo=exp.nn_loo, kmeans_init=exp.kmeans_init),
                           str(store.root))
            if "error" in res:
                raise RuntimeError(res["error"])
            entry = res["entry"]
        acc[k], nmi[k] = entry["acc_mean"], entry["nmi_mean"]
    return acc, nmi


def suggested_count(ref, fp, d, route, exp, store):
    """ACC of the route's own selection (its ranking's top k, k the count it suggested) and
    the mean ACC of the leaderboard's random subsets of that size (the same nested draws,
    ``random_baseline_orders``)."""
    k = int(route["n_features"])
    acc, _ = evaluate(ref, fp, [k], lambda _k: route["ranking"], exp, store)
    rand = []
    for _, perm in random_baseline_orders(exp, d):
        ranking = np.empty(d, dtype=int)
        ranking[perm] = np.arange(1, d + 1)
        rand.append(evaluate(ref, fp, [k], lambda _k, r=ranking: r, exp, store)[0][k])
    return {"k": k, "acc": acc[k], "random_acc": float(np.mean(rand))}


def candidate_at_defaults(name, X, ks, fp, ref, exp, store, route_store, n_classes, k_est, log):
    """(K = classes, label-free K) x (acc, nmi) per count for a candidate missing from the
    leaderboard: fitted here at its defaults (with ``n_clusters`` where it has one), on the data
    as given, rankings cached in the route store."""
    cls = ufsel.SELECTORS[name]
    out = []
    for K in (n_classes, k_est):
        params = candidate_params(cls, min(K, X.shape[0] - 1))
        params.pop("random_state", None)  # the leaderboard's fits use the selector's default
        ckey = content_key({"defaults": name, "data": fp, "params": params,
                            "ufsel": ufsel.__version__, "counts": sorted(set(ks))})
        entry = route_store.get("defaults", ckey)
        if entry is None:
            t0 = time.perf_counter()
            rankings = cls(**params).fit_rankings(X, sorted(set(ks)))
            entry = route_store.put("defaults", ckey,
                                    {str(k): r.tolist() for k, r in rankings.items()})
            log(f"  {name} {params}: fitted in {time.perf_counter() - t0:.1f} s")
        out.append(evaluate(ref, fp, ks, lambda k, e=entry: e[str(k)], exp, store))
    return out


def run_dataset(ds, exp, store, route_store, board, board_lf, missing, log):
    """One data set's row; ``missing`` are the route candidates the leaderboard run did not
    have, fitted at their defaults and evaluated here."""
    ref = DataRef(label=ds.label, name=ds.name, preprocess=ds.preprocess)
    X, y, fp = load_data(ref)
    n, d = X.shape
    K = int(np.unique(y).size)
    ratios = exp.grids[GRID]["ratios"]
    ks = ratio_counts(d, ratios)
    key = content_key({"dataset": ds.label, "data": fp, "ufsel": ufsel.__version__,
                       "route": ROUTE_VERSION, **({"variant": VARIANT} if VARIANT else {})})
    route = route_store.get("ranking", key)
    if route is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            route = route_store.put("ranking", key, route_ranking(X))
    log(f"  route: {route['method']} std={route['standardize']} K={route['n_clusters']} "
        f"k={route['n_features']} beats_random={route['beats_random']} ({route['time_s']:.1f} s)")
    per_count = count_rankings(X, route, ks, key, route_store)
    acc, nmi = evaluate(ref, fp, ks, lambda k: per_count[str(k)] if per_count
                        else route["ranking"], exp, store)
    at_k = suggested_count(ref, fp, d, route, exp, store)
    methods = {m: {"acc": ratio_mean(cell["acc"], ks), "nmi": ratio_mean(cell["nmi"], ks)}
               for m, cell in board.get(ds.label, {}).items() if m != "all_features"}
    lf_cells = dict(board_lf.get(ds.label, {}))
    for m in missing:
        (acc_k, nmi_k), (acc_lf, nmi_lf) = candidate_at_defaults(
            m, X, ks, fp, ref, exp, store, route_store, K, route["n_clusters"], log)
        methods[m] = {"acc": ratio_mean(acc_k, ks), "nmi": ratio_mean(nmi_k, ks)}
        lf_cells[m] = {"acc": acc_lf, "nmi": nmi_lf}
    if "random" not in methods or methods["random"]["acc"] is None:
        raise RuntimeError(f"{ds.label}: the leaderboard has no random-subset results "
                           f"(run it on this data set first)")
    scored = {m: v["acc"] for m, v in methods.items() if m != "random" and v["acc"] is not None}
    label_free = {m: ratio_mean(cell["acc"], ks) for m, cell in lf_cells.items()
                  if m not in ("all_features", "random")}
    return {"name": ds.label, "n": n, "d": d, "classes": K, "route": route, "at_k": at_k,
            "route_acc": ratio_mean(acc, ks), "route_nmi": ratio_mean(nmi, ks),
            "methods": methods, "best": max(scored, key=scored.get),
            "label_free": {m: a for m, a in label_free.items() if a is not None}}


def _verdict_hits(rows, said):
    """'a of b': of the b data sets where the verdict was ``said``, a where ACC beat random."""
    sub = [r for r in rows if bool(r["route"]["beats_random"]) == said]
    hits = sum(r["route_acc"] > r["methods"]["random"]["acc"] for r in sub)
    return f"{hits} of {len(sub)}"


def _fixed_choice_table(rows, names, acc_of):
    """Markdown rows: the route and each fixed choice (wins over random, mean ACC, gap to best)."""
    out = ["| method | beats random | runs | mean ACC | mean gap to best |", "|---|---|---|---|---|"]
    table = []
    for name in ["route"] + list(names):
        vals = []
        for r in rows:
            a = r["route_acc"] if name == "route" else acc_of(r, name)
            if a is not None:
                vals.append((a, r["methods"]["random"]["acc"], r["methods"][r["best"]]["acc"]))
        if not vals:
            continue
        a = np.array(vals)
        table.append((name, int(np.sum(a[:, 0] > a[:, 1])), len(vals), 100 * a[:, 0].mean(),
                      100 * (a[:, 2] - a[:, 0]).mean()))
    labels = {"route": "**label-free route**",
              "oracle": "*oracle: best of the route's candidates, chosen with labels*",
              "oracle_all": "*oracle: best of all methods, chosen with labels*"}
    for name, wins, runs, mean, gap in sorted(table, key=lambda t: (-t[1], t[4])):
        out.append(f"| {labels.get(name, name)} | {wins} of {runs} | {runs} | {mean:.1f} | "
                   f"{gap:.1f} |")
    return out


def route_methods():
    """The route's candidate methods (registry names): AutoSelector's, or the variant's."""
    return list(VARIANT.get("methods", DEFAULT_METHODS))


def write_table(rows, path, command, elapsed, missing):
    blas = describe_blas(blas_info()) or "unknown"
    names = {cls.__name__.lower(): cls.__name__ for cls in ufsel.SELECTORS.values()}
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}"  # noqa: E731
    lines = [
        "# The label-free route on the shared data sets, evaluated with the labels afterwards",
        "",
        "Selection without labels: `AutoSelector(random_state=0, n_resamples=0)` (K by "
        f"eigengap; method among {', '.join(names.get(m, m) for m in route_methods())} on "
        "the data as given, a method whose scores depend on n_clusters (MCFS) at each of "
        "K, 2K, 4K, ... up to sqrt(n), by the "
        "z-score against random subsets at 2/5/10 % of d of the label-free criterion, by default the k-means "
        "cluster agreement averaged over the same numbers of clusters). The route is judged "
        "by the configuration it chose (method and its n_clusters, shown as `K=`), evaluated at every count "
        "of the protocol (MCFS, whose ranking depends on the count, with its ranking for each "
        "count, as the leaderboard evaluates it); `k` is the count it suggests. Evaluation with "
        "the labels, by the leaderboard's evaluation (FSEVAL's protocol): k = ceil(p d) for "
        "p = 0.5 %, 1 %, ..., 10 %; k-means++ with K = classes, 10 seeds; ACC (Hungarian) and "
        "NMI in %, mean over the seeds, then over the 20 ratios. `random` = the mean of 10 "
        "random subsets of each size; the methods run at their defaults with n_clusters = "
        "classes (the papers' protocol); `best (labels)` = the one with the highest ACC on "
        "that data set, chosen with the labels; `verdict` = the route's own label-free "
        "verdict (beats random subsets at p <= 0.05?); `ACC at k` = the route's own "
        "selection, its top k features at the count k it suggests, and `random ACC at k` the "
        "mean of the leaderboard's 10 random subsets of that size (both by the same evaluation, "
        "one count instead of the mean over the ratios). A method that timed out or failed on "
        "a data set has no value there.",
        "",
        f"Command (after the leaderboard run, see `benchmarks/results/leaderboard/README.md`): "
        f"`{command}`",
        "",
    ]
    if VARIANT:
        lines += [f"**A variant of the route**, not the default: AutoSelector with {VARIANT}.", ""]
    lines += [
        f"Run time of this invocation: {elapsed / 60:.1f} min (cached routes and evaluations "
        f"are not recomputed); machine {platform.machine()}, {os.cpu_count()} cores; BLAS "
        f"{blas}. The "
        f"route's own run time (`route s`: the `AutoSelector` fit, one BLAS thread, taken when "
        f"the route was computed) totals "
        f"{sum(r['route']['time_s'] for r in rows) / 60:.1f} min over the {len(rows)} data sets.",
        "",
        "| data set | n | d | classes | K est. | route's choice | verdict | route ACC | random "
        "ACC | MaxVar ACC | LapScore ACC | best (labels) ACC | route NMI | random NMI | best NMI | "
        "route s | ACC at k | random ACC at k |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rt, ms, best = r["route"], r["methods"], r["best"]
        kc = rt.get("candidate_n_clusters")
        choice = (f"{rt['method']}{' (std)' if rt['standardize'] else ''}"
                  f"{f' K={kc}' if kc is not None else ''}, k={rt['n_features']}")
        verdict = f"{'yes' if rt['beats_random'] else 'NO'} (p={rt['p']:.2g})"
        lines.append(
            f"| {r['name']} | {r['n']} | {r['d']} | {r['classes']} | {rt['n_clusters']} | "
            f"{choice} | {verdict} | {pct(r['route_acc'])} | {pct(ms['random']['acc'])} | "
            f"{pct(ms.get('maxvariance', {}).get('acc'))} | "
            f"{pct(ms.get('laplacianscore', {}).get('acc'))} | "
            f"{pct(ms[best]['acc'])} ({best}) | {pct(r['route_nmi'])} | "
            f"{pct(ms['random']['nmi'])} | {pct(ms[best]['nmi'])} | {rt['time_s']:.0f} | "
            f"{pct(r['at_k']['acc'])} | {pct(r['at_k']['random_acc'])} |")
    if rows:
        m = len(rows)
        beats = sum(r["route_acc"] > r["methods"]["random"]["acc"] for r in rows)
        gap = np.mean([r["methods"][r["best"]]["acc"] - r["route_acc"] for r in rows])
        lines += [
            "",
            f"**Summary over {m} data sets.** The route's ACC beats the random subsets' mean "
            f"ACC on {beats} of {m} ({100 * beats / m:.0f} %; goal >= 90 %). Mean ACC: route "
            f"{100 * np.mean([r['route_acc'] for r in rows]):.1f}, random "
            f"{100 * np.mean([r['methods']['random']['acc'] for r in rows]):.1f}, best chosen "
            f"with labels {100 * np.mean([r['methods'][r['best']]['acc'] for r in rows]):.1f}; "
            f"mean gap to the label-chosen best {100 * gap:.1f} ACC points (goal <= 2). The "
            f"route's own verdict said 'beats random' on "
            f"{sum(bool(r['route']['beats_random']) for r in rows)} of {m}; where it said so, "
            f"the route's ACC was above random's on {_verdict_hits(rows, True)}, and where it "
            f"said NO, on {_verdict_hits(rows, False)}.",
            "",
            f"**At the count it suggests** (`k`; ACC of its top k features against the mean of "
            f"the leaderboard's 10 random subsets of that size, the last two columns): above "
            f"random on {sum(r['at_k']['acc'] > r['at_k']['random_acc'] for r in rows)} of {m}; "
            f"mean ACC {100 * np.mean([r['at_k']['acc'] for r in rows]):.1f} against "
            f"{100 * np.mean([r['at_k']['random_acc'] for r in rows]):.1f}; median k = "
            f"{np.median([r['at_k']['k'] for r in rows]):.0f} "
            f"({100 * np.median([r['at_k']['k'] / r['d'] for r in rows]):.1f} % of d).",
            "",
            "## The route beside every fixed choice of one method",
            "",
            "For each method at its defaults (K = classes): on how many data sets its ACC is "
            "above the random subsets' mean, and its mean ACC and mean gap to the label-chosen "
            "best over the data sets where it has a value (`runs` = how many; the others timed "
            "out or failed).",
            "",
        ]
        names = sorted({mm for r in rows for mm in r["methods"]} - {"random"})
        lines += _fixed_choice_table(rows, names, lambda r, m: r["methods"].get(m, {}).get("acc"))
        if missing:
            lines += ["", f"{', '.join(missing)}: not in the leaderboard run; "
                          "fitted at its defaults and evaluated by this script, with the same "
                          "evaluation unit and cache."]
        lf_names = sorted({mm for r in rows for mm in r["label_free"]})
        candidates = [m for m in lf_names if m in route_methods()]
        lines += [
            "",
            "## The same with every method's K estimated (the leaderboard's label-free protocol)",
            "",
            "Each method at its defaults with `n_clusters` = the eigengap estimate, as a user "
            "without labels would run it; the gap is still to the best of the table above "
            "(K = classes). Two rows are oracles: on each data set, the best of the route's "
            f"candidate methods ({', '.join(candidates)}; on the data as given), and the best "
            "of all methods that have a value there, each chosen with the labels. They bound "
            "what any label-free choice among those methods at their defaults could reach.",
            "",
        ]
        def oracle(r, among):
            return max((r["label_free"][m] for m in among if m in r["label_free"]), default=None)

        among = {"oracle": candidates, "oracle_all": lf_names}
        lines += _fixed_choice_table(rows, lf_names + list(among), lambda r, m: (
            oracle(r, among[m]) if m in among else r["label_free"].get(m)))
        best_wins = sum(r["methods"][r["best"]]["acc"] > r["methods"]["random"]["acc"]
                        for r in rows)
        lines += [
            "",
            f"The best of all methods chosen with the labels (K = classes) beats random on "
            f"{best_wins} of {m} data sets.",
        ]
    lines.append("")
    atomic_write_text(path, "\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--leaderboard", required=True,
                    help="output folder of the leaderboard run (results.csv and cache/)")
    ap.add_argument("--datasets", help="comma-separated labels (default: every shared data set "
                                       "that the leaderboard has)")
    ap.add_argument("--out", default=str(REPO / "benchmarks/results/label_free_route.md"))
    ap.add_argument("--criterion", choices=CRITERIA,
                    help="a variant of the route: AutoSelector's criterion (default its own)")
    ap.add_argument("--standardize", choices=["false", "true", "auto"],
                    help="a variant of the route: AutoSelector's standardize (default its own)")
    ap.add_argument("--ratios", help="a variant of the route: the fractions of d at which "
                                     "the candidates are compared, e.g. 0.01,0.02,0.05,0.1")
    ap.add_argument("--candidate-n-clusters", choices=["scales", "estimate"],
                    help="a variant of the route: AutoSelector's candidate_n_clusters "
                         "(default its own)")
    ap.add_argument("--methods", help="a variant of the route: AutoSelector's candidate "
                                      "methods, comma-separated registry names")
    ap.add_argument("--route-cache", default=os.path.join(
        os.path.expanduser("~"), ".cache", "ufsel", "label_free_route"))
    args = ap.parse_args(argv)
    VARIANT.clear()
    if args.criterion:
        VARIANT["criterion"] = args.criterion
    if args.standardize:
        VARIANT["standardize"] = {"false": False, "true": True}.get(args.standardize, "auto")
    if args.ratios:
        VARIANT["ratios"] = [float(r) for r in args.ratios.split(",")]
    if args.candidate_n_clusters:
        VARIANT["candidate_n_clusters"] = args.candidate_n_clusters
    if args.methods:
        unknown = [m for m in args.methods.split(",") if m not in ufsel.SELECTORS]
        if unknown:
            ap.error(f"unknown methods {unknown}; known: {', '.join(sorted(ufsel.SELECTORS))}")
        VARIANT["methods"] = args.methods.split(",")
    lb = Path(args.leaderboard)
    if not (lb / "results.csv").is_file() or not (lb / "cache").is_dir():
        ap.error(f"{lb} holds no leaderboard run (results.csv and cache/ are needed)")
    exp = load_experiment(REPO / "experiments" / "leaderboard.toml")
    board = read_leaderboard(lb / "results.csv")
    board_lf = read_leaderboard(lb / "results.csv", protocol="label_free")
    shared = [ds for ds in exp.datasets if not ds.name.startswith("sklearn:")]
    wanted = args.datasets.split(",") if args.datasets else [ds.label for ds in shared
                                                              if ds.label in board]
    store, route_store = Store(lb / "cache"), Store(args.route_cache)
    kernel = os.environ.get("OPENBLAS_CORETYPE")
    command = ((f"OPENBLAS_CORETYPE={kernel} " if kernel else "") +
               "UFSEL_DATA=/work/shared/data PYTHONPATH=src OMP_NUM_THREADS=1 python "
               "benchmarks/label_free_route.py --leaderboard OUT" +
               (f" --datasets {args.datasets}" if args.datasets else "") +
               "".join(f" --{flag.replace('_', '-')} {getattr(args, flag)}" for flag in
                       ("criterion", "standardize", "ratios", "candidate_n_clusters", "methods")
                       if getattr(args, flag)) +
               (f" --out {args.out}" if args.out != ap.get_default("out") else ""))
    # route candidates the leaderboard run did not have at all (added after it)
    missing = [m for m in route_methods() if not any(m in cells for cells in board.values())]
    t0 = time.perf_counter()
    rows = []
    for ds in [ds for ds in shared if ds.label in wanted]:
        t1 = time.perf_counter()
        print(f"{ds.label}:", flush=True)
        try:
            row = run_dataset(ds, exp, store, route_store, board, board_lf, missing,
                              lambda s: print(s, flush=True))
        except Exception as exc:  # one failing data set must not stop the others
            print(f"  FAILED: {type(exc).__name__}: {exc}", flush=True)
            continue
        rows.append(row)
        print(f"  ACC route {100 * row['route_acc']:.1f}, random "
              f"{100 * row['methods']['random']['acc']:.1f}; {time.perf_counter() - t1:.0f} s",
              flush=True)
        write_table(rows, args.out, command, time.perf_counter() - t0, missing)


if __name__ == "__main__":
    main()
