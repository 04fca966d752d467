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

