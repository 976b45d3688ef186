"""`workspace/didChangeWatchedFiles`: configs, targets files and the files eval cases refer
to changed on disk. Registered dynamically (`client/registerCapability`) when the client
supports it. Cached reads are dropped; cases that mention a changed file (or the whole
file, for a config or targets change) are checked again in every open document."""

from __future__ import annotations

import asyncio
import os

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase, guard
from agentv_lsp.lsp.convert import uri_to_path
from agentv_lsp.lsp.features.codelens import refresh_code_lenses
from agentv_lsp.lsp.features.diagnostics import files_changed
from agentv_lsp.results import EDITOR_RESULTS, runs_stamp

WATCHERS = (
    "**/.agentv/*.yaml",
    "**/.agentv/*.yml",
    "**/targets.yaml",
    "**/targets.yml",
    # files eval cases refer to: prompts, snippets, evaluator prompts, guidelines
    "**/*.{md,txt,py,js,ts,json,yaml,yml,sh}",
    # AgentV's run results: each test's last verdict in its lens and hover
    "**/.agentv/results/runs/**/index.jsonl",
)
RESULTS_PART = f"{os.sep}.agentv{os.sep}results{os.sep}"
REGISTRATION_ID = "agentv-watched-files"
_poller: asyncio.Future[None] | None = None


def register(server: ServerBase) -> None:
    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guard()
    def did_change_watched_files(ls: ServerBase, params: lsp.DidChangeWatchedFilesParams) -> None:
        paths = [p for p in (uri_to_path(change.uri) for change in params.changes) if p]
        # a new or rewritten run changes verdicts (lenses), not what any file checks to
        results = [p for p in paths if RESULTS_PART in p]
        if results:
            EDITOR_RESULTS.clear()
            refresh_code_lenses(ls)
        # an open document's own changes arrive through didChange: not a disk event for us
        files_changed(ls, [p for p in paths if RESULTS_PART not in p])


RESULTS_POLL_SECONDS = 2.0


async def poll_results(ls: ServerBase) -> None:
    """Runs AgentV added or rewrote under the open documents' folders, looked for every few
    seconds: not every client watches files (or reports a folder made after it started
    watching), and a run's verdicts belong in the lenses at once."""
    seen: dict[tuple[str, str], tuple[object, ...]] = {}
    while True:
        await asyncio.sleep(RESULTS_POLL_SECONDS)
        try:
            contexts = {
                ls.context_for(p) for p in (uri_to_path(u) for u in list(ls.workspace.text_documents)) if p
            }
        except RuntimeError:  # no workspace yet
            continue
        changed = False
        for context in contexts:
            stamp = await asyncio.to_thread(runs_stamp, (context[1], context[0]), ls.fs)
            if context in seen and seen[context] != stamp:
                changed = True
            seen[context] = stamp
        if changed:
            EDITOR_RESULTS.clear()
            refresh_code_lenses(ls)


async def _runs_changed(ls: ServerBase, seen: dict[tuple[str, str], tuple[object, ...]]) -> bool:
    paths = [p for p in (uri_to_path(u) for u in list(ls.workspace.text_documents)) if p]
    changed = False
    for context in {ls.context_for(p) for p in paths}:
        stamp = await asyncio.to_thread(runs_stamp, (context[1], context[0]), ls.fs)
        if context in seen and seen[context] != stamp:
            changed = True
        seen[context] = stamp
    return changed


def start_looking_for_runs(ls: ServerBase) -> None:
    """`poll_results`, once per server (from `initialized`)."""
    global _poller
    if _poller is None:
        _poller = asyncio.ensure_future(poll_results(ls))


async def register_watchers(ls: ServerBase) -> None:
    """Ask the client to watch our files (when it supports dynamic registration)."""
    workspace_caps = ls.client_capabilities.workspace
    watch = workspace_caps.did_change_watched_files if workspace_caps else None
    if watch is None or not watch.dynamic_registration:
        return
    options = lsp.DidChangeWatchedFilesRegistrationOptions(
        watchers=[lsp.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHERS]
    )
    try:
        await ls.client_register_capability_async(
            lsp.RegistrationParams(
                registrations=[
                    lsp.Registration(
                        id=REGISTRATION_ID,
                        method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )
    except Exception as exc:
        ls.log(f"agentv-lsp: could not register file watchers: {exc}", lsp.MessageType.Warning)
