"""The learned scorer judged on data it did not see: leave one data set out, leave one source out.

    OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 PYTHONPATH=src \
        python benchmarks/label_free/evaluate_scorer.py \
        [--out benchmarks/results/label_free/scorer.md] [--figure docs/_static/scorer_reliability.png]

The rows are those of ``scorer_rows.py`` (its cache). For each held-out group the whole of
``train_scorer.fit_scorer`` (C, Platt scaling and the threshold, each chosen out of fold
inside the training groups: nested) is refitted on the other groups and applied to it:

* **leave one data set out**: a group is a pool data set with its semi-synthetic cases
  (noise columns appended, planted cluster columns appended, columns permuted), or a
  sanity generator with all its seeds;
* **leave one source out**: KEEL, UCR, the .mat sets, scikit-learn's (each with its
  semi-synthetic children), and the planted cases.

On each held-out case four choices among the same candidates are compared, each at the
route's count k (one per data set: the present count rule on the hand rule's candidate):
the **learned** scorer (largest probability), the **prior alone** (largest predicted gain,
then z), the **evidence alone** (most relevant features among the top where they are
few, then z) and the **hand rule** (the route's present choice). Measured on the pool's
56 sets: the chosen selection above the mean of same-size random subsets (k-means++ ACC,
K = classes), the gap to the best method chosen with labels (the pool table's grid-mean
ACC), the calibration of the chosen candidate's probability against "above the random
subsets' 90th percentile" (expected calibration error over 10 equal-width bins, Brier
score against the base rate's), and "beats random" (the structure test passes and the
probability is at least the threshold): precision and recall. On planted cases: the
sanity suite's goals (at least 90 % of the kept features planted, at least min(4,
planted) kept, "beats random" said); on null cases and permuted real sets: "beats
random" said (the goal is never).
"""

from __future__ import annotations

import argparse
import io
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
import scorer_rows as rows_mod  # noqa: E402
import train_scorer as train_mod  # noqa: E402

OUT = REPO / "benchmarks" / "results" / "label_free" / "scorer.md"
FIGURE = REPO / "docs" / "_static" / "scorer_reliability.png"
BINS = 10


def _z(r):
    return -np.inf if r.get("z_score") is None else r["z_score"]


def _hits(c, r):
    return (r.get("relevant_hits") or 0) if c["rows"][0]["few_relevant"] else 0


#: The comparison choices: a key to maximise over a case's usable candidates.
BASELINES = {
    "prior alone": lambda c, r: (r["prior"] if r["prior"] is not None else -np.inf, _z(r)),
    "evidence alone": lambda c, r: (_hits(c, r), _z(r)),
    "hand rule": lambda c, r: (bool(r["chosen"]),),
}


def predict(train, test):
    """The scorer fitted on ``train`` (nested), its probabilities on ``test``."""
    from ufsel.model_selection import LearnedScorer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = train_mod.fit_scorer(train)
    sc = LearnedScorer(table)
    return [sc.probability(c["F"]) for c in test], table


def cross_fit(cases, key):
    """Out-of-fold probabilities and thresholds of every case, held out by ``key``."""
    probs, thresholds, empirical = ([None] * len(cases) for _ in range(3))
    for g in sorted({key(c) for c in cases}):
        te = [i for i, c in enumerate(cases) if key(c) == g]
        tr = [c for c in cases if key(c) != g]
        ps, table = predict(tr, [cases[i] for i in te])
        for i, p in zip(te, ps):
            probs[i], thresholds[i] = p, table["threshold"]
            empirical[i] = table["threshold_empirical"]
    return probs, thresholds, empirical


def source_group(c):
    return c["source"]


def data_set_group(c):
    return c["group"]


def outcome(c, p, t):
    """What the learned scorer and each baseline chose on one case, and what was said."""
    i = int(np.argmax(p))
    out = {"learned": c["rows"][i]}
    for name, key in BASELINES.items():
        out[name] = max(c["rows"], key=lambda r: key(c, r))
    said = bool(c["structure"][i] and p[i] >= t)
    return out, float(p[i]), said


