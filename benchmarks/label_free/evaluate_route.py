"""The label-free route on the development and validation halves, judged afterwards with labels.

    OPENBLAS_CORETYPE=Haswell UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 PYTHONPATH=src \
        python benchmarks/label_free/evaluate_route.py --half validation \
        [--datasets wine,orl] [--route-option prefer=fewest] [--out FILE.md]

Selection never sees the labels: the route is ``AutoSelector(random_state=0,
n_resamples=0)``, the default of ``ufsel select`` without its stability part (which
does not change the selection). The split of the 34 leaderboard data sets into a
development half (where the route's rules are chosen) and a validation half (where it
is reported) is ``benchmarks/label_free/split.toml``; ``--write-split`` draws it anew
from its seed and kinds.

The judgement uses the leaderboard's evaluation (FSEVAL's protocol): k = ceil(p d) for
p = 0.5 %, 1 %, ..., 10 %; k-means++ with K = the number of classes over 10 seeds;
ACC (Hungarian), mean over the seeds, then over the 20 ratios. The reference values, the
mean ACC of 10 random subsets of each size and every method at its defaults with K =
classes, come from the leaderboard run, condensed into
``benchmarks/results/label_free/reference_acc.csv`` (``--reference-from results.csv``
rebuilds it from a full leaderboard run). Per data set the table reports:

* the route's ACC over the grid, against random subsets' and the best method's, chosen
  with the labels;
* the count ``k`` it suggests, its ACC at ``k`` against 10 random subsets of size ``k``
  (seeded), and its own label-free verdict; the verdict is "right" when it says "beats
  random" and the ACC at ``k`` is above the random subsets' there.

The goals (issue "The default path"): on the validation half, the route's ACC above
random on at least 90 % of the data sets, a mean gap to the label-chosen best of at most
3 points, and a verdict that is right at least 90 % of the times it says "beats random".
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
SPLIT_FILE = REPO / "benchmarks" / "label_free" / "split.toml"
REFERENCE = REPO / "benchmarks" / "results" / "label_free" / "reference_acc.csv"
OUT_DIR = REPO / "benchmarks" / "results" / "label_free"
#: FSEVAL's small grid: 0.5 %, 1 %, ..., 10 % of d (the leaderboard's "fseval_small").
RATIOS = tuple(round(0.005 * i, 3) for i in range(1, 21))
KMEANS_RUNS, SEED, RANDOM_SUBSETS = 10, 0, 10
#: Data sets the leaderboard reads from scikit-learn rather than UFSEL_DATA.
BUILTIN = {"iris": "sklearn:iris", "breast_cancer": "sklearn:breast_cancer",
           "digits": "sklearn:digits"}


def _toml(path):
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def draw_split(kinds, seed):
    """The development and validation halves: within each kind (its names sorted), a seeded
    permutation; its first half, rounded down, is the development half."""
    rng = np.random.RandomState(seed)
    dev, val = [], []
    for kind in sorted(kinds):
        names = sorted(kinds[kind])
        perm = [names[i] for i in rng.permutation(len(names))]
        dev += sorted(perm[: len(names) // 2])
        val += sorted(perm[len(names) // 2:])
    return {"development": sorted(dev), "validation": sorted(val)}


def read_split(path=SPLIT_FILE):
    """``{"development": [...], "validation": [...], "kinds": {...}, "seed": int}``; refuses a
    file whose halves are not its own seeded draw."""
    spec = _toml(path)
    halves = spec.get("split", {})
    drawn = draw_split(spec["kinds"], spec["seed"])
    if {h: sorted(halves.get(h, [])) for h in drawn} != drawn:
        raise SystemExit(f"{path}: its [split] is not the seeded draw of its kinds; "
                         "rewrite it with --write-split")
    return {**drawn, "kinds": spec["kinds"], "seed": spec["seed"]}


def write_split(path=SPLIT_FILE):
    text = Path(path).read_text()
    head = text.split("\n[split]")[0].rstrip("\n")
    spec = _toml(path)
    drawn = draw_split(spec["kinds"], spec["seed"])
    body = "\n".join(f"{h} = {json.dumps(drawn[h])}" for h in ("development", "validation"))
    Path(path).write_text(f"{head}\n\n[split]\n{body}\n")
    return drawn


def kind_of(split, name):
    return next(k for k, names in split["kinds"].items() if name in names)


def build_reference(results_csv, out=REFERENCE):
    """Condense a leaderboard run's results.csv into the grid means the table needs."""
    from pool import read_bench_acc

    ks_of = {}
    cells = read_bench_acc(results_csv)
    rows = []
    for (ds, method), values in sorted(cells.items()):
        if ds not in ks_of:
            ks_of[ds] = grid_counts(load(ds)[0].shape[1])
        ks = ks_of[ds]
        if all(k in values for k in ks):
            rows.append({"dataset": ds, "method": method,
                         "acc": f"{np.mean([values[k] for k in ks]):.6f}"})
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["dataset", "method", "acc"])
        w.writeheader()
        w.writerows(rows)
    return out


