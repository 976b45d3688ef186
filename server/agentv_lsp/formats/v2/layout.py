"""The cases of a v2 eval text (a block-style top-level `evalcases:` sequence), found from the text
alone: the v2 cut over the shared `checks.layout` (what a head, chunk and tail are, and the
patterns both formats' cuts use).
"""

from __future__ import annotations

import bisect
import re

from agentv_lsp.checks.layout import (
    COLUMN_ZERO,
    CONTENT,
    TOP_LEVEL,
    TOP_LEVEL_NOT_ITEM,
    Layout,
    has_lone_cr,
    item_start,
)

EVALCASES = re.compile(r"\nevalcases[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n")
_EVALCASES_KEY = re.compile(r"[\"']?evalcases[\"']?[ \t]*:")
EVALCASES_ANY = re.compile(r"\n" + _EVALCASES_KEY.pattern)


def cut(text: str) -> Layout | None:
    """The cases of a block-style top-level `evalcases:` sequence, or None when unsure."""
    if has_lone_cr(text):
        return None
    padded = "\n" + text  # patterns look for "\n" + line start: offsets are one more
    lines_at = [m.start() for m in COLUMN_ZERO.finditer(padded)]  # their "\n"s, in padded
    if any(padded.startswith(("---", "...", "%"), at + 1) for at in lines_at):
        return None  # MARKERS: a document marker or a directive
    keys = [at for at in lines_at if _EVALCASES_KEY.match(padded, at + 1)]
    found = EVALCASES.match(padded, keys[0]) if len(keys) == 1 else None
    if found is None:
        return None  # no `evalcases:` line, or several (EVALCASES_ANY)
    first = CONTENT.search(padded, found.end() - 1)
    if first is None:
        return None
    start = first.start()  # offset in `text` of the first content line after `evalcases:`
    indent = first.end() - 1 - first.start() - 1
    marker = text[start + indent : start + indent + 2]
    if marker not in ("- ", "-\t", "-\n", "-\r", "-"):
        return None
    end_pattern = TOP_LEVEL_NOT_ITEM if indent == 0 else TOP_LEVEL
    tail_offset = len(text)
    for at in lines_at[bisect.bisect_left(lines_at, start + 1) :]:
        if end_pattern.match(padded, at):
            tail_offset = at  # the first top-level line after the cases
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
