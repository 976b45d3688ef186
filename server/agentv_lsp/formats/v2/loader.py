"""Eval file -> EvalCases, as AgentV's `loadEvalCases` (yaml-parser.ts and loaders/*) does it.

The file is parsed once (`open_eval_file`); cases are loaded on demand (`load_case`), so an
editor can format one case of a 10,000-case file without touching the others. Every
runtime warning is kept as a `Notice` with the YAML path of its cause.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from agentv_lsp.engine.budget import checkpoint
from agentv_lsp.engine.files import (
    FileReadError,
    FileSystem,
    FileText,
    Resolution,
    build_search_roots,
    resolve_reference,
    truncated_message,
)
from agentv_lsp.engine.jsrt import crlf_to_lf, js_trim, node_relative, node_resolve
from agentv_lsp.formats.v2.config import ConfigLookup, is_guideline_file, load_config, matching_pattern
from agentv_lsp.formats.v2.model import EvalCase, EvaluatorConfig, FileRef, Notice, YamlPath
from agentv_lsp.yamlpos import YamlDocument, parse_yaml
from agentv_lsp.yamlpos.scalars import js_json_stringify

SCHEMA_EVAL_V2 = "agentv-eval-v2"
ROLES = frozenset(("system", "user", "assistant", "tool"))
EVALUATOR_KINDS = frozenset(("llm_judge", "code"))
_CODE_BLOCK = re.compile(r"```[\s\S]*?```")
_YAML_SUFFIX = re.compile(r"\.ya?ml$", re.IGNORECASE)
_MISSING: Any = object()


@dataclass
class EvalFile:
    """A parsed eval file and everything needed to load its cases."""

    path: str  # absolute
    given_path: str  # as the caller passed it (AgentV prints this in its errors)
    repo_root: str
    cwd: str
    fs: FileSystem
    doc: YamlDocument
    config: ConfigLookup
    search_roots: tuple[str, ...]
    load_error: str | None = None
    load_error_path: YamlPath = ()
    load_error_code: str | None = None
    dataset: str = "eval"
    global_evaluator: str = "llm_judge"
    global_execution: dict[str, Any] | None = None
    raw_cases: list[Any] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)  # config + suite-level notices, in order
    _resolutions: dict[str, Resolution] = field(default_factory=dict, repr=False)
    # Evaluator lists that parsed without a warning, by identity of the raw list (the suite's
    # `execution.evaluators` is shared by every case that inherits it).
    _evaluators: dict[int, tuple[list[Any], YamlPath, tuple[EvaluatorConfig, ...] | None]] = field(
        default_factory=dict, repr=False
    )

    @property
    def loaded(self) -> bool:
        return self.load_error is None

    def resolve(self, raw: str) -> Resolution:
        """`resolveFileReference` over this file's search roots, once per distinct value
        (suite-level evaluators and shared snippets repeat in every case)."""
        found = self._resolutions.get(raw)
        if found is None:
            found = self._resolutions[raw] = resolve_reference(raw, self.search_roots, self.fs)
        return found


@dataclass(slots=True)
class CaseOutcome:
    index: int
    case: EvalCase | None  # None when the runtime skips the entry
    notices: list[Notice]
    raw_id: Any = None


def open_eval_file(
    path: str,
    *,
    repo_root: str,
    cwd: str,
    fs: FileSystem,
    text: str | None = None,
    given_path: str | None = None,
    doc: YamlDocument | None = None,
) -> EvalFile:
    """Steps 1-6 of `loadEvalCases`: config, parse, top-level checks. Never raises."""
    absolute = node_resolve(cwd, path)
    repo_root = node_resolve(cwd, repo_root)
    search_roots = build_search_roots(absolute, repo_root, cwd)
    config = load_config(absolute, repo_root, fs)
    shown = given_path if given_path is not None else path
    if text is None and doc is None:
        try:
            text = fs.read_document(absolute)
        except FileReadError as exc:
            ef = EvalFile(absolute, shown, repo_root, cwd, fs, YamlDocument(""), config, search_roots)
            ef.notices.extend(config.notices)
            _fail(ef, str(exc), "file-unreadable")
            return ef
    if doc is None:
        doc = parse_yaml(text or "")
    ef = EvalFile(absolute, shown, repo_root, cwd, fs, doc, config, search_roots)
    ef.notices.extend(config.notices)
    if doc.error is not None:
        _fail(ef, doc.error.describe(), "yaml-" + doc.error.kind)
        return ef
    suite = doc.value
    if not isinstance(suite, dict):
        _fail(ef, f"Invalid test file format: {shown}", "file-not-object")
        return ef
    dataset = suite.get("dataset")
    trimmed = js_trim(dataset) if isinstance(dataset, str) else ""
    fallback = _YAML_SUFFIX.sub("", os.path.basename(absolute), count=1) or "eval"
    ef.dataset = trimmed or fallback
    schema = suite.get("$schema")
    if schema != SCHEMA_EVAL_V2:
        if isinstance(schema, str):
            message = f"Invalid $schema value '{schema}' in {shown}. Expected '{SCHEMA_EVAL_V2}'"
        else:
            message = (
                f"Missing required field '$schema' in {shown}.\n"
                f"Please add '$schema: {SCHEMA_EVAL_V2}' at the top of the file."
            )
        _fail(ef, message, "schema-value" if isinstance(schema, str) else "schema-missing", ("$schema",))
        return ef
    raw_cases = suite.get("evalcases")
    if not isinstance(raw_cases, list):
        _fail(
            ef,
            f"Invalid test file format: {shown} - missing 'evalcases' field",
            "evalcases-missing",
            ("evalcases",),
        )
        return ef
    ef.raw_cases = raw_cases
    ef.global_evaluator = (
        _coerce_evaluator(suite.get("evaluator"), "global", ef.notices, ("evaluator",)) or "llm_judge"
    )
    execution = suite.get("execution")
    ef.global_execution = execution if isinstance(execution, dict) else None
    return ef


def _fail(ef: EvalFile, message: str, code: str, path: YamlPath = ()) -> None:
    ef.load_error = message
    ef.load_error_code = code
    ef.load_error_path = path


def load_all(ef: EvalFile) -> list[CaseOutcome]:
    outcomes = []
    for i in range(len(ef.raw_cases)):
        checkpoint()  # the language server may stop a stale or overlong check here
        outcomes.append(load_case(ef, i))
    return outcomes


def load_case(ef: EvalFile, index: int) -> CaseOutcome:
    """Process `evalcases[index]` as the runtime's loop body does."""
    raw = ef.raw_cases[index]
    notices: list[Notice] = []
    base: YamlPath = ("evalcases", index)
    outcome = CaseOutcome(index, None, notices)
    if not isinstance(raw, dict):
        notices.append(
            _warn(ef, "case-not-object", "Skipping invalid eval case entry (expected object)", base)
        )
        return outcome
    raw_id = raw.get("id")
    outcome.raw_id = raw_id
    case_id = raw_id if isinstance(raw_id, str) else None
    conversation_id = raw.get("conversation_id")
    expected_outcome = raw.get("outcome")
    input_value = raw.get("input_messages", _MISSING)
    expected_value = raw.get("expected_messages", _MISSING)
    if (
        not case_id
        or not isinstance(expected_outcome, str)
        or not expected_outcome
        or not isinstance(input_value, list)
    ):
        shown = case_id if case_id is not None else "unknown"
        notices.append(
            _warn(
                ef,
                "case-incomplete",
                f"Skipping incomplete eval case: {shown}",
                base,
                data=_missing_fields(raw),
            )
        )
        return outcome
    has_expected = isinstance(expected_value, list) and len(expected_value) > 0
    input_indices = [i for i, m in enumerate(input_value) if is_test_message(m)]
    input_messages = [input_value[i] for i in input_indices]
    expected_indices = [i for i, m in enumerate(expected_value) if is_test_message(m)] if has_expected else []
    if has_expected and not expected_indices:
        notices.append(
            _warn(
                ef,
                "expected-none-valid",
                f"No valid expected message found for eval case: {case_id}",
                (*base, "expected_messages"),
            )
        )
        return outcome
    if len(expected_indices) > 1:
        notices.append(
            _warn(
                ef,
                "expected-multiple",
                f"Multiple expected messages found for eval case: {case_id}, using first",
                (*base, "expected_messages", expected_indices[1]),
            )
        )
    guideline_paths: list[str] = []
    text_parts: list[str] = []
    file_refs: list[FileRef] = []
    input_segments = _process_messages(
        ef,
        input_value,
        input_indices,
        (*base, "input_messages"),
        notices,
        file_refs,
        guideline_paths=guideline_paths,
        text_parts=text_parts,
    )
    output_segments = (
        _process_messages(
            ef, expected_value, expected_indices, (*base, "expected_messages"), notices, file_refs
        )
        if has_expected
        else []
    )
    code_snippets = extract_code_blocks(input_segments)
    first_expected = expected_value[expected_indices[0]] if expected_indices else None
    expected_content = first_expected.get("content") if first_expected is not None else None
    reference_answer = (
        _resolve_assistant_content(
            ef, expected_content, (*base, "expected_messages", expected_indices[0], "content"), notices
        )
        if expected_content
        else ""
    )
    question = " ".join(p for p in (js_trim(t) for t in text_parts) if p)
    evaluator_kind = (
        _coerce_evaluator(raw.get("evaluator"), case_id, notices, (*base, "evaluator"), ef)
        or ef.global_evaluator
    )
    evaluators = _parse_evaluators(ef, raw, case_id, base, notices)
    user_files = [
        s["resolvedPath"] for s in input_segments if s.get("type") == "file" and "resolvedPath" in s
    ]
    outcome.case = EvalCase(
        index=index,
        id=case_id,
        dataset=ef.dataset,
        conversation_id=conversation_id if isinstance(conversation_id, str) else None,
        expected_outcome=expected_outcome,
        evaluator=evaluator_kind,
        evaluators=evaluators,
        input_messages=input_messages,
        input_message_indices=input_indices,
        input_segments=input_segments,
        output_segments=output_segments,
        reference_answer=reference_answer,
        guideline_paths=list(guideline_paths),
        guideline_patterns=ef.config.guideline_patterns,
        file_paths=[*guideline_paths, *user_files],
        code_snippets=code_snippets,
        question=question,
        file_refs=file_refs,
    )
    return outcome


