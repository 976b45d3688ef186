"""Two revisions' prompts side by side: per test its status, the fields that changed (each with a
unified diff), the files whose change reached it, and its token counts before and after."""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentv_lsp.diff.collect import FIELD_TITLES, FIELDS, FilePrompts, TestPrompts, field_text, test_tokens
from agentv_lsp.diff.entries import touched_entries
from agentv_lsp.diff.snapshot import Snapshot
from agentv_lsp.engine.tokens import TOKENIZER

if TYPE_CHECKING:
    from agentv_lsp.diff.causes import CauseFinder

# Load-state changes first, then prompt changes, then the rest.
STATUS_ORDER = (
    "now-error",
    "now-skipped",
    "no-longer-error",
    "no-longer-skipped",
    "changed",
    "added",
    "removed",
    "unchanged",
)
LOAD_STATES = frozenset(STATUS_ORDER[:4])


@dataclass
class FieldChange:
    name: str
    title: str
    before: str | None
    after: str | None
    diff: str  # unified diff, base -> head

    def as_json(self) -> dict[str, Any]:
        return {"field": self.name, "before": self.before, "after": self.after, "diff": self.diff}


@dataclass
class TestChange:
    file: str  # in the head revision (the base one for a removed file)
    base_file: str | None  # in the base revision when it had another name
    id: str
    status: str
    fields: list[FieldChange] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)
    tokens_before: dict[str, Any] | None = None
    tokens_after: dict[str, Any] | None = None
    note: str | None = None  # why it is skipped / the load error / what a migration changed
    lines_changed: int = 0
    json_text: str | None = None  # `as_json` as `render_json` prints it, once written (`json_text`)

    def json_text_at(self, depth: int) -> str:
        """`json_text(self.as_json(), depth)`; a test with no field, cause or count (most are
        unchanged) laid out from a template, 30 times faster than the indenting encoder."""
        if self.fields or self.causes or self.tokens_before is not None or self.tokens_after is not None:
            return json_text(self.as_json(), depth)
        pad = "\n" + "  " * depth

        def scalar(value: Any) -> str:
            return json.dumps(value, ensure_ascii=False)

        lines = [
            "{",
            f'  "file": {scalar(self.file)},',
            f'  "base_file": {scalar(self.base_file)},',
            f'  "id": {scalar(self.id)},',
            f'  "status": {scalar(self.status)},',
            '  "fields": [],',
            '  "causes": [],',
            '  "tokens": {',
            f'    "tokenizer": {scalar(TOKENIZER)},',
            '    "before": null,',
            '    "after": null',
            "  },",
            f'  "note": {scalar(self.note)}',
            "}",
        ]
        return pad.join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "base_file": self.base_file,
            "id": self.id,
            "status": self.status,
            "fields": [f.as_json() for f in self.fields],
            "causes": self.causes,
            "tokens": {
                "tokenizer": TOKENIZER,
                "before": _bare(self.tokens_before),
                "after": _bare(self.tokens_after),
            },
            "note": self.note,
        }


@dataclass
class FileChange:
    file: str
    base_file: str | None
    status: str  # added, removed, renamed, modified, unchanged
    runtime_before: str | None
    runtime_after: str | None
    counts: Counter[str] = field(default_factory=Counter)
    tokens_before: dict[str, int] = field(default_factory=lambda: {"candidate": 0, "grader": 0})
    tokens_after: dict[str, int] = field(default_factory=lambda: {"candidate": 0, "grader": 0})
    load_error_before: str | None = None
    load_error_after: str | None = None
    counted: bool = False  # some test's tokens were counted (else the sums above mean nothing)

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "base_file": self.base_file,
            "status": self.status,
            "runtime": {"before": self.runtime_before, "after": self.runtime_after},
            "tests": dict(sorted(self.counts.items())),
            "tokens": {"tokenizer": TOKENIZER, "before": self.tokens_before, "after": self.tokens_after},
            "load_error": {"before": self.load_error_before, "after": self.load_error_after},
        }


