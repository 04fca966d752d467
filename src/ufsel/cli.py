"""The ``ufsel`` command line.

``ufsel select``   rank the features of a data file (or a named data set) with one
                   method, or let ``--method auto`` choose; write the ranking CSV,
                   a JSON sidecar and optionally the selected columns.
``ufsel datasets`` list the named data sets available (n, d, classes).
``ufsel bench``, ``ufsel report``: the experiment system (``ufsel.benchmark``).

Every error is one line on stderr (``ufsel <command>: error: ...``) and exit
status 2; Ctrl-C prints one line and exits with 130. Set ``UFSEL_TRACEBACK=1``
to get the full traceback instead.

``select`` never uses labels to select: the number of clusters is given or
estimated from the data alone (``--n-clusters auto``), and labels, when given
(``--label-column``, ``--labels``, ``--evaluate``), serve only to evaluate the
selection afterwards, in an output block that says so.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import platform
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy import sparse

__all__ = ["main", "build_parser"]

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


# ----------------------------------------------------------------- select
def _load(args):
    from .datasets import load_dataset, read_data, read_labels

    if (args.dataset is None) == (args.data is None):
        raise CommandError("give exactly one of --data FILE or --dataset NAME.")
    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        raise CommandError(f"--data-dir {args.data_dir} is not a folder.")
    drop = _column_list(args.drop_columns)
    if args.dataset is not None:
        for flag, value in (("--format", args.format), ("--sep", args.sep),
                            ("--id-column", args.id_column), ("--drop-columns", drop)):
            if value:
                raise CommandError(f"{flag} applies to --data FILE only.")
        bunch = load_dataset(args.dataset, data_dir=args.data_dir, label_column=args.label_column)
        bunch.row_ids = None
    else:
        bunch = read_data(Path(args.data), format=args.format, label_column=args.label_column,
                          sep=args.sep, drop_columns=drop, id_column=args.id_column)
    if args.labels is not None and args.label_column is not None:
        raise CommandError("give --labels FILE or --label-column NAME, not both.")
    labels, labels_from = None, None
    if args.labels is not None:
        labels, labels_from = read_labels(args.labels, bunch.data.shape[0]), f"--labels {args.labels}"
    elif args.label_column is not None:
        labels, labels_from = bunch.target, f"--label-column {args.label_column}"
    elif args.evaluate:
        if bunch.target is None:
            raise CommandError(f"--evaluate: {bunch.source} holds no labels; give them with "
                               "--labels FILE or --label-column NAME.")
        labels, labels_from = bunch.target, f"the labels stored in {bunch.source}"
    if labels is not None and np.unique(labels).size < 2:
        raise CommandError(f"the labels ({labels_from}) hold a single class: ACC and NMI against "
                           "them would be meaningless; drop them or fix the file.")
    return bunch, labels, labels_from


def _column_list(text):
    """``--drop-columns A,B``: the names, stripped; empty names refused."""
    if text is None:
        return []
    names = [c.strip() for c in text.split(",")]
    if not all(names):
        raise CommandError(f"--drop-columns {text!r}: give column names separated by commas "
                           "(e.g. --drop-columns id,notes).")
    return names


def _plural(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _constant_mask(est, default):
    """The features the fitted selector treated as constant (ranked last), else ``default``."""
    mask = getattr(est, "constant_features_", None)
    return default if mask is None else np.asarray(mask, dtype=bool)


def _warn_constant(mask, names):
    """One warning naming the constant features, if any."""
    idx = np.flatnonzero(mask)
    if idx.size:
        shown = ", ".join(repr(names[j]) for j in idx[:5]) + (" ..." if idx.size > 5 else "")
        one = idx.size == 1
        warnings.warn(f"{_plural(idx.size, 'feature')} {'is' if one else 'are'} constant (or "
                      f"{'varies' if one else 'vary'} only by round-off): {shown}. "
                      f"{'It carries' if one else 'They carry'} no information: ranked last, "
                      "with no score (nan and constant=True in the ranking).", UserWarning,
                      stacklevel=2)


def _format_params(cls_name, params, notes):
    parts = [f"{k}={params[k]!r}" + (f" [{notes[k]}]" if k in notes else "")
             for k in sorted(params)]
    return f"{cls_name}({', '.join(parts)})"


def _check_method(args):
    """The selector class and its ``--param`` values, checked before any data is read."""
    from . import get_selector

    if args.method == "auto":
        if args.param:
            raise CommandError("--param applies to a named method, not to --method auto.")
        return None, {}
    cls = get_selector(args.method)
    params = _parse_params(args.param, cls)
    valid = cls().get_params()
    if "n_clusters" in params and args.n_clusters is not None:
        raise CommandError("give the number of clusters once: --n-clusters or --param n_clusters.")
    if args.n_clusters is not None and "n_clusters" not in valid and args.n_features != "auto":
        raise CommandError(f"{cls.__name__} has no n_clusters parameter; drop --n-clusters.")
    return cls, params


def _select(args, X, cls, params):
    """Fit the automatic route, or the named method through it (``AutoSelector``).

    Returns (class name, fitted AutoSelector, support, parameters used, notes on
    the auto values, extras for the sidecar).
    """
    from . import get_selector
    from .model_selection import AutoSelector
    from .utils import ProgressLine

    options = {"n_features_to_select": args.n_features, "random_state": args.random_state,
               "n_clusters": "auto" if args.n_clusters is None else args.n_clusters}
    if cls is None:  # --standardize: X arrives standardised; else the route decides
        options.update(standardize=False if args.standardize else "auto",
                       **({} if args.stability is None else {"n_resamples": args.stability}))
    else:
        if "random_state" in cls().get_params():
            params = {"random_state": args.random_state, **params}
        options.update(methods=[args.method.lower()], choice="criterion",
                       candidate_n_clusters="estimate", method_params=params,
                       standardize=False, n_resamples=args.stability or 0,
                       verdict=not args.no_verdict)
    auto = AutoSelector(**options)
    auto._progress = progress = ProgressLine()
    try:
        auto.fit(X)
    finally:
        progress.close()
    used = {**auto.selector_.get_params(deep=False),
            "n_features_to_select": int(auto.n_features_to_select_)}
    notes = {}
    if "n_clusters" in used and args.n_clusters in (None, "auto") and "n_clusters" not in params:
        notes["n_clusters"] = "auto: eigengap"
    if args.n_features == "auto":
        notes["n_features_to_select"] = "auto: feature-count curve"
    elif isinstance(args.n_features, float):
        notes["n_features_to_select"] = f"fraction {args.n_features} of {X.shape[1]}"
    extras = auto.record()
    if cls is not None:
        for key in ("candidates", "standardized_by_route", "scale_spread", "recommendation"):
            extras.pop(key, None)
    else:
        extras["standardized_by_route"] = bool(auto.params_["standardize"])
    if "n_clusters" in used:
        extras.pop("criterion_n_clusters", None)
    name = get_selector(auto.method_).__name__
    return name, auto, np.asarray(auto.get_support()), used, notes, extras



def _evaluate(X, labels, support, random_state):
    """k-means ACC/NMI of the selection and of random subsets of the same size (uses labels)."""
    from .evaluation import evaluate_selection

    selected = np.flatnonzero(support)
    n_classes = int(np.unique(labels).size)
    res = evaluate_selection(X, labels, selected, n_runs=EVAL_RUNS, random_state=random_state,
                             loo=False)
    rng = np.random.RandomState(random_state)
    rand = [evaluate_selection(X, labels, np.sort(rng.choice(X.shape[1], selected.size,
                                                             replace=False)),
                               n_runs=EVAL_RUNS, random_state=random_state, loo=False)
            for _ in range(EVAL_RANDOM_SUBSETS)]
    racc = np.array([r["acc_mean"] for r in rand])
    rnmi = np.array([r["nmi_mean"] for r in rand])
    return {"n_classes": n_classes, "kmeans_runs": EVAL_RUNS,
            "selected": {"acc_mean": res["acc_mean"], "acc_std": res["acc_std"],
                         "nmi_mean": res["nmi_mean"], "nmi_std": res["nmi_std"]},
            "random_subsets": {"n_subsets": EVAL_RANDOM_SUBSETS, "acc_mean": float(racc.mean()),
                               "acc_std": float(racc.std()), "nmi_mean": float(rnmi.mean()),
                               "nmi_std": float(rnmi.std())}}


def _cmd_select(args):
    from . import __version__
    from .benchmark._cache import to_jsonable
    from .datasets import write_data
    from .datasets._readers import _delimiter_name
    from .utils import atomic_open, atomic_write_text

    for path, flag in ((args.out, "--out"), (args.transform_out, "--transform-out")):
        _check_output(path, flag)
    sidecar = Path(f"{args.out}.json")
    _check_output(sidecar, "the sidecar")
    cls, params = _check_method(args)
    if args.method == "auto" and args.no_verdict:
        raise CommandError("--no-verdict applies to a named method: the automatic route's "
                           "verdict is part of its answer.")
    if args.stability is not None and args.stability < 0:
        raise CommandError(f"--stability {args.stability}: give a number of resamples >= 0.")
    if args.no_verdict and args.stability:
        raise CommandError("--stability is part of the verdict; drop --no-verdict or "
                           "--stability.")
    t_start = time.perf_counter()
    timings = {}
    bunch, labels, labels_from = _load(args)
    X = bunch.data
    n, d = X.shape
    names = [str(s) for s in bunch.feature_names]
    timings["load_s"] = time.perf_counter() - t_start
    fmt_out = None if args.transform_out is None else _transform_format(args.transform_out,
                                                                         bunch.format)
    if isinstance(args.n_features, int) and args.n_features > d:
        raise CommandError(f"--n-features {args.n_features}: the data have only "
                           f"{_plural(d, 'feature')}.")
    delimiter = bunch.get("delimiter")
    sep_note = ("" if delimiter in (None, {"csv": ",", "tsv": "\t"}.get(bunch.format)) else
                f", {_delimiter_name(delimiter)}-separated")
    print(f"Read {bunch.source}: {_plural(n, 'sample')} x {_plural(d, 'feature')} "
          f"({bunch.format}{sep_note}"
          f"{', sparse' if sparse.issparse(X) else ''}"
          f"{'' if labels is None else '; labels from ' + labels_from + ', for evaluation only'}"
          f"{'' if bunch.row_ids is None else '; row IDs from ' + args.id_column}).")
    dropped = _column_list(args.drop_columns)
    if dropped:
        print(f"Not features (--drop-columns): {', '.join(dropped)}.")

    t0 = time.perf_counter()
    from .linalg import constant_features
    from .model_selection import standardized as standardize

    Xfit = standardize(X) if args.standardize else X

    constant = np.asarray(constant_features(Xfit), dtype=bool)
    _warn_constant(constant, names)
    name, auto, support, used, notes, extras = _select(args, Xfit, cls, params)
    ranking, est = np.asarray(auto.ranking_), auto.selector_
    timings["select_s"] = time.perf_counter() - t0
    k = int(support.sum())
    standardized = bool(args.standardize)
    if args.method != "auto":
        lead = ""
    elif auto.verdict_ is not None and auto.verdict_.outcome == "no better":
        lead = "The chosen method does not beat random subsets here (see the verdict): "
    else:
        lead = "AutoSelector chose "
    line = lead + _format_params(name, used, notes)
    if standardized:
        line += " on standardized features"
    elif extras.get("standardized_by_route"):
        line += (f" on standardized features (their ranges differ "
                 f"{extras['scale_spread']:.3g}-fold, so their units do)")
    if "criterion_n_clusters" in extras and "n_clusters" not in used:
        line += (f"; K={extras['criterion_n_clusters']} clusters"
                 f"{' [auto: eigengap]' if args.n_clusters in (None, 'auto') else ''} for the "
                 "label-free criterion")
    print(line)
    if auto.recommendation_ is not None:
        print(auto.recommendation_.summary())
    if extras.get("count_note"):
        print(f"Count: {extras['count_note']}.")
    if extras.get("verdict"):
        print(extras["verdict"].strip())
    constant = _constant_mask(est, constant)

    order = np.argsort(ranking, kind="stable")
    # a constant feature has no meaningful score: nan, flagged, and ranked last
    scores = np.where(constant, np.nan, np.asarray(est.scores_, dtype=np.float64))
    with atomic_open(args.out, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["feature", "name", "rank", "score", "selected", "constant"])
        w.writerows((int(j), names[j], int(ranking[j]), repr(float(scores[j])), bool(support[j]),
                     bool(constant[j])) for j in order)
    print(f"{k} of {d} features selected; ranking written to {args.out}")
    if k == d:
        print(f"Note: every feature is selected (the count equals the number of features), so "
              f"the selection changes nothing and has no verdict; the ranking in {args.out} is "
              "the result.")
    selected = [j for j in order if support[j]]
    if args.transform_out is not None:
        # the file's own labels (label column, label variable) travel with the
        # columns; a separate --labels file does not
        write_data(args.transform_out, X[:, selected], feature_names=[names[j] for j in selected],
                   target=bunch.target, label_name=args.label_column or "label", format=fmt_out,
                   row_ids=bunch.row_ids, id_name=args.id_column or "id")
        print(f"selected columns ({n} x {k}, {fmt_out}) written to {args.transform_out}")

    evaluation = None
    if labels is not None:
        t0 = time.perf_counter()
        # cluster the selected columns as the selector saw them
        evaluation = _evaluate(standardize(X) if standardized else X, labels, support,
                               args.random_state)
        evaluation["standardized"] = standardized
        timings["evaluation_s"] = time.perf_counter() - t0
        _print_evaluation(evaluation, k, labels_from)
    timings["total_s"] = time.perf_counter() - t_start

    meta = {
        "ufsel_version": __version__,
        "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": ["ufsel", *sys.argv[1:]] if args.argv is None else ["ufsel", *args.argv],
        "input": {"path": str(bunch.source), "format": bunch.format, "n_samples": n,
                  "n_features": d, "labels": labels_from, "id_column": args.id_column,
                  "dropped_columns": _column_list(args.drop_columns)},
        "constant_features": [names[j] for j in np.flatnonzero(constant)],
        "method": name,
        "method_requested": args.method,
        "parameters": used,
        "standardized": standardized,
        "auto": notes,
        "n_features_selected": k,
        "selected_features": [{"index": int(j), "name": names[j], "rank": int(ranking[j])}
                              for j in selected],
        "outputs": {"ranking": str(args.out), "transform": args.transform_out},
        "timing_s": timings,
        "environment": {"python": platform.python_version(), "numpy": np.__version__,
                        "platform": platform.platform()},
        "verdict": None,  # replaced by extras unless --no-verdict
        **extras,  # the verdict, the candidates, the feature-count curve (auto values)
        "evaluation_with_labels": evaluation,
    }
    atomic_write_text(sidecar, json.dumps(to_jsonable(meta), indent=2) + "\n")
    print(f"run details written to {sidecar} ({timings['total_s']:.1f} s)")
    return 0


def _transform_format(path, input_format):
    """The format of ``--transform-out``, checked (extras included) before any selection runs."""
    from .datasets._readers import extension_format, formats_help
    from .utils import import_optional

    suffix = Path(path).suffix
    fmt = extension_format(path)
    if fmt is None and suffix:
        raise CommandError(f"--transform-out {path}: ufsel does not write {suffix} files; name a "
                           f"file with one of the extensions of {formats_help()}.")
    fmt = fmt or (input_format if input_format != "sklearn" else None)
    if fmt is None:
        raise CommandError(f"--transform-out {path}: name a file with one of the extensions of "
                           f"{formats_help()}.")
    if fmt == "parquet":
        import_optional("pyarrow", purpose="Writing Parquet files")
        import_optional("pandas", purpose="Writing Parquet files")
    return fmt


def _print_evaluation(ev, k, labels_from):
    s, r = ev["selected"], ev["random_subsets"]
    print(f"Evaluation WITH LABELS ({labels_from}; never used to select): k-means with "
          f"K = {ev['n_classes']} classes, {ev['kmeans_runs']} runs"
          f"{' on the standardized columns' if ev['standardized'] else ''}")
    chosen = f"selected {k} feature{'' if k == 1 else 's'}:"
    random_ = f"random {k}-feature subsets:"
    width = len(random_) + 1  # the two ACC columns aligned
    print(f"  {chosen:<{width}}ACC {s['acc_mean']:.3f} +- {s['acc_std']:.3f}  "
          f"NMI {s['nmi_mean']:.3f} +- {s['nmi_std']:.3f}")
    print(f"  {random_:<{width}}ACC {r['acc_mean']:.3f} +- {r['acc_std']:.3f}  "
          f"NMI {r['nmi_mean']:.3f} +- {r['nmi_std']:.3f}  ({r['n_subsets']} subsets)")


# --------------------------------------------------------------- datasets
def _cmd_datasets(args):
    from .datasets import list_datasets

    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        raise CommandError(f"--data-dir {args.data_dir} is not a folder.")
    rows = list_datasets(args.data_dir)
    print(f"{'name':<15}{'n':>8}{'d':>8}{'classes':>9}  source")
    for r in rows:
        classes = "-" if r["n_classes"] is None else r["n_classes"]
        print(f"{r['name']:<15}{r['n_samples']:>8}{r['n_features']:>8}{classes:>9}  {r['source']}")
    return 0


def build_parser():
    from . import SELECTORS, __version__

    p = _Parser(prog="ufsel", description="Unsupervised feature selection.")
    p.add_argument("--version", action="version", version=f"ufsel {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser(
        "select", help="select features of a data file; write a ranking CSV and a JSON sidecar",
        description="Rank the features of a data file without labels. Reads CSV/TSV (header = "
                    "feature names), .npy/.npz, Parquet, LIBSVM/svmlight and .mat. Labels, "
                    "when given, only evaluate the selection afterwards.")
    src = s.add_argument_group("input")
    src.add_argument("--data", metavar="FILE", help="data file (.csv .tsv .npy .npz .parquet "
                     ".svm .mat)")
    src.add_argument("--format", choices=("csv", "tsv", "npy", "npz", "parquet", "svmlight", "mat"),
                     help="format of --data when its extension does not say")
    src.add_argument("--dataset", metavar="NAME", help="named data set (see `ufsel datasets`)")
    src.add_argument("--data-dir", help="folder of .mat files for --dataset (default: $UFSEL_DATA)")
    src.add_argument("--sep", metavar="CHAR",
                     help="CSV/TSV delimiter (default: detected among , ; tab |); write a tab "
                          "as $'\\t'")
    src.add_argument("--drop-columns", metavar="A,B",
                     help="columns that are not features (IDs, notes); they may hold text")
    src.add_argument("--id-column", metavar="NAME",
                     help="column of row identifiers: not a feature; kept as the first column "
                          "of --transform-out (CSV/TSV/Parquet)")
    sel = s.add_argument_group("selection (label-free)")
    sel.add_argument("--method", default="auto", metavar="NAME|auto",
                     help="a selector: " + ", ".join(sorted(SELECTORS)) + "; or auto: choose "
                          "method, parameters and count without labels (default auto)")
    sel.add_argument("--n-features", type=_count_or_auto, default="auto", metavar="N|FRACTION|auto",
                     help="number of features (10), fraction of them (0.1), or auto (default)")
    sel.add_argument("--n-clusters", type=_int_or_auto, default=None, metavar="N|auto",
                     help="clusters for methods that use them; default auto: estimated from "
                          "the data, never from labels")
    sel.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="selector parameter, repeatable (e.g. --param n_neighbors=5)")
    sel.add_argument("--standardize", action="store_true",
                     help="scale every feature to unit variance before anything else (for "
                          "features in different units); without it every method sees the "
                          "features as given")
    sel.add_argument("--random-state", type=int, default=0,
                     help="seed of every random choice (default 0)")
    ver = s.add_argument_group("verdict (label-free; printed and in the sidecar)")
    ver.add_argument("--stability", type=int, metavar="N", default=None,
                     help="also measure the selection's stability over N bootstrap refits "
                          "(default: none for a named method, the automatic route's own for "
                          "auto)")
    ver.add_argument("--no-verdict", action="store_true",
                     help="skip the random-subset test of a named method's selection (faster)")
    ev = s.add_argument_group("evaluation with labels (optional, never used to select)")
    ev.add_argument("--label-column", metavar="NAME",
                    help="column (CSV/TSV/Parquet) or variable (.npz/.mat) holding labels; "
                         "it is not a feature")
    ev.add_argument("--labels", metavar="FILE", help="labels file: one label per line, or .npy")
    ev.add_argument("--evaluate", action="store_true",
                    help="evaluate with the labels stored in the data file (.mat/.npz/svmlight)")
    out = s.add_argument_group("output")
    out.add_argument("--out", default="ranking.csv",
                     help="ranking CSV (default ranking.csv); the sidecar is OUT.json")
    out.add_argument("--transform-out", metavar="FILE",
                     help="write the selected columns to FILE, in the format of its extension "
                          "(else the input's)")
    s.set_defaults(func=_cmd_select)

    d = sub.add_parser("datasets", help="list the available data sets")
    d.add_argument("--data-dir", help="folder of .mat files (default: $UFSEL_DATA)")
    d.set_defaults(func=_cmd_datasets)

    try:
        from .benchmark._cli import add_subcommands
    except ImportError:
        pass
    else:
        add_subcommands(sub)
    return p


@contextlib.contextmanager
def _one_line_warnings(command):
    """Show warnings as ``ufsel <command>: warning: ...`` lines while a command runs."""
    def show(message, category, filename, lineno, file=None, line=None):
        text = " ".join(str(message).split())
        print(f"ufsel {command}: warning: {category.__name__}: {text}", file=file or sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def main(argv=None):
    """Entry point of the ``ufsel`` console script; returns the exit status.

    Errors are one line on stderr and exit status 2; Ctrl-C exits with 130.
    """
    args = None
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # usage errors (one line, see _Parser), --help, --version
            return exc.code
        args.argv = None if argv is None else list(argv)
        with _one_line_warnings(args.command):
            return args.func(args)
    except KeyboardInterrupt:
        print(f"ufsel{' ' + args.command if args else ''}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError, ImportError, MemoryError) as exc:
        if os.environ.get("UFSEL_TRACEBACK"):
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        if isinstance(exc, MemoryError):
            message = f"out of memory ({message}); try fewer samples or a sparse file."
        elif isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
            message = f"{exc.filename}: {exc.strerror}"
        print(f"ufsel{' ' + args.command if args else ''}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
