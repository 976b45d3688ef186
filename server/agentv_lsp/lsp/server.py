"""The AgentV language server (pygls 2): shared state and start-up.

Every LSP method is served by a module under `features/` (each says which); this module
holds what they share, on the server object:
- settings (`settings.Settings`) and the `FileSystem` they configure (size cap, folder
  restriction for untrusted workspaces), reset when settings or watched files change;
- one model per open document version (`model()`), built off the event loop by the
  document's format (`editor.format_for`, from the runtime choice of `formats.runtime`) and
  shared by all requests for that version;
- which documents have diagnostics showing, and the pending debounced checks.

It knows no format: each keeps its own per-document state (`lsp/v2.EDITOR`, `lsp/v4.EDITOR`)
and is told when a document closes or the files a check reads change. Features and formats
see this server as `base.ServerBase`; `create_server` registers the features.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from lsprotocol import types as lsp

from agentv_lsp import __version__
from agentv_lsp.checks.hidden_chars import HIDDEN_CODES
from agentv_lsp.checks.model import CHECK_INCOMPLETE, Diagnostic
from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.engine.budget import Budget, CheckStopped, run_limited
from agentv_lsp.engine.files import FileSystem, find_git_root
from agentv_lsp.engine.gcpause import collect_frozen, collector_paused
from agentv_lsp.formats.runtime import (
    RuntimeChoice,
    choose_runtime,
    forget_project_runtimes,
    parse_requested,
)
from agentv_lsp.lsp import editor, publication
from agentv_lsp.lsp.base import DocumentModel, ServerBase, Shown, guard
from agentv_lsp.lsp.convert import (
    UTF16,
    JsonDict,
    cap_json,
    diagnostic_json,
    is_file_uri,
    no_lines,
    uri_to_path,
)
from agentv_lsp.lsp.document import Edit, EditedDocument, lsp_lines
from agentv_lsp.lsp.lifecycle import Lifecycle
from agentv_lsp.lsp.protocol import AgentVProtocol
from agentv_lsp.lsp.publication import Placed, all_items
from agentv_lsp.lsp.settings import Settings, hidden_allow_list, parse_settings
from agentv_lsp.report import one_line
from agentv_lsp.yamlpos import Span

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Built:
    """The model of one version of a document, and the document's edit state then."""

    version: int | None
    text: str
    state: tuple[int, int] | None
    model: DocumentModel


