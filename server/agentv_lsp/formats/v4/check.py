"""All diagnostics for one file judged by AgentV 4.42.4.

Sources, merged so that each problem is reported once, at the right range:
1. YAML errors (the runtime and `agentv validate` both fail on them);
2. `agentv validate` parity (`formats.v4.validate`): same locations and texts, with a note
   wherever the runtime disagrees (a `tool` role loads; a missing file is only a warning);
3. what the runtime loader prints or throws (`formats.v4.loader`): skipped tests, missing
   files (with the places tried), malformed JSONL, unreadable cases files; a message that
   lands where a validate finding already is is folded into that finding;
4. JSON-schema diagnostics (`formats.v4.schema`), only where nothing more specific was said;
5. lint rules (`formats.v4.lint`).

Severity: `error` where `agentv validate` fails the file or the runtime cannot load it;
`warning` for validate warnings and for what the runtime accepts but probably is a mistake.

Files referenced by `tests:` (a YAML list, a JSONL file, a `*/case.yaml` of a tests folder)
are checked by `check_v4_cases_file`, in the context of the eval file(s) using them.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from agentv_lsp.checks import hidden_chars
from agentv_lsp.checks.model import Diagnostic, Related, Severity, format_location
from agentv_lsp.checks.options import CheckOptions, DocumentReport
from agentv_lsp.engine import schemas
from agentv_lsp.engine.budget import checkpoint
from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.engine.jsrt import js_trim, node_resolve, relative_display
from agentv_lsp.formats.v4.grader_parser import GRADER_KINDS
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.lint import lint_v4
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.losses import cases_file_losses, eval_file_losses
from agentv_lsp.formats.v4.model import RuntimeMessage, SuiteLoad, YamlPath
from agentv_lsp.formats.v4.runtime import js_sort_key, node_extname
from agentv_lsp.formats.v4.schema import FileKind as SchemaFileKind
from agentv_lsp.formats.v4.schema import schema_diagnostics_v4
from agentv_lsp.formats.v4.twins import merge_misspelt_twins
from agentv_lsp.formats.v4.validate import (
    KNOWN_TEST_FIELDS,
    KNOWN_TOP_LEVEL_FIELDS,
    UNKNOWN_FILE_MESSAGE,
    VALIDATOR_ROLES,
    FileType,
    ValidationIssue,
    detect_file_type,
    iter_jsonl,
    validate_cases,
    validate_document,
)
from agentv_lsp.formats.v4.yamlmerge import merged_document, read_yaml_v4
from agentv_lsp.yamlpos import Span, YamlDocument, parse_yaml

ZERO = Span(0, 0, 0, 0)
_KEY_CODES = frozenset({"v4-unknown-field", "v4-deprecated-field", "v4-target-setting-unknown"})
_ROLE_SUGGESTIONS = {
    "usr": "user",
    "human": "user",
    "sys": "system",
    "developer": "system",
    "ai": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "asistant": "assistant",
    "assitant": "assistant",
}


def check_v4_document(
    path: str, text: str, opts: CheckOptions, *, as_eval: bool = False, keys: Keys = V4_KEYS
) -> DocumentReport:
    """All diagnostics for one file (eval, cases, `.agentv/config.yaml`, `targets.yaml`), its
    eval-file keys named by `keys`.
    `as_eval`: the file is run as an eval file (named to `check`, or matched by the eval
    patterns) whatever its name: a file `agentv validate` does not recognise is then judged as
    the runtime's loader judges it (`agentv eval run EVAL.yaml`), validate's verdict beside it."""
    absolute = os.path.abspath(path)
    if node_extname(absolute).lower() == ".jsonl":
        users = find_eval_files_using(absolute, opts.repo_root, opts.fs, keys)
        if users:
            return check_v4_cases_file(absolute, text, opts, eval_paths=users, keys=keys)
        return _check_eval(
            absolute, text, None, "eval", opts, keys=keys
        )  # a JSONL suite (`loadTestsFromJsonl`)
    if node_extname(absolute).lower() == ".json":
        return _check_agent_skills(absolute, text, opts, keys)
    doc = read_yaml_v4(text)  # as AgentV reads it (U+FEFF, merge keys): the loader reads this too
    kind = detect_file_type(absolute, doc)
    if kind == "cases" or (kind == "unknown" and _is_cases_file(absolute, doc, opts, keys)):
        return check_v4_cases_file(absolute, text, opts, doc=doc, keys=keys)
    if kind in ("config", "targets"):
        return DocumentReport(absolute, kind, doc, _check_settings_file(absolute, doc, kind, opts))
    if kind == "unknown" and not as_eval and not _looks_like_suite(doc, keys):
        return DocumentReport(absolute, None, doc, [_unknown_file(absolute, doc)])
    return _check_eval(absolute, text, doc, kind, opts, as_eval=as_eval, keys=keys)


def _check_agent_skills(path: str, text: str, opts: CheckOptions, keys: Keys) -> DocumentReport:
    """An Agent Skills `evals.json`: `agentv validate` reads no JSON file, but the runtime loads
    it (`agentv eval evals.json`), so its load error and messages are the diagnostics."""
    doc = parse_yaml(text)  # JSON is YAML: the positions of its values
    collector = _Collector(path, doc, keys=keys)
    if doc.error is not None:
        collector.add(_yaml_error(path, doc))
    suite = _run_loader(collector, path, opts, text)
    if suite is not None:
        _add_runtime_messages(collector, suite, opts, doc if doc.error is None else None)
        _add_load_error(collector, suite, opts)
    return DocumentReport(path, "eval", doc, _sorted(collector.out))


def _looks_like_suite(doc: YamlDocument, keys: Keys) -> bool:
    return isinstance(doc.value, dict) and any(k in doc.value for k in keys.test_list_keys())


def _is_cases_file(path: str, doc: YamlDocument, opts: CheckOptions, keys: Keys) -> bool:
    """A file `agentv validate` does not recognise, that an eval file loads as tests."""
    return not _looks_like_suite(doc, keys) and bool(
        find_eval_files_using(path, opts.repo_root, opts.fs, keys)
    )


def _unknown_file(path: str, doc: YamlDocument, *, as_eval: bool = False) -> Diagnostic:
    syntax = f" (It is not valid YAML either: {doc.error.describe()}.)" if doc.error is not None else ""
    if as_eval:
        # the user runs it as an eval file: validate's skipping it is a fact, not a mistake
        name = os.path.basename(path)
        return Diagnostic(
            path,
            ZERO,
            "information",
            "v4-unknown-file-type",
            f'`agentv validate` skips this file ("{UNKNOWN_FILE_MESSAGE}"), but `agentv eval run {name}` '
            "loads it, so it is checked here as the runtime loads it. Rename it `*.eval.yaml` to have "
            "`agentv validate` check it too.",
        )
    return Diagnostic(
        path,
        doc.error.span if doc.error is not None else ZERO,
        "warning",
        "v4-unknown-file-type",
        f"`agentv validate`: {UNKNOWN_FILE_MESSAGE} Name eval files `*.eval.yaml`; settings live in "
        f"`.agentv/config.yaml` and `.agentv/targets.yaml`.{syntax}",
    )


# -- eval files ----------------------------------------------------------------------------


class _Collector:
    """Diagnostics of one file, one per place: a later message about a path that already
    has a diagnostic is folded into it."""

    def __init__(
        self, path: str, doc: YamlDocument | None, lines: list[str] | None = None, keys: Keys = V4_KEYS
    ) -> None:
        self.path = path
        self.keys = keys  # the eval file's key names
        self.doc = doc
        self.lines = lines  # a JSONL file: paths start with the line index
        self.out: list[Diagnostic] = []
        self.at: dict[YamlPath, int] = {}
        self.node_at: dict[YamlPath, int] = {}  # where validate findings point, beyond their paths

    def span(self, target: YamlPath | None, *, key: bool = False) -> Span:
        if target is None:
            return ZERO
        if self.doc is not None:
            return self.doc.span_of(target, key=key) if self.doc.root is not None else ZERO
        return _jsonl_span(self.lines or [], target)

    def add(self, diagnostic: Diagnostic, node: YamlPath | None = None) -> None:
        if diagnostic.yaml_path:
            self.at.setdefault(diagnostic.yaml_path, len(self.out))
        if node:
            self.node_at.setdefault(node, len(self.out))
        self.out.append(diagnostic)

    def report(
        self,
        where: YamlPath | None,
        severity: Severity,
        code: str,
        message: str,
        data: dict[str, Any],
        related: tuple[Related, ...] = (),
    ) -> None:
        """A diagnostic of this file at `where` (the top of the file when None)."""
        self.add(Diagnostic(self.path, self.span(where), severity, code, message, where or (), data, related))

    def index_at(self, where: YamlPath | None, *, validate_only: bool = False) -> int | None:
        if not where:
            return None
        index = self.at.get(where)
        if index is None:
            index = self.node_at.get(where)
        if index is not None and validate_only and not self.out[index].data.get("validate"):
            return None
        return index

    def host(self, where: YamlPath | None, *, validate_only: bool = False) -> Diagnostic | None:
        index = self.index_at(where, validate_only=validate_only)
        return None if index is None else self.out[index]

    def fold(
        self,
        where: Iterable[YamlPath | None],
        note: str,
        *,
        severity: Severity | None = None,
        validate_only: bool = False,
        mark: str | None = None,
    ) -> bool:
        """Append `note` to the diagnostic already at one of `where` (`validate_only`: only
        to an `agentv validate` finding); False when there is none. `mark`: a `data` flag
        saying which fact the host now carries too (e.g. the runtime skipped the test)."""
        for place in where:
            index = self.index_at(place, validate_only=validate_only)
            if index is None:
                continue
            host = self.out[index]
            if note not in host.message:
                raised = severity == "error" and host.severity != "error"
                self.out[index] = dataclasses.replace(
                    host,
                    message=f"{host.message} — {note}",
                    severity="error" if raised else host.severity,
                    data={**host.data, mark: True} if mark else host.data,
                )
            return True
        return False

    def fold_under(self, prefix: YamlPath, note: str, mark: str | None = None) -> bool:
        """Append `note` to the first validate error inside `prefix` (e.g. the invalid
        input that made the runtime skip that test)."""
        size = len(prefix)
        for index, host in enumerate(self.out):
            if host.severity == "error" and host.data.get("validate") and host.yaml_path[:size] == prefix:
                if note not in host.message:
                    data = {**host.data, mark: True} if mark else host.data
                    self.out[index] = dataclasses.replace(host, message=f"{host.message} — {note}", data=data)
                return True
        return False

    def fold_from_file(self, file: str, text: str, same_note: str, note: str) -> bool:
        """Append `same_note` to the validate error about `file` (another file this one uses)
        whose message holds `text`, else `note` to the first validate error about that file."""
        hosts = [
            index
            for index, host in enumerate(self.out)
            if host.severity == "error" and host.data.get("validate") and host.data.get("file") == file
        ]
        if not hosts:
            return False
        same = next((i for i in hosts if text and text in self.out[i].message), None)
        index = hosts[0] if same is None else same
        note = note if same is None else same_note
        host = self.out[index]
        if note not in host.message:
            self.out[index] = dataclasses.replace(host, message=f"{host.message} — {note}")
        return True

    def fold_code(self, code: str, note: str) -> bool:
        """Append `note` to the first error with this code (a file-level problem), or to the
        validate error it would be in a file `agentv validate` skips (raised back to an error:
        the runtime cannot load the file)."""
        for index, host in enumerate(self.out):
            if host.code == code and (host.severity == "error" or host.data.get("validate_skips")):
                if note not in host.message:
                    self.out[index] = dataclasses.replace(
                        host, message=f"{host.message} — {note}", severity="error"
                    )
                return True
        return False

    def paths(self) -> set[YamlPath]:
        """Places already reported (for the schema's `covered`)."""
        return set(self.at) | set(self.node_at)


def _check_eval(
    path: str,
    text: str,
    doc: YamlDocument | None,
    kind: FileType,
    opts: CheckOptions,
    *,
    as_eval: bool = False,
    keys: Keys,
) -> DocumentReport:
    """An eval file: YAML errors, validate findings, the runtime's messages, schema, lint."""
    collector = _Collector(path, doc, text.split("\n") if doc is None else None, keys)
    if doc is None:
        _check_jsonl_lines(collector, text, collector.lines or [])
    elif doc.error is not None:
        collector.add(_yaml_error(path, doc))
        if kind != "eval":
            collector.add(_unknown_file(path, doc, as_eval=as_eval))
        suite = _run_loader(collector, path, opts, text, doc)
        if suite is not None:
            _add_runtime_messages(collector, suite, opts, None)
        _add_hidden_characters(collector, text, None, opts, [])
        return DocumentReport(path, "eval", doc, _sorted(collector.out))
    recognised = kind == "eval"
    references_checked = False
    if doc is not None:
        result = validate_document(path, doc, cwd=opts.cwd, fs=opts.fs, file_type="eval", keys=keys)
        references_checked = result.references_checked
        if not recognised:
            collector.add(_unknown_file(path, doc, as_eval=as_eval))
        for issue in result.issues:
            diagnostic, node = _issue_diagnostic(path, collector, issue, recognised, opts)
            collector.add(diagnostic, None if issue.anchored else node)
    checkpoint()  # the language server may stop a stale or overlong check here
    suite = _run_loader(collector, path, opts, text, doc)
    checkpoint()
    if suite is not None:
        _add_runtime_messages(collector, suite, opts, doc)
        _add_load_error(collector, suite, opts)
    if doc is not None:
        tests_key = next(
            (k for k in keys.test_list_keys() if isinstance(doc.value, dict) and k in doc.value), None
        )
        if tests_key is not None:
            _duplicate_ids(collector, doc.value[tests_key], (tests_key,))
        _add_schema_and_lint(collector, path, doc, "eval", opts.fs)
        checkpoint()
        _add_losses(
            collector,
            lambda: eval_file_losses(path, doc.value, _span_of(collector), opts.fs, text=text, keys=keys),
        )
    values: list[tuple[YamlPath, Any]] = _cases_of(None, text, ".jsonl") if doc is None else [((), doc.value)]
    _add_hidden_characters(collector, text, suite, opts, values)
    report = DocumentReport(path, "eval", doc, _sorted(merge_misspelt_twins(collector.out, doc)))
    report.file_references_checked = references_checked
    return report


def _add_hidden_characters(
    collector: _Collector,
    text: str,
    suite: SuiteLoad | None,
    opts: CheckOptions,
    values: list[tuple[YamlPath, Any]],
) -> None:
    """Hidden characters (`hidden_chars`) in this text, and in the files its file segments
    inline into prompts (reported on the segment's `value`)."""
    allow = opts.allow_hidden
    json_lines = collector.doc is None
    collector.out.extend(
        hidden_chars.source_diagnostics(collector.path, text, collector.doc, allow, json_lines=json_lines)
    )
    if suite is None or allow.everything:
        return
    # Most referenced files hide nothing: the YAML is walked for the places that name a file
    # only when one of them does (a 10,000-test suite names thousands).
    segments = _hiding_file_segments(suite)
    references: list[tuple[YamlPath, str, str, str]] = []
    if segments:
        written: dict[str, list[YamlPath]] = {}
        for base, value in values:
            for where, raw in hidden_chars.file_segment_paths(value, base):
                written.setdefault(raw, []).append(where)
        for value, resolved, inlined in segments:
            references.extend((where, resolved, value, inlined) for where in written.get(value, ()))
    references.extend(_grader_prompt_files(values, suite, opts.fs))
    if references:
        collector.out.extend(
            hidden_chars.file_reference_diagnostics(
                collector.path, lambda where: collector.span(where), text, references, allow
            )
        )


def _hiding_file_segments(suite: SuiteLoad) -> list[tuple[str, str, str]]:
    """The file segments of the tests' messages whose inlined text may hide characters:
    (value as written, resolved file, inlined text)."""
    hiding: dict[str, bool] = {}  # resolved file -> whether its text may hide characters
    innocent: set[str] = set()  # the files judged to hide nothing
    segments: list[tuple[str, str, str]] = []
    seen: set[int] = set()  # tests share the suite's input messages (the same objects)
    for test in suite.tests:
        # An input holds file segments only where it names files (`file_paths`), and most
        # tests name only files already judged: their input needs no look.
        files = test.file_paths
        judged = not files or innocent.issuperset(files)
        for messages in (test.expected_output,) if judged else (test.input, test.expected_output):
            for message in messages:
                content = message.get("content") if type(message) is dict else None
                if type(content) is not list or id(content) in seen:
                    continue
                seen.add(id(content))
                for value, resolved, inlined in _file_segments(content):
                    hides = hiding.get(resolved)
                    if hides is None:
                        hides = hiding[resolved] = hidden_chars.may_hide(inlined)
                        if not hides:
                            innocent.add(resolved)
                    if hides:
                        segments.append((value, resolved, inlined))
    return segments


def _file_segments(content: list[Any]) -> Iterator[tuple[str, str, str]]:
    """The file segments of a processed content list: (value as written, resolved file, inlined text)."""
    for segment in content:
        if isinstance(segment, dict) and segment.get("type") == "file":
            value, inlined, resolved = segment.get("value"), segment.get("text"), segment.get("resolvedPath")
            if isinstance(value, str) and isinstance(inlined, str) and isinstance(resolved, str):
                yield value, resolved, inlined


def _grader_prompt_files(
    values: list[tuple[YamlPath, Any]], suite: SuiteLoad, fs: FileSystem
) -> list[tuple[YamlPath, str, str, str]]:
    """llm-grader prompt files that hide characters (`prompt: file://grader.md`, the grader's
    template), by their `prompt:` value here."""
    graders: dict[tuple[str, str], None] = {}
    # Every test's graders, in the order a stack of the tests' lists would give them; tests
    # share the suite's graders (the same objects): each is walked once.
    pending: list[Any] = [grader for test in suite.tests if test.assertions for grader in test.assertions]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, dict):
            prompt, file = item.get("prompt"), item.get("resolvedPromptPath")
            if isinstance(prompt, str) and isinstance(file, str):
                graders[(prompt, file)] = None
            pending.extend(v for v in item.values() if isinstance(v, dict | list))
    contents: dict[str, str | None] = {}
    hiding: list[tuple[str, str, str]] = []
    for prompt, file in graders:
        if file not in contents:
            try:
                contents[file] = fs.read_text(file)
            except (FileReadError, OSError, ValueError):
                contents[file] = None
        content = contents[file]
        if content is not None and hidden_chars.may_hide(content):
            hiding.append((prompt, file, content))
    if not hiding:
        return []
    written: dict[str, list[YamlPath]] = {}
    stack: list[tuple[Any, YamlPath]] = [(value, base) for base, value in values]
    while stack:
        item, where = stack.pop()
        if len(where) > 200:
            continue
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "prompt" and isinstance(value, str):  # `file://x.md`: the grader names `x.md`
                    written.setdefault(value.removeprefix("file://"), []).append((*where, key))
                elif isinstance(value, dict | list):
                    stack.append((value, (*where, key)))
        elif isinstance(item, list):
            stack.extend(
                (value, (*where, i)) for i, value in enumerate(item) if isinstance(value, dict | list)
            )
    found: list[tuple[YamlPath, str, str, str]] = []
    for prompt, file, content in hiding:
        found.extend((where, file, prompt, content) for where in written.get(prompt, ()))
    return found


