"""``ufsel select``: read a file, run the route or one method, write the ranking."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import sparse

from ._common import (
    EVAL_RANDOM_SUBSETS,
    EVAL_RUNS,
    CommandError,
    _check_output,
    _parse_params,
    describe_choice,
    report_lines,
    run_record,
    sidecar_fields,
    write_ranking_csv,
)


# ----------------------------------------------------------------- select
def _load(args):
    from ..datasets import load_dataset, read_data, read_labels

    if (args.dataset is None) == (args.data is None):
        raise CommandError("give exactly one of --data FILE or --dataset NAME.")
    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        raise CommandError(f"--data-dir {args.data_dir} is not a folder.")
    drop = _column_list(args.drop_columns)
    if args.dataset is not None:
        for flag, value in (("--format", args.format), ("--sep", args.sep),
                            ("--id-column", args.id_column), ("--drop-columns", drop),
                            ("--layer", args.layer), ("--raw", args.raw)):
            if value:
                raise CommandError(f"{flag} applies to --data FILE only.")
        bunch = load_dataset(args.dataset, data_dir=args.data_dir, label_column=args.label_column)
        bunch.row_ids = None
    else:
        bunch = read_data(Path(args.data), format=args.format, label_column=args.label_column,
                          sep=args.sep, drop_columns=drop, id_column=args.id_column,
                          layer=args.layer, raw=args.raw)
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


def _prepare(X, args):
    """X as the route receives it: the ``--counts`` transform (the route standardises)."""
    from ..preprocessing import normalize_log1p, pearson_residuals

    if args.counts == "log1p":
        X = normalize_log1p(X)
    elif args.counts == "pearson":
        X = pearson_residuals(X)
    return X


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


def _check_method(args):
    """The selector class and its ``--param`` values, checked before any data is read."""
    from .._registry import get_selector

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


def route_for(args, params, *, verdict=True):
    """The :class:`AutoSelector` of this command: the default route or the named method,
    with the same description, count rule and verdict (:func:`route_selector`)."""
    from ..model_selection._auto import route_selector

    return route_selector(args.method, n_features_to_select=args.n_features,
                          n_clusters=args.n_clusters, method_params=params,
                          standardize=True if args.standardize else "auto",
                          n_resamples=args.stability, verdict=verdict,
                          random_state=args.random_state)


def _select(args, X, cls, params):
    """Fit the automatic route, or the named method through it (``AutoSelector``).

    Returns (class name, fitted AutoSelector, support, parameters used, notes on
    the auto values).
    """
    from ..utils import ProgressLine

    auto = route_for(args, params, verdict=not args.no_verdict)
    auto._progress = progress = ProgressLine()
    try:
        auto.fit(X)
    finally:
        progress.close()
    name, used, notes = describe_choice(auto, args, X.shape[1])
    return name, auto, np.asarray(auto.get_support()), used, notes


def _evaluate(X, labels, support, random_state):
    """k-means ACC/NMI of the selection and of random subsets of the same size (uses labels)."""
    from ..evaluation import evaluate_selection

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
    from ..benchmark._cache import to_jsonable
    from ..datasets import write_data
    from ..datasets._readers import _delimiter_name
    from ..utils import atomic_write_text

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
    from ._large import select_large_file_command

    status = select_large_file_command(args)  # a large .npy / Parquet file: its own path
    if status is not None:
        return status
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
    from ..linalg import constant_features

    Xfit = _prepare(X, args)

    constant = np.asarray(constant_features(Xfit), dtype=bool)
    _warn_constant(constant, names)
    name, auto, support, used, notes = _select(args, Xfit, cls, params)
    ranking, est = np.asarray(auto.ranking_), auto.selector_
    timings["select_s"] = time.perf_counter() - t0
    k = int(support.sum())
    for line in report_lines(auto, args, name, used, notes):
        print(line)
    if auto.verdict_ is not None:
        print(auto.verdict_.summary())
    constant = _constant_mask(est, constant)

    order = write_ranking_csv(args.out, names, ranking, est.scores_, support, constant)
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
        # cluster the selected columns as the selection saw them (standardised when it was)
        evaluation = _evaluate(auto.description_.Xw, labels, support, args.random_state)
        evaluation["standardized"] = bool(auto.description_.standardized)
        timings["evaluation_s"] = time.perf_counter() - t0
        _print_evaluation(evaluation, k, labels_from)
    if args.report is not None:  # one HTML page of the run (ufsel.model_selection._report)
        from ._report import write_report
        write_report(args.report, auto, names, bunch.source)
    timings["total_s"] = time.perf_counter() - t_start

    fields = sidecar_fields(
        args, auto, name=name, used=used, notes=notes, names=names, ranking=ranking,
        support=support, constant=constant, order=order, timings=timings,
        input={"path": str(bunch.source), "format": bunch.format, "n_samples": n,
               "n_features": d, "labels": labels_from, "id_column": args.id_column,
               "dropped_columns": _column_list(args.drop_columns)},
        outputs={"ranking": str(args.out), "transform": args.transform_out,
                 "report": None if args.report is None else str(args.report)})
    fields["evaluation_with_labels"] = evaluation
    meta = run_record(args, **fields)
    atomic_write_text(sidecar, json.dumps(to_jsonable(meta), indent=2) + "\n")
    print(f"run details written to {sidecar} ({timings['total_s']:.1f} s)")
    return 0


def _transform_format(path, input_format):
    """The format of ``--transform-out``, checked (extras included) before any selection runs."""
    from ..datasets._readers import extension_format, formats_help
    from ..utils import import_optional

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


