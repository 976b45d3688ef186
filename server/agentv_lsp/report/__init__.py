"""Renderers for `agentv-lsp check`: text, json, sarif, github. Each takes the same
diagnostics and returns the whole output as a string."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TextIO

from agentv_lsp import __version__
from agentv_lsp.checks.hidden_chars import is_default_ignorable
from agentv_lsp.checks.model import SOURCE, Diagnostic

# (file, runtime version, why that runtime) for every file checked
Judged = Sequence[tuple[str, str, str]]
Renderer = Callable[[Sequence[Diagnostic], str, bool, int, Judged], str]
_COLORS = {"error": "31", "warning": "33", "information": "36", "hint": "2"}
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


@functools.lru_cache(maxsize=1024)
def display_file(path: str, cwd: str) -> str:
    """Relative to the working directory when inside it, else absolute. Cached: a large
    file's thousands of diagnostics all name it (`relpath` costs 10 µs each)."""
    rel = os.path.relpath(path, cwd)
    outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)  # not a file named `..x`
    return path if outside else rel.replace(os.sep, "/")


@functools.lru_cache(maxsize=1024)
def shown_path(path: str) -> str:
    """A file path as the first thing on a line of human-readable output: escaped like
    `one_line`, and led by `./` unless it starts with a letter, digit, `.`, `/`, `\\` or `_`
    (a line that starts with `::`, even after spaces, is a GitHub workflow command)."""
    shown = one_line(path)
    if shown and not (shown[0].isalnum() or shown[0] in "./\\_"):
        return "./" + shown
    return shown


def use_color(choice: str, stream: TextIO = sys.stdout) -> bool:
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and not os.environ.get("NO_COLOR")


# A message quotes untrusted file content (keys, values, ids, roles, paths, runtime messages).
# In line-oriented output a newline would start a line of its own (a forged `path:line:col:`
# finding or `::error` workflow command), an escape sequence would reach the terminal, and a
# bidi override or invisible character would show the reader something other than what is
# there. Such characters are shown escaped, Python style (`\n`, `\x1b`, `\u202e`, `\U000e0041`).
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# A line is read as a CI command when it contains `##[cmd]` (GitHub Actions' legacy syntax,
# matched anywhere in a line), `##vso[` (Azure Pipelines) or `##teamcity[`: the second `#` is
# shown as `\x23`.
_CI_COMMAND = r"(?<=#)#(?=[A-Za-z]*\[)"
_CI_TAIL = re.compile(r"[A-Za-z]*\[")
_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Text and github output show at most this many characters of a message: a message quoting a
# 100 KB key must not print 100 KB. The beginning and the end (where the fix is) are kept.
MESSAGE_LIMIT = 1000
ELLIPSIS = "\u2026"


def is_hidden(char: str) -> bool:
    """Whether a character must not be written raw to a terminal or a line-oriented reader:
    C0/C1 controls, DEL, line and paragraph separators, format characters (bidi controls,
    zero-width characters, soft hyphen, BOM, tag characters), other default-ignorable code
    points, lone surrogates and noncharacters."""
    code = ord(char)
    if code < 0xA0:
        return code < 0x20 or code >= 0x7F
    if unicodedata.category(char) in _HIDDEN_CATEGORIES:
        return True
    if 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
        return True  # noncharacters
    # the other default-ignorables: variation selectors, Hangul fillers, the tag plane
    return is_default_ignorable(code)


@functools.lru_cache(maxsize=8192)
def shown_char(char: str) -> str:
    """The character itself, or its escape when it is hidden (see `is_hidden`)."""
    if not is_hidden(char):
        return char
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, keep: str = "", mark: Callable[[str], str] | None = None) -> str:
    """`text` with every hidden character escaped except those in `keep` (e.g. "\\n\\t" to keep
    the layout of a prompt); `mark` dresses each escape (e.g. in reverse video)."""

    def piece(match: re.Match[str]) -> str:
        char = match.group()
        if char in keep or not is_hidden(char):
            return char
        return mark(shown_char(char)) if mark else shown_char(char)

    return _NOT_PRINTABLE_ASCII.sub(piece, text) if _NOT_PRINTABLE_ASCII.search(text) else text