@dataclass
class DiffReport:
    base_label: str
    head_label: str
    tests: list[TestChange]
    files: list[FileChange]
    causes: list[tuple[str, int]]  # (a changed file, how many tests it reached), most first
    counted_all: bool = False  # token counts of every test (else of the tests that changed)
    not_previewed: list[str] = field(default_factory=list)  # eval files the change cannot reach
    cause_kinds: dict[str, str] = field(default_factory=dict)  # a cause: "changed", "added", "removed"

    def cause_kind(self, path: str) -> str:
        return self.cause_kinds.get(path, "changed")

    @property
    def prompts_changed(self) -> bool:
        return any(t.status != "unchanged" for t in self.tests)

    def summary(self) -> dict[str, Any]:
        counts = Counter(t.status for t in self.tests)
        before = {"candidate": 0, "grader": 0}
        after = {"candidate": 0, "grader": 0}
        for f in self.files:
            for k in before:
                before[k] += f.tokens_before[k]
                after[k] += f.tokens_after[k]
        return {
            "base": self.base_label,
            "head": self.head_label,
            "tests": {s: counts.get(s, 0) for s in STATUS_ORDER},
            "files": len(self.files),
            "files_with_changes": sum(1 for f in self.files if any(s != "unchanged" for s in f.counts)),
            "tokens": {
                "tokenizer": TOKENIZER,
                "of": "all tests" if self.counted_all else "the tests whose prompts changed",
                "before": before,
                "after": after,
            },
            "not_previewed": len(self.not_previewed),
            "causes": [
                {"file": path, "change": self.cause_kind(path), "tests": n} for path, n in self.causes
            ],
            "prompts_changed": self.prompts_changed,
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "tests": [t.as_json() for t in self.tests],
            "files": [f.as_json() for f in self.files],
            "summary": self.summary(),
        }


def _bare(tokens: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if tokens is None else {"candidate": tokens["candidate"], "grader": tokens["grader"]}


def field_diff(title: str, before: str | None, after: str | None, base_label: str, head_label: str) -> str:
    return "".join(
        difflib.unified_diff(
            _lines(before), _lines(after), f"{base_label}: {title}", f"{head_label}: {title}", lineterm="\n"
        )
    )


def _lines(text: str | None) -> list[str]:
    if text is None:
        return []
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"  # the last line compared like the others (no "\ No newline" noise)
    return lines


class _Changed:
    """Whether a repository file differs between the revisions (bytes compared, memoised)."""

    def __init__(self, base: Snapshot, head: Snapshot, shown_root: str) -> None:
        self.base, self.head = base, head
        self.known: dict[tuple[str, str], bool] = {}
        self.entries: dict[tuple[str, str], tuple[frozenset[str] | None, bool]] = {}
        self.shown_root = shown_root

    def shown(self, before: str | None, after: str | None) -> tuple[str | None, str | None]:
        """Two texts with the folders the revisions were laid out in named as the repository."""
        return self._shown(before, self.base.root), self._shown(after, self.head.root)

    def _shown(self, text: str | None, root: str) -> str | None:
        if text is None or root == self.shown_root or root not in text:
            return text
        return text.replace(root, self.shown_root)

    def entry_touched(self, before: str, after: str, test_id: str) -> bool:
        """Whether the edit of an eval file touched this test's entry or the suite-level part
        (lines outside every `- id:` entry); True when the entries cannot be told apart."""
        key = (before, after)
        found = self.entries.get(key)
        if found is None:
            found = self.entries[key] = touched_entries(
                (self.base.read_bytes(before) or b"").decode("utf-8", "replace"),
                (self.head.read_bytes(after) or b"").decode("utf-8", "replace"),
            )
        touched, suite_level = found
        return suite_level or touched is None or test_id in touched

    def __call__(self, before: str, after: str | None = None) -> bool:
        after = before if after is None else after
        key = (before, after)
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = self.base.read_bytes(before) != self.head.read_bytes(after)
        return found


MigrationNotes = Callable[[FilePrompts, FilePrompts], dict[str, str]]


def pair_files(
    before: list[str], after: list[str], renames: dict[str, str]
) -> list[tuple[str | None, str | None]]:
    """(base path, head path) of each eval file, a renamed file paired with its new name."""
    known_before, known_after = set(before), set(after)
    old_name = {
        new: old
        for old, new in renames.items()
        if old in known_before and new in known_after and new not in known_before
    }
    pairs: list[tuple[str | None, str | None]] = []
    for path in sorted(after):
        old = old_name.get(path, path if path in known_before else None)
        pairs.append((old, path))
    paired_old = {old for old, _ in pairs if old is not None}
    pairs.extend((old, None) for old in sorted(before) if old not in paired_old)
    return pairs


FileCompared = tuple["FileChange", list["TestChange"]]


def json_text(value: Any, depth: int) -> str:
    """`value` as `json.dumps(..., indent=2)` prints it `depth` levels down in a larger object
    (JSON strings hold no raw line break, so each line simply moves right)."""
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + "  " * depth)


