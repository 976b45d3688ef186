"""Renderers for `agentv-lsp check`: text, json, sarif, github. Each takes the same
diagnostics and returns the whole output as a string."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Sequence

from agentv_lsp import __version__
from agentv_lsp.checks.model import SOURCE, Diagnostic

Renderer = Callable[[Sequence[Diagnostic], str, bool, int], str]
_COLORS = {"error": "31", "warning": "33", "information": "36", "hint": "2"}
_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


@functools.lru_cache(maxsize=1024)
def display_file(path: str, cwd: str) -> str:
    """Relative to the working directory when inside it, else absolute. Cached: a large
    file's thousands of diagnostics all name it (`relpath` costs 10 µs each)."""
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def summary_counts(diagnostics: Sequence[Diagnostic]) -> Counter[str]:
    return Counter(d.severity for d in diagnostics)


def render_text(diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int) -> str:
    def paint(text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    lines = []
    for d in diagnostics:
        where = f"{display_file(d.file, cwd)}:{d.span.start_line + 1}:{d.span.start_col + 1}:"
        lines.append(
            f"{paint(where, '1')} {paint(d.severity, _COLORS[d.severity])} {paint(d.code, '2')} {d.message}"
        )
    counts = summary_counts(diagnostics)
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}" for s in ("error", "warning")]
    if counts["information"] or counts["hint"]:
        parts.append(f"{counts['information'] + counts['hint']} info")
    summary = f"{files_checked} file{'s' if files_checked != 1 else ''} checked: " + ", ".join(parts)
    lines.append(paint(summary, "1;31" if counts["error"] else "1;33" if counts["warning"] else "1;32"))
    return "\n".join(lines) + "\n"


def _range(d: Diagnostic) -> dict[str, dict[str, int]]:
    s = d.span
    return {
        "start": {"line": s.start_line, "character": s.start_col},
        "end": {"line": s.end_line, "character": s.end_col},
    }


def render_json(diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int) -> str:
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
    }
    # No indentation: json's C encoder only runs without it (10x faster on large reports).
    return json.dumps(payload, ensure_ascii=False) + "\n"


def render_sarif(diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int) -> str:
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
                "originalUriBaseIds": {"%SRCROOT%": {"uri": "file://" + cwd.rstrip("/") + "/"}},
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, ensure_ascii=False, indent=2) + "\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def render_github(diagnostics: Sequence[Diagnostic], cwd: str, color: bool, files_checked: int) -> str:
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
    lines.append(f"{files_checked} files checked: {counts['error']} errors, {counts['warning']} warnings")
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}
