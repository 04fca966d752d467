"""Atomic file writes: every result file ufsel writes goes through here.

A file is written to a temporary file in the destination folder, flushed to
disk, given the permissions an ordinary ``open(path, "w")`` would give it
(``0o666`` minus the process umask: ``0644`` under the usual umask ``022``;
:func:`tempfile.mkstemp` alone leaves ``0600``, unreadable by anyone else),
then moved into place with :func:`os.replace`, which is atomic on POSIX and
Windows. A reader therefore sees either the old file or the complete new one,
never half a file, whenever the writer is killed (``kill -9`` included), and
an interrupted write leaves no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_open", "atomic_write_text", "default_file_mode"]


def _umask():
    """The process umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    # elsewhere the only way to read it is to set it and put it back
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def default_file_mode():
    """The mode a newly created regular file gets: ``0o666 & ~umask`` (0644 usually)."""
    return 0o666 & ~_umask()


@contextlib.contextmanager
def atomic_open(path, mode="w", *, encoding=None, newline=None, fsync=True):
    """Open a temporary file that replaces ``path`` when the ``with`` block ends.

    The parent folder is created when missing. When the block raises (or is
    interrupted), the temporary file is removed and ``path`` is untouched.

    Parameters
    ----------
    path : path-like
        Destination file.
    mode : {"w", "wb"}
        Text or binary.
    encoding, newline : passed to :func:`os.fdopen` (text mode only;
        ``encoding`` defaults to UTF-8).
    fsync : bool, default=True
        Flush the data to disk before the rename, so that a crash of the
        machine cannot leave a renamed but empty file.

    Yields
    ------
    file object
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode={mode!r} not understood, valid options are {{'w', 'wb'}}.")
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; name a file to write instead.")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, default_file_mode())
        kwargs = {} if mode == "wb" else {"encoding": encoding or "utf-8", "newline": newline}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path, text, *, fsync=True):
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically.

    Parameters
    ----------
    path : str or path
        The file to write.
    text : str
        The content.
    fsync : bool, default=True
        Flush the data to disk before the file replaces the old one.
    """
    with atomic_open(path, "w", newline="", fsync=fsync) as fh:
        fh.write(text)
