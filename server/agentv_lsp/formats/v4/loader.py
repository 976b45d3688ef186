"""AgentV 4.42.4's `loadTests(evalPath, repoRoot)`, reproduced: eval file -> SuiteLoad.

Public API (stable; the v4 checks import it):

    load_suite(eval_path, repo_root, cwd, fs, *, text=None, doc=None, env=None) -> SuiteLoad

`SuiteLoad` (see `model`) carries
- `load_error` (+ `load_error_type`, `load_error_code`, `load_error_file`/`_path`): the
  message `loadTests` would reject with, or None;
- `messages`: every console message the runtime prints while loading, in order, as
  `RuntimeMessage(stream, text, code, file, yaml_path, data)`; `text` is the printed text
  ("Warning: …", "Error: …"), `file`/`yaml_path` the value it concerns when known;
- `tests`: the loaded `V4Test`s in order, each with its `source_file` and `yaml_path`;
- `skipped`: the entries the runtime dropped (`SkippedTest`, with the printed reason).

Message codes: v4-config-invalid, v4-config-unreadable, v4-deprecated-key,
v4-test-not-object, v4-skipped-test, v4-skipped-test-graders, v4-file-not-found,
v4-file-unreadable, v4-image-not-found, v4-image-extension, v4-image-unreadable,
v4-cases-empty, v4-cases-dir-no-case, v4-glob-no-match, v4-sidecar-unreadable,
v4-sidecar-invalid, v4-grader-* (see grader_parser), v4-workspace-deprecated,
v4-prompt-template-variables.
Load-error codes: v4-file-unreadable, v4-yaml-syntax, v4-not-object, v4-tests-missing,
v4-cases-file, v4-jsonl-parse, v4-json-parse, v4-workspace, v4-grader, v4-format,
v4-runtime-type-error, v4-too-deep.

How it reads (yaml-parser.ts `loadTestsFromYaml`, loaders/*.ts): parse the YAML (merge keys
on), load `.agentv/config.yaml`, substitute `${{ ENV }}`, take `tests` (or the deprecated
`eval_cases`/`evalcases`) as an inline list (with `file://` entries expanded), a path to a
YAML/JSONL cases file or a directory of `*/case.yaml`; then for each entry: `vars`
templating, input shorthand (`input` string/object/messages, `input_files`), suite `input`
and `input_files` unless `execution.skip_defaults`, completeness check, file and image
segments resolved over the search roots, expected_output, reference answer, graders.
A `*.jsonl` eval file goes through `loadTestsFromJsonl` (sidecar `<name>.yaml`), a `*.json`
one through `loadTestsFromAgentSkills` (evals.json); TypeScript eval files are not loaded
(the runtime would execute them).

The file is composed once; every entry is visited once (no re-walks per test).
"""

from __future__ import annotations

import base64
import gc
import os
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from agentv_lsp.engine.files import (
    FileReadError,
    FileSystem,
    Resolution,
    build_directory_chain,
    build_search_roots,
)
from agentv_lsp.engine.jsrt import crlf_to_lf, node_resolve
from agentv_lsp.formats.v4 import grader_parser as graders
from agentv_lsp.formats.v4.jsonparse import JsonParseError, parse_json
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.model import (
    RuntimeMessage,
    SkippedTest,
    SuiteLoad,
    V4Test,
    YamlPath,
)
from agentv_lsp.formats.v4.runtime import (
    MISSING,
    LoadContext,
    LoadFailure,
    TestRejected,
    as_string,
    coalesce,
    get,
    interpolate_template_vars,
    is_object,
    js_sort_key,
    js_string,
    js_trim,
    js_typeof,
    node_extname,
    nullish,
    read_bytes,
    stat_kind,
    truthy,
)
from agentv_lsp.formats.v4.yamlbom import BOM
from agentv_lsp.formats.v4.yamlmerge import MergedDocument, document_value, parse_yaml_value, read_yaml_v4
from agentv_lsp.yamlpos import YamlDocument
from agentv_lsp.yamlpos.scalars import js_json_stringify

__all__ = ["RuntimeMessage", "SkippedTest", "SuiteLoad", "V4Test", "load_suite"]

ROLES = ("system", "user", "assistant", "tool")  # `x in ROLES` compares: safe for any value
IMAGE_MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".bmp": "image/bmp",
}


def _incomplete(k: Keys) -> str:
    return (
        f"Missing required fields: {k.id}, {k.input}, and at least one of "
        f"{k.criteria}/{k.expected_output}/{k.assertions}/{k.turns}"
    )


def _incomplete_jsonl(k: Keys) -> str:
    return (
        f"Missing required fields: {k.id}, {k.input}, and at least one of "
        f"{k.criteria}/{k.expected_output}/{k.deprecated_assertions}"
    )


# A `tests` entry before loading: its value, the file it is written in (the eval file, an
# external cases file or a directory's case.yaml) and its YAML path there (JSONL: the line
# index, from 0). A plain tuple: a suite may have 10,000 of them.
TestEntry = tuple[Any, str, YamlPath]


# -- entry point ----------------------------------------------------------------------------


def load_suite(
    eval_path: str,
    repo_root: str,
    cwd: str,
    fs: FileSystem,
    *,
    text: str | None = None,
    doc: YamlDocument | None = None,
    env: Mapping[str, str] | None = None,
    keys: Keys = V4_KEYS,
) -> SuiteLoad:
    """Load an eval file as AgentV 4.42.4 does (its keys named by `keys`). Never raises for bad input.

    The garbage collector is paused meanwhile (as `parse_yaml` does): loading allocates many
    objects that all stay alive, and each collection would rescan the whole parsed file."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_suite(eval_path, repo_root, cwd, fs, text, doc, env, keys)
    finally:
        if was_enabled:
            gc.enable()


def _load_suite(
    eval_path: str,
    repo_root: str,
    cwd: str,
    fs: FileSystem,
    text: str | None,
    doc: YamlDocument | None,
    env: Mapping[str, str] | None,
    keys: Keys,
) -> SuiteLoad:
    absolute = node_resolve(cwd, eval_path)
    root = node_resolve(cwd, repo_root)
    suite = SuiteLoad(absolute, root, cwd, keys=keys)
    ctx = LoadContext(
        fs,
        os.environ if env is None else env,
        suite.messages,
        build_search_roots(absolute, root, cwd),
        absolute,
        keys,
    )
    try:
        ext = node_extname(absolute).lower()
        if ext == ".jsonl":
            _load_jsonl_suite(ctx, suite, text)
        elif ext in (".yaml", ".yml"):
            _load_yaml_suite(ctx, suite, text, doc)
        elif ext == ".json":
            _load_agent_skills(ctx, suite, text)
        elif ext in (".ts", ".mts"):
            raise LoadFailure(
                f"TypeScript eval files ({ext}) run code when loaded; this preview does not load them",
                "v4-format",
            )
        else:
            raise LoadFailure(
                f"Unsupported file format: '{ext}'. Supported formats: .yaml, .yml, .jsonl, .json, .ts",
                "v4-format",
            )
    except LoadFailure as failure:
        suite.load_error = failure.message
        suite.load_error_type = failure.error_type
        suite.load_error_code = failure.code
        suite.load_error_file = failure.file or absolute
        suite.load_error_path = failure.yaml_path
        suite.tests = []
    except RecursionError:
        suite.load_error = "Maximum call stack size exceeded"
        suite.load_error_type = "RangeError"
        suite.load_error_code = "v4-too-deep"
        suite.tests = []
    except Exception as exc:  # a bug of ours must not take an editor down: report it instead
        suite.load_error = f"agentv-lsp could not reproduce this load ({type(exc).__name__}: {exc})"
        suite.load_error_type = "InternalError"
        suite.load_error_code = "v4-internal"
        suite.tests = []
    return suite


def _read_text(ctx: LoadContext, path: str) -> str:
    try:
        return ctx.fs.read_document(path)
    except FileReadError as exc:
        raise LoadFailure(str(exc), "v4-file-unreadable", file=path) from exc


def _type_error(message: str, file: str, yaml_path: YamlPath) -> LoadFailure:
    """The TypeError the runtime's own code throws on a value of the wrong shape."""
    return LoadFailure(
        message, "v4-runtime-type-error", error_type="TypeError", file=file, yaml_path=yaml_path
    )


