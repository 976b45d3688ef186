"""Diagnostics as plain data, shared by `agentv-lsp check` and the language server."""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from agentv_lsp.yamlpos import Path as YamlPath
from agentv_lsp.yamlpos import Span

Severity = Literal["error", "warning", "information", "hint"]
SEVERITY_RANK: dict[str, int] = {"error": 0, "warning": 1, "information": 2, "hint": 3}
SOURCE = "agentv-lsp"


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a diagnostic (e.g. the config that decided it)."""

    file: str
    span: Span
    message: str

    def __reduce__(self) -> tuple[type[Related], tuple[Any, ...]]:
        return Related, (self.file, self.span, self.message)  # faster pickling: see Span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    file: str  # absolute path
    span: Span
    severity: Severity
    code: str
    message: str
    yaml_path: YamlPath = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    related: tuple[Related, ...] = ()
    unnecessary: bool = False  # content the runtime ignores (rendered faded by editors)

    def __reduce__(self) -> tuple[type[Diagnostic], tuple[Any, ...]]:
        # a plain constructor call: dataclasses' frozen-slots pickling looks up the fields
        # of every instance (`agentv-lsp check` sends thousands between processes)
        return Diagnostic, (
            self.file,
            self.span,
            self.severity,
            self.code,
            self.message,
            self.yaml_path,
            self.data,
            self.related,
            self.unnecessary,
        )

    @property
    def path(self) -> str:
        """AgentV's location string, e.g. `evalcases[0].input_messages[1].role`."""
        return format_location(self.yaml_path)

    @property
    def locations(self) -> tuple[str, ...]:
        """Every AgentV location this finding reports: its own, and those of findings merged
        into it (`data["locations"]`, e.g. the missing key a misspelt one was meant to be)."""
        merged = self.data.get("locations")
        return (self.path, *merged) if isinstance(merged, list) else (self.path,)

    def sort_key(self) -> tuple[int, int, int, str]:
        return (self.span.start_line, self.span.start_col, SEVERITY_RANK[self.severity], self.code)

    def identity(self) -> tuple[Any, ...]:
        """Every field, `data` included (equality leaves it out): two checks of the same text
        agree on a finding only when this agrees."""
        return (
            self.file,
            self.span,
            self.severity,
            self.code,
            self.message,
            self.yaml_path,
            repr(self.data),
            self.related,
            self.unnecessary,
        )


def format_location(path: YamlPath) -> str:
    out = ""
    for item in path:
        if isinstance(item, int):
            out += f"[{item}]"
        else:
            out += f".{item}" if out else item
    return out


def parse_location(location: str) -> YamlPath:
    """The inverse of `format_location` (for locations that came from AgentV's messages)."""
    items: list[str | int] = []
    for part in location.replace("]", "").split("."):
        head, *indices = part.split("[")
        if head:
            items.append(head)
        items.extend(int(i) for i in indices)
    return tuple(items)


# Diagnostics shown per file, like compilers' error limits: a hostile or broken file can
# carry hundreds of thousands, which no one reads and every editor and CI log chokes on.
DEFAULT_MAX_DIAGNOSTICS = 1000
TOO_MANY_DIAGNOSTICS = "too-many-diagnostics"
# the language server stopped a check that ran past its time budget
CHECK_INCOMPLETE = "check-incomplete"


def cap_diagnostics(diagnostics: list[Diagnostic], limit: int, how_to_raise: str) -> list[Diagnostic]:
    """At most `limit` diagnostics per file (0: no limit), errors kept first, then warnings,
    each by position, in their original order, plus one diagnostic per capped file that says
    how many more there are. `how_to_raise` names the flag or setting that lifts the limit."""
    if limit <= 0 or len(diagnostics) <= limit:
        return diagnostics
    by_file: dict[str, list[int]] = {}
    for index, d in enumerate(diagnostics):
        by_file.setdefault(d.file, []).append(index)
    keep: set[int] = set()
    summaries: list[Diagnostic] = []
    for file, indices in by_file.items():
        chosen = select_capped(
            [
                (diagnostics[i].severity, diagnostics[i].span.start_line, diagnostics[i].span.start_col)
                for i in indices
            ],
            limit,
        )
        keep.update(indices[k] for k in chosen)
        if len(chosen) < len(indices):
            hidden: Counter[str] = Counter(str(diagnostics[i].severity) for i in indices)
            hidden.subtract(str(diagnostics[indices[k]].severity) for k in chosen)
            hidden = +hidden  # only the severities left out
            summaries.append(too_many_diagnostics(file, hidden, limit, how_to_raise))
    if not summaries:
        return diagnostics
    return [d for i, d in enumerate(diagnostics) if i in keep] + summaries


def select_capped(items: list[tuple[str, int, int]], limit: int) -> list[int]:
    """Which of `items` (severity, line, column) to show under a cap: the first `limit` by
    severity then position, as indices in their original order."""
    if limit <= 0 or len(items) <= limit:
        return list(range(len(items)))
    chosen = heapq.nsmallest(
        limit, range(len(items)), key=lambda i: (SEVERITY_RANK[items[i][0]], *items[i][1:])
    )
    return sorted(chosen)


def too_many_diagnostics(file: str, hidden: Counter[str], limit: int, how_to_raise: str) -> Diagnostic:
    """The one diagnostic that stands for those a cap left out."""
    count = sum(hidden.values())
    parts = ", ".join(
        f"{hidden[s]} {s}{'s' if hidden[s] != 1 and s != 'information' else ''}"
        for s in ("error", "warning", "information", "hint")
        if hidden[s]
    )
    worst = min(hidden, key=SEVERITY_RANK.__getitem__)
    return Diagnostic(
        file,
        Span(0, 0, 0, 0),
        "warning" if worst == "error" else cast(Severity, worst),
        TOO_MANY_DIAGNOSTICS,
        f"{count} more diagnostic{' is' if count == 1 else 's are'} not shown for this file "
        f"({parts}): the first {limit} are, errors first. Fix those and check again, or raise "
        f"the limit ({how_to_raise}; 0 shows all).",
        (),
        {"hidden": count, "limit": limit, "hidden_by_severity": dict(hidden)},
    )
