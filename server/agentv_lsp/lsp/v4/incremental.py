"""Incremental diagnostics for a large 4.x eval file: an edit inside tests re-checks those
tests, and the result equals the whole-text check exactly.

A version's diagnostics are kept in parts (`Checked`): the head's (everything before the
first test) in file lines, the tail's (top-level keys after the tests) from the tail's first
line, and each test's in its own lines, as if it were `tests[0]`. After an edit that stays
inside the tests (the layout is followed through the edits, `lsp/follow.py`), every test
whose text did not change keeps its part, and each changed test is checked as the small eval
file `head + its chunk + tail` (the same `check_v4_document` the CLI runs); its part is
placed at its line and index. What the parts cannot say alone is decided across them:

- `agentv validate` checks file references only when the whole file has no error: a test
  checked alone while another has one is checked with an invalid test after it (`- {}`,
  *poisoned*); when the last error goes (file-reference findings appear everywhere) or an
  error appears while kept parts hold file-reference findings, the whole text is checked;
- ids: counted across parts; a duplicated id anywhere makes the whole text be checked;
- lint's "every test reads this file": a few tests without files are kept as witnesses; when
  none is left, the whole text is checked;
- what a test checked alone says outside its own lines (the head's and tail's findings) must
  equal the whole file's; anything else (a finding placed nowhere, a diagnostic comparing
  tests, YAML errors, anchors) makes the whole text be checked.

Anything that can change the whole file falls back to the whole-text check: an edit in the
head or the tail or across them, anchors, aliases or merge keys, a `# agentv-lsp:` directive,
files changed on disk (`generation`), other options. `tests/lsp/test_v4_incremental.py`
compares both on random edit sequences (hypothesis) over the golden files and workloads.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import MappingNode, SequenceNode

from agentv_lsp.checks.layout import Layout, anchors_and_aliases, has_lone_cr
from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.checks.options import CheckOptions, DocumentReport
from agentv_lsp.formats.v4.keys import V4_KEYS
from agentv_lsp.formats.v4.split import CROSS_TEST_CODES
from agentv_lsp.lsp.convert import JsonDict, diagnostic_json
from agentv_lsp.lsp.publication import Blocks, LocalKeys, Placed, all_items
from agentv_lsp.lsp.v4.layout import MERGE_KEY
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.yamlpos import Span

SPLIT_MIN_BYTES = 64 * 1024
FRESH_SHARE = 0.25  # check the whole text when more tests than this changed
MAX_UNITS = 1024  # single-test checks remembered per document

# Diagnostics that compare tests: a test checked alone cannot say them.
_CROSS_CODES = CROSS_TEST_CODES | {"v4-duplicate-id"}
_CANNOT_LOAD = "cannot load this eval file"
_TEST_INDEX = re.compile(r"(?<![\w.\[])" + re.escape(V4_KEYS.tests) + r"\[(\d+)\]")  # `tests[N]`
# `agentv validate` checks file references only when the file has no other error: these are
# the findings of that pass (they do not count as "another error")
REFERENCE_CODES = frozenset(
    {
        "v4-no-git-root",
        "v4-file-empty",
        "v4-file-not-found",
        "v4-file-unreadable",
        "v4-file-value-missing",
        "v4-hook-script-missing",
        "v4-workspace-template-missing",
    }
)


def _validate_error(d: Diagnostic) -> bool:
    return d.severity == "error" and d.data.get("validate") is True and d.code not in REFERENCE_CODES


class _NotPortable(Exception):
    """A diagnostic that names another test or a place outside its own part."""


# -- moving a diagnostic between lines and test indices ------------------------------------------


def _renumber_text(text: str, old: int, new: int) -> str:
    if "tests[" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        if int(m.group(1)) != old:
            raise _NotPortable
        return f"tests[{new}]"

    return _TEST_INDEX.sub(one, text)


def _moved_data(value: Any, lines: int, old: int, new: int) -> Any:
    """Test paths, `tests[N]` and fix spans (`"span": [l0, c0, l1, c1]`) anywhere in `value`."""
    if isinstance(value, str):
        return _renumber_text(value, old, new)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "span" and isinstance(v, list) and len(v) == 4 and all(type(x) is int for x in v):
                out[k] = [v[0] + lines, v[1], v[2] + lines, v[3]]
            elif k in ("line", "occurrences"):
                raise _NotPortable  # positions this module does not move
            else:
                out[k] = _moved_data(v, lines, old, new)
        return out
    if isinstance(value, (list, tuple)):
        if len(value) >= 2 and value[0] == "tests" and type(value[1]) is int:
            if value[1] != old:
                raise _NotPortable
            moved = [value[0], new, *(_moved_data(v, lines, old, new) for v in value[2:])]
        else:
            moved = [_moved_data(v, lines, old, new) for v in value]
        return tuple(moved) if isinstance(value, tuple) else moved
    return value


def _span(s: Span, lines: int) -> Span:
    return Span(s.start_line + lines, s.start_col, s.end_line + lines, s.end_col) if lines else s


def moved(d: Diagnostic, lines: int, old: int, new: int, inside: tuple[int, int] | None) -> Diagnostic:
    """`d` moved by `lines` and about `tests[new]` instead of `tests[old]`. Raises
    `_NotPortable` when it names another test or (`inside`: the lines it must stay in,
    before moving) relates to a place outside them."""
    related = []
    for r in d.related:
        if r.file == d.file:
            if inside is not None and not inside[0] <= r.span.start_line <= r.span.end_line < inside[1]:
                raise _NotPortable
            related.append(Related(r.file, _span(r.span, lines), _renumber_text(r.message, old, new)))
        else:
            related.append(Related(r.file, r.span, _renumber_text(r.message, old, new)))
    yaml_path = d.yaml_path
    if len(yaml_path) >= 2 and yaml_path[0] == "tests" and type(yaml_path[1]) is int:
        if yaml_path[1] != old:
            raise _NotPortable
        yaml_path = ("tests", new, *yaml_path[2:])
    message = _renumber_text(d.message, old, new)
    data = _moved_data(d.data, lines, old, new) if d.data else d.data
    if old == new and not lines:
        return d
    return Diagnostic(
        d.file,
        _span(d.span, lines),
        d.severity,
        d.code,
        message,
        yaml_path,
        data,
        tuple(related),
        d.unnecessary,
    )


# -- parts ---------------------------------------------------------------------------------------

Template = tuple[JsonDict, bool]  # a diagnostic's JSON in its part's lines; True: only range and path move


@dataclass(eq=False)
class TestPart:
    """One test's diagnostics, in its own lines (its `- ` line is 0) and as `tests[0]`."""

    chunk: str
    local: list[Diagnostic]
    error: bool  # an error `agentv validate` reports (other than file references)
    references: bool  # holds a file-reference finding
    test_id: str
    has_files: bool | None  # `type: file` segments in its message input (None: not looked at)
    json: dict[str, list[Template]] = field(default_factory=dict)
    keys: dict[str, LocalKeys] = field(default_factory=dict)  # the templates' sort keys

    def templates(self, encoding: str) -> list[Template]:
        found = self.json.get(encoding)
        if found is None:
            line_of = _lines_from(self.chunk.split("\n"), 0)
            found = self.json[encoding] = [
                (diagnostic_json(d, line_of, encoding), _data_moves(d.data)) for d in self.local
            ]
        return found

    movable = True  # (a publication source: its keys are in its own lines)

    def sort_keys(self, encoding: str, start: int = 0, extra: Any = None) -> LocalKeys:
        """(severity, line, character) of its diagnostics in its own lines."""
        found = self.keys.get(encoding)
        if found is None:
            found = self.keys[encoding] = LocalKeys.of(t for t, _ in self.templates(encoding))
        return found

    def make(self, encoding: str, item: int, start: int, index: int, extra: Any) -> JsonDict:
        """Diagnostic `item` as `tests[index]` from file line `start`."""
        return _moved_json(self.templates(encoding)[item], self.local[item], start, index, self, encoding)


