"""JSON-schema diagnostics for AgentV 4.42.4 files (schema/agentv-eval-v4.schema.json).

The schema is written from what the runtime and `agentv validate` do at 4.42.4. Messages,
codes and fix data come from the v2 machinery in `agentv_lsp.engine.schemas` (one handler per
jsonschema keyword); this module adds what 4.x needs on top:

- severity from the schema: a failing keyword whose subschema says `"x-severity": "error"`
  is an error (`agentv validate` fails the file there); everything else is a warning (the
  validator only warns, or the runtime ignores the value). Unknown keys stay warnings;
- `errorMessage` (VS Code's custom message) for rules written as `not: {}`, such as
  "'turns' requires mode: conversation";
- deprecated keys (`deprecationMessage`, `x-rename`) reported as `agentv validate` does;
- `data["fix"]`: a mechanical edit where one exists (`replace` a span with a text).

Linear in the document: the suite is validated with `tests` items left out, then each test
on its own; issues are deduplicated to one per place.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import replace
from typing import Any, Literal

from jsonschema import Draft202012Validator, validators

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.engine import schemas
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.jsrt import is_blank
from agentv_lsp.engine.schemas import SchemaIssue
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.yamlpos import Span, YamlDocument

SCHEMA_FILE = "agentv-eval-v4.schema.json"
FileKind = Literal["eval", "cases", "case"]
Part = Literal["suite", "tests-item", "cases-file", "test", "directory-case"]
JsonPath = tuple[str | int, ...]

_ASSERTION_SCRIPT_EXTENSIONS = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")
_FIX_CODES = {"v4-schema-unknown-key", "v4-schema-enum", "v4-schema-const"}


@functools.cache
def load_v4_schema() -> dict[str, Any]:
    """The parsed 4.x eval schema (cached: do not modify it)."""
    schema: dict[str, Any] = json.loads((schemas.schema_dir() / SCHEMA_FILE).read_text("utf-8"))
    return schema


@functools.cache
def _validator(part: Part) -> Draft202012Validator:
    """The plain validator of a part, which walks every value in full (`shared=False`, and
    values checked once per file anyway)."""
    return schemas.JsDraft202012Validator(_part_schema(part))


@functools.cache
def _part_schema(part: Part) -> dict[str, Any]:
    schema = load_v4_schema()
    if part == "suite":
        # `tests` items are validated one by one (see `_tests_to_report`)
        properties = dict(schema["properties"])
        properties["tests"] = {k: v for k, v in properties["tests"].items() if k != "items"}
        return {**schema, "properties": properties}
    defs = schema["$defs"]
    name = {
        "tests-item": "testsItem",
        "cases-file": "casesFile",
        "test": "test",
        "directory-case": "directoryCase",
    }[part]
    if part == "cases-file":
        defs = {**defs, "casesFile": {k: v for k, v in defs["casesFile"].items() if k != "items"}}
    return {"$schema": schema["$schema"], "$defs": defs, "$ref": f"#/$defs/{name}"}


_LOCAL_REF = "#/$defs/"
# (definition's id, shape of a mapping) found valid against that definition: shared by every
# validation in this process, as `_SHARED` is; bounded, cleared when full.
_VALID_BY_SHAPE: set[tuple[int, Any]] = set()
_VALID_LIMIT = 16384


@functools.cache
def _sharing_validator(part: Part) -> Draft202012Validator:
    """The validator of a part for `_shared_failures`. Each new test shape is validated, and
    its messages, segments and other parts mostly repeat ones seen in other shapes, so:
    - a `$ref` to the schema's own `$defs` goes straight to the definition (the object the
      registry lookup would find; that lookup was a fifth of a validation);
    - a mapping found valid against a definition makes every mapping of its shape (`_shape`:
      the schema cannot tell them apart) valid there without a walk. Not for definitions that
      nest in themselves (composite graders): a shape per level of a deep nesting would cost
      its depth times its size.
    Other references resolve as usual. Sound while a definition's verdict depends on the
    mapping alone: the schema has no `unevaluated*`, `$dynamicRef` or `dependentSchemas`
    (tests/unit/test_v4_schema.py checks)."""
    schema = _part_schema(part)
    defs: Mapping[str, Any] = schema.get("$defs", {})
    nesting = _self_nesting(defs)
    resolve_ref = Draft202012Validator.VALIDATORS["$ref"]

    def local_ref(validator: Any, ref: str, instance: Any, subschema: Any) -> Iterator[Any]:
        name = ref[len(_LOCAL_REF) :] if ref.startswith(_LOCAL_REF) else ""
        definition = defs.get(name)
        if definition is None:
            yield from resolve_ref(validator, ref, instance, subschema)
        elif type(instance) is dict and name not in nesting:
            known = (id(definition), _shape(instance, _text_keys(), False))
            if known in _VALID_BY_SHAPE:
                return
            errors = list(validator.descend(instance, definition))
            if not errors:
                if len(_VALID_BY_SHAPE) >= _VALID_LIMIT:
                    _VALID_BY_SHAPE.clear()
                _VALID_BY_SHAPE.add(known)
            yield from errors
        else:
            yield from validator.descend(instance, definition)

    validator_class = validators.extend(schemas.JsDraft202012Validator, {"$ref": local_ref})  # type: ignore[no-untyped-call]
    validator: Draft202012Validator = validator_class(schema)
    return validator


def _self_nesting(defs: Mapping[str, Any]) -> frozenset[str]:
    """The definitions that can hold themselves through `$ref`s."""
    refers: dict[str, set[str]] = {}
    for name, definition in defs.items():
        found = refers[name] = set()
        stack: list[Any] = [definition]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith(_LOCAL_REF):
                    found.add(ref[len(_LOCAL_REF) :])
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    nesting: set[str] = set()
    for name in defs:
        reached: set[str] = set()
        pending = list(refers[name])
        while pending:
            other = pending.pop()
            if other not in reached:
                reached.add(other)
                pending.extend(refers.get(other, ()))
        if name in reached:
            nesting.add(name)
    return frozenset(nesting)


def file_kind(path: str, value: Any, keys: Keys = V4_KEYS) -> FileKind:
    """What a YAML file is to AgentV 4.x: an eval suite, an external list of tests
    (`tests: ./cases.yaml`), or one test of a tests directory (`cases/<name>/case.yaml`)."""
    if isinstance(value, list):
        return "cases"
    if (
        isinstance(value, dict)
        and os.path.basename(path).lower() in ("case.yaml", "case.yml")
        # (`tests` and the first deprecated name, the two this test has always looked at)
        and not any(key in value for key in keys.test_list_keys()[:2])
    ):
        return "case"
    return "eval"


def validate_v4(value: Any, kind: FileKind = "eval", *, shared: bool = True) -> list[SchemaIssue]:
    """Schema issues of a parsed 4.x file, graded, one per place, in document order.
    `shared=False` validates every test on its own (tests compare both ways)."""
    if kind == "cases":
        # `agentv validate` reads an external tests file only to load it (a non-object entry
        # fails it); what is wrong inside a test is found at run time: warnings here
        found = list(_issues(_validator("cases-file"), value, ()))
        if isinstance(value, list):
            for index, item, failures in _tests_to_report("test", value, shared=shared):
                base: JsonPath = (index,)
                found.extend(_as_warnings(_graded(failures, item, base), base))
                found.extend(_deprecations(item, base, test=True))
        return _one_per_place(found, value)
    if kind == "case":
        # a directory case: no `id` needed (the folder names it); validate does not read it
        found = [
            *_as_warnings(_issues(_validator("directory-case"), value, ()), ()),
            *_deprecations(value, (), test=True),
        ]
        return _one_per_place(found, value)
    found = [*_suite_issues(value, shared=shared), *_deprecations(value, (), test=False)]
    tests = value.get("tests") if isinstance(value, dict) else None
    if isinstance(tests, list):
        for index, item, failures in _tests_to_report("tests-item", tests, shared=shared):
            base = ("tests", index)
            found.extend(_graded(failures, item, base))
            found.extend(_deprecations(item, base, test=True))
    return _one_per_place(found, value)


def schema_diagnostics_v4(
    path: str,
    doc: YamlDocument,
    kind: FileKind | None = None,
    covered: Set[JsonPath] = frozenset(),
    fs: FileSystem | None = None,
) -> list[Diagnostic]:
    """Schema issues of a parsed file as ranged diagnostics (none when the YAML did not parse),
    except at paths in `covered` (already reported by a more specific check). `fs`: where the
    custom assertion folders are listed (the disk by default)."""
    if doc.error is not None or doc.value is None:
        return []
    issues = validate_v4(doc.value, kind or file_kind(path, doc.value))
    custom = (
        _custom_assertion_types(path, fs or FileSystem())
        if any(_is_assertion_type(i) for i in issues)
        else frozenset()
    )
    file = os.path.abspath(path)
    out: list[Diagnostic] = []
    for issue in issues:
        if issue.path in covered or (_is_assertion_type(issue) and _type_name(issue) in custom):
            continue
        span = doc.span_of(issue.path, key=issue.on_key)
        data = dict(issue.data)
        fix = _fix(doc, issue, span)
        if fix is not None:
            data["fix"] = fix
        out.append(
            Diagnostic(
                file,
                span,
                issue.severity,
                issue.code,
                issue.message,
                issue.path,
                data,
                unnecessary=issue.code == "v4-schema-unknown-key",
            )
        )
    return out


# ---------------------------------------------------------------------------- issues


def _as_warnings(issues: Iterable[SchemaIssue], keep: JsonPath) -> Iterator[SchemaIssue]:
    """Issues graded as warnings, except where the value at `keep` is not a mapping at all
    (AgentV refuses such an entry: 'External test file contains non-object entry')."""
    for issue in issues:
        structural = issue.path == keep and issue.code == "v4-schema-type"
        yield issue if structural or issue.severity == "warning" else replace(issue, severity="warning")


def _issues(validator: Draft202012Validator, instance: Any, base: JsonPath) -> Iterator[SchemaIssue]:
    return _graded(schemas._failures(validator, instance), instance, base)


# Validation results of tests by shape, shared by every file checked in this process (a suite
# repeats a few shapes thousands of times). Bounded; the oldest entry goes first.
_SHARED: dict[Any, list[Any]] = {}
_SHARED_LIMIT = 4096


def clear_cache() -> None:
    """Forget the shared per-shape results (benchmarks and tests)."""
    _SHARED.clear()
    _VALID_BY_SHAPE.clear()


def _tests_to_report(
    part: Part, tests: list[Any], *, shared: bool = True
) -> Iterator[tuple[int, Any, list[Any]]]:
    """(index, test, failing keywords) of each test that fails a keyword or has a deprecated
    key. Tests with the same shape (`_shape`) fail the same keywords at the same paths, so
    their validation is shared (messages are built from each test's values). This loop runs
    for every test and most have nothing to report: they cost their shape and no more."""
    validator = _validator(part)
    deprecated_keys = _deprecated_properties(True).keys()
    for index, item in enumerate(tests):
        if shared and type(item) is dict:
            failures = _shared_failures(part, item)
        else:
            failures = schemas._failures(validator, item)
        if failures or (isinstance(item, dict) and not deprecated_keys.isdisjoint(item)):
            yield index, item, failures


def _suite_issues(suite: Any, *, shared: bool = True) -> Iterator[SchemaIssue]:
    """The suite's own issues (its `tests` items are validated one by one). Suites of the same
    shape share their validation, as tests do: a folder of eval files repeats a few layouts.
    The suite schema only checks that a `tests` list is a list, so its items are left out of
    the shape."""
    if not shared or type(suite) is not dict:
        return _issues(_validator("suite"), suite, ())
    tests = suite.get("tests")
    outline = {**suite, "tests": []} if type(tests) is list else suite
    return _graded(_shared_failures("suite", outline), suite, ())


def _shared_failures(part: Part, value: dict[str, Any]) -> list[Any]:
    """The failing keywords of `value`, validated once per shape (`_shape`)."""
    shape = (part, _shape(value, _text_keys(), False))
    failures = _SHARED.get(shape)
    if failures is None:
        failures = schemas._failures(_sharing_validator(part), value)
        if len(_SHARED) >= _SHARED_LIMIT:
            del _SHARED[next(iter(_SHARED))]
        _SHARED[shape] = failures
    return failures


def _shape(value: Any, text_keys: frozenset[str], reads_text: bool) -> Any:
    """A hashable stand-in for a value that this schema cannot tell apart from it: keys, list
    lengths and non-string values as they are; a string's text where its key's schema reads
    it (`_text_keys`), elsewhere only whether it is empty (0), blank (1) or not (2): all that
    `type`, `minLength: 1` and `pattern: \\S` can see (JavaScript's blankness, as `trim` and
    the pattern's `\\s` read it). A mapping is `(dict, *keys, *shapes of its values)`, a list
    `(list, *shapes of its items)`: flat tuples, cheaper to build, hash and compare than a
    tuple per entry. This runs for every test."""
    kind = type(value)
    if kind is dict:
        items: list[Any] = [dict, *value]
        for k, v in value.items():
            if type(v) is str:
                items.append(v if k in text_keys else 0 if not v else 1 if is_blank(v) else 2)
            else:
                items.append(_shape(v, text_keys, k in text_keys))
        return tuple(items)
    if kind is list:
        items = [list]
        for v in value:
            if type(v) is str:
                items.append(v if reads_text else 0 if not v else 1 if is_blank(v) else 2)
            else:
                items.append(_shape(v, text_keys, reads_text))
        return tuple(items)
    return (kind, value)  # other scalars (and a string given as the whole value) as they are


_BLIND_KEYWORDS = frozenset(("type", "description", "markdownDescription", "title", "examples", "format"))


@functools.cache
def _text_keys() -> frozenset[str]:
    """Property names whose string values (or string list items) the schema reads beyond their
    type and blankness: `enum`, `const`, a `pattern` other than `\\S`, lengths above 1. (`format`
    is an annotation here: the validator runs without a format checker.)"""
    schema = load_v4_schema()
    defs: Mapping[str, Any] = schema["$defs"]

    def reads_text(sub: Any, seen: frozenset[str]) -> bool:
        if not isinstance(sub, dict):
            return False
        if "enum" in sub or "const" in sub or "maxLength" in sub or sub.get("minLength", 0) > 1:
            return True
        if "pattern" in sub and sub["pattern"] != "\\S":
            return True
        ref = sub.get("$ref")
        if isinstance(ref, str):
            name = ref.removeprefix("#/$defs/")
            if name not in defs:
                return True
            if name not in seen and reads_text(defs[name], seen | {name}):
                return True
        for keyword in ("allOf", "anyOf", "oneOf"):
            if any(reads_text(s, seen) for s in sub.get(keyword, [])):
                return True
        return any(reads_text(sub.get(k), seen) for k in ("not", "if", "then", "else", "items", "contains"))

    keys: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, sub in schemas._as_mapping(node.get("properties")).items():
                if reads_text(sub, frozenset()):
                    keys.add(key)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(keys)


def _graded(failures: list[Any], instance: Any, base: JsonPath) -> Iterator[SchemaIssue]:
    for failure in failures:
        severity: schemas.Severity = "error" if failure.schema.get("x-severity") == "error" else "warning"
        custom_message = failure.schema.get("errorMessage")
        for issue in schemas._to_issues(failure, instance, base):
            code = "v4-" + issue.code
            message = issue.message
            if failure.validator == "not" and isinstance(custom_message, str):
                code, message = "v4-schema-not-allowed", custom_message
            elif code == "v4-schema-unknown-key":
                issue = _suggest_current_key(issue, failure.schema)
                message = issue.message
            elif code == "v4-schema-enum" and _is_assertion_type_path(issue.path):
                message = _unknown_assertion_type_message(issue)
            elif failure.validator in _BOUNDS:
                code = f"v4-schema-{_BOUNDS[failure.validator][0]}"
                message = _bound_message(issue, failure.validator, failure.rule)
            yield replace(
                issue,
                code=code,
                message=message,
                severity="warning" if issue.severity == "warning" else severity,
            )


# keywords `schemas` has no message for: (code suffix, what the value must be)
_BOUNDS = {
    "maximum": ("maximum", "at most {}"),
    "exclusiveMaximum": ("maximum", "less than {}"),
    "minItems": ("min-items", "a list of at least {} item(s)"),
    "maxItems": ("max-items", "a list of at most {} item(s)"),
}


def _bound_message(issue: SchemaIssue, keyword: str, rule: Any) -> str:
    field = schemas._field(issue.path)
    return f"{field} must be {_BOUNDS[keyword][1].format(json.dumps(rule))}."


def _suggest_current_key(issue: SchemaIssue, schema: Mapping[str, Any]) -> SchemaIssue:
    """An unknown key's "did you mean" among the keys that are not deprecated
    (`expected_messages` should become `expected_output`, not `expected_outcome`)."""
    if issue.data.get("suggest") is False:  # too many unknown keys there to be typos
        return issue
    properties = schemas._as_mapping(schema.get("properties"))
    current = [str(k) for k, v in properties.items() if not (isinstance(v, dict) and v.get("deprecated"))]
    old = issue.data.get("suggestion")
    new = schemas._suggest(issue.data.get("key"), current)
    if old == new:
        return issue
    data = {k: v for k, v in issue.data.items() if k != "suggestion"}
    message = issue.message.split(" Did you mean")[0].split(" Keys read here:")[0]
    if new is not None:
        data["suggestion"] = new
        message += f" Did you mean '{new}'?"
    return replace(issue, message=message, data=data)


def _deprecations(value: Any, base: JsonPath, *, test: bool) -> Iterator[SchemaIssue]:
    """Keys the schema marks with `deprecationMessage` in a suite or a test, as `agentv
    validate` warns about them."""
    if not isinstance(value, dict):
        return
    properties = _deprecated_properties(test)
    if properties.keys().isdisjoint(value):
        return
    for key in value:
        declared = properties.get(key)
        if declared is None:
            continue
        rename = declared.get("x-rename")
        data: dict[str, Any] = {"key": key}
        if isinstance(rename, str) and rename not in value:
            data["rename"] = rename
        yield SchemaIssue(
            (*base, key), True, "v4-schema-deprecated-key", declared["deprecationMessage"], "warning", data
        )


_RANK = {"error": 0, "warning": 1}


def _one_per_place(issues: list[SchemaIssue], root: Any) -> list[SchemaIssue]:
    """The most severe issue at each (path, key-or-value) place, in document order."""
    best: dict[tuple[JsonPath, bool], SchemaIssue] = {}
    for issue in issues:
        place = (issue.path, issue.on_key)
        kept = best.get(place)
        if kept is None or _RANK[issue.severity] < _RANK[kept.severity]:
            best[place] = issue
    return schemas._finish(list(best.values()), root)


@functools.cache
def _deprecated_properties(test: bool) -> dict[str, Mapping[str, Any]]:
    """The deprecated keys of a test (`test`) or a suite, with their schemas."""
    schema = load_v4_schema()
    properties: Mapping[str, Any] = (schema["$defs"]["testFields"] if test else schema)["properties"]
    return {
        key: declared
        for key, declared in properties.items()
        if isinstance(declared, dict) and isinstance(declared.get("deprecationMessage"), str)
    }


# ---------------------------------------------------------------------------- custom assertion types


def _is_assertion_type(issue: SchemaIssue) -> bool:
    return issue.code == "v4-schema-enum" and _is_assertion_type_path(issue.path)


def _is_assertion_type_path(path: JsonPath) -> bool:
    return (
        len(path) >= 3
        and path[-1] == "type"
        and isinstance(path[-2], int)
        and path[-3] in ("assertions", "evaluators", "assert")
    )


def _unknown_assertion_type_message(issue: SchemaIssue) -> str:
    value = issue.data.get("value")
    if not isinstance(value, str):
        return issue.message
    suggestion = issue.data.get("suggestion")
    hint = f" Did you mean '{suggestion}'?" if isinstance(suggestion, str) else ""
    return (
        f"Unknown assertion type '{value}': `agentv validate` warns, and at run time AgentV looks for a custom "
        f"assertion `.agentv/assertions/{value.replace('_', '-')}.ts` (or .js) in this folder or above.{hint}"
    )


def _type_name(issue: SchemaIssue) -> str:
    value = issue.data.get("value")
    return value.replace("_", "-") if isinstance(value, str) else ""


def _custom_assertion_types(path: str, fs: FileSystem) -> frozenset[str]:
    """Names of `.agentv/assertions/<name>.ts|js|…` files in the eval file's folder and its
    ancestors: AgentV treats them as assertion types."""
    names: set[str] = set()
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        names.update(_scripts_in(os.path.join(folder, ".agentv", "assertions"), fs))
        parent = os.path.dirname(folder)
        if parent == folder:
            return frozenset(names)
        folder = parent


def _scripts_in(folder: str, fs: FileSystem) -> Iterable[str]:
    try:
        for entry in fs.scandir(folder):
            stem, ext = os.path.splitext(entry.name)
            if ext.lower() in _ASSERTION_SCRIPT_EXTENSIONS and entry.is_file():
                yield stem
    except OSError:
        return


# ---------------------------------------------------------------------------- fixes


def _fix(doc: YamlDocument, issue: SchemaIssue, span: Span) -> dict[str, Any] | None:
    """A mechanical edit for the issue, if one exists: a typo'd key or value replaced by the
    suggestion, a deprecated key renamed."""
    if issue.code == "v4-schema-deprecated-key" and isinstance(issue.data.get("rename"), str):
        return {"kind": "replace", "span": _span_list(span), "text": issue.data["rename"]}
    suggestion = issue.data.get("suggestion")
    if issue.code not in _FIX_CODES or not isinstance(suggestion, str):
        return None
    if issue.code == "v4-schema-unknown-key":
        parent = issue.path[:-1]
        if _has_key(doc.value, parent, suggestion):
            return None  # renaming would create a duplicate key
        return {"kind": "replace", "span": _span_list(span), "text": suggestion}
    if span.start_line != span.end_line:
        return None
    return {"kind": "replace", "span": _span_list(span), "text": suggestion}


def _has_key(value: Any, path: JsonPath, key: str) -> bool:
    for item in path:
        try:
            value = value[item]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(value, dict) and key in value


def _span_list(span: Span) -> list[int]:
    return [span.start_line, span.start_col, span.end_line, span.end_col]
