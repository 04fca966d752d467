"""The route's choice rule, its weights chosen leave-one-data-set-out on the pool.

    PYTHONPATH=src python benchmarks/label_free/choice_weights.py \
        [--out benchmarks/results/label_free/choice_weights.md]

Reads what ``evaluate_pool.py --all-evidence`` cached (``results/label_free_pool/route/``:
each pool data set's every non-provisional method fitted as the route fits a candidate,
with its evidence) and the pool's table of grid-mean ACC per method (the labels, only to
judge). A rule scores each candidate

    score = z + w_hits * 10 * hits / n_relevant + prior_z * similarity * share

(``z`` the mean z-score of its top features against random subsets, ``hits`` the relevant
features among its top ``n_relevant`` when 0 < n_relevant < d, ``share`` its predicted gain
over the recommended method's, clipped to [0, 1], from a recommender that never saw the data
set) over a candidate set ("shortlist": the recommender's two best and the cheap filters;
"all": every method), and keeps the largest. ``w_hits = inf`` puts the relevant features
first (the rule shipped before this study). For each data set the weights are chosen on the
other 55 (largest mean grid ACC of the chosen method) and applied to it: the figures are
held out. The rule chosen on all 56 is printed too (in-sample).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = REPO / "results" / "label_free_pool" / "route"
OUT = REPO / "benchmarks" / "results" / "label_free" / "choice_weights.md"
W_HITS = (0.0, 0.5, 1.0, 2.0, np.inf)
PRIOR_Z = (0.0, 1.0, 2.0, 4.0, 8.0, 1000.0)
SETS = ("shortlist", "all")
#: The relevant features count only where at most this fraction of d is relevant.
HITS_CAP = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0)


def load():
    sys.path.insert(0, str(REPO / "src"))
    from ufsel.model_selection import MethodRecommender, read_training_table
    from ufsel.model_selection._route import (  # private: needs public API
        CHEAP_METHODS,
        PROVISIONAL_METHODS,
        SHORTLIST_SIZE,
    )

    table = {r["dataset"]: r for r in read_training_table()}
    out = []
    for name, row in sorted(table.items()):
        path = CACHE / f"{name}.evidence.json"
        if not path.exists():
            continue
        ev = json.loads(path.read_text())
        rec = MethodRecommender(exclude=[name])
        feats = {k: row[k] for k in row if k not in ("dataset", "source", "acc", "random")}
        allowed = [m for m in rec.methods if m not in PROVISIONAL_METHODS]
        recommendation = rec.recommend(feats, allowed)
        ranked = sorted(recommendation.predicted_gain,
                        key=lambda m: (-recommendation.predicted_gain[m], m))
        short = set(ranked[:SHORTLIST_SIZE]) | set(CHEAP_METHODS)
        d = int(round(np.exp(row["log_d"])))
        out.append({"dataset": name, "source": row["source"], "acc": row["acc"],
                    "random": row["random"], "n_relevant": ev["n_relevant"], "d": d,
                    "similarity": rec.similarity(feats), "rec": recommendation,
                    "shortlist": short, "candidates": [c for c in ev["candidates"]
                                                       if c["degenerate"] is None
                                                       and c["z_score"] is not None]})
    return out


def choose(ds, w_hits, prior_z, cset, cap=1.0, max_relevant=np.inf):
    rec = ds["rec"]
    top = rec.predicted_gain.get(rec.method)
    R, d = ds["n_relevant"], ds["d"]
    best, best_key = None, None
    for c in ds["candidates"]:
        if cset == "shortlist" and c["method"] not in ds["shortlist"]:
            continue
        g = rec.predicted_gain.get(c["method"])
        share = 0.0 if g is None or top is None or top <= 0 else (
            1.0 if c["method"] == rec.method else float(np.clip(g / top, 0, 1)))
        few = R and 0 < R <= min(cap * d, max_relevant) and R < d
        hits = (c["relevant_hits"] or 0) / R if few else 0.0
        prior = prior_z * ds["similarity"] * share
        if np.isinf(w_hits):
            key = (hits, c["z_score"] + prior)
        else:
            key = (0.0, c["z_score"] + w_hits * 10 * hits + prior)
        if best_key is None or key > best_key:
            best, best_key = c["method"], key
    return best


def acc_of(ds, method):
    return ds["acc"].get(method, ds["random"])


def grid():
    return list(itertools.product(W_HITS, PRIOR_Z, SETS, HITS_CAP))


def mean_acc(rows, params):
    return float(np.mean([acc_of(ds, choose(ds, *params)) for ds in rows]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    rows = load()
    lines = [f"# The choice rule's weights, leave-one-data-set-out ({len(rows)} data sets)\n",
             "Command: `PYTHONPATH=src python benchmarks/label_free/choice_weights.py` (after "
             "`evaluate_pool.py --fresh --all-evidence`).\n"]
    held = []
    for i, ds in enumerate(rows):
        others = rows[:i] + rows[i + 1:]
        params = max(grid(), key=lambda p: (mean_acc(others, p), p[3], -p[1]))
        m = choose(ds, *params)
        held.append((ds, params, m))
    best = [max(ds["acc"].values()) for ds, _, _ in held]
    got = [acc_of(ds, m) for ds, _, m in held]
    above = sum(acc_of(ds, m) > ds["random"] for ds, _, m in held)
    lines.append(f"- held out: the chosen method's grid ACC above random subsets on {above} of "
                 f"{len(rows)}; mean gap to the best method chosen with labels "
                 f"{100 * np.mean(np.subtract(best, got)):.1f} ACC points")
    for src in sorted({ds["source"] for ds in rows}):
        sub = [(ds, m) for ds, _, m in held if ds["source"] == src]
        lines.append(f"  - {src}: above random on {sum(acc_of(ds, m) > ds['random'] for ds, m in sub)}"
                     f" of {len(sub)}")
    for label, params in (("recommender alone (prior only, shortlist)", (0.0, 1000.0, "shortlist", 1.0)),
                          ("relevant features first, prior 2 (the first shipped rule)",
                           (np.inf, 2.0, "shortlist", 1.0)),
                          ("evidence alone (z-score), every method", (0.0, 0.0, "all", 1.0)),
                          ("relevant features first where at most 30 % of d is relevant, "
                           "then the prior", (np.inf, 1000.0, "shortlist", 0.3)),
                          ("the shipped rule (Shortlist: relevant features first where at most "
                           "min(30 % of d, 50) are relevant, then the prior, then z)",
                           (np.inf, 1000.0, "shortlist", 0.3, 50))):
        ch = [choose(ds, *params) for ds in rows]
        lines.append(f"- {label}: above random on "
                     f"{sum(acc_of(ds, m) > ds['random'] for ds, m in zip(rows, ch))}, gap "
                     f"{100 * np.mean([max(ds['acc'].values()) - acc_of(ds, m) for ds, m in zip(rows, ch)]):.1f}")
    final = max(grid(), key=lambda p: (mean_acc(rows, p), p[3], -p[1]))
    lines.append(f"- chosen on all {len(rows)} (in-sample): w_hits = {final[0]}, prior_z = "
                 f"{final[1]}, candidates = {final[2]}, cap = {final[3]}: mean grid ACC "
                 f"{100 * mean_acc(rows, final):.1f}")
    lines.append("\n| data set | source | weights chosen on the others (w_hits, prior_z, set) | "
                 "chosen | its grid ACC | random | best (method) |")
    lines.append("|---|---|---|---|---|---|---|")
    for ds, p, m in held:
        bm = max(sorted(ds["acc"]), key=ds["acc"].get)
        lines.append(f"| {ds['dataset']} | {ds['source']} | {p[0]}, {p[1]}, {p[2]}, {p[3]} | {m} | "
                     f"{100 * acc_of(ds, m):.1f} | {100 * ds['random']:.1f} | "
                     f"{100 * ds['acc'][bm]:.1f} ({bm}) |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
