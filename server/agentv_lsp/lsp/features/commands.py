"""`workspace/executeCommand` `agentv.previewCase` (`[{"uri", "caseId"}]` or
`[{"uri", "position": {"line", "character"}}]`) and `agentv.previewFile` (`[{"uri"}]`):
what `agentv-lsp preview --json` prints, computed from the unsaved editor text; and the
custom request `agentv/status` (`{"uri"}` -> the `$schema`, the config and targets file in
use) for the client's status item. Each format answers in its `lsp/<format>/commands.py`."""

from __future__ import annotations

import re
from typing import Any

from agentv_lsp.lsp.dispatch import Model, by_format
from agentv_lsp.lsp.names import PREVIEW_CASE, PREVIEW_FILE, STATUS
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v2 import commands as v2_commands
from agentv_lsp.lsp.v4 import commands as v4_commands


def _target(args: tuple[Any, ...]) -> dict[str, Any]:
    first = args[0] if args else None
    if isinstance(first, list) and first:
        first = first[0]
    return first if isinstance(first, dict) else {}


_URI = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def register(server: AgentVLanguageServer) -> None:
    @server.command(PREVIEW_CASE)
    @guard()
    async def preview_case_command(ls: AgentVLanguageServer, *args: Any) -> dict[str, Any] | None:
        target = _target(args)
        model = await _named_model(ls, target)
        if model is None:
            return None
        run = by_format(model, v2=v2_commands.preview_case_command, v4=v4_commands.preview_case_command)
        return await run(ls, target)

    @server.command(PREVIEW_FILE)
    @guard()
    async def preview_file_command(ls: AgentVLanguageServer, *args: Any) -> dict[str, Any] | None:
        target = _target(args)
        model = await _named_model(ls, target)
        if model is None:
            return None
        run = by_format(model, v2=v2_commands.preview_file_command, v4=v4_commands.preview_file_command)
        return await run(ls, target)

    @server.feature(STATUS)
    @guard({"schema": None, "config": None, "kind": None, "targets": None})
    async def status(ls: AgentVLanguageServer, params: Any) -> dict[str, Any]:
        uri = getattr(params, "uri", None)
        if uri is None and isinstance(params, dict):
            uri = params.get("uri")
        model = await ls.model(uri) if isinstance(uri, str) and _URI.match(uri) else None
        if model is None:
            return {"schema": None, "config": None, "kind": None, "targets": None}
        answer = by_format(model, v2=v2_commands.status, v4=v4_commands.status)
        return await answer(ls, str(uri), model)


async def _named_model(ls: AgentVLanguageServer, target: dict[str, Any]) -> Model | None:
    """The model of the open document a command names by `uri` (None: not one open)."""
    uri = target.get("uri")
    return await ls.model(uri) if isinstance(uri, str) else None
