"""Fast diagnostics while a large 4.x eval file is edited: the last whole-text check, with
the tests that changed since checked one at a time.

The whole-text check (`check_v4_document`, as `agentv-lsp check` runs it) takes about a
second at 2,000 tests. After an edit that stays inside the tests (the head and the tail of
`layout.cut_tests` are unchanged), the diagnostics of each test whose text did not change
are taken over from the last exact check (moved to their new lines, `tests[i]` renumbered),
and each changed test is checked as the small eval file `head + its chunk + tail`. What
depends on several tests at once (duplicate ids, lint rules over all tests, `agentv
validate` skipping file checks when any test has an error) may then be out of date: the
caller publishes this *fast* answer at once and the exact one when the edits pause
(`SETTLE_SECONDS`). Texts under `SPLIT_MIN_BYTES` are always checked whole.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from agentv_lsp.checks.layout import Layout
from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.hidden_chars import AllowList, directive_allow_list
from agentv_lsp.lsp.v4.layout import cut_tests
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.yamlpos import Span

SPLIT_MIN_BYTES = 64 * 1024
FRESH_SHARE = 0.25  # check the whole text when more tests than this changed
SETTLE_SECONDS = 1.0  # quiet time after which the exact whole-text check replaces a fast one
MAX_UNITS = 4096  # chunk results remembered per document

_INDEX = re.compile(r"\btests\[(\d+)\]")
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


def _has_validate_error(diagnostics: list[Diagnostic]) -> bool:
    return any(_validate_error(d) for d in diagnostics)


@dataclass
class Exact:
    """The whole-text check of one version, and where its tests are."""

    text: str
    generation: int
    layout: Layout
    diagnostics: list[Diagnostic]
    _local: dict[int, list[Diagnostic]] | None = None

    def local(self, index: int) -> list[Diagnostic]:
        """The diagnostics of test `index`, in chunk lines, as if it were `tests[0]`."""
        if self._local is None:
            grouped: dict[int, list[Diagnostic]] = {}
            layout = self.layout
            for d in self.diagnostics:
                line = d.span.start_line
                if layout.lines[0] <= line < layout.tail_line:
                    k = bisect.bisect_right(layout.lines, line) - 1
                    grouped.setdefault(k, []).append(d)
            self._local = {
                k: [_moved(d, d.file, -layout.lines[k], k, 0) for d in found] for k, found in grouped.items()
            }
        return self._local.get(index, [])

    def outside(self) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """The diagnostics in the head and in the tail."""
        layout = self.layout
        head = [d for d in self.diagnostics if d.span.start_line < layout.lines[0]]
        tail = [d for d in self.diagnostics if d.span.start_line >= layout.tail_line]
        return head, tail


@dataclass
class History:
    """What one open document's earlier checks leave for the next version."""

    exact: Exact | None = None
    units: OrderedDict[tuple[str, str, str, bool, AllowList], list[Diagnostic]] = field(
        default_factory=OrderedDict
    )
    lock: threading.Lock = field(default_factory=threading.Lock)
    settling: asyncio.Task[None] | None = None  # the exact check due after a fast answer

    def remember(self, model: V4Model, generation: int, diagnostics: list[Diagnostic]) -> None:
        """Keep a whole-text check as the base for the next versions (large files only)."""
        layout = cut_tests(model.text) if len(model.text) >= SPLIT_MIN_BYTES else None
        with self.lock:
            if layout is None:
                self.exact = None
                return
            if (
                self.exact is None
                or self.exact.layout.head != layout.head
                or self.exact.layout.tail != layout.tail
            ):
                self.units.clear()
            self.exact = Exact(model.text, generation, layout, diagnostics)


