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

import bisect
import heapq
import itertools
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from agentv_lsp.checks.model import SEVERITY_RANK, select_capped, too_many_diagnostics
from agentv_lsp.lsp.convert import _SEVERITY_NAMES, JsonDict, diagnostic_json, no_lines

Key = tuple[int, int, int]  # LSP severity, start line, start character (file coordinates)


class LocalKeys:
    """The sort keys of one part's diagnostics in its own lines, and what choosing among them
    needs (shared by every place the part takes: moving a part costs nothing here)."""

    __slots__ = ("by_severity", "keys", "ordered")

    def __init__(self, keys: list[Key]) -> None:
        self.keys = keys
        self.by_severity: dict[int, list[int]] = {}
        for index, key in enumerate(keys):
            self.by_severity.setdefault(key[0], []).append(index)
        self.ordered = all(keys[k][1:] >= keys[k - 1][1:] for k in range(1, len(keys)))

    @classmethod
    def of(
        cls, items: Iterable[JsonDict], base: int = 0, line: Callable[[int], int] | None = None
    ) -> LocalKeys:
        """The keys of diagnostics' JSON: (severity, start line - `base`, start character); `line`
        first maps a JSON start line to a file line (a part's template lines)."""
        keys = [
            (i["severity"], i["range"]["start"]["line"] - base, i["range"]["start"]["character"])
            for i in items
        ]
        if line is not None:  # (rare: a part whose keys depend on its place)
            keys = [(severity, line(n + base) - base, character) for severity, n, character in keys]
        return cls(keys)


class Placed:
    """One part's diagnostics at one place in the file: its keys are `local`'s moved down
    `shift` lines; its JSON (and the encoded text of it) is built when first asked."""

    __slots__ = ("_encoded", "_items", "_make", "local", "shift")

    def __init__(self, local: LocalKeys | list[Key], make: Callable[[int], JsonDict], shift: int = 0) -> None:
        self.local = local if isinstance(local, LocalKeys) else LocalKeys(local)
        self.shift = shift
        self._make = make
        size = len(self.local.keys)
        self._items: list[JsonDict | None] = [None] * size
        self._encoded: list[str | None] = [None] * size

    @classmethod
    def of_items(cls, items: list[JsonDict]) -> Placed:
        """Diagnostics already converted (a whole-text check, the file's own)."""
        placed = cls(LocalKeys.of(items), items.__getitem__)
        placed._items = list(items)
        return placed

    def __len__(self) -> int:
        return len(self.local.keys)

    @property
    def keys(self) -> list[Key]:
        """(severity, line, character) of each diagnostic, in file lines."""
        shift = self.shift
        if not shift:
            return self.local.keys
        return [(k[0], k[1] + shift, k[2]) for k in self.local.keys]

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
        return [self.item(i) for i in range(len(self))]


def all_items(parts: Sequence[Placed]) -> list[JsonDict]:
    return [item for part in parts for item in part.items()]


def count(parts: Sequence[Placed]) -> int:
    return sum(len(part) for part in parts)


def _rank(severity: int) -> int:
    return SEVERITY_RANK[_SEVERITY_NAMES[severity]]


def shown(parts: Sequence[Placed], limit: int, path: str, how_to_raise: str) -> list[str]:
    """The encoded JSON of the diagnostics `cap_json` keeps of the parts' items, in its order.
    Only the shown ones are converted; choosing them looks at each part, not at each of its
    diagnostics (a part's keys are in position order when it comes from a check)."""
    parts = [part for part in parts if part.local.keys]
    total = sum(len(part.local.keys) for part in parts)
    if limit <= 0 or total <= limit:
        return [part.encoded(i) for part in parts for i in range(len(part.local.keys))]
    chosen = _chosen(parts, limit)
    if chosen is None:  # as `cap_json` does it, over every key
        where = [(n, i) for n, part in enumerate(parts) for i in range(len(part.local.keys))]
        keys = [(_SEVERITY_NAMES[k[0]], k[1], k[2]) for part in parts for k in part.keys]
        chosen = [where[i] for i in select_capped(keys, limit)]
    hidden: Counter[str] = Counter()
    for part in parts:
        for severity, indices in part.local.by_severity.items():
            hidden[_SEVERITY_NAMES[severity]] += len(indices)
    hidden.subtract(_SEVERITY_NAMES[parts[n].local.keys[i][0]] for n, i in chosen)
    hidden = +hidden
    summary = too_many_diagnostics(path, hidden, limit, how_to_raise)
    out = [parts[n].encoded(i) for n, i in chosen]
    out.append(json.dumps(diagnostic_json(summary, no_lines)))
    return out


def _chosen(parts: list[Placed], limit: int) -> list[tuple[int, int]] | None:
    """`select_capped` over the parts' keys one after another, as (part, index) in that order:
    the first `limit` by severity, then position, then order. Each severity's diagnostics are
    taken part after part while the parts keep them in position order (a check's output), else
    merged by position (None: a part's own keys are out of order)."""
    runs: dict[int, list[tuple[int, Placed, list[int]]]] = {}
    for n, part in enumerate(parts):
        local = part.local
        if not local.ordered:
            return None
        for severity, indices in local.by_severity.items():
            found = runs.get(severity)
            if found is None:
                runs[severity] = [(n, part, indices)]
            else:
                found.append((n, part, indices))
    chosen: list[tuple[int, int]] = []
    for severity in sorted(runs, key=_rank):
        wanted = limit - len(chosen)
        if wanted <= 0:
            break
        chain, apart = _ordered_chain(runs[severity])
        if not apart:
            for n, _part, indices in chain:
                chosen.extend((n, i) for i in indices[:wanted])
                wanted = limit - len(chosen)
                if wanted <= 0:
                    break
            continue
        # the parts out of order (v2: the file's own, last) merged into the others by position;
        # the ordered ones are read only as far as the shown ones reach
        merged = heapq.merge(
            _keyed(chain), *([_key_of(part, n, i) for i in indices] for n, part, indices in apart)
        )
        chosen.extend((n, i) for _line, _character, n, i in itertools.islice(merged, wanted))
    return sorted(chosen)


