"""Diagnostics: `initialize`/`initialized` (settings, capabilities, file watchers),
`textDocument/didOpen|didChange|didSave|didClose` (debounced, computed in a worker thread,
pushed with `textDocument/publishDiagnostics`), `textDocument/diagnostic` (pull),
`workspace/didChangeConfiguration` and `workspace/didChangeWatchedFiles` (re-check)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp.convert import to_diagnostic, uri_to_path
from agentv_lsp.lsp.server import AgentVLanguageServer, Analysis

WATCHED = ("**/.agentv/*.yaml", "**/targets.yaml", "**/targets.yml", "**/*.md", "**/*.txt", "**/*.py")


def diagnostics_for(analysis: Analysis) -> list[lsp.Diagnostic]:
    if not analysis.is_agentv:
        return []  # other YAML files are not ours: say nothing about them in the editor
    return [to_diagnostic(d, analysis.lines) for d in analysis.report.diagnostics if d.file == analysis.path]


def register(server: AgentVLanguageServer) -> None:
    init_settings: dict[str, Any] = {}

    @server.feature(lsp.INITIALIZE)
    def on_initialize(ls: AgentVLanguageServer, params: lsp.InitializeParams) -> None:
        options = params.initialization_options
        raw = options.get("settings") if isinstance(options, dict) else None
        if isinstance(raw, dict):
            init_settings.update(raw)
        text_caps = params.capabilities.text_document
        ls.supports_pull = bool(text_caps is not None and text_caps.diagnostic is not None)
        ls.apply_settings(raw)

    @server.feature(lsp.INITIALIZED)
    async def on_initialized(ls: AgentVLanguageServer, params: lsp.InitializedParams) -> None:
        await _fetch_configuration(ls, init_settings)
        workspace_caps = ls.client_capabilities.workspace
        watch = workspace_caps.did_change_watched_files if workspace_caps else None
        if watch is not None and watch.dynamic_registration:
            options = lsp.DidChangeWatchedFilesRegistrationOptions(
                watchers=[lsp.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
            )
            with contextlib.suppress(Exception):
                await ls.client_register_capability_async(
                    lsp.RegistrationParams(
                        registrations=[
                            lsp.Registration(
                                id="agentv-watched-files",
                                method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                register_options=options,
                            )
                        ]
                    )
                )

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: AgentVLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
        settings = params.settings.get("agentv") if isinstance(params.settings, dict) else None
        if isinstance(settings, dict):
            ls.apply_settings({**init_settings, **settings})
        else:
            await _fetch_configuration(ls, init_settings)
        _recheck_open_documents(ls)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AgentVLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: AgentVLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri, ls.settings.debounce_ms / 1000)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: AgentVLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.fs.invalidate([uri_to_path(params.text_document.uri)])
        schedule(ls, params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AgentVLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.forget(uri)
        if not ls.supports_pull:
            ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(
        lsp.TEXT_DOCUMENT_DIAGNOSTIC,
        lsp.DiagnosticOptions(identifier="agentv", inter_file_dependencies=True, workspace_diagnostics=False),
    )
    async def pull(
        ls: AgentVLanguageServer, params: lsp.DocumentDiagnosticParams
    ) -> lsp.DocumentDiagnosticReport:
        analysis = await ls.analyze(params.text_document.uri)
        return lsp.RelatedFullDocumentDiagnosticReport(
            items=diagnostics_for(analysis), result_id=f"{analysis.uri}@{analysis.version}"
        )

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: AgentVLanguageServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        ls.fs.invalidate()  # config, targets or a referenced file changed: nothing cached holds
        _recheck_open_documents(ls)


def _recheck_open_documents(ls: AgentVLanguageServer) -> None:
    ls.analyses.clear()
    if ls.supports_pull:
        with contextlib.suppress(Exception):
            ls.workspace_diagnostic_refresh(None)
        return
    for uri in list(ls.workspace.text_documents):
        schedule(ls, uri, 0)


async def _fetch_configuration(ls: AgentVLanguageServer, init_settings: dict[str, Any]) -> None:
    workspace_caps = ls.client_capabilities.workspace
    if workspace_caps is None or not workspace_caps.configuration:
        return
    try:
        result = await ls.workspace_configuration_async(
            lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="agentv")])
        )
    except Exception as exc:  # a client that cannot answer keeps the initial settings
        ls.log(f"workspace/configuration failed: {exc}")
        return
    if result and isinstance(result[0], dict):
        ls.apply_settings({**init_settings, **result[0]})


def schedule(ls: AgentVLanguageServer, uri: str, delay: float) -> None:
    """(Re)compute and publish diagnostics for `uri` after `delay` seconds of quiet."""
    previous = ls.pending.pop(uri, None)
    if previous is not None:
        previous.cancel()
    ls.pending[uri] = asyncio.get_event_loop().create_task(_publish_later(ls, uri, delay))


async def _publish_later(ls: AgentVLanguageServer, uri: str, delay: float) -> None:
    try:
        if delay:
            await asyncio.sleep(delay)
        if uri not in ls.workspace.text_documents:
            return
        version = ls.workspace.get_text_document(uri).version
        analysis = await ls.analyze(uri)
        current = ls.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return  # a newer edit arrived: its own task publishes
        if not ls.supports_pull:
            ls.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics_for(analysis))
            )
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # never let one document take the server down
        ls.log(f"agentv-lsp: could not check {uri}: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
