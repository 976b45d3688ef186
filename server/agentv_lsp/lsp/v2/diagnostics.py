"""Diagnostics of v2 documents, pushed (`publish`) or pulled (`pull`): the same checks as
`agentv-lsp check`, assembled case by case by the model (`model.FileModel`) and placed
in the file case by case (`diagnostic_parts`: each case's converted once, then only moved). Called from
`features/diagnostics.py`, which debounces the edits and keeps the last check's cost."""

from __future__ import annotations

import time
from typing import Any

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.lsp.base import ServerBase
from agentv_lsp.lsp.convert import JsonDict, diagnostic_json
from agentv_lsp.lsp.publication import LocalKeys, Placed, Source, all_items
from agentv_lsp.lsp.v2.model import CHUNK_BASE, TAIL_BASE, FileModel, Unit
from agentv_lsp.lsp.v2.state import STATE


async def publish(ls: ServerBase, uri: str, version: int | None, model: FileModel) -> bool:
    """Publish the diagnostics of `model` unless a newer version arrived meanwhile (True:
    published)."""
    start = time.perf_counter()
    shown = await ls.run_check(
        uri,
        version,
        lambda stop: ls.shown(uri, [Placed.of_items(ls.incomplete_json(model.path, stop))]),
        lambda: ls.shown(uri, diagnostic_parts(ls, model, uri)),
    )
    if shown is None:
        return False  # stopped: a newer version is checked instead
    current = ls.workspace.text_documents.get(uri)
    if current is None or current.version != version:
        return False  # a newer edit arrived: its own task publishes
    if not model.agentv and uri not in ls.published:
        return False  # not ours, nothing to clear: other YAML files get nothing at all
    ls.publish(uri, version, shown)
    if shown.total:
        ls.published.add(uri)
    else:
        ls.published.discard(uri)
    elapsed = (time.perf_counter() - start) * 1000
    stats = model.stats
    ls.log(
        f"agentv-lsp: {uri} v{version}: {shown.total} diagnostics in {elapsed:.0f} ms "
        f"({'whole text' if not model.split else str(stats['checked']) + ' of ' + str(stats['units']) + ' cases checked'})"
    )
    return True


def pull_items(ls: ServerBase, model: FileModel, uri: str) -> list[JsonDict]:
    """The diagnostics a client pulls (`textDocument/diagnostic`), as JSON."""
    return diagnostics_json(ls, model)


def diagnostics_json(ls: ServerBase, model: FileModel) -> list[JsonDict]:
    """A model's diagnostics as the JSON the client receives."""
    return all_items(diagnostic_parts(ls, model))


def diagnostic_parts(ls: ServerBase, model: FileModel, uri: str | None = None) -> list[Placed]:
    """A model's diagnostics in parts placed in the file (`publication`). Each case's are
    converted once (in its unit's lines, cached on the unit) and only moved afterwards, and
    only those shown; the cases are grouped in blocks kept from the document's (`uri`) last
    version."""
    if not model.agentv:
        return []
    encoding = ls.encoding
    note = (
        []
        if model.runtime_note is None
        else [Placed.of_items([diagnostic_json(model.runtime_note, model.line, encoding)])]
    )
    assembled = model.assembled()
    layout = model.layout
    if assembled is None or layout is None:  # the whole text's, in one piece
        return [
            *note,
            *(
                Placed.of_items([diagnostic_json(d, model.line, encoding) for d in piece.diagnostics])
                for piece in model.pieces()
            ),
        ]
    refs, units = assembled.refs, model.units
    members: list[Any] = list(units)
    for k, diagnostics in assembled.replaced.items():  # cases whose id is a duplicate
        found = units[k].cache.get("replaced")
        if (
            not isinstance(found, _Fixed)
            or (found.start, found.encoding) != (layout.lines[k], encoding)
            or found.diagnostics != diagnostics
        ):
            items = [diagnostic_json(d, model.line, encoding) for d in diagnostics]
            found = units[k].cache["replaced"] = _Fixed(diagnostics, items, layout.lines[k], encoding)
        members[k] = found

    def source_of(member: Any) -> Source:
        if isinstance(member, _Fixed):
            return member
        source = member.cache.get(("source", refs))
        diagnostics = member.results[refs].local
        if not isinstance(source, _CaseSource) or source.diagnostics is not diagnostics:
            source = member.cache[("source", refs)] = _CaseSource(member, diagnostics)
        return source

    blocks = STATE.blocks_of(uri)
    # (files read changed: the units' results were cleared and the generation moved on)
    identity = (refs, encoding, ls.generation)
    out = blocks.placed(encoding, members, layout.lines, layout.tail_line, identity, source_of)
    if assembled.header:
        out.append(Placed.of_items([diagnostic_json(d, model.line, encoding) for d in assembled.header]))
    return [*note, *out]


