"""One version of one open document, checked and navigated one eval case at a time.

A large eval file is cut into a *head* (everything before the first case: `$schema`,
`execution`, the `evalcases:` line), one *chunk* per case, and a *tail* (top-level keys
after the cases). Each case can be parsed and checked as the small document
``head + chunk + tail`` (a *unit*) with the same `check_document` that `agentv-lsp check`
runs. Units are cached by their exact text, so after an edit only the edited case is parsed
and checked again and the diagnostics of the others are moved to their new lines.

The first check of a text (or after the head, the tail or the options changed) runs
`check_document` on the whole text, as the CLI does, and hands each unit its share; later
versions are assembled from units. What one case cannot see is computed across units:
whether `agentv validate` checks file references at all (only when the whole file has no
error), duplicate ids, and notices the runtime prints once per file (the first case that
inherits a broken suite evaluator). A version whose edits replaced one run of cases (typing)
is assembled from the previous version's assembly: only the replaced cases are looked at
(their validate errors and ids counted in and out), so an edit costs O(changed cases) plus a
few C-level passes over the units, not a Python loop over 10,000. The cut is conservative: flow-style `evalcases`,
document markers, directives, lone CRs, aliases, or a chunk that does not parse on its own
as exactly one case make the whole text be checked at once. `tests/lsp/test_v2_model.py`
compares both paths on random edits.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import operator
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from yaml.nodes import Node, SequenceNode

from agentv_lsp.checks.hidden_chars import has_allow_directive
from agentv_lsp.checks.layout import Layout, anchors_and_aliases
from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.formats.v2.check import CheckOptions, DocumentReport, FileKind, check_document, detect_kind
from agentv_lsp.formats.v2.detail import eval_file_of, v2_detail
from agentv_lsp.formats.v2.layout import cut
from agentv_lsp.formats.v2.loader import CaseOutcome, EvalFile, load_case, open_eval_file
from agentv_lsp.formats.v2.model import YamlPath
from agentv_lsp.formats.v2.validate import validate_eval
from agentv_lsp.lsp.convert import is_agentv_path
from agentv_lsp.lsp.follow import follow
from agentv_lsp.yamlpos import Span, YamlDocument, parse_yaml

# Texts below this size are checked whole: cutting them buys nothing.
SPLIT_MIN_BYTES = 64 * 1024
# In a unit's cached results chunk lines are numbered from CHUNK_BASE and tail lines from
# TAIL_BASE (both move when other cases grow or shrink); head lines stay as they are.
CHUNK_BASE = 1 << 28
TAIL_BASE = 1 << 29
# Assemble from units when at most this share of them must be checked afresh; otherwise
# one whole-text check is cheaper.
FRESH_SHARE = 0.25

# Suite-level evaluators are parsed for the first case that inherits them: their notices
# depend on which case that is.
_CASE_DEPENDENT_HEAD = ("execution", "evaluators")


# -- one case as a small document ----------------------------------------------------------


@dataclass
class UnitResult:
    """A unit's diagnostics with lines relative to the unit: chunk lines from CHUNK_BASE
    (its case is index 0 in YAML paths), tail lines from TAIL_BASE, head lines as they are."""

    local: list[Diagnostic]
    header: list[Diagnostic]
    uses_tail: bool = False


class Unit:
    """`head + chunk + tail` for one case: parsed, loaded and checked lazily (thread-safe)."""

    def __init__(self, context: UnitContext, chunk: str) -> None:
        self.context = context
        self.chunk = chunk
        self.chunk_lines = chunk.count("\n")
        self._lock = threading.RLock()
        self._doc: YamlDocument | None = None
        self._ef: EvalFile | None = None
        self._outcome: CaseOutcome | None = None
        self._lines: list[str] | None = None
        self.validate_error: bool | None = None
        self.verified: bool | None = None  # parses alone as exactly one case inside its chunk
        self.results: dict[bool, UnitResult] = {}
        self.id_info: tuple[Any, Span] | None = None  # raw id and its span (unit lines)
        self.aliases = anchors_and_aliases(chunk)
        self.cache: dict[Any, Any] = {}  # moved and converted diagnostics, by position
        self.memo: dict[str, Any] = {}  # features' results in unit lines (links, ...)

    @property
    def text(self) -> str:
        return self.context.head + self.chunk + self.context.tail

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.chunk.split("\n")
        return self._lines

    # positions: unit lines <-> file lines ------------------------------------------------
    def to_file_line(self, line: int, start: int, tail_line: int, local: bool = True) -> int:
        head = self.context.head_lines
        if line < head:
            return line
        if line < head + self.chunk_lines or (local and line == head + self.chunk_lines):
            return line - head + start
        return line - head - self.chunk_lines + tail_line

    def to_unit_line(self, line: int, start: int, tail_line: int) -> int:
        head = self.context.head_lines
        if line < head:
            return line
        if line < tail_line:
            return line - start + head
        return line - tail_line + head + self.chunk_lines

    # lazily computed -----------------------------------------------------------------------
    @property
    def doc(self) -> YamlDocument:
        with self._lock:
            if self._doc is None:
                self._doc = parse_yaml(self.text)
            return self._doc

    @property
    def ef(self) -> EvalFile:
        with self._lock:
            if self._ef is None:
                c = self.context
                self._ef = open_eval_file(
                    c.path,
                    repo_root=c.opts.repo_root,
                    cwd=c.opts.cwd,
                    fs=c.opts.fs,
                    doc=self.doc,
                    given_path=c.path,
                )
            return self._ef

    def forget_files(self) -> None:
        """Files this case refers to changed: load and check it again when asked."""
        with self._lock:
            self._ef = None
            self._outcome = None
            self.results.clear()
            self.cache.clear()
            self.memo.clear()

    def verify(self) -> bool:
        if self.verified is not None:
            return self.verified
        with self._lock:
            if self.verified is None:
                self.verified = self._parses_alone()
            return self.verified

    def _parses_alone(self) -> bool:
        doc = self.doc
        if doc.error is not None:
            return False
        cases = doc.node_at(("evalcases",))
        if not isinstance(cases, SequenceNode) or len(cases.value) != 1:
            return False
        item: Node = cases.value[0]
        head = self.context.head_lines
        last = (head + self.chunk_lines, 0 if self.chunk.endswith("\n") else 1 << 30)
        return head <= item.start_mark.line and (item.end_mark.line, item.end_mark.column) <= last

    def has_validate_error(self) -> bool:
        if self.validate_error is not None:
            return self.validate_error
        with self._lock:
            if self.validate_error is None:
                findings = validate_eval(self.doc.value)
                self.validate_error = any(f.severity == "error" for f in findings)
            return self.validate_error

    def outcome(self) -> CaseOutcome | None:
        with self._lock:
            if self._outcome is None:
                ef = self.ef
                if not ef.loaded or not ef.raw_cases:
                    return None
                self._outcome = load_case(ef, 0)
            return self._outcome

    def raw_case(self) -> Any:
        ef = self.ef
        return ef.raw_cases[0] if ef.loaded and ef.raw_cases else None

    def case_id(self) -> tuple[Any, Span]:
        """The raw `id` value and where it is (unit lines)."""
        if self.id_info is not None:
            return self.id_info
        with self._lock:
            if self.id_info is None:
                raw = self.raw_case()
                self.id_info = (
                    raw.get("id") if isinstance(raw, dict) else None,
                    self.doc.span_of(("evalcases", 0, "id")),
                )
            return self.id_info

    def result(self, file_references: bool) -> UnitResult:
        with self._lock:
            found = self.results.get(file_references)
            if found is None:
                found = self.results[file_references] = self._check(file_references)
            return found

    def _check(self, file_references: bool) -> UnitResult:
        c = self.context
        opts = dataclasses.replace(c.opts, file_references=file_references)
        report = check_document(c.path, self.text, opts, kind="eval")
        head, end = c.head_lines, c.head_lines + self.chunk_lines
        return _split_result(report.diagnostics, c.path, head, end, end, lambda i: i == 0)


def _split_result(
    diagnostics: list[Diagnostic],
    path: str,
    chunk_start: int,
    chunk_end: int,
    tail_start: int,
    ours: Any,
) -> UnitResult:
    """Sort diagnostics into a unit's own and the file's, in unit-relative lines."""
    out = UnitResult([], [])

    def line(n: int, is_local: bool) -> int:
        if n < chunk_start:
            return n
        if n < chunk_end or (is_local and n == chunk_end):
            return n - chunk_start + CHUNK_BASE
        out.uses_tail = True
        return n - tail_start + TAIL_BASE

    def move(span: Span, is_local: bool) -> Span:
        return Span(
            line(span.start_line, is_local), span.start_col, line(span.end_line, is_local), span.end_col
        )

    for d in diagnostics:
        if d.file != path:
            continue
        p = d.yaml_path
        is_local = (len(p) >= 2 and p[0] == "evalcases" and ours(p[1])) or (
            chunk_start <= d.span.start_line < chunk_end
        )
        related = tuple(
            Related(r.file, move(r.span, is_local), r.message) if r.file == path else r for r in d.related
        )
        message = d.message
        if is_local and len(p) >= 2 and p[0] == "evalcases":
            if p[1] != 0:  # a whole-text check's case index: messages name it too
                message = message.replace(f"evalcases[{p[1]}]", "evalcases[0]")
            p = ("evalcases", 0, *p[2:])
        moved = dataclasses.replace(
            d, span=move(d.span, is_local), yaml_path=p, related=related, message=message
        )
        (out.local if is_local else out.header).append(moved)
    return out


@dataclass(eq=False)
class UnitContext:
    """What the units of a text share: the head, the tail and the check options."""

    path: str
    head: str
    tail: str
    opts: CheckOptions
    units: dict[str, Unit] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.head_lines = self.head.count("\n")
        self.head_split = self.head.split("\n")
        self.tail_split = self.tail.split("\n")
        self.head_aliases = anchors_and_aliases(self.head + self.tail)

    def unit(self, chunk: str) -> Unit:
        with self.lock:
            found = self.units.get(chunk)
            if found is None:
                found = self.units[chunk] = Unit(self, chunk)
            return found

    def keep_only(self, units: list[Unit]) -> None:
        with self.lock:
            self.units = {u.chunk: u for u in units}


class UnitCache:
    """The units of one document across its versions (kept while the head, the tail and the
    options stay the same)."""

    def __init__(self) -> None:
        self.context: UnitContext | None = None
        self.lock = threading.Lock()

    def context_for(self, path: str, head: str, tail: str, opts: CheckOptions) -> UnitContext:
        with self.lock:
            c = self.context
            if c is None or c.path != path or c.opts is not opts or c.head != head or c.tail != tail:
                _retire(c)
                c = self.context = UnitContext(path, head, tail, opts)
            return c

    def clear(self) -> None:
        with self.lock:
            _retire(self.context)
            self.context = None


def _retire(context: UnitContext | None) -> None:
    """A context's units point back at it: emptying its table breaks the cycle, so a closed
    document's trees are freed at once by reference counting, not at the next full
    collection (hundreds of MiB for a large file; the server makes full collections rare)."""
    if context is not None:
        with context.lock:
            context.units = {}


# -- a whole version -------------------------------------------------------------------------


@dataclass
class Located:
    """Where a position of the file lands: the parsed document holding it, the line in that
    document, its EvalFile, and the file's case index when the document holds one case."""

    doc: YamlDocument
    line: int
    ef: EvalFile | None
    case: int | None
    whole: bool = False  # the whole text: lines and case indices are the file's

    def file_path(self, path: YamlPath) -> YamlPath:
        if self.case is not None and path[:2] == ("evalcases", 0):
            return ("evalcases", self.case, *path[2:])
        return path

    def doc_path(self, path: YamlPath) -> YamlPath:
        if self.case is not None and path[:2] == ("evalcases", self.case):
            return ("evalcases", 0, *path[2:])
        return path


