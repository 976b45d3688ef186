"""Diagnostics for documents judged by AgentV 4.42.4: `check_v4_document` on the unsaved
text, pushed (debounced by `features/diagnostics.schedule`, as for v2) or pulled.

Only 4.x AgentV files get any (`*.eval.yaml`, `.agentv/config.yaml|targets.yaml`, an AgentV
`$schema`, or a cases file an eval file names in `tests:`); other YAML gets nothing at all.
A diagnostic the check places in another file is shown on the `tests` key of this document,
naming that file and line, with a link to it.

Large eval files: after an edit inside tests, `incremental.incremental` re-checks only the
tests that changed and gives exactly what the whole-text check gives (else the whole text is
checked); what the last check cost decides the debounce (`features/diagnostics.py`).
"""

from __future__ import annotations

import asyncio
import os
import time

from lsprotocol import types as lsp

from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.lsp.base import ServerBase, Shown
from agentv_lsp.lsp.convert import JsonDict, diagnostic_json
from agentv_lsp.lsp.publication import Placed, all_items
from agentv_lsp.lsp.v4.incremental import SPLIT_MIN_BYTES, History, incremental
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.navigation import document_symbols
from agentv_lsp.lsp.v4.state import STATE
from agentv_lsp.yamlpos import Span


def history_of(ls: ServerBase, uri: str) -> History:
    return STATE.history_of(uri)


def diagnostics_json(ls: ServerBase, model: V4Model, uri: str | None = None) -> list[JsonDict]:
    """The exact diagnostics (the whole-text check) as the JSON the client receives
    (computed once per version; remembered as the base of later fast answers)."""
    if not model.agentv:
        return []
    encoding = ls.encoding
    generation = ls.generation

    def convert() -> list[JsonDict]:
        report = model.report()
        if uri is not None and model.kind == "eval":
            history_of(ls, uri).remember(model, generation, report)
        return [diagnostic_json(d, model.line, encoding) for d in in_document(model, report.diagnostics)]

    found: list[JsonDict] = model.memoized(("diagnostics", encoding), convert)
    return found


def quick_parts(ls: ServerBase, model: V4Model, uri: str) -> tuple[list[Placed], int | None]:
    """(diagnostics in placed parts, how many tests were checked: None for the whole text).
    Exact either way: a large file edited inside its tests re-checks only the tests that
    changed, and keeps the others' converted diagnostics (`publication`)."""
    encoding = ls.encoding

    def compute() -> tuple[list[Placed], int | None]:
        if model.agentv and model.kind == "eval" and ("diagnostics", encoding) not in model.memo:
            history = history_of(ls, uri)
            checked = incremental(model, history, ls.generation)
            if checked is not None:
                with history.lock:
                    history.checked = checked
                return checked.placed(encoding, history.blocks), checked.checked
        return [Placed.of_items(diagnostics_json(ls, model, uri))], None

    found: tuple[list[Placed], int | None] = model.memoized(("diagnostic parts", encoding), compute)
    return found


def quick_json(ls: ServerBase, model: V4Model, uri: str) -> tuple[list[JsonDict], int | None]:
    """`quick_parts` as one list of JSON diagnostics."""
    parts, checked = quick_parts(ls, model, uri)
    return all_items(parts), checked


def quick_shown(ls: ServerBase, model: V4Model, uri: str) -> tuple[Shown, int | None]:
    """What a publication of `quick_parts` shows (computed in the check's worker thread)."""
    parts, checked = quick_parts(ls, model, uri)
    return ls.shown(uri, parts), checked


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


def _send(ls: ServerBase, uri: str, version: int | None, model: V4Model, shown: Shown) -> bool:
    current = ls.workspace.text_documents.get(uri)
    if current is None or current.version != version:
        return False  # a newer edit arrived: its own task publishes
    if not model.agentv and uri not in ls.published:
        return False  # not ours, nothing to clear
    ls.publish(uri, version, shown)
    if shown.total:
        ls.published.add(uri)
    else:
        ls.published.discard(uri)
    return True


async def publish(ls: ServerBase, uri: str, version: int | None, model: V4Model) -> bool:
    """Publish the diagnostics of `model` unless a newer version arrived meanwhile (True:
    published)."""
    start = time.perf_counter()
    history = history_of(ls, uri)
    found = await ls.run_check(
        uri,
        version,
        lambda stop: (ls.shown(uri, [Placed.of_items(ls.incomplete_json(model.path, stop))]), None),
        quick_shown,
        ls,
        model,
        uri,
    )
    if found is None:
        return False  # stopped: a newer version is checked instead
    shown, checked = found
    elapsed = time.perf_counter() - start
    if not _send(ls, uri, version, model, shown):
        return False
    if checked is None and history.pending is not None:
        # before the next edit: the whole-text check cut into parts; the outline, kept test by
        # test, once the edits pause (it loads the whole text: not while someone types)
        history.seeding_task = asyncio.get_running_loop().create_task(asyncio.to_thread(history.base))
        if history.outline_task is not None:
            history.outline_task.cancel()  # (an older version's, not built yet)
        if len(model.text) >= SPLIT_MIN_BYTES:
            history.outline_task = asyncio.get_running_loop().create_task(_outline_when_idle(ls, uri, model))
    what = "whole text" if checked is None else f"{checked} changed test(s) checked, the others kept"
    ls.log(
        f"agentv-lsp: {uri} v{version}: {shown.total} diagnostics in {elapsed * 1000:.0f} ms ({what}; "
        f"judged by {model.choice.describe()})"
    )
    return True


OUTLINE_IDLE_SECONDS = 1.0


async def _outline_when_idle(ls: ServerBase, uri: str, model: V4Model) -> None:
    """The outline of a whole-text checked version (its parsed text at hand), built once no
    edit came for `OUTLINE_IDLE_SECONDS`: later versions then build only their changed
    tests' symbols (an editor asks for the outline after each edit)."""
    try:
        while True:
            document = ls.workspace.text_documents.get(uri)
            if document is None:
                return
            version = document.version
            await asyncio.sleep(OUTLINE_IDLE_SECONDS)
            document = ls.workspace.text_documents.get(uri)
            if document is None:
                return
            if document.version == version:
                await asyncio.to_thread(document_symbols, model, ls.encoding)
                return
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # never let one document take the server down
        ls.log(f"agentv-lsp: outline of {uri} failed: {type(exc).__name__}: {exc}", lsp.MessageType.Error)


def pull_items(ls: ServerBase, model: V4Model, uri: str) -> list[JsonDict]:
    """The diagnostics a client pulls (`textDocument/diagnostic`), as JSON."""
    return quick_json(ls, model, uri)[0]
