"""`EditorFormat`: what the language server asks of a format, and the registry of formats.

A feature (`lsp/features/*`) gets the format of a document here (`format_of` for a built
model, `format_of_document` for requests that must not wait for one) and calls its method;
it never names a format. Each format's editor side exports one instance (`lsp/v2.EDITOR`,
`lsp/v4.EDITOR`) that owns its per-format state (unit caches, diagnostics histories, the
last migrations); the server asks every format to forget a closed document or drop what a
changed file made stale. The methods are typed: mypy checks what features pass.

The choice of a format for a document is `format_for`, from the runtime choice
(`formats.runtime`, which asks `formats.registry`), by its `name`: an `EditorFormat`'s is the
engine `Format.name` it serves ("v2", "v4"). A third format registers its `Format` there and
its `EditorFormat` here (`tests/third_format/toy/editor.py`). This module and `lsp/v2`, `lsp/v4` are the only modules of `lsp/` that
import a format.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from lsprotocol import types as lsp

from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.lsp.base import DocumentModel, MigrationRequest, ServerBase, WorkspaceSymbol
from agentv_lsp.lsp.convert import JsonDict, is_file_uri, uri_to_path
from agentv_lsp.lsp.document import Edit
from agentv_lsp.lsp.listing import OutlineTable
from agentv_lsp.lsp.protocol import RawJson
from agentv_lsp.lsp.quick_fixes import EditSupport
from agentv_lsp.lsp.v2 import EDITOR as V2_EDITOR
from agentv_lsp.lsp.v4 import EDITOR as V4_EDITOR
from agentv_lsp.migrate import CompanionChange, Migration

Stamp = tuple[Any, ...]  # what a finding in a file on disk was made from, beside mtime and size


class TestingSide(Protocol):
    """VS Code's Testing view (`features/testing.py`): a run's plan before it starts, and each
    test's last result after."""

    def run_plan(
        self, path: str, text: str | None, opts: CheckOptions, test_ids: list[str] | None
    ) -> dict[str, Any]: ...

    def last_results(self, path: str, text: str | None, opts: CheckOptions) -> dict[str, Any]: ...


class Migrations(Protocol):
    """Moving a document of an older format into this one ("Migrate this file to AgentV 4"):
    the code actions and workspace edits of `features/actions.py`, `features/workspace_edits.py`."""

    automatic_max_chars: int  # larger texts are migrated only when the user asks

    def may_migrate(self, text: str) -> bool: ...

    def wanted(self, only: Sequence[str] | None, kind: str) -> bool: ...

    def migration_of(self, request: MigrationRequest) -> Migration: ...

    def migration_edit(
        self,
        migration: Migration,
        uri: str,
        version: int | None,
        support: EditSupport,
        versions: dict[str, int],
        encoding: str,
    ) -> lsp.WorkspaceEdit | None: ...

    def migration_actions(
        self,
        migration: Migration,
        request: MigrationRequest,
        context_diagnostics: Sequence[lsp.Diagnostic],
        only: Sequence[str] | None,
        support: EditSupport,
        edit: lsp.WorkspaceEdit | None,
    ) -> list[lsp.CodeAction]: ...

    def edited_companions(self, migration: Migration) -> list[CompanionChange]: ...

    def applied_here(self, uri: str, text: str) -> Migration | None: ...