def _duplicate_ids(collector: _Collector, tests: Any, base: YamlPath) -> None:
    """Tests sharing an id: neither `agentv validate` nor the runtime objects (both load)."""
    if not isinstance(tests, list):
        return
    id_key = collector.keys.id
    ids = [test.get(id_key) if isinstance(test, dict) else None for test in tests]
    named = [test_id for test_id in ids if isinstance(test_id, str)]
    if len(set(named)) == len(named):
        return  # the usual case: no id is used twice
    first: dict[str, int] = {}
    for i, test_id in enumerate(ids):
        if not isinstance(test_id, str) or not js_trim(test_id):
            continue
        earlier = first.setdefault(test_id, i)
        if earlier == i:
            continue
        where = (*base, i, id_key)
        collector.report(
            where,
            "warning",
            "v4-duplicate-id",
            f"Test id '{test_id}' is already used by {format_location((*base, earlier))}. AgentV 4.42.4 loads "
            "both tests and `agentv validate` accepts it, but their results share one id (reports, `--filter` "
            "and re-runs cannot tell them apart). Give each test its own id.",
            {"id": test_id, "first": list((*base, earlier))},
        )


def _run_loader(
    collector: _Collector,
    eval_path: str,
    opts: CheckOptions,
    text: str | None = None,
    doc: YamlDocument | None = None,
) -> SuiteLoad | None:
    """`load_suite`, which never raises by contract; if it does anyway, say so on the file
    instead of failing the whole check."""
    try:
        return load_suite(
            eval_path, opts.repo_root, opts.cwd, opts.fs, text=text, doc=doc, keys=collector.keys
        )
    except Exception as exc:  # a loader bug must not hide the other diagnostics
        collector.add(
            Diagnostic(
                collector.path,
                ZERO,
                "warning",
                "v4-internal-error",
                f"agentv-lsp could not reproduce AgentV 4.42.4's loading of {_shown(eval_path, opts)} "
                f"({type(exc).__name__}: {exc}), so the runtime's messages are missing here. Please report this.",
            )
        )
        return None


