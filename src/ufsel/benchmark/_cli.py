"""The ``ufsel bench`` and ``ufsel report`` subcommands (added to ``ufsel.cli``)."""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_subcommands", "experiment_from_args", "main"]


def _csv_list(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def _int_list(text):
    try:
        return [int(t) for t in _csv_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def experiment_from_args(args):
    """An :class:`~ufsel.benchmark.Experiment` from the file and/or the flags."""
    from ._experiment import experiment_from_dict, load_experiment

    if args.experiment:
        exp = load_experiment(args.experiment)
        doc = None
    else:
        if not (args.datasets and args.methods):
            raise ValueError("give an experiment file, or at least --datasets and --methods.")
        doc = {"experiment": {"name": args.name or "bench"},
               "datasets": args.datasets, "methods": {m: {} for m in args.methods},
               "evaluation": {}}
        exp = None
    ev = {}
    if args.n_features:
        ev["n_features"] = args.n_features
    if args.kmeans_runs is not None:
        ev["kmeans_runs"] = args.kmeans_runs
    if args.seed is not None:
        ev["seed"] = args.seed
    if args.random_seeds is not None:
        ev["random_baseline_seeds"] = args.random_seeds
    if doc is not None:
        doc["evaluation"].update(ev)
        return experiment_from_dict(doc)
    for k, v in ev.items():
        setattr(exp, "n_features" if k == "n_features" else k,
                sorted(set(v)) if k == "n_features" else v)
    if "n_features" in ev:
        exp.grids = {}  # explicit counts replace the file's grids
    if getattr(args, "grids", None):
        unknown = sorted(set(args.grids) - set(exp.grids))
        if unknown:
            raise ValueError(f"--grids {unknown} not in the experiment, valid options are "
                             f"{sorted(exp.grids)}.")
        exp.grids = {g: v for g, v in exp.grids.items() if g in args.grids}
    if getattr(args, "protocols", None):
        unknown = sorted(set(args.protocols) - set(exp.protocols))
        if unknown:
            raise ValueError(f"--protocols {unknown} not in the experiment, valid options are "
                             f"{list(exp.protocols)}.")
        exp.protocols = tuple(p for p in exp.protocols if p in args.protocols)
    if getattr(args, "fit_timeout", None) is not None:
        if args.fit_timeout < 0:
            raise ValueError(f"--fit-timeout must be >= 0 seconds, got {args.fit_timeout}.")
        exp.fit_timeout = float(args.fit_timeout)
    exp.datasets = _subset(exp.datasets, args.datasets, "--datasets")
    exp.methods = _subset(exp.methods, args.methods, "--methods")
    return exp


def _subset(items, wanted, flag):
    """The items whose label is in ``wanted`` (all when ``wanted`` is empty)."""
    if not wanted:
        return items
    labels = [it.label for it in items]
    unknown = sorted(set(wanted) - set(labels))
    if unknown:
        raise ValueError(f"{flag} {unknown} not in the experiment, valid options are {labels}.")
    return [it for it in items if it.label in wanted]


def _cmd_bench(args):
    from ._runner import run

    exp = experiment_from_args(args)
    out = args.out or f"results/{exp.name}"
    threads = None if args.threads_per_job == 0 else args.threads_per_job
    res = run(exp, out, n_jobs=args.n_jobs, threads_per_job=threads, data_dir=args.data_dir,
              progress=not args.no_progress, plots=not args.no_plots,
              report=not args.no_report, verbose=not args.quiet,
              compute=not args.cached_only, refit=args.refit or ())
    if not args.quiet:
        print(f"results in {res.out_dir}" + (f"; report: {res.files['report']}"
                                              if "report" in res.files else ""))
    s = res.summary
    # failures are reported, not fatal, unless nothing at all succeeded
    return 1 if s["failures"] and not res.results else 0


def _cmd_report(args):
    from ._report import write_report

    path = write_report(args.results_dir, redraw=not args.no_redraw)
    print(f"report written to {path}")
    return 0


def add_subcommands(subparsers):
    """Add ``bench`` and ``report`` to the ``ufsel`` command's subparsers."""
    b = subparsers.add_parser(
        "bench", help="run an experiment file (cached, resumable, parallel)",
        description="Run an experiment: data sets x methods x feature counts x parameter "
                    "grids, with k-means ACC/NMI, 1-NN error, the all-features and random "
                    "baselines, both tuning modes. Finished work is cached in OUT/cache: "
                    "rerunning resumes where a previous run stopped.")
    b.add_argument("experiment", nargs="?", help="experiment file (TOML), e.g. "
                   "experiments/mcfs_kdd2010.toml")
    b.add_argument("--out", help="results folder (default results/<experiment name>)")
    b.add_argument("--n-jobs", type=int, default=1, help="parallel workers (default 1; -1: all)")
    b.add_argument("--threads-per-job", type=int, default=1,
                   help="BLAS threads per fit (default 1: results independent of --n-jobs; "
                        "0: cpu_count // n_jobs)")
    b.add_argument("--data-dir", help="folder of .mat files (default: $UFSEL_DATA)")
    b.add_argument("--datasets", type=_csv_list, help="comma-separated data sets (a subset of "
                   "the file's, or the data sets of a flag-only experiment)")
    b.add_argument("--methods", type=_csv_list, help="comma-separated methods (subset / "
                   "flag-only experiment)")
    b.add_argument("--n-features", type=_int_list, help="comma-separated feature counts")
    b.add_argument("--kmeans-runs", type=int, help="k-means runs per evaluation")
    b.add_argument("--random-seeds", type=int, help="random-subset baseline seeds")
    b.add_argument("--seed", type=int, help="seed of k-means and of the selectors")
    b.add_argument("--name", help="experiment name (flag-only experiments)")
    b.add_argument("--grids", type=_csv_list, help="comma-separated feature-count grids (a "
                   "subset of the file's [evaluation.grids])")
    b.add_argument("--protocols", type=_csv_list, help="comma-separated protocols (a subset "
                   "of the file's: n_classes, label_free)")
    b.add_argument("--fit-timeout", type=float, help="seconds per fit, then the fit is "
                   "killed and reported as timed out (0: no cap)")
    b.add_argument("--refit", type=_csv_list, help="comma-separated methods whose cached "
                   "fits are recomputed (after a change to their code); evaluations of "
                   "unchanged selections stay cached")
    b.add_argument("--cached-only", action="store_true", help="compute nothing: tables and "
                   "report from the cache (what is missing shows as not run)")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    b.add_argument("--no-plots", action="store_true", help="no figures")
    b.add_argument("--no-report", action="store_true", help="no report.html")
    b.add_argument("--quiet", action="store_true", help="no summary")
    b.set_defaults(func=_cmd_bench)

    r = subparsers.add_parser("report", help="write RESULTS_DIR/report.html",
                              description="Assemble a results folder into one static HTML page.")
    r.add_argument("results_dir", help="folder written by `ufsel bench`")
    r.add_argument("--no-redraw", action="store_true", help="reuse the existing figures")
    r.set_defaults(func=_cmd_report)
    return subparsers


def main(argv=None):
    """``python -m ufsel.benchmark bench|report ...`` (the same as ``ufsel bench|report``)."""
    p = argparse.ArgumentParser(prog="python -m ufsel.benchmark")
    add_subcommands(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"ufsel {args.command}: error: {exc}", file=sys.stderr)
        return 2
