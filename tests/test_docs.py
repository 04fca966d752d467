"""The documentation stays complete and correct: every public name is in the API
reference, the guide cites only files that exist, and every gallery example runs.

These tests read the source tree (``docs/``, ``README.md``); in an installed copy
without it they are skipped. ``make docs`` builds the site itself (warnings are errors).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ufsel

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = sorted((DOCS / "examples").glob("*.py"))

pytestmark = pytest.mark.skipif(not (DOCS / "conf.py").exists(),
                                reason="no docs/ folder (not a source checkout)")

#: Modules that are not part of the documented library API, and why.
NOT_API = {
    "ufsel.base": "for implementers of selectors; BaseSelector and NumericalError are "
                  "documented from ufsel",
    "ufsel.cli": "the command line, documented by its commands",
    "ufsel.demo": "the `make demo` script",
    "ufsel.utils": "internal helpers (optional imports, input validation); the configuration "
                   "is documented from ufsel",
}


def public_modules():
    """ufsel and each of its public submodules that declares ``__all__``."""
    names = ["ufsel"]
    for info in pkgutil.iter_modules(ufsel.__path__):
        full = f"ufsel.{info.name}"
        if info.name.startswith("_") or info.name == "tests" or full in NOT_API:
            continue
        names.append(full)
    return [m for m in names if hasattr(importlib.import_module(m), "__all__")]


def documented_names():
    """{module: names} listed in docs/api/*.rst, under ``.. currentmodule::``: the
    entries of autosummary tables and the ````name```` definition-list terms."""
    found: dict[str, set[str]] = {}
    for path in sorted((DOCS / "api").glob("*.rst")):
        module = None
        in_autosummary = False
        for line in path.read_text().splitlines():
            m = re.match(r"\.\. currentmodule:: (\S+)", line)
            if m:
                module = m.group(1)
                continue
            if line.startswith(".. autosummary::"):
                in_autosummary = True
                continue
            if module is None:
                continue
            if in_autosummary:
                if line.strip() and not line.startswith(" "):
                    in_autosummary = False
                elif re.fullmatch(r"   [A-Za-z_][\w.]*", line):
                    found.setdefault(module, set()).add(line.strip())
                    continue
            m = re.fullmatch(r"``([A-Za-z_]\w*)``", line)
            if m:
                found.setdefault(module, set()).add(m.group(1))
    return found


@pytest.mark.parametrize("module", public_modules())
def test_api_reference_lists_every_public_name(module):
    names = set(importlib.import_module(module).__all__)
    missing = sorted(names - documented_names().get(module, set()))
    assert not missing, (
        f"{module}.__all__ names missing from docs/api/*.rst: {missing}. Add them to an "
        f"autosummary table under '.. currentmodule:: {module}'."
    )


def test_documented_names_exist():
    for module, names in documented_names().items():
        mod = importlib.import_module(module)
        for name in names:
            assert hasattr(mod, name), f"docs/api lists {module}.{name}, which does not exist"


# a repository path in the guide, the README or an example: `benchmarks/x.py` etc.
_REPO_PATH = re.compile(r"(?<![\w/.])((?:benchmarks|experiments|src|docs|\.ci)/[\w./-]*\w)")


def _doc_files():
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), *sorted(DOCS.rglob("*.rst")),
            *EXAMPLES]


def test_docs_cite_only_existing_files():
    missing = []
    for path in _doc_files():
        if "_build" in path.parts or "auto_examples" in path.parts or "generated" in path.parts:
            continue
        for cited in _REPO_PATH.findall(path.read_text()):
            if cited.startswith(("docs/_build", "docs/auto_examples")):
                continue                       # written by `make docs`
            if not (ROOT / cited).exists():
                missing.append(f"{path.relative_to(ROOT)}: {cited}")
    assert not missing, "documentation cites files that are not in the repository:\n" + \
        "\n".join(missing)


def test_gallery_has_at_least_six_examples_with_titles():
    assert len(EXAMPLES) >= 6
    for path in EXAMPLES:
        text = path.read_text()
        m = re.match(r'"""\n(.+)\n(=+)\n', text)
        assert m and len(m.group(2)) >= len(m.group(1)), \
            f"{path.name} must start with a docstring whose first line is an '=' underlined title"


def test_docs_extra_installs_every_gallery_import():
    # `make docs` installs the docs extra alone and runs every example: each module an
    # example imports is the standard library's, ufsel's, or installed by that extra or
    # the core dependencies
    from _doc_code import imported_modules, not_installed_by, pyproject

    project = pyproject()
    requirements = project["dependencies"] + project["optional-dependencies"]["docs"]
    missing = [f"{path.name}: {m}" for path in EXAMPLES
               for m in not_installed_by(imported_modules(path.read_text()), requirements)]
    assert not missing, ("gallery examples import modules the docs extra "
                         "(pyproject.toml) does not install:\n" + "\n".join(missing))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_gallery_example_runs(example, tmp_path):
    pytest.importorskip("matplotlib")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    # one BLAS thread unless the caller chose (see docs/conf.py: default threads made
    # examples minutes long on a loaded machine)
    env.setdefault("OMP_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, str(example)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=280)
    assert proc.returncode == 0, f"{example.name} failed:\n{proc.stderr[-3000:]}"