def _skip_test(
    ctx: LoadContext,
    suite: SuiteLoad,
    skipped: SkippedTest,
    message: str,
    data: dict[str, Any],
    *,
    at: YamlPath | None = None,
) -> None:
    """`Error: message` (at `at`, else at the test) and the test dropped."""
    ctx.error(message, skipped.code, file=skipped.source_file, yaml_path=at or skipped.yaml_path, data=data)
    suite.skipped.append(skipped)


def _with_inline_rubrics(
    ctx: LoadContext, assertions: list[dict[str, Any]] | None, rubrics: Any, file: str, base: YamlPath
) -> list[dict[str, Any]] | None:
    """A test's `rubrics` list, as one grader before its assertions."""
    if not isinstance(rubrics, list):
        return assertions
    rubric_grader = graders.parse_inline_rubrics(ctx, rubrics, file, (*base, ctx.keys.rubrics))
    return assertions if rubric_grader is None else [rubric_grader, *(assertions or [])]


def _warn_expected_outcome(ctx: LoadContext, test_id: str | None, file: str, yaml_path: YamlPath) -> None:
    k = ctx.keys
    ctx.warn(
        f"Test '{test_id if test_id is not None else 'unknown'}': '{k.expected_outcome}' is deprecated. "
        f"Use '{k.criteria}' instead.",
        "v4-deprecated-key",
        file=file,
        yaml_path=(*yaml_path, k.expected_outcome),
    )


# -- YAML suites ----------------------------------------------------------------------------


def _load_yaml_suite(ctx: LoadContext, suite: SuiteLoad, text: str | None, doc: YamlDocument | None) -> None:
    path = suite.eval_path
    if doc is None:
        if text is None:
            text = _read_text(ctx, path)
        doc = read_yaml_v4(text)
    elif BOM in doc.text and not isinstance(doc, MergedDocument):
        doc = read_yaml_v4(doc.text)  # a caller's libyaml parse skipped BOMs the runtime does not
    raw_parsed = document_value(doc, path)
    suite.config_path = _load_config(ctx, path, suite.repo_root)
    parsed = ctx.with_env(raw_parsed, doc.text)
    if not is_object(parsed):
        raise LoadFailure(f"Invalid test file format: {path}", "v4-not-object", file=path, yaml_path=())

    k = ctx.keys
    tests_key, raw_tests = _resolve_tests_key(ctx, parsed, path)
    global_evaluator = graders.coerce_evaluator(ctx, get(parsed, k.evaluator), "global", path, (k.evaluator,))
    suite_preprocessors = graders.parse_preprocessors(
        ctx, get(parsed, k.preprocessors), ctx.search_roots, "<suite>", path, path, (k.preprocessors,)
    )
    eval_dir = os.path.dirname(path)
    if isinstance(raw_tests, str):
        entries = _load_external_tests(ctx, suite, node_resolve(eval_dir, raw_tests), tests_key)
    elif isinstance(raw_tests, list):
        entries = _expand_file_references(ctx, raw_tests, eval_dir, path, tests_key)
    else:
        raise LoadFailure(
            f"Invalid test file format: {path} - missing '{k.tests}' field",
            "v4-tests-missing",
            file=path,
            yaml_path=(),
        )
    _resolve_workspace(ctx, get(parsed, k.workspace), eval_dir, path, (k.workspace,))

    suite_assertions = coalesce(get(parsed, k.assertions), get(parsed, k.deprecated_assertions))
    if get(parsed, k.deprecated_assertions) is not MISSING and get(parsed, k.assertions) is MISSING:
        ctx.warn(
            f"'{k.deprecated_assertions}' is deprecated at the suite level. Use '{k.assertions}' instead.",
            "v4-deprecated-key",
            file=path,
            yaml_path=(k.deprecated_assertions,),
        )
    execution = get(parsed, k.execution)
    global_execution: dict[str, Any] | None = execution if is_object(execution) else None
    if suite_assertions is not MISSING:
        global_execution = {**(global_execution or {}), k.assertions: suite_assertions}

    shared = _SuiteDefaults(
        metadata=_suite_metadata(parsed, k),
        suite_input=get(parsed, k.input),
        suite_input_files=get(parsed, k.input_files),
        suite_graders=graders.SuiteGraders(global_execution, ctx.search_roots, suite_preprocessors, path, k),
        global_evaluator=global_evaluator or "llm-grader",
    )
    for index, (raw, source_file, yaml_path) in enumerate(entries):
        _load_yaml_test(ctx, suite, shared, index, raw, source_file, yaml_path)


class _SuiteDefaults:
    """What every test of a YAML suite starts from, read once per suite."""

    __slots__ = (
        "global_evaluator",
        "has_suite_input",
        "has_suite_input_files",
        "metadata",
        "processed_suite_input",
        "suite_graders",
        "suite_input",
        "suite_input_files",
    )

    def __init__(
        self,
        *,
        metadata: dict[str, Any] | None,
        suite_input: Any,
        suite_input_files: Any,
        suite_graders: graders.SuiteGraders,
        global_evaluator: str,
    ) -> None:
        self.metadata = metadata
        self.suite_input = suite_input
        self.suite_input_files = suite_input_files
        # the runtime applies the suite's `input`/`input_files` only when they are truthy
        self.has_suite_input = truthy(suite_input)
        self.has_suite_input_files = truthy(suite_input_files)
        self.suite_graders = suite_graders
        self.global_evaluator = global_evaluator
        # `suite_input` processed once (messages, texts, file paths), see `_suite_input_messages`
        self.processed_suite_input: tuple[list[dict[str, Any]], list[str], list[str]] | None = None


def _resolve_tests_key(ctx: LoadContext, parsed: dict[str, Any], path: str) -> tuple[str, Any]:
    tests = ctx.keys.tests
    if get(parsed, tests) is not MISSING:
        return tests, parsed[tests]
    for key in ctx.keys.deprecated_tests:
        if get(parsed, key) is not MISSING:
            ctx.warn(
                f"'{key}' is deprecated. Use '{tests}' instead.",
                "v4-deprecated-key",
                file=path,
                yaml_path=(key,),
            )
            return key, parsed[key]
    return tests, MISSING


