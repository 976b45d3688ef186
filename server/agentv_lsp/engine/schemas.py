"""Our JSON Schemas (schema/*.json, draft 2020-12) and validation with `jsonschema`.

`validate` turns jsonschema errors into `SchemaIssue`s: a JSON path, a stable code, a plain
message (field, what was expected, what was found, a "did you mean" for typos) and fix data.
The checker maps them to source ranges and grades them.

Discriminated unions (segment and evaluator `type`, target `provider`, healthcheck `type`) are
`allOf` lists of `if {discriminator: const} then {$ref: branch}`: jsonschema then reports the
errors of the branch the discriminator selects, and an unknown discriminator value gets just
the enum error of the base schema. Four custom annotations, ignored by validators, shape the
messages: `x-codes` (validator keyword -> issue code), `x-expected` (a phrase for "must be
..."), and VS Code's `errorMessage` / `patternErrorMessage`.

Speed (a 10,000-case file in about 60 ms instead of 3 s) without giving up jsonschema:
- the eval file is split into three validations whose union is exactly the full validation:
  the top level with `evalcases` reduced to `{"type": "array"}`, each case against the case
  schema with `input_messages`/`expected_messages` reduced to `{"type": "array"}`, and each
  message against the message schema (`items` applies its schema to every item on its own,
  so the errors are the same, under the item's path);
- cases and messages with the same *shape* share one validation. The shape keeps every key,
  every non-string value, and every string except those under a *free-text key*: a key whose
  every declaration in the schema constrains its string text by nothing but `type` and
  `minLength <= 1` (computed from the schema, see `_free_text_keys`). Such strings are
  replaced by their emptiness, which is all those keywords can see, so two values with one
  shape get the same errors at the same paths. Messages and fix data are then built from the
  real values. A `{role, content: <string>}` message, the common case, gets its shape
  without a walk. `tests/unit/test_schemas.py` checks the result against plain jsonschema.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator, ValidationError, validators

from agentv_lsp.engine.budget import checkpoint
from agentv_lsp.engine.jsregex import UntranslatableRegex, js_regex_to_python, utf16_units

SchemaKind = Literal["eval", "config", "targets"]
Severity = Literal["error", "warning"]
JsonPath = tuple[str | int, ...]

SCHEMA_FILES: dict[str, str] = {
    "eval": "agentv-eval-v2.schema.json",
    "config": "agentv-config-v2.schema.json",
    "targets": "agentv-targets-v2.2.schema.json",
}
CLI_PLACEHOLDERS = ("PROMPT", "GUIDELINES", "EVAL_ID", "ATTEMPT", "FILES", "OUTPUT_FILE")
_MESSAGE_LISTS = ("input_messages", "expected_messages")


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    path: JsonPath  # the failing instance; for an unknown or missing key it ends with that key
    on_key: bool  # the problem is the key itself (unknown or missing)
    code: str  # stable, e.g. "schema-unknown-key"
    message: str
    severity: Severity = "error"  # unknown keys: "warning"; the caller may re-grade
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)  # fix data


# ---------------------------------------------------------------------------- loading


def schema_dir() -> Path:
    """`schema/` inside an installed wheel (`agentv_lsp/schema`), else the repository's `schema/`.

    A plain path beside this module, not `importlib.resources`: pip installs packages as
    files, and importing `importlib.resources` costs every `check` run about 10 ms."""
    package = Path(__file__).resolve().parents[1]  # agentv_lsp/
    packaged = package / "schema"
    if packaged.is_dir():
        return packaged
    return package.parents[1] / "schema"


@functools.cache
def load_schema(kind: SchemaKind) -> dict[str, Any]:
    """The parsed schema of one file kind (cached: do not modify it)."""
    text = (schema_dir() / SCHEMA_FILES[kind]).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _array_only(schema: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """`schema` with the `properties` in `keys` reduced to `{"type": "array"}` (items are validated apart)."""
    properties = dict(schema["properties"])
    for key in keys:
        properties[key] = {"type": "array"}
    return {**schema, "properties": properties}


@functools.lru_cache(maxsize=256)
def _js_regex(pattern: str) -> re.Pattern[str]:
    try:
        translated = js_regex_to_python(pattern)
    except UntranslatableRegex as exc:
        raise ValueError(f"a schema pattern Python cannot read as JavaScript does: {pattern!r}") from exc
    if translated is None:
        raise ValueError(f"a schema pattern JavaScript rejects: {pattern!r}")
    return translated[0]


def js_pattern_matches(pattern: str, text: str) -> bool:
    """`new RegExp(pattern).test(text)`: JSON Schema's `pattern` is an ECMA-262 regex, and
    AgentV's runtimes are JavaScript. Python's own reading differs where it matters here: its
    `\\s` takes U+0085 and U+001C-U+001F for space, where JavaScript's `\\s` and `trim` keep
    them, and leaves U+FEFF, which they drop."""
    return _js_regex(pattern).search(utf16_units(text)) is not None


def _js_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not js_pattern_matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# Draft 2020-12 with `pattern` read as JavaScript reads it; every schema here is validated by it
JsDraft202012Validator: type[Draft202012Validator] = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator, {"pattern": _js_pattern}
)


@functools.cache
def _validator(kind: SchemaKind, part: Literal["", "top", "case", "message"] = "") -> Draft202012Validator:
    schema = load_schema(kind)
    if part == "top":
        schema = _array_only(schema, ["evalcases"])
    elif part in ("case", "message"):
        defs = dict(schema["$defs"])
        defs["evalCase"] = _array_only(defs["evalCase"], _MESSAGE_LISTS)
        name = "evalCase" if part == "case" else "message"
        schema = {"$schema": schema["$schema"], "$defs": defs, "$ref": f"#/$defs/{name}"}
    return JsDraft202012Validator(schema)


# ---------------------------------------------------------------------------- validation


@dataclass(frozen=True, slots=True)
class _Failure:
    """One jsonschema error, without references to the instance it was found in."""

    path: JsonPath  # relative to the validated value
    validator: str
    rule: Any
    schema: Mapping[str, Any]


def _failures(validator: Draft202012Validator, instance: Any) -> list[_Failure]:
    return [
        _Failure(tuple(e.absolute_path), str(e.validator), e.validator_value, _as_mapping(e.schema))
        for e in validator.iter_errors(instance)
    ]


def _as_mapping(schema: object) -> Mapping[str, Any]:
    return schema if isinstance(schema, Mapping) else {}


# Validation results by shape, shared by every file checked in this process (a folder of eval
# files repeats the same few dozen shapes). Bounded; the oldest entry goes first.
_SHARED: dict[Literal["case", "message"], dict[Any, list[_Failure]]] = {"case": {}, "message": {}}
_SHARED_LIMIT = 4096


def clear_cache() -> None:
    """Forget the shared per-shape results (benchmarks and tests)."""
    for cache in _SHARED.values():
        cache.clear()


def _validate_shape(part: Literal["case", "message"], shape: Any, value: Any) -> list[_Failure]:
    found = _failures(_validator("eval", part), value)
    cache = _SHARED[part]
    if len(cache) >= _SHARED_LIMIT:
        del cache[next(iter(cache))]
    cache[shape] = found
    return found


def validate(instance: object, kind: SchemaKind) -> list[SchemaIssue]:
    """All schema issues of a parsed document (JSON-like values), deduplicated, sorted by path
    (list items by index, mapping keys in document order)."""
    if kind != "eval":
        return _finish(list(_issues(_failures(_validator(kind), instance), instance, ())), instance)
    top = _finish(list(_issues(_failures(_validator("eval", "top"), instance), instance, ())), instance)
    cases = instance.get("evalcases") if isinstance(instance, dict) else None
    if not isinstance(cases, list) or not cases:
        return top
    in_cases = _validate_cases(cases)
    if not top:
        return in_cases
    # The top-level validation reports nothing inside `evalcases`: the case issues go right
    # after the issues at `evalcases` itself, among the top-level ones in document order.
    positions: dict[int, dict[Any, int]] = {}
    after = _order_key(instance, ("evalcases",), positions)
    split = next(
        (n for n, issue in enumerate(top) if _order_key(instance, issue.path[:1], positions) > after),
        len(top),
    )
    return [*top[:split], *in_cases, *top[split:]]


def _validate_cases(cases: list[Any]) -> list[SchemaIssue]:
    """Each case and each of its messages against its own validator, shared by shape (this
    loop runs once per case and per message of a 10,000-case file: keep it lean). Issues come
    out case by case, each case's sorted on its own."""
    issues: list[SchemaIssue] = []
    free = _free_text_keys()
    flat_messages = "content" in free  # see below
    case_cache = _SHARED["case"]
    message_cache = _SHARED["message"]
    for index, case in enumerate(cases):
        checkpoint()
        found: list[SchemaIssue] = []
        shape = _case_shape(case, free)
        failures = case_cache.get(shape)
        if failures is None:
            failures = _validate_shape("case", shape, case)
        if failures:
            found.extend(_issues(failures, case, ("evalcases", index)))
        if type(case) is dict:
            for list_key in _MESSAGE_LISTS:
                messages = case.get(list_key)
                if type(messages) is not list:
                    continue
                for position, message in enumerate(messages):
                    # The common `{role: <str>, content: <str>}` message: its shape is fixed by the
                    # role and the emptiness of the (free-text) content, as `_shape` would find.
                    if (
                        flat_messages
                        and type(message) is dict
                        and len(message) == 2
                        and type(content := message.get("content")) is str
                        and type(role := message.get("role")) is str
                    ):
                        shape = (_FLAT_MESSAGE, role, content == "")
                    else:
                        shape = _shape(message, free)
                    failures = message_cache.get(shape)
                    if failures is None:
                        failures = _validate_shape("message", shape, message)
                    if failures:
                        found.extend(_issues(failures, message, ("evalcases", index, list_key, position)))
        if found:
            issues.extend(_finish(found, case, 2) if len(found) > 1 else found)
    return issues


