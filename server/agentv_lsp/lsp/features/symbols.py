"""`textDocument/documentSymbol` (one symbol per eval case, named by its id, with its
messages and evaluators inside while the outline stays within 5,000 symbols, else the cases
alone: `lsp/listing.py`; sent as JSON text made once per version) and `workspace/symbol`
(case ids across the open documents and the eval files on disk in the workspace folders; the
folder walk skips `node_modules` and dot-folders, and each file is read again only when it
changed). 4.x eval files add the ids of the tests they load (`v4/symbols.py`)."""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lsprotocol import types as lsp
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.checks.runner import walk_yaml
from agentv_lsp.lsp import listing
from agentv_lsp.lsp.convert import JsonDict, LineOf, path_to_uri, range_json, shifted_symbol, uri_to_path
from agentv_lsp.lsp.protocol import RawJson
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v2.filemodel import FileModel
from agentv_lsp.lsp.v4 import navigation as v4_navigation
from agentv_lsp.lsp.v4 import symbols as v4_symbols
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.units import layout_of
from agentv_lsp.yamlpos import Span

_CASE_ID = re.compile(r"""^[ ]*-[ ]+id:[ ]*(["']?)([^\n"'#]+?)\1[ ]*(?:#.*)?\r?$""", re.M)
MAX_RESULTS = 500
# More cases than this without a symbol yet: build them from the whole text, not case by case.
WHOLE_TEXT_SYMBOLS = 64
WALK_TTL = 30.0  # seconds a folder listing is trusted without a watched-file event