def _load_yaml_test(
    ctx: LoadContext,
    suite: SuiteLoad,
    shared: _SuiteDefaults,
    index: int,
    raw: Any,
    src: str,
    base: YamlPath,
) -> None:
    """One `tests` entry, as the runtime's loop body does it. Speed matters here (it runs for
    every test of suites of 10,000): plain `dict.get` stands for `get` wherever an absent key
    and a null mean the same, and work is skipped where its result would be thrown away.
    The order of everything that prints or throws is the runtime's."""
    k = ctx.keys
    if not isinstance(raw, dict):
        ctx.warn(
            "Skipping invalid test entry (expected object)",
            "v4-test-not-object",
            file=src,
            yaml_path=base,
        )
        suite.skipped.append(SkippedTest(index, None, "expected object", src, base, "v4-test-not-object"))
        return
    test_id = raw.get(k.id)
    if not isinstance(test_id, str):
        test_id = None
    variables = raw.get(k.vars)
    case_vars: dict[str, Any] | None = variables if isinstance(variables, dict) else None
    case = raw if case_vars is None else _render_case(raw, case_vars, k)
    read = case.get  # None for an absent key as for null: used where the runtime treats both alike

    conversation_id = read(k.conversation_id)
    if not isinstance(conversation_id, str):
        conversation_id = None
    outcome = read(k.criteria)
    if not isinstance(outcome, str):
        outcome = None
    if not outcome and k.expected_outcome in case:
        outcome = as_string(case[k.expected_outcome])
        if outcome:
            _warn_expected_outcome(ctx, test_id, src, base)
    execution = read(k.execution)
    skip_defaults = isinstance(execution, dict) and execution.get(k.skip_defaults) is True

    suite_files = shared.suite_input_files
    effective_suite_files = (
        _template(suite_files, case_vars) if shared.has_suite_input_files and not skip_defaults else MISSING
    )
    input_messages = resolve_input_messages(case, effective_suite_files, k)
    expected_value = read(k.expected_output)
    expected_messages = expand_expected_output(expected_value) or []

    turns = read(k.turns)
    has_spec = (
        bool(outcome)
        or len(expected_messages) > 0
        or k.assertions in case
        or k.deprecated_assertions in case
        or (isinstance(turns, list) and len(turns) > 0)
    )
    if not test_id or not has_spec or not input_messages:
        shown = test_id if test_id is not None else "unknown"
        missing = _missing_fields(
            k,
            test_id,
            has_spec,
            input_messages,
            f"{k.criteria}, {k.expected_output}, {k.assertions} or {k.turns}",
        )
        _skip_test(
            ctx,
            suite,
            SkippedTest(index, test_id, _incomplete_reason(missing), src, base, "v4-skipped-test"),
            f"Skipping incomplete test: {shown}. {_incomplete(k)}",
            {"id": test_id, "missing": missing},
        )
        return

    text_parts: list[str] = []
    file_paths: list[str] = []  # those of the input's file segments, in order
    if shared.has_suite_input and not skip_defaults:
        suite_value = shared.suite_input if case_vars is None else _template(shared.suite_input, case_vars)
        resolved_input = _suite_input_messages(ctx, shared, suite_value, text_parts, file_paths)
    else:
        resolved_input = []
    resolved_input.extend(
        process_messages(
            ctx,
            input_messages,
            text_parts,
            "input",
            partial(
                resolved_input_origins,
                case,
                effective_suite_files,
                src,
                base,
                suite.eval_path,
                input_messages,
                k,
            ),
            file_paths,
        )
    )
    output = (
        process_expected_messages(
            ctx,
            expected_messages,
            partial(expected_origins, expected_value, src, (*base, k.expected_output)),
        )
        if expected_messages
        else []
    )
    reference = reference_answer(output)
    question = join_question(text_parts)

    evaluator = read(k.evaluator)
    evaluator_kind = (  # anything but a string is no grader kind, and says nothing
        graders.coerce_evaluator(ctx, evaluator, test_id, src, (*base, k.evaluator))
        if isinstance(evaluator, str)
        else None
    )
    try:
        assertions = shared.suite_graders.parse_test(ctx, case, test_id, src, base, skip_defaults)
    except TestRejected as rejected:
        _skip_test(
            ctx,
            suite,
            SkippedTest(index, test_id, rejected.message, src, base, "v4-skipped-test-graders"),
            f"Skipping test '{test_id}': {rejected.message}",
            {"id": test_id, "cause": rejected.code},
            at=rejected.yaml_path,
        )
        return
    assertions = _with_inline_rubrics(ctx, assertions, read(k.rubrics), src, base)
    workspace = read(k.workspace)
    if isinstance(workspace, str | dict):  # anything else means nothing to the runtime
        _resolve_workspace(ctx, workspace, os.path.dirname(suite.eval_path), src, (*base, k.workspace))
    if isinstance(turns, list):
        _check_turns(turns, src, base, k)

    suite.tests.append(
        V4Test(
            index=index,
            id=test_id,
            source_file=src,
            yaml_path=base,
            conversation_id=conversation_id,
            criteria=outcome or "",
            question=question,
            input=resolved_input,
            expected_output=output,
            reference_answer=reference,
            file_paths=file_paths,
            evaluator=evaluator_kind or shared.global_evaluator,
            assertions=assertions,
            metadata=_merge_metadata(read(k.metadata), shared.metadata),
            raw=case,
        )
    )


def _suite_input_messages(
    ctx: LoadContext, shared: _SuiteDefaults, suite_value: Any, text_parts: list[str], file_paths: list[str]
) -> list[dict[str, Any]]:
    """The suite's `input` messages a test starts with (their text added to `text_parts`, the
    paths of their file segments to `file_paths`).
    The runtime processes them again for every test; the same value gives the same
    messages, so they are processed once per suite when not rendered with the test's
    `vars` (the value is then the suite's own object), unless that printed something (a
    missing file is reported for each test). The messages are shared read-only."""
    reusable = suite_value is shared.suite_input
    if reusable and shared.processed_suite_input is not None:
        messages, texts, paths = shared.processed_suite_input
        text_parts.extend(texts)
        file_paths.extend(paths)
        return list(messages)
    suite_messages = expand_input_shorthand(suite_value)
    if not suite_messages:
        return []
    printed = len(ctx.messages)
    texts_start, paths_start = len(text_parts), len(file_paths)
    messages = process_messages(
        ctx,
        suite_messages,
        text_parts,
        "input",
        input_origins(suite_value, ctx.eval_path, (ctx.keys.input,)),
        file_paths,
    )
    if reusable and len(ctx.messages) == printed:
        shared.processed_suite_input = (messages, text_parts[texts_start:], file_paths[paths_start:])
    return list(messages)


def _suite_metadata(suite: dict[str, Any], k: Keys) -> dict[str, Any] | None:
    """`extractSuiteMetadataPayload`: top-level `metadata`, with `governance` on top."""
    metadata = suite.get(k.metadata)
    payload = dict(metadata) if is_object(metadata) else {}
    top = suite.get(k.governance)
    if is_object(top):
        payload[k.governance] = top
    return payload or None


def _merge_metadata(case_metadata: Any, suite_payload: dict[str, Any] | None) -> dict[str, Any] | None:
    """`mergeSuiteMetadataPayload`: arrays concatenate (suite first, deduplicated), objects
    merge recursively, the case's scalars win."""
    own = case_metadata if is_object(case_metadata) else None
    if suite_payload is None:
        return own
    result = dict(own or {})
    for key, suite_value in suite_payload.items():
        case_value = result.get(key, MISSING)
        if isinstance(suite_value, list) and isinstance(case_value, list):
            seen: set[str] = set()
            merged: list[Any] = []
            for item in [*suite_value, *case_value]:
                identity = item if isinstance(item, str) else js_json_stringify(item)
                if identity not in seen:
                    seen.add(identity)
                    merged.append(item)
            result[key] = merged
        elif is_object(suite_value) and is_object(case_value):
            result[key] = _merge_metadata(case_value, suite_value)
        elif case_value is MISSING:
            result[key] = suite_value
    return result


def _missing_fields(
    k: Keys, test_id: str | None, has_spec: bool, messages: list[dict[str, Any]] | None, spec: str
) -> list[str]:
    """What made a test incomplete: its id (absent, empty or not a string), its input (absent
    or no valid message), and/or `spec` (no way to grade it), each named as the file names it."""
    missing = []
    if not test_id:
        missing.append(k.id)
    if not messages:
        missing.append(k.input)
    if not has_spec:
        missing.append(spec)
    return missing


def _incomplete_reason(missing: list[str]) -> str:
    return "incomplete: no " + "; no ".join(missing)


def _template(value: Any, case_vars: dict[str, Any] | None) -> Any:
    if case_vars is None or value is MISSING:
        return value
    return interpolate_template_vars(value, case_vars)


def _render_case(raw: dict[str, Any], case_vars: dict[str, Any] | None, k: Keys) -> dict[str, Any]:
    """`interpolateRawEvalCase`: `{{ var }}` in the fields that carry test content."""
    if case_vars is None:
        return raw
    rendered = dict(raw)
    for key in (k.criteria, k.expected_outcome, k.input, k.input_files, k.expected_output):
        if key in raw:
            rendered[key] = interpolate_template_vars(raw[key], case_vars)
    if k.turns in raw and isinstance(raw[k.turns], list):
        rendered[k.turns] = [
            {
                **turn,
                k.input: interpolate_template_vars(turn.get(k.input, MISSING), case_vars),
                k.expected_output: interpolate_template_vars(turn.get(k.expected_output, MISSING), case_vars),
            }
            if is_object(turn)
            else turn
            for turn in raw[k.turns]
        ]
        for turn in rendered[k.turns]:
            if is_object(turn):  # `{...turn, input: undefined}` keeps the key; JSON drops it
                for key in (k.input, k.expected_output):
                    if turn[key] is MISSING:
                        del turn[key]
    return rendered


def _check_turns(turns: Any, file: str, base: YamlPath, k: Keys) -> None:
    """`parseTurns` reads `turn.input` of every entry: a null entry throws a TypeError."""
    if not isinstance(turns, list):
        return
    for i, turn in enumerate(turns):
        if turn is None:
            raise _type_error(
                f"Cannot read properties of null (reading '{k.input}')", file, (*base, k.turns, i)
            )


# -- external tests: file, directory, file:// ----------------------------------------------------


def _load_external_tests(ctx: LoadContext, suite: SuiteLoad, target: str, tests_key: str) -> list[TestEntry]:
    suite.tests_source = target
    if stat_kind(ctx.fs, target) == "dir":
        return _load_cases_from_directory(ctx, target)
    return _load_cases_from_file(ctx, target, (tests_key,))


