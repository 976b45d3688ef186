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
`tests/unit/test_v2_split.py` compares both ways on every golden and corpus file.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from yaml.nodes import SequenceNode

from agentv_lsp.checks.layout import Layout, anchors_and_aliases
from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.checks.parallel import ParallelMap
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


@dataclass(frozen=True, slots=True)
class Part:
    """What one part says, in the file's lines and case indices."""

    start: int  # index of its first case in the file
    exact: bool  # parsed into exactly its cases, each inside its chunk
    local: list[Diagnostic]  # about its cases
    header: list[Diagnostic]  # about the file (head, tail, config, targets)
    ids: list[str]  # the string ids of its cases
    file_references: bool | None  # whether `agentv validate`'s file checks ran on it
    # when they ran: what the part says without them (another part may have an error)
    without: tuple[list[Diagnostic], list[Diagnostic]] | None = None


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


def bounds(layout: Layout, parts: int) -> list[tuple[int, int]]:
    """Case ranges [a, b) of about equal size in characters."""
    total = layout.tail_offset - layout.offsets[0]
    out: list[tuple[int, int]] = []
    a = 0
    count = len(layout.offsets)
    for k in range(1, parts):
        goal = layout.offsets[0] + total * k // parts
        b = a + 1
        while b < count - (parts - k) and layout.offsets[b] < goal:
            b += 1
        out.append((a, b))
        a = b
    out.append((a, count))
    return out


# The report (YAML tree and all) of the part this process checked last. Freeing a part's
# tree object by object takes about 20 ms at 2,500 cases: the last one is left to the end
# of the process (a forked child leaves with os._exit, the CLI exits hard), the others are
# freed before the next part is parsed, so a process holds one tree at a time.
_last_part: list[DocumentReport] = []


def check_part(path: str, layout: Layout, a: int, b: int, opts: CheckOptions) -> Part:
    """Check cases [a, b) of the file as an eval file of their own."""
    _last_part.clear()
    end = layout.offsets[b] if b < len(layout.offsets) else layout.tail_offset
    cases = layout.text[layout.offsets[a] : end]
    if a == 0 and anchors_and_aliases(layout.head + layout.tail):
        return Part(a, False, [], [], [], None)  # anchors in the head: every part can use them
    if anchors_and_aliases(cases):
        return Part(a, False, [], [], [], None)  # their names and the alias limit span the file
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
    # pipe once (pickle writes an object it has seen as a reference).
    converted: dict[int, tuple[Diagnostic, bool]] = {}

    def to_file(diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """(about its cases, about the file), in the file's lines and case indices."""
        local: list[Diagnostic] = []
        header: list[Diagnostic] = []
        for d in diagnostics:
            done = converted.get(id(d))
            if done is not None:
                (local if done[1] else header).append(done[0])
                continue
            moved = convert(d)
            converted[id(d)] = moved
            (local if moved[1] else header).append(moved[0])
        return local, header

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
    return Part(a, exact, local, header, ids, report.file_references_checked, without)


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


def merge(parts: list[Part]) -> list[Diagnostic] | None:
    """The file's diagnostics from its parts' (None: the parts cannot tell)."""
    if not all(p.exact for p in parts):
        return None
    first = [d.identity() for d in parts[0].header]
    if any([d.identity() for d in p.header] != first for p in parts[1:]):
        return None
    owner: dict[str, int] = {}
    for p in parts:
        for case_id in p.ids:
            if owner.setdefault(case_id, p.start) != p.start:
                return None
    out = list(parts[0].header)
    for p in parts:
        out.extend(p.local)
    out.sort(key=Diagnostic.sort_key)
    return out


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
    ranges = bounds(layout, parts * PARTS_PER_PROCESS)
    pieces = parallel(lambda job: check_part(path, layout, job[0], job[1], opts), ranges)
    if any(p.file_references is False for p in pieces):
        # Some part has an `agentv validate` error, so the file's references are not checked:
        # the parts that did check theirs say what they say without.
        pieces = [
            dataclasses.replace(p, local=p.without[0], header=p.without[1], file_references=False)
            if p.without is not None
            else p
            for p in pieces
        ]
    diagnostics = merge(pieces)
    if diagnostics is None:
        return None
    return DocumentReport(path, "eval", None, diagnostics)
