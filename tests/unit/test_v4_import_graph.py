"""The modules of `formats/v4` import one another without a circle.

A circle (a imports b, b imports a, directly or through others) only works while one side
imports lazily inside a function, and breaks as soon as someone moves that import to the
top. The graph is read from the source (every `import` anywhere in a module, function-level
ones too, except those under `if TYPE_CHECKING:`), so a circle hidden behind a lazy import
fails here as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ["agentv_lsp.formats.v4"]


def _package_dir(package: str) -> Path:
    return REPO / "server" / Path(*package.split("."))


def _is_type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(tree: ast.AST) -> list[str]:
    """Every dotted name a module imports (`from p import m` gives both `p` and `p.m`)."""
    names: list[str] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if _is_type_checking_block(node):
            continue
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
        pending.extend(ast.iter_child_nodes(node))
    return names


def import_graph(package: str) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports (the package itself as `__init__`)."""
    modules = {path.stem: path for path in sorted(_package_dir(package).glob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for imported in _imported_names(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if imported == package:
                targets.add("__init__")
            elif imported.startswith(f"{package}."):
                first = imported[len(package) + 1 :].split(".")[0]
                if first in modules:
                    targets.add(first)
        targets.discard(name)
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph as a path [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_find_cycle_sees_a_circle_through_a_lazy_import() -> None:
    source = "import os\n\ndef f():\n    from agentv_lsp.formats.v4.b import g\n"
    assert "agentv_lsp.formats.v4.b.g" in _imported_names(ast.parse(source))
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_type_checking_imports_do_not_count() -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.q import r\n"
    assert "p.q" not in _imported_names(ast.parse(source))


@pytest.mark.parametrize("package", PACKAGES)
def test_package_modules_import_without_a_circle(package: str) -> None:
    graph = import_graph(package)
    assert len(graph) > 10, "the package's modules were not found"
    assert graph["loader"] >= {"runtime", "grader_parser"}  # the reader does see imports
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])