def is_test_message(value: Any) -> bool:
    """`isTestMessage`: a known role (case-sensitive) and string or all-object content."""
    if not isinstance(value, dict) or value.get("role") not in ROLES:
        return False
    content = value.get("content", _MISSING)
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(isinstance(item, dict) for item in content)


def _missing_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """Which of the three required fields made the runtime skip a case (for diagnostics)."""
    problems = []
    if not (isinstance(raw.get("id"), str) and raw.get("id")):
        problems.append("id")
    if not (isinstance(raw.get("outcome"), str) and raw.get("outcome")):
        problems.append("outcome")
    if not isinstance(raw.get("input_messages"), list):
        problems.append("input_messages")
    return {"fields": problems}


def _process_messages(
    ef: EvalFile,
    raw_messages: list[Any],
    indices: list[int],
    list_path: YamlPath,
    notices: list[Notice],
    file_refs: list[FileRef],
    *,
    guideline_paths: list[str] | None = None,
    text_parts: list[str] | None = None,
) -> list[dict[str, Any]]:
    """`processMessages`: segments for the valid messages, files resolved and read."""
    is_input = guideline_paths is not None
    patterns = ef.config.guideline_patterns
    segments: list[dict[str, Any]] = []
    for msg_index in indices:
        content = raw_messages[msg_index]["content"]
        if isinstance(content, str):
            segments.append({"type": "text", "value": content})
            if text_parts is not None:
                text_parts.append(content)
            continue
        for seg_index, raw_segment in enumerate(content):
            seg_path = (*list_path, msg_index, "content", seg_index)
            if raw_segment.get("type") == "file":
                value = raw_segment.get("value")
                if not isinstance(value, str) or not value:
                    continue
                res = ef.resolve(value)
                if res.resolved_path is None:
                    context = "" if is_input else " in expected_messages"
                    notices.append(
                        _not_found(ef, f"File not found{context}: {res.display_path}", seg_path, res)
                    )
                    file_refs.append(_ref(seg_path, res, not is_input))
                    continue
                try:
                    read = ef.fs.read(res.resolved_path)
                except FileReadError as exc:
                    context = "" if is_input else " expected output"
                    notices.append(
                        _warn(
                            ef,
                            "file-unreadable",
                            f"Could not read{context} file {res.resolved_path}: {exc}",
                            (*seg_path, "value"),
                            data={"resolved": res.resolved_path},
                        )
                    )
                    file_refs.append(_ref(seg_path, res, not is_input))
                    continue
                text = crlf_to_lf(read.text)
                _note_partial_read(ef, read, res.resolved_path, (*seg_path, "value"), notices)
                if is_input and patterns is not None and guideline_paths is not None:
                    relative = node_relative(ef.repo_root, res.resolved_path)
                    if is_guideline_file(relative, patterns):
                        guideline_paths.append(res.resolved_path)
                        file_refs.append(
                            _ref(seg_path, res, False, text, matching_pattern(relative, patterns) or "")
                        )
                        continue
                segments.append(
                    {
                        "type": "file",
                        "path": res.display_path,
                        "text": text,
                        "resolvedPath": res.resolved_path,
                    }
                )
                file_refs.append(_ref(seg_path, res, not is_input, text))
                continue
            cloned = _clone(raw_segment)
            segments.append(cloned)
            inline = cloned.get("value")
            if isinstance(inline, str) and text_parts is not None:
                text_parts.append(inline)
    return segments


