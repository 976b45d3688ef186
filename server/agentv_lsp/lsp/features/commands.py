"""`workspace/executeCommand` `agentv.previewCase` (`[{"uri", "caseId"}]` or
`[{"uri", "position": {"line", "character"}}]`) and `agentv.previewFile` (`[{"uri"}]`):
what `agentv-lsp preview --json` prints, computed from the unsaved editor text; and the
custom request `agentv/status` (`{"uri"}` -> the `$schema`, the config and targets file in
use) for the client's status item. Each format answers (`EditorFormat.preview_case`,
`.preview_file`, `.status`) in its `lsp/<format>/commands.py`."""

from __future__ import annotations

import re
from typing import Any

from agentv_lsp.lsp.base import DocumentModel, ServerBase, guard
from agentv_lsp.lsp.editor import format_of
from agentv_lsp.lsp.names import PREVIEW_CASE, PREVIEW_FILE, STATUS


def _target(args: tuple[Any, ...]) -> dict[str, Any]:
    first = args[0] if args else None
    if isinstance(first, list) and first:
        first = first[0]
    return first if isinstance(first, dict) else {}


_URI = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def register(server: ServerBase) -> None:
    @server.command(PREVIEW_CASE)
    @guard()
    async def preview_case_command(ls: ServerBase, *args: Any) -> dict[str, Any] | None:
        target = _target(args)
        model = await _named_model(ls, target)
        if model is None:
            return None
        return await format_of(model).preview_case(ls, target)

    @server.command(PREVIEW_FILE)
    @guard()
    async def preview_file_command(ls: ServerBase, *args: Any) -> dict[str, Any] | None:
        target = _target(args)
        model = await _named_model(ls, target)
        if model is None:
            return None
        return await format_of(model).preview_file(ls, target)

    @server.feature(STATUS)
    @guard({"schema": None, "config": None, "kind": None, "targets": None})
    async def status(ls: ServerBase, params: Any) -> dict[str, Any]:
        uri = getattr(params, "uri", None)
        if uri is None and isinstance(params, dict):
            uri = params.get("uri")
        model = await ls.model(uri) if isinstance(uri, str) and _URI.match(uri) else None
        if model is None:
            return {"schema": None, "config": None, "kind": None, "targets": None}
        return await format_of(model).status(ls, str(uri), model)


async def _named_model(ls: ServerBase, target: dict[str, Any]) -> DocumentModel | None:
    """The model of the open document a command names by `uri` (None: not one open)."""
    uri = target.get("uri")
    return await ls.model(uri) if isinstance(uri, str) else None
