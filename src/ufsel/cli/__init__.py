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

import contextlib
import os
import sys
import warnings
from pathlib import Path

__all__ = ["main", "build_parser"]

from ._common import CommandError, _count_or_auto, _int_or_auto, _Parser  # noqa: F401
from ._select import _cmd_select  # noqa: F401


# --------------------------------------------------------------- datasets
def _cmd_datasets(args):
    from ..datasets import list_datasets

    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        raise CommandError(f"--data-dir {args.data_dir} is not a folder.")
    rows = list_datasets(args.data_dir)
    print(f"{'name':<15}{'n':>8}{'d':>8}{'classes':>9}  source")
    for r in rows:
        classes = "-" if r["n_classes"] is None else r["n_classes"]
        print(f"{r['name']:<15}{r['n_samples']:>8}{r['n_features']:>8}{classes:>9}  {r['source']}")
    return 0


def build_parser():
    from .. import __version__
    from .._registry import SELECTORS

    p = _Parser(prog="ufsel", description="Unsupervised feature selection.")
    p.add_argument("--version", action="version", version=f"ufsel {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser(
        "select", help="select features of a data file; write a ranking CSV and a JSON sidecar",
        description="Rank the features of a data file without labels. Reads CSV/TSV (header = "
                    "feature names), .npy/.npz, Parquet, LIBSVM/svmlight, .mat and AnnData "
                    ".h5ad. Labels, "
                    "when given, only evaluate the selection afterwards.")
    src = s.add_argument_group("input")
    src.add_argument("--data", metavar="FILE", help="data file (.csv .tsv .npy .npz .parquet "
                     ".svm .mat .h5ad)")
    src.add_argument("--format", choices=("csv", "tsv", "npy", "npz", "parquet", "svmlight", "mat",
                                          "h5ad"),
                     help="format of --data when its extension does not say")
    src.add_argument("--layer", metavar="NAME",
                     help="an .h5ad file's layer to select on (e.g. counts) instead of its X")
    src.add_argument("--raw", action="store_true",
                     help="select on an .h5ad file's .raw (matrix and gene names)")
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
                          "features in different units); without it, the route (a named "
                          "--method too) standardises by itself when the features' ranges "
                          "differ more than 30-fold, and says so")
    sel.add_argument("--counts", choices=("none", "log1p", "pearson"), default="none",
                     help="the data are counts (single-cell UMI counts): select on log1p of "
                          "library-size-normalised counts (sparse kept), or on their analytic "
                          "Pearson residuals (dense n x d); default none: as given")
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
    from ._report import report_path

    out.add_argument("--report", metavar="FILE.html", type=report_path,
                     help="also write one self-contained HTML page of the run: the "
                          "feature-count curve, the selection against random subsets, the "
                          "candidates' evidence beside their prior, the nearest benchmark data "
                          "sets, the stability (needs matplotlib: the plot extra)")
    from ._large import add_large_file_arguments

    add_large_file_arguments(s)
    s.set_defaults(func=_cmd_select)

    d = sub.add_parser("datasets", help="list the available data sets")
    d.add_argument("--data-dir", help="folder of .mat files (default: $UFSEL_DATA)")
    d.set_defaults(func=_cmd_datasets)

    try:
        from ..benchmark._cli import add_subcommands
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
