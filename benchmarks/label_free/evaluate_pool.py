"""The label-free route on the 56-set pool, leave-one-data-set-out, judged afterwards with labels.

    OPENBLAS_CORETYPE=Haswell UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 PYTHONPATH=src \
        nice -n 15 python benchmarks/label_free/evaluate_pool.py \
        [--datasets pima,wine] [--out benchmarks/results/label_free/pool_route.md]

For each of the 56 data sets (the leaderboard's 34 and the 22 of ``extra/``), the route
(``AutoSelector(random_state=0, n_resamples=0)``: ``ufsel select`` without its
stability, which does not change the selection) runs with a recommender trained on the
**other 55** rows of ``src/ufsel/model_selection/recommender_table.csv`` (``MethodRecommender(exclude=[name])``); the held-out
set's labels only judge it:

* **at its own count** k: the ACC (k-means++, K = classes, 10 seeds) of the selected
  features against 20 random subsets of size k (seeded): above their mean ("beats
  random") and above their 90th percentile (the verdict's truth);
* **the choice**: the chosen method's grid-mean ACC in the pool table (FSEVAL's grid,
  the method at its defaults with K = classes) against the best method's, chosen with the
  labels (the gap);
* **the verdict**: "beats random" said against the truth; precision and recall. The
  rule that withholds it ("cannot tell") has two thresholds, the recommender's support
  and predicted gain. Their figure here is **nested**: for each data set the thresholds
  are chosen on the other 55 (the largest recall with precision >= 90 % there) and
  applied to it;
* **the count**: k / d, counts above d / 2, testable counts; and, on the series and
  near-copy features (UCR, or neighbour correlation above 0.9), the two count rules (the
  largest or the smallest count on the plateau), each against its own random subsets.

Every data set's row is cached (``results/label_free_pool/route/``, written atomically),
so an interrupted run resumes; ``--fresh`` recomputes. The per-data-set table and the
summary are printed and written to ``--out``. The committed development / validation
split (``split.toml``) is the second view of the leaderboard's 34 rows.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import pool as pool_mod  # noqa: E402
import train_recommender as train_mod  # noqa: E402

CACHE = REPO / "results" / "label_free_pool" / "route"
OUT = REPO / "benchmarks" / "results" / "label_free" / "pool_route.md"
RANDOM_SUBSETS = 20
SUPPORT_GRID = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
GAIN_GRID = (-1.0, 0.0, 0.01, 0.02, 0.05)
NEAR_COPY = 0.9


def _split():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    with open(HERE / "split.toml", "rb") as fh:
        split = tomllib.load(fh)["split"]
    return {name: half for half, names in split.items() for name in names}


def _random_accs(X, y, k, seed=0):
    rng = np.random.RandomState(seed)
    d = X.shape[1]
    return [pool_mod.acc_of(X, y, rng.choice(d, k, replace=False)) for _ in range(RANDOM_SUBSETS)]


def evaluate_dataset(name, table_row):
    from threadpoolctl import threadpool_limits

    from ufsel import AutoSelector
    from ufsel.model_selection import MethodRecommender

    X, y = train_mod.load_any(name)
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
    n, d = X.shape
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = AutoSelector(random_state=0, n_resamples=0,
                           recommender=MethodRecommender(exclude=[name])).fit(X)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    k = int(sel.n_features_to_select_)
    v, rec = sel.verdict_, sel.recommendation_
    with threadpool_limits(limits=1):
        acc_k = pool_mod.acc_of(X, y, np.flatnonzero(sel.get_support()))
        rand = _random_accs(X, y, k)
        row = {"k_fewest": None}
        near_copy = (table_row["source"] == "UCR" or table_row["neighbour_corr"] > NEAR_COPY)
        if sel.curve_ is not None and near_copy:
            k2 = int(max(sel.curve_.suggest(prefer="fewest"), 1))
            if k2 != k:
                est = type(sel.selector_)(**{**sel.selector_.get_params(),
                                             "n_features_to_select": k2})
                from ufsel.model_selection import standardized

                Xw = standardized(X) if sel.params_["standardize"] else X
                top = np.argsort(est.fit(Xw).ranking_, kind="stable")[:k2]
                r2 = _random_accs(X, y, k2)
                row = {"k_fewest": k2, "acc_fewest": pool_mod.acc_of(X, y, top),
                       "random_fewest": float(np.mean(r2))}
            else:
                row = {"k_fewest": k2, "acc_fewest": acc_k, "random_fewest": float(np.mean(rand))}
        # the two counts of CountRule on the chosen ranking, each against its own random
        # subsets (for choosing the rule's cap leave-one-data-set-out)
        order = np.argsort(sel.ranking_, kind="stable")
        alt = {}
        R = sel.description_.n_relevant
        for label, kk in (("curve", None if sel.curve_ is None else int(sel.curve_.n_features)),
                          ("relevant", R)):
            if kk is None or not 0 < kk < d:
                continue
            alt[label] = {"k": int(kk), "acc": pool_mod.acc_of(X, y, order[:kk]),
                          "random": float(np.mean(_random_accs(X, y, int(kk))))}
        row["counts"] = alt
    acc = table_row["acc"]
    chosen = sel.method_
    return {**row, "dataset": name, "source": table_row["source"], "n": n, "d": d,
            "classes": int(np.unique(y).size), "K": int(sel.n_clusters_), "method": chosen,
            "method_K": sel.params_.get("n_clusters"), "standardize": bool(sel.params_["standardize"]),
            "support": rec.support, "predicted_gain": rec.predicted_gain.get(chosen, 0.0),
            "recommended": rec.method, "recommended_gain": rec.predicted_gain[rec.method],
            "n_relevant": sel.description_.n_relevant,
            "similarity": getattr(sel.strategy_, "similarity", None),
            "candidates": [{k: c[k] for k in ("method", "z_score", "relevant_hits",
                                                "degenerate", "prior_gain")}
                           for c in sel.candidates_],
            "relevance": None if v.relevance is None else v.relevance.to_dict(),
            "nearest": [nb["dataset"] for nb in rec.neighbours],
            "k": k, "testable": bool(v.testable), "p": float(v.p_value), "z": float(v.z_score),
            "test_passes": bool(v.p_value <= v.alpha and v.z_score > 0),
            "outcome": v.outcome, "acc_at_k": acc_k, "random_mean_at_k": float(np.mean(rand)),
            "random_p90_at_k": float(np.percentile(rand, 90)),
            "chosen_grid": acc.get(chosen, table_row["random"]),
            "best_grid": max(acc.values()), "best_method": max(sorted(acc), key=acc.get),
            "random_grid": table_row["random"], "neighbour_corr": table_row["neighbour_corr"],
            "route_wall_s": wall, "route_cpu_s": cpu,
            "trained_on": len(MethodRecommender(exclude=[name]).rows)}


def all_evidence(name, table_row):
    """Every non-provisional method of the table fitted on the data set, with its evidence
    (z-score, relevant features among its top ones) as the route would gather it."""
    from ufsel import AutoSelector
    from ufsel.model_selection._route import PROVISIONAL_METHODS  # private: needs public API

    X, _ = train_mod.load_any(name)
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)
    methods = [m for m in sorted(table_row["acc"]) if m not in PROVISIONAL_METHODS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = AutoSelector(random_state=0, n_resamples=0, verdict=False, choice="criterion",
                           methods=methods, candidate_n_clusters="estimate").fit(X)
    return {"dataset": name, "n_relevant": sel.description_.n_relevant,
            "candidates": [{k: c[k] for k in ("method", "z_score", "relevant_hits",
                                                "degenerate")} for c in sel.candidates_]}


def _said(r, s_min, g_min):
    """Whether the route's gate (VerdictGate) with these thresholds says "beats random"."""
    from types import SimpleNamespace

    from ufsel.model_selection import Recommendation, VerdictGate

    test = SimpleNamespace(p_value=r["p"], z_score=r["z"])
    rel = None if r.get("relevance") is None else SimpleNamespace(**r["relevance"])
    rec = (Recommendation(r["recommended"], {r["recommended"]: r["recommended_gain"]},
                          r["support"]) if r["method"] == r.get("recommended") else None)
    outcome, _ = VerdictGate(min_support=s_min, min_gain=g_min).decide(
        test, rel, rec, testable=r["testable"])
    return outcome == "beats random"


