"""Shared pieces of the command line: the one-line error, the parser class and the
argument types."""

from __future__ import annotations

import argparse
import csv
import json
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

#: k-means runs per evaluation, and random subsets compared with the selection
EVAL_RUNS = 10
EVAL_RANDOM_SUBSETS = 10


class CommandError(ValueError):
    """A user error of the command line, reported in one line."""


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors in one line (no usage block) and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ------------------------------------------------------------ argument types
def _count_or_auto(text):
    """``--n-features``: a positive integer, a fraction in (0, 1], or ``auto``."""
    if text == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is not None and 0 < value <= 1:
            return value
    else:
        if value >= 1:
            return value
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a count: give a positive integer, a fraction in (0, 1] such as 0.1, "
        "or auto")


def _int_or_auto(text):
    """``--n-clusters``: an integer >= 1 or ``auto``."""
    if text == "auto":
        return "auto"
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give an integer >= 2 or auto")
    return value


def _parse_value(text):
    """A ``--param key=value`` value: JSON when it parses (numbers, true/false, null), else a string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _parse_params(items, cls):
    params = {}
    for kv in items:
        key, sep, value = kv.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"--param {kv!r} is not KEY=VALUE (for example --param n_neighbors=5).")
        params[key.strip()] = _parse_value(value)
    valid = cls().get_params()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise CommandError(
            f"{cls.__name__} has no parameter(s) {unknown}; valid options are {sorted(valid)}."
        )
    if "n_features_to_select" in params:
        raise CommandError("give the number of features with --n-features, not --param.")
    return params


def _check_output(path, flag):
    if path is not None and Path(path).is_dir():
        raise CommandError(f"{flag} {path} is a folder; name a file in it (e.g. "
                           f"{Path(path) / 'ranking.csv'}).")


# ------------------------------------------------------------ outputs of select
def write_ranking_csv(path, names, ranking, scores, support, constant):
    """Write the ranking CSV of ``ufsel select`` atomically, best feature first.

    A constant feature has no meaningful score: it is written as nan and flagged.
    Returns the feature indices in rank order.
    """
    from ..utils import atomic_open

    scores = np.where(constant, np.nan, np.asarray(scores, dtype=np.float64))
    order = np.argsort(ranking, kind="stable")
    with atomic_open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["feature", "name", "rank", "score", "selected", "constant"])
        w.writerows((int(j), names[j], int(ranking[j]), repr(float(scores[j])), bool(support[j]),
                     bool(constant[j])) for j in order)
    return order


def run_record(args, **fields):
    """The JSON sidecar's record of one ``ufsel select`` run: version, time and command
    first, then ``fields``, then the environment."""
    from .. import __version__

    return {
        "ufsel_version": __version__,
        "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": ["ufsel", *(sys.argv[1:] if args.argv is None else args.argv)],
        **fields,
        "environment": {"python": platform.python_version(), "numpy": np.__version__,
                        "platform": platform.platform()},
    }


# ------------------------------------------------------------ what select reports
#: ``--counts`` choice -> what the selector sees, for the summary line.
_COUNTS = {"log1p": "log1p of library-size-normalised counts",
           "pearson": "the counts' analytic Pearson residuals"}


def _format_params(cls_name, params, notes):
    parts = [f"{k}={params[k]!r}" + (f" [{notes[k]}]" if k in notes else "")
             for k in sorted(params)]
    return f"{cls_name}({', '.join(parts)})"


#: ``CountDecision.decided_by`` -> the label of an automatic count.
_COUNT_LABELS = {"relevant features": "auto: relevant features",
                 "feature-count curve": "auto: feature-count curve",
                 "smallest testable count": "auto: smallest testable count"}


def describe_choice(auto, args, n_features):
    """What the fitted route chose, as ``ufsel select`` reports it.

    Returns (class name, parameters used, notes on the automatic values).
    """
    from .._registry import get_selector

    used = {**auto.selector_.get_params(deep=False),
            "n_features_to_select": int(auto.n_features_to_select_)}
    given = {} if args.method == "auto" else dict(auto.method_params or {})
    notes = {}
    if "n_clusters" in used and args.n_clusters in (None, "auto") and "n_clusters" not in given:
        notes["n_clusters"] = "auto: eigengap"
    decided = auto.count_.decided_by
    if decided in _COUNT_LABELS:
        notes["n_features_to_select"] = _COUNT_LABELS[decided]
    elif isinstance(args.n_features, float):
        notes["n_features_to_select"] = f"fraction {args.n_features} of {n_features}"
    return get_selector(auto.method_).__name__, used, notes


def _why_not_recommended(auto, recommended):
    """Why the route's choice is not the recommended method, from the candidates' evidence."""
    chosen = auto.choice_.chosen
    rec = [e for e in auto.evidence_ if e.method == recommended]
    R = auto.description_.n_relevant
    if rec and not any(e.usable for e in rec):
        return f"its fit could not be used ({rec[0].degenerate})"
    if rec and auto.description_.few_relevant and chosen.relevant_hits is not None:
        best = max(e.relevant_hits or 0 for e in rec)
        if chosen.relevant_hits > best:
            return (f"its top {R} features hold {chosen.relevant_hits} of the {R} relevant "
                    f"features, the recommended method's {best}")
    return f"the scorer's choice ({auto._scorer().to_dict().get('scorer', 'scorer')})"


def report_lines(auto, args, name, used, notes):
    """The lines ``ufsel select`` prints about the choice: the method, the scaling, the
    recommendation, the count (the verdict is printed by the caller)."""
    if args.method != "auto":
        lead = ""
    elif auto.verdict_ is not None and auto.verdict_.outcome == "no better":
        lead = "The chosen method does not beat random subsets here (see the verdict): "
    else:
        lead = "AutoSelector chose "
    line = lead + _format_params(name, used, notes)
    if args.counts != "none":
        line += f" on {_COUNTS[args.counts]}"
    if auto.description_.standardized:
        line += " on standardized features"
    if auto.n_clusters_ is not None and "n_clusters" not in used:
        line += (f"; K={auto.n_clusters_} clusters"
                 f"{' [auto: eigengap]' if args.n_clusters in (None, 'auto') else ''} for the "
                 "label-free criterion")
    lines = [line, f"Scaling: features {auto.description_.scaling}."]
    rec = auto.recommendation_
    if rec is not None:
        lines.append(rec.summary())
        if auto.method_ != rec.method:
            lines.append(f"Chose {name} rather than the recommended {rec.method}: "
                         f"{_why_not_recommended(auto, rec.method)}.")
    if auto.count_note_:
        lines.append(f"Count: {auto.count_note_}.")
    return lines


def sidecar_fields(args, auto, *, name, used, notes, names, ranking, support, constant, order,
                   timings, input, outputs, **extra):
    """The sidecar's fields of one run, in memory or on a large file: what was read, what
    was selected, ``AutoSelector.record()`` (the steps, the standardisation, the verdict),
    then ``extra`` (what only a large file has)."""
    return {
        "input": input,
        "constant_features": [names[j] for j in np.flatnonzero(constant)],
        "method": name,
        "method_requested": args.method,
        "parameters": used,
        "counts": args.counts,
        "auto": notes,
        "n_features_selected": int(np.count_nonzero(support)),
        "selected_features": [{"index": int(j), "name": names[j], "rank": int(ranking[j])}
                              for j in order if support[j]],
        "outputs": outputs,
        "timing_s": timings,
        "verdict": None,  # replaced by the record unless --no-verdict
        **auto.record(),
        **extra,
    }
