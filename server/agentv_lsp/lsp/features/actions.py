"""`textDocument/codeAction`: quick fixes built from `Diagnostic.data` (never from message
text): add or correct `$schema` (`fix: add-schema|set-schema`), use the suggested value
(`suggestion`: a misspelt role, key, enum value or target), rename a duplicate case id,
strip a leading slash (`fix: strip-leading-slash`, `replacement`), wrap a plain string in
a content list as a text segment (`fix: wrap-text`), and for a missing referenced file
(`file-not-found`) use the nearest existing name in its folder or create it."""

from __future__ import annotations

import difflib
import json
import os
import re
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.checks.model import SOURCE
from agentv_lsp.lsp.convert import from_client_col, path_to_uri, uri_to_path
from agentv_lsp.lsp.server import AgentVLanguageServer, guard

SCHEMAS = {"config.yaml": "agentv-config-v2", "targets.yaml": "agentv-targets-v2.2"}
SUGGESTION_CODES = frozenset(
    (
        "validate-role",
        "target-unknown",
        "schema-unknown-key",
        "schema-enum",
        "schema-const",
        "config-pattern-dotdir",
    )
)
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


def _range_text(lines: list[str], rng: lsp.Range, encoding: str) -> str:
    if rng.start.line != rng.end.line or not 0 <= rng.start.line < len(lines):
        return ""
    line = lines[rng.start.line]
    return line[
        from_client_col(line, rng.start.character, encoding) : from_client_col(
            line, rng.end.character, encoding
        )
    ]


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
    current = _range_text(lines, diagnostic.range, ls.encoding)
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
    suggestion = data.get("suggestion")
    if isinstance(suggestion, str) and suggestion and current:
        known = {str(data.get(k)) for k in ("value", "key", "role", "pattern") if data.get(k) is not None}
        if code in SUGGESTION_CODES or current.strip("'\"") in known:
            out.append(
                _fix(
                    f"Change to '{suggestion}'",
                    diagnostic,
                    _edit(uri, _inner(diagnostic.range, current), suggestion),
                    True,
                )
            )
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


def register(server: AgentVLanguageServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])
    )
    @guard([])
    def code_action(ls: AgentVLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        lines = ls.document_lines(uri)
        if lines is None:
            return []
        actions: list[lsp.CodeAction] = []
        for diagnostic in params.context.diagnostics:
            if diagnostic.source == SOURCE:
                actions.extend(actions_for(ls, uri, lines, diagnostic))
        return actions