class AgentVLanguageServer(ServerBase):
    def __init__(self) -> None:
        super().__init__(
            "agentv-lsp",
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=AgentVProtocol,
        )
        self.settings = Settings()
        self.fs = FileSystem()
        self.generation = 0  # bumped whenever what a check reads may have changed
        self.supports_pull = False
        self.encoding = UTF16
        self.pending: dict[str, asyncio.Task[Any]] = {}
        # the running diagnostics check of each document: cancelled when a newer one starts
        self.budgets: dict[str, Budget] = {}
        self.published: set[str] = set()  # uris whose last published diagnostics were not empty
        self._options: dict[tuple[str, str], CheckOptions] = {}
        self._models: dict[str, Built] = {}
        self._lines: dict[str, tuple[int | None, str, list[str]]] = {}
        self._building: dict[str, tuple[int | None, str, asyncio.Future[DocumentModel | None]]] = {}
        # per document: the version whose model build ran past the check budget, and why
        self._build_stopped: dict[str, tuple[int | None, str, CheckStopped]] = {}
        # the runtime judging each document, with what it was chosen from (see `runtime_of`)
        self._runtimes: dict[str, tuple[tuple[str, int, str], str, bool, RuntimeChoice]] = {}
        self._marker_free: dict[str, str] = {}  # per document: its last text known to hold no v2 marker
        self._lock = threading.Lock()
        # called with the paths of files that changed on disk (features drop their caches)
        self._shown_problems: set[str] = set()
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        self.file_listeners: list[Callable[[list[str]], None]] = []
        # called with the uri of an open document whose text the client set (opened or changed)
        self.document_listeners: list[Callable[[str], None]] = []
        # called with the uri of a document the client closed (features drop what they keep for it)
        self.close_listeners: list[Callable[[str], None]] = []
        self.lifecycle = Lifecycle(self.stop_checks)

    # -- settings and workspace ------------------------------------------------------------
    def warn_once(self, problems: Iterable[str]) -> None:
        """A warning message per problem, the first time it is met (a bad setting, a package.json
        that `auto` runtime detection passed over)."""
        for problem in problems:
            if problem in self._shown_problems:
                continue
            self._shown_problems.add(problem)
            params = lsp.ShowMessageParams(
                type=lsp.MessageType.Warning, message=f"agentv-lsp: {one_line(problem)}"
            )
            loop = self._event_loop
            if loop is not None and threading.get_ident() != self._loop_thread:
                # models are built in worker threads: the message goes out from the event loop,
                # never interleaved with another write to the client
                loop.call_soon_threadsafe(self.window_show_message, params)
            else:
                self.window_show_message(params)

    def apply_settings(self, raw: Any) -> bool:
        """Take new settings (a bad value: a warning, once, and its default; never a crash).
        True when they changed."""
        settings = parse_settings(raw)
        self.warn_once(settings.problems)
        if settings == self.settings:
            return False
        reads_differently = (
            settings.trusted_workspace,
            settings.max_file_size_kb,
            settings.runtime,
            settings.hidden_allow,
            settings.eval_file_patterns,
        ) != (
            self.settings.trusted_workspace,
            self.settings.max_file_size_kb,
            self.settings.runtime,  # another runtime: every model is built again
            self.settings.hidden_allow,  # other check options: every check again
            self.settings.eval_file_patterns,  # other eval files
        )
        self.settings = settings
        if reads_differently:
            self.reset_files()
        return True

    def reset_files(self) -> None:
        """A fresh FileSystem for the current settings and folders: nothing cached survives."""
        roots = (
            None
            if self.settings.trusted_workspace
            else tuple(os.path.realpath(r) for r in self.workspace_roots())
        )
        self.fs = FileSystem(max_bytes=self.settings.max_file_size_kb * 1024, allowed_roots=roots)
        with self._lock:
            self.generation += 1
            self._options.clear()
            self._models.clear()
        for format_ in editor.formats():
            format_.reset()

    def invalidate(self, paths: Iterable[str]) -> None:
        """Files changed on disk: forget what was read from them, and the checks that read them."""
        changed = list(paths)
        self.fs.invalidate(changed)
        names = {os.path.basename(p) for p in changed}
        if "package.json" in names or any("node_modules" in p for p in changed):
            forget_project_runtimes()  # which AgentV a project installs may have changed
        for format_ in editor.formats():
            format_.files_changed(names)  # each drops what it kept from those (read afresh: fs above)
        with self._lock:
            self.generation += 1
            self._models.clear()

    def workspace_roots(self) -> list[str]:
        try:
            folders = list(self.workspace.folders.values())
        except RuntimeError:  # before initialize
            return []
        return [uri_to_path(folder.uri) for folder in folders]

    def context_for(self, path: str) -> tuple[str, str]:
        """(repo root, cwd) for a document, as `agentv` run from its workspace folder sees them:
        cwd is the folder, the repo root the folder's git root (else the folder itself)."""
        roots = [r for r in self.workspace_roots() if path == r or path.startswith(r.rstrip(os.sep) + os.sep)]
        folder = max(roots, key=len) if roots else os.path.dirname(path)
        return find_git_root(folder) or folder, folder

    def options_for(self, path: str) -> CheckOptions:
        key = self.context_for(path)
        with self._lock:
            found = self._options.get(key)
            if found is None:
                found = self._options[key] = CheckOptions(
                    repo_root=key[0],
                    cwd=key[1],
                    fs=self.fs,
                    allow_hidden=hidden_allow_list(self.settings),
                    eval_globs=self.settings.eval_file_patterns,
                )
            return found

    # -- logging ------------------------------------------------------------------------------
    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        """window/logMessage: errors and warnings always, the rest when the client turned
        tracing on ($/setTrace)."""
        if (
            kind in (lsp.MessageType.Error, lsp.MessageType.Warning)
            or self.protocol.trace != lsp.TraceValue.Off
        ):
            self.window_log_message(lsp.LogMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        self.log(f"agentv-lsp: internal error: {type(error).__name__}: {error}", lsp.MessageType.Error)

    # -- documents ------------------------------------------------------------------------------
    def is_open(self, uri: str) -> bool:
        return uri in self.workspace.text_documents

    def document_changed(self, uri: str) -> None:
        for listener in self.document_listeners:
            listener(uri)

    def runtime_of(
        self, uri: str, path: str, text: str, repo_root: str, edit: tuple[str, Edit] | None = None
    ) -> RuntimeChoice:
        """The AgentV that judges a document (`formats.runtime`), chosen again only when its
        text, the setting or the files it reads (generation) change, and kept when the text
        changed without gaining or losing the v2 markers. `edit`: the text before and the one
        edit that made `text` of it (then only the edited place is looked at for markers)."""
        from agentv_lsp.formats.runtime import text_declares_v2

        settings = (self.settings.runtime, self.generation, repo_root)
        found = self._runtimes.get(uri)
        if found is not None and found[0] == settings and found[1] is text:
            return found[3]
        if (
            found is not None
            and found[0] == settings
            and edit is not None
            and found[1] is edit[0]
            and self._marker_free.get(uri) is edit[0]
        ):
            # no marker before: a new one overlaps the edit (a 4 MB text holding one emoji
            # takes 8 ms per scan; a keystroke would pay for two)
            start = edit[1].start
            window = text[max(0, start - 9) : start + len(edit[1].text) + 9]
            if "evalcases" not in window and "agentv-" not in window:
                self._runtimes[uri] = (settings, text, False, found[3])
                self._marker_free[uri] = text
                return found[3]
        # the substring test first: a 6 MB text without the markers is scanned in 2 ms, not 80
        markers = "evalcases" in text or "agentv-" in text
        if markers:
            self._marker_free.pop(uri, None)
        else:
            self._marker_free[uri] = text
        declares_v2 = markers and text_declares_v2(text)
        if found is not None and found[0] == settings and found[2] == declares_v2:
            choice = found[3]
        else:
            # the server's reads: in an untrusted workspace no manifest outside its folders either
            choice = choose_runtime(path, text, repo_root, parse_requested(self.settings.runtime), self.fs)
            self.warn_once(choice.problems)
        self._runtimes[uri] = (settings, text, declares_v2, choice)
        return choice

    def build_model(
        self, uri: str, version: int | None, text: str, state: Any = None, edits: list[Edit] | None = None
    ) -> DocumentModel | None:
        """The model of one version (cached), built by the document's format; runs in a worker
        thread. With the edits since the last model, the cases they did not touch are taken
        over from it."""
        if not is_file_uri(uri):
            return None
        cached = self._models.get(uri)
        if cached is not None and cached.version == version and cached.text is text:
            return cached.model
        path = uri_to_path(uri)
        opts = self.options_for(path)
        one_edit = (cached.text, edits[0]) if cached is not None and edits and len(edits) == 1 else None
        choice = self.runtime_of(uri, path, text, opts.repo_root, one_edit)
        previous = cached.model if cached is not None else None
        try:
            model = editor.format_for(choice, path, text).build(
                self, uri, path, text, choice, opts, version, previous, edits
            )
        finally:
            # closed while this build ran in a worker thread (closing also stops the build):
            # what the build kept for the document (a format's unit cache) would outlive it
            closed = uri not in self.workspace.text_documents
            if closed:
                for format_ in editor.formats():
                    format_.forget(uri)
        if closed:
            return model
        with self._lock:
            latest = self._models.get(uri)
            if latest is None or latest is cached or (latest.version or 0) <= (version or 0):
                self._models[uri] = Built(version, text, state, model)
        return model

    async def model(self, uri: str) -> DocumentModel | None:
        """The model of the open document's current version (None when not open). One build
        per document at a time: a build runs in a worker thread that cancelling its caller does
        not stop, so a newer version waits for an older one's build instead of queueing one build
        per edit (an edit storm once queued 2,000, over 1 GB); it then starts from that model."""
        while True:
            document = self.workspace.text_documents.get(uri)
            if document is None:
                return None
            version, text = document.version, document.source
            cached = self._models.get(uri)
            if cached is not None and cached.version == version and cached.text is text:
                return cached.model
            stopped = self._build_stopped.get(uri)
            if stopped is not None and stopped[0] == version and stopped[1] is text:
                raise stopped[2]  # this version's build ran out of time once: not again per request
            building = self._building.get(uri)
            if building is None or (building[0] == version and building[1] is text) or building[2].done():
                break
            with contextlib.suppress(Exception):  # its failure is logged by `_built`
                await asyncio.shield(building[2])
        if self._event_loop is None:
            self._event_loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()
        if building is None or building[0] != version or building[1] is not text:
            state = document.state if isinstance(document, EditedDocument) else None
            edits = None
            if cached is not None and state is not None and cached.state is not None:
                edits = document.edits_since(*cached.state)
            # the budget of a check: building parses the text (a v2 model, a file naming its
            # AgentV `$schema`), which may take the exact reader long (`engine.budget`)
            budget = Budget(self.settings.check_budget_ms / 1000, uri)
            future = asyncio.ensure_future(
                asyncio.to_thread(
                    _paused, run_limited, budget, self.build_model, uri, version, text, state, edits
                )
            )
            building = self._building[uri] = (version, text, future)
            future.add_done_callback(functools.partial(self._built, uri, version, text))
        return await asyncio.shield(building[2])

    def _built(
        self, uri: str, version: int | None, text: str, future: asyncio.Future[DocumentModel | None]
    ) -> None:
        building = self._building.get(uri)
        if building is not None and building[2] is future:
            del self._building[uri]
        if not future.cancelled() and future.exception() is not None:
            exc = future.exception()
            if isinstance(exc, CheckStopped):
                self._build_stopped[uri] = (version, text, exc)
                self.log(
                    f"agentv-lsp: {uri} v{version}: reading it stopped after {exc.seconds:.1f} s (the check budget)"
                )
                return
            self.log(f"agentv-lsp: could not read {uri}: {type(exc).__name__}: {exc}", lsp.MessageType.Error)

    def document_lines(self, uri: str) -> list[str] | None:
        """The open document's lines as LSP numbers them (split once per version)."""
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        cached = self._lines.get(uri)
        if cached is not None and cached[0] == document.version and cached[1] is document.source:
            found: list[str] = cached[2]
            return found
        lines = lsp_lines(document.source)
        self._lines[uri] = (document.version, document.source, lines)
        return lines

    def forget(self, uri: str) -> None:
        """A document was closed: drop everything kept for it (each format its own)."""
        for format_ in editor.formats():
            format_.forget(uri)
        for listener in self.close_listeners:
            listener(uri)
        self._lines.pop(uri, None)
        self._build_stopped.pop(uri, None)
        self._runtimes.pop(uri, None)
        self._marker_free.pop(uri, None)
        self._models.pop(uri, None)
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.stop_check(uri)
        collect_frozen()  # the closed document's cyclic garbage, frozen after its checks

    # -- checks in worker threads: stopped when stale or over budget (`engine.budget`) ------
    def stop_check(self, uri: str) -> None:
        budget = self.budgets.pop(uri, None)
        if budget is not None:
            budget.cancel()

    def stop_checks(self) -> None:
        for uri in list(self.budgets):
            self.stop_check(uri)

    async def run_check(
        self,
        uri: str,
        version: int | None,
        over_budget: Callable[[CheckStopped], T],
        work: Callable[..., T],
        *args: Any,
    ) -> T | None:
        """`work(*args)` in a worker thread. A newer check of `uri` stops it (None, logged);
        past `agentv.checkTimeBudgetMs` it stops too, and `over_budget` says what to publish."""
        self.stop_check(uri)
        budget = self.budgets[uri] = Budget(self.settings.check_budget_ms / 1000, uri)
        try:
            return await asyncio.to_thread(_paused, run_limited, budget, work, *args)
        except CheckStopped as stop:
            if stop.reason == "budget":
                return over_budget(stop)
            self.log(
                f"agentv-lsp: {uri} v{version}: check stopped after {stop.seconds:.2f} s (a newer version came)"
            )
            return None
        finally:
            if self.budgets.get(uri) is budget:
                del self.budgets[uri]

    def incomplete_json(self, path: str, stop: CheckStopped) -> list[JsonDict]:
        """What a check that ran out of time publishes: one diagnostic saying so."""
        name = os.path.basename(path)
        message = (
            f"This file was too complex to check completely within {stop.seconds:.1f} s "
            f"(the agentv.checkTimeBudgetMs setting, {self.settings.check_budget_ms} ms): its diagnostics "
            f"are not shown. `agentv-lsp check {name}` in a terminal checks it without a time limit."
        )
        diagnostic = Diagnostic(
            path, Span(0, 0, 0, 0), "warning", CHECK_INCOMPLETE, message, data={"seconds": stop.seconds}
        )
        return [diagnostic_json(diagnostic, no_lines)]

    def publish_incomplete(self, uri: str, version: int | None, stop: CheckStopped) -> None:
        """Reading the document (building its model) ran out of time: say so, as a check does."""
        document = self.workspace.text_documents.get(uri)
        if document is None or document.version != version or not is_file_uri(uri):
            return
        self.publish(
            uri, version, self.shown(uri, [Placed.of_items(self.incomplete_json(uri_to_path(uri), stop))])
        )
        self.published.add(uri)

    def _cap(self, uri: str) -> tuple[int, str, str]:
        """How a file's diagnostics are capped: at most `agentv.maxDiagnosticsPerFile`, and the
        file's name and how to raise the limit for the diagnostic that says how many more there are."""
        path = uri_to_path(uri) if is_file_uri(uri) else uri
        return self.settings.max_diagnostics, path, "the agentv.maxDiagnosticsPerFile setting"

    def capped(self, uri: str, diagnostics: list[JsonDict]) -> list[JsonDict]:
        """At most `agentv.maxDiagnosticsPerFile` diagnostics, errors first, and one that says
        how many more there are (`checks.model.cap_diagnostics`)."""
        return cap_json(diagnostics, *self._cap(uri))

    def shown(self, uri: str, parts: list[Placed]) -> Shown:
        """What a publication of `parts` shows: at most `agentv.maxDiagnosticsPerFile`, errors
        first, and one that says how many more there are (`capped`), encoded (in the check's
        worker thread: only those shown are converted)."""
        if self.settings.hidden_as_error:  # copies: the JSON of a case is cached and reused
            items = [{**d, "severity": 1} if d.get("code") in HIDDEN_CODES else d for d in all_items(parts)]
            parts = [Placed.of_items(items)]
        return Shown(publication.shown(parts, *self._cap(uri)), publication.count(parts))

    def publish(self, uri: str, version: int | None, shown: Shown) -> None:
        """textDocument/publishDiagnostics of what `shown` encoded: written as it is (the
        typed path would rebuild and encode thousands of objects for every edit)."""
        protocol = self.protocol
        assert isinstance(protocol, AgentVProtocol)
        protocol.write_encoded(publication.message(uri, version, shown.encoded))


__all__ = ["AgentVLanguageServer", "Built", "Shown", "create_server", "guard", "run_server"]


def create_server() -> AgentVLanguageServer:
    from agentv_lsp.lsp.features import (
        actions,
        codelens,
        commands,
        completion,
        configuration,
        diagnostics,
        hover,
        links,
        prompt_diff,
        symbols,
        testing,
        watch,
        workspace_edits,
    )

    server = AgentVLanguageServer()
    for feature in (
        configuration,
        diagnostics,
        watch,
        commands,
        hover,
        codelens,
        symbols,
        links,
        completion,
        actions,
        workspace_edits,
        prompt_diff,
        testing,
    ):
        feature.register(server)
    return server


def _paused(work: Callable[..., T], *args: Any) -> T:
    """Work of a worker thread, with the collector paused and what survives it frozen
    (`gcpause`): requests on the event loop are not held up by collections meanwhile."""
    with collector_paused(freeze_survivors=True):
        return work(*args)


def run_server(tcp: str | None = None) -> int:
    """`agentv-lsp serve`: LSP over stdio, or over TCP with `--tcp HOST:PORT`."""
    server = create_server()
    server.lifecycle.ends_process = True  # `exit` and a dead client end the process at once
    # The trees of a large open document are millions of long-lived objects. With Python's
    # default thresholds a full collection (about 1 s at 10,000 cases, holding the GIL, so
    # every request waits) came every few seconds of editing; these make it rare. Reference
    # counting still frees everything that is not in a cycle at once.
    gc.set_threshold(10_000, 50, 100)
    # Checks run in worker threads: a request answered on the event loop (or in a thread of its
    # own) waits for the GIL in steps of this interval (5 ms by default), several per request.
    # The interval only matters while two threads want the GIL (a check and a request, two
    # checks); 0.2 ms halved a hover's median while a large document was checked.
    sys.setswitchinterval(0.0002)
    gc.freeze()  # what start-up imported is never garbage: full collections skip it
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        from agentv_lsp.lsp.stdio import serve_stdio

        serve_stdio(server)
    return 0
