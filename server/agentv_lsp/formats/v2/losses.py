"""Silent losses and surprises that neither the AgentV runtime nor `agentv validate` reports.

Each rule looks at the loaded cases (and the raw YAML) and says what the runtime will do
with the author's content: drop a message, lose a file's content, leave out a marker,
repeat a code block, ignore a target or an evaluator list.
"""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING, Any

from agentv_lsp.checks.model import Diagnostic, Related, Severity
from agentv_lsp.engine.jsrt import node_relative, relative_display
from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.formats.v2.config import is_guideline_file, matching_pattern
from agentv_lsp.formats.v2.loader import ROLES, CaseOutcome, EvalFile
from agentv_lsp.formats.v2.model import EvalCase, FileRef, YamlPath
from agentv_lsp.formats.v2.prompt import needs_role_markers, segments_by_message
from agentv_lsp.formats.v2.targets import read_targets, selected_target
from agentv_lsp.yamlpos import Span

if TYPE_CHECKING:
    from agentv_lsp.checks.options import CheckOptions


def role_suggestion(role: Any) -> dict[str, Any]:
    """Fix data for a misspelt role: the closest valid one (roles are case-sensitive)."""
    data: dict[str, Any] = {"expected": sorted(ROLES)}
    if isinstance(role, str):
        if role.lower() in ROLES:
            data["suggestion"] = role.lower()
        else:
            close = difflib.get_close_matches(role.lower(), sorted(ROLES), n=1, cutoff=0.5)
            if close:
                data["suggestion"] = close[0]
    return data


def eval_losses(ef: EvalFile, outcomes: list[CaseOutcome], opts: CheckOptions) -> list[Diagnostic]:
    """Every silent-loss diagnostic of an eval file: file-level rules, then each case's."""
    out = file_losses(ef, opts)
    for outcome in outcomes:
        out.extend(case_losses(ef, outcome, opts))
    return out


def file_losses(ef: EvalFile, opts: CheckOptions) -> list[Diagnostic]:
    """Rules that look across cases (duplicate ids) or at the whole file (its target)."""
    out: list[Diagnostic] = []
    emit = _Emitter(ef, out)
    first_ids: dict[str, int] = {}
    for index, raw in enumerate(ef.raw_cases):
        case_id = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(case_id, str) or not case_id:
            continue
        first = first_ids.setdefault(case_id, index)
        if first != index:
            emit.warn(
                ("evalcases", index, "id"),
                "duplicate-case-id",
                f"Duplicate case id '{case_id}' (first used by evalcases[{first}]). AgentV keeps "
                "both cases; results and `--eval-id` filtering cannot tell them apart.",
                data={"id": case_id, "first": first},
                related=(Related(ef.path, ef.doc.span_of(("evalcases", first, "id")), "first use"),),
            )
    _unknown_target(emit, ef, opts)
    return out


def case_losses(ef: EvalFile, outcome: CaseOutcome, opts: CheckOptions) -> list[Diagnostic]:
    """Rules about one loaded case (nothing for a case the runtime skips)."""
    raw = ef.raw_cases[outcome.index]
    case = outcome.case
    if case is None or not isinstance(raw, dict):
        return []
    out: list[Diagnostic] = []
    emit = _Emitter(ef, out)
    suite_evaluators = ef.global_execution is not None and ef.global_execution.get("evaluators") is not None
    _dropped_messages(emit, raw, outcome.index)
    _case_settings(emit, raw, case, suite_evaluators)
    _file_losses(emit, ef, case, opts)
    return out


class _Emitter:
    def __init__(self, ef: EvalFile, out: list[Diagnostic]) -> None:
        self.ef = ef
        self.out = out

    def add(
        self,
        path: YamlPath,
        severity: Severity,
        code: str,
        message: str,
        *,
        key: bool = False,
        data: dict[str, Any] | None = None,
        related: tuple[Related, ...] = (),
        unnecessary: bool = False,
    ) -> None:
        span = self.ef.doc.span_of(path, key=key)
        self.out.append(
            Diagnostic(self.ef.path, span, severity, code, message, path, data or {}, related, unnecessary)
        )

    def warn(self, path: YamlPath, code: str, message: str, **kw: Any) -> None:
        self.add(path, "warning", code, message, **kw)

    def info(self, path: YamlPath, code: str, message: str, **kw: Any) -> None:
        self.add(path, "information", code, message, **kw)