def _prec_recall(rows, s_min, g_min):
    said = [r for r in rows if _said(r, s_min, g_min)]
    truth = [r for r in rows if r["acc_at_k"] > r["random_p90_at_k"]]
    right = [r for r in said if r["acc_at_k"] > r["random_p90_at_k"]]
    return len(right), len(said), len(truth)


def choose_thresholds(rows):
    """The (support, gain) thresholds with the largest recall at precision >= 90 % on rows
    (else the largest precision); ties to the stricter rule."""
    best = None
    for s in SUPPORT_GRID:
        for g in GAIN_GRID:
            right, said, truth = _prec_recall(rows, s, g)
            prec = right / said if said else 0.0
            key = (prec >= 0.9, right if prec >= 0.9 else prec, s, g)
            if best is None or key > best[0]:
                best = (key, s, g)
    return best[1], best[2]


def nested_verdicts(rows):
    """Each data set's verdict under thresholds chosen on the other data sets."""
    out = {}
    for i, r in enumerate(rows):
        s, g = choose_thresholds(rows[:i] + rows[i + 1:])
        out[r["dataset"]] = (_said(r, s, g), s, g)
    return out


def _rate(rows, key):
    return f"{sum(key(r) for r in rows)} of {len(rows)} ({100 * np.mean([key(r) for r in rows]):.0f} %)"