def _data_moves(data: Any) -> bool:
    """Whether data holds more than `path` that moves with the test (fix spans, test paths)."""
    return any(k != "path" and ("tests" in repr(v) or "span" in repr(v)) for k, v in data.items())


def _moved_json(
    template: Template, d: Diagnostic, start: int, index: int, part: TestPart, encoding: str
) -> JsonDict:
    """The JSON of `moved(d, start, 0, index)` from the template of `d` (a part's own lines)."""
    t, data_moves = template
    if d.related or (index and "tests[" in d.message):
        line_of = _lines_from(part.chunk.split("\n"), start)
        return diagnostic_json(moved(d, start, 0, index, None), line_of, encoding)
    out = dict(t)
    r = t["range"]
    s, e = r["start"], r["end"]
    out["range"] = {
        "start": {"line": s["line"] + start, "character": s["character"]},
        "end": {"line": e["line"] + start, "character": e["character"]},
    }
    if data_moves:
        out["data"] = _moved_data(t["data"], start, 0, index)
    elif index:
        path = t["data"]["path"]
        if path.startswith("tests[0]"):
            out["data"] = {**t["data"], "path": f"tests[{index}]{path[8:]}"}
    return out


@dataclass(eq=False)
class Checked:
    """The exact diagnostics of one version of a large eval file, in parts."""

    text: str
    generation: int
    opts: CheckOptions
    layout: Layout
    head: list[Diagnostic]  # file lines
    tail: list[Diagnostic]  # lines from the tail's first line
    head_error: bool
    suite_input: bool  # a suite-level `input` (lint's "every test reads" is then silent)
    parts: list[TestPart]
    ids: Counter[str]
    errors: int  # parts with an error
    references: int  # parts with a file-reference finding
    without_files: list[TestPart]  # some parts without file segments (see WITNESSES)
    header: list[tuple[Any, ...]]  # what a test checked alone must say outside its lines
    checked: int = 0  # tests checked for this version (the others were kept)
    _diagnostics: list[Diagnostic] | None = None

    @property
    def whole_error(self) -> bool:
        return self.head_error or self.errors > 0

    def diagnostics(self) -> list[Diagnostic]:
        """In file lines, sorted as the whole-text check sorts them."""
        if self._diagnostics is None:
            out = list(self.head)
            lines = self.layout.lines
            for k, part in enumerate(self.parts):
                out.extend(moved(d, lines[k], 0, k, None) for d in part.local)
            tail_line = self.layout.tail_line
            out.extend(moved(d, tail_line, -1, -1, None) for d in self.tail)
            self._diagnostics = out
        return self._diagnostics

    def json(self, encoding: str) -> list[JsonDict]:
        """`diagnostics()` as the JSON the client receives."""
        return all_items(self.placed(encoding, Blocks()))

    def placed(self, encoding: str, blocks: Blocks) -> list[Placed]:
        """`diagnostics()` in parts placed in the file (`publication`): the tests' in blocks
        kept from the last version (`blocks`), each test's converted once in its own lines and
        then only moved, and only the diagnostics shown. Only the head's, the tests' and the
        tail's own lines are read (never the whole text split)."""
        head_lines = self.layout.head.split("\n")
        out = [Placed.of_items([diagnostic_json(d, _lines_from(head_lines, 0), encoding) for d in self.head])]
        out.extend(blocks.placed(encoding, self.parts, self.layout.lines))
        if self.tail:
            tail_line = self.layout.tail_line
            line_of = _lines_from(self.layout.tail.split("\n"), tail_line)
            out.append(
                Placed.of_items(
                    [diagnostic_json(moved(d, tail_line, -1, -1, None), line_of, encoding) for d in self.tail]
                )
            )
        return out