def _yaml_error(
    path: str, doc: YamlDocument, what: str = "this file", validate_says: str = "Failed to parse YAML"
) -> Diagnostic:
    assert doc.error is not None
    return Diagnostic(
        path,
        doc.error.span,
        "error",
        f"v4-yaml-{doc.error.kind}",
        f'{doc.error.message}. AgentV cannot load {what} (`agentv validate`: "{validate_says}"). '
        "Fix the YAML syntax here.",
    )


def _issue_diagnostic(
    path: str, collector: _Collector, issue: ValidationIssue, recognised: bool, opts: CheckOptions
) -> tuple[Diagnostic, YamlPath | None]:
    """A validate finding as a diagnostic at the finding's exact key or value."""
    message = _one_line(issue.message)
    data: dict[str, Any] = {**issue.data, "validate": True}
    location = issue.location
    if location is not None:
        data["location"] = location
    severity: Severity = issue.severity
    code = issue.code
    if code == "v4-role-tool":
        message += (
            " — `agentv validate` rejects role 'tool', but the AgentV 4.42.4 runtime accepts it (the message "
            "is kept as a tool turn). CI running `agentv validate` fails on this line."
        )
    elif code == "v4-invalid-role":
        message += " — the runtime drops this message (a test left without input is skipped)."
        role = js_trim(str(issue.data.get("role"))).lower()
        suggestion = role if role in VALIDATOR_ROLES else _ROLE_SUGGESTIONS.get(role)
        if suggestion:
            message += f" Did you mean '{suggestion}'?"
            data["suggestion"] = suggestion
    elif code == "v4-assertion-type-unknown":
        suggestion = schemas._suggest(issue.data.get("type"), sorted(GRADER_KINDS))
        if suggestion:
            message += f" Did you mean '{suggestion}'?"
            data["suggestion"] = suggestion
    elif code == "v4-unknown-field":
        suggestion = _field_suggestion(issue)
        if suggestion:
            message += f" Did you mean '{suggestion}'?"
            data["suggestion"] = suggestion
    elif code == "v4-file-not-found":
        tried = issue.data.get("attempted") or []
        if tried:
            message += ". Tried: " + ", ".join(tried)
        blocked = [t for t in tried if opts.fs.was_blocked(t)]
        if blocked:  # as the v2 checks say it
            message += (
                ". Not read: outside the workspace folders, and this workspace is not trusted "
                f"({', '.join(blocked)})"
            )
        message += ". The runtime leaves the file out of the prompt (it only warns)."
    elif code == "v4-file-empty":
        message += ". The prompt gets an empty file block."
    elif code == "v4-tests-missing" and issue.data.get("legacy"):
        message += (
            f". This looks like an agentv-eval-v2 file: rename `{issue.data['legacy']}` to `tests`, "
            "`input_messages` to `input`, `outcome` to `criteria`, `expected_messages` to `expected_output`."
        )
    if issue.file is not None and issue.file != path:
        message = f"In {_shown(issue.file, opts)}: {message}"
        data["file"] = issue.file
    if not recognised and severity == "error":
        severity = "warning"
        data["validate_skips"] = True
        message += " (`agentv validate` skips files not named *.eval.yaml; the runtime still loads this one.)"
    key = code in _KEY_CODES
    target = issue.target
    if code == "v4-tests-missing" and issue.data.get("legacy"):
        target, key = (issue.data["legacy"],), True
    span = collector.span(target, key=key)
    data.pop("anchor", None)
    diagnostic = Diagnostic(path, span, severity, code, message, issue.path or (), data)
    return diagnostic, issue.node


