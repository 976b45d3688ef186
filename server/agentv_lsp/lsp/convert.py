"""Engine values -> LSP types: code-point spans to client position units (UTF-16 unless the
client negotiated UTF-32 or UTF-8), diagnostics, paths <-> URIs."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from agentv_lsp.checks.model import SEVERITY_RANK, SOURCE, Diagnostic, select_capped, too_many_diagnostics
from agentv_lsp.yamlpos import Span

SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    "information": lsp.DiagnosticSeverity.Information,
    "hint": lsp.DiagnosticSeverity.Hint,
}
UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
LineOf = Callable[[int], str]


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return uri
    return os.path.abspath(unquote(parsed.path))


def is_file_uri(uri: str) -> bool:
    return urlparse(uri).scheme in ("file", "")


def path_to_uri(path: str) -> str:
    return Path(path).absolute().as_uri() if os.path.isabs(path) else path


def to_client_col(line: str, col: int, encoding: str = UTF16) -> int:
    """A code-point column in the client's units."""
    if encoding == UTF32 or line.isascii():
        return col
    prefix = line[:col]
    if encoding == UTF8:
        return len(prefix.encode("utf-8", errors="surrogatepass")) + max(0, col - len(line))
    return col + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def from_client_col(line: str, units: int, encoding: str = UTF16) -> int:
    """A column in the client's units as a code-point column (clamped to the line)."""
    if encoding == UTF32 or line.isascii():
        return min(max(units, 0), len(line))
    count = 0
    for index, ch in enumerate(line):
        if count >= units:
            return index
        if encoding == UTF8:
            count += len(ch.encode("utf-8", errors="surrogatepass"))
        else:
            count += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def range_text(lines: list[str], rng: lsp.Range, encoding: str) -> str:
    """The text a client's one-line range covers ("" for a range over several lines or none)."""
    if rng.start.line != rng.end.line or not 0 <= rng.start.line < len(lines):
        return ""
    line = lines[rng.start.line]
    return line[
        from_client_col(line, rng.start.character, encoding) : from_client_col(
            line, rng.end.character, encoding
        )
    ]


def to_range(span: Span, line_of: LineOf, encoding: str = UTF16) -> lsp.Range:
    def position(line: int, col: int) -> lsp.Position:
        line = max(line, 0)
        col = max(col, 0)
        return lsp.Position(line=line, character=to_client_col(line_of(line), col, encoding) if col else 0)

    return lsp.Range(
        start=position(span.start_line, span.start_col), end=position(span.end_line, span.end_col)
    )


def lines_of(lines: list[str]) -> LineOf:
    return lambda n: lines[n] if 0 <= n < len(lines) else ""


def no_lines(n: int) -> str:
    return ""


def to_diagnostic(d: Diagnostic, line_of: LineOf, encoding: str = UTF16) -> lsp.Diagnostic:
    data: dict[str, Any] = dict(d.data)
    data["path"] = d.path
    related = [
        lsp.DiagnosticRelatedInformation(
            location=lsp.Location(
                uri=path_to_uri(r.file),
                range=to_range(r.span, line_of if r.file == d.file else no_lines, encoding),
            ),
            message=r.message,
        )
        for r in d.related
    ]
    return lsp.Diagnostic(
        range=to_range(d.span, line_of, encoding),
        message=d.message,
        severity=SEVERITY[d.severity],
        code=d.code,
        source=SOURCE,
        data=data,
        related_information=related or None,
        tags=[lsp.DiagnosticTag.Unnecessary] if d.unnecessary else None,
    )


# -- diagnostics as JSON (published without building lsprotocol objects: 10,000-case files
# carry thousands of them, and most only move when lines are added above) -------------------

JsonDict = dict[str, Any]


def range_json(span: Span, line_of: LineOf, encoding: str) -> JsonDict:
    def position(line: int, col: int) -> JsonDict:
        col = max(col, 0)
        return {"line": max(line, 0), "character": to_client_col(line_of(line), col, encoding) if col else 0}

    return {"start": position(span.start_line, span.start_col), "end": position(span.end_line, span.end_col)}


def shifted_symbol(symbol: JsonDict, lines: int) -> JsonDict:
    """A document symbol (JSON) and its children moved down by `lines` (a test's symbol built
    once and placed wherever the test now starts)."""

    def move(r: JsonDict) -> JsonDict:
        s, e = r["start"], r["end"]
        return {
            "start": {"line": s["line"] + lines, "character": s["character"]},
            "end": {"line": e["line"] + lines, "character": e["character"]},
        }

    out = dict(symbol)
    out["range"] = move(symbol["range"])
    out["selectionRange"] = move(symbol["selectionRange"])
    if "children" in symbol:
        out["children"] = [shifted_symbol(child, lines) for child in symbol["children"]]
    return out


def diagnostic_json(d: Diagnostic, line_of: LineOf, encoding: str = UTF16) -> JsonDict:
    """`to_diagnostic` as the JSON the client receives."""
    out: JsonDict = {
        "range": range_json(d.span, line_of, encoding),
        "message": d.message,
        "severity": int(SEVERITY[d.severity]),
        "code": d.code,
        "source": SOURCE,
        "data": {**d.data, "path": d.path},
    }
    if d.related:
        out["relatedInformation"] = [
            {
                "location": {
                    "uri": path_to_uri(r.file),
                    "range": range_json(r.span, line_of if r.file == d.file else no_lines, encoding),
                },
                "message": r.message,
            }
            for r in d.related
        ]
    if d.unnecessary:
        out["tags"] = [int(lsp.DiagnosticTag.Unnecessary)]
    return out


_SEVERITY_NAMES = {int(v): k for k, v in SEVERITY.items()}


def _in_position_order(keys: list[tuple[str, int, int]], limit: int) -> list[int] | None:
    """`select_capped` for keys already in position order (a check's output), without a
    sort: the first `limit` by severity, each severity in order (None: not in order)."""
    for k in range(1, len(keys)):
        if keys[k][1:] < keys[k - 1][1:]:
            return None
    by_severity: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        by_severity.setdefault(key[0], []).append(index)
    chosen: list[int] = []
    for severity in sorted(by_severity, key=SEVERITY_RANK.__getitem__):
        chosen.extend(by_severity[severity][: limit - len(chosen)])
        if len(chosen) >= limit:
            break
    return sorted(chosen)


def cap_json(items: list[JsonDict], limit: int, path: str, how_to_raise: str) -> list[JsonDict]:
    """`checks.model.cap_diagnostics` on diagnostics already converted to JSON (one file's)."""
    if limit <= 0 or len(items) <= limit:
        return items
    keys = [
        (_SEVERITY_NAMES[i["severity"]], i["range"]["start"]["line"], i["range"]["start"]["character"])
        for i in items
    ]
    chosen = _in_position_order(keys, limit)
    if chosen is None:
        chosen = select_capped(keys, limit)
    hidden = Counter(k[0] for k in keys) - Counter(keys[i][0] for i in chosen)
    summary = too_many_diagnostics(path, hidden, limit, how_to_raise)
    return [items[i] for i in chosen] + [diagnostic_json(summary, no_lines)]


def is_agentv_path(path: str) -> bool:
    return os.path.basename(os.path.dirname(path)) == ".agentv" and os.path.basename(path) in (
        "config.yaml",
        "targets.yaml",
    )
