"""Where the tests of a block-style 4.x eval text are, found from the text alone (the 4.x
sibling of `formats.v2.layout.cut`, which finds v2 `evalcases`).

The text is a *head* (everything before the first item of the top-level `tests:` list), one
*chunk* per item and a *tail* (top-level keys after the list). `head + chunk + tail` is an
eval file with that one test. The cut is conservative: flow style, a `tests:` value on its
own line, several `tests` keys, the deprecated `eval_cases`/`evalcases`, document markers,
lone CRs, anchors, aliases or merge keys anywhere make it return None.
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
    anchors_and_aliases,
    has_lone_cr,
    item_start,
)

_TESTS_KEY = re.compile(r"[\"']?(?:tests|eval_cases|evalcases)[\"']?[ \t]*:")
_TESTS_BLOCK = re.compile(r"\ntests[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n")
MERGE_KEY = re.compile(r"(?:^|[\s{,])<<[ \t]*:", re.M)


def cut_tests(text: str) -> Layout | None:
    """The tests of a block-style top-level `tests:` sequence, or None when unsure."""
    # (the substring test first: the pattern's scan of a 6 MB text takes about 100 ms)
    if has_lone_cr(text) or anchors_and_aliases(text) or ("<<" in text and MERGE_KEY.search(text)):
        return None
    padded = "\n" + text  # patterns look for "\n" + line start: offsets are one more
    lines_at = [m.start() for m in COLUMN_ZERO.finditer(padded)]
    if any(padded.startswith(("---", "...", "%"), at + 1) for at in lines_at):
        return None  # a document marker or a directive
    keys = [at for at in lines_at if _TESTS_KEY.match(padded, at + 1)]
    found = _TESTS_BLOCK.match(padded, keys[0]) if len(keys) == 1 else None
    if found is None:
        return None
    first = CONTENT.search(padded, found.end() - 1)
    if first is None:
        return None
    start = first.start()  # offset in `text` of the first content line after `tests:`
    indent = first.end() - 1 - first.start() - 1
    marker = text[start + indent : start + indent + 2]
    if marker not in ("- ", "-\t", "-\n", "-\r", "-"):
        return None
    end_pattern = TOP_LEVEL_NOT_ITEM if indent == 0 else TOP_LEVEL
    tail_offset = len(text)
    for at in lines_at[bisect.bisect_left(lines_at, start + 1) :]:
        if end_pattern.match(padded, at):
            tail_offset = at
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