def fast_diagnostics(model: V4Model, history: History, generation: int) -> list[Diagnostic] | None:
    """The diagnostics assembled from the last exact check and per-test checks of what
    changed, or None when that is not possible (then check the whole text)."""
    with history.lock:
        exact = history.exact
    if exact is None or exact.generation != generation or len(model.text) < SPLIT_MIN_BYTES:
        return None
    if model.text is exact.text or model.text == exact.text:
        return exact.diagnostics
    old = exact.layout
    # quick rejection before cutting: the head and the tail must be unchanged
    if not model.text.startswith(old.head) or not model.text.endswith(old.tail):
        return None
    layout = cut_tests(model.text)
    if layout is None or layout.head != old.head or layout.tail != old.tail or layout.indent != old.indent:
        return None
    old_by_text: dict[str, list[int]] = {}
    for j in range(len(old.offsets)):
        old_by_text.setdefault(old.chunk(j), []).append(j)
    count = len(layout.offsets)
    fresh = [k for k in range(count) if layout.chunk(k) not in old_by_text]
    if len(fresh) > max(4, FRESH_SHARE * count):
        return None
    head_part, tail_part = exact.outside()
    # which tests have an error `agentv validate` reports (then it checks no file reference)
    outside_error = _has_validate_error(head_part) or _has_validate_error(tail_part)
    old_error = _has_validate_error(exact.diagnostics)
    parts: list[tuple[list[Diagnostic], bool]] = []  # (chunk-local diagnostics, carried over)
    for k in range(count):
        chunk = layout.chunk(k)
        candidates = old_by_text.get(chunk)
        if candidates:
            j = min(candidates, key=lambda c: abs(c - k))  # the same test, most likely
            parts.append((exact.local(j), True))
        else:
            unit = _unit_local(model, history, layout, chunk, poisoned=False)
            if unit is None:
                return None
            parts.append((unit, False))
    new_error = outside_error or any(_has_validate_error(local) for local, _ in parts)
    if new_error != old_error:
        if not new_error:
            return None  # the last error is gone: every test's file references are checked now
        if any(d.code in REFERENCE_CODES for local, carried in parts if carried for d in local):
            return None  # an error appeared: earlier file-reference findings no longer apply
    out = list(head_part)
    tail_shift = layout.tail_line - old.tail_line
    out.extend(_moved(d, d.file, tail_shift, None, None) for d in tail_part)
    for k, (local, carried) in enumerate(parts):
        if new_error and not carried and not _has_validate_error(local) and not outside_error:
            # checked alone this test had no error, so its file references were checked;
            # in the whole file another test's error turns that pass off
            poisoned = _unit_local(model, history, layout, layout.chunk(k), poisoned=True)
            if poisoned is None:
                return None
            local = poisoned
        start = layout.lines[k]
        out.extend(_moved(d, d.file, start, 0, k) for d in local)
    out.sort(key=Diagnostic.sort_key)
    return out


def _unit_local(
    model: V4Model, history: History, layout: Layout, chunk: str, poisoned: bool
) -> list[Diagnostic] | None:
    """The diagnostics of one test checked alone (`head + chunk + tail`), in chunk lines.
    `poisoned`: with an invalid test after it (`- {}`, an error for `agentv validate`), as
    when another test of the file has an error."""
    # `# agentv-lsp: allow-hidden` holds for the whole file, wherever it is written
    allowed: AllowList = model.memoized("hidden-allow", lambda: directive_allow_list(model.text))
    key = (layout.head, chunk, layout.tail, poisoned, allowed)
    with history.lock:
        found = history.units.get(key)
        if found is not None:
            history.units.move_to_end(key)
            return found
    from agentv_lsp.formats.v4.check import check_v4_document

    head_lines = layout.head.count("\n")
    chunk_lines = chunk.count("\n")
    poison = " " * layout.indent + "- {}\n" if poisoned else ""
    if poisoned and not chunk.endswith("\n"):
        return None
    opts = model.opts
    if allowed != AllowList():
        opts = dataclasses.replace(opts, allow_hidden=opts.allow_hidden.merged(allowed))
    report = check_v4_document(
        model.path, layout.head + chunk + poison + layout.tail, opts, as_eval=model.kind == "eval"
    )
    value = report.doc.value if report.doc is not None else None
    tests = value.get("tests") if isinstance(value, dict) else None
    if not isinstance(tests, list) or len(tests) != (2 if poisoned else 1):
        return None  # the chunk is not exactly one test on its own: check the whole text
    local = [
        _moved(d, d.file, -head_lines, 0, 0)
        for d in report.diagnostics
        if d.file == model.path and head_lines <= d.span.start_line < head_lines + chunk_lines
    ]
    with history.lock:
        history.units[key] = local
        while len(history.units) > MAX_UNITS:
            history.units.popitem(last=False)
    return local


def _moved(d: Diagnostic, file: str, lines: int, old: int | None, new: int | None) -> Diagnostic:
    """`d` moved by `lines`, and about `tests[new]` instead of `tests[old]` (when given)."""

    def span(s: Span) -> Span:
        return Span(s.start_line + lines, s.start_col, s.end_line + lines, s.end_col)

    yaml_path = d.yaml_path
    message = d.message
    if old is not None and new is not None and old != new:
        if len(yaml_path) >= 2 and yaml_path[0] == "tests" and yaml_path[1] == old:
            yaml_path = ("tests", new, *yaml_path[2:])
        message = _INDEX.sub(lambda m: f"tests[{new}]" if int(m.group(1)) == old else m.group(0), message)
    related = tuple(dataclasses.replace(r, span=span(r.span)) if r.file == file else r for r in d.related)
    return Diagnostic(
        d.file, span(d.span), d.severity, d.code, message, yaml_path, d.data, related, d.unnecessary
    )


__all__ = ["SETTLE_SECONDS", "History", "fast_diagnostics"]
