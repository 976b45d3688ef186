"""`textDocument/completion`: keys and enum values from the format's JSON schema at the
cursor's YAML path, file paths for file references, target names, and a snippet for a new
case or test (`EditorFormat.completions`: `lsp/v2/completion.py`, `lsp/v4/completion.py`,
over the shared `lsp/completion_items.py`). The format is the runtime choice's: completion reads the lines
as typed and never waits for a model."""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase, guard
from agentv_lsp.lsp.convert import uri_to_path
from agentv_lsp.lsp.editor import format_of_document


def register(server: ServerBase) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[":", " ", "/"]))
    @guard()
    async def completion(ls: ServerBase, params: lsp.CompletionParams) -> lsp.CompletionList | None:
        uri = params.text_document.uri
        lines = ls.document_lines(uri)
        if lines is None:
            return None
        position = params.position
        completions = format_of_document(ls, uri).completions
        path, line, character = uri_to_path(uri), position.line, position.character
        items = await asyncio.to_thread(completions, ls, path, lines, line, character)
        return lsp.CompletionList(is_incomplete=False, items=items)
