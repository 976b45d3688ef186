"""A cut layout (where a text's cases start, `checks.layout.Layout`) followed through the
edits of an open document, for either format's incremental model: `lsp/v2/model.py` and
`lsp/v4/incremental.py` re-scan only the cases around the edits."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from agentv_lsp.checks.layout import MARKERS, TOP_LEVEL, TOP_LEVEL_NOT_ITEM, Layout, has_lone_cr, item_start
from agentv_lsp.formats.declared import EVALCASES_ANY


def follow(
    layout: Layout, text: str, edits: list[Any], region_refused: Callable[[str], bool] | None = None
) -> tuple[Layout, int, int, list[int]] | None:
    """The layout of `text`, which is `layout.text` after `edits` (each with start, end, text
    and removed_lines, in the coordinates of the text before it), when every edit stayed
    inside the cases: re-scans only the cases around the edits. Returns (layout, first and
    end index of the re-scanned cases in the new layout, old index of every other case or
    -1), or None when the whole text must be cut again. `region_refused`: what else the
    re-scanned text must not hold (4.x: anchors, aliases, merge keys)."""
    # case starts (offsets, lines, old index), followed through the edits: sorted by offset,
    # so each edit is found by bisection and the cases below it moved in one pass
    offsets, lines = list(layout.offsets), list(layout.lines)
    origin = list(range(len(offsets)))
    tail_offset, tail_line = layout.tail_offset, layout.tail_line
    low: int | None = None
    high = 0
    for edit in edits:
        start, end = edit.start, edit.end
        if (
            start < layout.offsets[0]
            or end > tail_offset
            or (start == tail_offset and tail_offset < len(text))
        ):
            return None  # the head or the tail changed
        shift = len(edit.text) - (end - start)
        added = edit.text.count("\n") - edit.removed_lines
        # the cases starting before the edit stay, those inside a replaced range go, the others
        # move (an insertion at a case's first character moves that case)
        first = bisect.bisect_left(offsets, start)
        stop = first if start == end else bisect.bisect_left(offsets, end)
        offsets[first:] = [o + shift for o in offsets[stop:]] if shift else offsets[stop:]
        lines[first:] = [n + added for n in lines[stop:]] if added else lines[stop:]
        del origin[first:stop]

        def moved(
            x: int, start: int = start, end: int = end, shift: int = shift, size: int = len(edit.text)
        ) -> int:
            return x if x <= start else (start + size if x < end else x + shift)

        low = start if low is None else min(moved(low), start)
        high = max(moved(high), start + len(edit.text))
        tail_offset += shift
        tail_line += added
    if low is None:
        return None
    head_end = layout.offsets[0]
    # from the case before the first edited character (an edit at a case's first character
    # may have changed the end of the case above), to the first case after the last one
    before = bisect.bisect_left(offsets, low)  # cases [0, before) start before `low`
    scan_from = offsets[before - 1] if before else head_end
    line_from = lines[before - 1] if before else layout.lines[0]
    after = bisect.bisect_right(offsets, high)  # cases [after, ...) start after `high`
    scan_to = offsets[after] if after < len(offsets) else tail_offset
    region = text[scan_from:scan_to]
    if has_lone_cr(region):
        return None
    padded_region = "\n" + region
    ends = TOP_LEVEL_NOT_ITEM if layout.indent == 0 else TOP_LEVEL
    if ends.search(padded_region) or MARKERS.search(padded_region) or EVALCASES_ANY.search(padded_region):
        return None
    if region_refused is not None and region_refused(region):
        return None
    found = [scan_from + m.start() for m in item_start(layout.indent).finditer(padded_region)]
    if not before and (not found or found[0] != head_end):
        return None  # the first case no longer starts where the head ends
    kept = before - 1 if before and found and found[0] == scan_from else before
    if before and (not found or found[0] != scan_from):
        return None  # the case the scan started from lost its `-`
    fresh_lines: list[int] = []
    line, previous = line_from, scan_from
    for offset in found:
        line += text.count("\n", previous, offset)
        fresh_lines.append(line)
        previous = offset
    new_offsets = offsets[:kept] + found + offsets[after:]
    if not new_offsets:
        return None
    new_layout = Layout(
        text,
        new_offsets,
        lines[:kept] + fresh_lines + lines[after:],
        tail_offset,
        tail_line,
        layout.indent,
    )
    return new_layout, kept, kept + len(found), origin[:kept] + [-1] * len(found) + origin[after:]