class EditorFormat(Protocol):
    """One format's answers to the language server (see the module's docstring). Positions are
    the client's (`encoding`: the negotiated position encoding); `model` is one this format built."""

    @property
    def name(self) -> str: ...  # the engine `Format`'s name: "v2", "v4"

    @property
    def testing(self) -> TestingSide | None: ...

    @property
    def migrations(self) -> Migrations | None: ...

    def owns(self, model: DocumentModel) -> bool: ...

    # -- the model of one document version (built in a worker thread) -------------------
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
    ) -> DocumentModel: ...

    def forget(self, uri: str) -> None: ...  # a document closed: drop what is kept for it

    def files_changed(self, names: set[str]) -> None: ...  # files (by base name) changed on disk

    def reset(self) -> None: ...  # settings or folders changed: nothing cached survives

    # -- requests on a model ---------------------------------------------------------------
    def hover(self, model: DocumentModel, line: int, character: int, encoding: str) -> str | None: ...

    def document_links(self, model: DocumentModel, encoding: str) -> list[lsp.DocumentLink]: ...

    def definition(
        self, model: DocumentModel, line: int, character: int, encoding: str
    ) -> list[lsp.Location] | None: ...

    def lens_lines(self, model: DocumentModel) -> list[int] | None: ...

    def resolve_lens(self, model: DocumentModel, uri: str, index: int, kind: str) -> lsp.Command: ...

    def outline_json(self, model: DocumentModel, table: OutlineTable, encoding: str) -> RawJson: ...

    async def preview_case(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None: ...

    async def preview_file(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None: ...

    async def status(self, ls: ServerBase, uri: str, model: DocumentModel) -> dict[str, Any]: ...

    async def publish(self, ls: ServerBase, uri: str, version: int | None, model: DocumentModel) -> bool: ...

    def pull_items(self, ls: ServerBase, model: DocumentModel, uri: str) -> list[JsonDict]: ...

    # -- requests on the lines as typed (no model waited for) -----------------------------
    def completions(
        self, ls: ServerBase, path: str, lines: list[str], line: int, character: int
    ) -> list[lsp.CompletionItem]: ...

    def code_actions(
        self, ls: ServerBase, uri: str, lines: list[str], diagnostic: lsp.Diagnostic, support: EditSupport
    ) -> list[lsp.CodeAction]: ...

    # -- workspace symbols: every file is asked of every format ----------------------------
    def open_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]: ...

    def disk_stamp(self, ls: ServerBase, path: str) -> Stamp | None: ...  # None: no symbols in such a file

    def disk_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]: ...


# by the name of the engine's `Format` they serve: the runtime choice names one
_BUILT_IN: tuple[EditorFormat, ...] = (V2_EDITOR, V4_EDITOR)
_by_name: dict[str, EditorFormat] = {editor.name: editor for editor in _BUILT_IN}
_by_model_class: dict[type, EditorFormat] = {}  # `format_of`'s answers, forgotten on (un)register


def register(editor: EditorFormat) -> None:
    """The server side of a format registered in `formats.registry` under the same name."""
    _by_name[editor.name] = editor
    _by_model_class.clear()


def unregister(editor: EditorFormat) -> None:
    if _by_name.get(editor.name) is editor and editor not in _BUILT_IN:
        del _by_name[editor.name]
    _by_model_class.clear()


def formats() -> tuple[EditorFormat, ...]:
    """Every format, the registered ones first."""
    if len(_by_name) == len(_BUILT_IN):  # (asked for every request: no tuple built then)
        return _BUILT_IN
    return (*(e for e in _by_name.values() if e not in _BUILT_IN), *_BUILT_IN)


def format_for(choice: RuntimeChoice, path: str, text: str) -> EditorFormat:
    """The format that reads a document: the one the runtime choice names (`formats.runtime`,
    which asks `formats.registry`); 4.x's for a format with no server side. The only place
    that chooses."""
    return _by_name.get(choice.name) or V4_EDITOR


def format_of(model: DocumentModel) -> EditorFormat:
    """The format that built `model` (asked once per model class: every request asks)."""
    found = _by_model_class.get(type(model))
    if found is None:
        found = next((e for e in formats() if e.owns(model)), None)
        if found is None:
            raise TypeError(f"no format owns a {type(model).__name__}")
        _by_model_class[type(model)] = found
    return found


def format_of_document(ls: ServerBase, uri: str) -> EditorFormat:
    """The format of the open document `uri` without building its model, for the requests
    that must not wait for one (completion, code actions); v2's for what is not an open file."""
    document = ls.workspace.text_documents.get(uri)
    if document is None or not is_file_uri(uri):
        return V2_EDITOR
    path = uri_to_path(uri)
    text = document.source
    return format_for(ls.runtime_of(uri, path, text, ls.context_for(path)[0]), path, text)


def testing_format() -> EditorFormat | None:
    """The format VS Code's Testing view lists and plans runs for."""
    return next((e for e in formats() if e.testing is not None), None)


def migrations() -> Migrations | None:
    """The migration into the newest format, for the files of an older one."""
    return next((e.migrations for e in formats() if e.migrations is not None), None)
