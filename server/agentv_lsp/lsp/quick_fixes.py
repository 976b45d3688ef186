"""Quick fixes both formats build from `Diagnostic.data` (never from message text): the
"Did you mean" suggestion (`suggestion_action`, for v2 and 4.x diagnostics alike) and the
small pieces every fix is made of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp.convert import from_client_col, range_text, to_client_col


@dataclass(frozen=True, slots=True)
class EditSupport:
    """What the client can apply: document changes (versioned edits) and file renames."""

    document_changes: bool = False
    rename: bool = False

    @staticmethod
    def of(capabilities: lsp.ClientCapabilities | None) -> EditSupport:
        workspace = capabilities.workspace if capabilities is not None else None
        edit = workspace.workspace_edit if workspace is not None else None
        if edit is None:
            return EditSupport()
        operations = edit.resource_operations or ()
        changes = bool(edit.document_changes)
        return EditSupport(changes, changes and lsp.ResourceOperationKind.Rename in operations)


def workspace_edit(uri: str, rng: lsp.Range, text: str) -> lsp.WorkspaceEdit:
    return lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=rng, new_text=text)]})


def fix_action(
    title: str, diagnostic: lsp.Diagnostic, edit: lsp.WorkspaceEdit, preferred: bool = False
) -> lsp.CodeAction:
    return lsp.CodeAction(
        title=title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=edit,
        is_preferred=preferred,
    )


def unquoted(rng: lsp.Range, text: str) -> lsp.Range:
    """The range without the quotes of a quoted scalar (columns shift by one unit each side)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return lsp.Range(
            start=lsp.Position(line=rng.start.line, character=rng.start.character + 1),
            end=lsp.Position(line=rng.end.line, character=rng.end.character - 1),
        )
    return rng


def quick_fix(title: str, diagnostic: lsp.Diagnostic, edit: lsp.WorkspaceEdit) -> lsp.CodeAction:
    return lsp.CodeAction(
        title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic], edit=edit, is_preferred=True
    )


# Diagnostics whose `data["suggestion"]` is the nearest known name ("Did you mean"), both formats.
SUGGESTION_CODES = frozenset(
    (
        "v4-invalid-role",
        "v4-unknown-field",
        "v4-assertion-type-unknown",
        "v4-loss-segment-type",
        "v4-schema-unknown-key",
        "v4-schema-enum",
        "validate-role",
        "target-unknown",
        "schema-unknown-key",
        "schema-enum",
        "schema-const",
        "config-pattern-dotdir",
    )
)


def suggestion_action(
    uri: str, diagnostic: lsp.Diagnostic, lines: list[str], encoding: str
) -> lsp.CodeAction | None:
    """ "Change to 'criteria'": the "Did you mean" of a misspelt key, enum value or role
    (`data["suggestion"]`), replacing the text under the diagnostic (without its quotes),
    offered while that text is still the misspelling it names."""
    data: dict[str, Any] = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    suggestion = data.get("suggestion")
    if not isinstance(suggestion, str) or not suggestion or any(c in suggestion for c in "\n\r"):
        return None
    rng = value_range(diagnostic.range, lines, encoding)
    current = range_text(lines, rng, encoding)
    if not current or current == suggestion:
        return None
    named = [
        str(data[k])
        for k in ("field", "key", "value", "role", "type", "pattern", "target")
        if data.get(k) is not None
    ]
    if named and current.strip() not in named:
        return None  # the text changed since the check
    if str(diagnostic.code) not in SUGGESTION_CODES and not named:
        return None  # another diagnostic's suggestion: only for the value it names
    edit = lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=rng, new_text=suggestion)]})
    return quick_fix(f"Change to '{suggestion}'", diagnostic, edit)


def value_range(rng: lsp.Range, lines: list[str], encoding: str) -> lsp.Range:
    """A one-line scalar's range without its quotes (the quotes stay)."""
    if rng.start.line != rng.end.line or not 0 <= rng.start.line < len(lines):
        return rng
    line = lines[rng.start.line]
    start = from_client_col(line, rng.start.character, encoding)
    end = from_client_col(line, rng.end.character, encoding)
    value = line[start:end]
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return lsp.Range(
            start=lsp.Position(line=rng.start.line, character=to_client_col(line, start + 1, encoding)),
            end=lsp.Position(line=rng.end.line, character=to_client_col(line, end - 1, encoding)),
        )
    return rng
