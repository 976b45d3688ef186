"""`textDocument/codeAction`: quick fixes built from `Diagnostic.data` (never from message
text): add or correct `$schema` (`fix: add-schema|set-schema`), use the suggested value
(`suggestion`: a misspelt role, key, enum value or target; `v4/actions.suggestion_action`,
the same for both formats), rename a duplicate case id,
strip a leading slash (`fix: strip-leading-slash`, `replacement`), wrap a plain string in
a content list as a text segment (`fix: wrap-text`), for a missing referenced file
(`file-not-found`) use the nearest existing name in its folder or create it, and remove a
run of hidden characters (`fix: remove-hidden`, both runtimes).

Documents judged by AgentV 4.x get their quick fixes from `v4/actions.py`; v2 eval files
under either runtime also get "Migrate this file to AgentV 4" (see there)."""

from __future__ import annotations

import asyncio
import difflib
import functools
import json
import os
import re
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.checks.model import SOURCE
from agentv_lsp.hidden_chars import is_hidden
from agentv_lsp.lsp.convert import is_file_uri, path_to_uri, range_text, uri_to_path
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v4 import actions as v4_actions

SCHEMAS = {"config.yaml": "agentv-config-v2", "targets.yaml": "agentv-targets-v2.2"}
ALL_SCHEMAS = ["agentv-eval-v2", "agentv-config-v2", "agentv-targets-v2.2"]
_SCHEMA_LINE = re.compile(r"""^(["']?\$schema["']?[ \t]*:[ \t]*)["']?([^"'#\s]*)""")
MISSING_FILE_CODES = frozenset(("file-not-found", "validate-file-not-found"))


def _edit(uri: str, rng: lsp.Range, text: str) -> lsp.WorkspaceEdit:
    return lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=rng, new_text=text)]})


def _fix(
    title: str, diagnostic: lsp.Diagnostic, edit: lsp.WorkspaceEdit, preferred: bool = False
) -> lsp.CodeAction:
    return lsp.CodeAction(
        title=title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=edit,
        is_preferred=preferred,
    )