def _dropped_messages(emit: _Emitter, raw: dict[str, Any], index: int) -> None:
    """Messages `isTestMessage` rejects because of a plain string in a content list (the
    validator accepts those lists, so nobody else says the message is gone)."""
    for key in ("input_messages", "expected_messages"):
        messages = raw.get(key)
        if not isinstance(messages, list):
            continue
        for j, message in enumerate(messages):
            if not isinstance(message, dict) or message.get("role") not in ROLES:
                continue  # reported by the parity check, with the runtime's behaviour
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for k, item in enumerate(content):
                if not isinstance(item, dict):
                    where = "input" if key == "input_messages" else "expected"
                    emit.warn(
                        ("evalcases", index, key, j, "content", k),
                        "message-dropped-plain-item",
                        f"AgentV silently drops this whole {where} message: its content list holds a plain "
                        f"{_js_type(item)} here, and the runtime only accepts lists of mappings. "
                        "Write it as `- type: text` with `value: ...`.",
                        data={"fix": "wrap-text", "text": item if isinstance(item, str) else None},
                    )
                    break


def _js_type(value: Any) -> str:
    return "string" if isinstance(value, str) else "list" if isinstance(value, list) else "value"


def _case_settings(emit: _Emitter, raw: dict[str, Any], case: EvalCase, suite_evaluators: bool) -> None:
    base: YamlPath = ("evalcases", case.index)
    execution = raw.get("execution")
    if isinstance(execution, dict):
        if isinstance(execution.get("target"), str):
            emit.warn(
                (*base, "execution", "target"),
                "case-target-ignored",
                "AgentV ignores a per-case `execution.target`: the target is chosen once per file "
                "(`--target`, then the file's `execution.target`).",
                unnecessary=True,
            )
        if suite_evaluators and execution.get("evaluators") is None and raw.get("evaluators") is None:
            emit.warn(
                (*base, "execution"),
                "evaluators-not-inherited",
                "This case has its own `execution` block without `evaluators`, so it does NOT inherit the "
                "file's `execution.evaluators` (AgentV 2025-12 behaviour): it runs the default LLM judge.",
                key=True,
            )
    if case.evaluator == "code" and not case.evaluators:
        path = (*base, "evaluator") if "evaluator" in raw else ("evaluator",)
        emit.warn(
            path,
            "evaluator-code-runs-llm-judge",
            "`evaluator: code` without an `evaluators` list silently runs the LLM judge: AgentV has no "
            "default code evaluator. Add `evaluators: [{name: ..., type: code, script: ...}]`.",
        )


def _file_losses(emit: _Emitter, ef: EvalFile, case: EvalCase, opts: CheckOptions) -> None:
    input_refs = [r for r in case.file_refs if not r.in_expected]
    if not input_refs and not case.code_snippets:
        return
    patterns = case.guideline_patterns
    role_markers = needs_role_markers(case.input_messages, segments_by_message(case))
    guideline_names: dict[str, tuple[str, FileRef]] = {}
    for ref in input_refs:
        value_path = (*ref.yaml_path, "value")
        if ref.resolved_path is None:
            continue
        builder_subject = ref.raw if role_markers else ref.display_path
        builder_says_guideline = patterns is not None and is_guideline_file(builder_subject, patterns)
        if ref.guideline_pattern is not None:
            _guideline_extracted(emit, ef, case, ref, value_path, role_markers, builder_says_guideline, opts)
            name = os.path.basename(ref.resolved_path)
            earlier = guideline_names.get(name)
            if earlier is not None and earlier[0] != ref.resolved_path:
                emit.warn(
                    value_path,
                    "guideline-basename-collision",
                    f'Two different guideline files are both labelled <file path="{name}"> in the '
                    f"guidelines (only the basename is shown): {earlier[1].display_path} and "
                    f"{ref.display_path}. The model cannot tell them apart.",
                )
            guideline_names.setdefault(name, (ref.resolved_path, ref))
            continue
        if builder_says_guideline:
            pattern = matching_pattern(builder_subject, patterns)
            rel = node_relative(ef.repo_root, ref.resolved_path)
            emit.warn(
                value_path,
                "guideline-content-lost",
                f"The content of {ref.display_path} appears nowhere in the prompt: the loader did not treat "
                f"it as a guideline (its repo-relative path '{rel}' does not match), but the prompt builder "
                f"matches '{builder_subject}' against pattern '{pattern}' and prints only "
                f"<Attached: {builder_subject}>. Make the pattern match both, e.g. '**/{builder_subject}'.",
                data={"pattern": pattern, "relative": rel},
            )
            continue
        if role_markers and ref.raw != ref.display_path:
            emit.warn(
                value_path,
                "file-dropped-leading-slash",
                f"In this multi-turn case AgentV drops {ref.raw} from the question and chatPrompt without a "
                "word: the prompt builder looks the file up by the raw value but stored it under "
                f"'{ref.display_path}'. Remove the leading '{ref.raw[0]}'.",
                data={"fix": "strip-leading-slash", "replacement": ref.display_path},
            )
            continue
        _dot_directory(emit, ef, ref, value_path, patterns)
    if case.code_snippets and not role_markers:
        where = _first_fence_path(case, ef)
        if where is not None:
            emit.info(
                where,
                "code-fence-duplicated",
                f"AgentV appends every fenced code block of this case again at the end of the question "
                f"({len(case.code_snippets)} block(s)), so each appears twice in the flat question.",
            )


