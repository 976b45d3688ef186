"""Settings and session set-up: `initialize` (initializationOptions.settings, client
capabilities, position encoding, trace), `initialized` (pulls `workspace/configuration`
section `agentv`), `workspace/didChangeConfiguration` and
`workspace/didChangeWorkspaceFolders` (an untrusted workspace may read only its folders)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase, guard
from agentv_lsp.lsp.convert import UTF8, UTF16, UTF32
from agentv_lsp.lsp.document import install
from agentv_lsp.lsp.features.diagnostics import recheck_open_documents
from agentv_lsp.lsp.features.watch import register_watchers, start_looking_for_runs


def register(server: ServerBase) -> None:
    initial: dict[str, Any] = {}

    @server.feature(lsp.INITIALIZE)
    @guard()
    def initialize(ls: ServerBase, params: lsp.InitializeParams) -> None:
        options = params.initialization_options
        raw = options.get("settings") if isinstance(options, dict) else None
        if isinstance(raw, dict):
            initial.update(raw)
        text_caps = params.capabilities.text_document
        ls.supports_pull = bool(text_caps is not None and text_caps.diagnostic is not None)
        encoding = str(ls.workspace.position_encoding or UTF16)
        ls.encoding = encoding if encoding in (UTF8, UTF16, UTF32) else UTF16
        install(ls.workspace)  # documents that apply incremental edits in constant time
        if params.trace is not None:
            ls.protocol.trace = params.trace
        ls.apply_settings(raw if raw is not None else {})

    @server.feature(lsp.INITIALIZED)
    @guard()
    async def initialized(ls: ServerBase, params: lsp.InitializedParams) -> None:
        start_looking_for_runs(ls)
        await fetch_configuration(ls, initial)

        await register_watchers(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guard()
    async def did_change_configuration(ls: ServerBase, params: lsp.DidChangeConfigurationParams) -> None:
        pushed = params.settings.get("agentv") if isinstance(params.settings, dict) else None
        if isinstance(pushed, dict):
            changed = ls.apply_settings({**initial, **pushed})
        else:
            changed = await fetch_configuration(ls, initial)
        if not changed:
            return
        recheck_open_documents(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @guard()
    def did_change_folders(ls: ServerBase, params: lsp.DidChangeWorkspaceFoldersParams) -> None:
        # pygls updates `ls.workspace.folders` first; the folder restriction follows them
        ls.reset_files()
        recheck_open_documents(ls)


async def fetch_configuration(ls: ServerBase, initial: dict[str, Any]) -> bool:
    """Ask the client for section `agentv` (when it can answer); True when settings changed."""
    workspace_caps = ls.client_capabilities.workspace
    if workspace_caps is None or not workspace_caps.configuration:
        return False
    try:
        result = await ls.workspace_configuration_async(
            lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="agentv")])
        )
    except Exception as exc:  # a client that cannot answer keeps the settings it gave at start
        ls.log(f"agentv-lsp: workspace/configuration failed: {exc}", lsp.MessageType.Warning)
        return False
    value = result[0] if result else None
    if value is None or value == {}:
        return False  # the client has no `agentv` settings: keep the initial ones
    return ls.apply_settings({**initial, **value} if isinstance(value, dict) else value)