def read_reference(path=REFERENCE):
    ref = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            ref.setdefault(r["dataset"], {})[r["method"]] = float(r["acc"])
    return ref


def grid_counts(d):
    """k = ceil(p d) for each ratio, with repeats (FSEVAL averages over the ratios)."""
    return [max(1, math.ceil(round(p * d, 9))) for p in RATIOS]


def load(name):
    from ufsel.datasets import load_dataset

    bunch = load_dataset(BUILTIN.get(name, name))
    X = bunch.data.toarray() if hasattr(bunch.data, "toarray") else np.asarray(bunch.data)
    return np.asarray(X, dtype=np.float64), np.asarray(bunch.target)


def acc_of(X, y, cols):
    from ufsel.evaluation import evaluate_selection

    res = evaluate_selection(X, y, np.asarray(sorted(cols), dtype=np.intp), n_runs=KMEANS_RUNS,
                             random_state=SEED, loo=False, init="k-means++")
    return float(res["acc_mean"])


def run_route(X, options, name):
    """The route on X; its recommender never saw the data set (the shipped table less its row)."""
    from ufsel import AutoSelector
    from ufsel.model_selection import MethodRecommender

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = AutoSelector(random_state=0, n_resamples=0, recommender=MethodRecommender(exclude=[name]), **options).fit(X)
    return sel, time.perf_counter() - t0


def evaluate_dataset(name, options, log):
    from threadpoolctl import threadpool_limits

    from ufsel.model_selection import standardized

    X, y = load(name)
    n, d = X.shape
    sel, seconds = run_route(X, options, name)
    est = sel.selector_
    ks = grid_counts(d)
    with threadpool_limits(limits=1):
        # the chosen configuration's ranking for each count (MCFS's depends on the count,
        # as the leaderboard evaluates it; the others' do not)
        Xfit = standardized(X) if sel.params_["standardize"] else X
        rankings = type(est)(**est.get_params()).fit_rankings(Xfit, sorted(set(ks)))
        accs = {k: acc_of(X, y, np.argsort(rankings[k], kind="stable")[:k]) for k in set(ks)}
        k_star = int(sel.n_features_to_select_)
        acc_k = acc_of(X, y, np.flatnonzero(sel.get_support()))
        rng = np.random.RandomState(SEED)
        rand_k = float(np.mean([acc_of(X, y, rng.choice(d, k_star, replace=False))
                                for _ in range(RANDOM_SUBSETS)]))
        # the previous count rule on the same curve (the plateau's smallest count within 5 %
        # of the largest excess, no minimum), judged the same way: its held-out verdict
        # and its ACC against random subsets of its size
        alt = {}
        if sel.curve_ is not None:
            from ufsel.model_selection import assess_selection

            k_alt = int(sel.curve_.suggest(prefer="fewest", tolerance=0.05, n_se=0.0))
            Xw = standardized(X) if sel.params_["standardize"] else X
            half = type(est)(**{**est.get_params(), "n_features_to_select": k_alt})
            top = np.argsort(half.fit(Xw).ranking_, kind="stable")[:k_alt]
            va = assess_selection(Xw, top, estimator=half, n_clusters=sel.n_clusters_,
                                  held_out=n >= 20, random_state=0)
            alt = {"k_fewest": k_alt, "fewest_beats": bool(va.beats_random),
                   "fewest_testable": bool(va.testable),
                   "fewest_acc": acc_of(X, y, top),
                   "fewest_random": float(np.mean([acc_of(X, y, rng.choice(d, k_alt,
                                                                           replace=False))
                                                   for _ in range(RANDOM_SUBSETS)]))}
    v = sel.verdict_
    row = {**alt, "dataset": name, "n": n, "d": d, "classes": int(np.unique(y).size),
           "K": int(sel.n_clusters_), "method": sel.method_,
           "standardize": bool(sel.params_["standardize"]),
           "method_K": sel.params_.get("n_clusters"), "k": k_star,
           "route_acc": float(np.mean([accs[k] for k in ks])), "acc_at_k": acc_k,
           "random_acc_at_k": rand_k, "beats_random": bool(v.beats_random),
           "testable": bool(v.testable), "p": float(v.p_value), "seconds": seconds,
           "scale_spread": getattr(sel, "scale_spread_", None)}
    log(f"  {row['method']} K={row['method_K']} k={k_star} verdict={row['beats_random']} "
        f"ACC {100 * row['route_acc']:.1f} ({seconds:.1f} s)")
    return row


