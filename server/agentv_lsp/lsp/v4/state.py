"""4.x's per-document state in the language server, owned by `lsp/v4.EDITOR`: each open
document's diagnostics history, the base of its fast (incremental) diagnostics."""

from __future__ import annotations

import threading

from agentv_lsp.lsp.v4.incremental import History


class V4State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.histories: dict[str, History] = {}

    def history_of(self, uri: str) -> History:
        with self.lock:
            found = self.histories.get(uri)
            if found is None:
                found = self.histories[uri] = History()
            return found

    def forget(self, uri: str) -> None:
        with self.lock:
            self.histories.pop(uri, None)


STATE = V4State()