def _field_suggestion(issue: ValidationIssue) -> str | None:
    """The field an unknown suite or test key was probably meant to be (the same nearest-name
    rule as the schema's "Did you mean"), among the fields `agentv validate` knows there."""
    key = issue.data.get("field")
    if not isinstance(key, str) or issue.file is not None or not issue.path:
        return None
    known = KNOWN_TOP_LEVEL_FIELDS if len(issue.path) == 1 else KNOWN_TEST_FIELDS
    return schemas._suggest(key, sorted(known - {"$schema"}))


def _one_line(text: str) -> str:
    """AgentV's multi-line messages ("…\n  File: x") on one line."""
    if "\n" not in text:
        return text
    return " — ".join(line.strip() for line in text.split("\n") if line.strip())


def _sentence(text: str) -> str:
    """`text` ending with one full stop."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _runtime_text(message: RuntimeMessage) -> str:
    text = message.text
    for prefix in ("Warning: ", "Error: "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    lines = [line.strip() for line in text.split("\n")]
    head = lines[0]
    tried = [line for line in lines[1:] if line and line != "Tried:"]
    if tried and lines[1:2] == ["Tried:"]:
        head += ". Tried: " + ", ".join(tried)
    elif tried:
        head += ". " + " ".join(tried)
    return head


_RUNTIME_HINTS = {
    "v4-skipped-test": " Give the test an `id`, an `input` and at least one of `criteria`, `expected_output`, "
    "`assertions`.",
    "v4-test-not-object": " Each `tests` entry must be a mapping (or a `file://` reference).",
    "v4-cases-empty": " The file adds no tests.",
    "v4-glob-no-match": " The pattern adds no tests.",
}


def _add_runtime_messages(
    collector: _Collector, suite: SuiteLoad, opts: CheckOptions, doc: YamlDocument | None
) -> None:
    """The runtime's console messages about this file (or about a file it references),
    folded into a validate finding at the same place when there is one."""
    seen: set[tuple[str, str | None, YamlPath | None]] = set()
    path = collector.path
    for message in suite.messages:
        ident = (message.code, message.file, message.yaml_path)
        if ident in seen:
            continue  # e.g. a missing file is warned twice (LM and agent builds)
        seen.add(ident)
        text = _runtime_text(message)
        in_this_file = message.file in (None, path)
        where = (
            message.yaml_path if in_this_file else _referencing_path(doc, path, message.file, collector.keys)
        )
        if message.stream == "notice":  # ours, not the runtime's: not folded, not called AgentV's
            collector.report(
                where,
                "warning",
                message.code,
                text,
                dict(message.data),
            )
            continue
        candidates: list[YamlPath | None] = [where]
        if where and where[-1] == "value":
            candidates.append(where[:-1])  # validate reports a file item, the runtime its value
        note = f"AgentV runtime: {_sentence(text)}{_missing_hint(message, collector.keys)}"
        mark = _SKIP_MARK if message.code == "v4-skipped-test" else None
        if collector.fold(candidates, note, mark=mark):
            continue
        if mark and in_this_file and where and collector.fold_under(where, note, mark):
            continue
        missing = _missing_hint(message, collector.keys)
        hint = "" if missing else _RUNTIME_HINTS.get(message.code, "")
        # what this test lacks first (the runtime's text names every required field, present or not)
        body = (
            f"{missing.lstrip()} AgentV runtime: {_sentence(text)}"
            if missing
            else f"AgentV runtime: {_sentence(text)}{hint}"
        )
        related: tuple[Related, ...] = ()
        if not in_this_file and message.file is not None:
            body = f"AgentV runtime, in {_shown(message.file, opts)}: {_sentence(text)}{hint}"
            related = (Related(message.file, ZERO, text),)
        severity: Severity = "warning"
        collector.add(
            Diagnostic(
                path,
                _test_span(collector, where)
                if message.code.startswith("v4-skipped-test")
                else collector.span(where),
                severity,
                message.code,
                body,
                where or (),
                {**message.data, "runtime": True},
                related,
            )
        )


def _missing_hint(message: RuntimeMessage, keys: Keys) -> str:
    """What exactly a skipped incomplete test lacks (the runtime's text lists every required
    field, whichever is missing)."""
    missing = message.data.get("missing") if message.code == "v4-skipped-test" else None
    if not isinstance(missing, list) or not missing:
        return ""
    parts = []
    for field in missing:
        if field == keys.id:
            parts.append(f"has no `{keys.id}`")
        elif field == keys.input:
            parts.append(f"has no `{keys.input}` message AgentV keeps (and the suite gives none)")
        else:
            names = [f"`{name}`" for name in re.split(r", | or ", str(field))]
            parts.append(f"has none of {', '.join(names)} (add one)")
    return f" Test {_quoted_id(message)} {' and '.join(parts)}."


def _quoted_id(message: RuntimeMessage) -> str:
    test_id = message.data.get("id")
    return f"'{test_id}'" if isinstance(test_id, str) and test_id else "without an id"


def _test_span(collector: _Collector, where: YamlPath | None) -> Span:
    """A whole test is named by its `id` value (else its first line)."""
    id_key = collector.keys.id
    if where and collector.doc is not None and collector.doc.node_at((*where, id_key)) is not None:
        return collector.span((*where, id_key))
    return collector.span(where)


def _add_load_error(collector: _Collector, suite: SuiteLoad, opts: CheckOptions) -> None:
    if suite.load_error is None:
        return
    path = collector.path
    in_this_file = suite.load_error_file in (None, path)
    where = (
        suite.load_error_path
        if in_this_file
        else _referencing_path(collector.doc, path, suite.load_error_file, collector.keys)
    )
    error_text = _one_line(suite.load_error.strip())
    host = collector.host(where, validate_only=True)
    same = host is not None and error_text.split(" — ")[0] in host.message
    note = (
        "the AgentV runtime cannot load this eval file either"
        if same
        else f"the AgentV runtime cannot load this eval file: {error_text}"
    )
    folded = collector.fold([where], note, severity="error", validate_only=True)
    if not folded and not in_this_file and suite.load_error_file is not None:
        # a workspace in another file: validate reports its problems at `workspace.repos[…]`
        # ("In workspace.yaml: …"); the load failure is the one of them it names
        folded = collector.fold_from_file(
            suite.load_error_file,
            error_text.split(" — ")[0],
            "the AgentV runtime cannot load this eval file either",
            note,
        )
    if folded or collector.fold_code(suite.load_error_code or "", note):
        return
    if any(d.severity == "error" and d.code.startswith("v4-yaml-") for d in collector.out):
        return  # the YAML error already says the file cannot load
    message = f"AgentV cannot load this eval file: {error_text}"
    related: tuple[Related, ...] = ()
    if not in_this_file and suite.load_error_file is not None:
        message = f"AgentV cannot load this eval file, because of {_shown(suite.load_error_file, opts)}: "
        message += error_text
        related = (Related(suite.load_error_file, ZERO, suite.load_error.strip()),)
    collector.report(
        where,
        "error",
        suite.load_error_code or "v4-load-error",
        message,
        {"runtime": True},
        related,
    )


def _referencing_path(
    doc: YamlDocument | None, eval_path: str, other: str | None, keys: Keys
) -> YamlPath | None:
    """The value of the eval file that brings `other` in: `tests: other`, a `file://` entry
    naming it, or `tests` itself (a tests folder, a config found elsewhere: the top)."""
    if doc is None or other is None or not isinstance(doc.value, dict):
        return None
    eval_dir = os.path.dirname(eval_path)
    workspace = doc.value.get(keys.workspace)
    if isinstance(workspace, str) and node_resolve(eval_dir, workspace) == other:
        return (keys.workspace,)  # before `tests`: the suite's workspace file is named here
    for key in keys.test_list_keys():
        if key not in doc.value:
            continue
        tests = doc.value[key]
        if isinstance(tests, str):
            return (key,)
        if isinstance(tests, list):
            for i, entry in enumerate(tests):
                if (
                    isinstance(entry, str)
                    and entry.startswith("file://")
                    and node_resolve(eval_dir, entry[len("file://") :]) == other
                ):
                    return (key, i)
            return (key,)
    return None


def _shown(path: str, opts: CheckOptions) -> str:
    return relative_display(path, opts.repo_root) if path.startswith(opts.repo_root) else path


def _add_schema(
    collector: _Collector, path: str, doc: YamlDocument, kind: SchemaFileKind, fs: FileSystem
) -> None:
    try:
        found = schema_diagnostics_v4(path, doc, kind, covered=collector.paths(), fs=fs)
    except Exception:  # a sibling's bug must not hide everything else
        found = []
    for d in found:
        if kind == "case" and d.yaml_path == (collector.keys.id,):
            continue  # a tests folder names the test after its directory when `id` is absent
        collector.add(d)


def _add_schema_and_lint(
    collector: _Collector, path: str, doc: YamlDocument, kind: SchemaFileKind, fs: FileSystem
) -> None:
    _add_schema(collector, path, doc, kind, fs)
    try:
        linted = lint_v4(path, doc, fs, collector.keys)
    except Exception:
        linted = []
    # lint is the least specific source: a place something else reported keeps that alone
    reported = collector.paths()
    present = {(d.yaml_path, d.code) for d in collector.out}
    # the runtime's skip, reported alone or folded into the validate finding that caused it
    skipped: dict[YamlPath, int] = {}
    for i, d in enumerate(collector.out):
        if d.code == "v4-skipped-test" or d.data.get(_SKIP_MARK):
            skipped.setdefault(d.yaml_path[:2], i)
    for d in linted:
        test = d.yaml_path[:2]
        if d.code in _INCOMPLETE_LINT and test in skipped:
            _lend_fix(collector, skipped[test], d)
            continue
        if (d.yaml_path, d.code) not in present and (not d.yaml_path or d.yaml_path not in reported):
            collector.add(d)


# lint rules that say what the runtime's "Skipping incomplete test" says: one finding per test
_INCOMPLETE_LINT = frozenset(("v4-lint-test-id", "v4-lint-test-input", "v4-lint-test-grading"))
_SKIP_MARK = "skipped_test"  # `data` flag of a finding the runtime's skip was folded into


def _lend_fix(collector: _Collector, index: int, linted: Diagnostic) -> None:
    """The runtime's skipped-test warning takes the fix of the lint finding it replaces."""
    host = collector.out[index]
    fix = linted.data.get("fix")
    if fix is not None and "fix" not in host.data:
        collector.out[index] = dataclasses.replace(host, data={**host.data, "fix": fix})


