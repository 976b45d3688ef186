"""Every test's prompts in one revision: each eval file previewed by the runtime that judges it.

The preview objects of both formats become the same flat record per test: named fields of
text (`FIELDS`), token counts, and the files that reached it. Which files reached a test is
recorded while previewing (a `FileSystem` that notes every file read or found): the test's own
inlined files (`file_paths`, v2 `guideline_paths`), and the files its eval file read for all its
tests (config, grader templates, cases files, the eval file itself).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from agentv_lsp.diff.entries import entry_ids, touched_entries
from agentv_lsp.diff.snapshot import Snapshot
from agentv_lsp.engine import tokens
from agentv_lsp.engine.files import FileSystem, FileText
from agentv_lsp.engine.jsrt import relative_display
from agentv_lsp.formats import registry
from agentv_lsp.formats.protocol import DiffHooks, Format
from agentv_lsp.formats.runtime import Requested, RuntimeChoice, choose_runtime

# The fields compared, in the order they are shown.
FIELDS = (
    "criteria",
    "lm.systemMessage",
    "lm.guidelines",
    "lm.question",
    "lm.chatPrompt",
    "agent.systemMessage",
    "agent.guidelines",
    "agent.question",
    "agent.chatPrompt",
    "expected_output",
    "reference_answer",
    "grader_prompt",
    "assertions",
)
FIELD_TITLES = {
    "criteria": "criteria",
    "lm.systemMessage": "systemMessage (LM)",
    "lm.guidelines": "guidelines (LM)",
    "lm.question": "question (LM)",
    "lm.chatPrompt": "chatPrompt (LM)",
    "agent.systemMessage": "systemMessage (agent)",
    "agent.guidelines": "guidelines (agent)",
    "agent.question": "question (agent)",
    "agent.chatPrompt": "chatPrompt (agent)",
    "expected_output": "expected_output",
    "reference_answer": "reference answer",
    "grader_prompt": "grader prompt",
    "assertions": "assertions",
}
_HEAD_BYTES = 1 << 20


@dataclass
class TestPrompts:
    file: str  # the eval file, repo-relative
    id: str
    fields: dict[str, Any]  # raw values (strings, JSON-like data); `field_text` shows one
    own_files: tuple[str, ...]  # files inlined into this test only (repo-relative)
    tokens: dict[str, Any] | None = None  # `test_tokens`, once counted


@dataclass
class FilePrompts:
    file: str
    runtime: str  # "4.42.4", "2 (agentv-eval-v2)"
    runtime_major: int
    runtime_reason: str
    load_error: str | None
    tests: dict[str, TestPrompts]  # by test key (id, "id#2" for a repeated id)
    skipped: dict[str, str]  # test key -> the runtime's reason
    warnings: list[str]
    used_files: set[str] = field(default_factory=set)  # every repo file this eval file read


class RecordingFileSystem(FileSystem):
    """A FileSystem that notes every path read, and every path found to exist."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.touched: set[str] = set()
        self.lately: set[str] = set()  # touched since the caller last emptied it (one test's reads)

    def _note(self, path: str) -> None:
        self.touched.add(path)
        self.lately.add(path)

    def exists(self, path: str) -> bool:
        found = super().exists(path)
        if found:
            self._note(path)
        return found

    def read(self, path: str) -> FileText:
        self._note(path)
        return super().read(path)

    def read_document(self, path: str) -> str:
        self._note(path)
        return super().read_document(path)