def _lines_from(lines: list[str], first: int) -> Callable[[int], str]:
    """The text of file line `n`, from `lines` that start at file line `first`."""

    def line_of(n: int) -> str:
        k = n - first
        return lines[k].removesuffix("\r") if 0 <= k < len(lines) else ""

    return line_of


def _test_id(value: Any) -> str | None:
    test_id = value.get("id") if isinstance(value, dict) else None
    return test_id if isinstance(test_id, str) and test_id.strip() else None


def _has_files(test: Any) -> bool:
    # (lint's own reading of a test's file segments, so that both agree on "every test")
    from agentv_lsp.formats.v4.lint import _file_values

    return isinstance(test, dict) and bool(_file_values(test.get("input"), ()))


WITNESSES = 8  # tests without files remembered (lint's "every test reads" needs none to be)


def _tests_of(report: DocumentReport, lines: list[tuple[int, int]], count: int) -> list[Any] | None:
    """The parsed tests, when the text parsed into exactly `count` tests, the first ones each a
    mapping with an id inside its lines (`lines`: [start, stop) of each)."""
    doc = report.doc
    if report.kind != "eval" or doc is None or doc.error is not None or not isinstance(doc.value, dict):
        return None
    if any(k in doc.value for k in ("eval_cases", "evalcases")):
        return None
    tests = doc.value.get("tests")
    node = doc.node_at(("tests",))
    if not isinstance(tests, list) or not isinstance(node, SequenceNode):
        return None
    if len(node.value) != count or len(tests) != count:
        return None
    for k, (start, stop) in enumerate(lines):
        item = node.value[k]
        if not isinstance(item, MappingNode) or _test_id(tests[k]) is None:
            return None
        if not start <= item.start_mark.line < stop or item.end_mark.line > stop:
            return None
    return tests