def ece(p, y, bins=BINS):
    p, y = np.asarray(p), np.asarray(y, dtype=float)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    return float(sum(abs(p[idx == b].mean() - y[idx == b].mean()) * np.sum(idx == b)
                     for b in range(bins) if np.any(idx == b)) / len(p))


def _pct(a, b):
    return f"{a} of {b}" + (f" ({100 * a / b:.0f} %)" if b else "")


def grid_acc():
    from ufsel.model_selection import read_training_table

    return {r["dataset"]: r["acc"] for r in read_training_table()}


def report(cases, probs, thresholds, empirical, label, log, acc_table):
    """The figures on the pool's sets, the planted cases and the null cases."""
    choices = ["learned", *BASELINES]
    in_pool = [c["kind"] == "real" and "+" not in c["name"] and c["source"] != "planted"
               for c in cases]
    pool = [(c, p, t) for c, p, t, keep in zip(cases, probs, thresholds, in_pool) if keep]
    pool_empirical = [e for e, keep in zip(empirical, in_pool) if keep]
    log(f"\n### {label}\n")
    if pool:
        res = [(c, *outcome(c, p, t)) for c, p, t in pool]
        log(f"**The pool's {len(pool)} real data sets.**\n")
        log("| choice | above random at own count | per source | above p90 | mean gap to the "
            "best method (grid ACC, points) | mean gap to the best candidate at k (points) |")
        log("|---|---|---|---|---|---|")
        for ch in choices:
            beats = [r[ch]["beats_mean"] for _, r, _, _ in res]
            p90 = [r[ch]["beats_p90"] for _, r, _, _ in res]
            per = []
            for src in sorted({c["source"] for c, *_ in res}):
                sub = [r[ch]["beats_mean"] for c, r, _, _ in res if c["source"] == src]
                per.append(f"{src} {sum(sub)}/{len(sub)}")
            gaps, gaps_k = [], []
            for c, r, _, _ in res:
                acc = acc_table.get(c["name"], {})
                if acc and r[ch]["method"] in acc:
                    gaps.append(max(acc.values()) - acc[r[ch]["method"]])
                gaps_k.append(max(x["value"] for x in c["rows"]) - r[ch]["value"])
            log(f"| {ch} | {_pct(sum(beats), len(beats))} | {', '.join(per)} | "
                f"{_pct(sum(p90), len(p90))} | {100 * np.mean(gaps):.1f} (on {len(gaps)}) | "
                f"{100 * np.mean(gaps_k):.1f} |")
        P = np.array([pp for _, _, pp, _ in res])
        Y = np.array([r["learned"]["beats_p90"] for _, r, _, _ in res], dtype=float)
        base = Y.mean()
        brier, brier0 = float(np.mean((P - Y) ** 2)), float(np.mean((base - Y) ** 2))
        said = [s for *_, s in res]
        right = int(sum(s and y for s, y in zip(said, Y)))
        log(f"\n- calibration of the chosen candidate's probability (truth: above the random "
            f"subsets' 90th percentile, base rate {100 * base:.0f} %): expected calibration "
            f"error {ece(P, Y):.3f} (goal <= 0.08); Brier {brier:.3f} against the base "
            f"rate's {brier0:.3f} (ratio {brier / brier0:.2f}, goal <= 0.8)")
        log(f"- \"beats random\" (structure test and probability >= the threshold chosen out "
            f"of fold, median {np.median([t for *_, t in pool]):.2f}): said {sum(said)}, "
            f"precision {_pct(right, sum(said))} (goal >= 90 %), recall "
            f"{_pct(right, int(Y.sum()))}")
        emp = [outcome(c, p, t)[2] for (c, p, _), t in zip(pool, pool_empirical)]
        er = int(sum(s and y for s, y in zip(emp, Y)))
        log(f"- the same with the threshold of empirical precision >= 90 % out of fold (no "
            f"bound; for comparison): said {sum(emp)}, precision {_pct(er, sum(emp))}, recall "
            f"{_pct(er, int(Y.sum()))}")
        struct = [bool(c["structure"][int(np.argmax(p))]) for c, p, _ in pool]
        sr = int(sum(s and y for s, y in zip(struct, Y)))
        log(f"- the structure test alone on the learned choice: said {sum(struct)}, precision "
            f"{_pct(sr, sum(struct))}, recall {_pct(sr, int(Y.sum()))}")
        for src in sorted({c["source"] for c, *_ in res}):
            sub = [(pp, r["learned"]["beats_p90"], s) for c, r, pp, s in res
                   if c["source"] == src]
            Ps, Ys, Ss = (np.array(v, dtype=float) for v in zip(*sub))
            log(f"  - {src}: mean probability {Ps.mean():.2f}, above p90 {100 * Ys.mean():.0f} "
                f"%, said {int(Ss.sum())} (right {int((Ss * Ys).sum())})")
    semi = [(c, p, t) for c, p, t in zip(cases, probs, thresholds)
            if c["kind"] == "real" and "+" in c["name"]]
    if semi:
        res = [(c, *outcome(c, p, t)) for c, p, t in semi]
        log(f"\n**Semi-synthetic cases ({len(semi)}: noise or planted cluster columns "
            "appended to a real set).**\n")
        for ch in choices:
            for variant in ("noise", "planted"):
                sub = [r[ch]["beats_mean"] for c, r, _, _ in res if c["name"].endswith(variant)]
                if sub:
                    log(f"- {ch}, +{variant}: above random at own count "
                        f"{_pct(sum(sub), len(sub))}")
    planted = [(c, p, t) for c, p, t in zip(cases, probs, thresholds) if c["kind"] == "planted"]
    if planted:
        ok = pure = enough = said_n = 0
        for c, p, t in planted:
            out, _, said = outcome(c, p, t)
            r = out["learned"]
            pu = r["value"] >= 0.9 * r["k"]
            en = r["value"] >= min(4, r["planted"])
            pure, enough, said_n = pure + pu, enough + en, said_n + said
            ok += pu and en and said
        hand = sum(out["hand rule"]["value"] >= 0.9 * out["hand rule"]["k"]
                   for out, *_ in (outcome(c, p, t) for c, p, t in planted))
        log(f"\n**Planted cases ({len(planted)}).** Every goal met: {_pct(ok, len(planted))} "
            f"(goal 95 %); >= 90 % of the kept planted: {pure} (hand rule's choice: {hand}); "
            f">= min(4, planted) kept: {enough}; \"beats random\" said: {said_n}.")
    null = [(c, p, t) for c, p, t in zip(cases, probs, thresholds) if c["kind"] == "null"]
    if null:
        said = [c["name"] for c, p, t in null if outcome(c, p, t)[2]]
        struct = sum(bool(c["structure"][int(np.argmax(p))]) for c, p, _ in null)
        log(f"\n**Null cases and permuted real sets ({len(null)}).** \"Beats random\" said on "
            f"{len(said)} (goal 0){': ' + ', '.join(said) if said else ''}; the structure test "
            f"passed on the chosen candidate on {_pct(struct, len(null))} (goal <= 5 %).")