Template = tuple[JsonDict, str | None]


def _template(d: Diagnostic, unit: Unit, encoding: str) -> Template:
    """A case's diagnostic as JSON in its unit's lines (see model.UnitResult)."""
    context = unit.context

    def line_of(n: int) -> str:
        if n >= TAIL_BASE:
            k = n - TAIL_BASE
            return context.tail_split[k] if k < len(context.tail_split) else ""
        if n >= CHUNK_BASE:
            k = n - CHUNK_BASE
            return unit.lines[k] if k < len(unit.lines) else ""
        return context.head_split[n] if 0 <= n < len(context.head_split) else ""

    path = d.path
    suffix = path[len("evalcases[0]") :] if path.startswith("evalcases[0]") else None
    return diagnostic_json(d, line_of, encoding), suffix


def _line(n: int, start: int, tail: int) -> int:
    if n >= TAIL_BASE:
        return n - TAIL_BASE + tail
    if n >= CHUNK_BASE:
        return n - CHUNK_BASE + start
    return n


def _range(r: JsonDict, start: int, tail: int) -> JsonDict:
    s, e = r["start"], r["end"]
    return {
        "start": {"line": _line(s["line"], start, tail), "character": s["character"]},
        "end": {"line": _line(e["line"], start, tail), "character": e["character"]},
    }


class _CaseSource:
    """A case's diagnostics (its unit's, for one file-reference pass), placed by `Blocks`."""

    __slots__ = ("_keys", "_templates", "diagnostics", "movable", "unit")

    def __init__(self, unit: Unit, diagnostics: list[Diagnostic]) -> None:
        self.unit = unit
        self.diagnostics = diagnostics
        # all on the case's own lines: they move with it (else on the head's or the tail's)
        self.movable = all(CHUNK_BASE <= d.span.start_line < TAIL_BASE for d in diagnostics)
        self._templates: dict[str, list[Template]] = {}
        self._keys: dict[str, LocalKeys] = {}

    def templates(self, encoding: str) -> list[Template]:
        found = self._templates.get(encoding)
        if found is None:
            found = self._templates[encoding] = [_template(d, self.unit, encoding) for d in self.diagnostics]
        return found

    def sort_keys(self, encoding: str, start: int, extra: Any) -> LocalKeys:
        if not self.movable:
            return LocalKeys.of(
                (t for t, _ in self.templates(encoding)), start, lambda n: _line(n, start, extra)
            )
        found = self._keys.get(encoding)
        if found is None:
            found = self._keys[encoding] = LocalKeys.of((t for t, _ in self.templates(encoding)), CHUNK_BASE)
        return found

    def make(self, encoding: str, item: int, start: int, index: int, extra: Any) -> JsonDict:
        return _moved(self.templates(encoding)[item], index, start, extra)


class _Fixed:
    """A case's diagnostics already in file lines at its place (kept while it stays there)."""

    __slots__ = ("_keys", "diagnostics", "encoding", "items", "start")
    movable = True  # (a new one at another place)

    def __init__(
        self, diagnostics: list[Diagnostic], items: list[JsonDict], start: int, encoding: str
    ) -> None:
        self.diagnostics = diagnostics
        self.items = items
        self.start = start
        self.encoding = encoding
        self._keys = LocalKeys.of(items, start)

    def sort_keys(self, encoding: str, start: int, extra: Any) -> LocalKeys:
        return self._keys

    def make(self, encoding: str, item: int, start: int, index: int, extra: Any) -> JsonDict:
        return self.items[item]


def _moved(template: Template, index: int, start: int, tail: int) -> JsonDict:
    t, suffix = template
    out = dict(t)
    out["range"] = _range(t["range"], start, tail)
    if suffix is not None:
        out["data"] = {**t["data"], "path": f"evalcases[{index}]{suffix}"}
    if index and "evalcases[0]" in out["message"]:
        out["message"] = out["message"].replace("evalcases[0]", f"evalcases[{index}]")
    related = t.get("relatedInformation")
    if related:
        out["relatedInformation"] = [
            {
                **r,
                "location": {
                    "uri": r["location"]["uri"],
                    "range": _range(r["location"]["range"], start, tail),
                },
            }
            if r["location"]["range"]["start"]["line"] >= CHUNK_BASE
            else r
            for r in related
        ]
    return out
