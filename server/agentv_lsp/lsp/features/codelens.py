"""`textDocument/codeLens`: "▶ Preview" above each case (runs `agentv.previewCase`, which
the VS Code client turns into its preview panel) and a one-line summary of the case."""

from __future__ import annotations

from lsprotocol import types as lsp

from agentv_lsp.engine.model import EvalCase
from agentv_lsp.engine.prompt import needs_role_markers, segments_by_message
from agentv_lsp.lsp.features.commands import PREVIEW_CASE
from agentv_lsp.lsp.server import AgentVLanguageServer


def summary(case: EvalCase) -> str:
    turns = len(case.input_messages)
    files = sum(1 for r in case.file_refs if not r.in_expected and r.guideline_pattern is None)
    guidelines = len(case.guideline_paths)
    markers = needs_role_markers(case.input_messages, segments_by_message(case))
    parts = [
        f"{turns} turn{'s' if turns != 1 else ''}",
        f"{files} file{'s' if files != 1 else ''}",
        f"{guidelines} guideline{'s' if guidelines != 1 else ''}",
        "role markers" if markers else "flat",
    ]
    return " · ".join(parts)


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: AgentVLanguageServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        uri = params.text_document.uri
        if not ls.settings.code_lens or uri not in ls.workspace.text_documents:
            return []
        analysis = await ls.analyze(uri)
        ef = analysis.eval_file
        if ef is None or not ef.loaded or analysis.report.outcomes is None:
            return []
        lenses: list[lsp.CodeLens] = []
        for outcome in analysis.report.outcomes:
            if outcome.case is None or outcome.index >= len(analysis.case_lines):
                continue
            line = analysis.case_lines[outcome.index]
            where = lsp.Range(
                start=lsp.Position(line=line, character=0), end=lsp.Position(line=line, character=0)
            )
            lenses.append(
                lsp.CodeLens(
                    range=where,
                    command=lsp.Command(
                        title="▶ Preview",
                        command=PREVIEW_CASE,
                        arguments=[{"uri": uri, "caseId": outcome.case.id}],
                    ),
                )
            )
            lenses.append(
                lsp.CodeLens(range=where, command=lsp.Command(title=summary(outcome.case), command=""))
            )
        return lenses