def eval_files(snapshot: Snapshot, wanted: Callable[[str], bool], requested: Requested) -> list[str]:
    """The eval files of a revision (repo-relative), as a folder walk of each runtime finds them
    (`Format.eval_name`, `Format.declares_eval`): 4.x `*.eval.yaml|yml`, v2 YAML declaring
    `agentv-eval-v2` or `evalcases` and judged by v2; `node_modules` and dot-folders skipped as
    AgentV skips them."""
    found = []
    formats = registry.formats()
    for relative in snapshot.files:
        lower = relative.lower()
        if not lower.endswith((".yaml", ".yml")) or not wanted(relative):
            continue
        parts = relative.split("/")
        if any(p == "node_modules" or p.startswith(".") for p in parts[:-1]):
            continue
        if any(fmt.eval_name(lower) for fmt in formats):
            found.append(relative)
            continue
        head = _head(snapshot, relative)
        declared = {fmt.name for fmt in formats if head is not None and fmt.declares_eval(head)}
        if not declared:
            continue
        choice = choose_runtime(
            snapshot.path_of(relative), head, snapshot.root, requested, snapshot.runtime_file_system()
        )
        if choice.name in declared:
            found.append(relative)
    return found


def _head(snapshot: Snapshot, relative: str) -> str | None:
    data = snapshot.read_bytes(relative, _HEAD_BYTES)
    return None if data is None else data.decode("utf-8", "replace")


def collect_file(
    snapshot: Snapshot,
    relative: str,
    requested: Requested,
    shown_root: str,
    cwd: str,
    overlays: dict[str, str] | None = None,
) -> FilePrompts:
    """One eval file's tests. `shown_root`: the folder absolute paths in prompts are shown under
    (the user's repository, whichever folder the revision was laid out in)."""
    return _collect(snapshot, relative, requested, shown_root, cwd, overlays)[0]


@dataclass
class _Reads:
    """What previewing one revision of an eval file read (repo-relative paths): while loading,
    and while building each test's prompts (grader templates), by test key."""

    loading: set[str]
    by_test: dict[str, set[str]]
    # tests not built at all: their inputs are the same bytes in both revisions (`_Unbuilt`)
    unbuilt: set[str] = field(default_factory=set)
    edited: frozenset[str] | None = None  # ids of the entries an edit touched; None: none can be told
    loaded: bool = False  # the format said when it had loaded the file (`DiffHooks.loaded`)


# A test of the other revision whose prompts are known: previewing it again is skipped.
Known = Callable[[str], "TestPrompts | None"]


def _collect(
    snapshot: Snapshot,
    relative: str,
    requested: Requested,
    shown_root: str,
    cwd: str,
    overlays: dict[str, str] | None = None,
    known: Known | None = None,
    choice: RuntimeChoice | None = None,
    parses: dict[str, Any] | None = None,
    caches: dict[str, Any] | None = None,
    unbuilt: _Unbuilt | None = None,
) -> tuple[FilePrompts, _Reads]:
    """`collect_file`, and what it read. `known(key)`: a test's prompts as the other revision has
    them when they cannot differ (its preview is skipped; 4.x only, v2 previews every test).
    `parses`: the YAML documents of eval-file texts already parsed (by text), shared by the two
    revisions of one file when its text is the same (4.x). `caches`: the file system's caches
    (what exists, file texts) shared by the eval files of one revision in one process.
    `unbuilt`: decides which tests need no prompts at all (4.x)."""
    path = snapshot.path_of(relative)
    if choice is None:
        choice = _choice(snapshot, relative, requested, overlays)
    fs = RecordingFileSystem(
        allowed_roots=snapshot.allowed_roots or (snapshot.root,),
        overlays=dict(overlays or {}),
        source=snapshot.source,
        **(caches or {}),
    )
    reads = _Reads(set(), {})
    run_cwd = _cwd_in(snapshot, cwd, shown_root)
    reused: dict[str, TestPrompts] = {}
    fmt = choice.format
    hooks = _diff_hooks(
        snapshot,
        path,
        fs,
        reads,
        known,
        reused,
        parses,
        unbuilt.bind(choice) if unbuilt is not None else None,
    )
    result, skipped = fmt.tests_for_diff(path, snapshot.root, run_cwd, fs, hooks)
    if not reads.loaded:
        reads.loading = _relative_set(fs.touched, snapshot.root)  # the format builds all at once
    # Absolute paths name the folder the revision was laid out in: the messages are shown under
    # the user's repository here, the prompts when compared (`compare`, only where they differ).
    moved = snapshot.root != shown_root

    def shown(text: str) -> str:
        return text.replace(snapshot.root, shown_root) if moved else text

    used = _relative_set(fs.touched, snapshot.root)
    used.update(_runtime_manifests(snapshot, relative, choice))
    prompts = FilePrompts(
        file=relative,
        runtime=choice.version,
        runtime_major=choice.major,
        runtime_reason=choice.reason,
        load_error=shown(result["load_error"]) if result.get("load_error") else None,
        tests={},
        skipped={},
        warnings=[shown(str(w)) for w in result.get("warnings", [])],
        used_files=used,
    )
    seen: dict[str, int] = {}
    for case in result.get("cases", []):
        key = _key(case.get("id"), seen)
        if key in reused:
            prompts.tests[key] = reused[key]
            prompts.used_files.update(reused[key].own_files)
            continue
        prompts.tests[key] = TestPrompts(
            file=relative,
            id=str(case.get("id")),
            fields=_fields(case, fmt),
            own_files=tuple(dict.fromkeys([*case.get("file_paths", ()), *case.get("guideline_paths", ())])),
        )
    for test_id, reason in skipped:
        prompts.skipped[_key(test_id, seen)] = shown(reason)
    return prompts, reads