def summarize(rows, ref):
    """Per-half figures against the goals."""
    out = []
    for r in rows:
        methods = {m: a for m, a in ref.get(r["dataset"], {}).items()
                   if m not in ("random", "all_features")}
        best = max(methods, key=methods.get) if methods else None
        out.append({**r, "random_acc": ref.get(r["dataset"], {}).get("random"),
                    "best": best, "best_acc": methods.get(best)})
    scored = [r for r in out if r["random_acc"] is not None and r["best_acc"] is not None]
    said = [r for r in scored if r["beats_random"]]
    right = [r for r in said if r["acc_at_k"] > r["random_acc_at_k"]]
    alt = [r for r in scored if "k_fewest" in r]
    alt_said = [r for r in alt if r["fewest_beats"]]
    return out, {
        "fewest": {"n": len(alt), "said_beats": len(alt_said),
                   "said_right": sum(r["fewest_acc"] > r["fewest_random"] for r in alt_said),
                   "testable": sum(r["fewest_testable"] for r in alt),
                   "at_k_above": sum(r["fewest_acc"] > r["fewest_random"] for r in alt),
                   "median_k_pct": 100 * float(np.median([r["k_fewest"] / r["d"]
                                                          for r in alt])) if alt else
                   float("nan")},
        "n": len(scored),
        "beats_random": sum(r["route_acc"] > r["random_acc"] for r in scored),
        "mean_acc": 100 * np.mean([r["route_acc"] for r in scored]) if scored else float("nan"),
        "mean_random": 100 * np.mean([r["random_acc"] for r in scored]) if scored else float(
            "nan"),
        "mean_gap": 100 * np.mean([r["best_acc"] - r["route_acc"] for r in scored])
        if scored else float("nan"),
        "said_beats": len(said), "said_right": len(right),
        "testable": sum(r["testable"] for r in scored),
        "at_k_above": sum(r["acc_at_k"] > r["random_acc_at_k"] for r in scored),
        "median_k_pct": 100 * float(np.median([r["k"] / r["d"] for r in scored]))
        if scored else float("nan"),
        "seconds": sum(r["seconds"] for r in scored),
    }


def summary_line(half, s):
    pct = lambda a, b: f"{a} of {b} ({100 * a / b:.0f} %)" if b else "-"  # noqa: E731
    return (f"| {half} | {pct(s['beats_random'], s['n'])} | {s['mean_acc']:.1f} | "
            f"{s['mean_random']:.1f} | {s['mean_gap']:.1f} | "
            f"{pct(s['said_right'], s['said_beats'])} | {pct(s['testable'], s['n'])} | "
            f"{pct(s['at_k_above'], s['n'])} | {s['median_k_pct']:.1f} % | "
            f"{s['seconds'] / 60:.1f} min |")


SUMMARY_HEAD = [
    "| half | route ACC above random | mean ACC | random | mean gap to best | verdict "
    "'beats random' right | testable count | ACC at k above random at k | median k / d | "
    "route time |",
    "|---|---|---|---|---|---|---|---|---|---|",
]