def compare_pair(
    base: Snapshot,
    head: Snapshot,
    fb: FilePrompts | None,
    fa: FilePrompts | None,
    migration_notes: MigrationNotes | None = None,
    count_all: bool = False,
    shown_root: str | None = None,
    finder: CauseFinder | None = None,
) -> FileCompared | None:
    """One eval file's part of `compare` (run where it was previewed; None when it was not).
    `finder`: tells which of a test's changed inputs made a difference (else every changed
    input the test read is named)."""
    if fb is None and fa is None:
        return None
    changed = _Changed(base, head, shown_root or head.root)
    found = _compare_file(fb, fa, changed, base.label, head.label, migration_notes, count_all, finder)
    for test in found[1]:  # written here, in the processes that share the work out
        test.json_text = test.json_text_at(2)
    return found


def compare(
    base: Snapshot,
    head: Snapshot,
    before: dict[str, FilePrompts],
    after: dict[str, FilePrompts],
    pairs: list[tuple[str | None, str | None]],
    migration_notes: MigrationNotes | None = None,
    count_all: bool = False,
    not_previewed: list[str] | None = None,
    shown_root: str | None = None,
    compared: list[FileCompared | None] | None = None,
) -> DiffReport:
    """The report. `compared`: each pair's `compare_pair`, done already (then `before` and
    `after` are not read)."""
    changed = _Changed(base, head, shown_root or head.root)

    tests: list[TestChange] = []
    files: list[FileChange] = []
    cause_counts: Counter[str] = Counter()
    for index, (old, new) in enumerate(pairs):
        if compared is not None:
            found = compared[index]
        else:
            fb = before.get(old) if old is not None else None
            fa = after.get(new) if new is not None else None
            found = (
                None
                if fb is None and fa is None
                else _compare_file(fb, fa, changed, base.label, head.label, migration_notes, count_all)
            )
        if found is None:
            continue  # not previewed: the change cannot reach it
        file_change, file_tests = found
        files.append(file_change)
        tests.extend(file_tests)
        for t in file_tests:
            if t.status != "unchanged":
                cause_counts.update(c for c in t.causes if not c.startswith("runtime:"))
    order = {s: i for i, s in enumerate(STATUS_ORDER)}
    tests.sort(key=lambda t: (order.get(t.status, len(order)), t.file))  # stable: file order kept
    base_files, head_files = set(base.files), set(head.files)
    kinds = {
        path: "added" if path not in base_files else "removed" if path not in head_files else "changed"
        for t in tests
        for path in t.causes
    }
    return DiffReport(
        base.label,
        head.label,
        tests,
        files,
        cause_counts.most_common(),
        count_all,
        not_previewed or [],
        {path: kind for path, kind in kinds.items() if kind != "changed"},
    )


