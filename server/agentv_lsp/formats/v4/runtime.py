"""JavaScript semantics the 4.42.4 loader relies on, and the message sink it prints to.

`MISSING` stands for JavaScript's `undefined` (a key that is absent), distinct from `None`
(YAML/JSON `null`): the runtime tests `!== undefined` in some places and `??` (null or
undefined) in others, and the difference decides which tests load.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, TypeGuard, Unpack

from agentv_lsp.engine.files import (
    FileSystem,
    FileText,
    Resolution,
    resolve_reference,
    truncated_message,
)
from agentv_lsp.engine.jsrt import JS_WHITESPACE
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.model import RuntimeMessage, Stream, YamlPath
from agentv_lsp.yamlpos.document import MERGE_VALUE
from agentv_lsp.yamlpos.scalars import js_json_stringify, js_number


class MessagePlace(TypedDict, total=False):
    """Where a console message points (`file`, `yaml_path`) and the facts it carries (`data`)."""

    file: str | None
    yaml_path: YamlPath | None
    data: dict[str, Any] | None


class _Missing:
    """JavaScript `undefined`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
_WS = re.escape(JS_WHITESPACE)


class LoadFailure(Exception):
    """The runtime threw: `loadTests` rejects with this message."""

    def __init__(
        self,
        message: str,
        code: str,
        *,
        error_type: str = "Error",
        file: str | None = None,
        yaml_path: YamlPath | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.error_type = error_type
        self.file = file
        self.yaml_path = yaml_path


class TestRejected(Exception):
    """A grader problem that makes the runtime skip one test (`Skipping test 'x': …`)."""

    __test__ = False  # not a pytest class

    def __init__(self, message: str, code: str, yaml_path: YamlPath | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.yaml_path = yaml_path


# -- values -------------------------------------------------------------------------------


class JsFunction:
    """A JavaScript function value: what a template name of an Object.prototype member
    (`{{ toString }}`) finds on a plain object. Not JSON: `JSON.stringify` gives `undefined`."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def source(self) -> str:
        """`String(fn)` of a built-in."""
        return f"function {self.name}() {{ [native code] }}"

    def __repr__(self) -> str:
        return self.source


# Every plain object inherits these (Node 20); `constructor` is the `Object` function.
OBJECT_PROTOTYPE_MEMBERS: dict[str, JsFunction] = {
    name: JsFunction(name)
    for name in (
        "__defineGetter__",
        "__defineSetter__",
        "hasOwnProperty",
        "__lookupGetter__",
        "__lookupSetter__",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toString",
        "valueOf",
        "toLocaleString",
    )
}
OBJECT_PROTOTYPE_MEMBERS["constructor"] = JsFunction("Object")
# What an array prototype adds (`vars: {__proto__: [..]}`), besides `length` and indexes.
_ARRAY_PROTOTYPE_MEMBERS: dict[str, JsFunction] = {
    name: JsFunction(name)
    for name in [
        "at",
        "concat",
        "copyWithin",
        "entries",
        "every",
        "fill",
        "filter",
        "find",
        "findIndex",
        "findLast",
        "findLastIndex",
        "flat",
        "flatMap",
        "forEach",
        "includes",
        "indexOf",
        "join",
        "keys",
        "lastIndexOf",
        "map",
        "pop",
        "push",
        "reduce",
        "reduceRight",
        "reverse",
        "shift",
        "slice",
        "some",
        "sort",
        "splice",
        "toLocaleString",
        "toReversed",
        "toSorted",
        "toSpliced",
        "toString",
        "unshift",
        "values",
        "with",
    ]
}
_ARRAY_PROTOTYPE_MEMBERS["constructor"] = JsFunction("Array")
# `process.env` (Node 20) inherits the same members; its constructor is an anonymous function.
_ENV_MEMBERS: dict[str, JsFunction] = {**OBJECT_PROTOTYPE_MEMBERS, "constructor": JsFunction("")}
PROTO_KEY = "__proto__"


class JsObject(dict):  # type: ignore[type-arg]
    """A plain object whose prototype a `__proto__` key replaced: `interpolateEnv` copies
    every object with `result[key] = value`, and for `__proto__` that assignment sets the
    prototype (an object, an array or null) or does nothing (any other value); the key itself
    is gone either way. Reading a key (`get`, `[]`, `in`) also finds the keys of the objects
    up the chain, as the runtime's `raw.criteria` does; iteration, copies and JSON stay with
    the own keys, like `Object.entries` and `{...raw}`. (`js_get` adds what every object
    inherits, for templates.)"""

    __slots__ = ("proto",)

    def __init__(self, items: Mapping[str, Any], proto: Any) -> None:
        super().__init__(items)
        self.proto = proto  # dict, list, or None for a null prototype

    def _inherited(self, key: Any) -> Any:
        proto = self.proto
        while isinstance(proto, dict):
            if dict.__contains__(proto, key):
                return dict.__getitem__(proto, key)
            proto = proto.proto if isinstance(proto, JsObject) else None
        return MISSING

    def __missing__(self, key: Any) -> Any:
        found = self._inherited(key)
        if found is MISSING:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._inherited(key) is not MISSING

    def get(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        found = self._inherited(key)
        return default if found is MISSING else found


class _EnvPrototype(dict):  # type: ignore[type-arg]
    """The prototype of `process.env` as a value (`${{ __proto__ }}`): no enumerable keys."""

    __slots__ = ()


ENV_PROTOTYPE: Any = _EnvPrototype()


class _ObjectPrototype(dict):  # type: ignore[type-arg]
    """`Object.prototype` as a value (`{{ __proto__ }}`): no enumerable keys, so `{}`."""

    __slots__ = ()


OBJECT_PROTOTYPE: Any = _ObjectPrototype()


class _HoldsFunction:
    """Marks a container that holds a JsFunction at some depth (`isJsonValue` fails on it)."""

    __slots__ = ()


class _FunctionDict(_HoldsFunction, dict):  # type: ignore[type-arg]
    __slots__ = ()


class _FunctionList(_HoldsFunction, list):  # type: ignore[type-arg]
    __slots__ = ()


class _FunctionJsObject(_HoldsFunction, JsObject):
    __slots__ = ()


def _prototype_of(value: Any) -> Any:
    """The object's `[[Prototype]]` (None: null)."""
    if value is OBJECT_PROTOTYPE:
        return None
    if isinstance(value, JsObject):
        return value.proto
    return OBJECT_PROTOTYPE


def js_get(obj: Any, key: str) -> Any:
    """`obj[key]` on a plain object, through its prototype chain (MISSING: `undefined`)."""
    current: Any = obj
    while current is not None:
        if isinstance(current, list):
            if key == "length":
                return len(current)
            if key.isdigit() and (key == "0" or key[0] != "0") and int(key) < len(current):
                return current[int(key)]
            member = _ARRAY_PROTOTYPE_MEMBERS.get(key)
            if member is not None:
                return member
            current = OBJECT_PROTOTYPE
            continue
        if key in current and current is not OBJECT_PROTOTYPE:
            return dict.__getitem__(current, key)
        if current is OBJECT_PROTOTYPE:
            if key == PROTO_KEY:  # the accessor answers for the object it was read on
                return _prototype_of(obj)
            return OBJECT_PROTOTYPE_MEMBERS.get(key, MISSING)
        current = _prototype_of(current)
    return MISSING


def set_js_prototypes(value: Any) -> Any:
    """What `interpolateEnv`'s copy does to `__proto__` keys (see JsObject), without the
    environment: for a file that has no `${{` but spells `__proto__`."""
    if isinstance(value, list):
        return [set_js_prototypes(v) for v in value]
    if isinstance(value, dict):
        return _copy_object(value, set_js_prototypes)
    return value


def _copy_object(value: dict[str, Any], convert: Any) -> dict[str, Any]:
    if PROTO_KEY not in value:
        return {k: convert(v) for k, v in value.items()}
    own: dict[str, Any] = {}
    proto: Any = _prototype_of(value)
    for key, item in value.items():
        converted = convert(item)
        if key == PROTO_KEY:
            if converted is None or isinstance(converted, dict | list):
                proto = converted
        else:
            own[key] = converted
    return own if proto is OBJECT_PROTOTYPE else JsObject(own, proto)


def get(obj: Mapping[str, Any], key: str) -> Any:
    """`obj[key]` with `undefined` for an absent key."""
    return obj.get(key, MISSING)


def nullish(value: Any) -> bool:
    return value is MISSING or value is None


def coalesce(*values: Any) -> Any:
    """`a ?? b ?? …`"""
    for value in values:
        if not nullish(value):
            return value
    return values[-1]


def truthy(value: Any) -> bool:
    """JavaScript truthiness (objects and arrays are always true)."""
    if value is MISSING or value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def is_object(value: Any) -> TypeGuard[dict[str, Any]]:
    """`isJsonObject`: a plain object (YAML mapping / JSON object) holding only JSON values
    (a function put in by a template, at any depth, makes it fail)."""
    return type(value) is dict or (isinstance(value, dict) and not isinstance(value, _HoldsFunction))


def as_string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def js_typeof(value: Any) -> str:
    if value is MISSING:
        return "undefined"
    if isinstance(value, JsFunction):
        return "function"
    if value is MERGE_VALUE:  # a document that is a `!!merge` scalar: a Symbol for eemeli/yaml
        return "symbol"
    if value is None or isinstance(value, dict | list):
        return "object"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


def js_string(value: Any) -> str:
    """`String(value)` / template-literal interpolation for JSON-like values."""
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if nullish(v) else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, JsFunction):
        return value.source
    return str(value)


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def js_sort_key(text: str) -> bytes:
    """JavaScript's default string order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def node_extname(path: str) -> str:
    """Node's `path.extname` (POSIX): from the last '.' of the base name, unless that dot
    starts the name or the name is '..'."""
    base = path.rstrip("/").rsplit("/", 1)[-1]
    dot = base.rfind(".")
    if dot <= 0 or base == "..":
        return ""
    return base[dot:]


def js_number_value(text: str) -> int | float:
    """`Number(text)` for a plain decimal numeral (ints stay ints while exact)."""
    value = float(text)
    if "." not in text and "e" not in text.lower() and abs(value) < 2**53:
        return int(text)
    if value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


# -- interpolation --------------------------------------------------------------------------

_ENV_VAR = re.compile(rf"\$\{{\{{[{_WS}]*([A-Za-z_][A-Za-z0-9_]*)[{_WS}]*\}}\}}")
_WHOLE_ENV_VAR = re.compile(rf"\$\{{\{{[{_WS}]*([A-Za-z_][A-Za-z0-9_]*)[{_WS}]*\}}\}}\Z")
_TEMPLATE_VAR = re.compile(rf"\{{\{{[{_WS}]*([A-Za-z_][A-Za-z0-9_.]*)[{_WS}]*\}}\}}")
_WHOLE_TEMPLATE_VAR = re.compile(rf"\{{\{{[{_WS}]*([A-Za-z_][A-Za-z0-9_.]*)[{_WS}]*\}}\}}\Z")
_PLAIN_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?\Z")
# A `$` can reach a YAML value literally or through a double-quoted escape.
# So can `__proto__` (escapes of `_`, `p`, `r`, `o`, `t`).
_DOLLAR_ESCAPE = re.compile(r"\\(?:x|u00|U000000)(?:24|5[fF]|6[fF]|7[024])")


def quick_contains(text: str, needle: str) -> bool:
    """`needle in text`, sooner: on text that is not all ASCII, CPython searches for one
    character many times faster than for several, and most files lack the first one."""
    return needle[0] in text and needle in text


def may_reference_env(text: str) -> bool:
    """Whether `interpolateEnv` could change anything parsed from `text` (a fast pre-check):
    a `${{ VAR }}`, or a `__proto__` key its copy drops (see JsObject)."""
    if "$" in text and "{" in text:  # covers "${{"
        return True
    return may_spell_proto(text)


def may_spell_proto(text: str) -> bool:
    """Whether a `__proto__` key can be parsed from `text` (written, or through escapes), or a
    `$` through an escape. The loader, validate, the grader parser and the loss checks all ask
    about the same text: the answer for the last one is kept (a search of megabytes of
    non-ASCII text costs milliseconds)."""
    global _last_spelling
    last_text, last_found = _last_spelling  # one tuple: threads see a consistent pair
    if last_text is text:
        return last_found
    found = "__proto__" in text or _has_dollar_escape(text)
    _last_spelling = (text, found)
    return found


_last_spelling: tuple[str | None, bool] = (None, False)


# Stepping from one backslash to the next costs about half what the pattern's scan of a
# kilobyte does: step over up to one backslash per kilobyte (at least 64), then let the
# pattern scan the rest. A text with few backslashes is never scanned by the pattern.
_MIN_BACKSLASH_STEPS = 64


def _has_dollar_escape(text: str) -> bool:
    """`_DOLLAR_ESCAPE.search(text)`, found by stepping over the (usually few) backslashes:
    several times faster on a file of megabytes (the loader and validate both ask)."""
    at = text.find("\\")
    for _ in range(max(_MIN_BACKSLASH_STEPS, len(text) >> 10)):
        if at == -1:
            return False
        if _DOLLAR_ESCAPE.match(text, at):
            return True
        at = text.find("\\", at + 1)
    return at != -1 and _DOLLAR_ESCAPE.search(text, at) is not None


def _coerce_primitive(value: str) -> Any:
    if value == "true":
        return True
    if value == "false":
        return False
    if _PLAIN_NUMBER.match(value):
        return js_number_value(value)
    return value


def interpolate_env(value: Any, env: Mapping[str, str]) -> Any:
    """`interpolateEnv`: `${{ VAR }}` in every string; a whole-value reference is coerced.
    The runtime reads `process.env[VAR]`, so the names every object has find members there
    (see `env_value`); a container left holding a function is marked (`_HoldsFunction`)."""
    made_function: list[bool] = [False]
    result = _interpolate_env(value, env, made_function)
    return _mark_tree(result) if made_function[0] else result


def env_value(env: Mapping[str, str], name: str) -> Any:
    """`process.env[name] ?? ''`: a variable, else a member every object has (`toString`: a
    function; `constructor`: process.env's anonymous one; `__proto__`: its prototype), else ''."""
    found = env.get(name)
    if found is not None:
        return found
    if name == PROTO_KEY:
        return ENV_PROTOTYPE
    return _ENV_MEMBERS.get(name, "")


def _interpolate_env(value: Any, env: Mapping[str, str], made_function: list[bool]) -> Any:
    if isinstance(value, str):
        if "${{" not in value:
            return value
        whole = _WHOLE_ENV_VAR.match(value)
        if whole:
            resolved = env_value(env, whole.group(1))
            if isinstance(resolved, str):
                return _coerce_primitive(resolved)
            made_function[0] = made_function[0] or isinstance(resolved, JsFunction)
            return resolved
        return _ENV_VAR.sub(lambda m: js_string(env_value(env, m.group(1))), value)
    if isinstance(value, list):
        return [_interpolate_env(v, env, made_function) for v in value]
    if isinstance(value, dict):
        if PROTO_KEY in value:
            return _copy_object(value, lambda v: _interpolate_env(v, env, made_function))
        return {k: _interpolate_env(v, env, made_function) for k, v in value.items()}
    return value


def _mark_tree(value: Any) -> Any:
    """Every container holding a function, at any depth, marked (bottom-up)."""
    if isinstance(value, list):
        return _mark_functions([_mark_tree(v) for v in value])
    if isinstance(value, _EnvPrototype | _ObjectPrototype) or not isinstance(value, dict):
        return value
    items = {k: _mark_tree(v) for k, v in value.items()}
    if isinstance(value, JsObject):
        holds = any(isinstance(v, JsFunction | _HoldsFunction) for v in items.values())
        return (_FunctionJsObject if holds else JsObject)(items, value.proto)
    return _mark_functions(items)


def lookup_template_var(variables: Mapping[str, Any], expression: str) -> Any:
    """`lookupTemplateVar`: a dotted path read with JavaScript property access, so the names
    every object inherits (`toString`, `constructor`, `__proto__` …) are found too."""
    current: Any = variables
    for segment in expression.split("."):
        if not isinstance(current, dict):  # `isPlainObject`: functions and arrays end the path
            return MISSING
        current = js_get(current, segment)
    return current


def _clone(value: Any) -> Any:
    """`cloneTemplateValue`: own keys only (a prototype is not copied)."""
    if isinstance(value, list):
        return [_clone(v) for v in value]
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    return value


def stringify_template_value(value: Any) -> str:
    """`stringifyTemplateValue`; `JSON.stringify` of a function is `undefined`, which
    `String.replace` prints as "undefined"."""
    if isinstance(value, str):
        return value
    if isinstance(value, JsFunction):
        return "undefined"
    return js_json_stringify(value)


def _mark_functions(value: Any) -> Any:
    """A rendered container holding a function (see `_HoldsFunction`)."""
    if isinstance(value, list) and any(isinstance(v, JsFunction | _HoldsFunction) for v in value):
        return _FunctionList(value)
    if isinstance(value, dict) and any(isinstance(v, JsFunction | _HoldsFunction) for v in value.values()):
        return _FunctionDict(value)
    return value


def interpolate_template_vars(value: Any, variables: Mapping[str, Any]) -> Any:
    """`interpolateTemplateVars`: `{{ var.path }}` from a test's `vars`; unknown names stay."""
    if isinstance(value, str):
        if "{{" not in value:
            return value
        whole = _WHOLE_TEMPLATE_VAR.match(value)
        if whole:
            found = lookup_template_var(variables, whole.group(1))
            return value if found is MISSING else _clone(found)

        def replace(match: re.Match[str]) -> str:
            found = lookup_template_var(variables, match.group(1))
            return match.group(0) if found is MISSING else stringify_template_value(found)

        return _TEMPLATE_VAR.sub(replace, value)
    if isinstance(value, list):
        return _mark_functions([interpolate_template_vars(v, variables) for v in value])
    if isinstance(value, dict):
        return _mark_functions({k: interpolate_template_vars(v, variables) for k, v in value.items()})
    return value


# -- files -----------------------------------------------------------------------------------


def stat_kind(fs: FileSystem, path: str) -> str | None:
    """'dir', 'file', 'other' or None (missing / not allowed), following symlinks like `stat`."""
    if path in fs.overlays:
        return "file"
    if not fs.is_allowed(path):
        return None
    try:
        info = fs.stat(path)
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(info.st_mode):
        return "dir"
    if stat.S_ISREG(info.st_mode):
        return "file"
    return "other"


def read_bytes(fs: FileSystem, path: str) -> bytes:
    """`readFile(path)` (a Buffer), bounded like FileSystem.read; raises FileReadError."""
    overlay = fs.overlays.get(path)
    if overlay is not None:
        return overlay.encode("utf-8")
    fs.read(path)  # the same refusals and error messages as a text read
    return fs.read_bytes(path)


# -- messages -------------------------------------------------------------------------------


class LoadContext:
    """State shared by one load: file access, environment, search roots and the console."""

    def __init__(
        self,
        fs: FileSystem,
        env: Mapping[str, str],
        messages: list[RuntimeMessage],
        search_roots: Sequence[str],
        eval_path: str,
        keys: Keys = V4_KEYS,
    ) -> None:
        self.fs = fs
        self.keys = keys  # the eval file's key names
        self.env = env
        self.messages = messages
        self.search_roots = tuple(search_roots)
        self.eval_path = eval_path
        self._resolutions: dict[tuple[str, tuple[str, ...]], Resolution] = {}
        # Suite-level parts that every test of the load repeats (see `memo_get`)
        self._memo: dict[tuple[Any, ...], tuple[Any, Any]] = {}

    def with_env(self, value: Any, text: str) -> Any:
        """`interpolateEnv` on a value parsed from `text` (skipped when the text names no variable)."""
        return interpolate_env(value, self.env) if may_reference_env(text) else value

    def memo_get(self, key: tuple[Any, ...], source: Any) -> Any:
        """What `memo_put(key, source, result)` stored for this very `source` object (the
        identity is checked, so an `id()` in the key is never taken for another), else MISSING."""
        found = self._memo.get(key)
        if found is None or found[0] is not source:
            return MISSING
        return found[1]

    def memo_put(self, key: tuple[Any, ...], source: Any, result: Any) -> None:
        """Remember `result` for `source` (kept alive here, so its `id()` stays its own)."""
        self._memo[key] = (source, result)

    def resolve(self, raw: str, roots: Sequence[str] | None = None) -> Resolution:
        """`resolveFileReference`, once per value and root list."""
        key_roots = self.search_roots if roots is None else tuple(roots)
        key = (raw, key_roots)
        found = self._resolutions.get(key)
        if found is None:
            found = self._resolutions[key] = resolve_reference(raw, key_roots, self.fs)
        return found

    def emit(self, stream: Stream, text: str, code: str, **place: Unpack[MessagePlace]) -> None:
        self.messages.append(
            RuntimeMessage(
                stream, text, code, place.get("file"), place.get("yaml_path"), place.get("data") or {}
            )
        )

    def notice(self, text: str, code: str, **place: Unpack[MessagePlace]) -> None:
        """One of our own notices (stream "notice"), once per code and place: the runtime would
        print nothing here (it reads whole files, walks whole trees)."""
        at = (code, place.get("file"), place.get("yaml_path"))
        for m in self.messages:
            if m.stream == "notice" and (m.code, m.file, m.yaml_path) == at:
                return
        self.emit("notice", text, code, **place)

    def note_truncated(self, read: FileText, path: str, file: str | None, yaml_path: YamlPath | None) -> None:
        """`file-truncated`, as the v2 engine says it, when `read` stopped at the size cap."""
        if read.truncated:
            self.notice(
                truncated_message(path, read, self.fs.max_bytes),
                "file-truncated",
                file=file,
                yaml_path=yaml_path,
                data={"size": read.size, "limit": self.fs.max_bytes, "resolved": path},
            )

    def warn(
        self, message: str, code: str, *, details: Sequence[str] = (), **place: Unpack[MessagePlace]
    ) -> None:
        """`logWarning`: "Warning: message" plus detail lines."""
        text = "\n".join((f"Warning: {message}", *details))
        self.emit("warn", text, code, **place)

    def error(self, message: str, code: str, **place: Unpack[MessagePlace]) -> None:
        """`logError`: "Error: message" on stderr."""
        self.emit("error", f"Error: {message}", code, **place)
