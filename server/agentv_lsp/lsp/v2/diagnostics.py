"""Diagnostics of v2 documents, pushed (`publish`) or pulled (`pull`): the same checks as
`agentv-lsp check`, assembled case by case by the model (`filemodel.FileModel`) and placed
in the file by the server (`AgentVLanguageServer.diagnostic_parts`). Called from
`features/diagnostics.py`, which debounces the edits and keeps the last check's cost."""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types as lsp

from agentv_lsp.lsp.publication import Placed
from agentv_lsp.lsp.server import AgentVLanguageServer
from agentv_lsp.lsp.v2.filemodel import FileModel


async def publish(ls: AgentVLanguageServer, uri: str, version: int | None, model: FileModel) -> bool:
    """Publish the diagnostics of `model` unless a newer version arrived meanwhile (True:
    published)."""
    start = time.perf_counter()
    shown = await ls.run_check(
        uri,
        version,
        lambda stop: ls.shown(uri, [Placed.of_items(ls.incomplete_json(model.path, stop))]),
        lambda: ls.shown(uri, ls.diagnostic_parts(model, uri)),
    )
    if shown is None:
        return False  # stopped: a newer version is checked instead
    current = ls.workspace.text_documents.get(uri)
    if current is None or current.version != version:
        return False  # a newer edit arrived: its own task publishes
    if not model.agentv and uri not in ls.published:
        return False  # not ours, nothing to clear: other YAML files get nothing at all
    ls.publish(uri, version, shown)
    if shown.total:
        ls.published.add(uri)
    else:
        ls.published.discard(uri)
    elapsed = (time.perf_counter() - start) * 1000
    stats = model.stats
    ls.log(
        f"agentv-lsp: {uri} v{version}: {shown.total} diagnostics in {elapsed:.0f} ms "
        f"({'whole text' if not model.split else str(stats['checked']) + ' of ' + str(stats['units']) + ' cases checked'})"
    )
    return True


async def pull(
    ls: AgentVLanguageServer, params: lsp.DocumentDiagnosticParams, model: FileModel
) -> lsp.DocumentDiagnosticReport:
    uri = params.text_document.uri
    document = ls.workspace.text_documents.get(uri)
    result_id = f"{document.version if document else 0}@{ls.generation}"
    if params.previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    items = await asyncio.to_thread(ls.diagnostics_json, model)
    # JSON items: the typed report would rebuild thousands of objects for a large file
    return {"kind": "full", "resultId": result_id, "items": ls.capped(uri, items)}  # type: ignore[return-value]