Run = tuple[int, Placed, list[int]]  # a part's number, the part, and its diagnostics of one severity


def _key_of(part: Placed, n: int, i: int) -> tuple[int, int, int, int]:
    key = part.local.keys[i]
    return key[1] + part.shift, key[2], n, i


def _keyed(chain: list[Run]) -> Iterator[tuple[int, int, int, int]]:
    for n, part, indices in chain:
        for i in indices:
            yield _key_of(part, n, i)


def _ordered_chain(runs: list[Run]) -> tuple[list[Run], list[Run]]:
    """The runs that follow each other in position order (taken greedily in order), and the
    others (each in order within itself)."""
    chain: list[Run] = []
    apart: list[Run] = []
    previous = (-1, -1)
    for run in runs:
        _n, part, indices = run
        keys, shift = part.local.keys, part.shift
        first = keys[indices[0]]
        if (first[1] + shift, first[2]) < previous:
            apart.append(run)
            continue
        last = keys[indices[-1]]
        previous = (last[1] + shift, last[2])
        chain.append(run)
    return chain, apart


# -- parts grouped in blocks ---------------------------------------------------------------------

BLOCK = 64  # consecutive parts (tests, cases) grouped into one `Placed`


class Source(Protocol):
    """One part (a test's or a case's diagnostics) that can be placed anywhere: its keys in its
    own lines (0: its first line), and its JSON at a place. A source that is not `movable` has
    keys that depend on its place (they are asked again at every place)."""

    movable: bool

    def sort_keys(self, encoding: str, start: int, extra: Any) -> LocalKeys: ...

    def make(self, encoding: str, item: int, start: int, index: int, extra: Any) -> JsonDict: ...


class _Block:
    """`BLOCK` consecutive parts: their sources and keys in the first one's lines."""

    __slots__ = ("encoding", "firsts", "keys", "last", "lines", "members", "pinned", "sources")

    def __init__(
        self,
        encoding: str,
        members: Sequence[Any],
        sources: list[Source],
        lines: list[int],
        start: int,
        extra: Any,
    ) -> None:
        self.encoding = encoding
        self.members = members
        self.sources = sources
        self.lines = lines  # each part's first line, from the first part's
        self.pinned = not all(source.movable for source in sources)  # (then rebuilt at every place)
        self.firsts: list[int] = []  # each part's first item
        keys: list[Key] = []
        for source, line in zip(sources, lines, strict=True):
            self.firsts.append(len(keys))
            keys.extend(
                (k[0], k[1] + line, k[2]) for k in source.sort_keys(encoding, start + line, extra).keys
            )
        self.keys = LocalKeys(keys)
        self.last: tuple[int, int, Any, Placed] | None = None

    def at(self, start: int, index: int, extra: Any) -> Placed:
        last = self.last
        if last is not None and last[0] == start and last[1] == index and last[2] == extra:
            return last[3]
        encoding, sources, lines, firsts = self.encoding, self.sources, self.lines, self.firsts

        def make(item: int) -> JsonDict:
            # the last part starting at or before `item` (one without diagnostics starts where
            # the next one does)
            j = bisect.bisect_right(firsts, item) - 1
            return sources[j].make(encoding, item - firsts[j], start + lines[j], index + j, extra)

        placed = Placed(self.keys, make, start)
        self.last = (start, index, extra, placed)
        return placed


def _itself(member: Any) -> Source:
    source: Source = member
    return source


class Blocks:
    """One document's parts in blocks, kept from version to version: a block of the same
    parts as before is reused (its keys, and its JSON while it keeps its place), so a version
    costs O(blocks) here, and an edit that moves every test below it a new place per block."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._blocks: list[_Block] = []
        self._identity: Any = None

    def placed(
        self,
        encoding: str,
        members: Sequence[Any],
        lines: Sequence[int],
        extra: Any = None,
        identity: Any = None,
        source_of: Callable[[Any], Source] = _itself,
    ) -> list[Placed]:
        """The parts `members` (the k-th is `tests[k]`/`evalcases[k]` from file line
        `lines[k]`; `source_of` gives the source of one) as placed blocks, in order. `extra`:
        what else a part's JSON depends on; `identity`: what else its source depends on (the
        blocks of another identity are not reused)."""
        with self._lock:
            old = self._blocks if identity == self._identity else []
            new: list[_Block] = []
            out: list[Placed] = []
            for b, first in enumerate(range(0, len(members), BLOCK)):
                chunk = members[first : first + BLOCK]
                block = old[b] if b < len(old) else None
                start = lines[first]
                if block is None or block.pinned or block.encoding != encoding or block.members != chunk:
                    block = _Block(
                        encoding,
                        chunk,
                        [source_of(m) for m in chunk],
                        [lines[k] - start for k in range(first, first + len(chunk))],
                        start,
                        extra,
                    )
                new.append(block)
                if block.keys.keys:
                    out.append(block.at(start, first, extra))
            self._blocks, self._identity = new, identity
            return out


def message(uri: str, version: int | None, diagnostics: list[str]) -> bytes:
    """The whole publishDiagnostics notification, as pygls would write it (ASCII JSON)."""
    params = '{"uri": ' + json.dumps(uri)
    if version is not None:
        params += ', "version": ' + json.dumps(version)
    params += ', "diagnostics": [' + ", ".join(diagnostics) + "]}"
    return (
        '{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": ' + params + "}"
    ).encode()