def _get(node: Node, key: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                return v  # type: ignore[no-any-return]
    return None


def _label(node: Node | None, limit: int = 40) -> str:
    if isinstance(node, ScalarNode):
        text = " ".join(str(node.value).split())
        return text if len(text) <= limit else text[: limit - 1] + "…"
    if isinstance(node, SequenceNode):
        return f"{len(node.value)} segments"
    return "…"


RangeOf = Callable[[Node], JsonDict]


def case_symbol(case: Node, index: int, range_of: RangeOf) -> JsonDict:
    """One case as a DocumentSymbol (JSON): its messages and evaluators inside."""

    def symbol(
        name: str, kind: lsp.SymbolKind, node: Node, children: list[JsonDict] | None = None
    ) -> JsonDict:
        full = range_of(node)
        out: JsonDict = {
            "name": name or "(unnamed)",
            "kind": int(kind),
            "range": full,
            "selectionRange": {"start": full["start"], "end": full["start"]},
        }
        if children:
            out["children"] = children
        return out

    id_node = _get(case, "id")
    name = str(id_node.value) if isinstance(id_node, ScalarNode) and id_node.value else f"evalcases[{index}]"
    children: list[JsonDict] = []
    for key in ("input_messages", "expected_messages"):
        messages = _get(case, key)
        if isinstance(messages, SequenceNode):
            for message in messages.value:
                role = _get(message, "role")
                role_name = role.value if isinstance(role, ScalarNode) else "?"
                kind = lsp.SymbolKind.Field if key == "input_messages" else lsp.SymbolKind.Constant
                children.append(symbol(f"{role_name}: {_label(_get(message, 'content'))}", kind, message))
    for container in (case, _get(case, "execution")):
        evaluators = _get(container, "evaluators") if container is not None else None
        if isinstance(evaluators, SequenceNode):
            for evaluator in evaluators.value:
                label = f"{_label(_get(evaluator, 'name'))} ({_label(_get(evaluator, 'type'))})"
                children.append(symbol(label, lsp.SymbolKind.Function, evaluator))
    out = symbol(name, lsp.SymbolKind.Object, case, children)
    outcome = _get(case, "outcome")
    if isinstance(outcome, ScalarNode):
        out["detail"] = _label(outcome, 60)
    return out


def document_symbols(ls: AgentVLanguageServer, model: FileModel) -> list[JsonDict]:
    """The cases as DocumentSymbols (JSON), built once per version. In split mode each case's
    symbol is built once (in lines relative to the case, cached on its unit) and only moved
    for later versions."""
    encoding = ls.encoding
    found: list[JsonDict] | None = model.memo.get(f"symbols:{encoding}")
    if found is None:
        found = model.memo[f"symbols:{encoding}"] = _document_symbols(model, encoding)
    return found


def _whole_text_range(model: FileModel, encoding: str) -> RangeOf:
    """A node's range in the whole text's lines."""
    return lambda node: range_json(Span.of(node), model.line, encoding)


def _document_symbols(model: FileModel, encoding: str) -> list[JsonDict]:
    layout = model.layout
    out: list[JsonDict] = []
    if layout is not None:
        count = len(model.units)
        keys = [f"symbol:{encoding}:{index == count - 1}" for index in range(count)]
        missing = [index for index in range(count) if keys[index] not in model.units[index].memo]
        if len(missing) > WHOLE_TEXT_SYMBOLS:
            # Parsing thousands of cases one by one (a file just opened) takes seconds; the
            # whole text is parsed once (usually already, by the first check).
            doc = model.doc
            if doc.node_at(("evalcases",)) is None:
                return []  # the whole text does not parse: nothing kept, the next version retries
            for index in missing:
                case = doc.node_at(("evalcases", index))
                if case is not None:  # (else its unit answers below)
                    symbol = case_symbol(case, index, _whole_text_range(model, encoding))
                    model.units[index].memo[keys[index]] = shifted_symbol(symbol, -layout.lines[index])
        for index, unit in enumerate(model.units):
            last = index == count - 1
            key = keys[index]
            template = unit.memo.get(key)
            if template is None:
                head = unit.context.head_lines
                chunk_lines = unit.lines
                # a case ends where the next one's `-` is (whole-text positions), not at column 0
                next_item = (head + unit.chunk_lines, 0), layout.indent if not last else 0

                def line_of(n: int, head: int = head, chunk_lines: list[str] = chunk_lines) -> str:
                    k = n - head
                    return chunk_lines[k] if 0 <= k < len(chunk_lines) else ""

                def range_of(
                    node: Node, line_of: LineOf = line_of, head: int = head, next_item: Any = next_item
                ) -> JsonDict:
                    span = Span.of(node)
                    if (span.end_line, span.end_col) == next_item[0]:
                        span = Span(span.start_line, span.start_col, span.end_line, next_item[1])
                    r = range_json(span, line_of, encoding)
                    return shifted_symbol({"range": r, "selectionRange": r}, -head)["range"]  # type: ignore[no-any-return]

                case = unit.doc.node_at(("evalcases", 0))
                if case is None:  # a case that does not parse alone: the whole text decides
                    return _whole_text_symbols(model, encoding)
                template = unit.memo[key] = case_symbol(case, index, range_of)
            if template:
                # the cases above an edit keep their place: their symbol is reused as it is
                placed = unit.memo.get(f"placed:{key}")
                if placed is None or placed[0] != layout.lines[index]:
                    placed = unit.memo[f"placed:{key}"] = (
                        layout.lines[index],
                        shifted_symbol(template, layout.lines[index]),
                    )
                out.append(placed[1])
        return out
    for index, located, path in model.case_docs():
        case = located.doc.node_at(path)
        if case is not None:
            out.append(case_symbol(case, index, _whole_text_range(model, encoding)))
    return out


def _whole_text_symbols(model: FileModel, encoding: str) -> list[JsonDict]:
    """The cases of the whole text parsed at once (none when it does not parse), as a fresh
    document's outline gives them."""
    doc = model.doc
    out = []
    for index in range(len(model.units)):
        case = doc.node_at(("evalcases", index))
        if case is not None:
            out.append(case_symbol(case, index, _whole_text_range(model, encoding)))
    return out


Found = TypeVar("Found")
Stamp = tuple[Any, ...]  # what a file's findings were made from: mtime, size (and more)


@dataclass
class WorkspaceIndex:
    """Case ids of the eval files on disk, by file (re-read when mtime or size change)."""

    files: dict[str, tuple[Stamp, list[tuple[str, int]]]] = field(default_factory=dict)
    v4_files: dict[str, tuple[Stamp, list[v4_symbols.WorkspaceTest]]] = field(default_factory=dict)
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

    def ids(self, ls: AgentVLanguageServer, path: str) -> list[tuple[str, int]]:
        return self._on_disk(self.files, ls, path, (), case_ids)

    def v4_tests(self, ls: AgentVLanguageServer, path: str) -> list[v4_symbols.WorkspaceTest]:
        """The tests a 4.x eval file on disk loads (again when it or the files on disk change)."""
        if not path.lower().endswith((".eval.yaml", ".eval.yml")):
            return []
        return self._on_disk(
            self.v4_files,
            ls,
            path,
            (ls.generation,),
            lambda text: v4_symbols.workspace_tests(path, text, ls.options_for(path)),
        )

    def _on_disk(
        self,
        table: dict[str, tuple[Stamp, list[Found]]],
        ls: AgentVLanguageServer,
        path: str,
        stamp: Stamp,
        find: Callable[[str], list[Found]],
    ) -> list[Found]:
        """What `find` finds in an eval file's text on disk, kept in `table` until the file's
        mtime or size (or `stamp`) change. Nothing for a file the server may not read (outside
        the allowed files, or over the size limit); "" is read when reading fails."""
        try:
            info = os.stat(path)
        except OSError:
            return []
        key = (info.st_mtime, info.st_size, *stamp)
        with self.lock:
            cached = table.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        found: list[Found] = []
        if ls.fs.is_allowed(path) and info.st_size <= ls.fs.max_bytes:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                text = ""
            found = find(text)
        with self.lock:
            table[path] = (key, found)
        return found


def case_ids(text: str) -> list[tuple[str, int]]:
    """(id, line) of each `- id:` line of an eval text."""
    if "agentv-eval-v2" not in text:
        return []
    out = []
    line, last = 0, 0
    for match in _CASE_ID.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        out.append((match.group(2).strip(), line))
    return out


def workspace_symbols(
    ls: AgentVLanguageServer, index: WorkspaceIndex, query: str
) -> list[lsp.SymbolInformation]:
    needle = query.lower()
    found: list[lsp.SymbolInformation] = []
    open_docs = {uri_to_path(uri): doc.source for uri, doc in list(ls.workspace.text_documents.items())}
    seen: set[str] = set()

    def add(path: str, ids: list[tuple[str, int]], container: str) -> None:
        for case_id, line in ids:
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

    def add_v4(tests: list[v4_symbols.WorkspaceTest], container: str) -> None:
        for test in tests:
            add(test.file, [(test.id, test.line)], container)

    for path, text in open_docs.items():
        seen.add(path)
        add(path, case_ids(text), os.path.basename(path))
        opts = ls.options_for(path)
        add_v4(v4_symbols.open_document_tests(path, text, opts, ls.generation), os.path.basename(path))
    for root in ls.workspace_roots():
        for path in index.paths(root):
            if path not in seen:
                seen.add(path)
                add(path, index.ids(ls, path), os.path.relpath(path, root))
                add_v4(index.v4_tests(ls, path), os.path.relpath(path, root))
            if len(found) >= MAX_RESULTS:
                return found
    return found


def outline_json(
    ls: AgentVLanguageServer, model: FileModel | V4Model, table: listing.OutlineTable
) -> RawJson:
    """The outline of an eval document as JSON text (see `listing.outline_json`)."""
    encoding = ls.encoding
    if isinstance(model, V4Model):
        v4_model = model
        return listing.outline_json(
            table,
            layout_of(model),
            "tests",
            encoding,
            lambda: v4_navigation.document_symbols(v4_model, encoding),
        )
    return listing.outline_json(
        table, model.layout, "evalcases", encoding, lambda: document_symbols(ls, model)
    )


def register(server: AgentVLanguageServer) -> None:
    index = WorkspaceIndex()
    server.file_listeners.append(lambda paths: index.forget_listings())
    tables = listing.PerDocument(listing.OutlineTable)
    server.close_listeners.append(tables.forget)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guard([])
    async def document_symbol(
        ls: AgentVLanguageServer, params: lsp.DocumentSymbolParams
    ) -> RawJson | list[JsonDict]:
        uri = params.text_document.uri
        model = await ls.model(uri)
        if model is None or model.kind != "eval":
            return []
        table = tables.of(uri)
        found = await asyncio.to_thread(
            listing.per_version, model, ("outline json", ls.encoding), lambda: outline_json(ls, model, table)
        )
        return found  # type: ignore[no-any-return]

    @server.feature(lsp.WORKSPACE_SYMBOL)
    @guard([])
    async def workspace_symbol(
        ls: AgentVLanguageServer, params: lsp.WorkspaceSymbolParams
    ) -> list[lsp.SymbolInformation]:
        return await asyncio.to_thread(workspace_symbols, ls, index, params.query)
