"""Regenerate the console output quoted in the README and the guide by running its commands.

Usage (from the repository root)::

    python docs/tools/render_outputs.py            # rewrite every stale block
    python docs/tools/render_outputs.py --check    # exit 1 with a diff when one is stale
    python docs/tools/render_outputs.py docs/guide/your_data.md   # one file

Three kinds of marked blocks, found in ``README.md`` and ``docs/**/*.md``:

``<!-- output -->`` before a fenced block
    Every ``$ COMMAND`` line of the block is run (``bash -c``, ``ufsel`` meaning
    this checkout's ``python -m ufsel.cli``), and the lines after it, up to the
    next ``$`` line, are replaced by what it printed (stdout and stderr, in order).
``<!-- output-setup -->`` before a fenced ``python`` block
    The block is run (``python -c``) to make the files the commands read; the
    block itself is left as written.
``<!-- output: json FILE KEY,KEY,... -->`` before a fenced ``json`` block
    The block becomes those top-level keys of the JSON file ``FILE`` (written by
    the commands above it), one key per line, lists cut to their first item, floats
    to four significant digits.

The blocks of one Markdown file run in one fresh temporary folder, the setup blocks
first, then the others in their order (a later block sees the files an earlier one
wrote), with one BLAS thread, no
``UFSEL_DATA`` (the built-in data sets only) and no labels but those the commands
name. Output that depends on the machine is filtered, and the filtered text says
so: a run time ``(5.7 s)`` is printed as ``(seconds not shown)``, and a float printed
to all its digits (a score in a ranking CSV, whose last digits depend on the BLAS) is
cut to nine decimals and ends in ``...``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MARK = re.compile(r"^\s*<!--\s*output(?P<setup>-setup)?(?::\s*(?P<spec>.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<ticks>```+)(?P<lang>\S*)\s*$")
#: Seconds a run prints (``run details written to X.json (5.7 s)``) vary from run to run.
TIMING = re.compile(r"\((\d+(?:\.\d+)?) s\)")
TIMING_SHOWN = "(seconds not shown)"
#: A float printed to all its digits (a score in a ranking CSV): the last ones depend on
#: the BLAS and the machine, so it is cut to ``LONG_FLOAT_DIGITS`` decimals and ends in "...".
LONG_FLOAT_DIGITS = 9
LONG_FLOAT = re.compile(rf"(?<![\w.])(-?\d+\.\d{{{LONG_FLOAT_DIGITS}}})\d{{3,}}((?:e[-+]?\d+)?)")
#: Significant digits of a float in an abridged JSON block.
JSON_DIGITS = 4
TIMEOUT_S = 300


@dataclass
class Block:
    """A marked fenced block: its kind, the lines it spans and what it holds."""

    kind: str                  # "console", "setup" or "json"
    spec: str | None
    start: int                 # index of the opening fence
    end: int                   # index of the closing fence
    indent: str
    body: list = field(default_factory=list)


def find_blocks(lines, path):
    """The marked blocks of a Markdown file (a list of lines)."""
    blocks, i = [], 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        f = FENCE.match(lines[j]) if j < len(lines) else None
        if f is None:
            raise ValueError(f"{path}:{i + 1}: an output marker must be followed by a fenced "
                             "block")
        k = j + 1
        while k < len(lines) and lines[k].strip() != f["ticks"]:
            k += 1
        if k == len(lines):
            raise ValueError(f"{path}:{j + 1}: the fenced block is not closed")
        indent = f["indent"]
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                for line in lines[j + 1:k]]
        spec = m["spec"]
        if m["setup"]:
            kind = "setup"
        elif spec and spec.split()[0] == "json":
            kind = "json"
        elif spec:
            raise ValueError(f"{path}:{i + 1}: unknown output marker {lines[i].strip()!r}")
        else:
            kind = "console"
        if kind == "console" and not any(line.startswith("$ ") for line in body):
            raise ValueError(f"{path}:{j + 1}: an output block needs '$ COMMAND' lines")
        blocks.append(Block(kind, spec, j, k, indent, body))
        i = k + 1
    return blocks


def _environment(workdir):
    """The commands' environment: this checkout's ufsel, one thread, no UFSEL_DATA."""
    bindir = Path(workdir) / ".bin"
    bindir.mkdir()
    shim = bindir / "ufsel"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ufsel.cli "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("UFSEL_") and k not in ("PYTHONSTARTUP",)}
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]),
               PYTHONUNBUFFERED="1", PYTHONHASHSEED="0", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", COLUMNS="100", LC_ALL="C.UTF-8")
    return env


def _run(argv, workdir, env):
    proc = subprocess.run(argv, cwd=workdir, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_S, check=False)
    return proc.returncode, proc.stdout


def clean(text):
    """Printed text as quoted: machine-dependent parts filtered, trailing blanks dropped."""
    out = [LONG_FLOAT.sub(r"\1...\2", TIMING.sub(TIMING_SHOWN, line)).rstrip()
           for line in text.splitlines()]
    while out and not out[-1]:
        out.pop()
    return out


def render_console(block, workdir, env, where):
    body, commands = [], [line for line in block.body if line.startswith("$ ")]
    for cmd in commands:
        _, text = _run(["bash", "-c", cmd[2:]], workdir, env)
        if "Traceback (most recent call last)" in text:
            raise RuntimeError(f"{where}: `{cmd[2:]}` raised:\n{text}")
        body += [cmd, *clean(text)]
    return body


def abridged(value):
    """``value`` with every list cut to its first item (and "..." when it had more), and
    every float to ``JSON_DIGITS`` significant digits."""
    if isinstance(value, list):
        return [abridged(v) for v in value[:1]] + (["..."] if len(value) > 1 else [])
    if isinstance(value, dict):
        return {k: abridged(v) for k, v in value.items()}
    if isinstance(value, float):
        return float(f"{value:.{JSON_DIGITS}g}")
    return value


def render_json(block, workdir, where):
    _, name, keys = (block.spec.split() + [""])[:3]
    path = Path(workdir) / name
    if not path.is_file():
        raise RuntimeError(f"{where}: no {name} was written by the commands above the block")
    record = json.loads(path.read_text())
    missing = [k for k in keys.split(",") if k not in record]
    if missing:
        raise RuntimeError(f"{where}: {name} has no key {', '.join(missing)}")
    items = [f"  {json.dumps(k)}: {json.dumps(abridged(record[k]))}" for k in keys.split(",")]
    return ["{", *[line + "," for line in items[:-1]], items[-1], "}"]


def render_file(path):
    """The text of ``path`` with its marked blocks regenerated (None: no marked block)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    blocks = find_blocks(lines, path)
    if not blocks:
        return None
    rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    workdir = tempfile.mkdtemp(prefix="ufsel-docs-")
    try:
        env = _environment(workdir)
        new_bodies = {}
        for b in sorted(blocks, key=lambda b: b.kind != "setup"):  # the setups first
            where = f"{rel}:{b.start + 1}"
            if b.kind == "setup":
                code, out = _run([sys.executable, "-c", "\n".join(b.body)], workdir, env)
                if code != 0:
                    raise RuntimeError(f"{where}: the setup block failed:\n{out}")
                new_bodies[b.start] = b.body
            elif b.kind == "json":
                new_bodies[b.start] = render_json(b, workdir, where)
            else:
                new_bodies[b.start] = render_console(b, workdir, env, where)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    out = []
    prev = 0
    for b in blocks:
        body = new_bodies[b.start]
        out += lines[prev:b.start + 1]
        out += [(b.indent + line) if line else "" for line in body]
        prev = b.end
    out += lines[prev:]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def documents():
    """README.md and every Markdown file under docs/ (not the built site)."""
    docs = sorted(p for p in (REPO / "docs").rglob("*.md") if "_build" not in p.parts)
    return [p for p in [REPO / "README.md", *docs] if p.is_file()]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", type=Path,
                   help="Markdown files (default: README.md and docs/**/*.md)")
    p.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 with a diff when a block is stale")
    args = p.parse_args(argv)
    stale = 0
    for path in [f.resolve() for f in args.files] or documents():
        old = path.read_text(encoding="utf-8")
        try:
            new = render_file(path)
        except (ValueError, RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"render_outputs: error: {exc}", file=sys.stderr)
            return 2
        if new is None or new == old:
            continue
        stale += 1
        rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True),
                f"{rel} (as written)", f"{rel} (as the program prints it)"))
        else:
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(new, encoding="utf-8")
            os.replace(tmp, path)
            print(f"rewrote {rel}")
    if args.check and stale:
        print(f"render_outputs: {stale} file(s) quote output the program no longer prints; "
              "run `python docs/tools/render_outputs.py` to regenerate them.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
