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


def test_the_shared_checks_import_no_format() -> None:
    """`checks/` holds the format-neutral check infrastructure and the runner, which asks
    `formats.runtime` which `Format` judges each file; `DocumentReport` names no format's types,
    not even for type checking."""
    assert (
        _offenders(sources("checks"), ("agentv_lsp.formats.v2", "agentv_lsp.formats.v4"), annotations=True)
        == []
    )


@pytest.mark.parametrize(("package", "sibling"), [("v2", "v4"), ("v4", "v2")])
def test_the_lsp_side_of_a_format_imports_neither_the_other_side_nor_the_other_format(
    package: str, sibling: str
) -> None:
    forbidden = (f"agentv_lsp.lsp.{sibling}", f"agentv_lsp.formats.{sibling}")
    assert _offenders(sources(f"lsp/{package}"), forbidden, annotations=True) == []


def test_the_lsp_side_of_a_format_does_not_reach_back_into_the_features() -> None:
    """`lsp/features/X.py` calls `lsp/<format>/X.py`, never the other way round."""
    assert _offenders(sources("lsp/v2", "lsp/v4"), ("agentv_lsp.lsp.features",), annotations=True) == []


# where v2 lived before it became `formats/v2/` (engine/ + checks/): no module, no shim, left there
V2_BEFORE = (
    *(f"engine/{name}.py" for name in ("config", "judge", "loader", "model", "preview", "prompt", "targets")),
    *(f"checks/{name}.py" for name in ("document", "losses", "schema", "split", "validate")),
)


def test_v2_lives_in_formats_v2_only() -> None:
    left = [path for path in V2_BEFORE if (PACKAGE / path).exists()]
    assert left == []
    # (checks/document.py, v2's whole-file check, is formats/v2/check.py as 4.x's is formats/v4/check.py)
    moved = {Path(path).name.replace("document.py", "check.py") for path in V2_BEFORE}
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


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_graph(*folders: str) -> dict[str, set[str]]:
    """Every module (of `folders`, or of the whole package) -> the modules of the same set it
    imports (dotted names), lazy and `TYPE_CHECKING` imports included: a name imported from a
    module counts as that module (`from agentv_lsp.lsp.v2 import EDITOR` is `agentv_lsp.lsp.v2`)."""
    paths = sources(*folders) if folders else sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(path): path for path in paths}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for imported in imports_of(path, annotations=True):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def test_no_import_circle_anywhere() -> None:
    """A circle only works while one side imports lazily: `check` once climbed from its runner
    back into `cli.py`, `diff`'s collect, compare and causes into one another, and the server's
    features and `server.py` into each other."""
    graph = package_graph()
    assert graph["agentv_lsp.cli"] >= {"agentv_lsp.commands.check"}  # the reader does see lazy imports
    assert graph["agentv_lsp.lsp.server"] >= {"agentv_lsp.lsp.features.hover", "agentv_lsp.lsp.editor"}
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


# A format is its engine package and its server side. Who may import them: a format's own
# packages (its server side its engine, not the other format: tested above), the two registries
# that hold the formats, and `migrate/`, which goes from one format to the other.
FORMAT_PACKAGES = ("agentv_lsp.formats.v2", "agentv_lsp.formats.v4", "agentv_lsp.lsp.v2", "agentv_lsp.lsp.v4")
REGISTRIES = ("agentv_lsp.formats.registry", "agentv_lsp.lsp.editor")
MAY_IMPORT_A_FORMAT = (*FORMAT_PACKAGES, *REGISTRIES, "agentv_lsp.migrate")


def test_only_the_formats_the_registries_and_migrate_import_a_format() -> None:
    """Everything else (the command line, `check`, `diff`, the runtime choice, the server and its
    features) holds a `Format` or an `EditorFormat` from a registry, so a third format changes no
    module of theirs."""
    graph = package_graph()
    offenders = sorted(
        f"{module}: {target}"
        for module, targets in graph.items()
        if not _is_under(module, MAY_IMPORT_A_FORMAT)
        for target in targets
        if _is_under(target, FORMAT_PACKAGES)
    )
    assert offenders == []
    assert graph["agentv_lsp.lsp.editor"] >= {"agentv_lsp.lsp.v2", "agentv_lsp.lsp.v4"}  # the test sees them


def test_the_command_line_only_parses_arguments() -> None:
    """`cli.py` hands each subcommand to its module in `commands/`, and imports nothing that
    does the work (a format, the checker, the previews, the server)."""
    imported = package_graph()["agentv_lsp.cli"]
    below = {m for m in imported if not _is_under(m, ("agentv_lsp.commands",))}
    assert below <= {"agentv_lsp", "agentv_lsp.checks.model", "agentv_lsp.formats.runtime"}
    assert {
        f"agentv_lsp.commands.{name}" for name in ("check", "preview", "migrate", "diff", "serve")
    } <= imported


def test_the_features_import_no_format() -> None:
    """`lsp/features/` calls `EditorFormat` (`lsp/editor.py`) and names no format: neither a
    format package nor a format's editor side, not even for type checking."""
    assert _offenders(sources("lsp/features"), FORMAT_PACKAGES, annotations=True) == []