def seed(model: V4Model, layout: Layout, report: DocumentReport, generation: int) -> Checked | None:
    """The parts of a whole-text check (None: it cannot be cut into parts exactly)."""
    path = model.path
    count = len(layout.offsets)
    tests = _tests_of(report, [(layout.lines[k], layout.end_line(k)) for k in range(count)], count)
    if tests is None or "agentv-lsp:" in model.text:
        return None
    ids = Counter(_test_id(t) or "" for t in tests)
    if len(ids) != count:
        return None
    lines, tail_line = layout.lines, layout.tail_line
    head: list[Diagnostic] = []
    tail: list[Diagnostic] = []
    local: list[list[Diagnostic]] = [[] for _ in range(count)]
    try:
        for d in report.diagnostics:
            if d.file != path or d.code in _CROSS_CODES or _CANNOT_LOAD in d.message:
                return None
            line = d.span.start_line
            if line < lines[0]:
                moved(d, 0, -1, -1, (0, lines[0]))  # (raises when not portable)
                head.append(d)
            elif line >= tail_line:
                tail.append(moved(d, -tail_line, -1, -1, (tail_line, 1 << 40)))
            else:
                k = bisect.bisect_right(lines, line) - 1
                local[k].append(moved(d, -lines[k], k, 0, (lines[k], layout.end_line(k))))
    except _NotPortable:
        return None
    value = report.doc.value if report.doc is not None else None
    suite_input = isinstance(value, dict) and bool(value.get("input"))
    parts = [
        TestPart(
            layout.chunk(k),
            local[k],
            any(_validate_error(d) for d in local[k]),
            any(d.code in REFERENCE_CODES for d in local[k]),
            _test_id(tests[k]) or "",
            None,
        )
        for k in range(count)
    ]
    without_files: list[TestPart] = []
    if not suite_input:  # a few tests without files, enough to say most edits leave one
        for k, part in enumerate(parts):
            part.has_files = _has_files(tests[k])
            if not part.has_files:
                without_files.append(part)
                if len(without_files) >= WITNESSES:
                    break
    header = [d.identity() for d in head] + [d.identity() for d in tail]
    return Checked(
        model.text,
        generation,
        model.opts,
        layout,
        head,
        tail,
        any(_validate_error(d) for d in head + tail),
        suite_input,
        parts,
        ids,
        sum(p.error for p in parts),
        sum(p.references for p in parts),
        without_files,
        header,
        count,
    )


# -- one test checked alone ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Alone:
    """A test checked as `head + chunk (+ poison) + tail`: its part, and what it said
    outside its lines (None: not exact alone)."""

    part: TestPart | None
    header: list[tuple[Any, ...]]