_FLAT_MESSAGE = object()


def _finish(issues: list[SchemaIssue], root: object, skip: int = 0) -> list[SchemaIssue]:
    """Deduplicated and sorted; `root` holds the values of the paths without their first `skip` items."""
    unique: dict[tuple[JsonPath, bool, str, str], SchemaIssue] = {}
    for issue in issues:
        unique.setdefault((issue.path, issue.on_key, issue.code, issue.message), issue)
    if len(unique) < 2:
        return list(unique.values())
    positions: dict[int, dict[Any, int]] = {}  # the mappings stay alive in `root` meanwhile
    return sorted(
        unique.values(),
        key=lambda i: (_order_key(root, i.path[skip:], positions), i.on_key, i.code, i.message),
    )


def _order_key(
    root: object, path: JsonPath, positions: dict[int, dict[Any, int]] | None = None
) -> tuple[tuple[int, int, str], ...]:
    """Sort key of a path: list indexes by number, mapping keys by their position in the document
    (keys that are not there, e.g. missing required ones, after the others, by name).
    `positions` memoises each mapping's key positions over one sort (a mapping with thousands of
    unknown keys gets an issue on each: looking each one up in a list was quadratic)."""
    out: list[tuple[int, int, str]] = []
    node: Any = root
    for item in path:
        if isinstance(node, dict):
            if positions is None:
                positions = {}
            where = positions.get(id(node))
            if where is None:
                where = positions[id(node)] = {key: n for n, key in enumerate(node)}
            out.append((1, where.get(item, len(where)), str(item)))
            node = node.get(item)
        elif isinstance(item, int):
            out.append((0, item, ""))
            node = node[item] if isinstance(node, list) and 0 <= item < len(node) else None
        else:
            out.append((1, 0, item))
            node = None
    return tuple(out)


