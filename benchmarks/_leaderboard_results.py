"""Reading a leaderboard run's results.csv: per-count values and FSEVAL's mean over ratios.

Shared by ``label_free_route.py`` and ``fseval_sanity.py``.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict

import numpy as np

PROTOCOL = "n_classes"


def ratio_counts(d, ratios):
    """k = ceil(p d) for each ratio, with repeats (FSEVAL averages over the ratios)."""
    return [max(1, math.ceil(round(p * d, 9))) for p in ratios]


def read_leaderboard(path, protocol=PROTOCOL):
    """``{dataset: {method: {"acc": {k: v}, "nmi": {k: v}}}}``, counts k with a value only.

    Each method at its defaults under ``protocol``, plus the baselines ``random`` and
    ``all_features`` (which have no protocol).
    """
    out = defaultdict(lambda: defaultdict(lambda: {"acc": {}, "nmi": {}}))
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["metric"] not in ("acc", "nmi"):
                continue
            if r["method"] not in ("random", "all_features") and (
                    r["protocol"] != protocol or r["tuning"] != "defaults"):
                continue
            if r["status"] == "ok" and r["value"] != "":
                out[r["dataset"]][r["method"]][r["metric"]][int(r["n_features"])] = float(r["value"])
    return out


def ratio_mean(values, ks):
    """Mean over the ratios, or None when a count is missing (timed out, failed)."""
    if any(k not in values for k in ks):
        return None
    return float(np.mean([values[k] for k in ks]))