def check_alone(model: V4Model, layout: Layout, chunk: str, poisoned: bool) -> Alone:
    from agentv_lsp.formats.v4.check import check_v4_document

    refused = Alone(None, [])
    if poisoned and not chunk.endswith("\n"):
        return refused
    poison = " " * layout.indent + "- {}\n" if poisoned else ""
    head = layout.head
    head_lines = head.count("\n")
    chunk_lines = chunk.count("\n")
    poison_lines = 1 if poisoned else 0
    report = check_v4_document(
        model.path, head + chunk + poison + layout.tail, model.opts, as_eval=model.kind == "eval"
    )
    tests = _tests_of(report, [(head_lines, head_lines + chunk_lines)], 2 if poisoned else 1)
    if tests is None:
        return refused
    path = model.path
    tail_start = head_lines + chunk_lines + poison_lines
    local: list[Diagnostic] = []
    header: list[tuple[Any, ...]] = []
    try:
        for d in report.diagnostics:
            line = d.span.start_line
            if (
                d.file == path
                and head_lines + chunk_lines <= line < tail_start
                and d.yaml_path[:2] == ("tests", 1)
            ):
                continue  # about the poison
            if d.file != path or d.code in _CROSS_CODES or _CANNOT_LOAD in d.message:
                return refused
            if d.code.startswith("v4-yaml-") or (not d.yaml_path and d.data.get("runtime")):
                return refused
            if line < head_lines:
                moved(d, 0, -1, -1, (0, head_lines))
                header.append(d.identity())
            elif line < head_lines + chunk_lines:
                local.append(moved(d, -head_lines, 0, 0, (head_lines, head_lines + chunk_lines)))
            elif line < tail_start:
                return refused  # on the poison's line yet not about it
            else:
                header.append(moved(d, -tail_start, -1, -1, (tail_start, 1 << 40)).identity())
    except _NotPortable:
        return refused
    part = TestPart(
        chunk,
        local,
        any(_validate_error(d) for d in local),
        any(d.code in REFERENCE_CODES for d in local),
        _test_id(tests[0]) or "",
        _has_files(tests[0]),
    )
    return Alone(part, header)


# -- the history of one open document ------------------------------------------------------------


@dataclass
class History:
    """What one open document's earlier checks leave for the next version."""

    checked: Checked | None = None
    alone: OrderedDict[tuple[Any, ...], Alone] = field(default_factory=OrderedDict)
    pending: tuple[V4Model, int, DocumentReport] | None = None  # a whole-text check not cut yet
    lock: threading.Lock = field(default_factory=threading.Lock)
    seeding: threading.Lock = field(default_factory=threading.Lock)
    seeding_task: Any = None  # the asyncio task running `base` after a whole-text check
    outline_task: Any = None  # the asyncio task building that version's outline when idle
    blocks: Blocks = field(default_factory=Blocks)  # the last published version's diagnostics

    def remember(self, model: V4Model, generation: int, report: DocumentReport) -> None:
        """Keep a whole-text check as the base of the next versions (large files); it is cut
        into parts when first needed (`base`), not before its diagnostics are published."""
        with self.lock:
            self.pending = (model, generation, report)

    def base(self) -> Checked | None:
        """The last exact check, in parts."""
        with self.seeding:
            with self.lock:
                pending, self.pending = self.pending, None
            if pending is not None:
                model, generation, report = pending
                layout = _layout(model)
                found = seed(model, layout, report, generation) if layout is not None else None
                with self.lock:
                    if self.pending is None:  # (else a newer whole check came meanwhile)
                        if (
                            found is None
                            or self.checked is None
                            or self.checked.layout.head != found.layout.head
                        ):
                            self.alone.clear()
                        self.checked = found
            with self.lock:
                return self.checked

    def alone_result(
        self, model: V4Model, layout: Layout, chunk: str, poisoned: bool, generation: int
    ) -> Alone:
        key = (layout.head, layout.tail, chunk, poisoned, generation, id(model.opts))
        with self.lock:
            found = self.alone.get(key)
            if found is not None:
                self.alone.move_to_end(key)
                return found
        found = check_alone(model, layout, chunk, poisoned)
        with self.lock:
            self.alone[key] = found
            while len(self.alone) > MAX_UNITS:
                self.alone.popitem(last=False)
        return found


def _layout(model: V4Model) -> Layout | None:
    from agentv_lsp.lsp.v4.units import layout_of

    return layout_of(model)


def refused_region(region: str) -> bool:
    """What an edited region of a 4.x text must not hold to be followed (see `layout`)."""
    return has_lone_cr(region) or bool(anchors_and_aliases(region)) or MERGE_KEY.search(region) is not None


def follow_edits(previous: V4Model, model: V4Model, edits: list[Any]) -> None:
    """Give `model` the layout of `previous` followed through `edits` (only the tests around
    them re-scanned), and which earlier test each of its tests is (-1: changed)."""
    from agentv_lsp.lsp.follow import follow

    old = previous.memo.get("layout")
    if not isinstance(old, Layout) or model.kind != "eval" or len(model.text) < SPLIT_MIN_BYTES or not edits:
        return
    found = follow(old, model.text, edits, refused_region)
    if found is None or len(found[0].offsets) < 2:
        return
    layout, _first, _end, origin = found
    with model._lock:
        model.memo.setdefault("layout", layout)
        model.memo.setdefault("origin", (old, origin))


