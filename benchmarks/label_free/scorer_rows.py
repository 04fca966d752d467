"""Training rows of the learned scorer: each candidate of the default route, its label-free
evidence and the truth, on real, planted and semi-synthetic data.

    OPENBLAS_CORETYPE=Haswell UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 PYTHONPATH=src \
        nice -n 15 python benchmarks/label_free/scorer_rows.py \
        [--sources pool,planted,semi] [--datasets iris,wine] [--seeds 6] [--fresh]

For each data set the default route (``AutoSelector(random_state=0, n_resamples=0,
verdict=False)``) runs on at most :data:`MAX_ROWS` rows (a seeded sample of larger sets;
the same rows judge it), and for **each candidate** of its evidence one row is written:

* **label-free inputs**: the data's meta-features, the recommender's predicted gain of
  the candidate (trained without the data set, and without a semi-synthetic case's
  parent: ``MethodRecommender(exclude=[...])``) and its support, the similarity to the
  pool, the relevant features among the candidate's top ``n_relevant`` over
  ``n_relevant``, ``n_relevant / d``, whether they are few, the criterion's z-score
  against random subsets, the degenerate flag, the count ``k`` and ``k / d``; and the
  label-free **structure test** of the candidate's top k
  (:func:`~ufsel.model_selection.assess_selection`, held out, 100 random subsets, with
  the relevance test: its p-values and whether it passes);
* **the truth** at the count the route chose (the present count rule, on the chosen
  candidate's curve: one count per data set, so that the random subsets are shared):

  - *real and semi-synthetic sets*: the ACC of k-means++ with K = classes
    (:data:`KMEANS_RUNS` seeds) on the candidate's top k against :data:`RANDOM_SUBSETS`
    random subsets of size k (their mean and 90th percentile), and ``gain`` = ACC minus
    the random mean;
  - *planted cases* (:func:`ufsel.datasets.make_sanity_case`, seeds ``0..seeds-1``): the
    planted features among the top k against a random subset's (hypergeometric mean and
    90th percentile); null cases and real sets with independently permuted columns are
    "no" by construction.

Row sources: ``pool`` (the recommender's 56 data sets), ``planted`` (every sanity
generator but the unscored "correlated"), ``semi`` (for each of :data:`SEMI_PARENTS`: the
set with as many pure-noise columns appended, the set with planted cluster columns
appended whose clusters are its classes, and the set with each column permuted
independently; each row's ``group`` is the parent's name).

Each data set's rows are cached as one JSON file (``results/label_free_scorer/``, written
atomically), so an interrupted run resumes; ``--fresh`` recomputes. The load average is
printed beside every data set's time.
"""

from __future__ import annotations

import argparse
import json
import os
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

CACHE = REPO / "results" / "label_free_scorer"
#: Rows of the route and of the ACC (a seeded sample of larger data sets).
MAX_ROWS = 2000
#: k-means++ seeds of each ACC, and random subsets of the truth.
KMEANS_RUNS, RANDOM_SUBSETS = 5, 20
#: Random subsets of each candidate's structure test.
TEST_DRAWS = 100
#: The real sets that parent the semi-synthetic cases (small, from every source).
SEMI_PARENTS = ("iris", "wine", "ecoli", "heart", "pima", "vowel", "german", "breast_cancer",
                "italypowerdemand", "lung_discrete", "colon", "yale")
#: The sanity generators whose truth is scored (not "correlated").
PLANTED_KINDS = ("planted", "null")


def _dense(X):
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)


def subsample(X, y, max_rows=MAX_ROWS, seed=0):
    """At most ``max_rows`` rows (a seeded sample, in their order)."""
    n = X.shape[0]
    if n <= max_rows:
        return X, y
    rows = np.sort(np.random.RandomState(seed).choice(n, max_rows, replace=False))
    return X[rows], (None if y is None else y[rows])


def label_acc(X, y, cols):
    from ufsel.evaluation import evaluate_selection

    res = evaluate_selection(X, y, np.asarray(sorted(cols), dtype=np.intp), n_runs=KMEANS_RUNS,
                             random_state=0, loo=False, init="k-means++")
    return float(res["acc_mean"])


