"""No import cycle among ufsel's modules, counting the imports inside functions.

The graph is built from the source with :mod:`ast`: module A has an edge to B when A
imports B anywhere (at the top, inside a function or under ``TYPE_CHECKING``), or imports
a name from package B; ``from package import name`` adds an edge to the submodule
``package.name`` too when there is one. Importing ``a.b.c`` runs the ``__init__`` of
``a`` and ``a.b`` first; those implicit parent imports are not edges (each package's
``__init__`` is a module of its own here, with the edges it writes).
"""

import ast
from pathlib import Path

import ufsel

SRC = Path(ufsel.__file__).resolve().parent


def _module_name(path):
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    """Dotted module name -> (path, is_package) for every module of the package."""
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        out[_module_name(path)] = (path, path.name == "__init__.py")
    return out


def _resolve(module, is_package, level, target):
    """The absolute name of a relative import ``from <level dots><target> import ...``."""
    if level == 0:
        return target
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def import_graph():
    """Module -> the set of ufsel modules it imports (at any depth of its source)."""
    modules = _modules()
    graph = {}
    for name, (path, is_package) in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node.level, node.module)
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            edges.update(t for t in targets if t in modules and t != name)
        graph[name] = edges
    return graph


def find_cycle(graph):
    """One cycle of ``graph`` as a list of modules (first == last), or None."""
    state = {}  # 1: on the current path, 2: done
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_the_graph_sees_function_level_and_relative_imports():
    graph = import_graph()
    assert "ufsel.base" in graph["ufsel"]  # from .base import ... in ufsel/__init__
    assert "ufsel.selectors.filters._maxvar" in graph["ufsel.selectors.filters"]
    # a function-level import: the benchmark runner's cache key reads the package
    assert "ufsel" in graph["ufsel.benchmark._runner"]


def test_find_cycle_reports_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_the_package():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