def incremental(model: V4Model, history: History, generation: int) -> Checked | None:
    """The exact diagnostics of `model` from the last exact check and single-test checks of
    what changed, or None: check the whole text."""
    if model.kind != "eval" or len(model.text) < SPLIT_MIN_BYTES:
        return None
    base = history.base()
    if (
        base is None
        or base.generation != generation
        or base.opts is not model.opts
        or model.kind != "eval"
        or len(model.text) < SPLIT_MIN_BYTES
    ):
        return None
    if model.text is base.text or model.text == base.text:
        return base
    old = base.layout
    origin_memo = model.memo.get("origin")
    if origin_memo is not None and origin_memo[0] is old:
        layout: Layout | None = model.memo.get("layout")
        origin: list[int] = origin_memo[1]
    else:
        if not model.text.startswith(old.head) or not model.text.endswith(old.tail):
            return None
        layout = _layout(model)
        if layout is None or layout.head != old.head or layout.tail != old.tail:
            return None
        by_text: dict[str, int] = {}
        for j in range(len(old.offsets)):
            by_text.setdefault(old.chunk(j), j)
        origin = [by_text.get(layout.chunk(k), -1) for k in range(len(layout.offsets))]
    if layout is None or layout.indent != old.indent:
        return None
    count = len(layout.offsets)
    fresh = [k for k in range(count) if origin[k] < 0]
    if len(fresh) > max(4, FRESH_SHARE * count):
        return None
    if any("agentv-lsp:" in layout.chunk(k) for k in fresh):
        return None  # maybe a directive for the whole file (the base had none: see `seed`)
    kept = set(origin)
    removed = (
        [base.parts[j] for j in range(len(base.parts)) if j not in kept]
        if fresh or count != len(base.parts)
        else []
    )
    carried_errors = base.errors - sum(p.error for p in removed)
    poisoned = base.head_error or carried_errors > 0
    results: dict[int, Alone] = {}
    for k in fresh:
        results[k] = history.alone_result(model, layout, layout.chunk(k), poisoned, generation)
    if not all(r.part is not None for r in results.values()):
        return None
    if not poisoned and any(r.part is not None and r.part.error for r in results.values()):
        # another changed test has an error: the file references are not checked in the file
        for k, r in list(results.items()):
            if r.part is not None and not r.part.error:
                results[k] = history.alone_result(model, layout, layout.chunk(k), True, generation)
        if not all(r.part is not None for r in results.values()):
            return None
    if any(r.header != base.header for r in results.values()):
        return None
    changed: dict[int, TestPart] = {k: r.part for k, r in results.items() if r.part is not None}
    new_parts = [base.parts[origin[k]] if origin[k] >= 0 else changed[k] for k in range(count)]
    fresh_parts = list(changed.values())
    errors = carried_errors + sum(p.error for p in fresh_parts)
    whole_error = base.head_error or errors > 0
    references = base.references - sum(p.references for p in removed)
    if base.whole_error and not whole_error:
        return None  # the last error went: every test's file references are checked now
    if whole_error and not base.whole_error and references > 0:
        return None  # an error appeared: kept file-reference findings no longer apply
    references += sum(p.references for p in fresh_parts)
    ids = base.ids.copy()
    for p in removed:
        ids[p.test_id] -= 1
        if not ids[p.test_id]:
            del ids[p.test_id]
    for p in fresh_parts:
        ids[p.test_id] += 1
        if ids[p.test_id] > 1:
            return None  # a duplicated id: `v4-duplicate-id` compares tests
    gone = {id(p) for p in removed}
    without_files = [p for p in base.without_files if id(p) not in gone]
    without_files += [p for p in fresh_parts if not p.has_files][:WITNESSES]
    if not base.suite_input and not without_files:
        return None  # maybe every test reads files now: lint may find one they all read
    parts = new_parts
    return Checked(
        model.text,
        generation,
        model.opts,
        layout,
        base.head,
        base.tail,
        base.head_error,
        base.suite_input,
        parts,
        ids,
        errors,
        references,
        without_files,
        base.header,
        len(fresh),
    )


__all__ = ["Checked", "History", "follow_edits", "incremental", "seed"]
