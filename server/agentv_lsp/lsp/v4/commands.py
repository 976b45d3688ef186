"""`agentv.previewCase`, `agentv.previewFile` and `agentv/status` for 4.x documents (the
arguments are those of `features/commands.py`: `{"uri", "caseId"}` or `{"uri", "position"}`).

The status answer keeps the v2 keys (`schema`, `config`, `kind`, `targets`, `cases`) and adds
`runtime`: `{"major", "version", "reason", "description"}`, which AgentV judges the document
and why (the client's status item shows it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.engine.tokens import case_tokens
from agentv_lsp.lsp.base import ServerBase
from agentv_lsp.lsp.status import runtime_json, status_json
from agentv_lsp.lsp.v4.cases import cases_context
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.preview import file_preview, preview_at, preview_by_id


async def eval_model(ls: ServerBase, target: dict[str, Any]) -> V4Model | None:
    """The 4.x model of the open eval file a command names by `uri` (None: not one). For an
    open cases file: the eval file that loads it, with the cases file's unsaved text."""
    uri = target.get("uri")
    model = await ls.model(uri) if isinstance(uri, str) else None
    if isinstance(model, V4Model) and model.kind == "cases":
        context = await asyncio.to_thread(cases_context, model)
        if context is None:
            return None
        position = target.get("position")
        if "caseId" not in target and isinstance(position, dict) and isinstance(position.get("line"), int):
            # a line of the cases file, not of the eval file: name the test written there
            entry = context.entry_at(position["line"])
            target.pop("position")
            if entry is not None and entry.id is not None:
                target["caseId"] = entry.id
        return context.eval_model
    return model if isinstance(model, V4Model) and model.kind == "eval" else None


def preview_case(model: V4Model, target: dict[str, Any]) -> dict[str, Any] | None:
    found = _preview_case(model, target)
    if found is not None and "error" not in found:
        found["tokens"] = case_tokens(found)  # the panel shows them
    return found


def _preview_case(model: V4Model, target: dict[str, Any]) -> dict[str, Any] | None:
    case_id = target.get("caseId")
    if isinstance(case_id, str):
        return preview_by_id(model, case_id)
    position = target.get("position")
    if isinstance(position, dict):
        line = position.get("line")
        if isinstance(line, int) and line >= 0:
            return preview_at(model, line)  # the test is found by line; the column does not matter
    return None


def preview_file(model: V4Model) -> dict[str, Any] | None:
    return file_preview(model)


def status_of(ls: ServerBase, model: V4Model) -> dict[str, Any]:
    if not model.agentv:
        return {
            "schema": None,
            "config": None,
            "kind": None,
            "targets": None,
            "runtime": runtime_json(model.choice),
        }
    config = targets = None
    suite = model.suite
    if suite is not None:
        config = suite.config_path
        targets = find_targets_file(model.path, model.opts.repo_root, model.opts.cwd, model.opts.fs)
    cases = len(suite.tests) if suite is not None else None
    return {
        **status_json(model.kind, model.path, model.doc.value, config, targets, cases),
        "runtime": runtime_json(model.choice),
    }


async def preview_case_command(ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
    """`agentv.previewCase`: one test of the open eval (or cases) file `target` names."""
    model = await eval_model(ls, target)
    return None if model is None else await asyncio.to_thread(preview_case, model, target)


async def preview_file_command(ls: ServerBase, target: dict[str, Any]) -> dict[str, Any] | None:
    """`agentv.previewFile`: every test of the open eval (or cases) file `target` names."""
    model = await eval_model(ls, target)
    return None if model is None else await asyncio.to_thread(preview_file, model)


async def status(ls: ServerBase, uri: str, model: V4Model) -> dict[str, Any]:
    """`agentv/status` (see the module's docstring)."""
    del uri  # (the model knows its runtime choice)
    return await asyncio.to_thread(status_of, ls, model)