# ---------------------------------------------------------------------------- shapes

_TEXT_KEYWORDS = frozenset(("const", "enum", "pattern", "maxLength", "format", "contentEncoding"))
_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")  # subschemas on the same value
_SCHEMA_VALUED = (
    "items",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs")


@functools.cache
def _free_text_keys() -> frozenset[str]:
    """Property names whose string values matter to the eval schema only through their type and
    emptiness: in every `properties` declaration of the name (any depth, any branch, `if`s
    included), the subschema reads a string's text with nothing but `type` and `minLength <= 1`.

    Empty when the schema could read the text of strings some other way (a text-reading schema
    for undeclared keys, `patternProperties`, `uniqueItems`, a `const`/`enum` of containers).
    """
    schema = load_schema("eval")
    defs: Mapping[str, Any] = schema.get("$defs", {})

    def reads_text(sub: Any, seen: frozenset[str]) -> bool:
        """Whether `sub` (applied to a string) can tell two non-empty strings apart."""
        if not isinstance(sub, dict):
            return False
        if _TEXT_KEYWORDS & sub.keys() or sub.get("minLength", 0) > 1:
            return True
        for keyword in ("$ref", "$dynamicRef"):
            if keyword in sub:
                target = str(sub[keyword])
                name = target.removeprefix("#/$defs/")
                if not target.startswith("#/$defs/") or name not in defs:
                    return True  # a reference we cannot follow: assume the worst
                if name not in seen and reads_text(defs[name], seen | {name}):
                    return True
        for keyword in _IN_PLACE:
            value = sub.get(keyword)
            values = value if isinstance(value, list) else [value]
            if any(reads_text(v, seen) for v in values):
                return True
        return False

    text_read: dict[str, bool] = {}
    unsafe = False

    def walk(node: Any) -> None:
        nonlocal unsafe
        if not isinstance(node, dict):
            return
        if node.get("uniqueItems") or "patternProperties" in node:
            unsafe = True
        if any(isinstance(v, (dict, list)) for v in [node.get("const"), *node.get("enum", [])]):
            unsafe = True
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            if reads_text(node.get(keyword), frozenset()):
                unsafe = True
        for name, sub in (node.get("properties") or {}).items():
            text_read[name] = text_read.get(name, False) or reads_text(sub, frozenset())
        for keyword in _SCHEMA_VALUED:
            walk(node.get(keyword))
        for keyword in _SCHEMA_LISTS:
            for sub in node.get(keyword) or ():
                walk(sub)
        for keyword in _SCHEMA_MAPS:
            for sub in (node.get(keyword) or {}).values():
                walk(sub)

    walk(schema)
    if unsafe:
        return frozenset()
    return frozenset(name for name, read in text_read.items() if not read)


def _shape(value: Any, free: frozenset[str]) -> Any:
    """A hashable value such that equal shapes validate alike (see the module docstring)."""
    kind = type(value)
    if kind is dict:
        parts: list[Any] = [dict]
        append = parts.append
        for key, item in value.items():
            item_kind = type(item)
            if item_kind is str:
                append((key, ("s" if item else "") if key in free else item))
            elif item_kind is dict or item_kind is list:
                append((key, _shape(item, free)))
            else:
                append((key, item_kind, item))
        return tuple(parts)
    if kind is list:
        return (list, *[_shape(item, free) for item in value])
    return (kind, value)


def _case_shape(case: Any, free: frozenset[str]) -> Any:
    """A case's shape for the case validator, which sees only the type of the message lists."""
    if type(case) is not dict:
        return _shape(case, free)
    parts: list[Any] = [dict]
    for key, item in case.items():
        item_kind = type(item)
        if key in _MESSAGE_LISTS:
            append_value: Any = (key, "message-list", item_kind)
        elif item_kind is str:
            append_value = (key, ("s" if item else "") if key in free else item)
        elif item_kind is dict or item_kind is list:
            append_value = (key, _shape(item, free))
        else:
            append_value = (key, item_kind, item)
        parts.append(append_value)
    return tuple(parts)


# ---------------------------------------------------------------------------- messages


def _issues(failures: list[_Failure], instance: Any, base: JsonPath) -> Iterator[SchemaIssue]:
    for failure in failures:
        yield from _to_issues(failure, instance, base)


def _value_at(instance: Any, path: JsonPath) -> Any:
    for item in path:
        try:
            instance = instance[item]
        except (KeyError, IndexError, TypeError):
            return None
    return instance


@dataclass(slots=True)  # not frozen: built once per issue, frozen dataclasses are slower to build
class _Found:
    """One failure, placed in the document being checked."""

    path: JsonPath  # absolute
    value: Any  # the failing value, from this document (never from the case a shape was shared with)
    schema: Mapping[str, Any]  # the (sub)schema whose keyword failed
    rule: Any  # the keyword's value
    code: str  # from the schema's `x-codes`, or ""

    @property
    def field(self) -> str:
        return _field(self.path)

    def issue(self, code: str, message: str, data: dict[str, Any] | None = None) -> SchemaIssue:
        return SchemaIssue(self.path, False, self.code or code, message, "error", data or {})


def _to_issues(failure: _Failure, instance: Any, base: JsonPath) -> Iterator[SchemaIssue]:
    """One jsonschema error -> friendly issues (one per unknown or missing key)."""
    schema = failure.schema
    found = _Found(
        base + failure.path,
        _value_at(instance, failure.path),
        schema,
        failure.rule,
        str(_as_mapping(schema.get("x-codes")).get(failure.validator, "")),
    )
    handler = _HANDLERS.get(failure.validator)
    if handler is not None:
        yield from handler(found)
    else:
        yield found.issue(
            f"schema-{failure.validator}",
            f"{found.field} does not satisfy the schema rule '{failure.validator}'.",
        )


MAX_SUGGESTED_UNKNOWN_KEYS = 100


def _unknown_keys(f: _Found) -> Iterator[SchemaIssue]:
    if not isinstance(f.value, dict):
        return
    known = [str(k) for k in _as_mapping(f.schema.get("properties"))]
    unknown = [key for key in f.value if key not in known]
    # Many unknown keys in one mapping are not typos: no "did you mean" (difflib's cost per key
    # would make a hostile file with 100,000 keys take minutes).
    suggest = len(unknown) <= MAX_SUGGESTED_UNKNOWN_KEYS
    for key in unknown:
        suggestion = _suggest(str(key), known) if suggest else None
        hint = f" Did you mean '{suggestion}'?" if suggestion else ""
        listed = f" Keys read here: {', '.join(known)}." if 0 < len(known) <= 12 and not suggestion else ""
        yield SchemaIssue(
            (*f.path, key),
            True,
            f.code or "schema-unknown-key",
            f"Unknown key '{key}' {_where(f.path, f.value)}: AgentV ignores it.{hint}{listed}",
            "warning",
            {
                "key": key,
                "expected": known,
                **({"suggestion": suggestion} if suggestion else {}),
                **({} if suggest else {"suggest": False}),
            },
        )


def _required(f: _Found) -> Iterator[SchemaIssue]:
    properties = _as_mapping(f.schema.get("properties"))
    for key in f.rule if isinstance(f.rule, list) else ():
        if isinstance(f.value, dict) and key in f.value:
            continue
        const = _as_mapping(properties.get(key)).get("const")
        add = f" Add `{key}: {const}`." if isinstance(const, str) else ""
        yield SchemaIssue(
            (*f.path, key),
            True,
            f.code or "schema-required",
            f"Missing required key '{key}' {_where(f.path, f.value)}.{add}",
            "error",
            {"key": key, **({"value": const} if isinstance(const, str) else {})},
        )


def _any_of(f: _Found) -> Iterator[SchemaIssue]:
    """Our schemas use anyOf only for "one of these spellings is required"."""
    alternatives = f.rule if isinstance(f.rule, list) else []
    keys = [a["required"][0] for a in alternatives if isinstance(a, dict) and set(a) == {"required"}]
    if not keys or len(keys) != len(alternatives):
        yield f.issue("schema-anyOf", f"{f.field} matches none of the allowed forms.")
        return
    others = ", ".join(f"'{k}'" for k in keys[1:])
    yield SchemaIssue(
        (*f.path, keys[0]),
        True,
        f.code or "schema-required",
        f"Missing required key '{keys[0]}' (or {others}) {_where(f.path, f.value)}.",
        "error",
        {"key": keys[0], "alternatives": keys},
    )


def _enum(f: _Found) -> Iterator[SchemaIssue]:
    expected = list(f.rule) if isinstance(f.rule, list) else [f.rule]
    suggestion = _suggest(f.value, [e for e in expected if isinstance(e, str)])
    hint = f" Did you mean '{suggestion}'?" if suggestion else ""
    data = {"expected": expected, "value": f.value, **({"suggestion": suggestion} if suggestion else {})}
    if f.code == "schema-unsupported-provider":
        yield f.issue(
            f.code,
            f"Provider '{f.value}' passes `agentv validate`, but `agentv eval` fails with \"Unsupported provider "
            f"'{f.value}'\" at this AgentV version. Supported: {_choices(expected)}.{hint}",
            data,
        )
        return
    yield f.issue(
        "schema-enum", f"{f.field} must be {_choices(expected)}, not {_found(f.value)}.{hint}", data
    )


def _const(f: _Found) -> Iterator[SchemaIssue]:
    data = {
        "expected": [f.rule],
        "value": f.value,
        **({"suggestion": f.rule} if isinstance(f.rule, str) else {}),
    }
    yield f.issue("schema-const", f"{f.field} must be {_choices([f.rule])}, not {_found(f.value)}.", data)


def _type(f: _Found) -> Iterator[SchemaIssue]:
    types = f.rule if isinstance(f.rule, list) else [f.rule]
    if f.code == "schema-string-in-content-list":
        replacement = {"replacement": {"type": "text", "value": f.value}} if isinstance(f.value, str) else {}
        yield f.issue(
            f.code,
            f"{f.field} is {_describe(f.value)}, but a content list may only hold segments such as "
            "`{type: text, value: ...}`: AgentV silently drops the whole message. Write the item as a text "
            "segment, or make 'content' a single string.",
            {"expected": types, **replacement},
        )
        return
    wanted = f.schema.get("x-expected")
    if not isinstance(wanted, str):
        wanted = " or ".join(_TYPE_NAMES.get(str(t), str(t)) for t in types)
        title = f.schema.get("title")
        if types == ["object"] and isinstance(title, str):
            wanted += f" ({_lower_first(title)})"
    quote = (
        " Put the value in quotes to make it a string." if types == ["string"] and _is_scalar(f.value) else ""
    )
    yield f.issue(
        "schema-type", f"{f.field} must be {wanted}, not {_describe(f.value)}.{quote}", {"expected": types}
    )


def _min_length(f: _Found) -> Iterator[SchemaIssue]:
    text = "must not be empty" if f.rule == 1 else f"must be at least {f.rule} characters long"
    yield f.issue("schema-min-length", f"{f.field} {text}.", {"minLength": f.rule})


def _minimum(f: _Found) -> Iterator[SchemaIssue]:
    message = f"{f.field} must be at least {f.rule}, not {_describe(f.value)}."
    yield f.issue("schema-minimum", message, {"minimum": f.rule})


def _exclusive_minimum(f: _Found) -> Iterator[SchemaIssue]:
    message = f"{f.field} must be greater than {f.rule}, not {_describe(f.value)}."
    yield f.issue("schema-minimum", message, {"exclusiveMinimum": f.rule})


def _pattern(f: _Found) -> Iterator[SchemaIssue]:
    text = f.value if isinstance(f.value, str) else ""
    if f.code == "schema-cli-placeholder":
        unknown = [p for p in re.findall(r"\{([A-Z_]+)\}", text) if p not in CLI_PLACEHOLDERS]
        suggestion = _suggest(unknown[0], list(CLI_PLACEHOLDERS)) if unknown else None
        hint = f" Did you mean '{{{suggestion}}}'?" if suggestion else ""
        shown = ", ".join("'{" + p + "}'" for p in unknown) or "a placeholder"
        supported = ", ".join("{" + p + "}" for p in CLI_PLACEHOLDERS)
        data: dict[str, Any] = {"placeholders": unknown, "expected": list(CLI_PLACEHOLDERS)}
        yield f.issue(
            f.code,
            f"Unknown CLI placeholder {shown} in {f.field}. Supported placeholders: {supported}.{hint}",
            {**data, **({"suggestion": suggestion} if suggestion else {})},
        )
    elif f.code == "schema-env-ref":
        words = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", str(f.path[-1]) if f.path else "value")
        example = "${{ " + re.sub(r"[^A-Za-z0-9]+", "_", words).upper().strip("_") + " }}"
        yield f.issue(
            f.code,
            f"{f.field} must be an environment reference such as {example}, not a literal value: AgentV refuses "
            "literals here and `agentv eval` fails ('must use ${{ VARIABLE_NAME }} syntax').",
            {"example": example},
        )
    elif f.code == "schema-blank":
        yield f.issue(f.code, f"{f.field} must not be blank.")
    elif f.code == "schema-enum":
        expected = [e for e in f.schema.get("examples", []) if isinstance(e, str)]
        suggestion = _suggest(text, expected)
        hint = f" Did you mean '{suggestion}'?" if suggestion else ""
        data = {"expected": expected, "value": f.value, **({"suggestion": suggestion} if suggestion else {})}
        yield f.issue(f.code, f"{f.field} must be {_choices(expected)}, not {_found(f.value)}.{hint}", data)
    elif f.code == "schema-type":
        wanted = f.schema.get("x-expected", "a different value")
        yield f.issue(f.code, f"{f.field} must be {wanted}, not {_describe(f.value)}.")
    else:
        explanation = f.schema.get("patternErrorMessage") or f"must match the pattern {f.rule}"
        yield f.issue("schema-pattern", f"{f.field}: {explanation}")


Handler = Callable[[_Found], Iterator[SchemaIssue]]
_HANDLERS: dict[str, Handler] = {
    "additionalProperties": _unknown_keys,
    "required": _required,
    "anyOf": _any_of,
    "enum": _enum,
    "const": _const,
    "type": _type,
    "minLength": _min_length,
    "minimum": _minimum,
    "exclusiveMinimum": _exclusive_minimum,
    "pattern": _pattern,
}

_TYPE_NAMES = {
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def _suggest(value: Any, choices: list[str]) -> str | None:
    """The intended choice for a typo: same letters in another case, else the closest by difflib."""
    if not isinstance(value, str) or not choices:
        return None
    return _closest(value, tuple(choices))


@functools.lru_cache(maxsize=4096)  # a typo repeated in every case of a big file
def _closest(value: str, choices: tuple[str, ...]) -> str | None:
    lowered = [c.lower() for c in choices]
    wanted = value.strip().lower()
    if wanted in lowered:
        return choices[lowered.index(wanted)]
    close = difflib.get_close_matches(wanted, lowered, n=1, cutoff=0.6)
    return choices[lowered.index(close[0])] if close else None


def _choices(expected: list[Any]) -> str:
    shown = [f"'{e}'" if isinstance(e, str) else json.dumps(e) for e in expected]
    if len(shown) == 1:
        return shown[0]
    return "one of " + ", ".join(shown)


def _found(value: Any) -> str:
    return f"'{_short(value)}'" if isinstance(value, str) and value else _describe(value)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float))


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {json.dumps(value)}"
    if isinstance(value, str):
        return f"the string '{_short(value)}'" if value else "an empty string"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    return "a mapping"


def _short(text: str, limit: int = 40) -> str:
    line = text.replace("\n", "\\n")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _dotted(path: JsonPath) -> str:
    out = ""
    for item in path:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else str(item))
    return out


def _field(path: JsonPath) -> str:
    """How a message names the failing value: its key, or `list[index]` for a list item."""
    if not path:
        return "The document"
    last = path[-1]
    if isinstance(last, int):
        owner = next((p for p in reversed(path[:-1]) if isinstance(p, str)), None)
        return f"'{owner}[{last}]'" if owner is not None else f"Item {last}"
    return f"'{last}'"


def _where(path: JsonPath, value: Any) -> str:
    """Where a key is missing or unknown: the mapping's path and, for a union, its branch."""
    place = f"in {_dotted(path)}" if path else "at the top level"
    if isinstance(value, dict):
        for discriminator in ("provider", "type"):
            chosen = value.get(discriminator)
            if isinstance(chosen, str):
                return f"{place} ({discriminator}: {chosen})"
    return place
