"""Our JSON Schemas (schema/*.json, draft 2020-12) and validation with `jsonschema`.

`validate` returns plain `SchemaIssue`s (path, message, stable code, fix data); the checker
maps them to source ranges. Two things keep it fast on 10,000-case files:
- each eval case is validated on its own, against the case sub-schema;
- cases with the same *shape* share one result: the shape keeps every key, every value the
  schema constrains beyond its type (roles, segment and evaluator types, emptiness of
  strings), and replaces free text by a placeholder. Messages are then rebuilt from the
  case's real values, so a shared result never shows another case's text.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

SchemaKind = Literal["eval", "config", "targets"]
SCHEMA_FILES: dict[str, str] = {
    "eval": "agentv-eval-v2.schema.json",
    "config": "agentv-config-v2.schema.json",
    "targets": "agentv-targets-v2.2.schema.json",
}
JsonPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    path: JsonPath  # the failing instance (for an unknown key: ends with that key)
    on_key: bool  # the problem is the key itself
    code: str
    message: str
    severity: Literal["error", "warning"] = "error"
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def schema_dir() -> Path:
    """schema/ inside an installed wheel, else the repository's schema/ folder."""
    packaged = resources.files("agentv_lsp") / "schema"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "schema"


@functools.cache
def load_schema(kind: SchemaKind) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((schema_dir() / SCHEMA_FILES[kind]).read_text(encoding="utf-8"))
    return schema


@functools.cache
def _validator(kind: SchemaKind, part: str = "") -> Draft202012Validator:
    schema = load_schema(kind)
    if part == "case":
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/evalCase"}
    elif part == "top":
        properties = dict(schema["properties"])
        properties["evalcases"] = {"type": "array"}  # items are validated case by case
        schema = {**schema, "properties": properties}
    return Draft202012Validator(schema)


def validate(instance: Any, kind: SchemaKind) -> list[SchemaIssue]:
    """All schema issues of a parsed document, deduplicated, in document order."""
    issues: list[SchemaIssue] = []
    if kind == "eval" and isinstance(instance, dict) and isinstance(instance.get("evalcases"), list):
        issues.extend(_issues(_validator("eval", "top").iter_errors(instance), instance, ()))
        case_validator = _validator("eval", "case")
        for index, case in enumerate(instance["evalcases"]):
            fingerprint = repr(_shape(case))  # repr keeps key order and tells 1, 1.0 and True apart
            errors = _SHARED_CASE_ERRORS.get(fingerprint)
            if errors is None:
                errors = list(case_validator.iter_errors(case))
                if len(_SHARED_CASE_ERRORS) >= _SHARED_CASE_LIMIT:
                    _SHARED_CASE_ERRORS.pop(next(iter(_SHARED_CASE_ERRORS)))  # oldest first
                _SHARED_CASE_ERRORS[fingerprint] = errors
            issues.extend(_issues(iter(errors), case, ("evalcases", index)))
    else:
        issues.extend(_issues(_validator(kind).iter_errors(instance), instance, ()))
    unique: dict[tuple[JsonPath, str, str], SchemaIssue] = {}
    for issue in issues:
        unique.setdefault((issue.path, issue.code, issue.message), issue)
    return list(unique.values())


# Validation results by case shape, shared by every file checked in this process (a folder of
# eval files repeats the same few dozen shapes). Bounded, oldest dropped first.
_SHARED_CASE_ERRORS: dict[str, list[ValidationError]] = {}
_SHARED_CASE_LIMIT = 4096

_CONSTRAINED_KEYS = frozenset(("role", "type", "evaluator", "provider", "$schema"))


def _shape(value: Any, key: str = "") -> Any:
    """The parts of a value that can change validation results (exact type checks: this
    walks every node of every case)."""
    kind = type(value)
    if kind is str:
        return value if key in _CONSTRAINED_KEYS else ("s" if value else "")
    if kind is dict:
        return {k: _shape(v, k) for k, v in value.items()}
    if kind is list:
        return [_shape(v) for v in value]
    return value


def _issues(errors: Iterator[ValidationError], instance: Any, base: JsonPath) -> Iterator[SchemaIssue]:
    for error in errors:
        yield from _to_issues(error, instance, base)


def _value_at(instance: Any, path: JsonPath) -> Any:
    for item in path:
        try:
            instance = instance[item]
        except (KeyError, IndexError, TypeError):
            return None
    return instance


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _field_name(path: JsonPath) -> str:
    for item in reversed(path):
        if isinstance(item, str):
            return f"'{item}'"
    return "this item"


