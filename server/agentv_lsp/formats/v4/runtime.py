"""JavaScript semantics the 4.42.4 loader relies on, and the message sink it prints to.

`MISSING` stands for JavaScript's `undefined` (a key that is absent), distinct from `None`
(YAML/JSON `null`): the runtime tests `!== undefined` in some places and `??` (null or
undefined) in others, and the difference decides which tests load.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from agentv_lsp.engine.files import FileReadError, FileSystem, FileText, Resolution, resolve_reference
from agentv_lsp.engine.jsrt import JS_WHITESPACE
from agentv_lsp.formats.v4.model import RuntimeMessage, Stream, YamlPath


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
    """`isJsonObject`: a plain object (YAML mapping / JSON object)."""
    return isinstance(value, dict)


def as_string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def js_typeof(value: Any) -> str:
    if value is MISSING:
        return "undefined"
    if value is None or isinstance(value, dict | list):
        return "object"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


def js_string(value: Any) -> str:
    """`String(value)` / template-literal interpolation for JSON-like values."""
    from agentv_lsp.yamlpos.scalars import js_number

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
_DOLLAR_ESCAPE = re.compile(r"\\(?:x24|u0024|U00000024)")


def quick_contains(text: str, needle: str) -> bool:
    """`needle in text`, sooner: on text that is not all ASCII, CPython searches for one
    character many times faster than for several, and most files lack the first one."""
    return needle[0] in text and needle in text


def may_reference_env(text: str) -> bool:
    """Whether `interpolateEnv` could change anything parsed from `text` (a fast pre-check)."""
    if "$" in text and "{" in text:  # covers "${{"
        return True
    return _has_dollar_escape(text)


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
        if text.startswith(("x24", "u0024", "U00000024"), at + 1):
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
    """`interpolateEnv`: `${{ VAR }}` in every string; a whole-value reference is coerced."""
    if isinstance(value, str):
        if "${{" not in value:
            return value
        whole = _WHOLE_ENV_VAR.match(value)
        if whole:
            return _coerce_primitive(env.get(whole.group(1), ""))
        return _ENV_VAR.sub(lambda m: env.get(m.group(1), ""), value)
    if isinstance(value, list):
        return [interpolate_env(v, env) for v in value]
    if isinstance(value, dict):
        return {k: interpolate_env(v, env) for k, v in value.items()}
    return value


def _lookup_var(variables: Mapping[str, Any], expression: str) -> Any:
    current: Any = variables
    for segment in expression.split("."):
        if not isinstance(current, dict):
            return MISSING
        current = current.get(segment, MISSING)
    return current


def _clone(value: Any) -> Any:
    if isinstance(value, list):
        return [_clone(v) for v in value]
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    return value


def interpolate_template_vars(value: Any, variables: Mapping[str, Any]) -> Any:
    """`interpolateTemplateVars`: `{{ var.path }}` from a test's `vars`; unknown names stay."""
    from agentv_lsp.yamlpos.scalars import js_json_stringify

    if isinstance(value, str):
        if "{{" not in value:
            return value
        whole = _WHOLE_TEMPLATE_VAR.match(value)
        if whole:
            found = _lookup_var(variables, whole.group(1))
            return value if found is MISSING else _clone(found)

        def replace(match: re.Match[str]) -> str:
            found = _lookup_var(variables, match.group(1))
            if found is MISSING:
                return match.group(0)
            return found if isinstance(found, str) else js_json_stringify(found)

        return _TEMPLATE_VAR.sub(replace, value)
    if isinstance(value, list):
        return [interpolate_template_vars(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: interpolate_template_vars(v, variables) for k, v in value.items()}
    return value


# -- files -----------------------------------------------------------------------------------


def stat_kind(fs: FileSystem, path: str) -> str | None:
    """'dir', 'file', 'other' or None (missing / not allowed), following symlinks like `stat`."""
    if path in fs.overlays:
        return "file"
    if not fs.is_allowed(path):
        return None
    try:
        info = os.stat(path)
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
    if not fs.is_allowed(path):  # pragma: no cover - read() already refused
        raise FileReadError(f"EACCES: permission denied, open '{path}'", code="EACCES")
    try:
        # opened as FileSystem opens: non-blocking, and refused unless still a regular file
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileReadError(f"EIO: i/o error, open '{path}' ({exc.strerror})") from exc
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileReadError(
                f"not a regular file (FIFO, socket or device), refused: '{path}'", code="ENOTREG"
            )
        return handle.read(fs.max_bytes + 1)[: fs.max_bytes]


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
    ) -> None:
        self.fs = fs
        self.env = env
        self.messages = messages
        self.search_roots = tuple(search_roots)
        self.eval_path = eval_path
        self._resolutions: dict[tuple[str, tuple[str, ...]], Resolution] = {}
        # Suite-level parts that every test of the load repeats (see `memo_get`)
        self._memo: dict[tuple[Any, ...], tuple[Any, Any]] = {}

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

    def emit(
        self,
        stream: Stream,
        text: str,
        code: str,
        *,
        file: str | None = None,
        yaml_path: YamlPath | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.messages.append(RuntimeMessage(stream, text, code, file, yaml_path, data or {}))

    def notice(
        self,
        text: str,
        code: str,
        *,
        file: str | None = None,
        yaml_path: YamlPath | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        """One of our own notices (stream "notice"), once per code and place: the runtime would
        print nothing here (it reads whole files, walks whole trees)."""
        for m in self.messages:
            if m.stream == "notice" and (m.code, m.file, m.yaml_path) == (code, file, yaml_path):
                return
        self.emit("notice", text, code, file=file, yaml_path=yaml_path, data=data)

    def note_truncated(self, read: FileText, path: str, file: str | None, yaml_path: YamlPath | None) -> None:
        """`file-truncated`, as the v2 engine says it, when `read` stopped at the size cap."""
        if read.truncated:
            self.notice(
                f"agentv-lsp read only the first {self.fs.max_bytes:,} bytes of {path} ({read.size:,} bytes): "
                "the preview of this file is incomplete (AgentV itself reads it whole). "
                "Raise maxFileSizeKb to see all.",
                "file-truncated",
                file=file,
                yaml_path=yaml_path,
                data={"size": read.size, "limit": self.fs.max_bytes, "resolved": path},
            )

    def warn(
        self,
        message: str,
        code: str,
        *,
        details: Sequence[str] = (),
        file: str | None = None,
        yaml_path: YamlPath | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        """`logWarning`: "Warning: message" plus detail lines."""
        text = "\n".join((f"Warning: {message}", *details))
        self.emit("warn", text, code, file=file, yaml_path=yaml_path, data=data)

    def error(
        self,
        message: str,
        code: str,
        *,
        file: str | None = None,
        yaml_path: YamlPath | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        """`logError`: "Error: message" on stderr."""
        self.emit("error", f"Error: {message}", code, file=file, yaml_path=yaml_path, data=data)
