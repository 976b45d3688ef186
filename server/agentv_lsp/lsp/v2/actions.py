"""Quick fixes for v2 diagnostics, built from `Diagnostic.data` (never from message text):
add or correct `$schema` (`fix: add-schema|set-schema`), use the suggested value
(`suggestion`: `quick_fixes.suggestion_action`, the same for both formats), rename a
duplicate case id, strip a leading slash (`fix: strip-leading-slash`, `replacement`), wrap a
plain string in a content list as a text segment (`fix: wrap-text`), and for a missing
referenced file (`file-not-found`) use the nearest existing name in its folder or create it."""

from __future__ import annotations

import difflib
import json
import os
import re
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase
from agentv_lsp.lsp.convert import path_to_uri, range_text, uri_to_path
from agentv_lsp.lsp.quick_fixes import EditSupport, fix_action, suggestion_action, unquoted, workspace_edit

SCHEMAS = {"config.yaml": "agentv-config-v2", "targets.yaml": "agentv-targets-v2.2"}
ALL_SCHEMAS = ["agentv-eval-v2", "agentv-config-v2", "agentv-targets-v2.2"]
_SCHEMA_LINE = re.compile(r"""^(["']?\$schema["']?[ \t]*:[ \t]*)["']?([^"'#\s]*)""")
MISSING_FILE_CODES = frozenset(("file-not-found", "validate-file-not-found"))


def code_actions(
    ls: ServerBase, uri: str, lines: list[str], diagnostic: lsp.Diagnostic, support: EditSupport
) -> list[lsp.CodeAction]:
    """The quick fixes of a diagnostic of the v2 document `uri` (`support`, what the client's
    edits may do, does not matter: v2's fixes change this document's text only)."""
    del support
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
            fix_action(
                "Set `$schema: agentv-eval-v2`",
                diagnostic,
                workspace_edit(uri, diagnostic.range, "agentv-eval-v2"),
                True,
            )
        )
    suggested = suggestion_action(uri, diagnostic, lines, ls.encoding)
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
            fix_action(
                f"Rename to '{new_id}'",
                diagnostic,
                workspace_edit(uri, unquoted(diagnostic.range, current), new_id),
                True,
            )
        )
    if fix == "strip-leading-slash" and isinstance(data.get("replacement"), str) and current:
        replacement = data["replacement"]
        out.append(
            fix_action(
                f"Use '{replacement}'",
                diagnostic,
                workspace_edit(uri, unquoted(diagnostic.range, current), replacement),
                True,
            )
        )
    wrapped = data.get("replacement") if isinstance(data.get("replacement"), dict) else None
    if fix == "wrap-text" or wrapped is not None:
        text = data.get("text") if fix == "wrap-text" else (wrapped or {}).get("value")
        if isinstance(text, str):
            segment = "{ type: text, value: " + json.dumps(text, ensure_ascii=False) + " }"
            out.append(
                fix_action(
                    "Wrap as a text segment", diagnostic, workspace_edit(uri, diagnostic.range, segment), True
                )
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
        edit = workspace_edit(uri, lsp.Range(start=start, end=end), schema)
        return [fix_action(f"Change `$schema` to `{schema}`", diagnostic, edit, True)]
    start = lsp.Position(line=0, character=0)
    edit = workspace_edit(uri, lsp.Range(start=start, end=start), f"$schema: {default}\n")
    return [fix_action(f"Add `$schema: {default}`", diagnostic, edit, True)]


def missing_file_actions(
    ls: ServerBase, uri: str, diagnostic: lsp.Diagnostic, data: dict[str, Any], current: str
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
    entries = ls.fs.folder_entries(folder)
    if entries is not None:
        names = [n for n, _is_dir in entries if not n.startswith(".")]
        near = difflib.get_close_matches(os.path.basename(display), names, n=1, cutoff=0.6)
        if near:
            head = re.split(r"[/\\]", raw)
            fixed = "/".join([*head[:-1], near[0]]) if len(head) > 1 else near[0]
            out.append(
                fix_action(
                    f"Change to '{fixed}'",
                    diagnostic,
                    workspace_edit(uri, unquoted(diagnostic.range, current), fixed),
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