def _note_partial_read(
    ef: EvalFile, read: FileText, path: str, yaml_path: YamlPath, notices: list[Notice]
) -> None:
    """Our own notices (not AgentV's) when a read was capped or the file looks binary."""
    if read.truncated:
        notices.append(
            Notice(
                "file-truncated",
                truncated_message(path, read, ef.fs.max_bytes),
                file=ef.path,
                yaml_path=yaml_path,
                prefixed=False,
                data={"size": read.size, "limit": ef.fs.max_bytes},
            )
        )
    if read.binary:
        notices.append(
            Notice(
                "file-binary",
                f"{path} looks binary (it contains NUL bytes): AgentV inlines it as UTF-8 text, with U+FFFD for "
                "invalid bytes.",
                file=ef.path,
                yaml_path=yaml_path,
                prefixed=False,
            )
        )


def _ref(
    path: YamlPath, res: Resolution, in_expected: bool, text: str | None = None, pattern: str | None = None
) -> FileRef:
    return FileRef(
        path, res.raw, res.display_path, res.resolved_path, res.attempted, in_expected, pattern, text
    )


def _clone(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v) for v in value]
    return value


def _resolve_assistant_content(
    ef: EvalFile, content: Any, content_path: YamlPath, notices: list[Notice]
) -> str:
    """`resolveAssistantContent`: the reference answer from the first expected message."""
    if isinstance(content, str):
        return content
    parts: list[tuple[str, str | None]] = []  # (content, display path when from a file)
    for seg_index, entry in enumerate(content):
        if isinstance(entry, str):
            parts.append((entry, None))
            continue
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "file":
            value = entry.get("value")
            if not isinstance(value, str) or not value:
                continue
            res = ef.resolve(value)
            seg_path = (*content_path, seg_index)
            if res.resolved_path is None:
                notices.append(
                    _not_found(ef, f"File not found in expected_messages: {res.display_path}", seg_path, res)
                )
                continue
            try:
                text = js_trim(crlf_to_lf(ef.fs.read_text(res.resolved_path)))
            except FileReadError as exc:
                notices.append(
                    _warn(
                        ef,
                        "file-unreadable",
                        f"Could not read file {res.resolved_path}: {exc}",
                        (*seg_path, "value"),
                        data={"resolved": res.resolved_path},
                    )
                )
                continue
            parts.append((text, res.display_path))
            continue
        text_value = entry.get("text")
        if isinstance(text_value, str):
            parts.append((text_value, None))
            continue
        value_value = entry.get("value")
        if isinstance(value_value, str):
            parts.append((value_value, None))
            continue
        parts.append((js_json_stringify(entry), None))
    return format_file_contents(parts)


