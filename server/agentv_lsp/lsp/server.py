"""The AgentV language server (pygls 2): state, document analysis cache, and start-up.

Every feature lives in its own module under `features/` and registers its handlers on the
server; this module only holds what they share. Analysis (the same `check_document` that
`agentv-lsp check` runs) is computed off the event loop, once per (uri, version).
"""

from __future__ import annotations

import asyncio
import bisect
import os
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from agentv_lsp import __version__
from agentv_lsp.checks.document import CheckOptions, DocumentReport, check_document
from agentv_lsp.engine.files import FileSystem, find_git_root
from agentv_lsp.engine.loader import EvalFile
from agentv_lsp.lsp.convert import uri_to_path
from agentv_lsp.lsp.settings import Settings, parse_settings

AGENTV_SCHEMAS = ("agentv-eval-v2", "agentv-config-v2", "agentv-targets-v2.2")


@dataclass
class Analysis:
    """What the server knows about one version of one document."""

    uri: str
    version: int | None
    path: str
    text: str
    lines: list[str]
    report: DocumentReport
    case_lines: list[int] = field(default_factory=list)  # first line of each eval case

    @property
    def eval_file(self) -> EvalFile | None:
        return self.report.eval_file

    @property
    def is_agentv(self) -> bool:
        """Ours: declares an AgentV $schema, or lives at .agentv/config.yaml|targets.yaml."""
        if self.report.kind is not None:
            return True
        name = os.path.basename(self.path)
        return os.path.basename(os.path.dirname(self.path)) == ".agentv" and name in (
            "config.yaml",
            "targets.yaml",
        )

    def case_at(self, line: int) -> int | None:
        """Index of the eval case whose block contains `line`."""
        if not self.case_lines:
            return None
        index = bisect.bisect_right(self.case_lines, line) - 1
        return index if index >= 0 else None


class AgentVLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("agentv-lsp", __version__)
        self.settings = Settings()
        self.fs = FileSystem()
        self.analyses: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.Task[Any]] = {}
        self.supports_pull = False

    # -- configuration ---------------------------------------------------------------------
    def apply_settings(self, raw: Any) -> None:
        settings = parse_settings(raw)
        for problem in settings.problems:
            self.window_show_message(
                lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=f"agentv-lsp: {problem}")
            )
        self.settings = settings
        roots = None if settings.trusted_workspace else tuple(self.workspace_roots())
        self.fs = FileSystem(max_bytes=settings.max_file_size_kb * 1024, allowed_roots=roots)
        self.analyses.clear()

    def workspace_roots(self) -> list[str]:
        return [uri_to_path(folder.uri) for folder in self.workspace.folders.values()]

    def context_for(self, path: str) -> tuple[str, str]:
        """(repo root, cwd) for a document: the workspace folder holding it stands in for
        AgentV's working directory; the repo root is that folder's git root."""
        folders = sorted((r for r in self.workspace_roots() if path.startswith(r.rstrip("/") + "/")), key=len)
        folder = folders[-1] if folders else os.path.dirname(path)
        repo_root = find_git_root(folder) or find_git_root(os.path.dirname(path)) or folder
        return repo_root, folder

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        self.window_log_message(lsp.LogMessageParams(type=kind, message=message))

    # -- analysis --------------------------------------------------------------------------
    def analyze_now(self, uri: str) -> Analysis:
        document = self.workspace.get_text_document(uri)
        cached = self.analyses.get(uri)
        if cached is not None and cached.version == document.version and cached.text == document.source:
            return cached
        path = uri_to_path(uri)
        repo_root, cwd = self.context_for(path)
        text = document.source
        report = check_document(path, text, CheckOptions(repo_root=repo_root, cwd=cwd, fs=self.fs))
        analysis = Analysis(uri, document.version, path, text, text.split("\n"), report)
        if report.eval_file is not None and report.eval_file.loaded:
            cases = report.eval_file.doc.node_at(("evalcases",))
            if cases is not None:
                analysis.case_lines = [item.start_mark.line for item in cases.value]
        self.analyses[uri] = analysis
        return analysis

    async def analyze(self, uri: str) -> Analysis:
        """The analysis of the document's current version, computed in a worker thread."""
        document = self.workspace.get_text_document(uri)
        cached = self.analyses.get(uri)
        if cached is not None and cached.version == document.version and cached.text == document.source:
            return cached
        return await asyncio.to_thread(self.analyze_now, uri)

    def forget(self, uri: str) -> None:
        self.analyses.pop(uri, None)
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()


def create_server() -> AgentVLanguageServer:
    from agentv_lsp.lsp.features import (
        actions,
        codelens,
        commands,
        completion,
        diagnostics,
        hover,
        links,
        symbols,
    )

    server = AgentVLanguageServer()
    for feature in (diagnostics, hover, commands, codelens, symbols, links, completion, actions):
        feature.register(server)
    return server


def run_server(tcp: str | None = None) -> int:
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0