def _line_pieces(text: str, overrides: dict[str, str]) -> list[str]:
    """What each character of `text` is shown as on one line."""
    pieces = []
    for index, char in enumerate(text):
        if char == "#" and text[index - 1 : index] == "#" and _CI_TAIL.match(text, index + 1):
            pieces.append("\\x23")
        else:
            pieces.append(overrides.get(char) or shown_char(char))
    return pieces


@functools.lru_cache(maxsize=8)
def _suspects(overridden: str) -> re.Pattern[str]:
    """What `_render_line` must look at: anything but printable ASCII, the characters with a
    format-specific escape, and CI command markers."""
    extra = f"|[{re.escape(overridden)}]" if overridden else ""
    return re.compile(r"[^\x20-\x7e]" + extra + "|" + _CI_COMMAND)


def _render_line(text: str, limit: int | None, overrides: dict[str, str]) -> str:
    def piece(match: re.Match[str]) -> str:
        char = match.group()
        if char in overrides:
            return overrides[char]
        return "\\x23" if char == "#" else shown_char(char)

    if limit is None or len(text) <= limit:
        suspects = _suspects("".join(overrides))
        shown = suspects.sub(piece, text) if suspects.search(text) else text
        if limit is None or len(shown) <= limit:
            return shown
    # Too long: the beginning and the end around an ellipsis, cut between whole escapes. Only
    # as many characters as can be shown are looked at (escaping never makes text shorter).
    head_budget = limit * 2 // 3
    tail_budget = limit - head_budget - len(ELLIPSIS)
    head: list[str] = []
    used = 0
    for shown_piece in _line_pieces(text[:head_budget], overrides):
        if used + len(shown_piece) > head_budget:
            break
        head.append(shown_piece)
        used += len(shown_piece)
    tail_text = text[-tail_budget:] if tail_budget > 0 else ""
    tail: list[str] = []
    used = 0
    for shown_piece in reversed(_line_pieces(tail_text, overrides)):
        if used + len(shown_piece) > tail_budget:
            break
        tail.append(shown_piece)
        used += len(shown_piece)
    tail.reverse()
    while tail and unicodedata.combining(tail[0][0]):
        tail.pop(0)  # a combining mark would attach to the ellipsis
    return "".join(head) + ELLIPSIS + "".join(tail)


def one_line(text: str, limit: int | None = None) -> str:
    """`text` as one line that is safe to print: every hidden character escaped (see
    `is_hidden`), CI command markers (`##[`) defused, and, with a `limit`, at most `limit`
    characters (the beginning and the end around an ellipsis)."""
    return _render_line(text, limit, {})


def _json_safe(text: str) -> str:
    """JSON text with lone surrogates (undecodable bytes of a file name, as Python reads them)
    written as JSON escapes: raw, they cannot be encoded as UTF-8 on output. `json.loads`
    gives back the exact string."""
    try:
        text.encode("utf-8")  # C speed; a regex search over a large report is not
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def summary_counts(diagnostics: Sequence[Diagnostic]) -> Counter[str]:
    return Counter(d.severity for d in diagnostics)


