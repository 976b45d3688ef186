"""`textDocument/codeLens` and `codeLens/resolve`: above each eval case, "▶ Preview" (runs
`agentv.previewCase` with `[{"uri", "caseId"}]`, which the VS Code client turns into its
preview panel) and a one-line summary ("4 turns · 2 files · 1 guideline · role markers", or
"flat"), and "⇄ Compare prompt with HEAD" (`prompt_diff`). Lenses are listed cheaply (their
JSON text made test by test and kept across versions, `lsp/listing.py`; their data
`[doc, index, kind]`) and resolved when shown, so a 10,000-case file loads only the cases on
screen. Off with `codeLens.enabled: false`."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp import listing
from agentv_lsp.lsp.base import DocumentModel, ServerBase, guard
from agentv_lsp.lsp.editor import format_of
from agentv_lsp.lsp.features import prompt_diff
from agentv_lsp.lsp.names import LENS_COMPARE, LENS_PREVIEW
from agentv_lsp.lsp.protocol import RawJson


def register(server: ServerBase) -> None:
    numbers = listing.DocumentNumbers()
    lists = listing.LensLists()

    def forget(uri: str) -> None:
        number = numbers.forget(uri)
        if number is not None:
            lists.forget(number)

    server.close_listeners.append(forget)

    def lens_json(model: DocumentModel, doc: int) -> RawJson | None:
        lines = format_of(model).lens_lines(model)
        return None if lines is None else lists.json(doc, lines)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=True))
    @guard([])
    async def code_lens(ls: ServerBase, params: lsp.CodeLensParams) -> RawJson | list[Any]:
        uri = params.text_document.uri
        if not ls.settings.code_lens:
            return []
        model = await ls.model(uri)
        if model is None:
            return []
        doc = numbers.number(uri)
        found = await asyncio.to_thread(
            listing.per_version, model, ("lens json", doc), lambda: lens_json(model, doc) or RawJson(b"[]")
        )
        return found  # type: ignore[no-any-return]

    @server.feature(lsp.CODE_LENS_RESOLVE)
    @guard()
    async def code_lens_resolve(ls: ServerBase, lens: lsp.CodeLens) -> lsp.CodeLens:
        data = listing.read_lens_data(lens.data)
        uri = numbers.uri(data[0]) if data is not None else None
        model = await ls.model(uri) if uri is not None else None
        if data is None or uri is None or model is None:  # not ours, or a document forgotten
            lens.command = lsp.Command(title="", command="")
            return lens
        index, kind = data[1], data[2]
        if kind == LENS_COMPARE:  # "Compare prompt with HEAD": the preview lens, retitled
            lens.command = await resolve_command(model, uri, index, LENS_PREVIEW)
            return prompt_diff.compare_lens(lens)
        lens.command = await resolve_command(model, uri, index, kind)
        return lens


async def resolve_command(model: DocumentModel, uri: str, index: int, kind: str) -> lsp.Command:
    return await asyncio.to_thread(format_of(model).resolve_lens, model, uri, index, kind)


def refresh_code_lenses(ls: ServerBase) -> None:
    """`workspace/codeLens/refresh`: what the lenses show changed (a run's verdicts, a migration)."""
    workspace = ls.client_capabilities.workspace
    lens = workspace.code_lens if workspace is not None else None
    if lens is None or not lens.refresh_support:
        return
    try:
        ls.workspace_code_lens_refresh(None)
    except Exception as exc:  # a client that says it supports refresh but fails
        ls.log(f"agentv-lsp: workspace/codeLens/refresh failed: {exc}")
