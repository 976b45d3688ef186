"""4.x's state in the language server, owned by `lsp/v4.EDITOR`: each open document's
diagnostics history (the base of its fast, incremental diagnostics) and the caches the
features keep across versions, each bounded; what belongs to one document (its history, last
migration and cases-file verdicts) goes with the editor's `forget` when it closes.

The modules above this one reach it as `STATE`; the models' own caches (`model.SharedCaches`,
used by modules this one imports) ride on each model `EDITOR.build` makes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from agentv_lsp.lsp.base import WorkspaceSymbol
from agentv_lsp.lsp.convert import JsonDict, is_file_uri, uri_to_path
from agentv_lsp.lsp.v4.incremental import History
from agentv_lsp.lsp.v4.model import SharedCaches
from agentv_lsp.migrate import Migration

MAX_MIGRATIONS = 64  # documents whose last migration is kept

# a test's symbol at its last place: (line, index, template, symbol), by the test's text
Placed = dict[str, tuple[int, int, JsonDict, JsonDict]]
# a document's test symbols by their text, the same at their last place, and the lock held
# while a whole-text load fills them (`navigation._symbol_table`)
SymbolTable = tuple[dict[str, JsonDict | None], Placed, threading.Lock]


class V4State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.histories: dict[str, History] = {}
        # each document's last migration: (version, text, migration) (`actions.migration_of`)
        self.migrations_lock = threading.Lock()
        self.migrations: dict[str, tuple[int | None, str, Migration]] = {}
        self.models = SharedCaches()  # handed to every model `EDITOR.build` makes
        # the outlines of large files, test by test, least recently used first (at most
        # `navigation.MAX_SYMBOL_TABLES`; kept across versions, by the head and tail's text)
        self.symbol_tables_lock = threading.Lock()
        self.symbol_tables: OrderedDict[tuple[Any, ...], SymbolTable] = OrderedDict()
        # the tests of open documents' texts (`symbols.open_document_tests`), least recently
        # used first, at most `symbols.MAX_REMEMBERED`
        self.open_tests_lock = threading.Lock()
        self.open_tests: OrderedDict[tuple[str, int, int, str, int], list[WorkspaceSymbol]] = OrderedDict()

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
