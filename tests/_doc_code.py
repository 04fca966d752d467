"""The code in the documentation: fenced blocks, their imports, what the extras install.

Shared by the tests of the README, the guide and the gallery (``tests/test_docs*.py``,
``tests/test_readme_snippets.py``).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Calls that need pandas although no ``import pandas`` is written.
PANDAS_CALLS = ("as_frame=True", 'transform="pandas"', "transform='pandas'")
#: A block's note of the extra it needs: ``# needs ... pip install 'ufsel[EXTRA]'``.
NEEDS = re.compile(r"#\s*needs\b.*?ufsel\[([\w,-]+)\]")


def fenced_blocks(path, langs):
    """The fenced code blocks of the Markdown file ``path`` whose info string is one of
    ``langs`` (indented blocks, in list items, dedented)."""
    blocks, lang, lines, indent = [], None, [], ""
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            if lang is None:
                lang, lines, indent = stripped[3:].strip(), [], line[:len(line) - len(
                    line.lstrip())]
            else:
                if lang in langs:
                    blocks.append("\n".join(x[len(indent):] if x.startswith(indent) else x
                                            for x in lines) + "\n")
                lang = None
        elif lang is not None:
            lines.append(line)
    return blocks


def pyproject():
    """``[project]`` of pyproject.toml."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def requirement_names(requirements):
    """Distribution names a list of requirement strings installs: each name and the
    extras it names (``dask[array,distributed]`` brings ``distributed``)."""
    names = set()
    for req in requirements:
        m = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(?:\[([^\]]*)\])?", req)
        names.add(m.group(1).lower().replace("_", "-"))
        names.update(e.strip().lower() for e in (m.group(2) or "").split(",") if e.strip())
    return names


def imported_modules(code):
    """The top-level modules ``code`` imports, besides the standard library and ufsel
    (``pandas`` too when it calls for a DataFrame, see :data:`PANDAS_CALLS`)."""
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found.update(a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module.partition(".")[0])
    if any(call in code for call in PANDAS_CALLS):
        found.add("pandas")
    return {m for m in found if m != "ufsel" and m not in sys.stdlib_module_names}


def not_installed_by(modules, requirements):
    """The modules among ``modules`` whose distribution ``requirements`` do not install."""
    from importlib.metadata import packages_distributions

    provided = requirement_names(requirements)
    dists = packages_distributions()
    return sorted(m for m in modules
                  if not {d.lower().replace("_", "-") for d in dists.get(m, [m])} & provided)
