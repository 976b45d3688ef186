"""`textDocument/documentSymbol` (one symbol per eval case, named by its id, with its
messages and evaluators inside while the outline stays within 5,000 symbols, else the cases
alone: `lsp/listing.py`; sent as JSON text made once per version; `lsp/v2/symbols.py`,
`lsp/v4/symbols.py`) and `workspace/symbol` (case ids across the open documents and the eval
files on disk in the workspace folders; the folder walk skips `node_modules` and dot-folders,
and each file is read again only when it changed). Every file is asked of every format
(`EditorFormat.open_symbols`, `.disk_symbols`): v2 case ids, and 4.x eval files add the ids
of the tests they load."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.files import FileReadError
from agentv_lsp.engine.walk import walk_yaml
from agentv_lsp.lsp import listing
from agentv_lsp.lsp.base import ServerBase, WorkspaceSymbol, guard
from agentv_lsp.lsp.convert import JsonDict, path_to_uri, uri_to_path
from agentv_lsp.lsp.editor import EditorFormat, format_of, formats
from agentv_lsp.lsp.protocol import RawJson

MAX_RESULTS = 500
WALK_TTL = 30.0  # seconds a folder listing is trusted without a watched-file event


Stamp = tuple[Any, ...]  # what a file's findings were made from: mtime, size (and more)


@dataclass
class WorkspaceIndex:
    """Each format's tests (case ids) of the eval files on disk, by format and file (re-read
    when mtime or size, or what the format stamps them with, change)."""

    files: dict[tuple[str, str], tuple[Stamp, list[WorkspaceSymbol]]] = field(default_factory=dict)
    listing: dict[str, tuple[float, list[str]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def forget_listings(self) -> None:
        with self.lock:
            self.listing.clear()

    def paths(self, root: str) -> list[str]:
        with self.lock:
            found = self.listing.get(root)
        if found is None or time.monotonic() - found[0] > WALK_TTL:
            found = (time.monotonic(), list(walk_yaml(root)))
            with self.lock:
                self.listing[root] = found
        return found[1]

    def symbols(self, ls: ServerBase, format_: EditorFormat, path: str) -> list[WorkspaceSymbol]:
        """The tests the format finds in a file on disk (again when it, or what the format
        stamps them with, changes)."""
        stamp = format_.disk_stamp(ls, path)
        if stamp is None:
            return []
        return self._on_disk(
            (format_.name, path), ls, path, stamp, lambda text: format_.disk_symbols(ls, path, text)
        )

    def _on_disk(
        self,
        entry: tuple[str, str],
        ls: ServerBase,
        path: str,
        stamp: Stamp,
        find: Callable[[str], list[WorkspaceSymbol]],
    ) -> list[WorkspaceSymbol]:
        """What `find` finds in an eval file's text on disk, kept as `entry` until the file's
        mtime or size (or `stamp`) change. Nothing for a file the server may not read (outside
        the allowed files, or over the size limit); "" is read when reading fails."""
        try:
            info = ls.fs.stat(path)
        except (OSError, ValueError):
            return []
        key = (info.st_mtime_ns, info.st_size, *stamp)
        with self.lock:
            cached = self.files.get(entry)
        if cached is not None and cached[0] == key:
            return cached[1]
        found: list[WorkspaceSymbol] = []
        if ls.fs.is_allowed(path) and info.st_size <= ls.fs.max_bytes:
            # through the FileSystem: a FIFO or device with an eval file's name is refused, not waited on
            try:
                ls.fs.invalidate([path])  # its mtime or size changed: what the FileSystem kept is old
                read = ls.fs.read(path)
                text = "" if read.truncated else read.text
            except FileReadError:
                text = ""
            found = find(text)
        with self.lock:
            self.files[entry] = (key, found)
        return found


def workspace_symbols(ls: ServerBase, index: WorkspaceIndex, query: str) -> list[lsp.SymbolInformation]:
    needle = query.lower()
    found: list[lsp.SymbolInformation] = []
    open_docs = {uri_to_path(uri): doc.source for uri, doc in list(ls.workspace.text_documents.items())}
    seen: set[str] = set()

    def add(tests: list[WorkspaceSymbol], container: str) -> None:
        for case_id, path, line in tests:
            if needle in case_id.lower() and len(found) < MAX_RESULTS:
                where = lsp.Range(
                    start=lsp.Position(line=line, character=0), end=lsp.Position(line=line, character=0)
                )
                found.append(
                    lsp.SymbolInformation(
                        name=case_id,
                        kind=lsp.SymbolKind.Object,
                        location=lsp.Location(uri=path_to_uri(path), range=where),
                        container_name=container,
                    )
                )

    every = formats()
    for path, text in open_docs.items():
        seen.add(path)
        for format_ in every:
            add(format_.open_symbols(ls, path, text), os.path.basename(path))
    for root in ls.workspace_roots():
        for path in index.paths(root):
            if path not in seen:
                seen.add(path)
                for format_ in every:
                    add(index.symbols(ls, format_, path), os.path.relpath(path, root))
            if len(found) >= MAX_RESULTS:
                return found
    return found


def register(server: ServerBase) -> None:
    index = WorkspaceIndex()
    server.file_listeners.append(lambda paths: index.forget_listings())
    tables = listing.PerDocument(listing.OutlineTable)
    server.close_listeners.append(tables.forget)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guard([])
    async def document_symbol(ls: ServerBase, params: lsp.DocumentSymbolParams) -> RawJson | list[JsonDict]:
        uri = params.text_document.uri
        model = await ls.model(uri)
        if model is None or model.kind != "eval":
            return []
        table = tables.of(uri)
        outline_json = format_of(model).outline_json
        found = await asyncio.to_thread(
            listing.per_version,
            model,
            ("outline json", ls.encoding),
            lambda: outline_json(model, table, ls.encoding),
        )
        return found  # type: ignore[no-any-return]

    @server.feature(lsp.WORKSPACE_SYMBOL)
    @guard([])
    async def workspace_symbol(
        ls: ServerBase, params: lsp.WorkspaceSymbolParams
    ) -> list[lsp.SymbolInformation]:
        return await asyncio.to_thread(workspace_symbols, ls, index, params.query)