def format_file_contents(parts: list[tuple[str, str | None]]) -> str:
    """`formatFileContents`: `<file path>` blocks joined by blank lines when any file is present."""
    if any(display is not None for _, display in parts):
        return "\n\n".join(
            f'<file path="{display}">\n{text}\n</file>' if display else text for text, display in parts
        )
    return " ".join(text for text, _ in parts)


def extract_code_blocks(segments: list[dict[str, Any]]) -> list[str]:
    blocks: list[str] = []
    for segment in segments:
        if segment.get("type") == "text":
            value = segment.get("value")
            if isinstance(value, str) and "```" in value:
                blocks.extend(_CODE_BLOCK.findall(value))
    return blocks


def _coerce_evaluator(
    candidate: Any, context: str, notices: list[Notice], path: YamlPath, ef: EvalFile | None = None
) -> str | None:
    if not isinstance(candidate, str):
        return None
    if candidate in EVALUATOR_KINDS:
        return candidate
    notices.append(
        Notice(
            "evaluator-kind-unknown",
            f"Unknown evaluator '{candidate}' in {context}, falling back to default",
            yaml_path=path,
            data={"value": candidate, "expected": sorted(EVALUATOR_KINDS)},
        )
    )
    return None


def _nullish(value: Any) -> bool:
    return value is _MISSING or value is None