def _guideline_extracted(
    emit: _Emitter,
    ef: EvalFile,
    case: EvalCase,
    ref: FileRef,
    value_path: YamlPath,
    role_markers: bool,
    builder_says_guideline: bool,
    opts: CheckOptions,
) -> None:
    if not opts.guideline_info:
        return
    config = ef.config.path or ".agentv/config.yaml"
    message = (
        f"Guideline: extracted to `guidelines` by pattern '{ref.guideline_pattern}' "
        f"({relative_display(config, ef.repo_root)}); its content goes to the guidelines block, "
        "not inline."
    )
    if role_markers and not builder_says_guideline:
        if ref.raw.startswith("./") or "/./" in ref.raw:
            why = "micromatch never matches a './' segment"
        elif ref.raw.startswith("../") or "/../" in ref.raw:
            why = "micromatch never matches '..' segments"
        else:
            why = "the patterns match the repo-relative path but not the value as written"
        message += (
            f" No <Attached: {ref.raw}> marker appears where it is referenced: the prompt builder matches "
            f"the raw value '{ref.raw}', and {why}."
        )
    emit.info(
        value_path,
        "guideline-extracted",
        message,
        data={"pattern": ref.guideline_pattern, "config": ef.config.path, "resolved": ref.resolved_path},
        related=(Related(ef.config.path, Span(0, 0, 0, 0), "guideline_patterns"),) if ef.config.path else (),
    )


def _dot_directory(
    emit: _Emitter, ef: EvalFile, ref: FileRef, value_path: YamlPath, patterns: tuple[str, ...] | None
) -> None:
    if not patterns or ref.resolved_path is None:
        return
    rel = node_relative(ef.repo_root, ref.resolved_path).replace(os.sep, "/")
    parts = rel.split("/")
    if not any(p.startswith(".") and p not in (".", "..") for p in parts):
        return
    undotted = "/".join(p[1:] if p.startswith(".") and p not in (".", "..") else p for p in parts)
    pattern = matching_pattern(undotted, patterns)
    if pattern is not None:
        emit.warn(
            value_path,
            "guideline-dot-directory",
            f"'{rel}' is not a guideline although it looks like one for pattern '{pattern}': micromatch "
            "skips dot-directories (dot: false). Add an explicit pattern such as "
            f"'{parts[0]}/**' to guideline_patterns if it should be.",
            data={"pattern": pattern, "suggestion": f"{parts[0]}/**"},
        )


def _first_fence_path(case: EvalCase, ef: EvalFile) -> YamlPath | None:
    base: YamlPath = ("evalcases", case.index, "input_messages")
    for message, raw_index in zip(case.input_messages, case.input_message_indices, strict=True):
        content = message["content"]
        if isinstance(content, str):
            if "```" in content:
                return (*base, raw_index, "content")
            continue
        for k, item in enumerate(content):
            value = item.get("value")
            if item.get("type") == "text" and isinstance(value, str) and "```" in value:
                return (*base, raw_index, "content", k, "value")
    return None


def _unknown_target(emit: _Emitter, ef: EvalFile, opts: CheckOptions) -> None:
    selected = selected_target(ef.doc.value)
    if selected is None:
        return
    name, path = selected
    targets_path = find_targets_file(ef.path, ef.repo_root, opts.cwd, opts.fs)
    if targets_path is None:
        emit.info(
            path,
            "targets-file-missing",
            f"No targets.yaml was found for target '{name}' (looked in targets.yaml, targets.yml and "
            ".agentv/targets.yaml from this folder up to the repo root). `agentv eval` will need --targets.",
        )
        return
    targets = read_targets(targets_path, opts.fs)
    if targets is None or name in targets.names:
        return
    close = difflib.get_close_matches(name, list(targets.names), n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    emit.warn(
        path,
        "target-unknown",
        f"Target '{name}' is not defined in {relative_display(targets_path, ef.repo_root)} "
        f"(available: {', '.join(targets.names) or 'none'}). `agentv eval` will fail with "
        f"\"Target '{name}' not found\" unless --target is given.{hint}",
        data={
            "expected": list(targets.names),
            "suggestion": close[0] if close else None,
            "targets_file": targets_path,
        },
    )
