"""Where the cases of a block-style eval text are, found from the text alone: the `Layout` and
the one cut (`cut_list`) both formats make with their own key patterns (v2's `evalcases` in
`formats.v2.layout`, 4.x's `tests` in `lsp.v4.layout` and `formats.v4.split`).

An eval file is cut into a *head* (everything before the first case: `$schema`,
`execution`, the `evalcases:` or `tests:` line), one *chunk* per case, and a *tail* (top-level
keys after the cases). `head + some chunks + tail` is then an eval file of its own with just
those cases: the language server checks one case at a time that way, and `agentv-lsp
check` spreads the cases of a large file over processes. The cuts are conservative: when
unsure they return None and callers take the whole text.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

MARKERS = re.compile(r"\n(?:---|\.\.\.|%)")
CONTENT = re.compile(r"\n[ ]*[^ \n\r#]")  # the next line with content (not blank, not comment)
TOP_LEVEL = re.compile(r"\n[^ \t\n\r#]")
TOP_LEVEL_NOT_ITEM = re.compile(r"\n(?:[^ \t\n\r#-]|-[^ \t\n\r])")
_MARK = re.compile(r"[*&][^\s\[\]{},]")


def anchors_and_aliases(text: str) -> int:
    """How many `&anchor`s and `*alias`es `text` may hold: a `&` or `*` that starts a node
    (at the start of a line's content, after `[`, `{` or `,`, or after `:`, `-` or `?` and
    a space). Scans for the characters first: the texts this runs on rarely hold any."""
    if "&" not in text and "*" not in text:
        return 0  # much faster than the pattern's scan on non-ASCII text
    count = 0
    for match in _MARK.finditer(text):
        i = j = match.start()
        while j and text[j - 1] in " \t":
            j -= 1
        before = text[j - 1] if j else "\n"
        if before in "\n\r[{," or (before in ":-?" and j < i):
            count += 1
    return count


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the cases of an eval text start (character offsets and 0-based lines)."""

    text: str
    offsets: list[int]  # first character of each case chunk (the line of its `-`)
    lines: list[int]  # first line of each case chunk
    tail_offset: int  # first character after the last chunk
    tail_line: int
    indent: int = 2  # column of the items' `-`

    @property
    def head(self) -> str:
        return self.text[: self.offsets[0]]

    @property
    def tail(self) -> str:
        return self.text[self.tail_offset :]

    def chunk(self, index: int) -> str:
        end = self.offsets[index + 1] if index + 1 < len(self.offsets) else self.tail_offset
        return self.text[self.offsets[index] : end]

    def end_line(self, index: int) -> int:
        return self.lines[index + 1] if index + 1 < len(self.lines) else self.tail_line

    def case_at(self, line: int) -> int | None:
        """The case whose chunk holds `line` (None in the head or the tail)."""
        if line < self.lines[0] or line >= self.tail_line:
            return None
        return bisect.bisect_right(self.lines, line) - 1


def has_lone_cr(text: str) -> bool:
    """A CR not followed by LF: YAML breaks the line there, our line counting (by LF) does not."""
    return "\r" in text and text.count("\r") != text.count("\r\n")


@functools.lru_cache(maxsize=16)
def item_start(indent: int) -> re.Pattern[str]:
    """A line starting a sequence item at column `indent`, "\n" included (search "\n" + text)."""
    return re.compile("\n" + " " * indent + r"-(?:[ \t\n]|\r\n|$)")


# Every line the patterns above can match starts at column 0 with something other than
# whitespace: the cuts find those lines in one scan and sort them out (a large file has few,
# besides the items of a sequence at column 0).
COLUMN_ZERO = re.compile(r"\n[^ \t\n\r]")

# what may follow an item's `-`: a space, a tab, a line end, the end of the text
ITEM_MARKERS = ("- ", "-\t", "-\n", "-\r", "-")


def cut_list(
    text: str,
    any_key: re.Pattern[str],
    list_line: re.Pattern[str],
    *,
    markers: tuple[str, ...] = ITEM_MARKERS,
    tail_allowed: bool = True,
) -> Layout | None:
    """The items of a block-style top-level sequence, the one cut of both formats: `any_key`
    matches the start of a column-0 line holding any key that could hold the cases (one such
    line only), `list_line` that line itself as the cut takes it ("\n" + the line, its line end
    included). None when unsure: a document marker or a directive, the key written otherwise
    or more than once, items not at one column or starting otherwise than `markers`, and,
    unless `tail_allowed`, top-level content after the items. (Callers refuse first what
    only they refuse: line ends, anchors, merge keys.)"""
    padded = "\n" + text  # patterns look for "\n" + line start: offsets in `text` are one more
    lines_at = [m.start() for m in COLUMN_ZERO.finditer(padded)]  # their "\n"s, in padded
    if any(padded.startswith(("---", "...", "%"), at + 1) for at in lines_at):
        return None  # a document marker or a directive
    keys = [at for at in lines_at if any_key.match(padded, at + 1)]
    found = list_line.match(padded, keys[0]) if len(keys) == 1 else None
    if found is None:
        return None
    first = CONTENT.search(padded, found.end() - 1)
    if first is None:
        return None
    start = first.start()  # offset in `text` of the first content line after the key's line
    indent = first.end() - 1 - first.start() - 1
    if text[start + indent : start + indent + 2] not in markers:
        return None
    end_pattern = TOP_LEVEL_NOT_ITEM if indent == 0 else TOP_LEVEL
    tail_offset = len(text)
    for at in lines_at[bisect.bisect_left(lines_at, start + 1) :]:
        if end_pattern.match(padded, at):
            if not tail_allowed:
                return None  # top-level content after the items: its lines would move
            tail_offset = at  # the first top-level line after the items
            break
    offsets = [m.start() for m in item_start(indent).finditer(padded, start, tail_offset + 1)]
    if not offsets or offsets[0] != start:
        return None
    lines: list[int] = []
    line = text.count("\n", 0, start)
    previous = start
    for offset in offsets:
        line += text.count("\n", previous, offset)
        lines.append(line)
        previous = offset
    tail_line = line + text.count("\n", previous, tail_offset)
    return Layout(text, offsets, lines, tail_offset, tail_line, indent)