@dataclass(frozen=True, slots=True)
class Piece:
    """Diagnostics of one case, in its unit's lines (when `unit` is set: see UnitResult), or
    of the file, in file lines."""

    diagnostics: list[Diagnostic]
    unit: Unit | None = None
    index: int = 0  # the case's index in the file
    start: int = 0  # the case's first line in the file
    tail: int = 0  # the tail's first line in the file
    refs: bool = True  # the file-reference pass the unit's results are for

    def in_file(self, path: str) -> list[Diagnostic]:
        if self.unit is None:
            return self.diagnostics
        return [_to_file(d, self.index, self.start, self.tail, path) for d in self.diagnostics]


class FileModel:
    """One (uri, version) of a document: what the editor features ask, each computed once."""

    def __init__(
        self,
        path: str,
        text: str,
        opts: CheckOptions,
        cache: UnitCache | None = None,
        parts: tuple[Layout, list[Unit]] | None = None,
    ) -> None:
        self.path = path
        self.text = text
        self.opts = opts
        self._lock = threading.RLock()
        self.layout: Layout | None = None
        self.units: list[Unit] = []
        self._doc: YamlDocument | None = None
        self._ef: EvalFile | None = None
        self._report: DocumentReport | None = None
        self._pieces: list[Piece] | None = None
        self._result: Assembled | list[Diagnostic] | None = None
        # (the previous version's assembly, the run of its cases [first, after) replaced here, its units)
        self._follows: tuple[Assembled, int, int, list[Unit]] | None = None
        self._outcomes: dict[int, CaseOutcome] = {}
        self._lines: list[str] | None = None
        self._cache = cache
        self.kind: FileKind | None = None
        self.ours = "agentv-" in text or is_agentv_path(path)
        self.mentions_directive = True  # whether `agentv-lsp:` may be in the text (see after_edits)
        self.stats = {"units": 0, "checked": 0}  # for the log: how much work a version took
        self.memo: dict[str, Any] = {}  # features' results for this version (document symbols, ...)
        # which AgentV judges it, when only the file's format chose v2 (`formats.runtime`)
        self.runtime_note: Diagnostic | None = None
        if not self.ours:
            return
        if parts is not None:  # followed from the previous version (`after_edits`)
            self.layout, self.units, self.kind = parts[0], parts[1], "eval"
            self.stats["units"] = len(self.units)
            return
        # a file-wide `# agentv-lsp: allow-hidden` comment: checked whole, so every part sees it
        self.mentions_directive = "agentv-lsp:" in text
        split = len(text) >= SPLIT_MIN_BYTES and cache is not None and not has_allow_directive(text)
        layout = cut(text) if split else None
        if layout is not None and cache is not None:
            context = cache.context_for(path, layout.head, layout.tail, opts)
            units = [context.unit(layout.chunk(i)) for i in range(len(layout.offsets))]
            context.keep_only(units)
            first = units[0]
            if first.verify() and detect_kind(first.doc, path) == "eval":
                self.layout, self.units, self.kind = layout, units, "eval"
                self.stats["units"] = len(units)
                return
            cache.clear()
        self.kind = detect_kind(self.doc, path)

    @classmethod
    def after_edits(
        cls, previous: FileModel, text: str, edits: list[Any], opts: CheckOptions
    ) -> FileModel | None:
        """The model of `text` = `previous.text` after `edits`, reusing the units of the
        cases the edits did not touch (None: build it from the text)."""
        layout, cache = previous.layout, previous._cache
        if layout is None or not previous.units or cache is None or previous.opts is not opts or not edits:
            return None
        mentions = previous.mentions_directive
        if mentions or len(edits) != 1:
            mentions = "agentv-lsp:" in text
        else:  # a new `agentv-lsp:` overlaps the edit (a full scan of a 4 MB text costs 8 ms)
            start = edits[0].start
            mentions = "agentv-lsp:" in text[max(0, start - 10) : start + len(edits[0].text) + 10]
        if mentions and has_allow_directive(text):
            return None  # checked whole (see __init__)
        context = previous.units[0].context
        if cache.context is not context:
            return None
        followed = follow(layout, text, edits)
        if followed is None:
            return None
        new_layout, first, end, old_index = followed  # (old indices increase: see `follow`)
        old_count = len(previous.units)
        after = old_index[end] if end < len(old_index) else old_count
        # one run of cases replaced (what typing does): the others are the previous units as
        # they were, on both sides of it (taken by slices, not case by case)
        one_run = (first == 0 or old_index[first - 1] == first - 1) and len(
            old_index
        ) - end == old_count - after
        # (`follow` gives the re-scanned cases [first, end) old index -1, every other one its own)
        fresh = [context.unit(new_layout.chunk(i)) for i in range(first, end)]
        units = (
            [*previous.units[:first], *fresh, *previous.units[after:]]
            if one_run
            else [
                *(previous.units[old] for old in old_index[:first]),
                *fresh,
                *(previous.units[old] for old in old_index[end:]),
            ]
        )
        if first == 0 and not (units[0].verify() and detect_kind(units[0].doc, previous.path) == "eval"):
            return None
        if len(context.units) > 2 * len(units) + 64:
            context.keep_only(units)
        model = cls(previous.path, text, opts, cache, parts=(new_layout, units))
        model.mentions_directive = mentions
        if one_run and isinstance(previous._result, Assembled):
            # the next assembly starts from the previous one (only what it needs, not the
            # previous model: no chain of versions)
            model._follows = (previous._result, first, after, previous.units)
        return model

    @property
    def split(self) -> bool:
        return self.layout is not None

    @property
    def agentv(self) -> bool:
        """An AgentV file: declares an AgentV `$schema` (even a wrong one), or is
        `.agentv/config.yaml|targets.yaml`. Other YAML files get nothing from the server."""
        if not self.ours:
            return False
        if self.kind is not None or is_agentv_path(self.path):
            return True
        value = self.doc.value  # declares an AgentV schema AgentV does not know (a typo)
        schema = value.get("$schema") if isinstance(value, dict) else None
        return isinstance(schema, str) and schema.startswith("agentv-")

    def line(self, n: int) -> str:
        """The text of line `n` (without its line break)."""
        layout = self.layout
        if layout is None:
            with self._lock:
                if self._lines is None:
                    self._lines = self.text.split("\n")
            return self._lines[n] if 0 <= n < len(self._lines) else ""
        context = self.units[0].context
        if n < layout.lines[0]:
            return context.head_split[n] if n >= 0 else ""
        if n >= layout.tail_line:
            k = n - layout.tail_line
            return context.tail_split[k] if k < len(context.tail_split) else ""
        index = bisect.bisect_right(layout.lines, n) - 1
        return self.units[index].lines[n - layout.lines[index]]

    # -- the whole text ----------------------------------------------------------------------
    @property
    def doc(self) -> YamlDocument:
        """The whole text parsed (only computed when asked)."""
        with self._lock:
            if self._report is not None and self._report.doc is not None:
                return self._report.doc
            if self._doc is None:
                self._doc = parse_yaml(self.text)
            return self._doc

    @property
    def whole_ef(self) -> EvalFile | None:
        with self._lock:
            if self.kind != "eval":
                return None
            reported = eval_file_of(self._report) if self._report is not None else None
            if reported is not None:
                return reported
            if self._ef is None:
                o = self.opts
                self._ef = open_eval_file(
                    self.path, repo_root=o.repo_root, cwd=o.cwd, fs=o.fs, doc=self.doc, given_path=self.path
                )
            return self._ef

    def report(self) -> DocumentReport:
        """What `agentv-lsp check` reports for the whole text."""
        with self._lock:
            if self._report is None:
                self._report = check_document(self.path, self.text, self.opts)
            return self._report

    # -- suite-level questions ---------------------------------------------------------------
    @property
    def eval_file(self) -> EvalFile | None:
        """An EvalFile for suite-level questions (config in use, search roots, target)."""
        return self.units[0].ef if self.units else self.whole_ef

    @property
    def root_value(self) -> Any:
        return self.units[0].doc.value if self.units else self.doc.value

    # -- cases ---------------------------------------------------------------------------------
    def case_count(self) -> int:
        if self.layout is not None:
            return len(self.units)
        ef = self.whole_ef
        return len(ef.raw_cases) if ef is not None and ef.loaded else 0

    def case_lines(self) -> list[int]:
        """First line of each case (its `- ` line)."""
        if self.layout is not None:
            return self.layout.lines
        ef = self.whole_ef
        if ef is None or not ef.loaded:
            return []
        cases = ef.doc.node_at(("evalcases",))
        if not isinstance(cases, SequenceNode):
            return []
        return [item.start_mark.line for item in cases.value]

    def case_at(self, line: int) -> int | None:
        """The case whose block holds `line`: from its `- ` line down to the next case."""
        if self.layout is not None:
            return self.layout.case_at(line)
        lines = self.case_lines()
        if not lines or line < lines[0]:
            return None
        index = bisect.bisect_right(lines, line) - 1
        ef = self.whole_ef
        node = ef.doc.node_at(("evalcases", index)) if ef is not None else None
        if node is not None and index == len(lines) - 1:
            end = node.end_mark
            if line > (end.line if end.column > 0 else end.line - 1):
                return None  # below the last case: the tail
        return index

    def raw_case(self, index: int) -> Any:
        if self.layout is not None:
            return self.units[index].raw_case() if 0 <= index < len(self.units) else None
        ef = self.whole_ef
        ok = ef is not None and ef.loaded and 0 <= index < len(ef.raw_cases)
        return ef.raw_cases[index] if ok and ef is not None else None

    def case_outcome(self, index: int) -> tuple[EvalFile, CaseOutcome] | None:
        """The case as AgentV's loader sees it, with the EvalFile that loaded it (in split
        mode an EvalFile of this case alone: the outcome's index is then 0)."""
        if not 0 <= index < self.case_count():
            return None
        if self.layout is not None:
            unit = self.units[index]
            outcome = unit.outcome()
            return None if outcome is None else (unit.ef, outcome)
        ef = self.whole_ef
        if ef is None or not ef.loaded:
            return None
        with self._lock:
            outcome = self._outcomes.get(index)
            if outcome is None:
                outcome = self._outcomes[index] = load_case(ef, index)
        return ef, outcome

    def locate(self, line: int) -> Located:
        """The parsed document holding `line`, and the line in it."""
        layout = self.layout
        if layout is not None:
            index = layout.case_at(line)
            unit = self.units[index if index is not None else 0]
            if index is None or unit.verify():
                start = layout.lines[index if index is not None else 0]
                return Located(unit.doc, unit.to_unit_line(line, start, layout.tail_line), unit.ef, index)
        return Located(self.doc, line, self.whole_ef, None, whole=True)

    def file_span(self, span: Span, located: Located) -> Span:
        """A span of a located document in file lines."""
        layout = self.layout
        if layout is None or located.whole:
            return span
        index = located.case if located.case is not None else 0
        unit, start, tail = self.units[index], layout.lines[index], layout.tail_line
        local = located.case is not None
        return Span(
            unit.to_file_line(span.start_line, start, tail, local),
            span.start_col,
            unit.to_file_line(span.end_line, start, tail, local),
            span.end_col,
        )

    def case_docs(self) -> Iterator[tuple[int, Located, YamlPath]]:
        """(case index, where it is parsed, its path there) for every case."""
        layout = self.layout
        if layout is not None:
            for i, unit in enumerate(self.units):
                yield i, Located(unit.doc, 0, unit.ef, i), ("evalcases", 0)
            return
        located = Located(self.doc, 0, self.whole_ef, None, whole=True)
        for i in range(self.case_count()):
            yield i, located, ("evalcases", i)

    # -- diagnostics ---------------------------------------------------------------------------
    def diagnostics(self) -> list[Diagnostic]:
        """Exactly what `check_document` says about the whole text, in file lines."""
        return sorted(
            (d for piece in self.pieces() for d in piece.in_file(self.path)), key=Diagnostic.sort_key
        )

    def pieces(self) -> list[Piece]:
        """The diagnostics in pieces: in split mode one per case (in unit lines, so callers
        can cache conversions while only the case's position changes) and the file's own."""
        with self._lock:
            if self._pieces is None:
                found = self._computed()
                self._pieces = [Piece(found)] if isinstance(found, list) else self._pieces_of(found)
            return self._pieces

    def assembled(self) -> Assembled | None:
        """The diagnostics case by case (None: this version was checked as a whole text)."""
        found = self._computed()
        return found if isinstance(found, Assembled) else None

    def _computed(self) -> Assembled | list[Diagnostic]:
        with self._lock:
            if self._result is None:
                self._result = self._compute()
            return self._result

    def _compute(self) -> Assembled | list[Diagnostic]:
        layout = self.layout
        found = self._assemblable() if layout is not None else None
        if layout is not None and found is not None:
            return self._assemble(layout, found)
        report = self.report()
        diagnostics = [d for d in report.diagnostics if d.file == self.path]
        if layout is not None:
            self._seed(layout, report, diagnostics)
        return diagnostics

    def _pieces_of(self, assembled: Assembled) -> list[Piece]:
        layout = self.layout
        assert layout is not None
        lines, tail, refs, replaced = layout.lines, layout.tail_line, assembled.refs, assembled.replaced
        out = [
            Piece(replaced[index])
            if index in replaced
            else Piece(result.local, unit, index, lines[index], tail, refs)
            for index, (unit, result) in enumerate(zip(self.units, assembled.results, strict=True))
        ]
        out.append(Piece(assembled.header))
        return out

    # (the questions below look at every unit of a version through C-level maps: a Python loop
    # over 10,000 units per keystroke costs more than the one case an edit re-checks)
    def _assemblable(self) -> Assemblable | None:
        """Whether assembling this version from units is exact and cheap: then what assembling
        starts from (after one run of cases was replaced: from the previous assembly)."""
        follows, self._follows = self._follows, None
        if follows is not None:
            after = self._assemblable_after(*follows)
            if after is not None:
                return after
        units = self.units
        limit = max(8, FRESH_SHARE * len(units))
        verified = list(map(_VERIFIED, units))
        unverified = verified.count(None)
        if unverified > limit or False in verified:
            return None
        if not all(units[k].verify() for k in _positions(verified, None, unverified)):
            return None
        context = units[0].context
        if context.head_aliases or any(map(_ALIASES, units)):
            return None  # anchors and aliases: names, duplicates and counts span cases
        errors = self._validate_errors()
        refs = errors == 0
        found: list[UnitResult | None] = list(map(dict.get, map(_RESULTS, units), itertools.repeat(refs)))
        # (`is None` by C-level maps: a UnitResult compared with `==` would run its Python __eq__)
        if list(map(operator.is_, found, itertools.repeat(None))).count(True) > limit:
            return None
        return Assemblable(refs, found, errors, None, (0, len(found)))

    def _assemblable_after(
        self, previous: Assembled, first: int, after: int, previous_units: list[Unit]
    ) -> Assemblable | None:
        """`_assemblable` from the previous version's assembly, whose cases [first, after)
        were replaced by this version's [first, first + len(fresh)): the others were verified,
        had no aliases, and their validate errors and results are known."""
        units = self.units
        fresh = units[first : len(units) - (len(previous_units) - after)]
        if len(fresh) > max(8, FRESH_SHARE * len(units)):
            return None
        if not all(u.verify() for u in fresh):
            return None
        if units[0].context.head_aliases or any(u.aliases for u in fresh):
            return None
        removed = previous_units[first:after]
        errors = (
            previous.errors
            - sum(1 for u in removed if u.validate_error)
            + sum(1 for u in fresh if u.has_validate_error())
        )
        refs = errors == 0
        if refs != previous.refs:
            return None  # every case's file references are checked now, or no longer: all again
        found = [*previous.results[:first], *(u.results.get(refs) for u in fresh), *previous.results[after:]]
        return Assemblable(refs, found, errors, (previous, removed, fresh), (first, first + len(fresh)))

    def _validate_errors(self) -> int:
        """How many cases have an error `agentv validate` reports."""
        units = self.units
        errors = list(map(_VALIDATE_ERROR, units))
        for k in _positions(errors, None, errors.count(None)):
            errors[k] = units[k].has_validate_error()
        return errors.count(True)

    def file_references(self) -> bool:
        return self._validate_errors() == 0

    def _seed(self, layout: Layout, report: DocumentReport, diagnostics: list[Diagnostic]) -> None:
        """Hand each unit its share of a whole-text check, when the whole text parsed into
        exactly the cases the cut found."""
        doc = report.doc
        detail = v2_detail(report)
        if doc is None or doc.error is not None or detail is None or detail.outcomes is None:
            return
        ef = detail.eval_file
        if not ef.loaded:
            return
        cases = doc.node_at(("evalcases",))
        units = self.units
        if not isinstance(cases, SequenceNode) or len(cases.value) != len(units):
            return
        for i, item in enumerate(cases.value):
            end = layout.end_line(i)
            if not layout.lines[i] <= item.start_mark.line < end or item.end_mark.line > end:
                return
        findings = validate_eval(doc.value)
        head_error = any(f.severity == "error" and (f.path is None or len(f.path) < 2) for f in findings)
        case_errors = {f.path[1] for f in findings if f.severity == "error" and f.path and len(f.path) >= 2}
        refs = not any(f.severity == "error" for f in findings)
        by_case: dict[int, list[Diagnostic]] = {}
        header: list[Diagnostic] = []
        duplicated: set[int] = set()
        for d in diagnostics:
            p = d.yaml_path
            index = p[1] if len(p) >= 2 and p[0] == "evalcases" and isinstance(p[1], int) else None
            if index is None and layout.lines[0] <= d.span.start_line < layout.tail_line:
                index = layout.case_at(d.span.start_line)
            if d.code == "duplicate-case-id" and index is not None:
                duplicated.add(index)
            if index is None:
                header.append(d)
            else:
                by_case.setdefault(index, []).append(d)
        if any(d.yaml_path[:2] == _CASE_DEPENDENT_HEAD for d in header):
            return
        tail = layout.tail_line
        head_result = _split_result(
            header, self.path, layout.lines[0], layout.lines[0], tail, lambda i: False
        )
        head_lines = units[0].context.head_lines
        for i, unit in enumerate(units):
            raw = ef.raw_cases[i]
            raw_id = raw.get("id") if isinstance(raw, dict) else None
            span = doc.span_of(("evalcases", i, "id"))
            shift = head_lines - layout.lines[i]
            with unit._lock:
                if unit.id_info is None:
                    unit.id_info = (
                        raw_id,
                        Span(span.start_line + shift, span.start_col, span.end_line + shift, span.end_col),
                    )
                unit.verified = True
                unit.validate_error = head_error or i in case_errors
                if i in duplicated or refs in unit.results:
                    continue
                start, end = layout.lines[i], layout.end_line(i)
                own = _split_result(by_case.get(i, []), self.path, start, end, tail, lambda k, i=i: k == i)
                unit.results[refs] = UnitResult(
                    own.local, head_result.header, own.uses_tail or head_result.uses_tail
                )

    def _assemble(self, layout: Layout, start: Assemblable) -> Assembled:
        refs, found = start.refs, start.results
        units = self.units
        tail, lines = layout.tail_line, layout.lines
        # (after one run of cases was replaced only those can be unchecked)
        low, high = start.fresh
        missing = list(map(operator.is_, found[low:high], itertools.repeat(None)))
        checked = missing.count(True)
        for k in _positions(missing, True, checked):
            found[low + k] = units[low + k].result(refs)
        results = cast(list[UnitResult], found)
        self.stats["checked"] = checked
        header: list[Diagnostic] = []
        seen: set[tuple[str, YamlPath]] = set()
        headers = list(map(_HEADER, results))
        ids = list(map(id, headers))
        # each header list once, where it first comes (the cases seeded from one whole-text
        # check share one)
        first = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))
        for index in sorted(first.values()):
            new: list[tuple[str, YamlPath]] = []
            for d in headers[index]:
                ident = (d.code, d.yaml_path)
                if ident not in seen:
                    new.append(ident)
                    header.append(_to_file(d, index, lines[index], tail, self.path))
            seen.update(new)
        replaced: dict[int, list[Diagnostic]] = {}
        id_counts: dict[str, int] | None = None
        if units[0].ef.loaded:
            id_counts = self._id_counts(start)
            for dup in self._duplicates(layout, id_counts):
                dup_index = dup.yaml_path[1]
                assert isinstance(dup_index, int)
                local = results[dup_index].local
                here = [d for d in local if d.yaml_path == ("evalcases", 0, "id")]
                if here:  # one diagnostic per place: what the case says there joins the duplicate
                    for d in here:
                        if not d.code.startswith("schema-"):
                            dup = dataclasses.replace(
                                dup, message=f"{dup.message} — {d.message}", data={**d.data, **dup.data}
                            )
                    replaced[dup_index] = [
                        _to_file(d, dup_index, lines[dup_index], tail, self.path)
                        for d in local
                        if d not in here
                    ]
                header.append(dup)
        return Assembled(refs, results, replaced, header, start.errors, id_counts)

    def _id_counts(self, start: Assemblable) -> dict[str, int]:
        """How many cases use each id (a non-empty string); after one run of cases was
        replaced, the previous version's counts with the replaced ones taken out and put in."""
        follows = start.follows
        previous_counts = follows[0].ids if follows is not None else None
        if follows is not None and previous_counts is not None:
            _previous, removed, fresh = follows
            counts = dict(previous_counts)  # (a dict's own copy: a Counter copies key by key)
            for unit in removed:
                case_id = _valid_id(unit.case_id()[0])
                if case_id is not None:
                    counts[case_id] -= 1
                    if not counts[case_id]:
                        del counts[case_id]
            for unit in fresh:
                case_id = _valid_id(unit.case_id()[0])
                if case_id is not None:
                    counts[case_id] = counts.get(case_id, 0) + 1
            return counts
        units = self.units
        infos = list(map(_ID_INFO, units))
        for k in _positions(infos, None, infos.count(None)):
            infos[k] = units[k].case_id()
        return dict(Counter(case_id for info in infos if (case_id := _valid_id(info[0])) is not None))

    def _duplicates(self, layout: Layout, counts: dict[str, int]) -> list[Diagnostic]:
        """`duplicate-case-id` across units, worded as `formats.v2.losses.file_losses` does."""
        if len(counts) == sum(counts.values()):
            return []  # every id used once
        repeated = {case_id for case_id, n in counts.items() if n > 1}
        ids = [_valid_id(unit.case_id()[0]) for unit in self.units]
        first_ids: dict[str, int] = {}
        out: list[Diagnostic] = []

        def id_span(index: int) -> Span:
            unit = self.units[index]
            span = unit.case_id()[1]
            return Span(
                unit.to_file_line(span.start_line, layout.lines[index], layout.tail_line),
                span.start_col,
                unit.to_file_line(span.end_line, layout.lines[index], layout.tail_line),
                span.end_col,
            )

        for index, case_id in enumerate(ids):
            if case_id not in repeated:
                continue
            assert case_id is not None
            first = first_ids.setdefault(case_id, index)
            if first != index:
                out.append(
                    Diagnostic(
                        self.path,
                        id_span(index),
                        "warning",
                        "duplicate-case-id",
                        f"Duplicate case id '{case_id}' (first used by evalcases[{first}]). AgentV keeps "
                        "both cases; results and `--eval-id` filtering cannot tell them apart.",
                        ("evalcases", index, "id"),
                        {"id": case_id, "first": first},
                        (Related(self.path, id_span(first), "first use"),),
                    )
                )
        return out


