"""`parseGraders` and friends (loaders/grader-parser.ts at 4.42.4): assertion configs, the
warnings they print and the errors that make the runtime skip a test.

Which failures do what (as in the runtime):
- a warning (`Warning: Skipping contains evaluator …`) drops one grader;
- an error inside `parseGraders` (bad weight, missing prompt file, bad preprocessor, bad
  score ranges, template include problems) skips the whole test (`TestRejected`);
- `coerceEvaluator` with a deprecated judge name, suite-level preprocessor errors and
  template-reference errors outside `parseGraders` reject the whole load (`LoadFailure`).
"""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from agentv_lsp.engine.files import FileReadError
from agentv_lsp.engine.jsrt import node_resolve
from agentv_lsp.formats.v4.judge import TEMPLATE_VARIABLES
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.model import YamlPath
from agentv_lsp.formats.v4.runtime import (
    MISSING,
    LoadContext,
    LoadFailure,
    TestRejected,
    as_string,
    coalesce,
    is_number,
    is_object,
    js_string,
    js_trim,
)
from agentv_lsp.formats.v4.yamlmerge import parse_yaml_value

GRADER_KINDS = frozenset(
    (
        "code-grader",
        "llm-grader",
        "rubric",
        "composite",
        "tool-trajectory",
        "field-accuracy",
        "latency",
        "cost",
        "token-usage",
        "execution-metrics",
        "skill-trigger",
        "contains",
        "contains-any",
        "contains-all",
        "icontains",
        "icontains-any",
        "icontains-all",
        "starts-with",
        "ends-with",
        "regex",
        "is-json",
        "equals",
        "rubrics",
        "inline-assert",
    )
)
RUBRIC_OPERATORS = ("correctness", "contradiction")
MAX_INCLUDE_DEPTH = 3
PROMPT_FILE_PREFIX = "file://"
_VARIABLE = re.compile(r"\{\{\s*([a-zA-Z0-9_]+)\s*\}\}", re.ASCII)
_SOURCE_FILE = re.compile(r"\.[cm]?[jt]sx?$|\.py$|\.sh$|\.bash$|\.rb$|\.go$|\.rs$", re.IGNORECASE)