def _to_issues(error: ValidationError, instance: Any, base: JsonPath) -> Iterator[SchemaIssue]:
    """One jsonschema error -> friendly issues (one per unknown key or missing property)."""
    relative: JsonPath = tuple(error.absolute_path)
    path = base + relative
    value = _value_at(instance, relative)
    validator = error.validator
    rule: Any = error.validator_value  # jsonschema types it loosely (Any | Unset)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if validator == "additionalProperties" and isinstance(value, dict):
        allowed = sorted(k for k in schema.get("properties", {}) if k)
        for key in value:
            if key in schema.get("properties", {}):
                continue
            near = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            hint = f" Did you mean '{near[0]}'?" if near else ""
            yield SchemaIssue(
                (*path, key),
                True,
                "schema-unknown-key",
                f"Unknown key '{key}': AgentV ignores it.{hint} Allowed here: {', '.join(allowed)}.",
                "warning",
                {"key": key, "expected": allowed, **({"suggestion": near[0]} if near else {})},
            )
        return
    if validator == "required":
        missing = [k for k in rule if not (isinstance(value, dict) and k in value)]
        for key in missing:
            yield SchemaIssue(
                (*path, key), True, "schema-required", f"Missing required key '{key}'.", data={"key": key}
            )
        return
    if validator in ("enum", "const"):
        expected = list(rule) if validator == "enum" else [rule]
        shown = value if isinstance(value, str) else json.dumps(value)
        suggestion: str | None = None
        if isinstance(value, str):
            lowered = [e for e in expected if isinstance(e, str) and e == value.lower()]
            close = lowered or difflib.get_close_matches(value, [str(e) for e in expected], n=1, cutoff=0.5)
            suggestion = close[0] if close else None
        hint = f" Did you mean '{suggestion}'?" if suggestion else ""
        choices = ", ".join(f"'{e}'" for e in expected)
        yield SchemaIssue(
            path,
            False,
            f"schema-{validator}",
            f"{_field_name(path).capitalize()} must be {'one of ' if len(expected) > 1 else ''}{choices}, not '{shown}'.{hint}",
            data={"expected": expected, "value": value, **({"suggestion": suggestion} if suggestion else {})},
        )
        return
    if validator == "anyOf":
        yield from _any_of(error, instance, base, path, value)
        return
    if validator == "type":
        expected_type = rule
        wanted = " or ".join(expected_type) if isinstance(expected_type, list) else expected_type
        yield SchemaIssue(
            path,
            False,
            "schema-type",
            f"{_field_name(path).capitalize()} must be {_article(wanted)}, not {_describe(value)}.",
            data={"expected": expected_type},
        )
        return
    if validator == "minLength":
        yield SchemaIssue(
            path, False, "schema-min-length", f"{_field_name(path).capitalize()} must not be empty."
        )
        return
    if validator == "minimum":
        yield SchemaIssue(
            path,
            False,
            "schema-minimum",
            f"{_field_name(path).capitalize()} must be at least {rule}.",
        )
        return
    yield SchemaIssue(path, False, f"schema-{validator}", error.message)


def _any_of(
    error: ValidationError, instance: Any, base: JsonPath, path: JsonPath, value: Any
) -> Iterator[SchemaIssue]:
    """Our schemas use anyOf for message content (a string or a list of segments) and for
    "one of these keys is required" (a cli target's command template)."""
    alternatives = error.validator_value if isinstance(error.validator_value, list) else []
    if alternatives and all(isinstance(a, dict) and set(a) == {"required"} for a in alternatives):
        keys = [a["required"][0] for a in alternatives]
        yield SchemaIssue(
            (*path, keys[0]),
            True,
            "schema-required",
            f"Missing required key '{keys[0]}' (or {', '.join(repr(k) for k in keys[1:])}).",
            data={"key": keys[0]},
        )
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                yield SchemaIssue(
                    (*path, i),
                    False,
                    "schema-string-in-content-list",
                    f"A content list may only hold mappings ({{type: text, value: ...}}), not {_describe(item)}: "
                    "AgentV drops the whole message.",
                    data={"fix": "wrap-text"},
                )
        # problems inside the segments themselves come from the list branch
        for sub in error.context or ():
            if len(sub.absolute_path) > len(error.absolute_path) and sub.validator != "type":
                yield from _to_issues(sub, instance, base)
        return
    yield SchemaIssue(
        path,
        False,
        "schema-type",
        f"{_field_name(path).capitalize()} must be a string or a list of segments, not {_describe(value)}.",
    )


def _article(type_name: str) -> str:
    names = {
        "string": "a string",
        "array": "a list",
        "object": "a mapping",
        "integer": "an integer",
        "number": "a number",
        "boolean": "a boolean",
        "null": "null",
    }
    return names.get(type_name, type_name)
