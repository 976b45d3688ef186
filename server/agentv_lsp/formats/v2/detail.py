"""v2's own part of a `DocumentReport`: the loaded file and its cases' outcomes, kept in the
report's format-owned `detail` by v2's checker and read back only by v2's code (the CLI's
split check, the language server's v2 side) through `v2_detail`, which narrows it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentv_lsp.formats.v2.loader import CaseOutcome, EvalFile

if TYPE_CHECKING:
    from agentv_lsp.checks.options import DocumentReport


@dataclass(frozen=True)
class V2Detail:
    eval_file: EvalFile
    # None when the file stopped before its cases were loaded (a YAML or load error)
    outcomes: list[CaseOutcome] | None


def v2_detail(report: DocumentReport) -> V2Detail | None:
    """The v2 detail of `report`; None for a report v2 did not make (or made without one)."""
    detail = report.detail
    return detail if isinstance(detail, V2Detail) else None


def eval_file_of(report: DocumentReport) -> EvalFile | None:
    detail = v2_detail(report)
    return detail.eval_file if detail is not None else None
