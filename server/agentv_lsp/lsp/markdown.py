"""Markdown pieces the hovers of both formats write (`features/hover.py`, `v4/hover.py`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from urllib.parse import quote

from agentv_lsp.checks.hidden_chars import marked_with_note
from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.engine.files import FileReadError, FileSystem

HEAD_LINES = 8  # a referenced file's lines shown


def fence(text: str, language: str = "text") -> str:
    """A fenced block; hidden characters are written as ⟦U+202E⟧ (`hidden_chars`), with a note."""
    text, note = marked_with_note(text)
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{language}\n{text}\n{ticks}{note}"


def file_head(fs: FileSystem, path: str) -> str | None:
    """A referenced file's first lines in a fenced block (None: not a regular file; read
    through `fs`, so within its limits)."""
    if not fs.is_file(path):
        return None
    try:
        read = fs.read(path)
    except FileReadError as exc:
        return f"Cannot read: {exc}"
    if read.binary:
        return "*Binary file.*"
    lines = read.text.split("\n")
    more = f"\n\n*… {len(lines) - HEAD_LINES} more lines*" if len(lines) > HEAD_LINES else ""
    return fence("\n".join(lines[:HEAD_LINES])) + more


def code_span(text: str) -> str:
    """`text` as inline code whatever backticks it holds (one line, hidden characters marked)."""
    text, _ = marked_with_note(" ".join(text.split()))
    ticks = "`"
    while ticks in text:
        ticks += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def plain(text: str, limit: int = 200) -> str:
    """A file's text shown as prose, one line: Markdown and HTML characters escaped (a link
    or command in an eval file's text is never rendered as one), cut at `limit`."""
    text, _ = marked_with_note(" ".join(text.split()))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


PREVIEW_COMMAND = "agentv.showPreview"  # the extension's command that opens the preview panel


def preview_link(uri: str, case_id: str | None, line: int, label: str = "Open in the preview panel") -> str:
    """A command link that opens the preview panel on a test (by id, else by its line)."""
    target: dict[str, object] = {"uri": uri}
    if case_id:
        target["caseId"] = case_id
    else:
        target["position"] = {"line": line, "character": 0}
    return f"[{label}](command:{PREVIEW_COMMAND}?{quote(json.dumps([target]))})"


def tokens_phrase(tokens: dict[str, object] | None) -> str:
    """`59 tokens to the candidate, 1,240 to the grader` (the counts of `tokens.case_tokens`;
    None: `tokens.case_tokens_soon` is still counting)."""
    if tokens is None:
        return "tokens: counting…"
    candidate, grader = tokens.get("candidate"), tokens.get("grader")
    text = f"{candidate:,} tokens to the candidate" if isinstance(candidate, int) else "tokens unknown"
    return text + (f", {grader:,} to the grader" if isinstance(grader, int) else "")


def flagged_at(diagnostics: Iterable[Diagnostic], path: str, line: int, col: int) -> bool:
    """Whether a diagnostic of the file `path` covers (line, col) (code points): VS Code then
    shows that diagnostic's hover above ours, so ours keeps short."""
    here = (line, col)
    return any(
        d.file == path and (d.span.start_line, d.span.start_col) <= here <= (d.span.end_line, d.span.end_col)
        for d in diagnostics
        if d.severity != "hint"
    )
