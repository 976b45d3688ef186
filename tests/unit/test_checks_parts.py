"""The shared split skeleton (`checks/parts.py`) on hand-made parts: when the merge gives up,
how the parts' diagnostics come together, and how the hooks are used. The formats' split
checks are compared with whole checks in test_v2_split.py and test_v4_split.py."""

from __future__ import annotations

import dataclasses
import itertools

from agentv_lsp.checks.layout import Layout
from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.checks.parts import (
    INEXACT,
    Part,
    anchored,
    bounds,
    check_parts,
    chunks_text,
    merge,
    part_weights,
    sort_out,
)
from agentv_lsp.yamlpos import Span


def diag(line: int, code: str = "c", message: str = "m", data: dict[str, object] | None = None) -> Diagnostic:
    return Diagnostic("/f.yaml", Span(line, 0, line, 1), "error", code, message, ("tests", line), data or {})


def part(local: list[Diagnostic], header: list[Diagnostic], ids: list[str], **more: object) -> Part:
    return Part(True, local, header, ids, **more)  # type: ignore[arg-type]


def serial(func, jobs):  # type: ignore[no-untyped-def]
    return [func(job) for job in jobs]


def test_merge_keeps_one_header_and_every_local_in_order() -> None:
    head = [diag(0, "head")]
    merged = merge([part([diag(5), diag(3)], head, ["a"]), part([diag(4)], list(head), ["b"])])
    assert merged is not None
    assert [d.span.start_line for d in merged] == [0, 3, 4, 5]


def test_merge_gives_up_when_the_parts_cannot_tell() -> None:
    good = part([diag(3)], [diag(0)], ["a"])
    assert merge([]) is None
    assert merge([good, INEXACT]) is None
    # the file-level diagnostics differ (also only in `data`, which equality leaves out)
    assert merge([good, part([], [diag(0, data={"x": 1})], ["b"])]) is None
    assert merge([good, part([], [], ["b"])]) is None
    # a test id in two parts
    assert merge([good, part([], [diag(0)], ["a"])]) is None
    # the same id twice in one part is the part's own to report
    assert merge([part([], [], ["a", "a"]), part([], [], ["b"])]) == []


def test_merge_compares_what_agree_returns() -> None:
    one = part([], [], ["a"], file_references=True)
    other = part([], [], ["b"], file_references=None)
    assert merge([one, other]) == []
    assert merge([one, other], agree=lambda p: p.file_references) is None
    assert (
        merge([one, dataclasses.replace(other, file_references=True)], agree=lambda p: p.file_references)
        == []
    )


def test_check_parts_takes_the_variant_without_file_references_when_a_part_has_an_error() -> None:
    with_refs = part(
        [diag(3, "missing-file")], [], ["a"], file_references=True, without=([diag(3, "other")], [])
    )
    erring = part([diag(7, "error")], [], ["b"], file_references=False)
    parts = {(0, 1): with_refs, (1, 2): erring}
    merged = check_parts([(0, 1), (1, 2)], serial, lambda a, b: parts[a, b])
    assert merged is not None
    pieces, diagnostics = merged
    assert [d.code for d in diagnostics] == ["other", "error"]
    assert [p.file_references for p in pieces] == [False, False]
    # when every part checked its references, they stay
    clean = dataclasses.replace(erring, file_references=True)
    parts[1, 2] = clean
    merged = check_parts([(0, 1), (1, 2)], serial, lambda a, b: parts[a, b])
    assert merged is not None and [d.code for d in merged[1]] == ["missing-file", "error"]


def test_sort_out_splits_by_place_and_gives_up_with_it() -> None:
    shared = diag(2)
    calls: list[Diagnostic] = []

    def place(d: Diagnostic) -> tuple[Diagnostic, bool] | None:
        calls.append(d)
        if d.code == "cross":
            return None
        return dataclasses.replace(d, message="moved"), d.span.start_line > 1

    placed: dict[int, tuple[Diagnostic, bool]] = {}
    moved = sort_out([diag(0), shared], place, placed)
    assert moved is not None
    local, header = moved
    assert [(d.span.start_line, d.message) for d in local] == [(2, "moved")]
    assert [(d.span.start_line, d.message) for d in header] == [(0, "moved")]
    again = sort_out([shared], place, placed)
    assert again is not None and again[0][0] is local[0]  # moved once, the same object
    assert calls.count(shared) == 1
    assert sort_out([diag(0), diag(1, "cross")], place) is None


def layout_of(sizes: list[int]) -> Layout:
    """A layout of tests with `sizes` characters each (one line per test), no head or tail."""
    text = "".join("x" * (n - 1) + "\n" for n in sizes)
    offsets = list(itertools.accumulate([0, *sizes[:-1]]))
    return Layout(text, offsets, list(range(len(sizes))), len(text), len(sizes))


def test_bounds_follow_the_weights_and_cover_every_test_once() -> None:
    layout = layout_of([10] * 60)
    weights = part_weights(2, 3)
    assert weights == [3, 3, 2, 2, 1, 1]
    ranges = bounds(layout, weights)
    assert ranges[0][0] == 0 and ranges[-1][1] == 60
    assert all(b == a2 for (_, b), (a2, _) in itertools.pairwise(ranges))
    assert [b - a for a, b in ranges] == [15, 15, 10, 10, 5, 5]
    assert [b - a for a, b in bounds(layout, [1, 1, 1])] == [20, 20, 20]
    # more parts than tests: no empty range
    assert bounds(layout_of([10, 10]), [1, 1, 1]) == [(0, 1), (1, 2)]


def test_chunks_text_and_anchors_look_at_the_range_only() -> None:
    layout = layout_of([4, 4, 4])
    layout = dataclasses.replace(layout, text="aaa\n&x\nccc\n")
    assert chunks_text(layout, 1, 3) == "&x\nccc\n"
    assert anchored(layout, 1, 2)
    assert not anchored(layout, 2, 3)
