"""`textDocument/hover`: the format's answer (`EditorFormat.hover`: `lsp/v2/hover.py`,
`lsp/v4/hover.py`) as Markdown. On a test or case header: the prompt AgentV sends; on a file reference, a grader
or evaluator prompt or a target: where it resolves; on a key: its schema description."""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase, guard
from agentv_lsp.lsp.editor import format_of


def register(server: ServerBase) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @guard()
    async def hover(ls: ServerBase, params: lsp.HoverParams) -> lsp.Hover | None:
        model = await ls.model(params.text_document.uri)
        if model is None or not model.agentv:
            return None
        position = params.position
        markdown = await asyncio.to_thread(
            format_of(model).hover, model, position.line, position.character, ls.encoding
        )
        if markdown is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=markdown))