def _load_cases_from_file(ctx: LoadContext, path: str, cause: YamlPath) -> list[TestEntry]:
    ext = node_extname(path).lower()
    try:
        content = ctx.fs.read_document(path)
    except FileReadError as exc:
        raise LoadFailure(
            f"Cannot read external test file: {path}\n  {exc}",
            "v4-cases-file",
            file=ctx.eval_path,
            yaml_path=cause,
        ) from exc
    if js_trim(content) == "":
        ctx.warn(
            f"External test file is empty, skipping: {path}",
            "v4-cases-empty",
            file=ctx.eval_path,
            yaml_path=cause,
            data={"cases_file": path},
        )
        return []
    if ext in (".yaml", ".yml"):
        parsed = ctx.with_env(parse_yaml_value(content, path), content)
        if not isinstance(parsed, list):
            raise LoadFailure(
                f"External test file must contain a YAML array, got {js_typeof(parsed)}: {path}",
                "v4-cases-file",
                file=path,
                yaml_path=(),
            )
        entries: list[TestEntry] = []
        for i, item in enumerate(parsed):
            if not is_object(item):
                raise LoadFailure(
                    f"External test file contains non-object entry: {path}",
                    "v4-cases-file",
                    file=path,
                    yaml_path=(i,),
                )
            entries.append((item, path, (i,)))
        return entries
    if ext == ".jsonl":
        return [
            (value, path, (line - 1,))
            for line, value in _parse_jsonl(
                ctx, content, lambda n, m: f"Malformed JSONL at line {n}: {m}\n  File: {path}", path
            )
        ]
    raise LoadFailure(
        f"Unsupported external test file format '{ext}': {path}. Supported: .yaml, .yml, .jsonl",
        "v4-cases-file",
        file=ctx.eval_path,
        yaml_path=cause,
    )


def _parse_jsonl(
    ctx: LoadContext, content: str, describe: Any, path: str
) -> list[tuple[int, dict[str, Any]]]:
    """Non-blank lines as objects; the first bad line throws `describe(line_number, reason)`."""
    rows: list[tuple[int, dict[str, Any]]] = []
    for i, raw_line in enumerate(content.split("\n")):
        line = js_trim(raw_line)
        if line == "":
            continue
        try:
            value = parse_json(line)
        except JsonParseError as exc:
            raise LoadFailure(describe(i + 1, str(exc)), "v4-jsonl-parse", file=path, yaml_path=(i,)) from exc
        value = ctx.with_env(value, line)
        if not is_object(value):
            raise LoadFailure(
                describe(i + 1, "Expected JSON object"), "v4-jsonl-parse", file=path, yaml_path=(i,)
            )
        rows.append((i + 1, value))
    return rows


def _load_cases_from_directory(ctx: LoadContext, directory: str) -> list[TestEntry]:
    try:
        if not ctx.fs.is_allowed(directory):
            raise PermissionError(13, "permission denied")
        listing = ctx.fs.scandir(directory)
        subdirs = sorted((e.name for e in listing if e.is_dir(follow_symlinks=False)), key=js_sort_key)
    except OSError as exc:
        code = {2: "ENOENT", 13: "EACCES", 20: "ENOTDIR"}.get(exc.errno or 0, "EIO")
        text = {
            "ENOENT": "no such file or directory",
            "EACCES": "permission denied",
            "ENOTDIR": "not a directory",
        }
        raise LoadFailure(
            f"{code}: {text.get(code, 'i/o error')}, scandir '{directory}'",
            "v4-cases-file",
            file=ctx.eval_path,
        ) from exc
    entries: list[TestEntry] = []
    for name in subdirs:
        subdir = os.path.join(directory, name)
        case_file = next(
            (
                c
                for c in (os.path.join(subdir, "case.yaml"), os.path.join(subdir, "case.yml"))
                if stat_kind(ctx.fs, c) == "file"
            ),
            None,
        )
        if case_file is None:
            ctx.warn(
                f"Skipping directory '{name}' — no case.yaml found",
                "v4-cases-dir-no-case",
                file=ctx.eval_path,
                yaml_path=(ctx.keys.tests,),
                data={"directory": subdir},
            )
            continue
        try:
            content = ctx.fs.read_document(case_file)
        except FileReadError as exc:
            raise LoadFailure(
                f"Cannot read case file: {case_file}\n  {exc}", "v4-cases-file", file=case_file
            ) from exc
        parsed = ctx.with_env(parse_yaml_value(content, case_file), content)
        if not is_object(parsed):
            raise LoadFailure(
                f"Case file must contain a YAML object, got {js_typeof(parsed)}: {case_file}",
                "v4-cases-file",
                file=case_file,
                yaml_path=(),
            )
        case = dict(parsed)
        k = ctx.keys
        if nullish(case.get(k.id, MISSING)):
            case[k.id] = name
        if not truthy(case.get(k.workspace, MISSING)):
            workspace_dir = os.path.join(subdir, "workspace")  # a folder on disk, not a key
            if stat_kind(ctx.fs, workspace_dir) == "dir":
                case[k.workspace] = {"template": workspace_dir}
        entries.append((case, case_file, ()))
    return entries


def _expand_file_references(
    ctx: LoadContext, tests: list[Any], eval_dir: str, path: str, tests_key: str
) -> list[TestEntry]:
    entries: list[TestEntry] = []
    for i, item in enumerate(tests):
        if isinstance(item, str) and item.startswith("file://"):
            entries.extend(_resolve_case_reference(ctx, item, eval_dir, (tests_key, i)))
        else:
            entries.append((item, path, (tests_key, i)))
    return entries


def _resolve_case_reference(ctx: LoadContext, ref: str, eval_dir: str, cause: YamlPath) -> list[TestEntry]:
    raw_path = ref[len("file://") :]
    pattern = node_resolve(eval_dir, raw_path)
    if any(c in raw_path for c in "*?{"):
        # imported here: the glob matcher takes ~15 ms to import and only a glob reference needs it
        from agentv_lsp.formats.v4.fastglob import glob_files

        walked = glob_files(ctx.fs, pattern)
        if walked.capped:
            ctx.notice(
                f"agentv-lsp stopped looking for {ref} after {walked.max_entries:,} files and folders under "
                f"{walked.base} (taken in name order): the files past them are not loaded here, though "
                "AgentV loads them. Name a narrower folder in the pattern.",
                "glob-capped",
                file=ctx.eval_path,
                yaml_path=cause,
                data={"limit": walked.max_entries, "base": walked.base},
            )
        matches = sorted(walked.files, key=js_sort_key)
        if not matches:
            ctx.warn(
                f"Glob pattern matched no files: {ref} (resolved to {pattern})",
                "v4-glob-no-match",
                file=ctx.eval_path,
                yaml_path=cause,
            )
            return []
        entries: list[TestEntry] = []
        for match in matches:
            entries.extend(_load_cases_from_file(ctx, match, cause))
        return entries
    return _load_cases_from_file(ctx, pattern, cause)


# -- JSONL suites ---------------------------------------------------------------------------


