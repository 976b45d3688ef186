"""The custom request `agentv/renderedPrompt` (`{"uri", "testId", "side": "head" | "buffer"}` ->
`{"text"}`): one test's rendered prompt (every field `agentv-lsp diff` compares, with its token
counts) at HEAD or as the unsaved buffer makes it. The VS Code client serves both as read-only
virtual documents and opens its diff editor on them ("Compare prompt with HEAD")."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.diff.git import GitError
from agentv_lsp.diff.single import buffer_prompt, revision_prompt
from agentv_lsp.formats.runtime import parse_requested
from agentv_lsp.lsp.convert import uri_to_path
from agentv_lsp.lsp.server import AgentVLanguageServer

RENDERED_PROMPT = "agentv/renderedPrompt"
# The code lens "Compare prompt with HEAD" (listed after each preview lens, `lsp/listing.py`)
# runs this client command with the preview lens's arguments (`[{"uri", "caseId"}]`); the VS
# Code extension registers it.
COMPARE_COMMAND = "agentv.comparePromptWithHead"


def compare_lens(resolved: lsp.CodeLens) -> lsp.CodeLens:
    command = resolved.command
    if command is not None and command.arguments:
        resolved.command = lsp.Command(
            title="⇄ Compare prompt with HEAD", command=COMPARE_COMMAND, arguments=command.arguments
        )
    else:
        resolved.command = lsp.Command(title="", command="")
    return resolved


def rendered_prompt(ls: AgentVLanguageServer, params: Any) -> dict[str, Any]:
    uri = _get(params, "uri")
    test_id = _get(params, "testId")
    side = _get(params, "side") or "buffer"
    if not isinstance(uri, str) or not isinstance(test_id, str) or side not in ("head", "buffer"):
        return {"error": 'expected {"uri", "testId", "side": "head" | "buffer"}'}
    path = uri_to_path(uri)
    repo = ls.context_for(path)[0]
    requested = parse_requested(ls.settings.runtime)
    try:
        if side == "head":
            return {"text": revision_prompt(repo, path, test_id, "HEAD", requested)}
        document = ls.workspace.text_documents.get(uri)
        if document is None:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        else:
            text = document.source
        return {"text": buffer_prompt(repo, path, text, test_id, requested)}
    except (GitError, OSError) as exc:
        return {"error": str(exc)}


def _get(params: Any, name: str) -> Any:
    return params.get(name) if isinstance(params, dict) else getattr(params, name, None)


def register(server: AgentVLanguageServer) -> None:
    @server.feature(RENDERED_PROMPT)
    async def rendered_prompt_request(ls: AgentVLanguageServer, params: Any) -> dict[str, Any]:
        return await asyncio.to_thread(rendered_prompt, ls, params)
