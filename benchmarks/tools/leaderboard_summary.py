"""The "which method should I use" tables, from a leaderboard run's ranks.csv and vs_random.csv.

    python benchmarks/tools/leaderboard_summary.py benchmarks/results/leaderboard [--grid fseval_small]
        [--metric acc]

Prints two Markdown tables (used in the README and docs/guide/choosing_a_method.md):

1. every method's mean rank and its wins / ties / losses against random subsets (one
   Wilcoxon test per data set, see ``ufsel.benchmark._statistics``), for both
   protocols (K = number of classes, label-free K), sorted by the mean rank with K =
   classes; the cells without a value (failed or timed out) and, from runtime.csv, the
   values that needed more than the run's fast CPU cap (computed again under a longer
   one: slow, not bad) are counted beside them; a method with a value on fewer than
   half of the data sets is not ranked (a dash) but listed;
2. the methods grouped by whether they win against random subsets on more than half of
   the data sets: in both protocols, only with K = classes, or in neither; and those
   not ranked.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import defaultdict
from pathlib import Path

from ufsel.benchmark._tables import over_fast_cap  # private: needs public API

PROTOCOLS = ("n_classes", "label_free")


def load(folder, grid, metric):
    ranks = [r for r in csv.DictReader(open(Path(folder) / "ranks.csv", newline=""))
             if r["grid"] == grid and r["metric"] == metric]
    vs = [r for r in csv.DictReader(open(Path(folder) / "vs_random.csv", newline=""))
          if r["grid"] == grid and r["metric"] == metric]
    mean_rank = {(r["protocol"], r["method"]): float(r["mean_rank"]) for r in ranks}
    for r in vs:  # a method the ranks leave out (too few values) is listed all the same
        mean_rank.setdefault((r["protocol"], r["method"]), None)
    info = {r["protocol"]: (int(r["n_datasets"]), float(r["friedman_statistic"]),
                            float(r["friedman_p"]), float(r["critical_difference"]))
            for r in ranks}
    # win, tie, loss, failed / timed out, slow (a value over the fast cap)
    counts = defaultdict(lambda: [0, 0, 0, 0, 0])
    for r in vs:
        counts[(r["protocol"], r["method"])][
            {"win": 0, "tie": 1, "loss": 2}.get(r["outcome"], 3)] += 1
    runtime = Path(folder) / "runtime.csv"
    if runtime.is_file():
        cap = json.loads((Path(folder) / "summary.json").read_text()).get("fit_timeout_s")
        for r in csv.DictReader(open(runtime, newline="")):
            if over_fast_cap(r, cap):
                counts[(r["protocol"], r["method"])][4] += 1
        info["fast_cap"] = cap
    return mean_rank, counts, info


def tables(mean_rank, counts, info):
    def order(m):
        v = mean_rank.get(("n_classes", m))
        return float("inf") if v is None else v

    methods = sorted({m for (_, m) in mean_rank if m != "random"}, key=order)
    cap = info.get("fast_cap")

    def wtl(c):
        s = f"{c[0]} / {c[1]} / {c[2]}"
        extra = ([f"+{c[3]} failed or timed out"] if c[3] else []) + (
            [f"{c[4]} over the {cap:g} s cap"] if c[4] else [])
        return s + (f" ({'; '.join(extra)})" if extra else "")

    def rank(p, m):
        v = mean_rank.get((p, m))
        return "-" if v is None else f"{v:.2f}"

    out = ["| method | mean rank, K = classes | wins / ties / losses vs random, K = classes "
           "| mean rank, label-free K | wins / ties / losses vs random, label-free K |",
           "|---|---|---|---|---|"]
    for m in methods:
        out.append(f"| {m} | {rank('n_classes', m)} | {wtl(counts[('n_classes', m)])} | "
                   f"{rank('label_free', m)} | {wtl(counts[('label_free', m)])} |")
    out.append(f"| random | {rank('n_classes', 'random')} | - | {rank('label_free', 'random')} "
               "| - |")
    out.append("")
    if any(c[4] for c in counts.values()):
        out.append(f"\"Over the {cap:g} s cap\": values that needed more than the fast "
                   "CPU cap and were computed again under a longer one; they count in the "
                   "ranks and the wins like any other value.")
        out.append("")
    for p in PROTOCOLS:
        if p in info:
            n, chi2, pval, cd = info[p]
            out.append(f"{p}: {n} data sets, Friedman chi2 = {chi2:.1f}, p = {pval:.2g}, "
                       f"Nemenyi critical difference = {cd:.1f} ranks.")
    out.append("")

    def beats(p, m):
        c = counts[(p, m)]
        return c[0] > sum(c) / 2

    unranked = [m for m in methods if all(mean_rank.get((p, m)) is None for p in PROTOCOLS)]
    methods = [m for m in methods if m not in unranked]
    both = [m for m in methods if beats("n_classes", m) and beats("label_free", m)]
    only = [m for m in methods if beats("n_classes", m) and not beats("label_free", m)]
    free_only = [m for m in methods if beats("label_free", m) and not beats("n_classes", m)]
    neither = [m for m in methods if m not in both + only + free_only]
    out += ["| | methods |", "|---|---|",
            f"| **beat random subsets on most data sets**, in both protocols | "
            f"{', '.join(both) or '-'} |",
            f"| beat random on most data sets only with K = number of classes (from the "
            f"labels) | {', '.join(only) or '-'} |"]
    if free_only:
        out.append(f"| beat random on most data sets only with the label-free K | "
                   f"{', '.join(free_only)} |")
    out.append(f"| **do not beat random subsets on most data sets** | "
               f"{', '.join(neither) or '-'} |")
    if unranked:
        out.append(f"| a value on fewer than half of the data sets (not ranked) | "
                   f"{', '.join(unranked)} |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--grid", default="fseval_small")
    ap.add_argument("--metric", default="acc")
    args = ap.parse_args(argv)
    print(tables(*load(args.folder, args.grid, args.metric)))


if __name__ == "__main__":
    main()