def _load_jsonl_suite(ctx: LoadContext, suite: SuiteLoad, text: str | None) -> None:
    path = suite.eval_path
    sidecar = _load_sidecar(ctx, path)
    content = text if text is not None else _read_text(ctx, path)
    rows = _parse_jsonl(ctx, content, lambda n, m: f"Line {n}: Invalid JSON - {m}\n  File: {path}", path)
    k = ctx.keys
    global_evaluator = graders.coerce_evaluator(ctx, sidecar.get(k.evaluator, MISSING), "sidecar", path, ())
    sidecar_execution = sidecar.get(k.execution)
    for index, (line, case) in enumerate(rows):
        yaml_path: YamlPath = (line - 1,)
        test_id = as_string(get(case, k.id))
        conversation_id = as_string(get(case, k.conversation_id))
        outcome = as_string(get(case, k.criteria))
        if not outcome and get(case, k.expected_outcome) is not MISSING:
            outcome = as_string(case[k.expected_outcome])
            if outcome:
                _warn_expected_outcome(ctx, test_id, path, yaml_path)
        input_messages = resolve_input_messages(case, MISSING, k)
        expected_messages = expand_expected_output(get(case, k.expected_output)) or []
        has_spec = (
            bool(outcome) or len(expected_messages) > 0 or get(case, k.deprecated_assertions) is not MISSING
        )
        if not test_id or not has_spec or not input_messages:
            shown = test_id if test_id is not None else "unknown"
            missing = _missing_fields(
                k,
                test_id,
                has_spec,
                input_messages,
                f"{k.criteria}, {k.expected_output} or {k.deprecated_assertions}",
            )
            _skip_test(
                ctx,
                suite,
                SkippedTest(index, test_id, _incomplete_reason(missing), path, yaml_path, "v4-skipped-test"),
                f"Skipping incomplete test at line {line}: {shown}. {_incomplete_jsonl(k)}",
                {"id": test_id, "line": line, "missing": missing},
            )
            continue
        text_parts: list[str] = []
        resolved_input = process_messages(
            ctx,
            input_messages,
            text_parts,
            "input",
            resolved_input_origins(case, MISSING, path, yaml_path, path, None, k),
        )
        output = (
            process_expected_messages(
                ctx,
                expected_messages,
                expected_origins(get(case, k.expected_output), path, (*yaml_path, k.expected_output)),
            )
            if expected_messages
            else []
        )
        execution = get(case, k.execution)
        merged_execution = execution if is_object(execution) else sidecar_execution
        evaluator_kind = graders.coerce_evaluator(
            ctx, get(case, k.evaluator), test_id, path, (*yaml_path, k.evaluator)
        )
        try:
            assertions = graders.parse_graders(
                ctx, case, merged_execution, ctx.search_roots, test_id, None, path, yaml_path
            )
        except TestRejected as rejected:
            _skip_test(
                ctx,
                suite,
                SkippedTest(index, test_id, rejected.message, path, yaml_path, "v4-skipped-test-graders"),
                f"Skipping test '{test_id}' at line {line}: {rejected.message}",
                {"id": test_id, "line": line},
                at=rejected.yaml_path,
            )
            continue
        assertions = _with_inline_rubrics(ctx, assertions, get(case, k.rubrics), path, yaml_path)
        suite.tests.append(
            V4Test(
                index=index,
                id=test_id,
                source_file=path,
                yaml_path=yaml_path,
                conversation_id=conversation_id,
                criteria=outcome or "",
                question=join_question(text_parts),
                input=resolved_input,
                expected_output=output,
                reference_answer=reference_answer(output),
                file_paths=collect_file_paths(resolved_input),
                evaluator=evaluator_kind or global_evaluator or "llm-grader",
                assertions=assertions,
                raw=case,
            )
        )


def _load_sidecar(ctx: LoadContext, jsonl_path: str) -> dict[str, Any]:
    base = os.path.basename(jsonl_path)
    if base.endswith(".jsonl"):
        base = base[: -len(".jsonl")]
    sidecar = os.path.join(os.path.dirname(jsonl_path), f"{base}.yaml")
    if not ctx.fs.exists(sidecar):
        return {}
    try:
        content = ctx.fs.read_text(sidecar)
        parsed = ctx.with_env(parse_yaml_value(content, sidecar), content)
    except (FileReadError, LoadFailure) as exc:
        ctx.warn(
            f"Could not read sidecar metadata from {sidecar}: {exc}", "v4-sidecar-unreadable", file=sidecar
        )
        return {}
    if not is_object(parsed):
        ctx.warn(f"Invalid sidecar metadata format in {sidecar}", "v4-sidecar-invalid", file=sidecar)
        return {}
    k = ctx.keys
    execution = parsed.get(k.execution)
    return {
        k.execution: execution if is_object(execution) else None,
        k.evaluator: parsed.get(k.evaluator, MISSING),
    }


# -- Agent Skills evals.json ---------------------------------------------------------------------


def _load_agent_skills(ctx: LoadContext, suite: SuiteLoad, text: str | None) -> None:
    """`loadTestsFromAgentSkills`: `{skill_name, evals: [{id, prompt, expected_output, files,
    assertions}]}`, each eval one test (assertions become inline llm-graders)."""
    path = suite.eval_path
    content = text if text is not None else _read_text(ctx, path)
    try:
        parsed = parse_json(content)
    except JsonParseError as exc:
        raise LoadFailure(
            f"Invalid Agent Skills evals.json: failed to parse JSON in '{path}'", "v4-json-parse", file=path
        ) from exc
    evals = parsed.get("evals") if is_object(parsed) else None
    if not isinstance(evals, list):
        raise LoadFailure(
            f"Invalid Agent Skills evals.json: missing 'evals' array in '{path}'",
            "v4-tests-missing",
            file=path,
        )
    if not evals:
        raise LoadFailure(
            f"Invalid Agent Skills evals.json: 'evals' array is empty in '{path}'",
            "v4-tests-missing",
            file=path,
        )
    skill_name = parsed.get("skill_name", MISSING)
    base_dir = os.path.dirname(path)
    for index, case in enumerate(evals):
        where: YamlPath = ("evals", index)
        if case is None:
            raise _type_error("Cannot read properties of null (reading 'id')", path, where)
        fields = case if is_object(case) else {}
        raw_id = fields.get("id", MISSING)
        prompt = fields.get("prompt", MISSING)
        if not isinstance(prompt, str) or js_trim(prompt) == "":
            ref = f"id={js_string(raw_id)}" if raw_id is not MISSING else "unknown"
            _skip_test(
                ctx,
                suite,
                SkippedTest(index, None, "missing or empty 'prompt'", path, where, "v4-skipped-test"),
                f"Skipping eval case {ref} in '{path}': missing or empty 'prompt'",
                {"id": raw_id if isinstance(raw_id, str) else None},
            )
            continue
        assertions_raw = fields.get("assertions", MISSING)
        assertions: list[dict[str, Any]] | None = None
        if truthy(assertions_raw) and _js_length(assertions_raw) > 0:
            if not isinstance(assertions_raw, list):
                raise _type_error("evalCase.assertions.map is not a function", path, (*where, "assertions"))
            assertions = [
                {"name": f"assertion-{i + 1}", "type": "llm-grader", "prompt": text_}
                for i, text_ in enumerate(assertions_raw)
            ]
        metadata: dict[str, Any] = {}
        if truthy(skill_name):
            metadata["skill_name"] = skill_name
        file_paths: list[str] = []
        files = fields.get("files", MISSING)
        if truthy(files) and _js_length(files) > 0:
            metadata["agent_skills_files"] = files
            metadata["agent_skills_base_dir"] = base_dir
            for item in files if isinstance(files, list | str) else []:
                if not isinstance(item, str):
                    raise _type_error(
                        'The "paths[1]" argument must be of type string.', path, (*where, "files")
                    )
                file_paths.append(node_resolve(base_dir, item))
        expected = fields.get("expected_output", MISSING)
        suite.tests.append(
            V4Test(
                index=index,
                id=js_string(raw_id),
                source_file=path,
                yaml_path=where,
                conversation_id=None,
                criteria=expected if isinstance(expected, str) else "",
                question=prompt,
                input=[{"role": "user", "content": prompt}],
                expected_output=[{"role": "assistant", "content": expected}] if truthy(expected) else [],
                reference_answer=expected if isinstance(expected, str) else "",
                file_paths=file_paths,
                evaluator="llm-grader",
                assertions=assertions,
                metadata=metadata or None,
                raw=fields,
                runtime_values={}
                if isinstance(expected, str)
                else {
                    "criteria": "" if nullish(expected) else expected,
                    "reference_answer": None if expected is MISSING else expected,
                },
            )
        )


def _js_length(value: Any) -> int:
    """`value.length` for a JSON value (0 where JavaScript gives undefined)."""
    if isinstance(value, str):
        return len(value.encode("utf-16-le", "surrogatepass")) // 2
    return len(value) if isinstance(value, list) else 0


# -- messages: shorthand and processing -------------------------------------------------------


class Origin:
    """Where a message was written: its file and YAML path, the path of its content list,
    or for the message `input_files` builds, where each segment's value was written."""

    __slots__ = ("content_path", "file", "path", "segments")

    def __init__(
        self,
        file: str,
        path: YamlPath,
        segments: list[tuple[str, YamlPath]] | None = None,
        content_path: YamlPath | None = None,
    ) -> None:
        self.file = file
        self.path = path
        self.segments = segments
        self.content_path = (*path, "content") if content_path is None else content_path

    def value_path(self, seg_index: int) -> tuple[str, YamlPath]:
        if self.segments is not None and seg_index < len(self.segments):
            return self.segments[seg_index]
        return self.file, (*self.content_path, seg_index, "value")


def input_origins(
    value: Any, file: str, base: YamlPath, messages: Sequence[dict[str, Any]] | None = None
) -> list[Origin]:
    """Origins of the messages `expand_input_shorthand(value)` returns (`messages`: those
    messages, when known: if every item of the list is one, no item needs testing again)."""
    if isinstance(value, list):
        if messages is not None and len(messages) == len(value):
            return [Origin(file, (*base, i)) for i in range(len(value))]
        return [Origin(file, (*base, i)) for i, m in enumerate(value) if is_test_message(m)]
    return [Origin(file, base)]