def _choice(
    snapshot: Snapshot, relative: str, requested: Requested, overlays: dict[str, str] | None = None
) -> RuntimeChoice:
    path = snapshot.path_of(relative)
    head = (overlays or {}).get(path)
    return choose_runtime(
        path,
        head[:_HEAD_BYTES] if head is not None else _head(snapshot, relative),
        snapshot.root,
        requested,
        snapshot.runtime_file_system(),
    )


def _relative_set(paths: set[str], root: str) -> set[str]:
    found = {_relative(p, root) for p in paths}
    return {f for f in found if f is not None}


def _key(test_id: object, seen: dict[str, int]) -> str:
    base = str(test_id) if test_id is not None else "(no id)"
    seen[base] = seen.get(base, 0) + 1
    return base if seen[base] == 1 else f"{base}#{seen[base]}"


def _cwd_in(snapshot: Snapshot, cwd: str, shown_root: str) -> str:
    """The working directory as the revision's folder holds it (AgentV searches it for files)."""
    rel = os.path.relpath(cwd, shown_root)
    if rel == os.curdir or rel.startswith(os.pardir):
        return snapshot.root
    return os.path.join(snapshot.root, rel)


def _relative(path: str, root: str) -> str | None:
    rel = os.path.relpath(path, root)
    if rel.startswith(os.pardir) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


def _runtime_manifests(snapshot: Snapshot, relative: str, choice: RuntimeChoice) -> set[str]:
    """The package.json files that decided the runtime (a change there can switch formats)."""
    if "package.json" not in choice.reason and "node_modules" not in choice.reason:
        return set()
    found = set()
    parts = relative.split("/")[:-1]
    for depth in range(len(parts), -1, -1):
        candidate = "/".join([*parts[:depth], "package.json"])
        if snapshot.is_file(candidate):
            found.add(candidate)
    return found


# ---- what a format's preview tells `diff` while it builds one revision's tests ----


