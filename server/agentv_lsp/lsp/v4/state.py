"""4.x's state in the language server, owned by `lsp/v4.EDITOR`: each open document's
diagnostics history (the base of its fast, incremental diagnostics) and the caches the
features keep across versions, bounded, dropped by the editor's `forget`."""

from __future__ import annotations

import threading

from agentv_lsp.lsp.convert import is_file_uri, uri_to_path
from agentv_lsp.lsp.v4.incremental import History
from agentv_lsp.lsp.v4.model import SharedCaches
from agentv_lsp.migrate import Migration

MAX_MIGRATIONS = 64  # documents whose last migration is kept


class V4State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.histories: dict[str, History] = {}
        # each document's last migration: (version, text, migration) (`actions.migration_of`)
        self.migrations_lock = threading.Lock()
        self.migrations: dict[str, tuple[int | None, str, Migration]] = {}
        self.models = SharedCaches()  # handed to every model `EDITOR.build` makes

    def history_of(self, uri: str) -> History:
        with self.lock:
            found = self.histories.get(uri)
            if found is None:
                found = self.histories[uri] = History()
            return found

    def forget(self, uri: str) -> None:
        with self.lock:
            self.histories.pop(uri, None)
        with self.migrations_lock:
            self.migrations.pop(uri, None)  # a copy of the whole text, and more
        if is_file_uri(uri):
            self.models.forget_path(uri_to_path(uri))


STATE = V4State()
