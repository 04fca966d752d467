"""Train the learned scorer of the route's candidates and write its shipped table.

    OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 PYTHONPATH=src \
        python benchmarks/label_free/train_scorer.py [--out FILE.json]

The rows are those of ``scorer_rows.py`` (its cache, ``results/label_free_scorer/``):
one per usable candidate of the route on each real, planted and semi-synthetic case.
The model (:func:`fit_scorer`):

* inputs :data:`ufsel.model_selection._scorer.SCORER_FEATURES`, standardised;
* target: the candidate's top k beat the 90th percentile of same-size random subsets
  (``beats_p90``); each case weighs 1 in all (its rows ``1 / candidates``);
* a logistic regression whose ``C`` (of :data:`C_GRID`) has the smallest weighted log
  loss out of fold (:data:`INNER_FOLDS` folds grouped by data set: a semi-synthetic case
  goes with its parent, a planted case with its generator);
* Platt scaling fitted on those out-of-fold log-odds of the candidate each real-data case
  would choose (the largest): the probability reported is the chosen candidate's, on data
  like the user's;
* the threshold of "beats random" chosen Learn-then-Test style on the out-of-fold
  claims of the real-data cases (a claim: the structure test passes and the calibrated
  probability is at least the threshold): thresholds from high to low, each tested for
  precision > :data:`TARGET_PRECISION` (binomial, level :data:`LTT_DELTA`), the lowest
  before the first that fails (fixed-sequence testing). None passing: 1.01, never said.

The table is written, atomically, beside its reader
(``src/ufsel/model_selection/scorer_table.json``) unless ``--out`` names another file.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import pool as pool_mod  # noqa: E402
import scorer_rows as rows_mod  # noqa: E402

PACKAGE_TABLE = REPO / "src" / "ufsel" / "model_selection" / "scorer_table.json"
C_GRID = (0.01, 0.1, 1.0)
INNER_FOLDS = 5
TARGET_PRECISION = 0.9
LTT_DELTA = 0.1
THRESHOLD_GRID = tuple(np.round(np.arange(0.99, 0.49, -0.01), 2))
NEVER = 1.01
MIN_CALIBRATION_CASES = 20


def structure_passes(r):
    """The label-free structure test of a candidate: the gate's relevance route, or the
    agreement test where held-out rows have relevant features (the recommender's record,
    the gate's other route, is what the probability replaces)."""
    return bool(r.get("test_outcome") == "beats random"
                or (r.get("test_passes") and (r.get("heldout_relevant") or 0) > 0))


def build_cases(rows):
    """The rows grouped by case, each with its feature matrix (usable candidates only)."""
    from ufsel.model_selection._scorer import candidate_features  # private: needs public API

    by = {}
    for r in rows:
        by.setdefault(r["dataset"], []).append(r)
    cases = []
    for name, rs in sorted(by.items()):
        use = [r for r in rs if not r["degenerate"] and "beats_p90" in r]
        if not use:
            continue
        r0 = use[0]
        F = candidate_features(use, meta=r0["meta"], n_relevant=r0["n_relevant"],
                               n_features=r0["d"], few_relevant=r0["few_relevant"],
                               standardized=r0["standardized"], support=r0["support"])
        cases.append({"name": name, "group": r0["group"], "source": r0["source"],
                      "kind": r0["kind"], "rows": use, "F": F,
                      "y": np.array([bool(r["beats_p90"]) for r in use]),
                      "structure": np.array([structure_passes(r) for r in use])})
    return cases


def _stack(cases):
    F = np.vstack([c["F"] for c in cases])
    y = np.concatenate([c["y"] for c in cases]).astype(int)
    w = np.concatenate([np.full(len(c["rows"]), 1.0 / len(c["rows"])) for c in cases])
    g = np.concatenate([[c["group"]] * len(c["rows"]) for c in cases])
    return F, y, w, g


def _logistic(F, y, w, C):
    from sklearn.linear_model import LogisticRegression

    mean, scale = F.mean(axis=0), F.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=C, max_iter=2000).fit((F - mean) / scale, y, sample_weight=w)
    return {"mean": mean, "scale": scale, "coef": model.coef_[0],
            "intercept": float(model.intercept_[0])}


def _decision(m, F):
    return ((F - m["mean"]) / m["scale"]) @ m["coef"] + m["intercept"]


def _sigmoid(s):
    return 1.0 / (1.0 + np.exp(-np.clip(s, -500, 500)))


def _oof(cases, C):
    """Out-of-fold log-odds of every row (folds grouped)."""
    from sklearn.model_selection import GroupKFold

    F, y, w, g = _stack(cases)
    out = np.zeros(len(y))
    n_folds = min(INNER_FOLDS, len(set(g)))
    for tr, te in GroupKFold(n_splits=n_folds).split(F, y, g):
        if len(set(y[tr])) < 2:
            out[te] = 0.0
            continue
        out[te] = _decision(_logistic(F[tr], y[tr], w[tr], C), F[te])
    return out, y, w


def _weighted_log_loss(p, y, w):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.sum(w * (y * np.log(p) + (1 - y) * np.log(1 - p))) / w.sum())


