"""`textDocument/codeAction`: quick fixes built from `Diagnostic.data` (never from message
text): add `$schema`, fix a misspelt role or key, rename a duplicate id, strip a leading
slash, wrap a plain string item, create a missing referenced file, use the known target."""

from __future__ import annotations

import difflib
import os
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp.convert import path_to_uri, uri_to_path
from agentv_lsp.lsp.server import AgentVLanguageServer


def _edit(uri: str, rng: lsp.Range, text: str) -> lsp.WorkspaceEdit:
    return lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=rng, new_text=text)]})


def _fix(
    title: str, diagnostic: lsp.Diagnostic, edit: lsp.WorkspaceEdit, preferred: bool = True
) -> lsp.CodeAction:
    return lsp.CodeAction(
        title=title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=edit,
        is_preferred=preferred,
    )


def actions_for(ls: AgentVLanguageServer, uri: str, diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
    data: Any = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    code = str(diagnostic.code)
    out: list[lsp.CodeAction] = []
    start = lsp.Position(line=0, character=0)
    if data.get("fix") in ("add-schema", "set-schema") or code == "unknown-file-type":
        text = "$schema: agentv-eval-v2\n"
        out.append(
            _fix(
                "Add `$schema: agentv-eval-v2`",
                diagnostic,
                _edit(uri, lsp.Range(start=start, end=start), text),
            )
        )
    suggestion = data.get("suggestion")
    if isinstance(suggestion, str) and suggestion:
        out.append(_fix(f"Change to '{suggestion}'", diagnostic, _edit(uri, diagnostic.range, suggestion)))
    if code == "duplicate-case-id" and isinstance(data.get("id"), str):
        new_id = f"{data['id']}-2"
        out.append(_fix(f"Rename to '{new_id}'", diagnostic, _edit(uri, diagnostic.range, new_id)))
    if data.get("fix") == "strip-leading-slash" and isinstance(data.get("replacement"), str):
        out.append(
            _fix(
                f"Use '{data['replacement']}'", diagnostic, _edit(uri, diagnostic.range, data["replacement"])
            )
        )
    if code in ("file-not-found", "validate-file-not-found"):
        raw = data.get("raw")
        if isinstance(raw, str) and raw:
            document_dir = os.path.dirname(uri_to_path(uri))
            target = os.path.normpath(os.path.join(document_dir, raw.lstrip("/\\")))
            if ls.fs.is_allowed(os.path.dirname(target)) or not os.path.exists(os.path.dirname(target)):
                create = lsp.WorkspaceEdit(document_changes=[lsp.CreateFile(uri=path_to_uri(target))])
                out.append(
                    lsp.CodeAction(
                        title=f"Create {os.path.relpath(target, document_dir)}",
                        kind=lsp.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        edit=create,
                    )
                )
            folder = os.path.dirname(target)
            if os.path.isdir(folder) and ls.fs.is_allowed(folder):
                near = difflib.get_close_matches(os.path.basename(raw), os.listdir(folder), n=1, cutoff=0.5)
                if near:
                    fixed = os.path.join(os.path.dirname(raw), near[0]) if os.path.dirname(raw) else near[0]
                    out.insert(
                        0, _fix(f"Change to '{fixed}'", diagnostic, _edit(uri, diagnostic.range, fixed))
                    )
    return out


def register(server: AgentVLanguageServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])
    )
    def code_action(ls: AgentVLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        actions: list[lsp.CodeAction] = []
        for diagnostic in params.context.diagnostics:
            if diagnostic.source == "agentv-lsp":
                actions.extend(actions_for(ls, params.text_document.uri, diagnostic))
        return actions