def summary(rows, nested, log):
    beats = lambda r: r["acc_at_k"] > r["random_mean_at_k"]  # noqa: E731
    log(f"- at its own count, above the mean of same-size random subsets: {_rate(rows, beats)}")
    for src in sorted({r["source"] for r in rows}):
        sub = [r for r in rows if r["source"] == src]
        log(f"  - {src}: {_rate(sub, beats)}")
    grid = lambda r: r["chosen_grid"] > r["random_grid"]  # noqa: E731
    log(f"- the chosen method's grid-mean ACC above random subsets': {_rate(rows, grid)}")
    log(f"- mean gap to the best method chosen with labels: "
        f"{100 * np.mean([r['best_grid'] - r['chosen_grid'] for r in rows]):.1f} ACC points")
    truth = [r for r in rows if r["acc_at_k"] > r["random_p90_at_k"]]
    said = [r for r in rows if nested[r["dataset"]][0]]
    right = [r for r in said if r["acc_at_k"] > r["random_p90_at_k"]]
    prec = f"{len(right)} of {len(said)}" + (f" ({100 * len(right) / len(said):.0f} %)" if said else "")
    rec = f"{len(right)} of {len(truth)}" + (f" ({100 * len(right) / len(truth):.0f} %)" if truth else "")
    log(f"- verdict 'beats random' (nested thresholds): precision {prec}, recall {rec}")
    shipped = [r for r in rows if r["outcome"] == "beats random"]
    ship_right = [r for r in shipped if r["acc_at_k"] > r["random_p90_at_k"]]
    log(f"- verdict 'beats random' as shipped (VerdictGate's defaults, chosen before this run): "
        f"precision {len(ship_right)} of {len(shipped)}, recall {len(ship_right)} of {len(truth)}")
    raw = [r for r in rows if r["test_passes"]]
    raw_right = [r for r in raw if r["acc_at_k"] > r["random_p90_at_k"]]
    log(f"- the held-out test alone: precision {len(raw_right)} of {len(raw)}, recall "
        f"{len(raw_right)} of {len(truth)}")
    s, g = choose_thresholds(rows)
    r_, s_, t_ = _prec_recall(rows, s, g)
    log(f"- thresholds chosen on all {len(rows)} (the shipped rule): support >= {s}, predicted "
        f"gain > {g}: {r_} of {s_} right, recall {r_} of {t_} (not a held-out figure)")
    ratio = [r["k"] / r["d"] for r in rows]
    log(f"- count: median k/d {100 * np.median(ratio):.1f} %, above d/2 on "
        f"{sum(r['k'] > r['d'] / 2 for r in rows)}, testable on {_rate(rows, lambda r: r['testable'])}")
    near = [r for r in rows if r["source"] == "UCR" or r["neighbour_corr"] > NEAR_COPY]
    if near:
        most = sum(r["acc_at_k"] > r["random_mean_at_k"] for r in near)
        few = sum(r.get("acc_fewest", 0) > r.get("random_fewest", 1) for r in near)
        log(f"- series and near-copy features ({len(near)}: {', '.join(r['dataset'] for r in near)}):"
            f" largest count on the plateau above random on {most}, smallest on {few}")
    wall = sum(r["route_wall_s"] for r in rows)
    cpu = sum(r["route_cpu_s"] for r in rows)
    log(f"- route time: {wall / 60:.1f} min wall, {cpu / 60:.1f} min CPU over {len(rows)} data "
        f"sets (median {np.median([r['route_wall_s'] for r in rows]):.1f} s)")


