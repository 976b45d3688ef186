"""v2's per-document state in the language server, owned by `lsp/v2.EDITOR`: each open
document's units across versions (`model.UnitCache`) and where its diagnostics were last
placed (`publication.Blocks`), kept until the document closes."""

from __future__ import annotations

import threading

from agentv_lsp.lsp.publication import Blocks
from agentv_lsp.lsp.v2.model import UnitCache


class V2State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.caches: dict[str, UnitCache] = {}
        self.blocks: dict[str, Blocks] = {}

    def cache_of(self, uri: str) -> UnitCache:
        with self.lock:
            return self.caches.setdefault(uri, UnitCache())

    def blocks_of(self, uri: str | None) -> Blocks:
        """Where the diagnostics of the document `uri` were placed last (a fresh one for no
        document), kept until it closes (`diagnostics.py`)."""
        with self.lock:
            blocks = self.blocks.get(uri) if uri is not None else None
            if blocks is None:
                blocks = Blocks()
                if uri is not None:
                    self.blocks[uri] = blocks
        return blocks

    def forget(self, uri: str) -> None:
        with self.lock:
            self.blocks.pop(uri, None)
            cache = self.caches.pop(uri, None)
        if cache is not None:
            cache.clear()

    def reset(self) -> None:
        with self.lock:
            caches = list(self.caches.values())
            self.caches.clear()
        for cache in caches:
            cache.clear()

    def files_changed(self, names: set[str]) -> None:
        """Files with these base names changed on disk: drop the units that read them."""
        with self.lock:
            caches = list(self.caches.values())
        for cache in caches:
            context = cache.context
            if context is None:
                continue
            if any(n in context.head or n in context.tail for n in names):
                cache.clear()
                continue
            for unit in list(context.units.values()):
                if any(n in unit.chunk for n in names):
                    unit.forget_files()


STATE = V2State()