def top_k(sel, e, k):
    """The candidate's top k features as the route would keep them (a count-dependent
    method refitted at k, as the route refits the chosen one)."""
    from sklearn.base import clone

    from ufsel.utils import get_selector_tags

    if k in e.rankings:
        ranking = e.rankings[k]
    elif get_selector_tags(e.estimator).scores_depend_on_count:
        est = clone(e.estimator).set_params(n_features_to_select=k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranking = est.fit(sel.description_.Xw).ranking_
    else:
        ranking = e.rankings[max(e.rankings)]
    return np.argsort(ranking, kind="stable")[:k]


def structure_test(sel, e, top):
    """The candidate's label-free structure test (held out, with relevance)."""
    from sklearn.base import clone

    from ufsel.model_selection import assess_selection

    Xw = sel.description_.Xw
    n = Xw.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = assess_selection(Xw, top, estimator=clone(e.estimator).set_params(
            n_features_to_select=len(top)), n_clusters=sel.n_clusters_, n_draws=TEST_DRAWS,
            held_out=n >= 20, random_state=np.random.RandomState(0))
    rel = v.relevance
    return {"test_p": float(v.p_value), "test_z": float(v.z_score),
            "testable": bool(v.testable),
            "test_passes": bool(v.p_value <= v.alpha and v.z_score > 0),
            "relevance_p": None if rel is None or rel.n_relevant == 0 else float(rel.p_value),
            "heldout_relevant": None if rel is None else int(rel.n_relevant),
            "test_outcome": v.outcome}


def case_rows(name, X, y, *, source, group, kind, exclude=(), planted=None):
    """One row per candidate of the route on X (see the module's docstring)."""
    from threadpoolctl import threadpool_limits

    from ufsel import AutoSelector
    from ufsel.model_selection import MethodRecommender

    X = _dense(X)
    X, y = subsample(X, y)
    n, d = X.shape
    t0, c0 = time.perf_counter(), time.process_time()
    rec = MethodRecommender(exclude=list(exclude))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = AutoSelector(random_state=0, n_resamples=0, verdict=False,
                           recommender=rec).fit(X)
    route_cpu = time.process_time() - c0
    k = int(sel.n_features_to_select_)
    desc, recm = sel.description_, sel.recommendation_
    R = desc.n_relevant
    base = {"dataset": name, "source": source, "group": group, "kind": kind, "n": n, "d": d,
            "k": k, "K": int(sel.n_clusters_), "n_relevant": R,
            "few_relevant": bool(desc.few_relevant), "standardized": bool(desc.standardized),
            "route_method": sel.method_, "recommended": recm.method, "support": recm.support,
            "similarity": float(sel.strategy_.similarity), "meta": dict(sel.meta_features_),
            "trained_on": len(rec.rows), "route_cpu_s": route_cpu}
    with threadpool_limits(limits=1):
        truth_random = None
        if kind == "real":
            rng = np.random.RandomState(0)
            vals = [label_acc(X, y, rng.choice(d, k, replace=False))
                    for _ in range(RANDOM_SUBSETS)]
            truth_random = {"mean": float(np.mean(vals)), "p90": float(np.percentile(vals, 90))}
            base.update(classes=int(np.unique(y).size), random_mean=truth_random["mean"],
                        random_p90=truth_random["p90"])
        elif kind == "planted":
            from scipy.stats import hypergeom

            m = int(planted.size)
            base.update(planted=m, random_mean=k * m / d,
                        random_p90=float(hypergeom(d, m, k).ppf(0.9)))
        rows = []
        for e in sel.evidence_:
            row = {**base, "method": e.method, "prior": e.prior, "z_score": e.z_score,
                   "relevant_hits": e.relevant_hits,
                   "degenerate": e.degenerate is not None, "chosen": e.method == sel.method_}
            if not e.usable:
                rows.append(row)
                continue
            top = top_k(sel, e, k)
            row.update(structure_test(sel, e, top) if 0 < k < d else {})
            if kind == "real":
                acc = label_acc(X, y, top)
                row.update(value=acc, gain=acc - truth_random["mean"],
                           beats_mean=acc > truth_random["mean"],
                           beats_p90=acc > truth_random["p90"])
            elif kind == "planted":
                hits = int(np.isin(top, planted).sum())
                row.update(value=hits, gain=(hits - base["random_mean"]) / k,
                           beats_mean=hits > base["random_mean"],
                           beats_p90=hits > base["random_p90"])
            else:  # null, permuted: no structure by construction
                row.update(value=None, gain=0.0, beats_mean=False, beats_p90=False)
            rows.append(row)
    return rows, time.perf_counter() - t0


# -- the cases ----------------------------------------------------------------------------

def pool_cases(names=None):
    from ufsel.model_selection import read_training_table

    table = {r["dataset"]: r for r in read_training_table()}
    for name in sorted(names or table, key=lambda s: table[s]["log_n"] + table[s]["log_d"]):
        def make(name=name):
            X, y = train_mod.load_any(name)
            return dict(X=X, y=np.asarray(y), source=table[name]["source"], group=name,
                        kind="real", exclude=[name])
        yield name, make


def planted_cases(seeds, names=None):
    from ufsel.datasets import SANITY_GENERATORS, make_sanity_case

    for gen in names or SANITY_GENERATORS:
        for seed in range(seeds):
            def make(gen=gen, seed=seed):
                case = make_sanity_case(gen, seed)
                return dict(X=case.X, y=None, source="planted", group=f"planted:{gen}",
                            kind="planted" if case.kind == "planted" else "null",
                            planted=case.planted)
            if gen != "correlated":
                yield f"{gen}_{seed}", make


def _column_scale(X):
    sd = X.std(axis=0)
    sd = sd[sd > 0]
    return float(np.median(sd)) if sd.size else 1.0


def semi_case(parent, variant, seed=0):
    """A real set with pure-noise columns appended ("noise"), with planted cluster columns
    whose clusters are its classes appended ("planted"), or with each column permuted
    independently ("permuted")."""
    X, y = train_mod.load_any(parent)
    X, y = subsample(_dense(X), np.asarray(y))
    n, d = X.shape
    rng = np.random.RandomState(seed)
    s = _column_scale(X)
    if variant == "noise":
        extra = s * rng.standard_normal((n, max(d, 10)))
    elif variant == "planted":
        classes, codes = np.unique(y, return_inverse=True)
        m = max(2, int(round(0.1 * d)))
        centres = 2.0 * rng.standard_normal((classes.size, m))
        extra = s * (centres[codes] + rng.standard_normal((n, m)))
    elif variant == "permuted":
        return np.column_stack([rng.permutation(X[:, j]) for j in range(d)]), y
    else:
        raise ValueError(variant)
    Xa = np.hstack([X, extra])
    perm = rng.permutation(Xa.shape[1])
    return Xa[:, perm], y


def semi_cases(names=None):
    table = {nm: train_mod.source_of(nm) for nm in SEMI_PARENTS}
    for parent in names or SEMI_PARENTS:
        for variant in ("noise", "planted", "permuted"):
            def make(parent=parent, variant=variant):
                X, y = semi_case(parent, variant)
                return dict(X=X, y=y, source=table[parent], group=parent,
                            kind="null" if variant == "permuted" else "real",
                            exclude=[parent])
            yield f"{parent}+{variant}", make


def run(cases, fresh=False, log=print):
    for name, make in cases:
        path = CACHE / f"{name}.json"
        if path.exists() and not fresh:
            continue
        spec = make()
        X, y = spec.pop("X"), spec.pop("y")
        try:
            rows, wall = case_rows(name, X, y, **spec)
        except Exception as exc:  # a case that fails is recorded, not retried forever
            rows, wall = [{"dataset": name, "error": f"{type(exc).__name__}: {exc}"}], 0.0
        pool_mod.write_atomic(path, json.dumps(rows))
        r0 = rows[0]
        log(f"{name} {r0.get('n')}x{r0.get('d')} k={r0.get('k')} {len(rows)} candidates "
            f"{r0.get('error', '')} ({wall:.1f} s, load {os.getloadavg()[0]:.2f})")


def read_rows(cache=CACHE):
    """Every cached row (cases that failed are left out)."""
    out = []
    for path in sorted(Path(cache).glob("*.json")):
        out.extend(r for r in json.loads(path.read_text()) if "error" not in r)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", default="pool,planted,semi")
    ap.add_argument("--datasets", help="comma-separated names of the pool / parents / "
                                       "generators")
    ap.add_argument("--seeds", type=int, default=6, help="seeds of each sanity generator")
    ap.add_argument("--fresh", action="store_true")
    args = ap.parse_args(argv)
    names = args.datasets.split(",") if args.datasets else None
    t0 = time.perf_counter()
    log = lambda m: print(m, flush=True)  # noqa: E731
    for src in args.sources.split(","):
        cases = {"pool": lambda: pool_cases(names), "planted": lambda: planted_cases(
            args.seeds, names), "semi": lambda: semi_cases(names)}[src]()
        run(cases, fresh=args.fresh, log=log)
    rows = read_rows()
    print(f"{len(rows)} rows cached; this run {(time.perf_counter() - t0) / 60:.1f} min "
          f"(load {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
