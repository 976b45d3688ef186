"""`textDocument/documentLink` and `textDocument/definition` for what an eval file points
at: file references, grader and evaluator prompt files, and the target's entry in the
targets file AgentV would use (`lsp/v2/navigation.py`, `lsp/v4/navigation.py`)."""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from agentv_lsp.lsp.dispatch import by_format
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v2 import navigation as v2_navigation
from agentv_lsp.lsp.v4 import navigation as v4_navigation


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK)
    @guard([])
    async def document_link(
        ls: AgentVLanguageServer, params: lsp.DocumentLinkParams
    ) -> list[lsp.DocumentLink]:
        model = await ls.model(params.text_document.uri)
        if model is None or model.kind != "eval":
            return []
        document_links = by_format(model, v2=v2_navigation.document_links, v4=v4_navigation.document_links)
        return await asyncio.to_thread(document_links, model, ls.encoding)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @guard()
    async def goto_definition(
        ls: AgentVLanguageServer, params: lsp.DefinitionParams
    ) -> list[lsp.Location] | None:
        model = await ls.model(params.text_document.uri)
        if model is None or model.kind != "eval":
            return None
        position = params.position
        definition = by_format(model, v2=v2_navigation.definition, v4=v4_navigation.definition)
        return await asyncio.to_thread(definition, model, position.line, position.character, ls.encoding)
