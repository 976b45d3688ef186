"""One version of one open document judged by AgentV 4.42.4.

Built by `EDITOR.build` (`editor.py`, in a worker thread) when `formats.runtime`
gives the document to 4.x, and shared by every request for that version. Each part is
computed at most once, when first asked, under the model's lock: the parsed text, the
suite as `load_suite` loads it from the unsaved text, the check report, the map from lines
to tests, and each test's preview. A 2,000-test file is therefore parsed and loaded once per
version, whatever the number of hovers, lenses and previews asked of it.
"""

from __future__ import annotations

import bisect
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from yaml.nodes import Node

from agentv_lsp.checks.options import CheckOptions, DocumentReport
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.formats.v4.model import SkippedTest, SuiteLoad, V4Test, YamlPath
from agentv_lsp.formats.v4.yamlmerge import read_yaml_v4
from agentv_lsp.yamlpos import Span, YamlDocument

V4Kind = Literal["eval", "config", "targets", "cases"]
_EVAL_SUFFIXES = (".eval.yaml", ".eval.yml")
_CASES_SUFFIXES = (".yaml", ".yml", ".jsonl")
_SCHEMA_KINDS: dict[str, V4Kind] = {
    "agentv-eval-v2": "eval",
    "agentv-targets-v2.2": "targets",
    "agentv-config-v2": "config",
}


def v4_kind_from_path(path: str) -> V4Kind | None:
    """What AgentV 4.x makes of a file by its name (`detectFileType` without a `$schema`)."""
    base = os.path.basename(path)
    if os.path.basename(os.path.dirname(path)) == ".agentv":
        if base in ("config.yaml", "config.yml"):
            return "config"
        if base in ("targets.yaml", "targets.yml"):
            return "targets"
    if base.lower().endswith(_EVAL_SUFFIXES):
        return "eval"
    return None


MAX_CASES_VERDICTS = 4096


class SharedCaches:
    """What the models of one editor share across versions, owned by `state.V4State` and
    handed to each model it builds (a model built alone gets caches of its own). They live
    here, not in `state.py`, because `state.py` sits above this module."""

    def __init__(self) -> None:
        # cases-file verdicts by (path, repo root, file system, generation); no lock: a
        # verdict computed twice by two workers is the same verdict
        self.used_as_tests: dict[tuple[str, str, int, int], bool] = {}
        # `units.unit_model`'s models by their text, least recently used first, at most
        # `units.MAX_UNITS` (worker threads add them)
        self.units_lock = threading.Lock()
        self.units: OrderedDict[tuple[object, ...], V4Model] = OrderedDict()

    def is_used_as_tests(self, path: str, opts: CheckOptions, generation: int) -> bool:
        """A cases file: an eval file in its folder or above names it in `tests:` (asked again
        when files change on disk)."""
        key = (path, opts.repo_root, id(opts.fs), generation)
        found = self.used_as_tests.get(key)
        if found is None:
            from agentv_lsp.formats.v4.check import find_eval_files_using

            if len(self.used_as_tests) > MAX_CASES_VERDICTS:
                self.used_as_tests.clear()
            found = self.used_as_tests[key] = bool(find_eval_files_using(path, opts.repo_root, opts.fs))
        return found

    def forget_path(self, path: str) -> None:
        """A document was closed: its cases-file verdicts go (asked again if it is reopened)."""
        for key in list(self.used_as_tests):  # a copy: worker threads may add meanwhile
            if key[0] == path:
                self.used_as_tests.pop(key, None)


@dataclass(slots=True)
class Entry:
    """One `tests` item written in this document: its lines and what the runtime made of it."""

    yaml_path: YamlPath
    start_line: int
    end_line: int  # inclusive: the last line that belongs to the item
    span: Span
    tests: list[V4Test] = field(default_factory=list)
    skipped: SkippedTest | None = None

    @property
    def id(self) -> str | None:
        if self.tests:
            return self.tests[0].id
        return self.skipped.id if self.skipped is not None else None


