"""Every script under benchmarks/ imports, and does no work when imported.

A script that imports a function which has moved, or a private module that no longer
exists, fails here rather than the next time someone runs it. Skipped where the checkout
has no benchmarks/ (an installed wheel).
"""

import ast

import pytest

from ufsel.benchmark.tests._helpers import REPO, load_benchmark_script

BENCHMARKS = REPO / "benchmarks"
SCRIPTS = sorted(p.relative_to(BENCHMARKS).with_suffix("").as_posix()
                 for p in BENCHMARKS.rglob("*.py")) if BENCHMARKS.is_dir() else []
#: Optional packages that a script imports at module level.
OPTIONAL = {}
#: Scripts of the label-free route, being rewritten elsewhere: their private imports
#: (``ufsel.benchmark._cache`` etc.) are listed for a public API; drop them from here then.
PRIVATE_PENDING = set()


def test_benchmarks_folder_has_scripts():
    if not BENCHMARKS.is_dir():
        pytest.skip("no benchmarks/ in this checkout")
    assert len(SCRIPTS) >= 30
    assert {p.relative_to(BENCHMARKS).parts[0] for p in BENCHMARKS.rglob("*.py")} >= {
        "speed", "reproductions", "studies", "tools", "_harness.py"}


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_imports(name, capsys):
    for package in OPTIONAL.get(name, ()):
        pytest.importorskip(package)
    module = load_benchmark_script(name)
    assert capsys.readouterr().out == "", f"benchmarks/{name}.py prints when imported"
    if not name.split("/")[-1].startswith("_"):
        assert callable(getattr(module, "main", None)), f"benchmarks/{name}.py has no main()"


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_runs_nothing_at_import(name):
    """Module level holds definitions only; the work is under ``if __name__ == "__main__"``."""
    tree = ast.parse((BENCHMARKS / f"{name}.py").read_text())
    allowed = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign,
               ast.AnnAssign, ast.AugAssign, ast.If, ast.Try)
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue                                    # docstring
        if isinstance(node, ast.Expr) and _is_sys_path_insert(node.value):
            continue                                    # sys.path.insert(0, ...)
        assert isinstance(node, allowed), \
            f"benchmarks/{name}.py line {node.lineno}: statement at module level"
        if isinstance(node, ast.If):
            assert _is_main_guard(node.test), \
                f"benchmarks/{name}.py line {node.lineno}: `if` at module level"


def _is_sys_path_insert(call):
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and ast.unparse(call.func) == "sys.path.insert")


def _is_main_guard(test):
    return ast.unparse(test) in ('__name__ == "__main__"', "__name__ == '__main__'")


def test_no_private_imports_without_a_note():
    """Scripts use ufsel's public names; a private import is marked ``# private: needs
    public API`` until the name it needs is exposed."""
    if not BENCHMARKS.is_dir():
        pytest.skip("no benchmarks/ in this checkout")
    unmarked = []
    for path in sorted(BENCHMARKS.rglob("*.py")):
        if path.name in PRIVATE_PENDING:
            continue
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            private = any(n.startswith("ufsel") and any(p.startswith("_") for p in n.split("."))
                          for n in names)
            if private and "# private: needs public API" not in lines[node.lineno - 1]:
                unmarked.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not unmarked, "private ufsel imports in benchmarks/: " + ", ".join(unmarked)
