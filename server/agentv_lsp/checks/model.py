"""Diagnostics as plain data, shared by `agentv-lsp check` and the language server."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agentv_lsp.engine.model import YamlPath
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

    def sort_key(self) -> tuple[int, int, int, str]:
        return (self.span.start_line, self.span.start_col, SEVERITY_RANK[self.severity], self.code)


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
