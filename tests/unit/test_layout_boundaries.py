"""The package layout the developers' guide asks for, read from the imports of the sources:
the engines have no LSP types, the two formats are sibling packages over a shared core
(`engine/`, `checks/`), and neither format nor the core reaches into the other format. The
language server mirrors that: `lsp/v2/` and `lsp/v4/` are its two formats' sides, and
`lsp/features/` (one module per LSP feature) reaches a format only through them.

Imports are read with `ast`, lazy ones inside functions included; those under
`if TYPE_CHECKING:` are annotations only and are listed apart. Within a format, the modules
import one another without a circle: a circle only works while one side imports lazily, and
breaks as soon as someone moves that import to the top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "agentv_lsp"
LSP_TOP_LEVEL = ("pygls", "lsprotocol", "agentv_lsp.lsp")


def _is_under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside `if TYPE_CHECKING:` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                inside.update(id(child) for child in ast.walk(statement))
    return inside


def imports_of(path: Path, *, annotations: bool = False) -> list[str]:
    """The modules `path` imports (`from a.b import c` gives `a.b.c` and `a.b`); with
    `annotations`, also those imported for type checking only."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = set() if annotations else _type_checking_blocks(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            found.append(node.module)
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def sources(*folders: str) -> list[Path]:
    paths = [path for folder in folders for path in sorted((PACKAGE / folder).rglob("*.py"))]
    assert paths, f"no sources under {folders}: the test would check nothing"
    return paths


def _offenders(paths: list[Path], forbidden: tuple[str, ...], *, annotations: bool = False) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in paths
        for name in imports_of(path, annotations=annotations)
        if _is_under(name, forbidden)
    ]


def test_the_engines_have_no_lsp_types() -> None:
    core = sources("engine", "checks", "formats", "yamlpos")
    assert _offenders(core, LSP_TOP_LEVEL, annotations=True) == []


@pytest.mark.parametrize(("package", "sibling"), [("v2", "v4"), ("v4", "v2")])
def test_a_format_does_not_import_its_sibling(package: str, sibling: str) -> None:
    """Each format stands on the shared core alone; `formats/runtime.py` chooses between them."""
    forbidden = (f"agentv_lsp.formats.{sibling}", "agentv_lsp.formats.runtime")
    assert _offenders(sources(f"formats/{package}"), forbidden, annotations=True) == []


def test_the_shared_engine_imports_no_format_and_no_layer_above_it() -> None:
    above = ("formats", "checks", "lsp", "cli", "migrate", "diff")
    forbidden = tuple(f"agentv_lsp.{name}" for name in above)
    assert _offenders(sources("engine"), forbidden, annotations=True) == []


def test_the_shared_checks_import_no_format_but_the_runner() -> None:
    """`checks/` holds the format-neutral check infrastructure. Only `runner.py` (the CLI's
    `check`, which asks `formats.runtime` which format judges each file) imports the formats;
    `options.py` names v2's loaded file for type checking only (`DocumentReport.eval_file`)."""
    shared = [path for path in sources("checks") if path.name != "runner.py"]
    formats = ("agentv_lsp.formats",)
    assert _offenders(shared, formats) == []
    annotated = {line.split(": ")[0] for line in _offenders(shared, formats, annotations=True)}
    assert annotated <= {"checks/options.py"}


@pytest.mark.parametrize(("package", "sibling"), [("v2", "v4"), ("v4", "v2")])
def test_the_lsp_side_of_a_format_imports_neither_the_other_side_nor_the_other_format(
    package: str, sibling: str
) -> None:
    forbidden = (f"agentv_lsp.lsp.{sibling}", f"agentv_lsp.formats.{sibling}")
    assert _offenders(sources(f"lsp/{package}"), forbidden, annotations=True) == []


def test_the_lsp_side_of_a_format_does_not_reach_back_into_the_features() -> None:
    """`lsp/features/X.py` calls `lsp/<format>/X.py`, never the other way round."""
    assert _offenders(sources("lsp/v2", "lsp/v4"), ("agentv_lsp.lsp.features",), annotations=True) == []


