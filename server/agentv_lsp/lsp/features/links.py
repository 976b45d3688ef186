"""`textDocument/documentLink` and `textDocument/definition` for what an eval file points
at: file references, grader and evaluator prompt files, and the target's entry in the
targets file AgentV would use (`EditorFormat.document_links`, `.definition`:
`lsp/v2/navigation.py`, `lsp/v4/navigation.py`)."""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase, guard
from agentv_lsp.lsp.editor import format_of


def register(server: ServerBase) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK)
    @guard([])
    async def document_link(ls: ServerBase, params: lsp.DocumentLinkParams) -> list[lsp.DocumentLink]:
        model = await ls.model(params.text_document.uri)
        if model is None or model.kind != "eval":
            return []
        return await asyncio.to_thread(format_of(model).document_links, model, ls.encoding)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @guard()
    async def goto_definition(ls: ServerBase, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        model = await ls.model(params.text_document.uri)
        if model is None or model.kind != "eval":
            return None
        position = params.position
        definition = format_of(model).definition
        return await asyncio.to_thread(definition, model, position.line, position.character, ls.encoding)
