"""The README's and Getting started's examples run, and print what their comments say.

Every ```python block of README.md and docs/getting_started.md is executed
(Getting started's ``measurements.csv`` is a small real table: scikit-learn's
wine, 178 x 13 with its column names), with ``print`` recorded, and each
printed object is checked against the comment beside it; every ``ufsel``
line of their ```bash blocks runs through the CLI. A comment changed without
its check fails here, since the checks name the comments they verify.
"""

from pathlib import Path

import numpy as np
import pytest
from _doc_code import NEEDS, fenced_blocks, imported_modules, not_installed_by, pyproject

from ufsel.cli import main

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
GETTING_STARTED = REPO / "docs" / "getting_started.md"

pytestmark = pytest.mark.skipif(not README.is_file() or not GETTING_STARTED.is_file(),
                                reason="README.md / docs/ are not in this checkout")


def _run(code, cwd, monkeypatch):
    """Execute ``code`` in ``cwd``; return (printed objects per print call, namespace)."""
    printed = []
    monkeypatch.chdir(cwd)
    ns = {"print": lambda *args, **kw: printed.append(args[0] if len(args) == 1 else args)}
    exec(compile(code, "<snippet>", "exec"), ns)
    return printed, ns


@pytest.fixture
def measurements(tmp_path):
    """Getting started's ``measurements.csv``: a header line and one column per feature."""
    from sklearn.datasets import load_wine

    df = load_wine(as_frame=True).data
    df.to_csv(tmp_path / "measurements.csv", index=False)
    return list(df.columns)


def _comment(code, text):
    assert text in code, f"the snippet no longer says {text!r}: update its check"


def test_readme_python_example(tmp_path, monkeypatch):
    blocks = fenced_blocks(README, ["python"])
    assert len(blocks) == 2, "the README shows a selection, then its evaluation with labels"
    code = "".join(blocks)
    printed, ns = _run(code, tmp_path, monkeypatch)
    _comment(code, "# built in: 1797 x 64, 10 classes")
    assert ns["data"].data.shape == (1797, 64) and np.unique(ns["data"].target).size == 10
    _comment(code, "# the 16 selected columns")
    assert ns["X16"].shape == (1797, 16)
    _comment(code, "# which ones; sel.ranking_ ranks all 64")
    idx, acc = printed
    assert len(idx) == 16 and len(set(idx.tolist())) == 16 and set(idx) <= set(range(64))
    assert sorted(ns["sel"].ranking_.tolist()) == list(range(1, 65))
    np.testing.assert_array_equal(ns["X16"], ns["data"].data[:, idx])
    _comment(code, "# k-means accuracy vs labels")
    assert 0.1 < acc <= 1  # an accuracy on 10 classes, above chance


def test_readme_puts_the_user_first():
    """What ufsel does, then a few lines of Python, then the command line, then the two
    commands (`make demo`, `make test`, first among the make commands)."""
    lines = README.read_text().splitlines()
    fences = [i for i, line in enumerate(lines) if line.startswith("```")]
    first_python = fences[0]
    assert lines[first_python] == "```python" and first_python < 15, \
        "the README's first code is its Python example, near the top"
    example = lines[first_python + 1:fences[1]]
    assert len([line for line in example if line.strip()]) <= 6
    first_cli = next(i for i, line in enumerate(lines) if line.startswith("ufsel select "))
    in_code = [False] * len(lines)
    for a, b in zip(fences[::2], fences[1::2]):
        in_code[a + 1:b] = [True] * (b - a - 1)
    makes = [(i, line.split("#")[0].strip()) for i, line in enumerate(lines)
             if in_code[i] and line.startswith("make ")]
    assert [cmd for _, cmd in makes[:2]] == ["make demo", "make test"]
    assert first_python < first_cli < makes[0][0]


def test_getting_started_python_example(tmp_path, monkeypatch, measurements):
    first, with_pandas = fenced_blocks(GETTING_STARTED, ["python"])
    printed, ns = _run(first, tmp_path, monkeypatch)
    names, ranking = printed
    _comment(first, "# the 10 kept column names")
    assert len(names) == 10 and set(names) <= set(measurements)  # real names, not f0, f1
    _comment(first, "# rank of every column, 1 = best")
    assert sorted(ranking.tolist()) == list(range(1, len(measurements) + 1))
    assert sorted(names) == sorted(c for c, r in zip(measurements, ranking) if r <= 10)
    _comment(first, "# n rows x the 10 kept columns")
    assert ns["X10"].shape == (178, 10)
    # the second block continues the first, with pandas
    pytest.importorskip("pandas")
    _, ns2 = _run(first + with_pandas, tmp_path, monkeypatch)
    _comment(with_pandas, "# a DataFrame: the 10 kept columns")
    assert list(ns2["X10"].columns) == list(names) and ns2["X10"].shape == (178, 10)


#: The documents whose Python examples must run on a plain ``pip install`` or say which
#: extra they need.
EXAMPLE_DOCS = [README, GETTING_STARTED,
                *sorted((README.parent / "docs" / "guide").glob("*.md"))]


@pytest.mark.parametrize("doc", EXAMPLE_DOCS, ids=lambda p: p.name)
def test_examples_run_on_a_plain_install_or_name_their_extra(doc):
    """Each Python block imports only the standard library, ufsel and its dependencies, or
    says in a comment which extra installs the rest: ``# needs ... 'ufsel[EXTRA]'``."""
    project = pyproject()
    extras = project["optional-dependencies"]
    problems = []
    for code in fenced_blocks(doc, ["python"]):
        named = [e for m in NEEDS.finditer(code) for e in m.group(1).split(",")]
        unknown = [e for e in named if e not in extras]
        assert not unknown, f"{doc.name}: no extra {unknown} in pyproject.toml"
        requirements = project["dependencies"] + [r for e in named for r in extras[e]]
        missing = not_installed_by(imported_modules(code), requirements)
        if missing:
            first = code.strip().splitlines()[0]
            problems.append(f"{doc.name}, block starting {first!r}: {', '.join(missing)} "
                            + ("not installed by " + ", ".join(named) if named else
                               "needs an extra: say which (# needs ... 'ufsel[EXTRA]')"))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("doc", [README, GETTING_STARTED], ids=lambda p: p.name)
def test_command_lines_run(doc, tmp_path, monkeypatch, measurements, capsys):
    import shlex

    monkeypatch.delenv("UFSEL_DATA", raising=False)  # `ufsel datasets`: the built-ins only
    monkeypatch.chdir(tmp_path)
    lines = [line.split("#")[0].strip() for block in fenced_blocks(doc, ["", "bash"])
             for line in block.splitlines()]
    commands = [shlex.split(line)[1:] for line in lines if line.startswith("ufsel ")]
    assert commands
    for argv in commands:
        assert main(argv) == 0, argv
        out = capsys.readouterr().out
        if argv[0] == "select":
            # every selection says whether it beats random subsets of its size
            assert "subsets of the same size" in out
            n = argv[argv.index("--n-features") + 1] if "--n-features" in argv else None
            if n is not None:
                assert f"{n} of {len(measurements)} features selected" in out
