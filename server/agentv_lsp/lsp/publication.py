"""`textDocument/publishDiagnostics` for a large file in O(shown) work, not O(diagnostics).

A file's diagnostics come in parts (a test's or a case's, the file's own), each `Placed` at
its place in the file: its sort keys (severity, line, character) at once, its JSON and the
encoded text of that JSON only for the diagnostics that are shown. A part that did not move
keeps its `Placed` (cached by the formats' incremental models), so after an edit inside one
test of 10,000 only the changed tests and the shown diagnostics of the tests that moved are
converted and encoded again, and the message is the encoded pieces joined.

What is shown is exactly what `convert.cap_json` keeps of all the parts' JSON in order (the
first `agentv.maxDiagnosticsPerFile` by severity, then position, and one diagnostic saying how
many more there are); `tests/lsp/test_publication.py` compares both.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence

from agentv_lsp.checks.model import SEVERITY_RANK, select_capped, too_many_diagnostics
from agentv_lsp.lsp.convert import _SEVERITY_NAMES, JsonDict, diagnostic_json, no_lines

Key = tuple[int, int, int]  # LSP severity, start line, start character (file coordinates)


class Placed:
    """One part's diagnostics at one place in the file (JSON built when first asked)."""

    __slots__ = ("_encoded", "_items", "_make", "keys")

    def __init__(self, keys: list[Key], make: Callable[[int], JsonDict]) -> None:
        self.keys = keys
        self._make = make
        self._items: list[JsonDict | None] = [None] * len(keys)
        self._encoded: list[str | None] = [None] * len(keys)

    @classmethod
    def of_items(cls, items: list[JsonDict]) -> Placed:
        """Diagnostics already converted (a whole-text check, the file's own)."""
        placed = cls([_key(item) for item in items], items.__getitem__)
        placed._items = list(items)
        return placed

    def item(self, index: int) -> JsonDict:
        found = self._items[index]
        if found is None:
            found = self._items[index] = self._make(index)
        return found

    def encoded(self, index: int) -> str:
        found = self._encoded[index]
        if found is None:
            found = self._encoded[index] = json.dumps(self.item(index))
        return found

    def items(self) -> list[JsonDict]:
        return [self.item(i) for i in range(len(self.keys))]


def _key(item: JsonDict) -> Key:
    start = item["range"]["start"]
    return item["severity"], start["line"], start["character"]


def all_items(parts: Sequence[Placed]) -> list[JsonDict]:
    return [item for part in parts for item in part.items()]


def count(parts: Sequence[Placed]) -> int:
    return sum(len(part.keys) for part in parts)


def shown(parts: Sequence[Placed], limit: int, path: str, how_to_raise: str) -> list[str]:
    """The encoded JSON of the diagnostics `cap_json` keeps of the parts' items, in its order."""
    total = count(parts)
    if limit <= 0 or total <= limit:
        return [part.encoded(i) for part in parts for i in range(len(part.keys))]
    where = [(part, i) for part in parts for i in range(len(part.keys))]
    keys = [key for part in parts for key in part.keys]
    chosen = _in_position_order(keys, limit)
    if chosen is None:
        chosen = select_capped([(_SEVERITY_NAMES[k[0]], k[1], k[2]) for k in keys], limit)
    hidden = Counter(_SEVERITY_NAMES[k[0]] for k in keys)
    hidden.subtract(_SEVERITY_NAMES[keys[i][0]] for i in chosen)
    hidden = +hidden
    summary = too_many_diagnostics(path, hidden, limit, how_to_raise)
    out = [where[i][0].encoded(where[i][1]) for i in chosen]
    out.append(json.dumps(diagnostic_json(summary, no_lines)))
    return out


def _in_position_order(keys: list[Key], limit: int) -> list[int] | None:
    """`convert._in_position_order` on integer severities (the same choice, in the same order)."""
    previous = (-1, -1)
    for key in keys:
        here = (key[1], key[2])
        if here < previous:
            return None
        previous = here
    by_severity: dict[int, list[int]] = {}
    for index, key in enumerate(keys):
        by_severity.setdefault(key[0], []).append(index)
    chosen: list[int] = []
    for severity in sorted(by_severity, key=lambda s: SEVERITY_RANK[_SEVERITY_NAMES[s]]):
        chosen.extend(by_severity[severity][: limit - len(chosen)])
        if len(chosen) >= limit:
            break
    return sorted(chosen)


def message(uri: str, version: int | None, diagnostics: list[str]) -> bytes:
    """The whole publishDiagnostics notification, as pygls would write it (ASCII JSON)."""
    params = '{"uri": ' + json.dumps(uri)
    if version is not None:
        params += ', "version": ' + json.dumps(version)
    params += ', "diagnostics": [' + ", ".join(diagnostics) + "]}"
    return (
        '{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": ' + params + "}"
    ).encode()