def _sorted(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=Diagnostic.sort_key)


# -- config.yaml and targets.yaml -----------------------------------------------------------


def _check_settings_file(
    path: str, doc: YamlDocument, kind: FileType, opts: CheckOptions
) -> list[Diagnostic]:
    collector = _Collector(path, doc)
    if doc.error is not None:
        what = (
            "this config (the runtime skips it with a warning and looks further up)"
            if kind == "config"
            else "these targets"
        )
        collector.add(
            _yaml_error(
                path, doc, what, "Failed to parse config file" if kind == "config" else "Failed to parse YAML"
            )
        )
        return collector.out
    result = validate_document(path, doc, cwd=opts.cwd, fs=opts.fs, file_type=kind)
    for issue in result.issues:
        if issue.code == "v4-config-unexpected-fields":
            for key in issue.data.get("fields", []):
                collector.out.append(
                    Diagnostic(
                        path,
                        doc.span_of((key,), key=True),
                        "warning",
                        issue.code,
                        f"`agentv validate`: {issue.message}. AgentV ignores '{key}'.",
                        (),
                        {"key": key, "validate": True},
                        unnecessary=True,
                    )
                )
            continue
        diagnostic, node = _issue_diagnostic(path, collector, issue, True, opts)
        collector.add(diagnostic, node)
    return _sorted(collector.out)


