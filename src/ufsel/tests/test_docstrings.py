"""The public API's docstrings follow numpydoc and stay a reference, not a lab notebook.

- every public name of ``ufsel`` and of its public subpackages (their ``__all__``), and
  every public method those classes define, passes :func:`numpydoc.validate.validate`
  on the checks in ``REQUIRED_CHECKS`` (every parameter documented, no unknown one,
  ``name : type`` spacing, a docstring at all);
- a selector's class docstring has a short summary: at most ``MAX_SUMMARY_LINES``
  lines before ``Parameters`` (the objective, the equations and the interpretations
  go in ``Notes``);
- no file under ``src/`` names a commit hash or an ISO date (history and measurements
  belong in dated study notes beside their scripts in ``benchmarks/``).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import ufsel

numpydoc_validate = pytest.importorskip("numpydoc.validate")

#: numpydoc checks every public docstring must pass: PR01 a parameter is not
#: documented, PR02 a documented parameter does not exist, PR10 ``name: type``
#: without the space, GL08 no docstring.
REQUIRED_CHECKS = {"PR01", "PR02", "PR10", "GL08"}

#: Subpackages whose ``__all__`` is public API.
MODULES = ["ufsel", "ufsel.graph", "ufsel.linalg", "ufsel.metrics", "ufsel.evaluation",
           "ufsel.datasets", "ufsel.utils", "ufsel.benchmark", "ufsel.model_selection",
           "ufsel.exceptions"]

#: Lines allowed before ``Parameters`` in a selector's class docstring.
MAX_SUMMARY_LINES = 30

#: Names rewritten by other work in progress; their docstrings are checked once it lands.
PENDING = {}


def _public_objects():
    """Import paths of the public functions and classes, and of the public methods
    that those classes define themselves (inherited scikit-learn methods are
    scikit-learn's)."""
    seen, paths = set(), []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or id(obj) in seen:
                continue
            seen.add(id(obj))
            path = f"{module_name}.{name}"
            paths.append(path)
            if not inspect.isclass(obj):
                continue
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if inspect.isfunction(member) or isinstance(member, property):
                    paths.append(f"{path}.{attr}")
    return paths


def _params(path):
    """The test case for ``path``, expected to fail when it or its class is in PENDING."""
    owner = next((p for p in PENDING if path == p or path.startswith(p + ".")), None)
    marks = [pytest.mark.xfail(reason=PENDING[owner], strict=False)] if owner else []
    return pytest.param(path, id=path, marks=marks)


@pytest.mark.parametrize("path", [_params(p) for p in _public_objects()])
def test_public_docstring_passes_numpydoc_validation(path):
    result = numpydoc_validate.validate(path)
    errors = [f"{code}: {message}" for code, message in result["errors"]
              if code in REQUIRED_CHECKS]
    assert not errors, f"{path}:\n" + "\n".join(errors)


def _selectors():
    return [pytest.param(cls, id=name) for name, cls in sorted(ufsel.SELECTORS.items())]


@pytest.mark.parametrize("cls", _selectors())
def test_selector_docstring_has_a_short_summary(cls):
    lines = inspect.cleandoc(cls.__doc__).splitlines()
    heads = [i for i in range(len(lines) - 1)
             if lines[i].strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"}]
    assert heads, f"{cls.__name__}'s docstring has no Parameters section"
    assert heads[0] <= MAX_SUMMARY_LINES, (
        f"{cls.__name__}'s docstring has {heads[0]} lines before Parameters "
        f"(at most {MAX_SUMMARY_LINES}); move the method's details to Notes")


@pytest.mark.parametrize("cls", _selectors())
def test_selector_docstring_has_the_numpydoc_sections(cls):
    doc = inspect.cleandoc(cls.__doc__)
    titles = [m.group(1) for m in re.finditer(r"^(\w[\w ]*)\n-{3,}$", doc, re.M)]
    allowed = ["Parameters", "Attributes", "See Also", "Notes", "References", "Examples"]
    assert all(t in allowed for t in titles), f"{cls.__name__}: sections {titles}"
    assert titles == sorted(titles, key=allowed.index), f"{cls.__name__}: order {titles}"
    assert {"Parameters", "Attributes", "Notes", "Examples"} <= set(titles), titles


SRC = Path(ufsel.__file__).resolve().parent
#: A hexadecimal word of 7 to 40 characters with at least one letter and one digit,
#: not part of a number or an identifier: how a commit is abbreviated.
COMMIT = re.compile(r"(?<![\w.])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w.])")
ISO_DATE = re.compile(r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")


#: Paths (relative to src/ufsel) left out of the check.
NOT_YET_CLEAN = ()


def _source_files():
    return sorted(p for p in SRC.rglob("*")
                  if p.is_file() and p.suffix in {".py", ".md", ".rst", ".txt", ".toml", ".cfg"}
                  and "__pycache__" not in p.parts
                  and not p.relative_to(SRC).as_posix().startswith(NOT_YET_CLEAN))


def test_source_names_no_commit_or_date():
    found = []
    for path in _source_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pattern in (COMMIT, ISO_DATE):
                for match in pattern.finditer(line):
                    found.append(f"{path.relative_to(SRC)}:{number}: {match.group()}")
    assert not found, ("commit hashes or dates in src/ (put history in a dated study note "
                       "in benchmarks/):\n" + "\n".join(found))


def test_user_guide_names_no_commit_or_date():
    docs = SRC.parents[1] / "docs"
    if not docs.is_dir():
        pytest.skip("no docs/ in this checkout (an installed wheel)")
    found = []
    for path in sorted([*docs.rglob("*.md"), *docs.rglob("*.rst"), docs.parent / "README.md"]):
        if "_build" in path.parts or "generated" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pattern in (COMMIT, ISO_DATE):
                for match in pattern.finditer(line):
                    found.append(f"{path.name}:{number}: {match.group()}")
    assert not found, ("commit hashes or dates in the guide or the README (history goes "
                       "into a dated study note in benchmarks/studies/):\n" + "\n".join(found))


@pytest.mark.parametrize("text, hit", [
    ("up to d176" "c49: 15 fresh processes", True),   # split: no hash in src
    ("the route script at 9e7d" "619", True),
    ("eps=2.220446049250313e-16", False),
    ("a 1e-12 relative perturbation", False),
    ("sha " + ("abc" + "0123") * 5, True),   # 35 hex characters
    ("deadbeef", False),           # no digit: a word, not an abbreviated commit
    ("1234567", False),            # no letter: a number
])
def test_commit_pattern(text, hit):
    assert bool(COMMIT.search(text)) is hit


@pytest.mark.parametrize("cls", _selectors())
def test_selector_parameters_are_all_described(cls):
    """PR07 on top of REQUIRED_CHECKS: a selector's every parameter has a description."""
    result = numpydoc_validate.validate(f"ufsel.{cls.__name__}")
    errors = [f"{code}: {message}" for code, message in result["errors"]
              if code in REQUIRED_CHECKS | {"PR07"}]
    assert not errors, "\n".join(errors)


# reST markup that plain docstring text must not contain by accident (the docs are built
# with warnings as errors): ``name_`` is a hyperlink reference and ``|x|`` a substitution.
# Inline literals, roles, interpreted text, bold and emphasis are left out first.
_MARKUP = re.compile(r"(:[\w:+-]+:`[^`]*`|``.+?``|`[^`]*`_{0,2}|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)")
_REFERENCE = re.compile(r"(?<![^\s(\[{<'\"/-])[A-Za-z][A-Za-z0-9_]*_(?=$|[\s.,:;!?)\]}'\"/\\>-])")
_SUBSTITUTION = re.compile(r"(?<![\w|`])\|(?=\S)[^|`\n]*?\S\|(?![\w|])")


def _accidental_markup(lines):
    found, literal_indent = [], None
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if stripped.rstrip().endswith("::"):
            literal_indent = indent
        if stripped.startswith((">>>", "...", "|", "+", "=", ".. ")):
            continue
        text = _MARKUP.sub(" ", line)
        found += [m.group() for m in _REFERENCE.finditer(text)]
        found += [m.group() for m in _SUBSTITUTION.finditer(text)]
    return found


@pytest.mark.parametrize("path", [_params(p) for p in _public_objects()])
def test_rendered_docstring_has_no_accidental_rest_markup(path):
    from numpydoc.docscrape_sphinx import get_doc_object

    module_name, _, name = path.rpartition(".")
    owner = importlib.import_module(module_name) if module_name in MODULES else None
    if owner is None:
        module_name, _, cls = module_name.rpartition(".")
        owner = getattr(importlib.import_module(module_name), cls)
    obj = getattr(owner, name)
    if isinstance(obj, property):
        obj = obj.fget
    lines = str(get_doc_object(obj, config={"show_class_members": False})).splitlines()
    found = _accidental_markup(lines)
    assert not found, (f"{path}: write these as ``literal`` (reST reads them as markup): "
                       f"{found}")


def test_accidental_markup_detector():
    assert _accidental_markup(["shape (n_iter_,)", "max_k |a_k|"]) == ["n_iter_", "|a_k|"]
    assert _accidental_markup(["shape (`n_iter_`,)", "``|a|``", "**scores_** : x"]) == []
    assert _accidental_markup(["Objective::", "", "    |x| and n_iter_", "done"]) == []
