"""`textDocument/codeAction`: quick fixes built from `Diagnostic.data` (never from message
text), each format's from its `lsp/<format>/actions.py` (`EditorFormat.code_actions`, of
the format of the runtime that judges the document: an action request does not wait for a
model), and for both: remove a run of hidden characters (`fix: remove-hidden`), the YAML
extension's `$schema` modeline, and "Migrate this file to AgentV 4" for v2 eval files under
either runtime (the registry's `migrations()`: `lsp/v4/actions.py`). The "Did you mean" suggestion both formats offer is
`quick_fixes.suggestion_action`."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.checks.hidden_chars import is_hidden
from agentv_lsp.checks.model import SOURCE
from agentv_lsp.lsp.base import MigrationRequest, ServerBase, guard
from agentv_lsp.lsp.convert import is_file_uri, range_text, uri_to_path
from agentv_lsp.lsp.editor import format_of_document, migrations
from agentv_lsp.lsp.quick_fixes import EditSupport, fix_action, workspace_edit

_ESCAPES = re.compile(r"(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}))+")


def hidden_actions(
    uri: str, lines: list[str], diagnostic: lsp.Diagnostic, encoding: str
) -> list[lsp.CodeAction]:
    """ "Remove hidden characters" for a run in this file (`hidden_chars`, `fix: remove-hidden`),
    offered only while the range still holds just those characters (or their escapes)."""
    data: Any = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    if data.get("fix") != "remove-hidden":
        return []
    current = range_text(lines, diagnostic.range, encoding)
    if not current or not (all(is_hidden(ord(c)) for c in current) or _ESCAPES.fullmatch(current)):
        return []
    return [
        fix_action("Remove hidden characters", diagnostic, workspace_edit(uri, diagnostic.range, ""), True)
    ]


async def migration_actions(
    ls: ServerBase, params: lsp.CodeActionParams, support: EditSupport
) -> list[lsp.CodeAction]:
    """The action "Migrate this file to AgentV 4" for a v2 eval file, whichever runtime judges it."""
    uri = params.text_document.uri
    document = ls.workspace.text_documents.get(uri)
    context = params.context
    migrating = migrations()
    if (
        migrating is None
        or document is None
        or not is_file_uri(uri)
        or not migrating.may_migrate(document.source)
    ):
        return []
    kinds = (lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite)
    if not any(migrating.wanted(context.only, k) for k in kinds):
        return []
    text = document.source
    asked = context.trigger_kind == lsp.CodeActionTriggerKind.Invoked
    if len(text) > migrating.automatic_max_chars and not asked:
        return []
    request = _migration_request(ls, uri, document.version, text)
    migration = await asyncio.to_thread(migrating.migration_of, request)
    edit = None
    if not _resolves_edits(ls):
        edit = migrating.migration_edit(
            migration, uri, document.version, support, _open_versions(ls), ls.encoding
        )
    return migrating.migration_actions(migration, request, context.diagnostics, context.only, support, edit)


def _migration_request(ls: ServerBase, uri: str, version: int | None, text: str) -> MigrationRequest:
    repo_root, cwd = ls.context_for(uri_to_path(uri))
    return MigrationRequest(uri, version, text, repo_root, cwd, ls.fs)


def _resolves_edits(ls: ServerBase) -> bool:
    text_document = ls.client_capabilities.text_document
    code_action = text_document.code_action if text_document is not None else None
    resolve = code_action.resolve_support if code_action is not None else None
    return resolve is not None and "edit" in resolve.properties


def _open_versions(ls: ServerBase) -> dict[str, int]:
    return {uri_to_path(u): d.version or 0 for u, d in list(ls.workspace.text_documents.items())}


# yaml-language-server (Red Hat's YAML extension) reads a top-level `$schema` as a schema URL,
# ahead of every association an extension or setting can make: `$schema: agentv-eval-v2` becomes
# "Unable to load schema from '<dir>/agentv-eval-v2': No content." Only a modeline outranks it.
_YLS_SCHEMA_FAILURE = re.compile(r"^Unable to load schema from '[^']*/(agentv-[A-Za-z0-9.-]+)'")
YLS_MODELINE = "# yaml-language-server: $schema=none"


def yaml_extension_actions(uri: str, lines: list[str], diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
    """For the YAML extension's failure to load `$schema: agentv-…` as a file: a modeline that
    turns its schema lookup off for this file (this server checks the file; AgentV ignores
    comments)."""
    match = _YLS_SCHEMA_FAILURE.match(diagnostic.message)
    if (
        diagnostic.source == SOURCE
        or match is None
        or any(line.startswith(YLS_MODELINE) for line in lines[:5])
    ):
        return []
    start = lsp.Position(line=0, character=0)
    edit = workspace_edit(uri, lsp.Range(start=start, end=start), YLS_MODELINE + "\n")
    return [
        fix_action(
            f"Stop the YAML extension from loading `$schema: {match.group(1)}` as a schema file "
            "(AgentV checks this file)",
            diagnostic,
            edit,
            True,
        )
    ]


def register(server: ServerBase) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite],
            resolve_provider=True,
        ),
    )
    @guard([])
    async def code_action(ls: ServerBase, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        lines = ls.document_lines(uri)
        if lines is None:
            return []
        actions: list[lsp.CodeAction] = []
        support = EditSupport.of(ls.client_capabilities)
        code_actions = format_of_document(ls, uri).code_actions
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != SOURCE:
                actions.extend(yaml_extension_actions(uri, lines, diagnostic))
                continue
            actions.extend(hidden_actions(uri, lines, diagnostic, ls.encoding))
            actions.extend(code_actions(ls, uri, lines, diagnostic, support))
        actions.extend(await migration_actions(ls, params, support))
        return actions

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    @guard()
    async def code_action_resolve(ls: ServerBase, action: lsp.CodeAction) -> lsp.CodeAction:
        data: Any = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        document = ls.workspace.text_documents.get(uri) if isinstance(uri, str) else None
        migrating = migrations()
        if (
            data.get("agentv") != "migrate"
            or migrating is None
            or document is None
            or document.version != data.get("version")
        ):
            return action  # not ours, or the document changed since: no edit
        request = _migration_request(ls, document.uri, document.version, document.source)
        migration = await asyncio.to_thread(migrating.migration_of, request)
        if migration.status == "migrated":
            support = EditSupport.of(ls.client_capabilities)
            action.edit = migrating.migration_edit(
                migration, document.uri, document.version, support, _open_versions(ls), ls.encoding
            )
        return action
