"""A one-line progress display for long commands on a terminal."""

from __future__ import annotations

import sys
import time

__all__ = ["ProgressLine"]


class ProgressLine:
    """Show the current step of a long computation on one terminal line.

    Nothing is shown during the first ``delay`` seconds, nor when ``stream`` is
    not a terminal, so short runs and redirected output stay clean.

    Parameters
    ----------
    delay : float, default=2.0
        Seconds before the line first appears.
    stream : file, default=sys.stderr
        Where the line is written.
    """

    def __init__(self, delay=2.0, stream=None):
        self.delay = delay
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()
        self.shown = False

    def __call__(self, message):
        """Show ``message`` as the current step (once ``delay`` seconds have passed)."""
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay or not getattr(self.stream, "isatty", lambda: False)():
            return
        width = 100
        text = f"{elapsed:6.1f} s  {message}"[:width]
        self.stream.write("\r" + text.ljust(width))
        self.stream.flush()
        self.shown = True

    def close(self):
        """Clear the line."""
        if self.shown:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()
            self.shown = False
