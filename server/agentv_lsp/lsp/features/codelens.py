"""`textDocument/codeLens` and `codeLens/resolve`: above each eval case, "▶ Preview" (runs
`agentv.previewCase` with `[{"uri", "caseId"}]`, which the VS Code client turns into its
preview panel) and a one-line summary ("4 turns · 2 files · 1 guideline · role markers", or
"flat"). Lenses are listed cheaply and resolved when shown, so a 10,000-case file loads
only the cases on screen. Off with `codeLens.enabled: false`."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.model import EvalCase
from agentv_lsp.engine.prompt import needs_role_markers, segments_by_message
from agentv_lsp.lsp.convert import JsonDict
from agentv_lsp.lsp.features import prompt_diff
from agentv_lsp.lsp.features.commands import PREVIEW_CASE
from agentv_lsp.lsp.filemodel import FileModel
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v4 import navigation as v4_navigation
from agentv_lsp.lsp.v4.model import V4Model

PREVIEW, SUMMARY = "preview", "summary"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(case: EvalCase) -> str:
    files = sum(1 for r in case.file_refs if not r.in_expected and r.guideline_pattern is None)
    markers = needs_role_markers(case.input_messages, segments_by_message(case))
    return " · ".join(
        (
            _plural(len(case.input_messages), "turn"),
            _plural(files, "file"),
            _plural(len(case.guideline_paths), "guideline"),
            "role markers" if markers else "flat",
        )
    )


def resolve(model: FileModel, uri: str, index: int, kind: str) -> lsp.Command:
    loaded = model.case_outcome(index)
    if loaded is None:
        return lsp.Command(title="AgentV cannot load this file", command="")
    outcome = loaded[1]
    if outcome.case is None:
        reason = "; ".join(n.message for n in outcome.notices) or "skipped"
        return lsp.Command(title=f"⚠ {reason}", command="")
    if kind == PREVIEW:
        return lsp.Command(
            title="▶ Preview", command=PREVIEW_CASE, arguments=[{"uri": uri, "caseId": outcome.case.id}]
        )
    return lsp.Command(title=summary(outcome.case), command="")


def _lenses(model: FileModel, uri: str) -> list[JsonDict]:
    """The lenses of a version, listed once (JSON: a 10,000-case file has 30,000)."""
    key = f"lenses:{uri}"
    found: list[JsonDict] | None = model.memo.get(key)
    if found is None:
        lenses: list[JsonDict] = []
        for index, line in enumerate(model.case_lines()):
            where = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}
            for kind in (PREVIEW, SUMMARY):
                lenses.append({"range": where, "data": {"uri": uri, "index": index, "kind": kind}})
        found = model.memo[key] = prompt_diff.with_compare_lenses(lenses)
    return found


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=True))
    @guard([])
    async def code_lens(ls: AgentVLanguageServer, params: lsp.CodeLensParams) -> list[JsonDict]:
        uri = params.text_document.uri
        if not ls.settings.code_lens:
            return []
        model = await ls.model(uri)
        if isinstance(model, V4Model) and model.kind in ("eval", "cases"):  # 4.x: cases files too
            v4_model = model
            return await asyncio.to_thread(
                v4_model.memoized,
                ("lenses with compare", uri),
                lambda: prompt_diff.with_compare_lenses(v4_navigation.code_lenses(v4_model, uri)),
            )
        if not isinstance(model, FileModel) or model.kind != "eval":
            return []
        return await asyncio.to_thread(_lenses, model, uri)

    @server.feature(lsp.CODE_LENS_RESOLVE)
    @guard()
    async def code_lens_resolve(ls: AgentVLanguageServer, lens: lsp.CodeLens) -> lsp.CodeLens:
        data: Any = lens.data if isinstance(lens.data, dict) else {}
        uri, index, kind = data.get("uri"), data.get("index"), data.get("kind")
        if kind == prompt_diff.COMPARE:  # "Compare prompt with HEAD": the preview lens, retitled
            lens.data = {**data, "kind": PREVIEW}
            return prompt_diff.compare_lens(await code_lens_resolve(ls, lens))
        model = await ls.model(uri) if isinstance(uri, str) else None
        if isinstance(model, V4Model) and isinstance(index, int) and model.kind in ("eval", "cases"):
            lens.command = await asyncio.to_thread(v4_navigation.resolve_lens, model, uri, index, str(kind))
            return lens
        if not isinstance(model, FileModel) or not isinstance(index, int) or model.kind != "eval":
            lens.command = lsp.Command(title="", command="")
            return lens
        lens.command = await asyncio.to_thread(resolve, model, uri, index, str(kind))
        return lens
