"""``ufsel select --report FILE.html``: the option's check and the page."""

from __future__ import annotations

import argparse
from pathlib import Path


def report_path(text):
    """``--report``'s value, checked when the command line is parsed (before any fit):
    an ``.html`` file in an existing folder, and matplotlib installed."""
    from ..utils import optional_available

    path = Path(text)
    if path.suffix.lower() not in (".html", ".htm"):
        raise argparse.ArgumentTypeError(f"{text}: name an .html file (the report is one "
                                         "HTML page).")
    if path.is_dir() or not path.parent.is_dir():
        why = "is a folder" if path.is_dir() else "its folder does not exist"
        raise argparse.ArgumentTypeError(f"{text}: {why}.")
    if not optional_available("matplotlib"):
        raise argparse.ArgumentTypeError("the report draws with matplotlib, which is not "
                                         "installed: pip install 'ufsel[plot]'.")
    return path


def write_report(path, selector, feature_names, source):
    """Write the selection report of the fitted ``selector`` and say so."""
    from ..model_selection import selection_report

    selection_report(selector, path, title=f"ufsel select: {Path(str(source)).name}",
                     feature_names=feature_names)
    print(f"report written to {path}")