def _parse_evaluators(
    ef: EvalFile, raw: dict[str, Any], case_id: str, base: YamlPath, notices: list[Notice]
) -> tuple[EvaluatorConfig, ...] | None:
    """`parseEvaluators`, including its `??` chain (null counts as absent) and the fact that
    a case-level `execution` object disables inheritance of the suite's evaluators."""
    execution = raw.get("execution", _MISSING)
    case_list = raw.get("evaluators", _MISSING)
    if isinstance(execution, dict):
        own = execution.get("evaluators", _MISSING)
        candidate, where = (
            (case_list, (*base, "evaluators")) if _nullish(own) else (own, (*base, "execution", "evaluators"))
        )
    elif not _nullish(case_list):
        candidate, where = case_list, (*base, "evaluators")
    else:
        suite = (
            ef.global_execution.get("evaluators", _MISSING) if ef.global_execution is not None else _MISSING
        )
        candidate, where = suite, ("execution", "evaluators")
    if candidate is _MISSING:
        return None
    if not isinstance(candidate, list):
        notices.append(
            _warn(ef, "evaluators-not-list", f"Skipping evaluators for '{case_id}': expected array", where)
        )
        return None
    cached = ef._evaluators.get(id(candidate))
    if cached is not None and cached[0] is candidate and cached[1] == where:
        return cached[2]
    notices_before = len(notices)
    parsed = _parse_evaluator_list(ef, candidate, where, case_id, notices)
    if len(notices) == notices_before:  # warnings name the case: only quiet lists are shared
        ef._evaluators[id(candidate)] = (candidate, where, parsed)
    return parsed