def attach_tests(
    suite: SuiteLoad, entry_for: Callable[[str, YamlPath], Entry | None], entries: dict[YamlPath, Entry]
) -> list[Entry]:
    """Give each entry the tests loaded from it (or, when none loaded, the test that was
    skipped there); `entry_for` fills `entries`. Sorted by where they start."""
    for test in suite.tests:
        entry = entry_for(test.source_file, test.yaml_path)
        if entry is not None:
            entry.tests.append(test)
    for skipped in suite.skipped:
        entry = entry_for(skipped.source_file, skipped.yaml_path)
        if entry is not None and not entry.tests:
            entry.skipped = skipped
    return sorted(entries.values(), key=lambda e: (e.start_line, e.span.start_col))


class V4Model:
    """What the editor features ask about one document version judged by 4.x."""

    runtime_major = 4

    def __init__(
        self,
        path: str,
        text: str,
        choice: RuntimeChoice,
        opts: CheckOptions,
        version: int | None = None,
        generation: int = 0,
        caches: SharedCaches | None = None,
    ) -> None:
        self.path = path
        self.caches = caches if caches is not None else SharedCaches()
        self.generation = generation  # the server's count of changes on disk when built
        self.text = text
        self.choice = choice
        self.opts = opts
        self.version = version
        self._lock = threading.Lock()  # guards `memo` and `_key_locks` only, never a computation
        self._key_locks: dict[Any, threading.RLock] = {}
        self._starts: list[int] = []
        self.memo: dict[Any, Any] = {}  # features' per-version results (see `memoized`)
        self.kind: V4Kind | None = v4_kind_from_path(path)
        if self.kind is None and "agentv-" in text:
            value = self.doc.value  # an AgentV `$schema` makes any YAML file one of ours
            schema = value.get("$schema") if isinstance(value, dict) else None
            self.kind = _SCHEMA_KINDS.get(schema) if isinstance(schema, str) else None
        if (
            self.kind is None
            and path.lower().endswith(_CASES_SUFFIXES)
            and self.caches.is_used_as_tests(path, opts, generation)
        ):
            self.kind = "cases"
        if self.kind is None and path.lower().endswith((".yaml", ".yml")):
            # other names 4.42.4 runs as eval files (`eval.yaml`, the project's `eval_patterns`)
            # or the user names (`agentv.evalFilePatterns`), as a folder walk of `check` takes them
            from agentv_lsp.formats.v4.discovery import walk_takes_as_eval

            if walk_takes_as_eval(path, opts.repo_root, opts.cwd, opts.fs, opts.eval_globs):
                self.kind = "eval"

    def memoized(self, key: Any, compute: Callable[[], Any]) -> Any:
        """A result for this version, computed once (`key` names it). Each key has its own
        lock: a hover never waits for the whole-text check, only for what it needs."""
        with self._lock:
            if key in self.memo:
                return self.memo[key]
            lock = self._key_locks.setdefault(key, threading.RLock())
        with lock:
            with self._lock:
                if key in self.memo:
                    return self.memo[key]
            value = compute()
            with self._lock:
                self.memo[key] = value
            return value

    # -- the text ------------------------------------------------------------------------------
    @property
    def agentv(self) -> bool:
        """An AgentV file for 4.x (an eval file, a settings file, or a cases file an eval file
        names): other YAML gets nothing."""
        return self.kind is not None

    @property
    def lines(self) -> list[str]:
        found: list[str] = self.memoized("lines", lambda: self.text.split("\n"))
        return found

    def line(self, n: int) -> str:
        lines = self.lines
        return lines[n].removesuffix("\r") if 0 <= n < len(lines) else ""

    @property
    def doc(self) -> YamlDocument:
        def parse() -> YamlDocument:
            report = self.memo.get("report")  # the whole-text check parsed this text already
            if isinstance(report, DocumentReport) and report.doc is not None and report.doc.text is self.text:
                return report.doc
            return read_yaml_v4(self.text)  # the check's reading: the same tree either way

        found: YamlDocument = self.memoized("doc", parse)
        return found

    @property
    def line_of(self) -> Callable[[int], str]:
        return self.line

    # -- the runtime's view ----------------------------------------------------------------------
    @property
    def suite(self) -> SuiteLoad | None:
        """`loadTests` on the unsaved text (eval files only)."""
        if self.kind != "eval":
            return None

        def load() -> SuiteLoad:
            from agentv_lsp.formats.v4.loader import load_suite

            o = self.opts
            return load_suite(self.path, o.repo_root, o.cwd, o.fs, text=self.text, doc=self.doc)

        found: SuiteLoad = self.memoized("suite", load)
        return found

    def report(self) -> DocumentReport:
        """What `agentv-lsp check --agentv 4` reports for the unsaved text."""

        def check() -> DocumentReport:
            from agentv_lsp.formats.v4.check import check_v4_document

            return check_v4_document(self.path, self.text, self.opts, as_eval=self.kind == "eval")

        found: DocumentReport = self.memoized("report", check)
        return found

    # -- tests by line ---------------------------------------------------------------------------
    def entries(self) -> list[Entry]:
        """The `tests` items of this document that the runtime loaded or skipped, by line."""

        def compute() -> list[Entry]:
            entries = self._compute_entries()
            self._starts = [e.start_line for e in entries]
            return entries

        found: list[Entry] = self.memoized("entries", compute)
        return found

    def _compute_entries(self) -> list[Entry]:
        suite = self.suite
        if suite is None:
            return []
        by_path: dict[YamlPath, Entry] = {}
        doc = self.doc
        for_path = os.path.normcase(os.path.abspath(self.path))

        def entry_for(source: str, yaml_path: YamlPath) -> Entry | None:
            if not yaml_path or os.path.normcase(source) != for_path:
                return None
            found = by_path.get(yaml_path)
            if found is None:
                node = doc.node_at(yaml_path)
                if node is None:
                    return None
                span = Span.of(node)
                found = by_path[yaml_path] = Entry(yaml_path, span.start_line, self._last_line(node), span)
            return found

        return attach_tests(suite, entry_for, by_path)

    def _last_line(self, node: Node) -> int:
        """The last line a block node occupies: its end mark may sit on the next item's line,
        before its `-` (or at column 0 of the line after)."""
        start, end = node.start_mark, node.end_mark
        line = int(end.line)
        if line > start.line and not self.line(line)[: end.column].strip(" \t-"):
            return line - 1
        return line

    def entry_at(self, line: int) -> Entry | None:
        """The `tests` item whose lines hold `line` (its `- ` line down to its last line)."""
        entries = self.entries()
        index = bisect.bisect_right(self._starts, line) - 1
        while index >= 0:
            entry = entries[index]
            if entry.start_line <= line <= entry.end_line:
                return entry
            if entry.end_line < line:
                return None
            index -= 1  # nested or same-line entries (flow style): try the one before
        return None

    def test_index(self, test: V4Test) -> int:
        """The position of a loaded test in `suite.tests` (-1: not one of them)."""
        suite = self.suite
        if suite is None:
            return -1
        positions: dict[int, int] = self.memoized(
            "positions", lambda: {id(t): i for i, t in enumerate(suite.tests)}
        )
        return positions.get(id(test), -1)

    def find_test(self, test_id: str) -> V4Test | None:
        """The first loaded test with this id (in this document or a cases file it names)."""
        suite = self.suite
        if suite is None:
            return None

        def first_by_id() -> dict[str, V4Test]:
            ids: dict[str, V4Test] = {}
            for test in suite.tests:
                ids.setdefault(test.id, test)
            return ids

        ids: dict[str, V4Test] = self.memoized("ids", first_by_id)
        return ids.get(test_id)


__all__ = ["Entry", "V4Kind", "V4Model", "v4_kind_from_path"]
