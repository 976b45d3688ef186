"""`EDITOR`: AgentV v2's `EditorFormat` (`lsp/editor.py`), over this package's modules, one
per feature, and its per-document state (`state.STATE`)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.formats.runtime import RuntimeChoice, undeclared_v2_note
from agentv_lsp.lsp.base import DocumentModel, ServerBase, WorkspaceSymbol
from agentv_lsp.lsp.convert import JsonDict
from agentv_lsp.lsp.document import Edit
from agentv_lsp.lsp.listing import OutlineTable
from agentv_lsp.lsp.protocol import RawJson
from agentv_lsp.lsp.quick_fixes import EditSupport
from agentv_lsp.lsp.v2.actions import code_actions
from agentv_lsp.lsp.v2.commands import preview_case_command, preview_file_command
from agentv_lsp.lsp.v2.commands import status as status_of
from agentv_lsp.lsp.v2.completion import completions
from agentv_lsp.lsp.v2.diagnostics import publish as publish_diagnostics
from agentv_lsp.lsp.v2.diagnostics import pull_items as pulled_items
from agentv_lsp.lsp.v2.hover import hover_markdown
from agentv_lsp.lsp.v2.model import FileModel
from agentv_lsp.lsp.v2.navigation import (
    definition,
    document_lens_lines,
    document_links,
    resolve_document_lens,
)
from agentv_lsp.lsp.v2.state import STATE, V2State
from agentv_lsp.lsp.v2.symbols import case_ids
from agentv_lsp.lsp.v2.symbols import outline_json as outline_of


def _v2(model: DocumentModel) -> FileModel:
    assert isinstance(model, FileModel), type(model)
    return model


class V2Editor:
    name = "v2"
    testing = None  # VS Code's Testing view lists 4.x tests only
    migrations = None  # (v2 is migrated away from, `lsp/v4`)

    def __init__(self, state: V2State) -> None:
        self.state = state

    def owns(self, model: DocumentModel) -> bool:
        return isinstance(model, FileModel)

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
        cache = self.state.cache_of(uri)
        model = None
        if previous is not None and edits and isinstance(previous, FileModel):
            model = FileModel.after_edits(previous, text, edits, opts)
        if model is None:
            model = FileModel(path, text, opts, cache)
        if model.kind == "eval":
            model.runtime_note = undeclared_v2_note(path, text, choice)
        return model

    def forget(self, uri: str) -> None:
        self.state.forget(uri)

    def files_changed(self, names: set[str]) -> None:
        self.state.files_changed(names)

    def reset(self) -> None:
        self.state.reset()

    def hover(self, model: DocumentModel, line: int, character: int, encoding: str) -> str | None:
        return hover_markdown(_v2(model), line, character, encoding)

    def document_links(self, model: DocumentModel, encoding: str) -> list[lsp.DocumentLink]:
        return document_links(_v2(model), encoding)

    def definition(
        self, model: DocumentModel, line: int, character: int, encoding: str
    ) -> list[lsp.Location] | None:
        return definition(_v2(model), line, character, encoding)

    def lens_lines(self, model: DocumentModel) -> list[int] | None:
        return document_lens_lines(_v2(model))

    def resolve_lens(self, model: DocumentModel, uri: str, index: int, kind: str) -> lsp.Command:
        return resolve_document_lens(_v2(model), uri, index, kind)

    def outline_json(self, model: DocumentModel, table: OutlineTable, encoding: str) -> RawJson:
        return outline_of(_v2(model), table, encoding)

    async def preview_case(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
        return await preview_case_command(ls, target)

    async def preview_file(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
        return await preview_file_command(ls, target)

    async def status(self, ls: ServerBase, uri: str, model: DocumentModel) -> dict[str, Any]:
        return await status_of(ls, uri, _v2(model))

    async def publish(self, ls: ServerBase, uri: str, version: int | None, model: DocumentModel) -> bool:
        return await publish_diagnostics(ls, uri, version, _v2(model))

    def pull_items(self, ls: ServerBase, model: DocumentModel, uri: str) -> list[JsonDict]:
        return pulled_items(ls, _v2(model), uri)

    def completions(
        self, ls: ServerBase, path: str, lines: list[str], line: int, character: int
    ) -> list[lsp.CompletionItem]:
        return completions(ls, path, lines, line, character)

    def code_actions(
        self, ls: ServerBase, uri: str, lines: list[str], diagnostic: lsp.Diagnostic, support: EditSupport
    ) -> list[lsp.CodeAction]:
        return code_actions(ls, uri, lines, diagnostic, support)

    def open_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]:
        return [WorkspaceSymbol(case_id, path, line) for case_id, line in case_ids(text)]

    def disk_stamp(self, ls: ServerBase, path: str) -> tuple[Any, ...] | None:
        return ()  # any YAML file may be a v2 eval file; its case ids depend on its text alone

    def disk_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]:
        return self.open_symbols(ls, path, text)


EDITOR = V2Editor(STATE)
