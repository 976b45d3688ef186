"""One test of a large 4.x eval file as a small eval file of its own (`head + chunk + tail`,
see `layout.cut_tests`), so that a hover or a preview right after an edit does not wait for
the whole text to be parsed and loaded (about 200 ms at 2,000 tests).

A test's prompt, criteria, grader prompt and messages depend only on its own item and on the
suite's keys (head and tail), so the small file gives the same preview; only its position
differs (`tests[0]` there), which the callers translate. The small models are cached by
their text (in the models' `SharedCaches`), so they survive edits elsewhere in the file.
"""

from __future__ import annotations

import bisect
import re

from agentv_lsp.checks.layout import Layout
from agentv_lsp.lsp.v4.layout import cut_tests
from agentv_lsp.lsp.v4.model import V4Model

SPLIT_MIN_BYTES = 64 * 1024
MAX_UNITS = 512


def layout_of(model: V4Model) -> Layout | None:
    """The tests of a large eval text (None: small, not cut safely, or a single test).

    A text holding one test is its own unit (`head + chunk + tail` gives the text back):
    cutting it again would recurse forever, as it did for one large test (a pasted log)."""
    if model.kind != "eval" or len(model.text) < SPLIT_MIN_BYTES:
        return None

    def cut() -> Layout | None:
        layout = cut_tests(model.text)
        return layout if layout is not None and len(layout.offsets) > 1 else None

    found: Layout | None = model.memoized("layout", cut)
    return found


def unit_model(model: V4Model, layout: Layout, index: int) -> V4Model:
    """Test `index` alone, as a model (cached by text across versions)."""
    chunk = layout.chunk(index)
    key = (model.path, layout.head, chunk, layout.tail, id(model.opts.fs), model.generation, model.choice)
    caches = model.caches
    with caches.units_lock:
        found = caches.units.get(key)
        if found is not None:
            caches.units.move_to_end(key)
            return found
    text = layout.head + chunk + layout.tail
    unit = V4Model(model.path, text, model.choice, model.opts, generation=model.generation, caches=caches)
    with caches.units_lock:
        caches.units[key] = unit
        while len(caches.units) > MAX_UNITS:
            caches.units.popitem(last=False)
    return unit


def unit_at(model: V4Model, line: int) -> tuple[V4Model, int, int] | None:
    """(the unit of the test holding `line`, that line in the unit, the test's index), or
    None when the whole model should answer (small text, not cut, head or tail line)."""
    layout = layout_of(model)
    if layout is None:
        return None
    index = layout.case_at(line)
    if index is None:
        return None
    head_lines = layout.head.count("\n")
    return unit_model(model, layout, index), line - layout.lines[index] + head_lines, index


def units_with_id(model: V4Model, test_id: str) -> list[tuple[V4Model, int]] | None:
    """The units whose text may hold a test with this id, in file order (None: ask the
    whole model)."""
    layout = layout_of(model)
    if layout is None:
        return None
    pattern = re.compile(r"\bid\b")
    out: list[tuple[V4Model, int]] = []
    if not test_id:
        indices: list[int] = list(range(len(layout.offsets)))
    else:  # the tests the id's occurrences fall in (not every test's text cut out and searched)
        text, end = model.text, layout.tail_offset
        indices = []
        at = text.find(test_id, layout.offsets[0], end)
        while at >= 0:
            index = bisect.bisect_right(layout.offsets, at) - 1
            if not indices or indices[-1] != index:
                indices.append(index)
            at = text.find(test_id, at + 1, end)
    for index in indices:
        chunk = layout.chunk(index)
        if test_id in chunk and pattern.search(chunk):
            out.append((unit_model(model, layout, index), index))
    return out