def platt(s, y, w):
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(C=1e4, max_iter=1000).fit(s[:, None], y, sample_weight=w)
    return float(m.coef_[0, 0]), float(m.intercept_[0])


def case_claims(cases, probs, t):
    """(said, right) per case: the case's chosen candidate (largest probability), claimed
    when its structure test passes and its probability is at least t."""
    out = []
    for c, p in zip(cases, probs):
        i = int(np.argmax(p))
        said = bool(c["structure"][i] and p[i] >= t)
        out.append((said, bool(c["y"][i])))
    return out


def ltt_threshold(cases, probs):
    """The lowest threshold of the fixed sequence whose precision is shown above the target
    (binomial test at LTT_DELTA), on the real-data cases."""
    from scipy.stats import binom

    real = [(c, p) for c, p in zip(cases, probs) if c["kind"] == "real"]
    if not real:
        return NEVER
    cs, ps = zip(*real)
    chosen = NEVER
    for t in THRESHOLD_GRID:
        claims = case_claims(cs, ps, t)
        n = sum(s for s, _ in claims)
        right = sum(s and r for s, r in claims)
        if n == 0 or binom.sf(right - 1, n, TARGET_PRECISION) > LTT_DELTA:
            break
        chosen = float(t)
    return chosen


def empirical_threshold(cases, probs):
    """The lowest threshold whose out-of-fold precision on the real-data cases is at least
    the target, with at least 5 claims (no bound on new data: for comparison only)."""
    real = [(c, p) for c, p in zip(cases, probs) if c["kind"] == "real"]
    chosen = NEVER
    if not real:
        return chosen
    cs, ps = zip(*real)
    for t in THRESHOLD_GRID:
        claims = case_claims(cs, ps, t)
        n = sum(s for s, _ in claims)
        right = sum(s and r for s, r in claims)
        if n >= 5 and right >= TARGET_PRECISION * n:
            chosen = float(t)
    return chosen


def fit_scorer(cases):
    """The scorer's table fitted on ``cases`` (C, Platt and threshold chosen out of fold)."""
    best = None
    for C in C_GRID:
        s, y, w = _oof(cases, C)
        a, b = platt(s, y, w)
        loss = _weighted_log_loss(_sigmoid(a * s + b), y, w)
        if best is None or loss < best[0] - 1e-9:
            best = (loss, C, s, y, w, (a, b))
    _, C, s, y, w, (a, b) = best
    sizes = np.cumsum([0] + [len(c["rows"]) for c in cases])
    logits = [s[i:j] for i, j in zip(sizes[:-1], sizes[1:])]
    # the probability reported is the chosen candidate's (the largest of several), on data
    # like the user's: Platt scaling refitted on the chosen candidates of the real-data cases
    real = [(float(lg.max()), float(c["y"][int(np.argmax(lg))]))
            for c, lg in zip(cases, logits) if c["kind"] == "real"]
    if len(real) >= MIN_CALIBRATION_CASES and 0 < sum(t for _, t in real) < len(real):
        sc, yc = (np.array(v) for v in zip(*real))
        a, b = platt(sc, yc.astype(int), np.ones(len(sc)))
    probs = [_sigmoid(a * lg + b) for lg in logits]
    threshold = ltt_threshold(cases, probs)
    empirical = empirical_threshold(cases, probs)
    F, y, w, _ = _stack(cases)
    m = _logistic(F, y, w, C)
    from ufsel.model_selection._scorer import SCORER_FEATURES  # private: needs public API

    sets = {}
    for c in cases:
        kind = "planted" if c["source"] == "planted" else "semi-synthetic" if "+" in c[
            "name"] else "real"
        sets[kind] = sets.get(kind, 0) + 1
    return {"model": "logistic", "features": list(SCORER_FEATURES),
            "mean": m["mean"].tolist(), "scale": m["scale"].tolist(),
            "coef": m["coef"].tolist(), "intercept": m["intercept"], "C": C,
            "platt": [a, b], "calibrated_on": "the chosen candidate of each real-data case",
            "threshold": threshold, "threshold_empirical": empirical,
            "target": "beats the 90th percentile of same-size random subsets",
            "target_precision": TARGET_PRECISION, "ltt_delta": LTT_DELTA,
            "n_training_sets": len(cases), "training_sets": sets,
            "training_groups": len({c["group"] for c in cases}),
            "oof_log_loss": best[0]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(PACKAGE_TABLE))
    args = ap.parse_args(argv)
    cases = build_cases(rows_mod.read_rows())
    if not cases:
        sys.exit("error: no cached rows; run benchmarks/label_free/scorer_rows.py first")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = fit_scorer(cases)
    pool_mod.write_atomic(args.out, json.dumps(table, indent=1) + "\n")
    print(f"{table['n_training_sets']} cases ({table['training_sets']}), C = {table['C']}, "
          f"threshold {table['threshold']}, out-of-fold log loss {table['oof_log_loss']:.3f} "
          f"-> {args.out}")


if __name__ == "__main__":
    main()