# -- files referenced by `tests:` -----------------------------------------------------------


def find_eval_files_using(path: str, repo_root: str, fs: FileSystem, keys: Keys = V4_KEYS) -> list[str]:
    """Eval files (`*.eval.yaml`/`.yml` in the file's folder and its ancestors up to the
    repo root, not below) whose `tests` names `path`: as a path, a `file://` entry, or as
    the tests folder holding `path` (`<folder>/<name>/case.yaml`)."""
    target = node_resolve("/", path)
    folder = os.path.dirname(target)
    wanted = {target}
    if os.path.basename(target) in ("case.yaml", "case.yml"):
        wanted.add(os.path.dirname(folder))  # the tests folder
    root = node_resolve("/", repo_root)
    found: list[str] = []
    current = folder
    while True:
        for candidate in _eval_files_in(current, fs):
            if candidate != target and _uses(candidate, wanted, fs, keys):
                found.append(candidate)
        if current == root or not current.startswith(root) or os.path.dirname(current) == current:
            break
        current = os.path.dirname(current)
    return found


def _eval_files_in(folder: str, fs: FileSystem) -> list[str]:
    if not fs.is_allowed(folder):
        return []
    try:
        names = [e.name for e in fs.scandir(folder) if e.name.lower().endswith((".eval.yaml", ".eval.yml"))]
    except OSError:
        return []
    return [os.path.join(folder, n) for n in sorted(names, key=js_sort_key)]