def test_the_features_reach_a_format_only_through_its_lsp_side() -> None:
    """Nothing format-specific is left in `lsp/features/`: no format package imported there
    (`formats.runtime`, the choice between them, is fine), no format's model type named (the
    choice by model is `lsp/dispatch.py`'s)."""
    forbidden = (
        "agentv_lsp.formats.v2",
        "agentv_lsp.formats.v4",
        "agentv_lsp.lsp.v2.filemodel",
        "agentv_lsp.lsp.v4.model",
    )
    assert _offenders(sources("lsp/features"), forbidden, annotations=True) == []


# The shared lsp modules (neither features/ nor a format's side) that import a format, and why:
# - completion_items.py: v2's targets.yaml reader, which lists the target names a 4.x eval
#   file's `target:` is offered as well;
# - follow.py: v2's `evalcases:` pattern, which makes a region of either format's text be cut
#   again whole (`follow` is shared by v2's file model and 4.x's incremental check);
# - server.py: 4.x's cache of a project's eval file patterns, forgotten with the other caches
#   when the files a check reads change (the server builds each document's model of either
#   format, as `formats.runtime` chooses).
SHARED_LSP_FORMAT_IMPORTS = {
    "lsp/completion_items.py": ("agentv_lsp.formats.v2.targets",),
    "lsp/follow.py": ("agentv_lsp.formats.v2.layout",),
    "lsp/server.py": ("agentv_lsp.formats.v4.discovery",),
}


def test_the_shared_lsp_modules_import_a_format_only_where_listed() -> None:
    shared = [path for path in sources("lsp") if path.parent == PACKAGE / "lsp"]
    found: dict[str, list[str]] = {}
    for line in _offenders(shared, ("agentv_lsp.formats.v2", "agentv_lsp.formats.v4"), annotations=True):
        where, name = line.split(": ")
        found.setdefault(where, []).append(name)
    unlisted = [
        f"{where}: {name}"
        for where, names in found.items()
        for name in names
        if not _is_under(name, SHARED_LSP_FORMAT_IMPORTS.get(where, ()))
    ]
    assert unlisted == []
    assert set(found) == set(SHARED_LSP_FORMAT_IMPORTS)  # (an exception no longer needed goes)


# where v2 lived before it became `formats/v2/` (engine/ + checks/): no module, no shim, left there
V2_BEFORE = (
    *(f"engine/{name}.py" for name in ("config", "judge", "loader", "model", "preview", "prompt", "targets")),
    *(f"checks/{name}.py" for name in ("document", "losses", "schema", "split", "validate")),
)


def test_v2_lives_in_formats_v2_only() -> None:
    left = [path for path in V2_BEFORE if (PACKAGE / path).exists()]
    assert left == []
    moved = {Path(path).name for path in V2_BEFORE}
    assert moved <= {path.name for path in sources("formats/v2")}


def test_the_import_reader_sees_lazy_and_annotation_imports(tmp_path: Path) -> None:
    """The reader itself: a lazy import counts, a TYPE_CHECKING one only with `annotations`."""
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from agentv_lsp.formats.v2.loader import EvalFile\n"
        "def f():\n"
        "    import lsprotocol.types\n",
        encoding="utf-8",
    )
    plain = imports_of(source)
    assert "lsprotocol.types" in plain
    assert "agentv_lsp.formats.v2.loader" not in plain
    assert "agentv_lsp.formats.v2.loader.EvalFile" in imports_of(source, annotations=True)


def import_graph(folder: str) -> dict[str, set[str]]:
    """module -> the modules of the same package (`folder`) it imports, lazy imports included."""
    package = "agentv_lsp." + folder.replace("/", ".")
    modules = {path.stem: path for path in sorted((PACKAGE / folder).glob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for imported in imports_of(path):
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


def test_find_cycle_finds_a_circle_and_only_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_4x_modules_import_without_a_circle() -> None:
    graph = import_graph("formats/v4")
    assert len(graph) > 10, "the package's modules were not found"
    assert graph["loader"] >= {"runtime", "grader_parser"}  # the reader does see imports
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_yaml_layer_imports_without_a_circle() -> None:
    # the package's __init__ re-exports document; document must reach its siblings directly
    graph = import_graph("yamlpos")
    assert graph["__init__"] >= {"document"}, "the reader does not see the package's imports"
    assert graph["document"] >= {"eemeli", "scalars"}
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])
