"""The few JavaScript runtime behaviours the AgentV formatter depends on, reproduced exactly.

`String.prototype.trim` strips a different set of characters than `str.strip()` (JS strips
U+FEFF and Unicode spaces; Python also strips U+001C-U+001F and U+0085), and Node's
`path` module normalises differently from `os.path` in a few corners (`//x`, trailing `/`).
"""

from __future__ import annotations

import os
import posixpath

# ECMAScript WhiteSpace + LineTerminator code points, the set String.prototype.trim removes.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def is_blank(text: str) -> bool:
    """`text.trim().length === 0`."""
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