def render_text(
    diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int, judged: Judged = ()
) -> str:
    def paint(text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    lines = []
    for d in diagnostics:
        where = f"{shown_path(display_file(d.file, cwd))}:{d.span.start_line + 1}:{d.span.start_col + 1}:"
        lines.append(
            f"{paint(where, '1')} {paint(d.severity, _COLORS[d.severity])} "
            f"{paint(one_line(d.code), '2')} {one_line(d.message, MESSAGE_LIMIT)}"
        )
    counts = summary_counts(diagnostics)
    parts = [_count(counts[s], s) for s in ("error", "warning")]
    if counts["information"] or counts["hint"]:
        parts.append(f"{counts['information'] + counts['hint']} info")
    summary = f"{_count(files_checked, 'file')} checked: " + ", ".join(parts)
    lines.append(paint(summary, "1;31" if counts["error"] else "1;33" if counts["warning"] else "1;32"))
    return "\n".join(lines) + "\n"


def _range(d: Diagnostic) -> dict[str, dict[str, int]]:
    s = d.span
    return {
        "start": {"line": s.start_line, "character": s.start_col},
        "end": {"line": s.end_line, "character": s.end_col},
    }


def render_json(
    diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int, judged: Judged = ()
) -> str:
    counts = summary_counts(diagnostics)
    payload = {
        "diagnostics": [
            {
                "file": display_file(d.file, cwd),
                "range": _range(d),
                "severity": d.severity,
                "code": d.code,
                "source": SOURCE,
                "message": d.message,
                "path": d.path,
            }
            for d in diagnostics
        ],
        "summary": {
            "files": files_checked,
            "errors": counts["error"],
            "warnings": counts["warning"],
            "information": counts["information"] + counts["hint"],
        },
        "files": [
            {"file": display_file(path, cwd), "runtime": runtime, "runtime_reason": reason}
            for path, runtime, reason in judged
        ],
    }
    # No indentation: json's C encoder only runs without it (10x faster on large reports).
    return _json_safe(json.dumps(payload, ensure_ascii=False)) + "\n"


def render_sarif(
    diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int, judged: Judged = ()
) -> str:
    rules = sorted({d.code for d in diagnostics})
    results = []
    for d in diagnostics:
        s = d.span
        region = {
            "startLine": s.start_line + 1,
            "startColumn": s.start_col + 1,
            "endLine": s.end_line + 1,
            "endColumn": max(s.end_col + 1, s.start_col + 1),
        }
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": rules.index(d.code),
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": d.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": display_file(d.file, cwd), "uriBaseId": "%SRCROOT%"},
                            "region": region,
                        },
                        "logicalLocations": [{"fullyQualifiedName": d.path}] if d.path else [],
                    }
                ],
            }
        )
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": SOURCE,
                        "version": __version__,
                        "informationUri": "https://github.com/agentv-lsp/agentv-lsp",
                        "rules": [{"id": r, "name": r, "shortDescription": {"text": r}} for r in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "artifacts": [
                    {
                        "location": {"uri": display_file(path, cwd), "uriBaseId": "%SRCROOT%"},
                        "properties": {"agentvRuntime": runtime, "agentvRuntimeReason": reason},
                    }
                    for path, runtime, reason in judged
                ],
                "originalUriBaseIds": {"%SRCROOT%": {"uri": "file://" + cwd.rstrip("/") + "/"}},
                "results": results,
            }
        ],
    }
    return _json_safe(json.dumps(sarif, ensure_ascii=False, indent=2)) + "\n"


# Workflow-command escapes GitHub decodes: in the message, and in a property (`file=`, `title=`).
_GH_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_GH_PROPERTY = {**_GH_DATA, ":": "%3A", ",": "%2C"}


def _gh_escape(text: str, prop: bool = False, limit: int | None = None) -> str:
    return _render_line(text, limit, _GH_PROPERTY if prop else _GH_DATA)


def render_github(
    diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int, judged: Judged = ()
) -> str:
    kinds = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}
    lines = []
    for d in diagnostics:
        s = d.span
        props = (
            f"file={_gh_escape(display_file(d.file, cwd), True)},line={s.start_line + 1},"
            f"col={s.start_col + 1},endLine={s.end_line + 1},endColumn={s.end_col + 1},"
            f"title={_gh_escape(f'{SOURCE} {d.code}', True)}"
        )
        lines.append(f"::{kinds[d.severity]} {props}::{_gh_escape(d.message, limit=MESSAGE_LIMIT)}")
    counts = summary_counts(diagnostics)
    lines.append(
        f"{_count(files_checked, 'file')} checked: {_count(counts['error'], 'error')}, "
        f"{_count(counts['warning'], 'warning')}"
    )
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}
