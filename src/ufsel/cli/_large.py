"""``ufsel select`` on a large .npy or Parquet file: the options and the command's large-file path.

Kept apart from :mod:`ufsel.cli`, which calls :func:`add_large_file_arguments` and
:func:`select_large_file_command`; the work is
:func:`ufsel.model_selection._large_data.select_large_file`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..model_selection._large_data import (
    DASK_SCHEDULER_ENV,
    LARGE_FILE_MIN_ROWS,
    SAMPLE_ROWS,
    file_rows,
    select_large_file,
)

__all__ = ["add_large_file_arguments", "select_large_file_command"]


def _positive_int(text):
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_large_file_arguments(parser):
    """The large-file options of ``ufsel select``."""
    g = parser.add_argument_group(
        "large files (.npy, Parquet)",
        f"From --large-rows rows (default {LARGE_FILE_MIN_ROWS:,}) the choices are made on a "
        "row sample and the chosen method is fitted on every row, the file read block by "
        "block (.npy by memory map, Parquet by row group).")
    g.add_argument("--large-rows", type=_positive_int, default=None, metavar="N",
                   help="row count from which a .npy or Parquet file takes the large-file path")
    g.add_argument("--sample-rows", type=_positive_int, default=SAMPLE_ROWS, metavar="N",
                   help=f"rows of the sample the choices are made on (default {SAMPLE_ROWS:,})")
    g.add_argument("--dask", metavar="SCHEDULER_ADDRESS",
                   default=os.environ.get(DASK_SCHEDULER_ENV),
                   help="fit on every row on this Dask cluster (default: "
                        f"${DASK_SCHEDULER_ENV}; large files only)")
    g.add_argument("--no-progress", action="store_true",
                   help="no progress bar on stderr")


#: Options of ``ufsel select`` that the large-file path does not take.
_UNSUPPORTED = (("transform_out", "--transform-out"), ("labels", "--labels"),
                ("label_column", "--label-column"), ("evaluate", "--evaluate"),
                ("id_column", "--id-column"), ("counts", "--counts"))


def select_large_file_command(args):
    """Run ``ufsel select`` on a large file; None when ``args.data`` is not one.

    Returns the exit status (0) after writing the ranking CSV (the columns of the
    in-memory path) and its JSON sidecar.
    """
    from ._common import (
        CommandError,
        _parse_params,
        describe_choice,
        report_lines,
        run_record,
        sidecar_fields,
        write_ranking_csv,
    )

    large_rows = args.large_rows or LARGE_FILE_MIN_ROWS
    n = file_rows(args.data, args.format) if args.data else None
    if n is None or n < large_rows:
        if args.dask:
            raise CommandError(f"--dask applies to large .npy or Parquet files (from "
                               f"--large-rows {large_rows:,} rows).")
        return None
    for attr, flag in _UNSUPPORTED:
        if getattr(args, attr, None) and getattr(args, attr) != "none":
            raise CommandError(f"{flag} is not available for a large file ({n:,} rows, from "
                               f"--large-rows {large_rows:,}); raise --large-rows to read it "
                               "whole.")
    params = {}
    if args.method != "auto":
        from .._registry import get_selector

        params = _parse_params(args.param, get_selector(args.method))
    drop = [c.strip() for c in args.drop_columns.split(",")] if args.drop_columns else ()
    res = select_large_file(args.data, method=args.method, n_features=args.n_features,
                            n_clusters=args.n_clusters, params=params,
                            standardize=True if args.standardize else "auto",
                            format=args.format, drop_columns=drop,
                            sample_rows=args.sample_rows, dask_scheduler=args.dask,
                            random_state=args.random_state, progress=not args.no_progress,
                            n_resamples=args.stability, verdict_on_sample=not args.no_verdict)
    auto = res.auto
    where = f" on the Dask cluster at {res.dask_scheduler}" if res.dask_scheduler else ""
    print(f"Read {args.data}: {res.n_samples:,} samples x {res.n_features} features "
          f"({res.format}, large file: choices on a sample of {res.sample_rows:,} rows, "
          f"fit on every row{where}).")
    name, used, notes = describe_choice(auto, args, res.n_features)
    for line in report_lines(auto, args, name, used, notes):
        print(line)
    names, ranking, support = res.feature_names, res.ranking, res.support
    order = write_ranking_csv(args.out, names, ranking, res.scores, support, res.constant)
    print(f"{int(support.sum())} of {res.n_features} features selected; ranking written to "
          f"{args.out}")
    if res.verdict is not None:
        print(f"Judged on the {res.sample_rows:,}-row sample: {res.verdict.summary()}")
    if getattr(args, "report", None) is not None:  # the decisions, made on the sample
        from ._report import write_report

        write_report(args.report, auto, names, args.data)
    from ..benchmark._cache import to_jsonable
    from ..utils import atomic_write_text

    meta = run_record(args, **sidecar_fields(
        args, auto, name=name, used=used, notes=notes, names=names, ranking=ranking,
        support=support, constant=res.constant, order=order, timings=res.timing_s,
        input={"path": str(args.data), "format": res.format, "n_samples": res.n_samples,
               "n_features": res.n_features, "large_file": True,
               "sample_rows": res.sample_rows},
        outputs={"ranking": str(args.out),
                 **({} if getattr(args, "report", None) is None
                    else {"report": str(args.report)})}, dask_scheduler=res.dask_scheduler,
        **({} if res.verdict is None else
           {"verdict_judged_on": f"a sample of {res.sample_rows} rows"})))
    sidecar = Path(f"{args.out}.json")
    atomic_write_text(sidecar, json.dumps(to_jsonable(meta), indent=2) + "\n")
    print(f"run details written to {sidecar}")
    return 0
