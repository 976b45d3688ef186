"""Renderers for `agentv-lsp check`: text, json, sarif, github. Each takes the same
diagnostics and returns the whole output as a string."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TextIO

from agentv_lsp import __version__
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
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def use_color(choice: str, stream: TextIO = sys.stdout) -> bool:
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and not os.environ.get("NO_COLOR")


# A message quotes untrusted file content: in line-oriented output a newline would start a
# line of its own (a forged `path:line:col:` finding or `::error` workflow command) and an
# escape sequence would reach the terminal. Shown escaped instead.
_LINE_UNSAFE = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]} | {
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def one_line(text: str) -> str:
    return text.translate(_LINE_UNSAFE)


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
        where = f"{display_file(d.file, cwd)}:{d.span.start_line + 1}:{d.span.start_col + 1}:"
        lines.append(
            f"{paint(one_line(where), '1')} {paint(d.severity, _COLORS[d.severity])} "
            f"{paint(d.code, '2')} {one_line(d.message)}"
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
    return json.dumps(payload, ensure_ascii=False) + "\n"


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
    return json.dumps(sarif, ensure_ascii=False, indent=2) + "\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").translate(_LINE_UNSAFE)
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


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
        lines.append(f"::{kinds[d.severity]} {props}::{_gh_escape(d.message)}")
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