def _diff_hooks(
    snapshot: Snapshot,
    path: str,
    fs: RecordingFileSystem,
    reads: _Reads,
    known: Known | None,
    reused: dict[str, TestPrompts],
    parses: dict[str, Any] | None = None,
    unbuilt: Callable[[Any, _Reads], None] | None = None,
) -> DiffHooks:
    """While a format previews test by test (`Format.tests_for_diff`): the files each test's
    prompts read are noted, and a test whose prompts the other revision already holds (`known`)
    is not built again, nor one `unbuilt` puts in `reads.unbuilt` (it stands for itself with no
    fields: the same in both revisions)."""
    relative = _relative(path, snapshot.root) or path
    seen: dict[str, int] = {}
    state = {"root": snapshot.root, "key": ""}  # the suite's repo root, the test being built

    def loaded(suite: Any) -> None:
        state["root"] = suite.repo_root
        reads.loaded = True
        reads.loading = _relative_set(fs.touched, snapshot.root)
        if unbuilt is not None:
            unbuilt(suite, reads)

    def reuse(test: Any) -> bool:
        key = _key(test.id, seen)
        if key in reads.unbuilt:
            own = (relative_display(p, state["root"]) for p in test.file_paths)
            reused[key] = TestPrompts(relative, str(test.id), {}, tuple(dict.fromkeys(own)))
            return True
        found = known(key) if known is not None else None
        if found is not None and found.id == str(test.id):
            reused[key] = found
            return True
        fs.lately = set()
        state["key"] = key
        return False

    def built() -> None:
        reads.by_test[state["key"]] = _relative_set(fs.lately, snapshot.root)

    return DiffHooks(parses=parses, loaded=loaded, reuse=reuse, built=built)


def test_tokens(prompts: TestPrompts) -> dict[str, Any]:
    """The token counts of a test (`tokens.case_tokens` of the preview case its fields came from)."""
    if prompts.tokens is not None:
        return prompts.tokens
    f = prompts.fields
    case = {
        "lm": {
            "chatPrompt": f.get("lm.chatPrompt"),
            "systemMessage": f.get("lm.systemMessage"),
            "guidelines": f.get("lm.guidelines"),
            "question": f.get("lm.question"),
        },
        "judge_prompt": f.get("grader_prompt"),
    }
    prompts.tokens = tokens.case_tokens(case)
    return prompts.tokens


def _fields(case: dict[str, Any], fmt: Format) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, source in fmt.diff_fields.items():
        _put(out, name, source(case))
    for mode in ("lm", "agent"):
        block = case.get(mode) or {}
        _put(out, f"{mode}.systemMessage", block.get("systemMessage"))
        _put(out, f"{mode}.guidelines", block.get("guidelines") or None)
        _put(out, f"{mode}.question", block.get("question"))
        _put(out, f"{mode}.chatPrompt", block.get("chatPrompt"))
    _put(out, "reference_answer", case.get("reference_answer"))
    _put(out, "grader_prompt", case.get("judge_prompt"))
    return {name: out[name] for name in FIELDS if name in out}


def _put(out: dict[str, Any], name: str, value: Any) -> None:
    if value is not None:
        out[name] = value


def field_text(name: str, value: Any) -> str | None:
    """A field's value as the text compared line by line (chatPrompt: each message under its role)."""
    if value is None or isinstance(value, str):
        return value
    if name.endswith(".chatPrompt"):
        return _chat_text(value)
    if name == "grader_prompt" and isinstance(value, dict):
        system, question = value.get("systemPrompt"), value.get("question") or ""
        return f"[system]\n{system}\n[user]\n{question}" if system else str(question)
    return json.dumps(value, ensure_ascii=False, indent=2)


def _chat_text(chat: Any) -> str | None:
    """A chatPrompt as text: each message under its role, content lists as JSON."""
    if not isinstance(chat, list):
        return None
    parts = []
    for message in chat:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=2)
        parts.append(f"[{message.get('role')}]\n{text}")
    return "\n".join(parts)


Pair = tuple[str | None, str | None]  # an eval file's path in the base and in the head revision


def collect_pairs(
    base: Snapshot,
    head: Snapshot,
    pairs: list[Pair],
    requested: Requested,
    shown_root: str,
    cwd: str,
    map_jobs: Callable[
        [Callable[[Pair], tuple[FilePrompts | None, FilePrompts | None]], list[Pair]], list[Any]
    ]
    | None = None,
    changed: set[str] | None = None,
    count_all: bool = False,
) -> tuple[dict[str, FilePrompts], dict[str, FilePrompts]]:
    """Both sides of each pair (`pair_collector`), by file."""
    one = pair_collector(base, head, requested, shown_root, cwd, changed, count_all)
    results = map_jobs(one, pairs) if map_jobs is not None else [one(p) for p in pairs]
    before_files = {b.file: b for b, _ in results if b is not None}
    after_files = {a.file: a for _, a in results if a is not None}
    return before_files, after_files