@functools.cache
def _tests_line(keys: Keys) -> re.Pattern[str]:
    """A line starting with a key that holds the tests."""
    names = "|".join(re.escape(k) for k in keys.test_list_keys())
    return re.compile(rf"^(?:{names})[ \t]*:", re.M)


def _uses(eval_path: str, wanted: set[str], fs: FileSystem, keys: Keys) -> bool:
    try:
        text = fs.read_text(eval_path)
    except FileReadError:
        return False
    if not _tests_line(keys).search(text) or not any(os.path.basename(w) in text for w in wanted):
        return False  # cheap filters before parsing
    doc = read_yaml_v4(text)
    if not isinstance(doc.value, dict):
        return False
    eval_dir = os.path.dirname(eval_path)
    for key in keys.test_list_keys():
        if key not in doc.value:
            continue
        tests = doc.value[key]
        if isinstance(tests, str):
            return node_resolve(eval_dir, tests) in wanted
        if isinstance(tests, list):
            return any(
                isinstance(t, str) and t.startswith("file://") and node_resolve(eval_dir, t[7:]) in wanted
                for t in tests
            )
        return False
    return False


def check_v4_cases_file(
    path: str,
    text: str,
    opts: CheckOptions,
    *,
    eval_paths: list[str] | None = None,
    doc: YamlDocument | None = None,
    keys: Keys = V4_KEYS,
) -> DocumentReport:
    """A file of tests referenced by an eval file (`tests: ./cases.yaml`, a `.jsonl` file, a
    `file://` entry, or `<tests folder>/<name>/case.yaml`), checked on its own: its syntax
    (YAML, or JSON per JSONL line), what `agentv validate` says of a YAML list, and what the
    runtime prints about its tests when it loads the eval file(s) using it (`eval_paths`;
    None: found by `find_eval_files_using`). This text is what the loader reads for it."""
    absolute = os.path.abspath(path)
    ext = node_extname(absolute).lower()
    is_case_file = os.path.basename(absolute) in ("case.yaml", "case.yml")
    users = (
        eval_paths
        if eval_paths is not None
        else find_eval_files_using(absolute, opts.repo_root, opts.fs, keys)
    )
    lines = text.split("\n")
    collector = _Collector(absolute, None, lines, keys)
    if ext == ".jsonl":
        _check_jsonl_lines(collector, text, lines)
    elif ext not in (".yaml", ".yml"):
        collector.add(
            Diagnostic(
                absolute,
                ZERO,
                "error",
                "v4-cases-format",
                f"AgentV reads tests only from .yaml, .yml and .jsonl files; a '{ext}' file named by `tests` "
                'stops the eval file from loading ("Unsupported external test file format").',
            )
        )
        return DocumentReport(absolute, "eval", None, collector.out)
    else:
        doc = merged_document(doc) if doc is not None else read_yaml_v4(text)
        collector.doc = doc
        if doc.error is not None:
            collector.add(_yaml_error(absolute, doc, "the eval files using this file"))
        elif isinstance(doc.value, list):
            for issue in validate_cases(doc.value, keys):
                diagnostic, node = _issue_diagnostic(absolute, collector, issue, True, opts)
                collector.add(diagnostic, node)
            _duplicate_ids(collector, doc.value, ())
    loaded = _add_context(collector, absolute, text, users[0], opts) if users else None
    doc = collector.doc
    if doc is not None and doc.error is None and (isinstance(doc.value, list) or is_case_file):
        _add_schema(collector, absolute, doc, "cases" if isinstance(doc.value, list) else "case", opts.fs)
    tests = _cases_of(collector.doc, text, ext)
    suite = _suite_value(users[0], opts) if users else None
    _add_losses(
        collector,
        lambda: cases_file_losses(absolute, tests, _span_of(collector), suite, text=text, keys=keys),
    )
    _add_hidden_characters(collector, text, loaded, opts, tests)
    report = DocumentReport(
        absolute, "eval", collector.doc, _sorted(merge_misspelt_twins(collector.out, doc))
    )
    return report