@dataclass(frozen=True, slots=True)
class Assembled:
    """A version's diagnostics from its units: each case's (its unit's result for the
    file-reference pass `refs`, in unit lines) and the file's own (file lines)."""

    refs: bool
    results: list[UnitResult]  # per case
    replaced: dict[int, list[Diagnostic]]  # cases whose id is a duplicate: theirs in file lines
    header: list[Diagnostic]  # the file's own, `duplicate-case-id` included
    errors: int  # cases with an error `agentv validate` reports
    ids: dict[str, int] | None  # how many cases use each id (None: not counted, the file did not load)


@dataclass(frozen=True, slots=True)
class Assemblable:
    """What assembling a version starts from: the file-reference pass, each unit's result for
    it (None: to check), the cases with a validate error, and (assembled after one run of
    cases was replaced) the previous assembly with the units removed and added."""

    refs: bool
    results: list[UnitResult | None]
    errors: int
    follows: tuple[Assembled, list[Unit], list[Unit]] | None
    fresh: tuple[int, int]  # the units whose results may be missing: [first, end)


def _valid_id(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


_VERIFIED = operator.attrgetter("verified")
_ALIASES = operator.attrgetter("aliases")
_RESULTS = operator.attrgetter("results")
_VALIDATE_ERROR = operator.attrgetter("validate_error")
_ID_INFO = operator.attrgetter("id_info")
_HEADER = operator.attrgetter("header")


def _positions(values: list[Any], value: Any, count: int) -> Iterator[int]:
    """Where `value` is in `values` (`count` times there), found by C-level searches."""
    at = -1
    for _ in range(count):
        at = values.index(value, at + 1)
        yield at


def _to_file(d: Diagnostic, index: int, start: int, tail: int, path: str) -> Diagnostic:
    def line(n: int) -> int:
        if n >= TAIL_BASE:
            return n - TAIL_BASE + tail
        if n >= CHUNK_BASE:
            return n - CHUNK_BASE + start
        return n

    def move(span: Span) -> Span:
        return Span(line(span.start_line), span.start_col, line(span.end_line), span.end_col)

    yaml_path = d.yaml_path
    if len(yaml_path) >= 2 and yaml_path[0] == "evalcases" and yaml_path[1] == 0:
        yaml_path = ("evalcases", index, *yaml_path[2:])
    related = tuple(Related(r.file, move(r.span), r.message) if r.file == path else r for r in d.related)
    message = d.message
    if index and "evalcases[0]" in message and d.yaml_path is not yaml_path:
        message = message.replace("evalcases[0]", f"evalcases[{index}]")
    return dataclasses.replace(d, span=move(d.span), yaml_path=yaml_path, related=related, message=message)
