"""Edits of a YAML text in place, addressed by the positions `agentv_lsp.yamlpos` reports.

The migration never re-dumps YAML: it replaces, inserts and comments out ranges of the
original text, so comments, key order, quoting and blank lines survive untouched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yaml.nodes import Node

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace text[start:end] by `text` (an insertion when start == end)."""

    start: int
    end: int
    text: str


class EditConflict(Exception):
    """Two edits overlap: the migration cannot express the change safely."""


class LineIndex:
    """Offsets of line starts, with the line breaks libyaml counts (LF, CRLF, lone CR)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for m in _LINE_BREAK.finditer(text):
            self.starts.append(m.end())
        newline = _LINE_BREAK.search(text)
        self.newline = newline.group(0) if newline else "\n"

    def offset(self, line: int, col: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        return min(self.starts[line] + col, len(self.text))

    def line_start(self, line: int) -> int:
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def line_end(self, line: int) -> int:
        """Offset just past the line's break (or the end of the text)."""
        return self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)

    def line_text(self, line: int) -> str:
        """The line without its break."""
        return _LINE_BREAK.sub("", self.text[self.line_start(line) : self.line_end(line)])

    def start_of(self, node: Node) -> int:
        return self.offset(node.start_mark.line, node.start_mark.column)

    def end_of(self, node: Node) -> int:
        return self.offset(node.end_mark.line, node.end_mark.column)

    def last_line_of(self, node: Node) -> int:
        """The last line holding text of the node (block scalars end at column 0 of the next line)."""
        end = node.end_mark
        if end.column == 0 and end.line > node.start_mark.line:
            return int(end.line) - 1
        return int(end.line)

    def only_space_before(self, node: Node) -> bool:
        line = node.start_mark.line
        return self.text[self.line_start(line) : self.start_of(node)].strip() == ""


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits; insertions at one offset keep their given order."""
    if len(set(edits)) != len(edits):  # one node reached twice (a YAML alias): editing it twice is wrong
        raise EditConflict("a YAML alias makes one part of the text count twice")
    ordered = sorted(enumerate(edits), key=lambda pair: (pair[1].start, pair[1].end, pair[0]))
    out: list[str] = []
    cursor = 0
    for _, edit in ordered:
        if edit.start < cursor:
            raise EditConflict(f"overlapping edits at offset {edit.start}")
        out.append(text[cursor : edit.start])
        out.append(edit.text)
        cursor = edit.end
    out.append(text[cursor:])
    return "".join(out)


def comment_out_lines(index: LineIndex, first: int, last: int, note: str) -> list[Edit]:
    """Turn lines first..last into comments, after a note line at the first line's indentation."""
    first_text = index.line_text(first)
    indent = first_text[: len(first_text) - len(first_text.lstrip(" "))]
    edits = [Edit(index.line_start(first), index.line_start(first), f"{indent}# {note}{index.newline}")]
    for line in range(first, last + 1):
        start = index.line_start(line)
        body = index.line_text(line)
        if body.strip() == "":
            continue
        pad = len(body) - len(body.lstrip(" "))
        edits.append(Edit(start + pad, start + pad, "# "))
    return edits


def indent_lines(index: LineIndex, first: int, last: int, by: int) -> list[Edit]:
    """Shift lines first..last right by `by` spaces (blank lines stay blank)."""
    edits = []
    for line in range(first, last + 1):
        if index.line_text(line).strip() == "":
            continue
        start = index.line_start(line)
        edits.append(Edit(start, start, " " * by))
    return edits
