"""Diagnostics for documents judged by AgentV 4.42.4: `check_v4_document` on the unsaved
text, pushed (debounced by `features/diagnostics.schedule`, as for v2) or pulled.

Only 4.x AgentV files get any (`*.eval.yaml`, `.agentv/config.yaml|targets.yaml`, an AgentV
`$schema`, or a cases file an eval file names in `tests:`); other YAML gets nothing at all.
A diagnostic the check places in another file is shown on the `tests` key of this document,
naming that file and line, with a link to it.

Large eval files: while edits follow each other, `incremental.fast_diagnostics` answers in
a fraction of the whole-text check's time; the exact check is published once the edits
pause for `incremental.SETTLE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import os
import time

from lsprotocol import types as lsp

from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.lsp.convert import JsonDict, diagnostic_json
from agentv_lsp.lsp.server import AgentVLanguageServer
from agentv_lsp.lsp.v4.incremental import SETTLE_SECONDS, History, fast_diagnostics
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.yamlpos import Span


def history_of(ls: AgentVLanguageServer, uri: str) -> History:
    found = ls.v4_history.get(uri)
    if not isinstance(found, History):
        found = ls.v4_history[uri] = History()
    return found


def diagnostics_json(ls: AgentVLanguageServer, model: V4Model, uri: str | None = None) -> list[JsonDict]:
    """The exact diagnostics (the whole-text check) as the JSON the client receives
    (computed once per version; remembered as the base of later fast answers)."""
    if not model.agentv:
        return []
    encoding = ls.encoding
    generation = ls.generation

    def convert() -> list[JsonDict]:
        report = model.report()
        if uri is not None and model.kind == "eval":
            history_of(ls, uri).remember(model, generation, report.diagnostics)
        return [diagnostic_json(d, model.line, encoding) for d in in_document(model, report.diagnostics)]

    found: list[JsonDict] = model.memoized(("diagnostics", encoding), convert)
    return found


def quick_json(ls: AgentVLanguageServer, model: V4Model, uri: str) -> tuple[list[JsonDict], bool]:
    """(diagnostics, whether they are exact): fast while a large file is being edited."""
    if model.agentv and model.kind == "eval" and ("diagnostics", ls.encoding) not in model.memo:
        history = history_of(ls, uri)
        fast = fast_diagnostics(model, history, ls.generation)
        if fast is not None:
            encoding = ls.encoding
            same_text = history.exact is not None and fast is history.exact.diagnostics
            return [diagnostic_json(d, model.line, encoding) for d in in_document(model, fast)], same_text
    return diagnostics_json(ls, model, uri), True


def in_document(model: V4Model, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics, those about other files moved onto the `tests` key that names them."""
    here = os.path.normcase(os.path.abspath(model.path))
    out: list[Diagnostic] = []
    anchor: Span | None = None
    for d in diagnostics:
        if os.path.normcase(os.path.abspath(d.file)) == here:
            out.append(d)
            continue
        if anchor is None:
            anchor = _tests_key_span(model)
        where = f"{os.path.relpath(d.file, os.path.dirname(model.path))}:{d.span.start_line + 1}"
        out.append(
            Diagnostic(
                model.path,
                anchor,
                d.severity,
                d.code,
                f"{where}: {d.message}",
                d.yaml_path,
                {**d.data, "file": d.file},
                (Related(d.file, d.span, d.message), *d.related),
                d.unnecessary,
            )
        )
    return out


def _tests_key_span(model: V4Model) -> Span:
    doc = model.doc
    for key in ("tests", "eval_cases", "evalcases"):
        node = doc.key_node_at((key,))
        if node is not None:
            return Span.of(node)
    return Span(0, 0, 0, 0)


def _send(
    ls: AgentVLanguageServer, uri: str, version: int | None, model: V4Model, items: list[JsonDict]
) -> bool:
    current = ls.workspace.text_documents.get(uri)
    if current is None or current.version != version:
        return False  # a newer edit arrived: its own task publishes
    if not model.agentv and uri not in ls.published:
        return False  # not ours, nothing to clear
    ls.publish(uri, version, items)
    if items:
        ls.published.add(uri)
    else:
        ls.published.discard(uri)
    return True


async def publish(ls: AgentVLanguageServer, uri: str, version: int | None, model: V4Model) -> None:
    """Publish the diagnostics of `model` unless a newer version arrived meanwhile."""
    start = time.perf_counter()
    history = history_of(ls, uri)
    if history.settling is not None:
        history.settling.cancel()
        history.settling = None
    found = await ls.run_check(
        uri, version, lambda stop: (ls.incomplete_json(model.path, stop), True), quick_json, ls, model, uri
    )
    if found is None:
        return  # stopped: a newer version is checked instead
    items, exact = found
    if not _send(ls, uri, version, model, items):
        return
    elapsed = (time.perf_counter() - start) * 1000
    what = "whole text" if exact else "changed tests only; the whole text follows"
    ls.log(
        f"agentv-lsp: {uri} v{version}: {len(items)} diagnostics in {elapsed:.0f} ms ({what}; "
        f"judged by {model.choice.describe()})"
    )
    if not exact:
        history.settling = asyncio.get_running_loop().create_task(_settle(ls, uri, version, model))


async def _settle(ls: AgentVLanguageServer, uri: str, version: int | None, model: V4Model) -> None:
    """After a fast answer: the exact one, once the edits pause."""
    try:
        await asyncio.sleep(SETTLE_SECONDS)
        current = ls.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return
        items = await asyncio.to_thread(diagnostics_json, ls, model, uri)
        _send(ls, uri, version, model, items)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # never let one document take the server down
        ls.log(f"agentv-lsp: could not check {uri}: {type(exc).__name__}: {exc}", lsp.MessageType.Error)


async def pull(
    ls: AgentVLanguageServer, params: lsp.DocumentDiagnosticParams, model: V4Model
) -> lsp.DocumentDiagnosticReport:
    uri = params.text_document.uri
    document = ls.workspace.text_documents.get(uri)
    result_id = f"{document.version if document else 0}@{ls.generation}"
    if params.previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    items = await asyncio.to_thread(diagnostics_json, ls, model, uri)
    return {"kind": "full", "resultId": result_id, "items": ls.capped(uri, items)}  # type: ignore[return-value]