def table(rows, nested, half_of):
    head = ("data set", "source", "half", "n x d", "method", "k", "ACC at k", "random at k (p90)",
            "verdict", "truth", "grid ACC", "best (method)", "nearest")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        said = nested[r["dataset"]][0]
        out.append("| " + " | ".join([
            r["dataset"], r["source"], half_of.get(r["dataset"], "-"), f"{r['n']} x {r['d']}",
            r["method"], str(r["k"]), f"{100 * r['acc_at_k']:.1f}",
            f"{100 * r['random_mean_at_k']:.1f} ({100 * r['random_p90_at_k']:.1f})",
            "beats random" if said else r["outcome"],
            "above p90" if r["acc_at_k"] > r["random_p90_at_k"] else "-",
            f"{100 * r['chosen_grid']:.1f}", f"{100 * r['best_grid']:.1f} ({r['best_method']})",
            ", ".join(r["nearest"][:3])]) + " |")
    return "\n".join(out)


def main(argv=None):
    from ufsel.model_selection import read_training_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--shard", default="0/1", help="I/N: compute every N-th data set of the "
                    "cost order from the I-th (parallel workers share the cache)")
    ap.add_argument("--all-evidence", action="store_true",
                    help="also record every table method's evidence on each data set (for "
                         "choice_weights.py)")
    ap.add_argument("--cached-only", action="store_true",
                    help="report the cached rows only; list the data sets not yet measured")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    rows_by = {r["dataset"]: r for r in read_training_table()}
    names = args.datasets.split(",") if args.datasets else sorted(rows_by)
    unknown = sorted(set(names) - set(rows_by))
    if unknown:
        sys.exit(f"error: not in the training table: {', '.join(unknown)}")
    cost = {nm: np.exp(rows_by[nm]["log_n"] + rows_by[nm]["log_d"]) for nm in names}
    rows, missing = [], []
    shard, n_shards = (int(v) for v in args.shard.split("/"))
    for i, name in enumerate(sorted(names, key=cost.get)):
        path = CACHE / f"{name}.json"
        if path.exists() and not args.fresh:
            rows.append(json.loads(path.read_text()))
            continue
        if args.cached_only or i % n_shards != shard:
            missing.append(name)
            continue
        row = evaluate_dataset(name, rows_by[name])
        pool_mod.write_atomic(path, json.dumps(row))
        if args.all_evidence:
            pool_mod.write_atomic(CACHE / f"{name}.evidence.json",
                                  json.dumps(all_evidence(name, rows_by[name])))
        print(f"{name}: {row['method']} k={row['k']} {row['outcome']} ACC {100 * row['acc_at_k']:.1f}"
              f" vs {100 * row['random_mean_at_k']:.1f} ({row['route_wall_s']:.1f} s)", flush=True)
        rows.append(row)
    rows.sort(key=lambda r: (r["source"], r["dataset"]))
    nested = nested_verdicts(rows)
    half_of = _split()
    buf = io.StringIO()
    log = lambda m: (print(m), buf.write(m + "\n"))  # noqa: E731
    log(f"# The label-free route on the pool, leave-one-data-set-out ({len(rows)} data sets)\n")
    if missing:
        log(f"Not measured ({len(missing)}): {', '.join(missing)}.\n")
    summary(rows, nested, log)
    for half in ("development", "validation"):
        sub = [r for r in rows if half_of.get(r["dataset"]) == half]
        if sub:
            log(f"\n## The {half} half of the leaderboard's split ({len(sub)} data sets)\n")
            summary(sub, {r["dataset"]: nested[r["dataset"]] for r in sub}, log)
    log("\n## Per data set\n")
    log(table(rows, nested, half_of))
    log(f"\nThe command took {(time.perf_counter() - t_start) / 60:.1f} min (cached rows "
        "are read, not recomputed).")
    if not args.datasets and args.shard == "0/1":
        pool_mod.write_atomic(args.out, buf.getvalue())


if __name__ == "__main__":
    main()
