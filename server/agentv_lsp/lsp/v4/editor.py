"""`EDITOR`: AgentV 4.x's `EditorFormat` (`lsp/editor.py`), over this package's modules, one
per feature, and its state (`state.STATE`: the documents' histories and every cache the
features keep, which `forget` trims when a document closes).
It also answers VS Code's Testing view (`testing`) and migrates v2 files into 4.x
(`migrations`)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

import agentv_lsp.lsp.v4.actions as actions
import agentv_lsp.lsp.v4.commands as commands
import agentv_lsp.lsp.v4.diagnostics as diagnostics
import agentv_lsp.lsp.v4.hover as v4_hover
import agentv_lsp.lsp.v4.navigation as navigation
import agentv_lsp.lsp.v4.symbols as symbols
import agentv_lsp.lsp.v4.testing as testing
from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.lsp.base import DocumentModel, ServerBase, WorkspaceSymbol
from agentv_lsp.lsp.convert import JsonDict
from agentv_lsp.lsp.document import Edit
from agentv_lsp.lsp.listing import OutlineTable
from agentv_lsp.lsp.protocol import RawJson
from agentv_lsp.lsp.quick_fixes import EditSupport
from agentv_lsp.lsp.v4.completion import completions
from agentv_lsp.lsp.v4.incremental import follow_edits
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.state import STATE, V4State

_EVAL_SUFFIXES = (".eval.yaml", ".eval.yml")


def _v4(model: DocumentModel) -> V4Model:
    assert isinstance(model, V4Model), type(model)
    return model


class V4Testing:
    """`agentv/testRunPlan` and `agentv/testResults` (`testing.py`)."""

    run_plan = staticmethod(testing.run_plan)
    last_results = staticmethod(testing.last_results)


class V4Migrations:
    """ "Migrate this file to AgentV 4" (`actions.py`)."""

    automatic_max_chars = actions.AUTOMATIC_MIGRATION_MAX_CHARS
    may_migrate = staticmethod(actions.may_be_v2)
    wanted = staticmethod(actions.wanted)
    migration_of = staticmethod(actions.migration_of)
    migration_edit = staticmethod(actions.migration_edit)
    migration_actions = staticmethod(actions.migration_actions)
    edited_companions = staticmethod(actions.edited_companions)
    applied_here = staticmethod(actions.applied_here)


class V4Editor:
    name = "v4"

    def __init__(self, state: V4State) -> None:
        self.state = state
        self.testing = V4Testing()
        self.migrations = V4Migrations()

    def owns(self, model: DocumentModel) -> bool:
        return isinstance(model, V4Model)

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
        model = V4Model(path, text, choice, opts, version, ls.generation, self.state.models)
        if previous is not None and edits and isinstance(previous, V4Model):
            follow_edits(previous, model, edits)  # the tests the edits did not touch stay known
        return model

    def forget(self, uri: str) -> None:
        self.state.forget(uri)

    def files_changed(self, names: set[str]) -> None:
        if "config.yaml" in names:
            from agentv_lsp.formats.v4.discovery import forget_project_eval_patterns

            forget_project_eval_patterns()  # its `eval_patterns` name other eval files

    def reset(self) -> None:
        pass  # (every model is built again; the open documents' histories stay their base)

    # the hover is `hover.hover` itself: a hover crosses no file of this module's
    hover = staticmethod(v4_hover.hover)

    def document_links(self, model: DocumentModel, encoding: str) -> list[lsp.DocumentLink]:
        return navigation.document_links(_v4(model), encoding)

    def definition(
        self, model: DocumentModel, line: int, character: int, encoding: str
    ) -> list[lsp.Location] | None:
        return navigation.definition(_v4(model), line, character, encoding)

    def lens_lines(self, model: DocumentModel) -> list[int] | None:
        return navigation.document_lens_lines(_v4(model))

    def resolve_lens(self, model: DocumentModel, uri: str, index: int, kind: str) -> lsp.Command:
        return navigation.resolve_document_lens(_v4(model), uri, index, kind)

    def outline_json(self, model: DocumentModel, table: OutlineTable, encoding: str) -> RawJson:
        return symbols.outline_json(_v4(model), table, encoding)

    async def preview_case(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
        return await commands.preview_case_command(ls, target)

    async def preview_file(self, ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
        return await commands.preview_file_command(ls, target)

    async def status(self, ls: ServerBase, uri: str, model: DocumentModel) -> dict[str, Any]:
        return await commands.status(ls, uri, _v4(model))

    async def publish(self, ls: ServerBase, uri: str, version: int | None, model: DocumentModel) -> bool:
        return await diagnostics.publish(ls, uri, version, _v4(model))

    def pull_items(self, ls: ServerBase, model: DocumentModel, uri: str) -> list[JsonDict]:
        return diagnostics.pull_items(ls, _v4(model), uri)

    def completions(
        self, ls: ServerBase, path: str, lines: list[str], line: int, character: int
    ) -> list[lsp.CompletionItem]:
        return completions(ls, path, lines, line, character)

    def code_actions(
        self, ls: ServerBase, uri: str, lines: list[str], diagnostic: lsp.Diagnostic, support: EditSupport
    ) -> list[lsp.CodeAction]:
        return actions.code_actions(ls, uri, lines, diagnostic, support)

    def open_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]:
        return symbols.open_document_tests(path, text, ls.options_for(path), ls.generation)

    def disk_stamp(self, ls: ServerBase, path: str) -> tuple[Any, ...] | None:
        # only `*.eval.yaml` files list tests; what they load may change with any file read
        return (ls.generation,) if path.lower().endswith(_EVAL_SUFFIXES) else None

    def disk_symbols(self, ls: ServerBase, path: str, text: str) -> list[WorkspaceSymbol]:
        return symbols.workspace_tests(path, text, ls.options_for(path))


EDITOR = V4Editor(STATE)
