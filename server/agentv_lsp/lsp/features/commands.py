"""`workspace/executeCommand` `agentv.previewCase` (`[{"uri", "caseId"}]` or
`[{"uri", "position": {"line", "character"}}]`) and `agentv.previewFile` (`[{"uri"}]`):
what `agentv-lsp preview --json` prints, computed from the unsaved editor text; and the
custom request `agentv/status` (`{"uri"}` -> the `$schema`, the config and targets file in
use) for the client's status item."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.formats.v2.model import Notice
from agentv_lsp.formats.v2.preview import preview_case, preview_file
from agentv_lsp.lsp.convert import from_client_col, path_to_uri
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v2.filemodel import FileModel
from agentv_lsp.lsp.v4 import commands as v4_commands
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.tokens import case_tokens

PREVIEW_CASE = "agentv.previewCase"
PREVIEW_FILE = "agentv.previewFile"
STATUS = "agentv/status"


def case_preview(model: FileModel, index: int) -> dict[str, Any] | None:
    """One case as `preview --json` shows it, plus the warnings AgentV prints for it (its
    load notices, then those of building its prompts)."""
    loaded = model.case_outcome(index)
    if loaded is None:
        return None
    ef, outcome = loaded
    notices: list[Notice] = list(outcome.notices)
    if outcome.case is None:
        raw = model.raw_case(index)
        case_id = raw.get("id") if isinstance(raw, dict) else None
        return {
            "id": case_id if isinstance(case_id, str) else None,
            "index": index,
            "error": "AgentV skips this case: " + "; ".join(n.message for n in notices),
            "warnings": [n.render() for n in notices],
        }
    result = preview_case(ef, outcome.case, notices)
    result["tokens"] = case_tokens(result)
    result["index"] = index
    result["warnings"] = [n.render() for n in notices]
    return result


def find_case(model: FileModel, case_id: str) -> int | None:
    """The index of the first case with this id (a text search picks the candidates)."""
    if model.layout is not None:
        for index, unit in enumerate(model.units):
            if case_id in unit.chunk and unit.case_id()[0] == case_id:
                return index
        return None
    for index in range(model.case_count()):
        raw = model.raw_case(index)
        if isinstance(raw, dict) and raw.get("id") == case_id:
            return index
    return None


def target_case(ls: AgentVLanguageServer, model: FileModel, target: dict[str, Any]) -> int | None:
    case_id = target.get("caseId")
    if isinstance(case_id, str):
        return find_case(model, case_id)
    position = target.get("position")
    if isinstance(position, dict):
        line = position.get("line")
        character = position.get("character", 0)
        if isinstance(line, int) and isinstance(character, int) and line >= 0:
            col = from_client_col(model.line(line), character, ls.encoding)
            del col  # the case is found by line; the column does not matter
            return model.case_at(line)
    return None


def _target(args: tuple[Any, ...]) -> dict[str, Any]:
    first = args[0] if args else None
    if isinstance(first, list) and first:
        first = first[0]
    return first if isinstance(first, dict) else {}


async def _eval_model(ls: AgentVLanguageServer, target: dict[str, Any]) -> FileModel | None:
    """The model of the open eval file a command names by `uri` (None: not one)."""
    uri = target.get("uri")
    model = await ls.model(uri) if isinstance(uri, str) else None
    return model if isinstance(model, FileModel) and model.kind == "eval" else None


def status_of(ls: AgentVLanguageServer, model: FileModel) -> dict[str, Any]:
    value = model.root_value if model.agentv and model.kind is not None else None
    config = targets = None
    if model.kind == "eval":
        ef = model.eval_file
        if ef is not None:
            config = ef.config.path
            targets = find_targets_file(ef.path, ef.repo_root, ef.cwd, ef.fs)
    return status_json(
        model.kind, model.path, value, config, targets, model.case_count() if model.kind == "eval" else None
    )


def status_json(
    kind: str | None,
    path: str,
    root_value: Any,
    config: str | None = None,
    targets: str | None = None,
    cases: int | None = None,
) -> dict[str, Any]:
    """The `agentv/status` keys of a document of either format: an eval file names the config
    and targets files it uses (`config`, `targets`), a config or targets file itself."""
    schema = root_value.get("$schema") if isinstance(root_value, dict) else None
    if kind == "config":
        config = path
    elif kind == "targets":
        targets = path
    return {
        "schema": schema if isinstance(schema, str) else None,
        "config": config,
        "kind": kind,
        "targets": targets,
        "cases": cases,
    }


_URI = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def _with_runtime(
    ls: AgentVLanguageServer, model: FileModel, found: dict[str, Any] | None
) -> dict[str, Any] | None:
    """A v2 preview names its runtime as a 4.x one does (the panel's badge: "AgentV 2 (agentv-eval-v2)")."""
    if found is None:
        return None
    uri = path_to_uri(model.path)
    return {**found, "runtime": ls.runtime_of(uri, model.path, model.text, model.opts.repo_root).version}


def register(server: AgentVLanguageServer) -> None:
    @server.command(PREVIEW_CASE)
    @guard()
    async def preview_case_command(ls: AgentVLanguageServer, *args: Any) -> dict[str, Any] | None:
        target = _target(args)
        v4 = await v4_commands.eval_model(ls, target)
        if v4 is not None:
            return await asyncio.to_thread(v4_commands.preview_case, v4, target)
        model = await _eval_model(ls, target)
        if model is None:
            return None

        def compute() -> dict[str, Any] | None:
            index = target_case(ls, model, target)
            return None if index is None else case_preview(model, index)

        found = await asyncio.to_thread(compute)
        return _with_runtime(ls, model, found)

    @server.command(PREVIEW_FILE)
    @guard()
    async def preview_file_command(ls: AgentVLanguageServer, *args: Any) -> dict[str, Any] | None:
        v4 = await v4_commands.eval_model(ls, _target(args))
        if v4 is not None:
            return await asyncio.to_thread(v4_commands.preview_file, v4)
        model = await _eval_model(ls, _target(args))
        if model is None:
            return None

        def compute() -> dict[str, Any] | None:
            ef = model.whole_ef
            return None if ef is None else preview_file(ef)

        found = await asyncio.to_thread(compute)
        return _with_runtime(ls, model, found)

    @server.feature(STATUS)
    @guard({"schema": None, "config": None, "kind": None, "targets": None})
    async def status(ls: AgentVLanguageServer, params: Any) -> dict[str, Any]:
        uri = getattr(params, "uri", None)
        if uri is None and isinstance(params, dict):
            uri = params.get("uri")
        model = await ls.model(uri) if isinstance(uri, str) and _URI.match(uri) else None
        if model is None:
            return {"schema": None, "config": None, "kind": None, "targets": None}
        if isinstance(model, V4Model):
            return await asyncio.to_thread(v4_commands.status_of, ls, model)
        result = await asyncio.to_thread(status_of, ls, model)
        choice = ls.runtime_of(str(uri), model.path, model.text, model.opts.repo_root)
        return {**result, "runtime": v4_commands.runtime_json(choice)}  # which AgentV, and why


__all__ = ["PREVIEW_CASE", "PREVIEW_FILE", "STATUS", "case_preview", "find_case", "lsp"]