def expected_origins(value: Any, file: str, base: YamlPath) -> list[Origin]:
    """Origins of the messages `expand_expected_output(value)` returns."""
    if isinstance(value, list) and value and is_object(value[0]) and "role" in value[0]:
        return [Origin(file, (*base, i)) for i, m in enumerate(value) if is_test_message(m)]
    if isinstance(value, list):  # the list itself is the content of one assistant message
        return [Origin(file, base, content_path=base)]
    return [Origin(file, base)]


def resolved_input_origins(
    raw: dict[str, Any],
    suite_files: Any,
    file: str,
    base: YamlPath,
    suite_file: str,
    messages: Sequence[dict[str, Any]] | None = None,
    k: Keys = V4_KEYS,
) -> list[Origin]:
    """Origins for `resolve_input_messages(raw, suite_files)` (`messages`, when known: what
    it returned): with `input_files`, one message whose file blocks come from the test's
    list or the suite's, then the `input` text."""
    own = get(raw, k.input_files)
    effective = coalesce(own, suite_files)
    if effective is MISSING:
        return input_origins(get(raw, k.input), file, (*base, k.input), messages)
    if not isinstance(effective, list):
        return []
    files_at: tuple[str, YamlPath] = (
        (file, (*base, k.input_files)) if not nullish(own) else (suite_file, (k.input_files,))
    )
    segments = [(files_at[0], (*files_at[1], i)) for i, f in enumerate(effective) if isinstance(f, str)]
    segments.append((file, (*base, k.input)))
    return [Origin(file, (*base, k.input), segments)]


def is_test_message(value: Any) -> bool:
    """`isTestMessage`."""
    if not is_object(value):
        return False
    if value.get("role") not in ROLES:
        return False
    content = value.get("content")  # absent or null: neither passes a test below
    if isinstance(content, str):
        return True
    if isinstance(content, list) and all(
        isinstance(i, str) or is_object(i) for i in content
    ):  # strings or objects
        return True
    tool_calls = value.get("tool_calls")
    if isinstance(tool_calls, list) and tool_calls:
        return True
    return is_object(content)


def expand_input_shorthand(value: Any) -> list[dict[str, Any]] | None:
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if isinstance(value, list):
        messages = [m for m in value if is_test_message(m)]
        return messages or None
    if is_object(value):
        if "role" in value:
            return [value] if is_test_message(value) else None
        return [{"role": "user", "content": value}]
    return None  # null, absent, a number or a boolean


def expand_expected_output(value: Any) -> list[dict[str, Any]] | None:
    if isinstance(value, str):
        return [{"role": "assistant", "content": value}]
    if isinstance(value, list):
        if value and is_object(value[0]) and "role" in value[0]:
            messages = [m for m in value if is_test_message(m)]
            return messages or None
        return [{"role": "assistant", "content": value}]
    if is_object(value):
        if "role" in value:
            return [value] if is_test_message(value) else None
        return [{"role": "assistant", "content": value}]
    return None  # null, absent, a number or a boolean


def _expand_input_files(input_files: Any, input_text: Any) -> list[dict[str, Any]] | None:
    if not isinstance(input_files, list):
        return None
    paths = [f for f in input_files if isinstance(f, str)]
    if not paths or not isinstance(input_text, str):
        return None
    blocks: list[dict[str, Any]] = [{"type": "file", "value": p} for p in paths]
    blocks.append({"type": "text", "value": input_text})
    return [{"role": "user", "content": blocks}]


def resolve_input_messages(
    raw: dict[str, Any], suite_input_files: Any, k: Keys = V4_KEYS
) -> list[dict[str, Any]] | None:
    """`resolveInputMessages`: a test's own `input_files` beat the suite's."""
    own_files = raw.get(k.input_files)
    effective = suite_input_files if own_files is None else own_files  # `own ?? suite`
    if effective is not MISSING:
        return _expand_input_files(effective, raw.get(k.input))
    return expand_input_shorthand(raw.get(k.input))


def join_question(text_parts: list[str]) -> str:
    """The question: the messages' texts, trimmed, the empty ones left out, joined by spaces."""
    return " ".join([text for text in map(js_trim, text_parts) if text])


def process_messages(
    ctx: LoadContext,
    messages: Sequence[dict[str, Any]],
    text_parts: list[str] | None,
    message_type: str,
    origins: Sequence[Origin] | Callable[[], Sequence[Origin]],
    file_paths: list[str] | None = None,
) -> list[dict[str, Any]]:
    """`processMessages`: file and image segments resolved, text collected for the question
    (and the resolved paths of the file segments in `file_paths`, as `collect_file_paths`
    would find them). `origins[i]` says where message i was written (for the messages'
    file/YAML paths); a function giving them is called only once a segment must be located
    (a warning about it: most segments resolve)."""
    if not callable(origins):
        _check_one_origin_each(origins, messages)
    locator: _SegmentLocator | None = None
    processed: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        content = message.get("content")
        if isinstance(content, str):
            if text_parts is not None:
                text_parts.append(content)
            processed.append(message)
            continue
        if is_object(content):
            if text_parts is not None:
                text_parts.append(js_json_stringify(content, 2))
            processed.append({**message, "content": content})
            continue
        if not isinstance(content, list):
            continue
        if locator is None:
            locator = _SegmentLocator(origins, messages)
        segments: list[dict[str, Any]] = []
        for seg_index, raw_segment in enumerate(content):
            if isinstance(raw_segment, str):
                if raw_segment:
                    segments.append({"type": "text", "value": raw_segment})
                    if text_parts is not None:
                        text_parts.append(raw_segment)
                continue
            if not is_object(raw_segment):
                continue
            kind = raw_segment.get("type")
            if kind == "file":
                value = as_string(raw_segment.get("value"))
                if not value:
                    continue
                segment = _file_segment(
                    ctx, value, message_type, (locator, index, seg_index), keep=raw_segment
                )
                if segment is not None:
                    segments.append(segment)
                    if file_paths is not None:
                        file_paths.append(segment["resolvedPath"])
                continue
            if kind == "image":
                value = as_string(raw_segment.get("value"))
                if not value:
                    continue
                image = _image_segment(ctx, value, message_type, (locator, index, seg_index))
                if image is not None:
                    segments.append(image)
                continue
            segments.append(raw_segment)
            inline = raw_segment.get("value")
            if isinstance(inline, str) and text_parts is not None:
                text_parts.append(inline)
        processed.append({**message, "content": segments})
    return processed


class _SegmentLocator:
    """Where the segments of the messages being processed were written. The messages'
    origins are built when a segment is first located, which only a warning about it does:
    building them for every test would cost more than resolving its segments."""

    __slots__ = ("_messages", "_origins")

    def __init__(
        self, origins: Sequence[Origin] | Callable[[], Sequence[Origin]], messages: Sequence[dict[str, Any]]
    ) -> None:
        self._origins = origins
        self._messages = messages

    def value_path(self, index: int, seg_index: int) -> tuple[str, YamlPath]:
        """The file and YAML path of the value of segment `seg_index` of message `index`."""
        origins = self._origins
        if callable(origins):
            origins = self._origins = origins()
            _check_one_origin_each(origins, self._messages)
        return origins[index].value_path(seg_index)


# A segment to locate if a warning must name it: the locator, the message's index, the segment's.
_SegmentAt = tuple[_SegmentLocator, int, int]


def _locate(segment_at: _SegmentAt) -> tuple[str, YamlPath]:
    locator, index, seg_index = segment_at
    return locator.value_path(index, seg_index)


def _check_one_origin_each(origins: Sequence[Origin], messages: Sequence[dict[str, Any]]) -> None:
    """One origin per message, by construction (a `zip(strict=True)` that fails early)."""
    if len(origins) != len(messages):
        relation = "shorter" if len(origins) < len(messages) else "longer"
        raise ValueError(f"zip() argument 2 is {relation} than argument 1")


def _not_found_details(attempted: Sequence[str]) -> list[str]:
    return ["  Tried:", *(f"    {a}" for a in attempted)] if attempted else []


def _segment_warning(
    ctx: LoadContext,
    segment_at: _SegmentAt,
    message: str,
    code: str,
    *,
    details: Sequence[str] = (),
    data: dict[str, Any] | None = None,
) -> None:
    """A warning about a message segment, located only now that it is printed."""
    file, yaml_path = _locate(segment_at)
    ctx.warn(message, code, details=details, file=file, yaml_path=yaml_path, data=data)


