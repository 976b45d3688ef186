"""Engine values -> LSP types: code-point spans to UTF-16 ranges, diagnostics, paths <-> URIs."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from agentv_lsp.checks.model import SOURCE, Diagnostic
from agentv_lsp.yamlpos import Span

SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    "information": lsp.DiagnosticSeverity.Information,
    "hint": lsp.DiagnosticSeverity.Hint,
}


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return os.path.abspath(unquote(parsed.path)) if parsed.scheme in ("file", "") else uri


def path_to_uri(path: str) -> str:
    from pathlib import Path

    return Path(path).resolve().as_uri() if os.path.isabs(path) else path


def utf16_col(line: str, col: int) -> int:
    """A code-point column as UTF-16 code units (astral characters count twice)."""
    prefix = line[:col]
    return col + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def to_range(span: Span, lines: list[str]) -> lsp.Range:
    def position(line: int, col: int) -> lsp.Position:
        text = lines[line] if 0 <= line < len(lines) else ""
        return lsp.Position(line=max(line, 0), character=utf16_col(text, max(col, 0)))

    return lsp.Range(
        start=position(span.start_line, span.start_col), end=position(span.end_line, span.end_col)
    )


def from_position(position: lsp.Position, lines: list[str]) -> tuple[int, int]:
    """An LSP (UTF-16) position as (line, code-point column)."""
    text = lines[position.line] if 0 <= position.line < len(lines) else ""
    units = 0
    for index, ch in enumerate(text):
        if units >= position.character:
            return position.line, index
        units += 2 if ord(ch) > 0xFFFF else 1
    return position.line, len(text)


def to_diagnostic(d: Diagnostic, lines: list[str]) -> lsp.Diagnostic:
    data: dict[str, Any] = dict(d.data)
    data["path"] = d.path
    related = [
        lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=path_to_uri(r.file), range=to_range(r.span, [])), message=r.message
        )
        for r in d.related
    ]
    return lsp.Diagnostic(
        range=to_range(d.span, lines),
        message=d.message,
        severity=SEVERITY[d.severity],
        code=d.code,
        source=SOURCE,
        data=data,
        related_information=related or None,
        tags=[lsp.DiagnosticTag.Unnecessary] if d.unnecessary else None,
    )