def write_table(path, halves, ref, command, elapsed, options):
    from threadpoolctl import threadpool_info

    blas = ", ".join(sorted({f"{m['internal_api']} {m['version']} {m.get('architecture', '')}"
                             for m in threadpool_info() if m["user_api"] == "blas"}))
    lines = ["# The label-free route on the development and validation halves", "",
             f"Command: `{command}`", "",
             f"Route options: {options or 'the defaults'}. Run time of this invocation "
             f"{elapsed / 60:.1f} min on {platform.machine()}, {os.cpu_count()} cores, "
             f"BLAS {blas}, one thread (rows already in the cache, `--cache`, are not "
             "recomputed; `route s` is each route's own time, taken when it ran, and "
             "`route time` their sum).", "",
             "Goals on the validation half: route ACC above random on >= 90 % of the data "
             "sets, mean gap to the label-chosen best <= 3 ACC points, verdict right >= 90 % "
             "of the times it says 'beats random'.", "", *SUMMARY_HEAD]
    detail = []
    rules = []
    for half, rows in halves.items():
        out, s = summarize(rows, ref)
        lines.append(summary_line(half, s))
        a = s["fewest"]
        pct = lambda x, b: f"{x} of {b} ({100 * x / b:.0f} %)" if b else "-"  # noqa: E731
        rules.append(f"| {half} | largest on the plateau (2 SE), at least testable | "
                     f"{pct(s['testable'], s['n'])} | {pct(s['said_right'], s['said_beats'])} | "
                     f"{pct(s['at_k_above'], s['n'])} | {s['median_k_pct']:.1f} % |")
        rules.append(f"| {half} | smallest within 5 % of the best (the previous rule) | "
                     f"{pct(a['testable'], a['n'])} | {pct(a['said_right'], a['said_beats'])} | "
                     f"{pct(a['at_k_above'], a['n'])} | {a['median_k_pct']:.1f} % |")
        detail += ["", f"## {half.capitalize()} half", "",
                   "| data set | n | d | classes | K est. | choice | k | verdict | route ACC | "
                   "random ACC | best (labels) | ACC at k | random at k | route s |",
                   "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        # (the previous count rule's k is in the cached rows, k_fewest)
        for r in out:
            choice = (f"{r['method']}{' (std)' if r['standardize'] else ''}"
                      f"{'' if r['method_K'] is None else ' K=' + str(r['method_K'])}")
            verdict = ("yes" if r["beats_random"] else
                       "cannot tell" if not r["testable"] else "NO") + f" (p={r['p']:.2g})"
            fmt = lambda v: "-" if v is None else f"{100 * v:.1f}"  # noqa: E731
            detail.append(
                f"| {r['dataset']} | {r['n']} | {r['d']} | {r['classes']} | {r['K']} | "
                f"{choice} | {r['k']} | {verdict} | {fmt(r['route_acc'])} | "
                f"{fmt(r['random_acc'])} | {fmt(r['best_acc'])} ({r['best']}) | "
                f"{fmt(r['acc_at_k'])} | {fmt(r['random_acc_at_k'])} | {r['seconds']:.1f} |")
    lines += ["", "The count rule, both rules on the same curves (each verdict held out):", "",
              "| half | count rule | testable count | verdict 'beats random' right | "
              "ACC at k above random at k | median k / d |", "|---|---|---|---|---|---|",
              *rules]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(str(path) + ".tmp")
    tmp.write_text("\n".join(lines + detail) + "\n")
    os.replace(tmp, path)


def parse_options(items):
    out = {}
    for item in items or []:
        key, _, value = item.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=["development", "validation", "both"], default="both")
    ap.add_argument("--datasets", help="comma-separated names (default: the whole half)")
    ap.add_argument("--route-option", action="append", metavar="NAME=VALUE",
                    help="an AutoSelector parameter for a variant of the route (repeatable)")
    ap.add_argument("--out", help="Markdown table (default benchmarks/results/label_free/"
                                  "route_<half>.md, or route_variant.md with --route-option)")
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "ufsel" / "route_split"),
                    help="per-data-set rows, so that an interrupted run resumes")
    ap.add_argument("--write-split", action="store_true", help="redraw the split file")
    ap.add_argument("--reference-from", help="rebuild reference_acc.csv from a leaderboard "
                                             "run's results.csv")
    args = ap.parse_args(argv)
    if args.write_split:
        print(write_split())
        return
    if args.reference_from:
        print(build_reference(args.reference_from))
        return
    split = read_split()
    ref = read_reference()
    options = parse_options(args.route_option)
    halves = ["development", "validation"] if args.half == "both" else [args.half]
    wanted = set(args.datasets.split(",")) if args.datasets else None
    out = Path(args.out) if args.out else OUT_DIR / (
        "route_variant.md" if options else f"route_{args.half}.md")
    command = ("OPENBLAS_CORETYPE=Haswell UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 "
               "PYTHONPATH=src python benchmarks/label_free/evaluate_route.py "
               f"--half {args.half}" + (f" --datasets {args.datasets}" if wanted else "")
               + "".join(f" --route-option {o}" for o in args.route_option or []))
    import ufsel

    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rows = {h: [] for h in halves}
    for half in halves:
        for name in split[half]:
            if wanted and name not in wanted:
                continue
            key = json.dumps({"name": name, "options": options, "version": ufsel.__version__,
                              "route": ROUTE_VERSION}, sort_keys=True)
            entry = cache / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}_{name}.json"
            row = None
            if entry.is_file():
                stored = json.loads(entry.read_text())
                row = stored["row"] if stored.get("key") == key else None
            if row is None:
                print(f"{half} / {name}:", flush=True)
                row = evaluate_dataset(name, options, lambda s: print(s, flush=True))
                entry.write_text(json.dumps({"key": key, "row": row}))
            rows[half].append(row)
            write_table(out, rows, ref, command, time.perf_counter() - t0, options)
    print(f"wrote {out}")


#: Bump when the route changes, so that cached rows are recomputed.
ROUTE_VERSION = "split-v4"

if __name__ == "__main__":
    main()