def _compare_file(
    fb: FilePrompts | None,
    fa: FilePrompts | None,
    changed: _Changed,
    base_label: str,
    head_label: str,
    migration_notes: MigrationNotes | None,
    count_all: bool,
    finder: CauseFinder | None = None,
) -> tuple[FileChange, list[TestChange]]:
    shown = (fa or fb).file  # type: ignore[union-attr]
    base_file = fb.file if fb is not None and fa is not None and fb.file != fa.file else None
    if fb is None:
        status = "added"
    elif fa is None:
        status = "removed"
    elif base_file is not None:
        status = "renamed"
    else:
        status = "modified" if changed(fb.file) else "unchanged"
    fc = FileChange(
        shown,
        base_file,
        status,
        fb.runtime if fb else None,
        fa.runtime if fa else None,
        load_error_before=fb.load_error if fb else None,
        load_error_after=fa.load_error if fa else None,
    )
    notes = (
        migration_notes(fb, fa)
        if migration_notes is not None
        and fb is not None
        and fa is not None
        and fb.runtime_major != fa.runtime_major
        else {}
    )
    shared_before = _shared(fb)
    shared_after = _shared(fa)
    keys = list(
        dict.fromkeys(
            [
                *(fb.tests if fb else {}),
                *(fb.skipped if fb else {}),
                *(fa.tests if fa else {}),
                *(fa.skipped if fa else {}),
            ]
        )
    )
    out: list[TestChange] = []
    for key in keys:
        tb = fb.tests.get(key) if fb else None
        ta = fa.tests.get(key) if fa else None
        either = ta or tb
        change = TestChange(shown, base_file, either.id if either else key.split("#")[0], "unchanged")
        change.status, change.note = _status(key, fb, fa, tb, ta)
        if tb is not None and ta is not None:
            for name in FIELDS:
                raw_x, raw_y = tb.fields.get(name), ta.fields.get(name)
                if raw_x == raw_y:
                    continue
                x, y = changed.shown(field_text(name, raw_x), field_text(name, raw_y))
                if x != y:
                    title = FIELD_TITLES[name]
                    change.fields.append(
                        FieldChange(name, title, x, y, field_diff(title, x, y, base_label, head_label))
                    )
            if change.fields:
                change.status = "changed"
        if change.status != "unchanged" or count_all:
            change.tokens_before = test_tokens(tb) if tb else None
            change.tokens_after = test_tokens(ta) if ta else None
        if change.status != "unchanged":
            if finder is not None and fb is not None and fa is not None:
                change.causes = _causes_that_mattered(
                    fb, fa, tb, ta, key, shared_before, shared_after, changed, finder
                )
            elif finder is not None:
                change.causes = [shown]  # an eval file added or removed: nothing else made it so
            else:
                change.causes = _causes(fb, fa, tb, ta, shared_before, shared_after, changed)
            change.lines_changed = sum(_changed_lines(f.diff) for f in change.fields) or 1
            if key in notes:
                change.note = notes[key] if change.note is None else f"{change.note}; {notes[key]}"
        fc.counts[change.status] += 1
        for side, tokens in (
            (fc.tokens_before, change.tokens_before),
            (fc.tokens_after, change.tokens_after),
        ):
            if tokens is not None:
                fc.counted = True
                side["candidate"] += tokens["candidate"]
                side["grader"] += tokens["grader"] or 0
        out.append(change)
    return fc, out


def _status(
    key: str, fb: FilePrompts | None, fa: FilePrompts | None, tb: TestPrompts | None, ta: TestPrompts | None
) -> tuple[str, str | None]:
    if tb is not None and ta is not None:
        return "unchanged", None
    if tb is not None:  # loaded before, not now
        if fa is None:
            return "removed", "its eval file is gone"
        if fa.load_error is not None:
            return "now-error", fa.load_error
        if key in fa.skipped:
            return "now-skipped", fa.skipped[key]
        return "removed", None
    if ta is not None:
        if fb is not None and fb.load_error is not None:
            return "no-longer-error", fb.load_error
        if fb is not None and key in fb.skipped:
            return "no-longer-skipped", fb.skipped[key]
        return "added", None
    # skipped on both sides, or on one side and absent on the other: no prompt either way
    return "unchanged", (fa.skipped.get(key) if fa else None) or (fb.skipped.get(key) if fb else None)