def _segment_not_found(
    ctx: LoadContext,
    res: Resolution,
    value: str,
    message_type: str,
    segment_at: _SegmentAt,
    what: str,
    code: str,
) -> None:
    context = "" if message_type == "input" else " in expected_output"
    _segment_warning(
        ctx,
        segment_at,
        f"{what} not found{context}: {res.display_path}",
        code,
        details=_not_found_details(res.attempted),
        data={"attempted": list(res.attempted), "raw": value, "display": res.display_path},
    )


def _unreadable_context(message_type: str) -> str:
    return "" if message_type == "input" else " expected output"


def _file_segment(
    ctx: LoadContext,
    value: str,
    message_type: str,
    segment_at: _SegmentAt,
    keep: dict[str, Any] | None,
) -> dict[str, Any] | None:
    res = ctx.resolve(value)
    if res.resolved_path is None:
        _segment_not_found(ctx, res, value, message_type, segment_at, "File", "v4-file-not-found")
        return None
    try:
        read = ctx.fs.read(res.resolved_path)
    except FileReadError as exc:
        _segment_warning(
            ctx,
            segment_at,
            f"Could not read{_unreadable_context(message_type)} file {res.resolved_path}: {exc}",
            "v4-file-unreadable",
            data={"resolved": res.resolved_path},
        )
        return None
    if read.truncated:
        ctx.note_truncated(read, res.resolved_path, *_locate(segment_at))
    text = crlf_to_lf(read.text)
    if keep is None:
        return {"type": "file", "path": res.display_path, "text": text, "resolvedPath": res.resolved_path}
    return {**keep, "path": res.display_path, "text": text, "resolvedPath": res.resolved_path}


def _image_segment(
    ctx: LoadContext, value: str, message_type: str, segment_at: _SegmentAt
) -> dict[str, Any] | None:
    res = ctx.resolve(value)
    if res.resolved_path is None:
        _segment_not_found(ctx, res, value, message_type, segment_at, "Image file", "v4-image-not-found")
        return None
    media_type = IMAGE_MEDIA_TYPES.get(node_extname(res.resolved_path).lower())
    if media_type is None:
        _segment_warning(
            ctx,
            segment_at,
            f"Unsupported image extension for {res.display_path}. Supported: {', '.join(IMAGE_MEDIA_TYPES)}",
            "v4-image-extension",
        )
        return None
    try:
        data = read_bytes(ctx.fs, res.resolved_path)
    except FileReadError as exc:
        _segment_warning(
            ctx,
            segment_at,
            f"Could not read{_unreadable_context(message_type)} image {res.resolved_path}: {exc}",
            "v4-image-unreadable",
        )
        return None
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "image", "media_type": media_type, "source": f"data:{media_type};base64,{encoded}"}


def process_expected_messages(
    ctx: LoadContext,
    messages: Sequence[dict[str, Any]],
    origins: Sequence[Origin] | Callable[[], Sequence[Origin]],
) -> list[dict[str, Any]]:
    """`processExpectedMessages`: role, name, content (files resolved), tool_calls.
    `origins` as for `process_messages` (a function is called only to locate a segment)."""
    if not callable(origins):
        _check_one_origin_each(origins, messages)
    locator: _SegmentLocator | None = None
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        segment: dict[str, Any] = {"role": message["role"]}
        if truthy(message.get("name")):
            segment["name"] = message["name"]
        content = message.get("content")
        if isinstance(content, str):
            segment["content"] = content
        elif isinstance(content, list):
            if locator is None:
                locator = _SegmentLocator(origins, messages)
            processed: list[dict[str, Any]] = []
            for seg_index, raw_segment in enumerate(content):
                if isinstance(raw_segment, str):
                    if raw_segment:
                        processed.append({"type": "text", "value": raw_segment})
                    continue
                if not is_object(raw_segment):
                    continue
                kind = raw_segment.get("type")
                if kind in ("file", "image"):
                    value = as_string(raw_segment.get("value"))
                    if not value:
                        continue
                    segment_at = (locator, index, seg_index)
                    made = (
                        _file_segment(ctx, value, "output", segment_at, keep=None)
                        if kind == "file"
                        else _image_segment(ctx, value, "output", segment_at)
                    )
                    if made is not None:
                        processed.append(made)
                    continue
                processed.append(raw_segment)
            segment["content"] = processed
        elif is_object(content):
            segment["content"] = content
        tool_calls = message.get("tool_calls")
        if isinstance(tool_calls, list):
            segment["tool_calls"] = list(tool_calls)
        out.append(segment)
    return out


def reference_answer(output: Sequence[dict[str, Any]]) -> str:
    """The last expected message's content (JSON for structured content or tool calls)."""
    if not output:
        return ""
    last = output[-1]
    content = last.get("content")
    if isinstance(content, str):
        return content
    if content is not None:
        return js_json_stringify(content, 2)
    tool_calls = last.get("tool_calls")
    if tool_calls is not None:
        return js_json_stringify(tool_calls, 2)
    return ""


def collect_file_paths(messages: Sequence[dict[str, Any]]) -> list[str]:
    paths: list[str] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):  # most messages are text
            continue
        for segment in content:
            if isinstance(segment, dict) and segment.get("type") == "file":
                resolved = segment.get("resolvedPath")
                if isinstance(resolved, str):
                    paths.append(resolved)
    return paths


# -- .agentv/config.yaml ----------------------------------------------------------------------


def _load_config(ctx: LoadContext, eval_path: str, repo_root: str) -> str | None:
    """`loadConfig`: the first valid project config from the eval folder up, else the home one.
    Only its warnings matter to loading; returns the config in use."""
    for directory in build_directory_chain(eval_path, repo_root):
        config_path = os.path.join(directory, ".agentv", "config.yaml")
        if ctx.fs.exists(config_path) and _read_config(ctx, config_path):
            return config_path
    home = ctx.env.get("AGENTV_HOME")
    home_dir = home if home and home != "undefined" else os.path.join(os.path.expanduser("~"), ".agentv")
    global_path = os.path.join(home_dir, "config.yaml")
    if ctx.fs.exists(global_path) and _read_config(ctx, global_path):
        return global_path
    return None


def _read_config(ctx: LoadContext, path: str) -> bool:
    def bad(message: str) -> bool:
        ctx.warn(message, "v4-config-invalid", file=path)
        return False

    try:
        content = ctx.fs.read_text(path)
        parsed = ctx.with_env(parse_yaml_value(content, path), content)
    except (FileReadError, LoadFailure) as exc:
        ctx.warn(f"Could not read config.yaml at {path}: {exc}", "v4-config-unreadable", file=path)
        return False
    if not is_object(parsed):
        return bad(f"Invalid config.yaml format at {path}")
    required_version = parsed.get("required_version", MISSING)
    if required_version is not MISSING and not isinstance(required_version, str):
        return bad(f"Invalid required_version in {path}, expected string")
    patterns = parsed.get("eval_patterns", MISSING)
    if patterns is not MISSING and not isinstance(patterns, list):
        return bad(f"Invalid eval_patterns in {path}, expected array")
    if isinstance(patterns, list) and not all(isinstance(p, str) for p in patterns):
        return bad(f"Invalid eval_patterns in {path}, all entries must be strings")
    _check_execution_defaults(ctx, parsed.get("execution"), path)
    _check_results_config(ctx, parsed.get("results", MISSING), path)
    _check_hooks_config(ctx, parsed.get("hooks", MISSING), path)
    return True


def _check_execution_defaults(ctx: LoadContext, raw: Any, path: str) -> None:
    if not is_object(raw):
        return

    def check(key: str, ok: bool, expected: str) -> None:
        if not ok and raw.get(key, MISSING) is not MISSING:
            ctx.warn(
                f"Invalid execution.{key} in {path}, expected {expected}", "v4-config-invalid", file=path
            )

    def is_bool(key: str) -> bool:
        return isinstance(raw.get(key), bool)

    def nonempty(key: str) -> bool:
        value = raw.get(key)
        return isinstance(value, str) and js_trim(value) != ""

    check("verbose", is_bool("verbose"), "boolean")
    check("keep_workspaces", is_bool("keep_workspaces"), "boolean")
    check("otel_file", nonempty("otel_file"), "non-empty string")
    check("export_otel", is_bool("export_otel"), "boolean")
    check("otel_backend", nonempty("otel_backend"), "non-empty string")
    check("otel_capture_content", is_bool("otel_capture_content"), "boolean")
    check("otel_group_turns", is_bool("otel_group_turns"), "boolean")
    check("pool_workspaces", is_bool("pool_workspaces"), "boolean")
    slots = raw.get("pool_slots")
    slots_ok = (
        isinstance(slots, int | float)
        and not isinstance(slots, bool)
        and float(slots).is_integer()
        and 1 <= slots <= 50
    )
    check("pool_slots", slots_ok, "integer 1-50")


