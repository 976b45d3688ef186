"""Diagnostics: `textDocument/didOpen|didChange|didSave|didClose` and pull
`textDocument/diagnostic`.

The same checks as `agentv-lsp check`, computed in a worker thread (hover and completion
never wait for them), and dropped when a newer version arrived meanwhile. The debounce after
an edit follows the measured cost: when the document's last check took at most
`IMMEDIATE_MS` (an edit inside the tests of a large file is re-checked test by test in tens of
milliseconds; a small file is checked whole as fast) the next one starts at once, as ruff's
server does; otherwise after `preview.debounceMs` (default 150 ms) without edits, so that a
whole-text check (about 1 s at 10,000 tests) is not started for every keystroke. Pushed with
`textDocument/publishDiagnostics` unless the client pulls. Only AgentV files are ours (an
AgentV `$schema`, or `.agentv/config.yaml|targets.yaml`): other YAML gets nothing at all.
Each format checks and publishes (`EditorFormat.pull_items`, `.publish`) in its
`lsp/<format>/diagnostics.py`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable

from lsprotocol import types as lsp

from agentv_lsp.engine.budget import Budget, CheckStopped, run_limited
from agentv_lsp.lsp.base import ServerBase, guard
from agentv_lsp.lsp.convert import is_agentv_path, is_file_uri, uri_to_path
from agentv_lsp.lsp.editor import format_of

# A check that cost at most this (the last one of the document) is started without debounce.
# `bench_lsp.py` measures 5-30 ms for an edit inside one test of 2,000 or 10,000 (more on a
# loaded machine), a whole-text check 0.5-2.5 s; keystrokes come about every 100 ms or more,
# so a check this cheap is done before the next one, and a newer edit stops it anyway. No
# floor either: a burst of edits (a paste replayed, a formatter, an edit storm) still starts
# one model build at a time (`server.model` runs one build per document; the edits that come
# meanwhile wait for it and then start one build from the newest text), and the edits read
# together from the pipe schedule one check (each cancels the one before it).
IMMEDIATE_MS = 100
_last_cost: dict[str, float] = {}  # per document: milliseconds its last check took


def debounce_seconds(ls: ServerBase, uri: str) -> float:
    """How long to wait after an edit before checking (see the module's docstring)."""
    cost = _last_cost.get(uri)
    if cost is not None and cost <= IMMEDIATE_MS:
        return 0.0
    return ls.settings.debounce_ms / 1000


def register(server: ServerBase) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    @guard()
    def did_open(ls: ServerBase, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri)
        schedule(ls, params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    @guard()
    def did_change(ls: ServerBase, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri)
        schedule(ls, params.text_document.uri, debounce_seconds(ls, params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    @guard()
    def did_save(ls: ServerBase, params: lsp.DidSaveTextDocumentParams) -> None:
        path = uri_to_path(params.text_document.uri)
        if is_agentv_path(path) or _is_targets(path):
            files_changed(ls, [path])  # other open eval files read this one from disk
        else:
            schedule(ls, params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    @guard()
    def did_close(ls: ServerBase, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        _last_cost.pop(uri, None)
        ls.forget(uri)
        if uri in ls.published and not ls.supports_pull:
            ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        ls.published.discard(uri)

    @server.feature(
        lsp.TEXT_DOCUMENT_DIAGNOSTIC,
        lsp.DiagnosticOptions(identifier="agentv", inter_file_dependencies=True, workspace_diagnostics=False),
    )
    @guard(lsp.RelatedFullDocumentDiagnosticReport(items=[]))
    async def pull(ls: ServerBase, params: lsp.DocumentDiagnosticParams) -> lsp.DocumentDiagnosticReport:
        uri = params.text_document.uri
        try:
            model = await ls.model(uri)
        except CheckStopped as stop:  # reading the text ran past the check budget
            document = ls.workspace.text_documents.get(uri)
            result_id = f"{document.version if document else 0}@{ls.generation}"
            items = ls.incomplete_json(uri_to_path(uri), stop) if is_file_uri(uri) else []
            return {"kind": "full", "resultId": result_id, "items": items}  # type: ignore[return-value]
        if model is None:
            return lsp.RelatedFullDocumentDiagnosticReport(items=[])
        document = ls.workspace.text_documents.get(uri)
        result_id = f"{document.version if document else 0}@{ls.generation}"
        if params.previous_result_id == result_id:
            return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        items_of = format_of(model).pull_items
        # under the check budget too (not registered: a pull never stops another's answer)
        budget = Budget(ls.settings.check_budget_ms / 1000, uri)
        try:
            items = await asyncio.to_thread(run_limited, budget, items_of, ls, model, uri)
        except CheckStopped as stop:
            if stop.reason != "budget":
                raise
            items = ls.incomplete_json(model.path, stop)
        # JSON items: the typed report would rebuild thousands of objects for a large file
        return {"kind": "full", "resultId": result_id, "items": ls.capped(uri, items)}  # type: ignore[return-value]


def is_setup_file(path: str) -> bool:
    """Files that decide how every eval file is read: configs and targets files."""
    name = os.path.basename(path)
    in_agentv = os.path.basename(os.path.dirname(path)) == ".agentv"
    return name in ("targets.yaml", "targets.yml") or (in_agentv and name in ("config.yaml", "config.yml"))


def files_changed(ls: ServerBase, paths: Iterable[str]) -> None:
    """Files changed on disk (watched, or saved in the editor): forget what was read from
    them and check every open document again."""
    changed = list(paths)
    if not changed:
        return
    if any(is_setup_file(p) for p in changed):
        ls.fs.invalidate()
        ls.reset_files()
    else:
        ls.invalidate(changed)
    for listener in ls.file_listeners:
        listener(changed)
    ls.log(f"agentv-lsp: {len(changed)} watched file(s) changed; checking open documents again")
    recheck_open_documents(ls)


def _is_targets(path: str) -> bool:
    return os.path.basename(path) in ("targets.yaml", "targets.yml")


def recheck_open_documents(ls: ServerBase) -> None:
    """What a check reads changed: check every open document again."""
    if ls.supports_pull:
        try:
            ls.workspace_diagnostic_refresh(None)
        except Exception as exc:  # an old client without refresh support
            ls.log(f"agentv-lsp: workspace/diagnostic/refresh failed: {exc}")
        return
    for uri in list(ls.workspace.text_documents):
        schedule(ls, uri, 0)


def schedule(ls: ServerBase, uri: str, delay: float) -> None:
    """(Re)compute and publish diagnostics for `uri` after `delay` seconds without edits."""
    if ls.supports_pull:
        return  # the client asks when it wants them
    previous = ls.pending.pop(uri, None)
    if previous is not None:
        previous.cancel()
    ls.stop_check(uri)  # its thread stops at the engine's next checkpoint
    ls.pending[uri] = asyncio.get_running_loop().create_task(_publish_later(ls, uri, delay))


async def _publish_later(ls: ServerBase, uri: str, delay: float) -> None:
    try:
        if delay:
            await asyncio.sleep(delay)
        document = ls.workspace.text_documents.get(uri)
        if document is None:
            return
        version = document.version
        start = time.perf_counter()
        try:
            model = await ls.model(uri)
        except CheckStopped as stop:  # reading the text ran past the check budget
            ls.publish_incomplete(uri, version, stop)
            return
        if model is None:
            return
        if await format_of(model).publish(ls, uri, version, model):
            _last_cost[uri] = (time.perf_counter() - start) * 1000
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # never let one document take the server down
        ls.log(f"agentv-lsp: could not check {uri}: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
    finally:
        task = ls.pending.get(uri)
        if task is asyncio.current_task():
            del ls.pending[uri]
