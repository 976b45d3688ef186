"""The toy format's server side: an `EditorFormat` (`agentv_lsp.lsp.editor`) over its engine,
importing neither v2 nor 4.x. Diagnostics are the engine's check; the hover on a case is its
question, as the preview shows it. Everything else answers "nothing here"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.lsp.base import DocumentModel, ServerBase, WorkspaceSymbol
from agentv_lsp.lsp.convert import JsonDict, diagnostic_json, lines_of
from agentv_lsp.lsp.document import Edit, lsp_lines
from agentv_lsp.lsp.listing import OutlineTable
from agentv_lsp.lsp.protocol import RawJson
from agentv_lsp.lsp.publication import Placed
from agentv_lsp.lsp.quick_fixes import EditSupport
from agentv_lsp.yamlpos import YamlDocument, parse_yaml
from tests.third_format.toy.engine import TOY, findings, shown_cases


@dataclass
class ToyModel:
    path: str
    text: str
    doc: YamlDocument
    kind: str | None = "eval"
    agentv: bool = True
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def items(self, encoding: str) -> list[JsonDict]:
        line_of = lines_of(lsp_lines(self.text))
        return [diagnostic_json(d, line_of, encoding) for d in self.diagnostics]


def _toy(model: DocumentModel) -> ToyModel:
    assert isinstance(model, ToyModel), type(model)
    return model


class ToyEditor:
    name = "toy"
    testing = None
    migrations = None

    def owns(self, model: DocumentModel) -> bool:
        return isinstance(model, ToyModel)

    def build(
        self,
        ls: ServerBase,
        uri: str,
        path: str,
        text: str,
        choice: RuntimeChoice,
        opts: CheckOptions,
        version: int | None,
        previous: DocumentModel | None,
        edits: list[Edit] | None,
    ) -> DocumentModel:
        doc = parse_yaml(text)
        return ToyModel(path, text, doc, diagnostics=findings(path, doc))

    def forget(self, uri: str) -> None:
        pass

    def files_changed(self, names: set[str]) -> None:
        pass

    def reset(self) -> None:
        pass

    def hover(self, model: DocumentModel, line: int, character: int, encoding: str) -> str | None:
        toy = _toy(model)
        value = toy.doc.value
        written = value.get("cases") if isinstance(value, dict) else None
        if not isinstance(written, list):
            return None
        # the case written around `line`: the last one that starts at or above it
        starts = [toy.doc.span_of(("cases", index)).start_line for index in range(len(written))]
        around = max((index for index, start in enumerate(starts) if start <= line), default=None)
        case = shown_cases(toy.doc).get(around) if around is not None else None
        if case is None:  # above the cases, or a case without an input: nothing to show
            return None
        return f"**{case['id']}** asks:\n\n```text\n{case['lm']['question']}\n```"

    def document_links(self, model: DocumentModel, encoding: str) -> list[lsp.DocumentLink]:
        return []

    def definition(
        self, model: DocumentModel, line: int, character: int, encoding: str
    ) -> list[lsp.Location] | None:
        return None

    def lens_lines(self, model: DocumentModel) -> list[int] | None:
        return None

    def resolve_lens(self, model: DocumentModel, uri: str, index: int, kind: str) -> lsp.Command:
        return lsp.Command(title="", command="")

    def outline_json(self, model: DocumentModel, table: OutlineTable, encoding: str) -> RawJson:
        return RawJson(b"[]")

    async def preview_case(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
        return None

    async def preview_file(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
        return None

    async def status(self, ls: ServerBase, uri: str, model: DocumentModel) -> dict[str, Any]:
        return {"schema": "toy-eval", "config": None, "kind": _toy(model).kind, "targets": None}

    async def publish(self, ls: ServerBase, uri: str, version: int | None, model: DocumentModel) -> bool:
        items = _toy(model).items(ls.encoding)
        ls.publish(uri, version, ls.shown(uri, [Placed.of_items(items)]))
        if items:
            ls.published.add(uri)
        return True

    def pull_items(self, ls: ServerBase, model: DocumentModel, uri: str) -> list[JsonDict]:
        return _toy(model).items(ls.encoding)

    def completions(
        self, ls: ServerBase, path: str, lines: list[str], line: int, character: int
    ) -> list[lsp.CompletionItem]:
        return []

    def code_actions(
        self, ls: ServerBase, uri: str, lines: list[str], diagnostic: lsp.Diagnostic, support: EditSupport
    ) -> list[lsp.CodeAction]:
        return []

    def open_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]:
        return []

    def disk_stamp(self, ls: ServerBase, path: str) -> tuple[Any, ...] | None:
        return None

    def disk_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]:
        return []


TOY_EDITOR = ToyEditor()


def register() -> None:
    """The toy format in both registries: the runtime choice then takes the files that declare
    it (`TOY.declares`), and the server serves them with `TOY_EDITOR`."""
    from agentv_lsp.formats import registry
    from agentv_lsp.lsp import editor

    registry.register(TOY)
    editor.register(TOY_EDITOR)