def per_data_set(cases, probs, thresholds, lo_probs, lo_thresholds):
    """The per-data-set table of the pool's real sets."""
    head = ("data set", "source", "learned (P, LOSO P)", "said", "above p90", "above random",
            "hand rule", "prior alone", "evidence alone")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c, p, t, q, _u in sorted(zip(cases, probs, thresholds, lo_probs, lo_thresholds),
                                key=lambda x: (x[0]["source"], x[0]["name"])):
        if c["kind"] != "real" or "+" in c["name"]:
            continue
        o, pp, said = outcome(c, p, t)
        qq = float(q[int(np.argmax(q))])
        mark = lambda r: f"{r['method']} ({'+' if r['beats_mean'] else '-'})"  # noqa: E731
        out.append("| " + " | ".join([
            c["name"], c["source"], f"{mark(o['learned'])} {pp:.2f}, {qq:.2f}",
            "beats random" if said else "-", "yes" if o["learned"]["beats_p90"] else "-",
            "yes" if o["learned"]["beats_mean"] else "-", mark(o["hand rule"]),
            mark(o["prior alone"]), mark(o["evidence alone"])]) + " |")
    return "\n".join(out)


def reliability_figure(sets, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="perfect calibration")
    for (label, P, Y), marker in zip(sets, "os^"):
        P, Y = np.asarray(P), np.asarray(Y, dtype=float)
        idx = np.minimum((P * BINS).astype(int), BINS - 1)
        xs = [P[idx == b].mean() for b in range(BINS) if np.any(idx == b)]
        ys = [Y[idx == b].mean() for b in range(BINS) if np.any(idx == b)]
        ns = [int(np.sum(idx == b)) for b in range(BINS) if np.any(idx == b)]
        ax.plot(xs, ys, marker=marker, label=f"{label} (n = {len(P)})")
        for x, yv, n in zip(xs, ys, ns):
            ax.annotate(str(n), (x, yv), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlabel("predicted probability (out of fold)")
    ax.set_ylabel("fraction above random subsets' 90th percentile")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("The learned scorer's reliability", fontsize=9)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(path).with_name(Path(path).stem + f".tmp{os.getpid()}.png")
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, path)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--figure", default=str(FIGURE))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    cases = train_mod.build_cases(rows_mod.read_rows())
    if not cases:
        sys.exit("error: no cached rows; run benchmarks/label_free/scorer_rows.py first")
    acc_table = grid_acc()
    lodo = cross_fit(cases, data_set_group)
    loso = cross_fit(cases, source_group)
    buf = io.StringIO()
    log = lambda m: (print(m), buf.write(m + "\n"))  # noqa: E731
    kinds = {}
    for c in cases:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    log(f"# The learned scorer out of fold ({len(cases)} cases: "
        + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())) + ")\n")
    log("Command: `OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 PYTHONPATH=src python "
        "benchmarks/label_free/evaluate_scorer.py` (rows from `scorer_rows.py`).")
    report(cases, *lodo, "Leave one data set out (a semi-synthetic case with its parent, a "
           "planted case with its generator)", log, acc_table)
    report(cases, *loso, "Leave one source out (KEEL, UCR, .mat, scikit-learn, planted)", log,
           acc_table)
    log("\n## Per data set (leave one data set out; LOSO P: the probability when the whole "
        "source was held out; (+): above random at own count)\n")
    log(per_data_set(cases, lodo[0], lodo[1], loso[0], loso[1]))
    pool_sel = [i for i, c in enumerate(cases)
                if c["kind"] == "real" and "+" not in c["name"] and c["source"] != "planted"]

    def chosen(probs, idx):
        P = [float(probs[i][int(np.argmax(probs[i]))]) for i in idx]
        Y = [bool(cases[i]["y"][int(np.argmax(probs[i]))]) for i in idx]
        return P, Y

    every = list(range(len(cases)))
    reliability_figure([("pool, leave one data set out", *chosen(lodo[0], pool_sel)),
                        ("pool, leave one source out", *chosen(loso[0], pool_sel)),
                        ("every case, leave one data set out", *chosen(lodo[0], every))],
                       args.figure)
    fig = Path(args.figure).resolve()
    shown = fig.relative_to(REPO) if fig.is_relative_to(REPO) else fig
    log(f"\nThe reliability diagram: `{shown}`. The evaluation "
        f"took {time.perf_counter() - t0:.0f} s (load {os.getloadavg()[0]:.2f}).")
    pool_mod.write_atomic(args.out, buf.getvalue())


if __name__ == "__main__":
    main()
