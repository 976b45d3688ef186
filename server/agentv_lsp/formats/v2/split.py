"""One large eval file checked in several processes, with exactly the whole-text result.

The file is cut at case boundaries (`checks.layout`); each part, `head + its cases + tail`,
is an eval file of its own and is checked by `check_document` in its own process. The
parts' diagnostics are moved back to the file's lines and case indices and merged. What
one part cannot see is settled across parts, or the whole text is checked after all
(`check_split` returns None):
- a part that does not parse into exactly its cases (the cut was wrong), or a file with
  anchors and aliases (their names and the alias limit span cases: each part looks for
  them in its own cases, so the scan runs in parallel too);
- file-level diagnostics that differ between parts (they depend on which cases a part
  holds, e.g. the notice the runtime prints for the first case inheriting a bad suite
  evaluator);
- a case id used in two parts (the duplicate diagnostic absorbs what the case says there);
- `agentv validate` checks file references only when the whole file has no error: a part
  without errors reports its diagnostics both with and without them, and the merge takes
  the variant that matches the whole file.
The cut, the parts, the merge and the orchestration are the shared skeleton
(`checks/parts.py`); this module checks one part and moves its diagnostics back.
`tests/unit/test_v2_split.py` compares both ways on every golden and corpus file.
"""

from __future__ import annotations

import dataclasses
import re

from yaml.nodes import SequenceNode

from agentv_lsp.checks.layout import Layout
from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.checks.parallel import ParallelMap
from agentv_lsp.checks.parts import INEXACT, Part, anchored, bounds, check_parts, chunks_text, sort_out
from agentv_lsp.formats.v2.check import CheckOptions, DocumentReport, check_document
from agentv_lsp.formats.v2.detail import eval_file_of
from agentv_lsp.formats.v2.layout import cut
from agentv_lsp.formats.v2.validate import detect_file_type
from agentv_lsp.yamlpos import Span, parse_yaml

# Below this size one process is faster than forking, checking the head twice and merging
# (measured with benchmarks/bench_check.py and make_workload.py: 290 KB, 500 cases, gains 5%;
# 1.2 MB, 2,000 cases, 15%).
SPLIT_MIN_BYTES = 256 * 1024

# The cases are cut into this many parts per process; a process that is free takes the next
# part, so it holds one part's YAML tree at a time (the trees are most of the memory) and a
# slower process takes fewer parts.
PARTS_PER_PROCESS = 2

_CASE_INDEX = re.compile(r"evalcases\[(\d+)\]")


def plan(text: str, parts: int) -> Layout | None:
    """The layout to split `text` by, or None when it should be checked whole."""
    if parts < 2 or len(text) < SPLIT_MIN_BYTES:
        return None
    layout = cut(text)
    if layout is None or len(layout.offsets) < 2 * parts:
        return None
    if detect_file_type(parse_yaml(layout.head + layout.tail).value) != "eval":
        return None  # not an eval file (its parts would be checked as one all the same)
    return layout


# The report (YAML tree and all) of the part this process checked last. Freeing a part's
# tree object by object takes about 20 ms at 2,500 cases: the last one is left to the end
# of the process (a forked child leaves with os._exit, the CLI exits hard), the others are
# freed before the next part is parsed, so a process holds one tree at a time.
_last_part: list[DocumentReport] = []


def check_part(path: str, layout: Layout, a: int, b: int, opts: CheckOptions) -> Part:
    """Check cases [a, b) of the file as an eval file of their own."""
    _last_part.clear()
    if anchored(layout, a, b):
        return INEXACT  # their names and the alias limit span the file
    cases = chunks_text(layout, a, b)
    text = layout.head + cases + layout.tail
    report = check_document(path, text, dataclasses.replace(opts, without_file_references=True), kind="eval")
    _last_part.append(report)
    head_lines = layout.lines[0]
    chunk_lines = layout.end_line(b - 1) - layout.lines[a]
    tail_at = head_lines + chunk_lines

    def line(n: int, local: bool) -> int:
        if n < head_lines:
            return n
        if n < tail_at or (local and n == tail_at):
            return n - head_lines + layout.lines[a]
        return n - tail_at + layout.tail_line

    def move(span: Span, local: bool) -> Span:
        return Span(line(span.start_line, local), span.start_col, line(span.end_line, local), span.end_col)

    def renumber(message: str) -> str:
        return _CASE_INDEX.sub(lambda m: f"evalcases[{int(m.group(1)) + a}]", message) if a else message

    # Both variants hold mostly the same diagnostics: converted once, they also cross the
    # pipe once.
    converted: dict[int, tuple[Diagnostic, bool]] = {}

    def to_file(diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """(about its cases, about the file), in the file's lines and case indices."""
        moved = sort_out(diagnostics, convert, converted)
        assert moved is not None  # `convert` places every diagnostic
        return moved

    def convert(d: Diagnostic) -> tuple[Diagnostic, bool]:
        """`d` in the file's lines and case indices, and whether it is about the part's cases."""
        p = d.yaml_path
        if d.file != path:
            return d, False
        is_local = (len(p) >= 2 and p[0] == "evalcases" and isinstance(p[1], int)) or (
            head_lines <= d.span.start_line < tail_at
        )
        related = tuple(
            Related(r.file, move(r.span, is_local), renumber(r.message) if is_local else r.message)
            if r.file == path
            else r
            for r in d.related
        )
        if not is_local:
            return dataclasses.replace(d, span=move(d.span, False), related=related), False
        if len(p) >= 2 and p[0] == "evalcases" and isinstance(p[1], int):
            p = ("evalcases", p[1] + a, *p[2:])
        data = d.data
        if d.code == "duplicate-case-id" and isinstance(data.get("first"), int):
            data = {**data, "first": data["first"] + a}
        moved = dataclasses.replace(
            d, span=move(d.span, True), yaml_path=p, message=renumber(d.message), data=data, related=related
        )
        return moved, True

    local, header = to_file(report.diagnostics)
    without = None if report.without_file_references is None else to_file(report.without_file_references)
    ef = eval_file_of(report)
    ids = [
        raw["id"]
        for raw in (ef.raw_cases if ef is not None and ef.loaded else [])
        if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"]
    ]
    exact = _exact(report, layout, a, b)
    return Part(exact, local, header, ids, report.file_references_checked, without=without)


def _exact(report: DocumentReport, layout: Layout, a: int, b: int) -> bool:
    doc, ef = report.doc, eval_file_of(report)
    if doc is None or doc.error is not None or ef is None or not ef.loaded:
        return False
    cases = doc.node_at(("evalcases",))
    if not isinstance(cases, SequenceNode) or len(cases.value) != b - a:
        return False
    shift = layout.lines[0] - layout.lines[a]
    for i, item in enumerate(cases.value):
        start, end = layout.lines[a + i] + shift, layout.end_line(a + i) + shift
        if not start <= item.start_mark.line < end or item.end_mark.line > end:
            return False
    return True


def check_split(
    path: str,
    text: str,
    opts: CheckOptions,
    parallel: ParallelMap[tuple[int, int], Part],
    parts: int,
) -> DocumentReport | None:
    """The whole-text report of a large eval file, checked by `parts` processes (mapped with
    `parallel`), or None: check it whole. The report carries no parsed document."""
    layout = plan(text, parts * PARTS_PER_PROCESS) if parts > 1 else None
    if layout is None:
        return None
    ranges = bounds(layout, [1] * (parts * PARTS_PER_PROCESS))
    merged = check_parts(ranges, parallel, lambda a, b: check_part(path, layout, a, b, opts))
    if merged is None:
        return None
    return DocumentReport(path, "eval", None, merged[1])