def _inner(rng: lsp.Range, text: str) -> lsp.Range:
    """The range without the quotes of a quoted scalar (columns shift by one unit each side)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return lsp.Range(
            start=lsp.Position(line=rng.start.line, character=rng.start.character + 1),
            end=lsp.Position(line=rng.end.line, character=rng.end.character - 1),
        )
    return rng


def actions_for(
    ls: AgentVLanguageServer, uri: str, lines: list[str], diagnostic: lsp.Diagnostic
) -> list[lsp.CodeAction]:
    data: dict[str, Any] = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    code = str(diagnostic.code)
    path = uri_to_path(uri)
    out: list[lsp.CodeAction] = []
    fix = data.get("fix")
    current = range_text(lines, diagnostic.range, ls.encoding)
    if fix == "add-schema" or code == "unknown-file-type":
        out.extend(schema_actions(uri, path, lines, diagnostic))
    if fix == "set-schema" and current:
        out.append(
            _fix(
                "Set `$schema: agentv-eval-v2`",
                diagnostic,
                _edit(uri, diagnostic.range, "agentv-eval-v2"),
                True,
            )
        )
    suggested = v4_actions.suggestion_action(uri, diagnostic, lines, ls.encoding)
    if suggested is not None:
        out.append(suggested)
    if code == "duplicate-case-id" and isinstance(data.get("id"), str):
        source = "\n".join(lines)
        base = data["id"]
        n = 2
        while f"{base}-{n}" in source:
            n += 1
        new_id = f"{base}-{n}"
        out.append(
            _fix(
                f"Rename to '{new_id}'",
                diagnostic,
                _edit(uri, _inner(diagnostic.range, current), new_id),
                True,
            )
        )
    if fix == "strip-leading-slash" and isinstance(data.get("replacement"), str) and current:
        replacement = data["replacement"]
        out.append(
            _fix(
                f"Use '{replacement}'",
                diagnostic,
                _edit(uri, _inner(diagnostic.range, current), replacement),
                True,
            )
        )
    wrapped = data.get("replacement") if isinstance(data.get("replacement"), dict) else None
    if fix == "wrap-text" or wrapped is not None:
        text = data.get("text") if fix == "wrap-text" else (wrapped or {}).get("value")
        if isinstance(text, str):
            segment = "{ type: text, value: " + json.dumps(text, ensure_ascii=False) + " }"
            out.append(
                _fix("Wrap as a text segment", diagnostic, _edit(uri, diagnostic.range, segment), True)
            )
    if code in MISSING_FILE_CODES:
        out.extend(missing_file_actions(ls, uri, diagnostic, data, current))
    return out


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
    return [_fix("Remove hidden characters", diagnostic, _edit(uri, diagnostic.range, ""), True)]


def schema_actions(uri: str, path: str, lines: list[str], diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
    """Add `$schema` at the top, or correct the value of the one there."""
    in_agentv = os.path.basename(os.path.dirname(path)) == ".agentv"
    default = SCHEMAS.get(os.path.basename(path), "agentv-eval-v2") if in_agentv else "agentv-eval-v2"
    for number, line in enumerate(lines):
        match = _SCHEMA_LINE.match(line)
        if match is None:
            continue
        value = match.group(2)
        close = difflib.get_close_matches(value, ALL_SCHEMAS, n=1, cutoff=0.5)
        schema = close[0] if close else default
        start = lsp.Position(line=number, character=match.start(2))
        end = lsp.Position(line=number, character=match.end(2))
        edit = _edit(uri, lsp.Range(start=start, end=end), schema)
        return [_fix(f"Change `$schema` to `{schema}`", diagnostic, edit, True)]
    start = lsp.Position(line=0, character=0)
    edit = _edit(uri, lsp.Range(start=start, end=start), f"$schema: {default}\n")
    return [_fix(f"Add `$schema: {default}`", diagnostic, edit, True)]


def missing_file_actions(
    ls: AgentVLanguageServer, uri: str, diagnostic: lsp.Diagnostic, data: dict[str, Any], current: str
) -> list[lsp.CodeAction]:
    raw = data.get("raw")
    if not isinstance(raw, str) or not raw.strip():
        return []
    out: list[lsp.CodeAction] = []
    attempted = [a for a in data.get("attempted") or [] if isinstance(a, str)]
    document_dir = os.path.dirname(uri_to_path(uri))
    display = raw.lstrip("/\\")
    target = attempted[0] if attempted else os.path.normpath(os.path.join(document_dir, display))
    folder = os.path.dirname(target)
    if os.path.isdir(folder) and ls.fs.is_allowed(folder):
        try:
            names = [n for n in os.listdir(folder) if not n.startswith(".")]
        except OSError:
            names = []
        near = difflib.get_close_matches(os.path.basename(display), names, n=1, cutoff=0.6)
        if near:
            head = re.split(r"[/\\]", raw)
            fixed = "/".join([*head[:-1], near[0]]) if len(head) > 1 else near[0]
            out.append(
                _fix(
                    f"Change to '{fixed}'",
                    diagnostic,
                    _edit(uri, _inner(diagnostic.range, current), fixed),
                    True,
                )
            )
    if ls.fs.is_allowed(folder) or ls.settings.trusted_workspace:
        create = lsp.WorkspaceEdit(
            document_changes=[
                lsp.CreateFile(uri=path_to_uri(target), options=lsp.CreateFileOptions(ignore_if_exists=True))
            ]
        )
        out.append(
            lsp.CodeAction(
                title=f"Create {os.path.relpath(target, document_dir)}",
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=create,
            )
        )
    return out


def _lines_of(ls: AgentVLanguageServer, path: str) -> list[str] | None:
    """The lines of an open document, else of the file on disk (None: unreadable)."""
    lines = ls.document_lines(path_to_uri(path))
    if lines is not None:
        return lines
    try:
        return ls.fs.read(path).text.split("\n")
    except Exception:  # unreadable, blocked, too large: no fix there
        return None


async def migration_actions(
    ls: AgentVLanguageServer, params: lsp.CodeActionParams, support: v4_actions.EditSupport
) -> list[lsp.CodeAction]:
    """The action "Migrate this file to AgentV 4" for a v2 eval file, whichever runtime judges it."""
    uri = params.text_document.uri
    document = ls.workspace.text_documents.get(uri)
    context = params.context
    if document is None or not is_file_uri(uri) or not v4_actions.may_be_v2(document.source):
        return []
    kinds = (lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite)
    if not any(v4_actions.wanted(context.only, k) for k in kinds):
        return []
    text = document.source
    asked = context.trigger_kind == lsp.CodeActionTriggerKind.Invoked
    if len(text) > v4_actions.AUTOMATIC_MIGRATION_MAX_CHARS and not asked:
        return []
    request = _migration_request(ls, uri, document.version, text)
    migration = await asyncio.to_thread(v4_actions.migration_of, request)
    edit = None
    if not _resolves_edits(ls):
        edit = v4_actions.migration_edit(
            migration, uri, document.version, support, _open_versions(ls), ls.encoding
        )
    return v4_actions.migration_actions(migration, request, context.diagnostics, context.only, support, edit)


def _migration_request(
    ls: AgentVLanguageServer, uri: str, version: int | None, text: str
) -> v4_actions.MigrationRequest:
    repo_root, cwd = ls.context_for(uri_to_path(uri))
    return v4_actions.MigrationRequest(uri, version, text, repo_root, cwd, ls.fs)


def _resolves_edits(ls: AgentVLanguageServer) -> bool:
    text_document = ls.client_capabilities.text_document
    code_action = text_document.code_action if text_document is not None else None
    resolve = code_action.resolve_support if code_action is not None else None
    return resolve is not None and "edit" in resolve.properties


def _open_versions(ls: AgentVLanguageServer) -> dict[str, int]:
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
    edit = _edit(uri, lsp.Range(start=start, end=start), YLS_MODELINE + "\n")
    return [
        _fix(
            f"Stop the YAML extension from loading `$schema: {match.group(1)}` as a schema file "
            "(AgentV checks this file)",
            diagnostic,
            edit,
            True,
        )
    ]


def register(server: AgentVLanguageServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite],
            resolve_provider=True,
        ),
    )
    @guard([])
    async def code_action(ls: AgentVLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        lines = ls.document_lines(uri)
        if lines is None:
            return []
        actions: list[lsp.CodeAction] = []
        support = v4_actions.EditSupport.of(ls.client_capabilities)
        v4 = ls.judged_by_v4(uri)
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != SOURCE:
                actions.extend(yaml_extension_actions(uri, lines, diagnostic))
                continue
            actions.extend(hidden_actions(uri, lines, diagnostic, ls.encoding))
            if v4:
                lines_of = functools.partial(_lines_of, ls)
                actions.extend(v4_actions.fix_actions(uri, diagnostic, lines_of, ls.encoding, support))
            else:
                actions.extend(actions_for(ls, uri, lines, diagnostic))
        actions.extend(await migration_actions(ls, params, support))
        return actions

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    @guard()
    async def code_action_resolve(ls: AgentVLanguageServer, action: lsp.CodeAction) -> lsp.CodeAction:
        data: Any = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        document = ls.workspace.text_documents.get(uri) if isinstance(uri, str) else None
        if data.get("agentv") != "migrate" or document is None or document.version != data.get("version"):
            return action  # not ours, or the document changed since: no edit
        request = _migration_request(ls, document.uri, document.version, document.source)
        migration = await asyncio.to_thread(v4_actions.migration_of, request)
        if migration.status == "migrated":
            support = v4_actions.EditSupport.of(ls.client_capabilities)
            action.edit = v4_actions.migration_edit(
                migration, document.uri, document.version, support, _open_versions(ls), ls.encoding
            )
        return action