def _shared(fp: FilePrompts | None) -> set[str]:
    """The files an eval file read for all its tests (not one test's inlined file)."""
    if fp is None:
        return set()
    own = {f for t in fp.tests.values() for f in t.own_files}
    return fp.used_files - own


def _causes(
    fb: FilePrompts | None,
    fa: FilePrompts | None,
    tb: TestPrompts | None,
    ta: TestPrompts | None,
    shared_before: set[str],
    shared_after: set[str],
    changed: _Changed,
) -> list[str]:
    causes: list[str] = []
    eval_changed = False
    if fb is not None and fa is not None:
        if changed(fb.file, fa.file):
            eval_changed = True
            either = ta or tb
            test_id = either.id if either is not None else ""
            if changed.entry_touched(fb.file, fa.file, test_id):
                causes.append(fa.file)
        if fb.runtime != fa.runtime:
            causes.append(f"runtime: AgentV {fb.runtime} -> {fa.runtime} ({fa.runtime_reason})")
    elif fa is not None:
        causes.append(fa.file)
    elif fb is not None:
        causes.append(fb.file)
    evals = {fb.file if fb else None, fa.file if fa else None}
    candidates = set(tb.own_files if tb else ()) | set(ta.own_files if ta else ())
    candidates |= shared_before | shared_after
    for path in sorted(candidates - evals):
        if changed(path):
            causes.append(path)
    if eval_changed and fa is not None and fa.file not in causes and not causes:
        causes.insert(0, fa.file)  # nothing else changed: the eval file it is, wherever the edit was
    return causes


def _causes_that_mattered(
    fb: FilePrompts,
    fa: FilePrompts,
    tb: TestPrompts | None,
    ta: TestPrompts | None,
    key: str,
    shared_before: set[str],
    shared_after: set[str],
    changed: _Changed,
    finder: CauseFinder,
) -> list[str]:
    """The test's changed inputs (the eval file, inlined files, files read for the whole eval
    file) whose change alone made a difference to it (`causes.CauseFinder`); one changed input is
    the cause without asking. If none did alone (changes that only matter together), all are."""
    eval_changed = changed(fb.file, fa.file)
    either = ta or tb
    read = set(tb.own_files if tb else ()) | set(ta.own_files if ta else ()) | shared_before | shared_after
    others = [path for path in sorted(read - {fb.file, fa.file}) if changed(path)]
    # Beside other changed inputs, an edit of other entries only (no anchor it could share) leaves
    # this test's text as it was: undoing it changes nothing, so it is no cause (what a preview
    # would say, without one). Alone, the eval file is the cause: no need to tell.
    inputs: list[str] = (
        [fa.file]
        if eval_changed
        and not (others and _edit_elsewhere(changed, fb.file, fa.file, either.id if either else key))
        else []
    )
    inputs += others
    named = inputs
    if len(inputs) > 1:
        named = [path for path in inputs if finder.made_a_difference(fb, fa, key, path)] or inputs
    if not named and eval_changed:
        named = [fa.file]  # nothing it read changed but its eval file: that it is
    if fb.runtime != fa.runtime:
        named.insert(
            1 if named[:1] == [fa.file] else 0,
            f"runtime: AgentV {fb.runtime} -> {fa.runtime} ({fa.runtime_reason})",
        )
    return named


# An anchor or alias (`&name`, `*name`): one entry's text can then reach another's.
_ANCHOR = re.compile(r"(?:^|[\s\[{,:])[&*][^\s,\[\]{}]", re.M)


def _edit_elsewhere(changed: _Changed, before: str, after: str, test_id: str) -> bool:
    """Whether an eval file's edit left this test's `- id:` entry and the suite level alone,
    in a text with no anchor (so no other entry's text can reach this one)."""
    if changed.entry_touched(before, after, test_id):
        return False
    texts = (changed.base.read_bytes(before) or b"", changed.head.read_bytes(after) or b"")
    return not any(_ANCHOR.search(t.decode("utf-8", "replace")) for t in texts)


def _changed_lines(diff: str) -> int:
    return sum(1 for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))