_RANK = {"error": 3, "warning": 2, "information": 1, "hint": 0}


def _add_losses(collector: _Collector, find: Callable[[], list[Diagnostic]]) -> None:
    """What the runtime does silently (`formats.v4.losses`): at a place that already has a
    diagnostic at least as severe, one more sentence of it; elsewhere a diagnostic of its own."""
    try:
        found = find()
    except Exception:  # a bug there must not hide everything else
        return
    for loss in found:
        index = collector.index_at(loss.yaml_path)
        host = None if index is None else collector.out[index]
        if index is None or host is None or _RANK.get(host.severity, 0) < _RANK.get(loss.severity, 0):
            collector.add(loss)
            continue
        if loss.message not in host.message:
            collector.out[index] = dataclasses.replace(
                host,
                message=f"{host.message} — AgentV runtime, silently: {loss.message}",
                data={**host.data, "losses": [*host.data.get("losses", []), loss.code]},
            )


def _span_of(collector: _Collector) -> Callable[[YamlPath, bool], Span]:
    return lambda where, key: collector.span(where, key=key)


def _cases_of(doc: YamlDocument | None, text: str, ext: str) -> list[tuple[YamlPath, Any]]:
    """The tests of a cases file with their paths (a JSONL path starts with the line index)."""
    if ext == ".jsonl":
        return [((number - 1,), value) for number, _raw, value, error in iter_jsonl(text) if error is None]
    if doc is None or doc.error is not None:
        return []
    if isinstance(doc.value, list):
        return [((i,), t) for i, t in enumerate(doc.value)]
    return [((), doc.value)] if isinstance(doc.value, dict) else []


def _suite_value(eval_path: str, opts: CheckOptions) -> Any:
    """The parsed eval file that loads a cases file (its suite-level defaults apply there)."""
    try:
        return read_yaml_v4(opts.fs.read_text(eval_path)).value
    except FileReadError:
        return None


def _check_jsonl_lines(collector: _Collector, text: str, lines: list[str]) -> None:
    """JSON syntax per line, as `JSON.parse` in the runtime's JSONL reader sees it."""
    for number, _raw, value, error in iter_jsonl(text):
        if error is None and isinstance(value, dict):
            continue
        reason = error if error is not None else "Expected JSON object"
        collector.add(
            Diagnostic(
                collector.path,
                _line_span(lines, number - 1),
                "error",
                "v4-jsonl-parse",
                f"Malformed JSONL at line {number}: {reason}. AgentV stops loading at this line, so the eval "
                "file using it cannot load. Each line must be one JSON object.",
                (number - 1,),
                {"line": number},
            )
        )
        return  # the runtime stops at the first bad line


def _line_span(lines: list[str], index: int) -> Span:
    if not 0 <= index < len(lines):
        return ZERO
    line = lines[index].rstrip("\r")
    start = len(line) - len(line.lstrip())
    return Span(index, start, index, max(len(js_trim(line)) + start, start))


def _add_context(
    collector: _Collector, path: str, text: str, eval_path: str, opts: CheckOptions
) -> SuiteLoad | None:
    """Load `eval_path` with this text in place of the file and keep what concerns this file."""
    overlays = opts.fs.overlays
    previous = overlays.get(path)
    overlays[path] = text
    opts.fs.invalidate([path])
    try:
        suite = _run_loader(collector, eval_path, opts)
    finally:
        if previous is None:
            overlays.pop(path, None)
        else:
            overlays[path] = previous
        opts.fs.invalidate([path])
    if suite is None:
        return None
    related = (Related(eval_path, ZERO, "the eval file loading these tests"),)
    seen: set[tuple[str, YamlPath | None]] = set()
    for message in suite.messages:
        if message.file != path or (message.code, message.yaml_path) in seen:
            continue
        seen.add((message.code, message.yaml_path))
        body = _runtime_text(message)
        if message.stream == "notice":
            collector.report(
                message.yaml_path,
                "warning",
                message.code,
                f"{body} (loading {_shown(eval_path, opts)})",
                {**message.data, "eval_file": eval_path},
                related,
            )
            continue
        mark = _SKIP_MARK if message.code == "v4-skipped-test" else None
        if collector.fold([message.yaml_path], f"AgentV runtime: {_sentence(body)}", mark=mark):
            continue
        collector.report(
            message.yaml_path,
            "warning",
            message.code,
            f"AgentV runtime (loading {_shown(eval_path, opts)}): {_sentence(body)}"
            f"{_RUNTIME_HINTS.get(message.code, '')}",
            {**message.data, "runtime": True, "eval_file": eval_path},
            related,
        )
    if suite.load_error is not None and suite.load_error_file == path:
        where = suite.load_error_path
        error_text = _one_line(suite.load_error.strip())
        host = collector.host(where)
        note = (
            f"the AgentV runtime cannot load {_shown(eval_path, opts)} either"
            if host is not None and error_text.split(" — ")[0] in host.message
            else f"the AgentV runtime cannot load {_shown(eval_path, opts)}: {error_text}"
        )
        if collector.fold([where], note, severity="error"):
            return suite
        if any(d.severity == "error" for d in collector.out):
            return suite  # a syntax error already says it
        collector.report(
            where,
            "error",
            suite.load_error_code or "v4-load-error",
            f"AgentV cannot load {_shown(eval_path, opts)} because of this file: "
            f"{_one_line(suite.load_error.strip())}",
            {"runtime": True, "eval_file": eval_path},
            related,
        )
    return suite


def _jsonl_span(lines: list[str], where: YamlPath) -> Span:
    """A path's range in a JSONL file (its first item is the line index)."""
    if not where or not isinstance(where[0], int):
        return ZERO
    index = where[0]
    line_span = _line_span(lines, index)
    if len(where) == 1 or not 0 <= index < len(lines):
        return line_span
    line_doc = parse_yaml(lines[index])
    if line_doc.error is not None or line_doc.root is None:
        return line_span
    inner = line_doc.span_of(where[1:])
    return Span(index, inner.start_col, index + inner.end_line - inner.start_line, inner.end_col)


__all__ = ["check_v4_cases_file", "check_v4_document", "find_eval_files_using"]