def _check_results_config(ctx: LoadContext, raw: Any, path: str) -> None:
    def bad(message: str) -> None:
        ctx.warn(message, "v4-config-invalid", file=path)

    if nullish(raw):
        return
    if not is_object(raw):
        return bad(f"Invalid results in {path}, expected object")
    mode = raw.get("mode", MISSING)
    if mode is not MISSING and mode != "github":
        return bad(f"Invalid results.mode in {path}, expected 'github'")

    def trimmed(key: str) -> str:
        value = raw.get(key)
        return js_trim(value) if isinstance(value, str) else ""

    repo = trimmed("repo") or trimmed("repo_url")
    repo_path = trimmed("repo_path")
    if not repo and not repo_path:
        return bad(f"Invalid results in {path}, expected repo_url/repo or repo_path")
    if repo and repo_path:
        return bad(f"Invalid results in {path}, set only one of repo_url/repo or repo_path")
    for key in ("branch", "remote"):
        value = raw.get(key, MISSING)
        if value is not MISSING and (not isinstance(value, str) or js_trim(value) == ""):
            return bad(f"Invalid results.{key} in {path}, expected non-empty string")
    results_path = raw.get("path", MISSING)
    if results_path is not MISSING:
        if not isinstance(results_path, str) or js_trim(results_path) == "":
            return bad(f"Invalid results.path in {path}, expected non-empty string")
        shown = js_trim(results_path)
        if not _is_filesystem_path(shown):
            return bad(
                f"Invalid results.path in {path}: '{shown}' looks like a repo subdirectory. results.path now "
                "specifies the local filesystem directory for the clone (e.g., ~/data/agentv-results). Remove "
                "'path' to use the default or set an absolute/home-relative path."
            )
    auto_push = raw.get("auto_push", MISSING)
    if auto_push is not MISSING and not isinstance(auto_push, bool):
        return bad(f"Invalid results.auto_push in {path}, expected boolean")
    sync = raw.get("sync", MISSING)
    if sync is not MISSING:
        if not is_object(sync):
            return bad(f"Invalid results.sync in {path}, expected object")
        for key in ("auto_push", "require_push"):
            value = sync.get(key, MISSING)
            if value is not MISSING and not isinstance(value, bool):
                return bad(f"Invalid results.sync.{key} in {path}, expected boolean")
    prefix = raw.get("branch_prefix", MISSING)
    if prefix is not MISSING and (not isinstance(prefix, str) or js_trim(prefix) == ""):
        return bad(f"Invalid results.branch_prefix in {path}, expected non-empty string")
    return None


def _is_filesystem_path(p: str) -> bool:
    return p.startswith(("/", "~/", "~\\")) or p == "~" or re.match(r"[A-Za-z]:[/\\]", p) is not None


def _check_hooks_config(ctx: LoadContext, raw: Any, path: str) -> None:
    if nullish(raw):
        return
    if not is_object(raw):
        ctx.warn(f"Invalid hooks in {path}, expected object", "v4-config-invalid", file=path)
        return
    before = raw.get("before_session", MISSING)
    if before is not MISSING and (not isinstance(before, str) or js_trim(before) == ""):
        ctx.warn(
            f"Invalid hooks.before_session in {path}, expected non-empty string",
            "v4-config-invalid",
            file=path,
        )


# -- workspace (only what can print or throw) ---------------------------------------------------


def _resolve_workspace(ctx: LoadContext, raw: Any, eval_dir: str, file: str, where: YamlPath) -> None:
    if isinstance(raw, str):
        workspace_file = node_resolve(eval_dir, raw)
        try:
            content = ctx.fs.read_document(workspace_file)
        except FileReadError as exc:
            raise LoadFailure(
                f"Workspace file not found: {raw} (resolved to {workspace_file})",
                "v4-workspace",
                file=file,
                yaml_path=where,
            ) from exc
        parsed = ctx.with_env(parse_yaml_value(content, workspace_file), content)
        if not is_object(parsed):
            raise LoadFailure(
                f"Invalid workspace file format: {workspace_file} (expected a YAML object)",
                "v4-workspace",
                file=workspace_file,
                yaml_path=(),
            )
        produced = _parse_workspace(ctx, parsed, workspace_file, ())
        workspace = ctx.keys.workspace
        if not produced and is_object(parsed.get(workspace)):
            raise LoadFailure(
                f"Invalid workspace file format: {workspace_file} External workspace files must contain the "
                f'workspace config object directly. Remove the top-level "{workspace}:" wrapper.',
                "v4-workspace",
                file=workspace_file,
                yaml_path=(workspace,),
            )
        return
    _parse_workspace(ctx, raw, file, where)


# Keys the runtime rejects (in this order) with the text saying what replaced them
_REMOVED_WORKSPACE_KEYS = {
    "static_path": "workspace.static_path has been removed. Use workspace.path with workspace.mode=static.",
    "pool": "workspace.pool has been removed. Use workspace.mode='pooled' or 'temp'.",
    "static": "workspace.static has been removed. Use workspace.mode='static'.",
}
_REMOVED_REPO_KEYS = {
    "source": "workspace.repos[].source has been removed. Use workspace.repos[].repo.",
    "checkout": "workspace.repos[].checkout has been removed. Use top-level commit, base_commit, and ancestor.",
    "clone": "workspace.repos[].clone has been removed. Use top-level sparse if needed.",
}


def _reject_removed_keys(raw: dict[str, Any], removed: Mapping[str, str], file: str, where: YamlPath) -> None:
    for key, message in removed.items():
        if key in raw:
            raise LoadFailure(message, "v4-workspace", file=file, yaml_path=(*where, key))


def _parse_workspace(ctx: LoadContext, raw: Any, file: str, where: YamlPath) -> bool:
    """`parseWorkspaceConfig`: its errors and deprecation warnings; whether it yields a config."""
    if not is_object(raw):
        return False
    _reject_removed_keys(raw, _REMOVED_WORKSPACE_KEYS, file, where)
    produced = isinstance(raw.get("template"), str) and raw["template"] != ""
    produced |= raw.get("isolation") in ("shared", "per_test")
    repos = raw.get("repos")
    if isinstance(repos, list):
        produced = True
        for i, repo in enumerate(repos):
            _check_repo(repo, file, (*where, "repos", i))
    hooks = raw.get("hooks")
    if is_object(hooks):
        if isinstance(hooks.get("enabled"), bool):
            produced = True
        for name in ("before_all", "before_each", "after_each", "after_all"):
            hook = hooks.get(name)
            if not is_object(hook):
                continue
            if "script" in hook and "command" not in hook:
                ctx.warn(
                    "'script' is deprecated. Use 'command' instead.",
                    "v4-workspace-deprecated",
                    file=file,
                    yaml_path=(*where, "hooks", name, "script"),
                )
            command = coalesce(hook.get("command", MISSING), hook.get("script", MISSING))
            has_command = (isinstance(command, str) and js_trim(command) != "") or (
                isinstance(command, list) and any(isinstance(c, str) for c in command)
            )
            if has_command or hook.get("reset") in ("none", "fast", "strict"):
                produced = True
    produced |= raw.get("mode") in ("pooled", "temp", "static")
    produced |= isinstance(raw.get("path"), str) and raw["path"] != ""
    docker = raw.get("docker")
    produced |= is_object(docker) and isinstance(docker.get("image"), str)
    env = raw.get("env")
    if is_object(env):
        for key in ("required_commands", "required_python_modules"):
            values = env.get(key)
            if isinstance(values, list) and any(isinstance(v, str) for v in values):
                produced = True
    return bool(produced)


def _check_repo(raw: Any, file: str, where: YamlPath) -> None:
    if not is_object(raw):
        return
    _reject_removed_keys(raw, _REMOVED_REPO_KEYS, file, where)

    def read(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) and js_trim(value) != "" else None

    commit, base_commit = read("commit"), read("base_commit")
    if commit is not None and base_commit is not None and commit != base_commit:
        raise LoadFailure(
            "workspace.repos[].commit and workspace.repos[].base_commit must match.",
            "v4-workspace",
            file=file,
            yaml_path=(*where, "base_commit"),
        )
