"""`workspace/executeCommand` `agentv.previewCase` and `agentv.previewFile` (the exact
question, guidelines, chatPrompt and judge prompt from the unsaved text), and the custom
request `agentv/status` (schema and config in use) for the client's status item."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.loader import load_case
from agentv_lsp.engine.model import Notice
from agentv_lsp.engine.preview import preview_case, preview_file
from agentv_lsp.lsp.convert import from_position
from agentv_lsp.lsp.server import AgentVLanguageServer, Analysis

PREVIEW_CASE = "agentv.previewCase"
PREVIEW_FILE = "agentv.previewFile"
STATUS = "agentv/status"


def case_preview(analysis: Analysis, index: int) -> dict[str, Any] | None:
    """One case as `preview --json` shows it, plus the case's own warnings."""
    ef = analysis.eval_file
    if ef is None or not ef.loaded or not 0 <= index < len(ef.raw_cases):
        return None
    outcome = load_case(ef, index)
    if outcome.case is None:
        return None
    notices: list[Notice] = list(outcome.notices)
    result = preview_case(ef, outcome.case, notices)
    result["warnings"] = [n.render() for n in notices]
    return result


def case_index(analysis: Analysis, target: dict[str, Any]) -> int | None:
    ef = analysis.eval_file
    if ef is None:
        return None
    case_id = target.get("caseId")
    if isinstance(case_id, str):
        for index, raw in enumerate(ef.raw_cases):
            if isinstance(raw, dict) and raw.get("id") == case_id:
                return index
        return None
    position = target.get("position")
    if isinstance(position, dict):
        line, _ = from_position(
            lsp.Position(line=int(position.get("line", 0)), character=int(position.get("character", 0))),
            analysis.lines,
        )
        return analysis.case_at(line)
    return None


def register(server: AgentVLanguageServer) -> None:
    @server.command(PREVIEW_CASE)
    async def preview_case_command(ls: AgentVLanguageServer, *args: Any) -> dict[str, Any] | None:
        target = args[0] if args and isinstance(args[0], dict) else {}
        uri = target.get("uri")
        if not isinstance(uri, str) or uri not in ls.workspace.text_documents:
            return None
        analysis = await ls.analyze(uri)
        index = case_index(analysis, target)
        return None if index is None else case_preview(analysis, index)

    @server.command(PREVIEW_FILE)
    async def preview_file_command(ls: AgentVLanguageServer, *args: Any) -> dict[str, Any] | None:
        target = args[0] if args and isinstance(args[0], dict) else {}
        uri = target.get("uri")
        if not isinstance(uri, str) or uri not in ls.workspace.text_documents:
            return None
        analysis = await ls.analyze(uri)
        ef = analysis.eval_file
        return None if ef is None else preview_file(ef)

    @server.feature(STATUS)
    async def status(ls: AgentVLanguageServer, params: Any) -> dict[str, Any]:
        uri = getattr(params, "uri", None) or (params.get("uri") if isinstance(params, dict) else None)
        if not isinstance(uri, str) or uri not in ls.workspace.text_documents:
            return {"schema": None, "config": None, "kind": None}
        analysis = await ls.analyze(uri)
        value = analysis.report.doc.value if analysis.report.doc is not None else None
        schema = value.get("$schema") if isinstance(value, dict) else None
        ef = analysis.eval_file
        return {
            "schema": schema if isinstance(schema, str) else None,
            "config": ef.config.path if ef is not None else None,
            "kind": analysis.report.kind,
        }
