"""Markdown pieces the hovers of both formats write (`features/hover.py`, `v4/hover.py`)."""

from __future__ import annotations

import os

from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.hidden_chars import marked_with_note

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
    if not os.path.isfile(path):
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
