"""Statistics of a benchmark: ranks, the Friedman test with the Nemenyi post-hoc test,
and paired tests of every method against random feature subsets.

The methods follow Demšar (JMLR 2006), the protocol FSEVAL also uses:

* every method is ranked on every data set (1 = best, ties share the mean
  rank); the *mean rank* over the data sets orders the methods;
* the Friedman test (:func:`scipy.stats.friedmanchisquare`, with SciPy's tie
  correction) asks whether the mean ranks differ more than chance allows;
* the Nemenyi post-hoc test (:func:`scikit_posthocs.posthoc_nemenyi_friedman`)
  gives a p-value for every pair, and the *critical difference*
  ``CD = q_alpha * sqrt(k (k + 1) / (6 N))`` (``q_alpha``: the studentized
  range quantile over sqrt 2, :data:`scipy.stats.studentized_range`) is the
  gap in mean rank that the diagram draws; methods closer than CD are joined
  by a bar;
* against random subsets, each method is compared *per data set* with the
  Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`; exact p-values
  for at most 50 pairs without zero or tie, the normal approximation
  otherwise) over paired
  observations (k-means seeds x feature counts: the same seeds and counts for
  the method and the random subsets, the random value being the mean over the
  random draws): a *win* when the method is better with p < alpha, a *loss*
  when worse with p < alpha, a *tie* otherwise.

scikit-posthocs is in the ``bench`` extra; only the post-hoc p-values need it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["rank_rows", "friedman_nemenyi", "FriedmanResult", "paired_vs_baseline",
           "PairedResult", "critical_difference", "summarise_outcomes", "complete_table", "WORST",
           "leaderboard", "leaderboard_from_vs_random", "identical_selections"]


def rank_rows(values, higher_is_better=True):
    """Rank the methods (columns) within every data set (row): 1 = best, ties averaged."""
    from scipy.stats import rankdata

    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise ValueError(f"values must be a 2-D table (data sets x methods), got shape {v.shape}.")
    if np.isnan(v).any():  # -inf / +inf (a method without a value) rank last
        raise ValueError("values hold NaN: rank complete rows only (see complete_table).")
    return rankdata(-v if higher_is_better else v, axis=1, method="average")


def critical_difference(n_methods, n_datasets, alpha=0.05):
    """Nemenyi critical difference of mean ranks (Demšar 2006, Eq. 5)."""
    from scipy.stats import studentized_range

    if n_methods < 2 or n_datasets < 1:
        return math.nan
    q = studentized_range.ppf(1 - alpha, n_methods, np.inf) / math.sqrt(2)
    return float(q * math.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets)))


@dataclass
class FriedmanResult:
    """Outcome of :func:`friedman_nemenyi`."""

    methods: list
    datasets: list
    mean_ranks: dict
    statistic: float
    p_value: float
    critical_difference: float
    alpha: float
    nemenyi_p: object = None  # pandas DataFrame (methods x methods), or None
    ranks: np.ndarray = field(default=None, repr=False)

    def order(self):
        """Methods sorted by mean rank, best first."""
        return sorted(self.methods, key=lambda m: (self.mean_ranks[m], m))


def friedman_nemenyi(values, methods, datasets=None, *, higher_is_better=True, alpha=0.05):
    """Friedman test and Nemenyi post-hoc test on a complete table.

    Parameters
    ----------
    values : array-like of shape (n_datasets, n_methods)
        One value per data set and method (no missing value).
    methods : list of str
        Column names.
    datasets : list of str, optional
        Row names.
    higher_is_better : bool, default=True
    alpha : float, default=0.05
        Level of the critical difference.

    Returns
    -------
    FriedmanResult
        ``statistic`` and ``p_value`` are NaN with fewer than 3 methods or 2
        data sets (the test needs them); ``nemenyi_p`` is None without
        scikit-posthocs.
    """
    v = np.asarray(values, dtype=float)
    methods = list(methods)
    if v.ndim != 2 or v.shape[1] != len(methods):
        raise ValueError(f"values must have one column per method ({len(methods)}), got shape "
                         f"{v.shape}.")
    datasets = list(datasets) if datasets is not None else [str(i) for i in range(v.shape[0])]
    ranks = rank_rows(v, higher_is_better)
    mean_ranks = dict(zip(methods, ranks.mean(axis=0).tolist()))
    n, k = v.shape
    stat = p = math.nan
    nemenyi = None
    if k >= 3 and n >= 2:
        from scipy.stats import friedmanchisquare

        # a row of identical values has no information; SciPy divides by zero on all-tied rows
        if np.ptp(ranks, axis=1).any():
            res = friedmanchisquare(*(ranks[:, j] for j in range(k)))
            stat, p = float(res.statistic), float(res.pvalue)
        else:
            stat, p = 0.0, 1.0
        try:
            import pandas as pd
            import scikit_posthocs as sp
        except ImportError:  # pragma: no cover - the bench extra installs both
            nemenyi = None
        else:
            # on the ranks, so the direction (higher / lower is better) is already applied
            nemenyi = sp.posthoc_nemenyi_friedman(pd.DataFrame(-ranks, columns=methods))
    return FriedmanResult(methods=methods, datasets=datasets, mean_ranks=mean_ranks,
                          statistic=stat, p_value=p,
                          critical_difference=critical_difference(k, n, alpha), alpha=alpha,
                          nemenyi_p=nemenyi, ranks=ranks)


WORST = "worst"


def complete_table(cells, methods, datasets, *, min_coverage=0.5, higher_is_better=True):
    """The complete (data set x method) table the Friedman test needs, and what was dropped.

    ``cells`` maps (data set, method) to a value, to :data:`WORST` (the
    method ran but gave no value: timed out or failed; it is ranked last on
    that data set, tied with any other such method, since a user gets
    nothing from it), or to None (not run: no information). Methods with a
    value on fewer than ``min_coverage`` of the data sets are dropped first;
    then the data sets where a kept method was not run.

    Returns
    -------
    values : ndarray (``-inf``/``+inf`` for WORST), kept_methods : list,
    kept_datasets : list, dropped_methods : list, dropped_datasets : list
    """
    def num(v):
        return v is not None and v != WORST and not (isinstance(v, float) and math.isnan(v))

    n_ds = max(1, len(datasets))
    kept_m = [m for m in methods
              if sum(num(cells.get((d, m))) for d in datasets) / n_ds >= min_coverage]
    dropped_m = [m for m in methods if m not in kept_m]
    kept_d = [d for d in datasets if all(num(cells.get((d, m))) or cells.get((d, m)) == WORST
                                         for m in kept_m)]
    dropped_d = [d for d in datasets if d not in kept_d]
    worst = -math.inf if higher_is_better else math.inf
    values = np.array([[worst if cells[(d, m)] == WORST else float(cells[(d, m)])
                        for m in kept_m] for d in kept_d], dtype=float)
    return values.reshape(len(kept_d), len(kept_m)), kept_m, kept_d, dropped_m, dropped_d


@dataclass
class PairedResult:
    """Outcome of :func:`paired_vs_baseline` on one data set."""

    outcome: str          # "win", "tie" or "loss"
    p_value: float
    mean_difference: float  # method - baseline, in the metric's units
    n_pairs: int


def paired_vs_baseline(method, baseline, *, higher_is_better=True, alpha=0.05):
    """Wilcoxon signed-rank test of paired observations of a method against a baseline.

    ``method[i]`` and ``baseline[i]`` are observed under the same conditions
    (same feature count and k-means seed). Outcome: "win" when the method is
    better with p < alpha (two-sided test, better median direction), "loss"
    when worse, "tie" otherwise (including all differences zero, and fewer
    than 6 pairs, where no two-sided p-value can fall below 0.05).
    """
    a = np.asarray(method, dtype=float).ravel()
    b = np.asarray(baseline, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"method and baseline must pair up, got {a.size} and {b.size} values.")
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    diff = a - b
    n = int(diff.size)
    if n == 0:
        return PairedResult("tie", math.nan, math.nan, 0)
    mean_diff = float(diff.mean())
    if not np.any(diff):
        return PairedResult("tie", 1.0, 0.0, n)
    from scipy.stats import wilcoxon

    # exact null distribution when it is cheap and valid (no zero, no tie); otherwise
    # the normal approximation (SciPy's "auto" turns to a slow permutation test on ties)
    nonzero = np.abs(diff[diff != 0])
    exact = n <= 50 and nonzero.size == n and np.unique(nonzero).size == n
    p = float(wilcoxon(a, b, zero_method="wilcox", method="exact" if exact else "approx").pvalue)
    better = np.median(diff) > 0 if np.median(diff) != 0 else mean_diff > 0
    if not higher_is_better:
        better = not better
    if p < alpha:
        return PairedResult("win" if better else "loss", p, mean_diff, n)
    return PairedResult("tie", p, mean_diff, n)


def summarise_outcomes(outcomes):
    """{"win": w, "tie": t, "loss": l} of a list of outcome strings."""
    out = {"win": 0, "tie": 0, "loss": 0}
    for o in outcomes:
        out[o] += 1
    return out


# ----------------------------------------------------------------- a results folder's verdict

def _num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def grid_counts_of(summary, dataset):
    """{grid: counts} of one data set from summary.json (one grid "counts" when absent)."""
    info = (summary or {}).get("datasets", {}).get(dataset, {})
    grids = info.get("grids")
    if grids:
        return {g: [int(k) for k in c] for g, c in grids.items()}
    return {"counts": [int(k) for k in info.get("counts", [])]}


def leaderboard(results, experiment, summary, *, tuning="defaults", alpha=0.05):
    """Mean over each grid's counts, per data set and method, and the Friedman test.

    Returns a list of dicts, one per (protocol, grid, metric), with keys
    ``protocol``, ``grid``, ``metric``, ``cells`` ({(data set, method): value or
    status string}), ``methods`` (the experiment's methods + "random"),
    ``datasets``, and ``friedman`` (a :class:`FriedmanResult` on the complete
    part of the table, or None), ``dropped_methods``, ``dropped_datasets``.
    A method's value on a data set is the mean over the grid's counts; a
    data set where the method has no value at some count (timed out, failed,
    not run) has its status instead. The random baseline is the mean over the
    draws and the counts.
    """
    from ._experiment import METRICS

    methods = [m["label"] for m in experiment.get("methods", [])]
    datasets = [d["label"] for d in experiment.get("datasets", [])]
    protocols = [p for p in experiment.get("protocols", ["n_classes"])]
    metrics = [m for m in METRICS if any(r["metric"] == m for r in results)]
    index = {}
    for r in results:
        index[(r["dataset"], r.get("protocol", ""), r["method"], r["tuning"], r["metric"],
               int(r["n_features"]))] = r
    out = []
    for protocol in protocols:
        # the protocol column is empty for the baselines and for results written before
        # protocols existed (then every row is the papers' protocol)
        prots = (protocol, "") if protocol == "n_classes" else (protocol,)
        grid_names = []
        for ds in datasets:
            for g in grid_counts_of(summary, ds):
                if g not in grid_names:
                    grid_names.append(g)
        for grid in grid_names:
            for metric in metrics:
                cells = {}
                for ds in datasets:
                    counts = grid_counts_of(summary, ds).get(grid, [])
                    if not counts:
                        continue
                    for m in methods + ["random"]:
                        vals, status = [], None
                        for k in counts:
                            r = None
                            for p in (("",) if m == "random" else prots):
                                r = index.get((ds, p, m, "baseline" if m == "random" else tuning,
                                               metric, k))
                                if r is not None:
                                    break
                            v = None if r is None else _num(r["value"])
                            if v is None:
                                status = (r or {}).get("status") or "not run"
                                if status == "ok":
                                    status = "failed"
                                break
                            vals.append(v)
                        cells[(ds, m)] = status if status else float(np.mean(vals))
                if cells:
                    out.append(_board(protocol, grid, metric, cells, methods, datasets, alpha))
    return out


def _board(protocol, grid, metric, cells, methods, datasets, alpha):
    """One board of :func:`leaderboard` from its cells ({(data set, method): value or
    status}; ``methods`` without "random", which is added)."""
    from ._experiment import METRICS

    ds_here = [d for d in datasets if any((d, m) in cells for m in methods)]
    numeric = {key: (v if isinstance(v, float) else
                     WORST if v in ("timed out", "failed") else None)
               for key, v in cells.items()}
    values, km, kd, dm, dd = complete_table(numeric, methods + ["random"], ds_here,
                                            higher_is_better=METRICS[metric])
    fr = None
    if values.shape[0] >= 2 and values.shape[1] >= 3:
        fr = friedman_nemenyi(values, km, kd, higher_is_better=METRICS[metric], alpha=alpha)
    return {"protocol": protocol, "grid": grid, "metric": metric, "cells": cells,
            "methods": methods + ["random"], "datasets": ds_here, "friedman": fr,
            "dropped_methods": dm, "dropped_datasets": dd}


def leaderboard_from_vs_random(vs_random, experiment, *, alpha=0.05):
    """The boards of :func:`leaderboard` from the rows of ``vs_random.csv``.

    A results folder without its full table (``results.csv``), such as the
    checked-in leaderboard, still has ``vs_random.csv``: one row per
    (protocol, grid, metric, data set, method) with the method's mean over the
    grid's counts and k-means runs (``method_mean``) and the random subsets'
    (``random_mean``). These are the cells :func:`leaderboard` computes from
    ``results.csv`` (the mean over the counts of the mean over the runs, the
    same runs at every count); a cell without a value has its status.
    """
    methods = [m["label"] for m in experiment.get("methods", [])]
    datasets = [d["label"] for d in experiment.get("datasets", [])]
    tables = {}
    for r in vs_random:
        cells = tables.setdefault((r["protocol"], r["grid"], r["metric"]), {})
        v = _num(r["method_mean"])
        cells[(r["dataset"], r["method"])] = (
            v if v is not None else ("failed" if r["status"] == "ok" else r["status"]))
        rand = _num(r["random_mean"])
        if rand is not None:
            cells[(r["dataset"], "random")] = rand
    protocols = experiment.get("protocols", ["n_classes"])
    from ._experiment import METRICS

    order = {m: i for i, m in enumerate(METRICS)}
    return [_board(p, g, metric, tables[(p, g, metric)], methods, datasets, alpha)
            for p, g, metric in sorted(tables, key=lambda t: (
                protocols.index(t[0]) if t[0] in protocols else len(protocols), t[1],
                order.get(t[2], len(order))))]


def identical_selections(runs, *, min_share=0.0):
    """Pairs of methods whose default settings selected the same features at every count.

    Per data set and protocol, from ``runs.csv`` rows (the evaluation key is
    the selected subset). Returns {(method, method): [data sets]} for the pairs
    identical on at least ``min_share`` of the data sets where both ran (any
    share > 0 by default: a per-data-set statement, as the figures need; the
    report asks for half, so that tiny data sets, where every method picks the
    same few features, do not fill it).
    """
    sel = {}
    for r in runs:
        if r.get("is_default") != "true" or r.get("selector", "") == "":
            continue
        sel.setdefault((r["dataset"], r.get("protocol", "")), {}).setdefault(
            r["method"], {})[r["n_features"]] = r["eval_key"]
    same, both = {}, {}
    for (ds, _), by_method in sel.items():
        ms = sorted(by_method)
        for i, a in enumerate(ms):
            for b in ms[i + 1:]:
                both.setdefault((a, b), set()).add(ds)
                if by_method[a] == by_method[b]:
                    same.setdefault((a, b), set()).add(ds)
    return {pair: sorted(d) for pair, d in same.items()
            if len(d) / len(both[pair]) >= min_share and len(d) > 0}