def _parse_evaluator_list(
    ef: EvalFile, candidate: list[Any], where: YamlPath, case_id: str, notices: list[Notice]
) -> tuple[EvaluatorConfig, ...] | None:
    evaluators: list[EvaluatorConfig] = []
    for i, entry in enumerate(candidate):
        path = (*where, i)
        if not isinstance(entry, dict):
            notices.append(
                _warn(
                    ef,
                    "evaluator-not-object",
                    f"Skipping invalid evaluator entry for '{case_id}' (expected object)",
                    path,
                )
            )
            continue
        name = entry.get("name")
        kind = entry.get("type")
        if not isinstance(name, str) or not name or kind not in EVALUATOR_KINDS:
            notices.append(
                _warn(
                    ef,
                    "evaluator-invalid",
                    f"Skipping evaluator with invalid name/type in '{case_id}'",
                    path,
                    data={"bad": "name" if not isinstance(name, str) or not name else "type"},
                )
            )
            continue
        if kind == "code":
            script = entry.get("script")
            if not isinstance(script, str) or not script:
                notices.append(
                    _warn(
                        ef,
                        "evaluator-no-script",
                        f"Skipping code evaluator '{name}' in '{case_id}': missing script",
                        path,
                    )
                )
                continue
            cwd = entry.get("cwd")
            cwd = cwd if isinstance(cwd, str) else None
            resolved_cwd: str | None = None
            if cwd:
                res = ef.resolve(cwd)
                if res.resolved_path is not None:
                    resolved_cwd = res.resolved_path
                else:
                    notices.append(
                        _warn(
                            ef,
                            "evaluator-cwd-missing",
                            f"Code evaluator '{name}' in '{case_id}': cwd not found ({res.display_path})",
                            (*path, "cwd"),
                            details=tuple(f"  Tried: {a}" for a in res.attempted),
                            data={"attempted": list(res.attempted)},
                        )
                    )
            else:
                resolved_cwd = ef.search_roots[0]
            evaluators.append(
                EvaluatorConfig(name, "code", path, script=script, cwd=cwd, resolved_cwd=resolved_cwd)
            )
            continue
        prompt = entry.get("prompt")
        prompt = prompt if isinstance(prompt, str) else None
        prompt_path: str | None = None
        if prompt:
            res = ef.resolve(prompt)
            if res.resolved_path is not None:
                prompt_path = res.resolved_path
            else:
                notices.append(
                    _warn(
                        ef,
                        "evaluator-prompt-inline",
                        f"Inline prompt used for evaluator '{name}' in '{case_id}' "
                        f"(file not found: {res.display_path})",
                        (*path, "prompt"),
                        details=tuple(f"  Tried: {a}" for a in res.attempted),
                        data={"attempted": list(res.attempted)},
                    )
                )
        evaluators.append(EvaluatorConfig(name, "llm_judge", path, prompt=prompt, prompt_path=prompt_path))
    return tuple(evaluators) if evaluators else None


def _warn(
    ef: EvalFile,
    code: str,
    message: str,
    path: YamlPath,
    *,
    details: tuple[str, ...] = (),
    data: dict[str, Any] | None = None,
) -> Notice:
    return Notice(code, message, file=ef.path, yaml_path=path, details=details, data=data or {})


def _not_found(ef: EvalFile, message: str, seg_path: YamlPath, res: Resolution) -> Notice:
    details = ("  Tried:", *(f"    {a}" for a in res.attempted)) if res.attempted else ()
    return _warn(
        ef,
        "file-not-found",
        message,
        (*seg_path, "value"),
        details=details,
        data={
            "attempted": list(res.attempted),
            "raw": res.raw,
            "blocked": [a for a in res.attempted if ef.fs.was_blocked(a)],
            # candidates that exist but loop (ELOOP): AgentV, like Node, treats them as missing
            "loops": [a for a in res.attempted if ef.fs.is_symlink_loop(a)],
        },
    )