def pair_collector(
    base: Snapshot,
    head: Snapshot,
    requested: Requested,
    shown_root: str,
    cwd: str,
    changed: set[str] | None = None,
    count_all: bool = False,
) -> Callable[[Pair], tuple[FilePrompts | None, FilePrompts | None]]:
    """The job that collects both sides of a pair, in one process (a prompt unchanged between
    the revisions is counted once). `changed`: the paths whose bytes differ between the
    revisions when that is all that differs (no path added or removed, both sides commits),
    else None; with it a test that cannot have changed is built in one revision or neither
    (`_Unbuilt`, `_known_tests`). The token counts `compare` shows are counted here."""
    # A snippet inlined by many eval files is read (and its path checked) once per revision and
    # process: the revisions are laid out read-only, or are the working tree read at one moment.
    base_caches, head_caches = _fs_caches(), _fs_caches()

    def one(pair: Pair) -> tuple[FilePrompts | None, FilePrompts | None]:
        old, new = pair
        after = reads = None
        parses: dict[str, Any] = {}  # an eval file whose text is the same is parsed once
        choice = _choice(base, old, requested) if old is not None else None
        unbuilt = None
        if changed is not None and old == new and new is not None and choice is not None:
            unbuilt = _Unbuilt(base, head, new, changed, choice, count_all)
        if new is not None:
            after, reads = _collect(
                head, new, requested, shown_root, cwd, parses=parses, caches=head_caches, unbuilt=unbuilt
            )
        before = None
        if old is not None:
            known: Known | None = None
            if unbuilt is not None and after is not None and reads is not None:
                before = _same_file(after, changed or set(), choice)  # type: ignore[arg-type]
                if before is None:
                    known = _known_tests(after, reads, changed or set())
            if before is None:
                before, _ = _collect(
                    base,
                    old,
                    requested,
                    shown_root,
                    cwd,
                    known=known,
                    choice=choice,
                    parses=parses,
                    caches=base_caches,
                )
            if after is not None and reads is not None:
                for key, test in before.tests.items():
                    if after.tests.get(key) is test:  # reused: what building it read, as in head
                        before.used_files |= reads.by_test.get(key, set())
        _count_tokens(before, after, count_all)
        return before, after

    return one


def _same_file(after: FilePrompts, changed: set[str], choice: RuntimeChoice) -> FilePrompts | None:
    """The base revision of an eval file when it reads the same bytes as the head one: the eval
    file and every file its preview read (or found, or that chose its runtime) unchanged, and the
    same runtime. The messages are the same too, being shown under the repository's folder."""
    if (
        after.file in changed
        or after.used_files & changed
        or (choice.major, choice.version, choice.reason)
        != (after.runtime_major, after.runtime, after.runtime_reason)
    ):
        return None
    # fresh containers: the caller adds to the copy's used_files
    return replace(
        after,
        tests=dict(after.tests),
        skipped=dict(after.skipped),
        warnings=list(after.warnings),
        used_files=set(after.used_files),
    )


def _fs_caches() -> dict[str, Any]:
    """The caches of a `FileSystem`, to be shared by several (keyword arguments)."""
    return {"_exists": {}, "_texts": {}, "_blocked": set(), "_loops": set()}


