"""`textDocument/documentSymbol` for v2 eval files: one symbol per eval case, named by its
id, with its messages and evaluators inside (sent as the outline `lsp/listing.py` makes);
and the case ids `workspace/symbol` finds in a v2 eval text."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.lsp import listing
from agentv_lsp.lsp.convert import JsonDict, LineOf, range_json, shifted_symbol
from agentv_lsp.lsp.protocol import RawJson
from agentv_lsp.lsp.v2.model import FileModel
from agentv_lsp.yamlpos import Span

_CASE_ID = re.compile(r"""^[ ]*-[ ]+id:[ ]*(["']?)([^\n"'#]+?)\1[ ]*(?:#.*)?\r?$""", re.M)
# More cases than this without a symbol yet: build them from the whole text, not case by case.
WHOLE_TEXT_SYMBOLS = 64


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


def document_symbols(model: FileModel, encoding: str) -> list[JsonDict]:
    """The cases as DocumentSymbols (JSON), built once per version. In split mode each case's
    symbol is built once (in lines relative to the case, cached on its unit) and only moved
    for later versions."""
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


def outline_json(model: FileModel, table: listing.OutlineTable, encoding: str) -> RawJson:
    """The outline of an eval document as JSON text (see `listing.outline_json`)."""
    return listing.outline_json(
        table, model.layout, "evalcases", encoding, lambda: document_symbols(model, encoding)
    )


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
