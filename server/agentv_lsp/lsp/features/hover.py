"""`textDocument/hover`: the format's answer (`lsp/v2/hover.py`, `lsp/v4/hover.py`) as
Markdown. On a test or case header: the prompt AgentV sends; on a file reference, a grader
or evaluator prompt or a target: where it resolves; on a key: its schema description."""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from agentv_lsp.lsp.dispatch import by_format
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v2 import hover as v2_hover
from agentv_lsp.lsp.v4 import hover as v4_hover


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @guard()
    async def hover(ls: AgentVLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        model = await ls.model(params.text_document.uri)
        if model is None or not model.agentv:
            return None
        position = params.position
        hover_markdown = by_format(model, v2=v2_hover.hover_markdown, v4=v4_hover.hover_markdown)
        markdown = await asyncio.to_thread(
            hover_markdown, model, position.line, position.character, ls.encoding
        )
        if markdown is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=markdown))
