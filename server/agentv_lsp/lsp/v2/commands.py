"""`agentv.previewCase`, `agentv.previewFile` and `agentv/status` for v2 documents (the
arguments are those of `features/commands.py`: `{"uri", "caseId"}` or `{"uri", "position"}`):
what `agentv-lsp preview --json` prints, computed from the unsaved editor text."""

from __future__ import annotations

import asyncio
from typing import Any

from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.engine.tokens import case_tokens
from agentv_lsp.formats.v2.model import Notice
from agentv_lsp.formats.v2.preview import preview_case as preview_one_case
from agentv_lsp.formats.v2.preview import preview_file as preview_whole_file
from agentv_lsp.lsp.base import ServerBase
from agentv_lsp.lsp.convert import from_client_col, path_to_uri
from agentv_lsp.lsp.status import runtime_json, status_json
from agentv_lsp.lsp.v2.model import FileModel


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
    result = preview_one_case(ef, outcome.case, notices)
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


def target_case(ls: ServerBase, model: FileModel, target: dict[str, Any]) -> int | None:
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


async def eval_model(ls: ServerBase, target: dict[str, Any]) -> FileModel | None:
    """The model of the open eval file a command names by `uri` (None: not one)."""
    uri = target.get("uri")
    model = await ls.model(uri) if isinstance(uri, str) else None
    return model if isinstance(model, FileModel) and model.kind == "eval" else None


def status_of(ls: ServerBase, model: FileModel) -> dict[str, Any]:
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


def _with_runtime(ls: ServerBase, model: FileModel, found: dict[str, Any] | None) -> dict[str, Any] | None:
    """A v2 preview names its runtime as a 4.x one does (the panel's badge: "AgentV 2 (agentv-eval-v2)")."""
    if found is None:
        return None
    uri = path_to_uri(model.path)
    return {**found, "runtime": ls.runtime_of(uri, model.path, model.text, model.opts.repo_root).version}


async def preview_case_command(ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
    """`agentv.previewCase`: one case of the open eval file `target` names."""
    model = await eval_model(ls, target)
    if model is None:
        return None

    def compute() -> dict[str, Any] | None:
        index = target_case(ls, model, target)
        return None if index is None else case_preview(model, index)

    found = await asyncio.to_thread(compute)
    return _with_runtime(ls, model, found)


async def preview_file_command(ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
    """`agentv.previewFile`: every case of the open eval file `target` names."""
    model = await eval_model(ls, target)
    if model is None:
        return None

    def compute() -> dict[str, Any] | None:
        ef = model.whole_ef
        return None if ef is None else preview_whole_file(ef)

    found = await asyncio.to_thread(compute)
    return _with_runtime(ls, model, found)


async def status(ls: ServerBase, uri: str, model: FileModel) -> dict[str, Any]:
    """`agentv/status`: the keys of `status_json` and which AgentV judges the document, and why."""
    result = await asyncio.to_thread(status_of, ls, model)
    choice = ls.runtime_of(uri, model.path, model.text, model.opts.repo_root)
    return {**result, "runtime": runtime_json(choice)}