Where = tuple[str, YamlPath]  # (file, yaml path) of a grader entry
WarnFn = Callable[..., None]
CommonFn = Callable[[], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class _Entry:
    """One grader entry, as every kind's handler reads it."""

    ctx: LoadContext
    raw: dict[str, Any]
    name: str
    type_value: str
    eval_id: str
    roots: Sequence[str]
    where: Where
    warn: WarnFn  # a warning at the entry (or at a path below it)
    common: CommonFn  # weight, required, min_score and negate, validated
    preprocessors: list[dict[str, Any]] | None

    def skip(self, reason: str, sub: YamlPath = ()) -> None:
        """The warning with which the runtime drops a grader of this kind."""
        self.warn(
            f"Skipping {self.type_value} evaluator '{self.name}' in '{self.eval_id}': {reason}",
            f"v4-grader-{self.type_value}",
            sub,
        )


Handler = Callable[[_Entry], "dict[str, Any] | None"]


class GraderError(Exception):
    """`throw new Error(...)` inside the grader parser."""

    def __init__(self, message: str, where: Where | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


def _warn_at(
    ctx: LoadContext, where: Where, message: str, code: str, sub: YamlPath = (), details: Sequence[str] = ()
) -> None:
    """A warning about the value at `where` (or at `sub` below it)."""
    ctx.warn(message, code, details=details, file=where[0], yaml_path=(*where[1], *sub) if sub else where[1])


def normalize_type(value: str) -> str:
    return value.replace("_", "-")


def _is_deprecated_judge(value: str) -> bool:
    return value in ("code-judge", "llm-judge")


def coerce_evaluator(
    ctx: LoadContext, candidate: Any, context_id: Any, file: str, path: YamlPath
) -> str | None:
    """`coerceEvaluator`: a grader kind, a warning for an unknown one, a throw for a judge."""
    if not isinstance(candidate, str):
        return None
    normalized = normalize_type(candidate)
    if _is_deprecated_judge(normalized):
        raise LoadFailure(
            f"Unsupported grader '{candidate}' in {js_string(context_id)}. "
            f"Use '{normalized.replace('-judge', '-grader', 1)}' instead.",
            "v4-grader",
            file=file,
            yaml_path=path,
        )
    if normalized in GRADER_KINDS:
        return normalized
    ctx.warn(
        f"Unknown grader '{candidate}' in {js_string(context_id)}, falling back to default",
        "v4-grader-unknown-evaluator",
        file=file,
        yaml_path=path,
    )
    return None


# -- entry points ------------------------------------------------------------------------------


def _case_list(case: dict[str, Any], k: Keys) -> tuple[Any, YamlPath]:
    """The test's grader list: the first of `assertions`, `assert`, `execution.evaluators`,
    `evaluators` that is neither null nor absent (else `evaluators` as it is), and where it
    is in the test (relative, joined to the test's path only when needed)."""
    value = case.get(k.assertions)
    if value is not None:
        return value, (k.assertions,)
    value = case.get(k.deprecated_assertions)
    if value is not None:
        return value, (k.deprecated_assertions,)
    execution = case.get(k.execution)
    if isinstance(execution, dict):
        value = execution.get(k.evaluators)
        if value is not None:
            return value, (k.execution, k.evaluators)
    return case.get(k.evaluators, MISSING), (k.evaluators,)


def _root_list(
    case: dict[str, Any], global_execution: dict[str, Any] | None, k: Keys
) -> tuple[Any, YamlPath]:
    """The suite's grader list for this test (absent with `execution.skip_defaults: true`)."""
    if _skips_defaults(case, k):
        return MISSING, ()
    return _suite_list(global_execution, k)


def _skips_defaults(case: dict[str, Any], k: Keys) -> bool:
    execution = case.get(k.execution)
    return isinstance(execution, dict) and execution.get(k.skip_defaults) is True


def _suite_list(global_execution: dict[str, Any] | None, k: Keys) -> tuple[Any, YamlPath]:
    """The first of the suite's `assertions`, `assert`, `execution.evaluators` that is neither
    null nor absent (else `evaluators` as it is), and where it is in the eval file.
    (`global_execution` is the suite's `execution` with its `assertions` added by the loader.)"""
    if global_execution is None:
        return MISSING, ()
    for key, path in (
        (k.assertions, (k.assertions,)),
        (k.deprecated_assertions, (k.deprecated_assertions,)),
        (k.evaluators, (k.execution, k.evaluators)),
    ):
        value = global_execution.get(key)
        if value is not None:
            return value, path
    return global_execution.get(k.evaluators, MISSING), (k.execution, k.evaluators)


def parse_graders(
    ctx: LoadContext,
    case: dict[str, Any],
    global_execution: dict[str, Any] | None,
    search_roots: Sequence[str],
    eval_id: str,
    default_preprocessors: list[dict[str, Any]] | None,
    file: str,
    base: YamlPath,
    root_file: str | None = None,
) -> list[dict[str, Any]] | None:
    """`parseGraders`; raises TestRejected where the runtime throws."""
    root_value, root_path = _root_list(case, global_execution, ctx.keys)
    return _parse_graders(
        ctx,
        _case_list(case, ctx.keys),
        root_value,
        (root_file or ctx.eval_path, root_path),
        search_roots,
        eval_id,
        default_preprocessors,
        file,
        base,
    )


def _parse_graders(
    ctx: LoadContext,
    case_list: tuple[Any, YamlPath],
    suite_value: Any,
    suite_where: Where,
    roots: Sequence[str],
    eval_id: str,
    default_preprocessors: list[dict[str, Any]] | None,
    file: str,
    base: YamlPath,
) -> list[dict[str, Any]] | None:
    """The test's graders, then the suite's (`suite_value`, written at `suite_where`)."""
    try:
        parsed_case = _parse_case_list(ctx, case_list, roots, eval_id, default_preprocessors, file, base)
        parsed_suite = _parse_suite_list(ctx, suite_value, roots, eval_id, default_preprocessors, suite_where)
    except GraderError as exc:
        raise _rejected(exc) from exc
    return _merged(parsed_case, parsed_suite)


def _parse_case_list(
    ctx: LoadContext,
    case_list: tuple[Any, YamlPath],
    roots: Sequence[str],
    eval_id: str,
    default_preprocessors: list[dict[str, Any]] | None,
    file: str,
    base: YamlPath,
) -> list[dict[str, Any]] | None:
    value, at = case_list
    if value is MISSING:  # absent: nothing to parse (most tests)
        return None
    return _parse_list(ctx, value, roots, eval_id, default_preprocessors, (file, (*base, *at)))


def _rejected(error: GraderError) -> TestRejected:
    return TestRejected(error.message, "v4-grader", error.where[1] if error.where else None)


def _merged(
    parsed_case: list[dict[str, Any]] | None, parsed_suite: list[dict[str, Any]] | None
) -> list[dict[str, Any]] | None:
    """The test's graders, then the suite's (a new list: the suite's are shared)."""
    if parsed_case is None and parsed_suite is None:
        return None
    merged = [*(parsed_case or []), *(parsed_suite or [])]
    return merged or None


class SuiteGraders:
    """A YAML suite's part in each of its tests' graders: its grader list, found once, which
    the runtime parses again for every test (`_parse_suite_list` does it once per load) and
    whose template references it collects again: once they went through without a throw,
    they do again (the test's id only shows in the messages of the throws)."""

    def __init__(
        self,
        global_execution: dict[str, Any] | None,
        search_roots: Sequence[str],
        default_preprocessors: list[dict[str, Any]] | None,
        eval_path: str,
        keys: Keys = V4_KEYS,
    ) -> None:
        self.value, path = _suite_list(global_execution, keys)
        self.where: Where = (eval_path, path)
        self.search_roots = search_roots
        self.default_preprocessors = default_preprocessors
        self.references_checked = False

    def parse_test(
        self,
        ctx: LoadContext,
        case: dict[str, Any],
        eval_id: str,
        file: str,
        base: YamlPath,
        skip_defaults: bool,
    ) -> list[dict[str, Any]] | None:
        """`parseGraders` for one test (`skip_defaults`: its `execution.skip_defaults` is true),
        then `collectAssertionTemplateSourceReferences` (the runtime's next step): raises
        TestRejected where the first throws (the test is skipped), LoadFailure where the second
        does (the whole load fails)."""
        case_list = _case_list(case, ctx.keys)
        roots = self.search_roots
        suite_value = MISSING if skip_defaults else self.value
        parsed = _parse_graders(
            ctx, case_list, suite_value, self.where, roots, eval_id, self.default_preprocessors, file, base
        )
        try:
            case_value = case_list[0]
            if isinstance(case_value, list | dict):  # only these can hold an `include`
                _collect_refs(ctx, case_value, roots, eval_id, 0, ())
            if not (skip_defaults or self.references_checked) and isinstance(self.value, list | dict):
                _collect_refs(ctx, self.value, roots, eval_id, 0, ())
                self.references_checked = True
        except GraderError as exc:
            raise LoadFailure(exc.message, "v4-grader", file=ctx.eval_path) from exc
        except FileReadError as exc:
            raise LoadFailure(str(exc), "v4-grader", file=ctx.eval_path) from exc
        return parsed


def _parse_suite_list(
    ctx: LoadContext,
    value: Any,
    roots: Sequence[str],
    eval_id: str,
    default_preprocessors: list[dict[str, Any]] | None,
    where: Where,
) -> list[dict[str, Any]] | None:
    """The suite's assertions, which the runtime parses again for every test: the same list
    gives the same graders, so they are parsed once per load. Only a parse that printed
    nothing is reused (the runtime's messages name the test, so each test prints its own)
    and a throw is never stored; the graders are shared read-only by the tests."""
    if not isinstance(value, list):
        return _parse_list(ctx, value, roots, eval_id, default_preprocessors, where)
    key = ("suite-graders", id(value), id(default_preprocessors), tuple(roots), where)
    found = ctx.memo_get(key, value)
    if found is not MISSING and found[0] is default_preprocessors:
        parsed: list[dict[str, Any]] | None = found[1]
        return parsed
    printed = len(ctx.messages)
    parsed = _parse_list(ctx, value, roots, eval_id, default_preprocessors, where)
    if len(ctx.messages) == printed:
        ctx.memo_put(key, value, (default_preprocessors, parsed))
    return parsed


def parse_preprocessors(
    ctx: LoadContext,
    raw: Any,
    search_roots: Sequence[str],
    evaluator_name: str,
    eval_id: str,
    file: str,
    path: YamlPath,
) -> list[dict[str, Any]] | None:
    """Suite-level `preprocessors` (a throw here rejects the whole load)."""
    try:
        return _parse_preprocessors(ctx, raw, search_roots, evaluator_name, eval_id, (file, path))
    except GraderError as exc:
        raise LoadFailure(exc.message, "v4-grader", file=file, yaml_path=path) from exc


def _collect_refs(
    ctx: LoadContext, value: Any, roots: Sequence[str], eval_id: str, depth: int, chain: tuple[str, ...]
) -> None:
    if is_object(value):
        for key in ctx.keys.grader_list_keys():
            _collect_refs(ctx, value.get(key, MISSING), roots, eval_id, depth, chain)
        return
    if not isinstance(value, list):
        return
    for item in value:
        if not _is_include(item):
            if is_object(item):
                for key in ctx.keys.grader_list_keys():
                    _collect_refs(ctx, item.get(key, MISSING), roots, eval_id, depth, chain)
            continue
        include = item["include"]
        next_depth = depth + 1
        if next_depth > MAX_INCLUDE_DEPTH:
            raise GraderError(
                f"Assertion template include depth exceeded {MAX_INCLUDE_DEPTH} in '{eval_id}'. "
                f"Include chain: {' -> '.join((*chain, include))}"
            )
        _display, resolved, _attempted = _resolve_template(ctx, include, roots)
        if not resolved:
            continue
        if resolved in chain:
            raise GraderError(
                f"Assertion template cycle detected in '{eval_id}': {' -> '.join((*chain, resolved))}"
            )
        parsed = _read_yaml(ctx, resolved)
        assertions = ctx.keys.assertions
        if is_object(parsed) and isinstance(parsed.get(assertions), list):
            nested = _nested_roots(resolved, roots)
            _collect_refs(ctx, parsed[assertions], nested, eval_id, next_depth, (*chain, resolved))


# -- includes ----------------------------------------------------------------------------------


def _is_include(value: Any) -> bool:
    return is_object(value) and isinstance(value.get("include"), str) and len(value) == 1


def _resolve_template(ctx: LoadContext, include: str, roots: Sequence[str]) -> tuple[str, str, list[str]]:
    is_name = not include.startswith(".") and "/" not in include and "\\" not in include
    candidates = (
        [f".agentv/templates/{include}.yaml", f".agentv/templates/{include}.yml"] if is_name else [include]
    )
    attempted: list[str] = []
    for candidate in candidates:
        res = ctx.resolve(candidate, roots)
        attempted.extend(res.attempted)
        if res.resolved_path:
            return res.display_path, res.resolved_path, attempted
    return candidates[0], "", attempted


def _read_yaml(ctx: LoadContext, path: str) -> Any:
    text = ctx.fs.read_text(path)
    value = parse_yaml_value(text, path)
    return ctx.with_env(value, text)


def _nested_roots(template_path: str, roots: Sequence[str]) -> list[str]:
    template_dir = os.path.dirname(template_path)
    return [template_dir, *(r for r in roots if node_resolve("/", r) != template_dir)]


def _load_template_entries(
    ctx: LoadContext,
    include: str,
    roots: Sequence[str],
    eval_id: str,
    depth: int,
    chain: tuple[str, ...],
    where: Where,
) -> list[tuple[Any, Where, Sequence[str]]]:
    next_depth = depth + 1
    if next_depth > MAX_INCLUDE_DEPTH:
        raise GraderError(
            f"Assertion template include depth exceeded {MAX_INCLUDE_DEPTH} in '{eval_id}'. "
            f"Include chain: {' -> '.join((*chain, include))}",
            where,
        )
    display, resolved, attempted = _resolve_template(ctx, include, roots)
    if not resolved:
        tried = ("\n" + "\n".join(f"  Tried: {a}" for a in attempted)) if attempted else ""
        raise GraderError(f"Assertion template not found in '{eval_id}': {display}{tried}", where)
    if resolved in chain:
        raise GraderError(
            f"Assertion template cycle detected in '{eval_id}': {' -> '.join((*chain, resolved))}", where
        )
    try:
        parsed = _read_yaml(ctx, resolved)
    except FileReadError as exc:
        raise GraderError(str(exc), where) from exc
    except LoadFailure as exc:
        raise GraderError(exc.message, where) from exc
    key = ctx.keys.assertions
    if not is_object(parsed):
        raise GraderError(
            f"Invalid assertion template file in '{eval_id}': {resolved} (expected a YAML object with an "
            f"{key} array)",
            where,
        )
    assertions = parsed.get(key)
    if not isinstance(assertions, list):
        raise GraderError(
            f"Invalid assertion template file in '{eval_id}': {resolved} is missing a top-level {key} array",
            where,
        )
    nested = _nested_roots(resolved, roots)
    return (
        _expand_entries(ctx, assertions, nested, eval_id, next_depth, (*chain, resolved), (resolved, (key,)))
        or []
    )


def _expand_entries(
    ctx: LoadContext,
    value: Any,
    roots: Sequence[str],
    eval_id: str,
    depth: int,
    chain: tuple[str, ...],
    where: Where,
) -> list[tuple[Any, Where, Sequence[str]]] | None:
    """`expandGraderEntries`: entries with `include:` replaced by the template's entries.
    Each entry keeps where it was written and the search roots its paths resolve against
    (the runtime resolves included entries against the caller's roots: kept as is)."""
    if value is MISSING:
        return None
    if not isinstance(value, list):
        _warn_at(
            ctx,
            where,
            f"Skipping evaluators for '{eval_id}': expected array",
            "v4-grader-not-list",
        )
        return None
    out: list[tuple[Any, Where, Sequence[str]]] = []
    for i, item in enumerate(value):
        item_where = (where[0], (*where[1], i))
        if _is_include(item):
            out.extend(_load_template_entries(ctx, item["include"], roots, eval_id, depth, chain, item_where))
            continue
        out.append((item, item_where, roots))
    return out


# -- the list ------------------------------------------------------------------------------------


def _parse_list(
    ctx: LoadContext,
    value: Any,
    roots: Sequence[str],
    eval_id: str,
    default_preprocessors: list[dict[str, Any]] | None,
    where: Where,
) -> list[dict[str, Any]] | None:
    expanded = _expand_entries(ctx, value, roots, eval_id, 0, (), where)
    if expanded is None:
        return None
    entries = _group_string_criteria(ctx, expanded, eval_id)
    graders: list[dict[str, Any]] = []
    for raw, entry_where, _entry_roots in entries:
        parsed = _parse_one(ctx, raw, roots, eval_id, default_preprocessors, entry_where)
        if parsed is not None:
            graders.append(parsed)
    return graders or None


def _group_string_criteria(
    ctx: LoadContext, expanded: list[tuple[Any, Where, Sequence[str]]], eval_id: str
) -> list[tuple[Any, Where, Sequence[str]]]:
    """Plain strings become one `rubrics` grader at the first string's position."""
    first = next((i for i, (v, _w, _r) in enumerate(expanded) if isinstance(v, str)), -1)
    if first == -1:
        return expanded
    criteria: list[str] = []
    result: list[tuple[Any, Where, Sequence[str]] | None] = []
    placeholder_at = -1
    for item in expanded:
        value = item[0]
        if isinstance(value, str):
            trimmed = js_trim(value)
            if not trimmed:
                _warn_at(
                    ctx,
                    item[1],
                    f"Skipping empty string criterion in assert array for '{eval_id}'",
                    "v4-grader-empty-criterion",
                )
            else:
                criteria.append(trimmed)
            if placeholder_at == -1:
                placeholder_at = len(result)
                result.append(None)
        else:
            result.append(item)
    if criteria:
        _v, where, roots = expanded[first]
        result[placeholder_at] = (
            {"type": "rubrics", "criteria": criteria, "weight": len(criteria)},
            where,
            roots,
        )
    else:
        del result[placeholder_at]
    return [r for r in result if r is not None]


def _parse_one(
    ctx: LoadContext,
    raw: Any,
    roots: Sequence[str],
    eval_id: str,
    default_preprocessors: list[dict[str, Any]] | None,
    where: Where,
) -> dict[str, Any] | None:
    file, path = where

    warn: WarnFn = partial(_warn_at, ctx, where)

    if not is_object(raw):
        warn(f"Skipping invalid evaluator entry for '{eval_id}' (expected object)", "v4-grader-not-object")
        return None
    raw_name = as_string(raw.get("name"))
    raw_type = raw.get("type", MISSING)
    type_value = normalize_type(raw_type) if isinstance(raw_type, str) else raw_type
    if isinstance(type_value, str) and _is_deprecated_judge(type_value):
        warn(
            f"Skipping evaluator '{raw_name if raw_name is not None else '<unnamed>'}' in '{eval_id}': "
            f"'{raw_type}' is deprecated. Use '{type_value.replace('-judge', '-grader', 1)}' instead",
            "v4-grader-deprecated-type",
            ("type",),
        )
        return None
    if not isinstance(type_value, str):
        warn(f"Skipping evaluator with invalid type in '{eval_id}'", "v4-grader-invalid-type", ("type",))
        return None
    is_custom = type_value not in GRADER_KINDS
    name = (
        raw_name if raw_name is not None else (type_value if is_custom else _generate_name(type_value, raw))
    )
    if not name:
        warn(f"Skipping evaluator with missing name in '{eval_id}'", "v4-grader-missing-name", ("name",))
        return None
    negate = True if raw.get("negate") is True else None
    preprocessors = _merged_preprocessors(
        ctx,
        raw.get("preprocessors", MISSING),
        default_preprocessors,
        roots,
        name,
        eval_id,
        (file, (*path, "preprocessors")),
    )

    def common() -> dict[str, Any]:
        weight = _validate_weight(raw.get("weight", MISSING), name, eval_id, (file, (*path, "weight")))
        extra: dict[str, Any] = {}
        if weight is not None:
            extra["weight"] = weight
        extra.update(_required_and_min_score(ctx, raw, name, eval_id, where))
        if negate is not None:
            extra["negate"] = negate
        return extra

    if is_custom:
        base = common()
        known = {"name", "type", "weight", "required", "min_score", "negate"}
        config = {k: v for k, v in raw.items() if k not in known}
        return {"name": name, "type": type_value, **base, **({"config": config} if config else {})}

    handler = _HANDLERS.get(type_value)
    entry = _Entry(ctx, raw, name, type_value, eval_id, roots, where, warn, common, preprocessors)
    return (handler or _llm_grader)(entry)


# -- per kind -------------------------------------------------------------------------------------


# a code-grader's own keys; any other key is passed to the script as config
_CODE_GRADER_KEYS = frozenset(
    [
        "name",
        "type",
        "command",
        "script",
        "cwd",
        "weight",
        "target",
        "config",
        "preprocessors",
        "required",
        "min_score",
        "negate",
    ]
)
# an llm-grader's own keys; any other key is config
_LLM_GRADER_KEYS = frozenset(
    [
        "name",
        "type",
        "prompt",
        "model",
        "rubrics",
        "target",
        "weight",
        "config",
        "required",
        "min_score",
        "negate",
        "max_steps",
        "maxSteps",
        "temperature",
        "preprocessors",
    ]
)


def _extra_config(raw: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The entry's other keys, then its `config` object on top (as the runtime spreads them)."""
    config = {k: v for k, v in raw.items() if k not in known}
    top = raw.get("config")
    config.update(top if is_object(top) else {})
    return config


def _code_grader(e: _Entry) -> dict[str, Any] | None:
    ctx, raw, name, eval_id, roots = e.ctx, e.raw, e.name, e.eval_id, e.roots
    where, warn, preprocessors = e.where, e.warn, e.preprocessors
    file, path = where
    if raw.get("script", MISSING) is not MISSING and raw.get("command", MISSING) is MISSING:
        _warn_at(
            ctx,
            where,
            f"'script' is deprecated in evaluator '{name}' in '{eval_id}'. Use 'command' instead.",
            "v4-grader-deprecated-script",
            ("script",),
        )
    raw_command = coalesce(raw.get("command", MISSING), raw.get("script", MISSING))
    if isinstance(raw_command, str):
        trimmed = js_trim(raw_command)
        if not trimmed:
            raise GraderError(
                f"Invalid code-grader command for evaluator '{name}' in '{eval_id}': command cannot be empty",
                where,
            )
        command: list[str] | None = ["sh", "-lc", trimmed]
    else:
        command = _string_array(
            raw_command, f"code-grader command for evaluator '{name}' in '{eval_id}'", where
        )
    if not command:
        warn(
            f"Skipping code-grader evaluator '{name}' in '{eval_id}': missing command",
            "v4-grader-missing-command",
        )
        return None
    weight = _validate_weight(raw.get("weight", MISSING), name, eval_id, (file, (*path, "weight")))
    script_path = _optional_command_source(ctx, command, roots)
    cwd = as_string(raw.get("cwd"))
    resolved_cwd: str | None = None
    if cwd:
        res = ctx.resolve(cwd, roots)
        if res.resolved_path:
            resolved_cwd = res.resolved_path
        else:
            warn(
                f"Code-grader evaluator '{name}' in '{eval_id}': cwd not found ({res.display_path})",
                "v4-grader-cwd-not-found",
                ("cwd",),
                [f"  Tried: {a}" for a in res.attempted],
            )
    else:
        resolved_cwd = roots[0]
    target = raw.get("target", MISSING)
    target_config: dict[str, Any] | None = None
    if target is not MISSING:
        if is_object(target):
            max_calls = target.get("max_calls", MISSING)
            if max_calls is not MISSING and (not is_number(max_calls) or max_calls < 0):
                warn(
                    f"Invalid target.max_calls for evaluator '{name}' in '{eval_id}': must be a non-negative number",
                    "v4-grader-target",
                    ("target", "max_calls"),
                )
            else:
                target_config = {"max_calls": max_calls} if is_number(max_calls) else {}
        elif target is True:
            target_config = {}
        else:
            warn(
                f"Invalid target config for evaluator '{name}' in '{eval_id}': expected object or true",
                "v4-grader-target",
                ("target",),
            )
    extra = _required_and_min_score(ctx, raw, name, eval_id, where)
    config = _extra_config(raw, _CODE_GRADER_KEYS)
    out: dict[str, Any] = {"name": name, "type": "code-grader", "command": command}
    if script_path:
        out["resolvedScriptPath"] = script_path
    if cwd is not None:  # undefined keys vanish from the runtime's objects
        out["cwd"] = cwd
    if resolved_cwd is not None:
        out["resolvedCwd"] = resolved_cwd
    if weight is not None:
        out["weight"] = weight
    out.update(extra)
    if raw.get("negate") is True:
        out["negate"] = True
    if config:
        out["config"] = config
    if preprocessors:
        out["preprocessors"] = preprocessors
    if target_config is not None:
        out["target"] = target_config
    return out


def _composite(e: _Entry) -> dict[str, Any] | None:
    ctx, raw, name, eval_id, roots = e.ctx, e.raw, e.name, e.eval_id, e.roots
    where, common = e.where, e.common
    file, path = where
    members_key = next(
        (k for k in ctx.keys.grader_list_keys() if raw.get(k) is not None), ctx.keys.assertions
    )
    members = raw.get(members_key)
    if not isinstance(members, list):
        e.skip("missing assertions (or evaluators) array")
        return None
    aggregator = raw.get("aggregator")
    if not is_object(aggregator):
        e.skip("missing aggregator")
        return None
    agg_type = as_string(aggregator.get("type"))
    normalized = (
        (agg_type if agg_type in ("weighted_average", "threshold") else normalize_type(agg_type))
        if agg_type is not None
        else None
    )
    if normalized is not None and _is_deprecated_judge(normalized):
        e.skip(
            f"aggregator type '{agg_type}' is deprecated. "
            f"Use '{normalized.replace('-judge', '-grader', 1)}' instead",
            ("aggregator", "type"),
        )
        return None
    if normalized not in ("weighted_average", "code-grader", "llm-grader", "threshold"):
        e.skip(
            f"invalid aggregator type '{js_string(agg_type if agg_type is not None else MISSING)}'",
            ("aggregator", "type"),
        )
        return None
    expanded = _expand_entries(ctx, members, roots, f"{eval_id}:{name}", 0, (), (file, (*path, members_key)))
    if expanded is None:
        return None
    parsed_members: list[dict[str, Any]] = []
    for member, member_where, _r in expanded:
        if not is_object(member):
            _warn_at(
                ctx,
                member_where,
                f"Skipping invalid member evaluator in composite '{name}' (expected object)",
                "v4-grader-composite-member",
            )
            continue
        member_name = as_string(member.get("name"))
        member_type = member.get("type")
        if not member_name or member_type not in GRADER_KINDS or not isinstance(member_type, str):
            _warn_at(
                ctx,
                member_where,
                f"Skipping member evaluator with invalid name/type in composite '{name}'",
                "v4-grader-composite-member",
            )
            continue
        parsed = _parse_list(
            ctx,
            [member],
            roots,
            f"{eval_id}:{name}:{member_name}",
            None,
            (member_where[0], member_where[1][:-1]),
        )
        if parsed:
            parsed_members.append(parsed[0])
    if not parsed_members:
        e.skip("no valid member evaluators")
        return None
    agg: dict[str, Any]
    if normalized == "weighted_average":
        weights = aggregator.get("weights")
        parsed_weights = {k: v for k, v in weights.items() if is_number(v)} if is_object(weights) else {}
        agg = {"type": "weighted_average", **({"weights": parsed_weights} if parsed_weights else {})}
    elif normalized == "code-grader":
        agg_path = as_string(aggregator.get("path"))
        if not agg_path:
            e.skip("code-grader aggregator missing path", ("aggregator", "path"))
            return None
        agg = {"type": "code-grader", "path": agg_path, "cwd": roots[0]}
    elif normalized == "threshold":
        threshold = aggregator.get("threshold")
        if not is_number(threshold) or threshold < 0 or threshold > 1:
            e.skip("threshold must be a number between 0.0 and 1.0", ("aggregator", "threshold"))
            return None
        agg = {"type": "threshold", "threshold": threshold}
    else:
        raw_prompt = as_string(aggregator.get("prompt"))
        agg = {"type": "llm-grader"}
        if raw_prompt:
            if raw_prompt.startswith(PROMPT_FILE_PREFIX):
                ref = raw_prompt[len(PROMPT_FILE_PREFIX) :]
                res = ctx.resolve(ref, roots)
                if not res.resolved_path:
                    raise GraderError(
                        f"Composite aggregator in '{eval_id}': prompt file not found: {res.display_path}",
                        (file, (*path, "aggregator", "prompt")),
                    )
                if ref:
                    agg["prompt"] = ref
                agg["promptPath"] = res.resolved_path
            else:
                agg["prompt"] = raw_prompt
    out: dict[str, Any] = {"name": name, "type": "composite", "assertions": parsed_members, "aggregator": agg}
    out.update(common())
    return out


_TRAJECTORY_MODES = ("any_order", "in_order", "exact", "subset", "superset")
_ARGS_MATCH = ("exact", "superset", "subset", "ignore")


def _tool_trajectory(e: _Entry) -> dict[str, Any] | None:
    raw, name, eval_id, warn, common = e.raw, e.name, e.eval_id, e.warn, e.common
    mode = as_string(raw.get("mode"))
    if mode not in _TRAJECTORY_MODES:
        e.skip(
            "invalid mode "
            f"'{js_string(mode if mode is not None else MISSING)}' (must be any_order, in_order, exact, subset, or superset)",
            ("mode",),
        )
        return None
    minimums_raw = raw.get("minimums", MISSING)
    minimums: dict[str, Any] | None = None
    if minimums_raw is not MISSING:
        if not is_object(minimums_raw):
            e.skip("minimums must be an object", ("minimums",))
            return None
        minimums = {k: v for k, v in minimums_raw.items() if is_number(v) and v >= 0}
    args_raw = coalesce(raw.get("args_match", MISSING), raw.get("argsMatch", MISSING))
    args_match: Any = None
    if args_raw is not MISSING:
        if isinstance(args_raw, list):
            fields = [f for f in args_raw if isinstance(f, str) and f]
            args_match = fields or None
        elif isinstance(args_raw, str):
            if args_raw in _ARGS_MATCH:
                args_match = args_raw
            else:
                warn(
                    f"Invalid args_match '{args_raw}' for tool-trajectory evaluator '{name}' in '{eval_id}': must be "
                    "exact, superset, subset, ignore, or a string array",
                    "v4-grader-tool-trajectory",
                    ("args_match",),
                )
    expected_raw = raw.get("expected", MISSING)
    expected: list[dict[str, Any]] | None = None
    if expected_raw is not MISSING:
        if not isinstance(expected_raw, list):
            e.skip("expected must be an array", ("expected",))
            return None
        expected = []
        for i, item in enumerate(expected_raw):
            if not (is_object(item) and isinstance(item.get("tool"), str)):
                continue
            entry: dict[str, Any] = {"tool": item["tool"]}
            if item.get("args") == "any":
                entry["args"] = "any"
            elif is_object(item.get("args")):
                entry["args"] = item["args"]
            duration = coalesce(item.get("max_duration_ms", MISSING), item.get("maxDurationMs", MISSING))
            if is_number(duration) and duration >= 0:
                entry["maxDurationMs"] = duration
            item_args = coalesce(item.get("args_match", MISSING), item.get("argsMatch", MISSING))
            if isinstance(item_args, list):
                fields = [f for f in item_args if isinstance(f, str) and f]
                if fields:
                    entry["argsMatch"] = fields
            elif isinstance(item_args, str):
                if item_args in _ARGS_MATCH:
                    entry["argsMatch"] = item_args
                else:
                    warn(
                        f"Invalid args_match '{item_args}' for expected item '{item['tool']}' in evaluator '{name}' "
                        f"in '{eval_id}'",
                        "v4-grader-tool-trajectory",
                        ("expected", i, "args_match"),
                    )
            expected.append(entry)
    if mode == "any_order" and minimums is None:
        e.skip("any_order mode requires minimums")
        return None
    if mode != "any_order" and expected is None:
        e.skip(f"{mode} mode requires expected")
        return None
    out: dict[str, Any] = {"name": name, "type": "tool-trajectory", "mode": mode}
    if minimums is not None:
        out["minimums"] = minimums
    if expected is not None:
        out["expected"] = expected
    out.update(common())
    if args_match is not None:
        out["argsMatch"] = args_match
    return out


def _field_accuracy(e: _Entry) -> dict[str, Any] | None:
    raw, name, eval_id, warn, common = e.raw, e.name, e.eval_id, e.warn, e.common
    fields_raw = raw.get("fields")
    if not isinstance(fields_raw, list):
        e.skip("missing fields array")
        return None
    if not fields_raw:
        e.skip("fields array is empty")
        return None
    fields: list[dict[str, Any]] = []
    for i, field_raw in enumerate(fields_raw):
        if not is_object(field_raw):
            warn(
                f"Skipping invalid field entry in field-accuracy evaluator '{name}' (expected object)",
                "v4-grader-field-accuracy",
                ("fields", i),
            )
            continue
        field_path = as_string(field_raw.get("path"))
        match = as_string(field_raw.get("match"))
        if not field_path:
            warn(
                f"Skipping field without path in field-accuracy evaluator '{name}' in '{eval_id}'",
                "v4-grader-field-accuracy",
                ("fields", i),
            )
            continue
        if not match or match not in ("exact", "numeric_tolerance", "date"):
            warn(
                f"Skipping field '{field_path}' with invalid match type '{js_string(match if match is not None else MISSING)}' "
                f"in evaluator '{name}' (must be exact, numeric_tolerance, or date). For fuzzy matching, use a "
                "code-grader evaluator.",
                "v4-grader-field-accuracy",
                ("fields", i, "match"),
            )
            continue
        entry: dict[str, Any] = {"path": field_path, "match": match}
        if isinstance(field_raw.get("required"), bool):
            entry["required"] = field_raw["required"]
        for key in ("weight", "tolerance"):
            if is_number(field_raw.get(key)):
                entry[key] = field_raw[key]
        if isinstance(field_raw.get("relative"), bool):
            entry["relative"] = field_raw["relative"]
        if isinstance(field_raw.get("formats"), list):
            entry["formats"] = [f for f in field_raw["formats"] if isinstance(f, str)]
        fields.append(entry)
    if not fields:
        e.skip("no valid fields found")
        return None
    aggregation = raw.get("aggregation")
    out: dict[str, Any] = {"name": name, "type": "field-accuracy", "fields": fields}
    if aggregation in ("weighted_average", "all_or_nothing"):
        out["aggregation"] = aggregation
    out.update(common())
    return out


def _threshold_kind(kind: str, key: str, text: str) -> Handler:
    def handler(e: _Entry) -> dict[str, Any] | None:
        raw, name, common = e.raw, e.name, e.common
        value = raw.get(key)
        if not is_number(value) or value < 0:
            e.skip(text, (key,))
            return None
        out: dict[str, Any] = {"name": name, "type": kind, key: value}
        out.update(common())
        return out

    return handler


def _finite(value: Any) -> bool:
    return is_number(value) and value == value and value not in (float("inf"), float("-inf"))


def _non_negative_limits(
    e: _Entry, kind: str, keys: Sequence[tuple[str, str]], *, bad_rejects: bool
) -> dict[str, Any] | None:
    """The limits set under `keys` (snake_case or camelCase), each a finite number >= 0; a bad
    one is warned about and left out, or (`bad_rejects`) rejects the whole grader (None)."""
    found: dict[str, Any] = {}
    for key, alt in keys:
        value = coalesce(e.raw.get(key, MISSING), e.raw.get(alt, MISSING))
        if value is MISSING:
            continue
        if not _finite(value) or value < 0:
            e.warn(
                f"Skipping {kind} evaluator '{e.name}' in '{e.eval_id}': {key} must be a non-negative finite number",
                f"v4-grader-{kind}",
                (key,),
            )
            if bad_rejects:
                return None
            continue
        found[key] = value
    return found


_TOKEN_LIMITS = (("max_total", "maxTotal"), ("max_input", "maxInput"), ("max_output", "maxOutput"))


def _token_usage(e: _Entry) -> dict[str, Any] | None:
    name, common = e.name, e.common
    limits = _non_negative_limits(e, "token-usage", _TOKEN_LIMITS, bad_rejects=False)
    if not limits:
        e.skip("must set at least one of max_total, max_input, max_output")
        return None
    out: dict[str, Any] = {"name": name, "type": "token-usage", **limits}
    out.update(common())
    return out


_METRICS = (
    ("max_tool_calls", "maxToolCalls"),
    ("max_llm_calls", "maxLlmCalls"),
    ("max_tokens", "maxTokens"),
    ("max_cost_usd", "maxCostUsd"),
    ("max_duration_ms", "maxDurationMs"),
    ("target_exploration_ratio", "targetExplorationRatio"),
    ("exploration_tolerance", "explorationTolerance"),
)


def _execution_metrics(e: _Entry) -> dict[str, Any] | None:
    name, common = e.name, e.common
    valid = _non_negative_limits(e, "execution-metrics", _METRICS, bad_rejects=True)
    if valid is None:
        return None
    if not any(k in valid for k, _ in _METRICS[:-1]):
        e.skip(
            "must set at least one threshold "
            "(max_tool_calls, max_llm_calls, max_tokens, max_cost_usd, max_duration_ms, or target_exploration_ratio)",
        )
        return None
    out: dict[str, Any] = {"name": name, "type": "execution-metrics", **valid}
    out.update(common())
    return out


def _skill_trigger(e: _Entry) -> dict[str, Any] | None:
    raw, name, common = e.raw, e.name, e.common
    skill = as_string(raw.get("skill"))
    if not skill:
        e.skip("missing skill", ("skill",))
        return None
    out: dict[str, Any] = {"name": name, "type": "skill-trigger", "skill": skill}
    if isinstance(raw.get("should_trigger"), bool):
        out["should_trigger"] = raw["should_trigger"]
    out.update(common())
    return out


def _string_value(kind: str) -> Handler:
    def handler(e: _Entry) -> dict[str, Any] | None:
        raw, name, common = e.raw, e.name, e.common
        value = as_string(raw.get("value"))
        if not value:
            e.skip("missing value", ("value",))
            return None
        out: dict[str, Any] = {"name": name, "type": kind, "value": value}
        if kind == "regex" and isinstance(raw.get("flags"), str):
            out["flags"] = raw["flags"]
        out.update(common())
        return out

    return handler


def _string_list_value(kind: str) -> Handler:
    def handler(e: _Entry) -> dict[str, Any] | None:
        raw, name, common = e.raw, e.name, e.common
        value = raw.get("value")
        strings = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
        if not strings:
            e.skip("value must be a non-empty string array", ("value",))
            return None
        out: dict[str, Any] = {"name": name, "type": kind, "value": strings}
        out.update(common())
        return out

    return handler


def _is_json(e: _Entry) -> dict[str, Any] | None:
    return {"name": e.name, "type": "is-json", **e.common()}


_HANDLERS: dict[str, Handler] = {
    "code-grader": _code_grader,
    "composite": _composite,
    "tool-trajectory": _tool_trajectory,
    "field-accuracy": _field_accuracy,
    "latency": _threshold_kind("latency", "threshold", "threshold must be a non-negative number"),
    "cost": _threshold_kind("cost", "budget", "budget must be a non-negative number"),
    "token-usage": _token_usage,
    "execution-metrics": _execution_metrics,
    "skill-trigger": _skill_trigger,
    "contains": _string_value("contains"),
    "contains-any": _string_list_value("contains-any"),
    "contains-all": _string_list_value("contains-all"),
    "icontains": _string_value("icontains"),
    "icontains-any": _string_list_value("icontains-any"),
    "icontains-all": _string_list_value("icontains-all"),
    "starts-with": _string_value("starts-with"),
    "ends-with": _string_value("ends-with"),
    "regex": _string_value("regex"),
    "is-json": _is_json,
    "equals": _string_value("equals"),
}


def _llm_grader(e: _Entry) -> dict[str, Any] | None:
    """llm-grader, rubrics, rubric and inline-assert (the runtime's fall-through branch)."""
    ctx, raw, name, type_value, eval_id = e.ctx, e.raw, e.name, e.type_value, e.eval_id
    roots, where, warn, common, preprocessors = e.roots, e.where, e.warn, e.common, e.preprocessors
    file, path = where
    target = raw.get("target", MISSING)
    target_name: str | None = None
    if target is not MISSING:
        if isinstance(target, str) and js_trim(target):
            target_name = target
        else:
            warn(
                f"Skipping target override for llm-grader evaluator '{name}' in '{eval_id}': target must be a "
                "non-empty string",
                "v4-grader-target",
                ("target",),
            )

    def tail(out: dict[str, Any]) -> dict[str, Any]:
        if target_name:
            out["target"] = target_name
        out.update(common())
        return out

    if type_value == "rubrics":
        criteria = raw.get("criteria")
        if not isinstance(criteria, list) or not criteria:
            e.skip("criteria must be a non-empty array", ("criteria",))
            return None
        normalized = [
            {"id": f"rubric-{i + 1}", "outcome": item, "weight": 1.0, "required": True}
            if isinstance(item, str)
            else item
            for i, item in enumerate(criteria)
        ]
        items = _rubric_items(ctx, normalized, name, eval_id, (file, (*path, "criteria")))
        if not items:
            e.skip("no valid criteria found")
            return None
        out = tail({"name": name, "type": "llm-grader", "rubrics": items})
        if preprocessors:
            out["preprocessors"] = preprocessors
        return out

    raw_prompt = raw.get("prompt", MISSING)
    prompt: str | None = None
    prompt_path: str | None = None
    prompt_script: list[str] | None = None
    script_config: dict[str, Any] | None = None
    if is_object(raw_prompt):
        if raw_prompt.get("script", MISSING) is not MISSING and raw_prompt.get("command", MISSING) is MISSING:
            _warn_at(
                ctx,
                where,
                f"'prompt.script' is deprecated in evaluator '{name}' in '{eval_id}'. Use 'prompt.command' instead.",
                "v4-grader-deprecated-script",
                ("prompt", "script"),
            )
        command = _string_array(
            coalesce(raw_prompt.get("command", MISSING), raw_prompt.get("script", MISSING)),
            f"prompt.command for evaluator '{name}' in '{eval_id}'",
            (file, (*path, "prompt")),
        )
        if not command:
            raise GraderError(
                f"Grader '{name}' in '{eval_id}': prompt object requires command array",
                (file, (*path, "prompt")),
            )
        res = ctx.resolve(command[-1], roots)
        if not res.resolved_path:
            raise GraderError(
                f"Grader '{name}' in '{eval_id}': prompt command file not found: {res.display_path}",
                (file, (*path, "prompt", "command")),
            )
        prompt_script = [*command[:-1], res.resolved_path]
        if is_object(raw_prompt.get("config")):
            script_config = raw_prompt["config"]
    elif isinstance(raw_prompt, str):
        if raw_prompt.startswith(PROMPT_FILE_PREFIX):
            ref = raw_prompt[len(PROMPT_FILE_PREFIX) :]
            prompt = ref
            res = ctx.resolve(ref, roots)
            if not res.resolved_path:
                raise GraderError(
                    f"Grader '{name}' in '{eval_id}': prompt file not found: {res.display_path}",
                    (file, (*path, "prompt")),
                )
            prompt_path = res.resolved_path
            _validate_prompt_template(ctx, prompt_path, name, (file, (*path, "prompt")))
        else:
            prompt = raw_prompt
    rubrics_raw = raw.get("rubrics")
    rubrics = (
        _rubric_items(ctx, rubrics_raw, name, eval_id, (file, (*path, "rubrics")))
        if isinstance(rubrics_raw, list)
        else None
    )
    if type_value == "rubric":
        if not isinstance(rubrics_raw, list) or rubrics is None:
            e.skip("missing rubrics array")  # no list, or no valid rubric in it: the same words
            return None
        out = tail({"name": name, "type": "llm-grader", "rubrics": rubrics})
        if preprocessors:
            out["preprocessors"] = preprocessors
        return out
    extra = common()
    config = _extra_config(raw, _LLM_GRADER_KEYS)
    final_config = script_config if script_config is not None else (config or None)
    max_steps = coalesce(raw.get("max_steps", MISSING), raw.get("maxSteps", MISSING))
    temperature = raw.get("temperature")
    out = {"name": name, "type": "llm-grader"}
    if prompt is not None:  # undefined keys vanish from the runtime's objects
        out["prompt"] = prompt
    if prompt_path is not None:
        out["promptPath"] = prompt_path
    if prompt_path:
        out["resolvedPromptPath"] = prompt_path
    if prompt_script:
        out["resolvedPromptScript"] = prompt_script
    if rubrics:
        out["rubrics"] = rubrics
    if target_name:
        out["target"] = target_name
    out.update(extra)
    if final_config:
        out["config"] = final_config
    if is_number(max_steps) and float(max_steps).is_integer() and 1 <= max_steps <= 50:
        out["max_steps"] = max_steps
    if is_number(temperature) and 0 <= temperature <= 2:
        out["temperature"] = temperature
    if preprocessors:
        out["preprocessors"] = preprocessors
    return out


def _validate_prompt_template(ctx: LoadContext, prompt_path: str, name: str, where: Where) -> None:
    """`validateCustomPromptContent`: needs {{ output }} or {{ expected_output }}; warns on
    unknown variables (printed without the "Warning: " helper, as one console.warn)."""
    try:
        read = ctx.fs.read(prompt_path)
    except FileReadError as exc:
        raise GraderError(f"Grader '{name}' template ({prompt_path}): {exc}", where) from exc
    ctx.note_truncated(read, prompt_path, *where)
    content = read.text
    found: list[str] = []
    invalid: list[str] = []
    for match in _VARIABLE.finditer(content):
        variable = match.group(1)
        found.append(variable)
        if variable not in TEMPLATE_VARIABLES:
            invalid.append(variable)
    if "output" not in found and "expected_output" not in found:
        raise GraderError(
            f"Grader '{name}' template ({prompt_path}): Missing required fields. Must include at least one of:\n"
            "  - {{ output }}\n  - {{ expected_output }}",
            where,
        )
    if invalid:
        ctx.emit(
            "warn",
            f"Warning: Custom grader template at {prompt_path}\n"
            f"  Contains invalid variables: {', '.join('{{ ' + v + ' }}' for v in invalid)}\n"
            f"  Valid variables: {', '.join('{{ ' + v + ' }}' for v in TEMPLATE_VARIABLES)}",
            "v4-prompt-template-variables",
            file=where[0],
            yaml_path=where[1],
            data={"template": prompt_path, "invalid": invalid},
        )


# -- shared pieces ----------------------------------------------------------------------------------


def _generate_name(type_value: str, raw: dict[str, Any]) -> str:
    value = as_string(raw.get("value"))
    array = raw.get("value") if isinstance(raw.get("value"), list) else None
    if type_value == "skill-trigger":
        skill = as_string(raw.get("skill"))
        return f"skill-trigger-{skill}" if skill else "skill-trigger"
    if type_value in ("contains", "icontains", "starts-with", "ends-with", "equals"):
        return f"{type_value}-{value}" if value else type_value
    if type_value in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
        return f"{type_value}-{len(array)}" if array is not None else type_value
    if type_value == "regex":
        return f"regex-{_js_slice(value, 30)}" if value else "regex"
    return type_value


def _js_slice(text: str, units: int) -> str:
    """`text.slice(0, n)` counts UTF-16 code units."""
    encoded = text.encode("utf-16-le", "surrogatepass")
    if len(encoded) <= units * 2:
        return text
    return encoded[: units * 2].decode("utf-16-le", "surrogatepass")


def _string_array(value: Any, description: str, where: Where) -> list[str] | None:
    if value is MISSING:
        return None
    if not isinstance(value, list):
        raise GraderError(f"{description} must be an array of strings (argv tokens)", where)
    if not value:
        raise GraderError(f"{description} cannot be empty", where)
    out: list[str] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, str):
            raise GraderError(f"{description}[{i}] must be a string", where)
        if not js_trim(entry):
            raise GraderError(f"{description}[{i}] cannot be empty", where)
        out.append(entry)
    return out


def _optional_command_source(ctx: LoadContext, command: list[str], roots: Sequence[str]) -> str | None:
    candidate = command[-1] if command else ""
    if not candidate:
        return None
    looks_like_path = (
        candidate.startswith(("/", "."))
        or "/" in candidate
        or "\\" in candidate
        or _SOURCE_FILE.search(candidate) is not None
    )
    if not looks_like_path:
        return None
    return ctx.resolve(candidate, roots).resolved_path


def _validate_weight(raw: Any, name: str, eval_id: str, where: Where) -> Any:
    if raw is MISSING:
        return None
    if not is_number(raw):
        raise GraderError(f"Invalid weight for evaluator '{name}' in '{eval_id}': must be a number", where)
    if not _finite(raw):
        raise GraderError(
            f"Invalid weight for evaluator '{name}' in '{eval_id}': must be finite (got {js_string(raw)})",
            where,
        )
    if raw < 0:
        raise GraderError(
            f"Invalid weight for evaluator '{name}' in '{eval_id}': must be non-negative (got {js_string(raw)})",
            where,
        )
    return raw


def _required_and_min_score(
    ctx: LoadContext, raw: dict[str, Any], name: str, eval_id: str, where: Where
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    min_score = raw.get("min_score")
    if is_number(min_score) and 0 < min_score <= 1:
        out["min_score"] = min_score
    required = raw.get("required")
    if required is True:
        out = {"required": True, **out}
    elif is_number(required) and 0 < required <= 1:
        if "min_score" not in out:
            out["min_score"] = required
        out = {"required": required, **out}
        _warn_at(
            ctx,
            where,
            f"Grader '{name}' in '{eval_id}': 'required: {js_string(required)}' is deprecated. "
            f"Use 'required: true' + 'min_score: {js_string(required)}' instead.",
            "v4-grader-deprecated-required",
            ("required",),
        )
    return out


def _merged_preprocessors(
    ctx: LoadContext,
    raw: Any,
    defaults: list[dict[str, Any]] | None,
    roots: Sequence[str],
    name: str,
    eval_id: str,
    where: Where,
) -> list[dict[str, Any]] | None:
    overrides = _parse_preprocessors(ctx, raw, roots, name, eval_id, where)
    if not defaults and not overrides:
        return None
    merged: dict[str, dict[str, Any]] = {}
    for entry in [*(defaults or []), *(overrides or [])]:
        merged[js_trim(entry["type"]).lower()] = entry
    return list(merged.values())


def _parse_preprocessors(
    ctx: LoadContext, raw: Any, roots: Sequence[str], name: str, eval_id: str, where: Where
) -> list[dict[str, Any]] | None:
    if raw is MISSING:
        return None
    if not isinstance(raw, list):
        raise GraderError(f"Grader '{name}' in '{eval_id}': preprocessors must be an array", where)
    out: list[dict[str, Any]] = []
    for i, entry in enumerate(raw):
        entry_where = (where[0], (*where[1], i))
        if not is_object(entry):
            raise GraderError(
                f"Grader '{name}' in '{eval_id}': each preprocessor must be an object", entry_where
            )
        kind = as_string(entry.get("type"))
        kind = js_trim(kind) if kind is not None else None
        if not kind:
            raise GraderError(f"Grader '{name}' in '{eval_id}': preprocessor.type is required", entry_where)
        command = _string_array(
            entry.get("command", MISSING),
            f"preprocessor command for evaluator '{name}' in '{eval_id}'",
            entry_where,
        )
        if not command:
            raise GraderError(
                f"Grader '{name}' in '{eval_id}': preprocessor '{kind}' requires command", entry_where
            )
        res = ctx.resolve(command[-1], roots)
        if not res.resolved_path:
            raise GraderError(
                f"Grader '{name}' in '{eval_id}': preprocessor command file not found: {res.display_path}",
                entry_where,
            )
        out.append({"type": kind, "command": command, "resolvedCommand": [*command[:-1], res.resolved_path]})
    return out


def _rubric_operator(
    ctx: LoadContext, value: Any, rubric_id: str, name: str, eval_id: str, where: Where
) -> str | None:
    if value is MISSING:
        return None
    if isinstance(value, str) and value in RUBRIC_OPERATORS:
        return value
    _warn_at(
        ctx,
        where,
        f"Ignoring invalid operator for rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': must be one of "
        f"{', '.join(RUBRIC_OPERATORS)}",
        "v4-grader-rubric-operator",
        ("operator",),
    )
    return None


def _rubric_items(
    ctx: LoadContext, raw_items: list[Any], name: str, eval_id: str, where: Where
) -> list[dict[str, Any]] | None:
    items: list[dict[str, Any]] = []
    for index, rubric in enumerate(raw_items):
        item_where = (where[0], (*where[1], index))
        if not is_object(rubric):
            _warn_at(
                ctx,
                item_where,
                f"Skipping invalid rubric entry at index {index} in evaluator '{name}' (expected object)",
                "v4-grader-rubric-entry",
            )
            continue
        rubric_id = as_string(rubric.get("id"))  # `?? default`: an empty id stays empty
        if rubric_id is None:
            rubric_id = f"rubric-{index + 1}"
        outcome = coalesce(as_string(rubric.get("outcome")), as_string(rubric.get("criteria")), "") or ""
        operator = _rubric_operator(
            ctx, rubric.get("operator", MISSING), rubric_id, name, eval_id, item_where
        )
        weight = rubric["weight"] if is_number(rubric.get("weight")) else 1.0
        min_score: Any = None
        required_min: Any = None
        if is_number(rubric.get("min_score")):
            ms = rubric["min_score"]
            if ms <= 0 or ms > 1:
                raise GraderError(
                    f"Invalid min_score for rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': must be in "
                    f"(0, 1] (got {js_string(ms)})",
                    item_where,
                )
            min_score = ms
            required_min = _js_round(ms * 10)
        elif is_number(rubric.get("required_min_score")):
            rms = rubric["required_min_score"]
            if not float(rms).is_integer() or rms < 0 or rms > 10:
                raise GraderError(
                    f"Invalid required_min_score for rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': must "
                    f"be an integer 0-10 (got {js_string(rms)})",
                    item_where,
                )
            required_min = rms
            min_score = rms / 10
            _warn_at(
                ctx,
                item_where,
                f"Rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': 'required_min_score: {js_string(rms)}' is "
                f"deprecated. Use 'min_score: {js_string(rms / 10)}' (0-1 scale) instead.",
                "v4-grader-deprecated-required-min-score",
                ("required_min_score",),
            )
        required = rubric["required"] if isinstance(rubric.get("required"), bool) else None
        ranges_raw = rubric.get("score_ranges", MISSING)
        if ranges_raw is not MISSING:
            normalized = _normalize_score_ranges(ranges_raw, item_where)
            if not isinstance(normalized, list):
                raise GraderError(
                    f"Invalid score_ranges for rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': must be an "
                    "array or shorthand map",
                    item_where,
                )
            ranges = _score_ranges(normalized, rubric_id, name, eval_id, item_where)
            item: dict[str, Any] = {"id": rubric_id, "weight": weight}
            if outcome:
                item["outcome"] = outcome
            if operator is not None:
                item["operator"] = operator
            if required is not None:
                item["required"] = required
            if min_score is not None:
                item["min_score"] = min_score
            if required_min is not None:
                item["required_min_score"] = required_min
            item["score_ranges"] = ranges
            items.append(item)
            continue
        if not outcome:
            _warn_at(
                ctx,
                item_where,
                f"Skipping rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': missing outcome",
                "v4-grader-rubric-outcome",
            )
            continue
        item = {"id": rubric_id, "outcome": outcome}
        if operator is not None:
            item["operator"] = operator
        item["weight"] = weight
        item["required"] = True if required is None else required
        if min_score is not None:
            item["min_score"] = min_score
        if required_min is not None:
            item["required_min_score"] = required_min
        items.append(item)
    return items or None


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def _normalize_score_ranges(raw: Any, where: Where) -> Any:
    if isinstance(raw, list) or not is_object(raw) or not raw:
        return raw
    keys: list[int] = []
    for key, value in raw.items():
        number = _js_number_of(key)
        if number is None or not float(number).is_integer() or number < 0 or number > 10:
            return raw
        if not isinstance(value, str) or not value:
            return raw
        keys.append(int(number))
    keys.sort()
    if keys[0] != 0:
        raise GraderError(f"score_ranges shorthand map must start at 0 (got {keys[0]})", where)
    out = []
    for i, low in enumerate(keys):
        high = keys[i + 1] - 1 if i < len(keys) - 1 else 10
        out.append({"score_range": [low, high], "outcome": raw.get(str(low), "")})
    return out


def _js_number_of(key: str) -> float | None:
    """`Number(key)` for an object key (None for NaN)."""
    text = js_trim(key)
    if text == "":
        return 0.0
    try:
        if re.fullmatch(r"[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)", text):
            return float(text)
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
            return float(int(text, 16))
        if re.fullmatch(r"0[oO][0-7]+", text):
            return float(int(text[2:], 8))
        if re.fullmatch(r"0[bB][01]+", text):
            return float(int(text[2:], 2))
    except ValueError:
        return None
    return None


def _score_ranges(
    raw_ranges: list[Any], rubric_id: str, name: str, eval_id: str, where: Where
) -> list[dict[str, Any]]:
    suffix = f"for rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}'"
    ranges: list[dict[str, Any]] = []
    for index, entry in enumerate(raw_ranges):
        if not is_object(entry):
            raise GraderError(f"Invalid score_range entry at index {index} {suffix}: expected object", where)
        bounds = entry.get("score_range")
        if not (
            isinstance(bounds, list) and len(bounds) == 2 and is_number(bounds[0]) and is_number(bounds[1])
        ):
            raise GraderError(
                f"Invalid score_range at index {index} {suffix}: must be [min, max] array of two numbers",
                where,
            )
        low, high = bounds
        shown = f"[{js_string(low)}, {js_string(high)}]"
        if not (_finite(low) and float(low).is_integer() and _finite(high) and float(high).is_integer()):
            raise GraderError(
                f"Invalid score_range at index {index} {suffix}: values must be integers (got {shown})", where
            )
        if low < 0 or low > 10 or high < 0 or high > 10:
            raise GraderError(
                f"Invalid score_range at index {index} {suffix}: values must be 0-10 (got {shown})", where
            )
        if low > high:
            raise GraderError(
                f"Invalid score_range at index {index} {suffix}: min must be <= max (got {shown})", where
            )
        outcome = as_string(entry.get("outcome")) or ""
        if not outcome:
            raise GraderError(
                f"Missing outcome for score_range {shown} in rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}'",
                where,
            )
        ranges.append({"score_range": [low, high], "outcome": outcome})
    ordered = sorted(ranges, key=lambda r: r["score_range"][0])
    for prev, cur in itertools.pairwise(ordered):
        if cur["score_range"][0] <= prev["score_range"][1]:
            p, c = prev["score_range"], cur["score_range"]
            raise GraderError(
                f"Overlapping score_ranges in rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': "
                f"[{js_string(p[0])}, {js_string(p[1])}] overlaps with [{js_string(c[0])}, {js_string(c[1])}]",
                where,
            )
    covered = {i for r in ranges for i in range(int(r["score_range"][0]), int(r["score_range"][1]) + 1)}
    missing = [i for i in range(11) if i not in covered]
    if missing:
        raise GraderError(
            f"Incomplete score_ranges coverage in rubric '{rubric_id}' in evaluator '{name}' in '{eval_id}': "
            f"missing coverage for scores: {', '.join(str(m) for m in missing)}. Ranges must cover all integers 0-10.",
            where,
        )
    return ranges


def parse_inline_rubrics(
    ctx: LoadContext, raw: list[Any], file: str, path: YamlPath
) -> dict[str, Any] | None:
    """`parseInlineRubrics`: the deprecated test-level `rubrics:` list as one llm-grader."""
    items: list[dict[str, Any]] = []
    kept = [r for r in raw if is_object(r) or isinstance(r, str)]
    for index, rubric in enumerate(kept):
        if isinstance(rubric, str):
            if rubric:  # the final filter drops an empty outcome
                items.append(
                    {"id": f"rubric-{index + 1}", "outcome": rubric, "weight": 1.0, "required": True}
                )
            continue
        outcome = as_string(rubric.get("outcome")) or ""
        rubric_id = as_string(rubric.get("id"))
        if rubric_id is None:
            rubric_id = f"rubric-{index + 1}"
        operator = _rubric_operator(
            ctx, rubric.get("operator", MISSING), rubric_id, "rubrics", "<inline>", (file, (*path, index))
        )
        ranges_raw = rubric.get("score_ranges", MISSING)
        try:
            normalized = (
                _normalize_score_ranges(ranges_raw, (file, (*path, index)))
                if ranges_raw is not MISSING
                else None
            )
        except GraderError as exc:  # parseInlineRubrics runs outside the try: the load fails
            raise LoadFailure(exc.message, "v4-grader", file=file, yaml_path=(*path, index)) from exc
        ranges = None
        if isinstance(normalized, list) and normalized:
            ranges = [
                {
                    "score_range": r["score_range"] if isinstance(r.get("score_range"), list) else [0, 10],
                    "outcome": as_string(r.get("outcome")) or "",
                }
                for r in normalized
                if is_object(r)
            ]
            ranges = [r for r in ranges if r["outcome"]]
        item: dict[str, Any] = {"id": rubric_id}
        if operator is not None:
            item["operator"] = operator
        item["weight"] = rubric["weight"] if is_number(rubric.get("weight")) else 1.0
        min_score: Any = None
        required_min: Any = None
        if is_number(rubric.get("min_score")):
            min_score = rubric["min_score"]
            required_min = _js_round(min_score * 10)
        elif is_number(rubric.get("required_min_score")):
            required_min = rubric["required_min_score"]
            min_score = required_min / 10
        if ranges:
            if outcome:
                item["outcome"] = outcome
            if isinstance(rubric.get("required"), bool):
                item["required"] = rubric["required"]
        else:
            item["outcome"] = outcome
            item["required"] = rubric["required"] if isinstance(rubric.get("required"), bool) else True
        if min_score is not None:
            item["min_score"] = min_score
        if required_min is not None:
            item["required_min_score"] = required_min
        if ranges:
            item["score_ranges"] = ranges
        if item.get("outcome") or ranges:
            items.append(item)
    if not items:
        return None
    return {"name": "rubrics", "type": "llm-grader", "rubrics": items}
