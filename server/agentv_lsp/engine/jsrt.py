"""The few JavaScript runtime behaviours the AgentV formatter depends on, reproduced exactly.

`String.prototype.trim` strips a different set of characters than `str.strip()` (JS strips
U+FEFF and Unicode spaces; Python also strips U+001C-U+001F and U+0085), and Node's
`path` module normalises differently from `os.path` in a few corners (`//x`, trailing `/`).
"""

from __future__ import annotations

import math
import os
import posixpath
from typing import Any

from agentv_lsp.engine.jsregex import JS_WHITESPACE as JS_WHITESPACE
from agentv_lsp.yamlpos.scalars import js_json_stringify


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def is_blank(text: str) -> bool:
    """`text.trim().length === 0`. JavaScript's white space is not Python's (U+0085 and
    U+001C-U+001F are space to `str.isspace`, not to `trim`; U+FEFF the other way round);
    the two quick tests leave most texts without copying them."""
    if not text.isspace() and "\ufeff" not in text:
        return not text
    return not text.strip(JS_WHITESPACE)


def crlf_to_lf(text: str) -> str:
    """`.replace(/\\r\\n/g, "\\n")`: only CRLF pairs; a lone CR survives."""
    return text.replace("\r\n", "\n") if "\r" in text else text


def node_normalize(path: str) -> str:
    """Node's `path.normalize` for an absolute POSIX path (keeps a trailing slash)."""
    trailing = path.endswith("/") and len(path) > 1
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    if trailing and not normalized.endswith("/"):
        normalized += "/"
    return normalized


def node_resolve(base: str, relative: str) -> str:
    """Node's `path.resolve(base, relative)` for an absolute base (drops a trailing slash)."""
    joined = relative if relative.startswith("/") else f"{base}/{relative}" if relative else base
    normalized = posixpath.normpath(joined)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return normalized


def capitalize_first(text: str) -> str:
    """`s.charAt(0).toUpperCase() + s.slice(1)`."""
    return text[:1].upper() + text[1:]


def node_relative(root: str, path: str) -> str:
    """Node's `path.relative(root, path)` for absolute, normalised paths ('' when equal).
    The common case (inside the root) is a slice; `os.path.relpath` is slow in a hot loop."""
    if path.startswith(root) and path[len(root) : len(root) + 1] == "/":
        return path[len(root) + 1 :]
    if path == root:
        return ""
    return os.path.relpath(path, root)


def relative_display(path: str, root: str) -> str:
    """A path relative to `root` with '/' separators ('../x' when outside)."""
    rel = node_relative(root, path)
    return rel.replace(os.sep, "/") if rel else "."


def js_string(value: Any, missing: bool = False) -> str:
    """`${value}` in a JavaScript template string."""
    if missing:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return "NaN"
        if isinstance(value, float) and math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return js_json_stringify(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return "[object Object]"


def js_number(value: Any) -> float:
    """`Number(value)` for JSON-like values."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            if text.lower().startswith(("0x", "0o", "0b")):
                return float(int(text, 0))
            if text in ("Infinity", "+Infinity", "-Infinity"):
                return float(text.replace("Infinity", "inf"))
            if "inf" in text.lower() or "nan" in text.lower() or "_" in text:
                return math.nan
            return float(text)
        except ValueError:
            return math.nan
    if isinstance(value, list):
        return (
            0.0
            if not value
            else js_number(value[0])
            if len(value) == 1 and not isinstance(value[0], list)
            else math.nan
        )
    return math.nan