@dataclass
class _Unbuilt:
    """Which tests of an eval file (the same path in both revisions) read the same bytes in both,
    decided from the head revision's loaded suite before any prompt is built: the same runtime,
    the suite-level part of the eval file and every file read while loading it unchanged
    (configs, cases files), and for the test its entry, its inlined files and the grader prompt
    files it names unchanged (the only files building a 4.x prompt reads, `formats.v4.judge`).
    Such a test is not built in either revision (`build_all`: it is built once, in head)."""

    base: Snapshot
    head: Snapshot
    relative: str
    changed: set[str]
    base_choice: RuntimeChoice
    build_all: bool

    def bind(self, choice: RuntimeChoice) -> Callable[[Any, _Reads], None]:
        def decide(suite: Any, reads: _Reads) -> None:
            reads.edited = self._edited(suite, reads, choice)
            if reads.edited is None or self.build_all:
                return
            seen: dict[str, int] = {}
            for test in suite.tests:
                key = _key(test.id, seen)
                if self._same_inputs(test, reads.edited, suite.repo_root):
                    reads.unbuilt.add(key)

        return decide

    def _edited(self, suite: Any, reads: _Reads, choice: RuntimeChoice) -> frozenset[str] | None:
        if suite.load_error is not None or (choice.major, choice.version, choice.reason) != (
            self.base_choice.major,
            self.base_choice.version,
            self.base_choice.reason,
        ):
            return None
        own = {f for test in suite.tests for f in self._own(test, suite.repo_root)}
        if (reads.loading - own - {self.relative}) & self.changed:
            return None
        if self.relative not in self.changed:
            return frozenset()
        old_text = (self.base.read_bytes(self.relative) or b"").decode("utf-8", "replace")
        new_text = (self.head.read_bytes(self.relative) or b"").decode("utf-8", "replace")
        # The edit is told apart by `- id:` entries: only when each loaded test is one of them,
        # in the same order on both sides (an id written below another key, or an entry of a
        # nested list, would blur which test an edited line belongs to).
        ids = entry_ids(new_text)
        if (
            ids is None
            or ids != entry_ids(old_text)
            or len(ids) != len(suite.tests) + len(suite.skipped)
            or not {str(t.id) for t in suite.tests} <= set(ids)
        ):
            return None
        touched, suite_level = touched_entries(old_text, new_text)
        return None if touched is None or suite_level else touched

    def _own(self, test: Any, root: str) -> set[str]:
        return {_relative(p, root) or p for p in test.file_paths}

    def _same_inputs(self, test: Any, edited: frozenset[str], root: str) -> bool:
        if str(test.id) in edited or self._own(test, root) & self.changed:
            return False
        for prompt_path in _prompt_paths(test.assertions):
            relative = _relative(prompt_path, root) if os.path.isabs(prompt_path) else None
            if relative is None or relative in self.changed:
                return False
        return True


def _prompt_paths(value: Any) -> list[str]:
    """Every `promptPath` / `resolvedPromptPath` in a test's grader configs, however nested."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for name, inner in item.items():
                if name in ("promptPath", "resolvedPromptPath") and isinstance(inner, str):
                    found.append(inner)
                else:
                    stack.append(inner)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def _known_tests(after: FilePrompts, reads: _Reads, changed: set[str]) -> Known | None:
    """The head revision's tests the base revision can take as they are (their prompts are the
    same): those `_Unbuilt` found, and those whose inputs it judged the same once built (the
    files their prompts read, noted while building, unchanged). None when no test can be told."""
    if reads.edited is None:
        return None
    edited = reads.edited

    def known(key: str) -> TestPrompts | None:
        test = after.tests.get(key)
        if test is None:
            return None
        if key in reads.unbuilt:
            return test
        if test.id in edited or key not in reads.by_test:
            return None
        if changed.intersection(test.own_files) or reads.by_test[key] & changed:
            return None
        return test

    return known


def _count_tokens(before: FilePrompts | None, after: FilePrompts | None, count_all: bool) -> None:
    """The token counts of the tests whose prompts may differ (all with `count_all`)."""
    for key in dict.fromkeys([*(before.tests if before else {}), *(after.tests if after else {})]):
        tb = before.tests.get(key) if before else None
        ta = after.tests.get(key) if after else None
        if not count_all and tb is not None and ta is not None and tb.fields == ta.fields:
            continue
        for test in (tb, ta):
            if test is not None:
                test_tokens(test)
