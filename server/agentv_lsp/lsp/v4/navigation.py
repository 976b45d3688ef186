"""Outline, code lenses, document links and go-to-definition for 4.x eval documents.

- `textDocument/documentSymbol`: one symbol per `tests` item written in the document, named
  by its id (the criteria's first line as detail; a skipped test says so);
- `textDocument/codeLens`: above each test "▶ Preview" (`agentv.previewCase` with
  `{"uri", "caseId"}`) and a summary ("2 turns · 1 file · 3 assertions · role markers"), or
  why the runtime skips it; listed cheaply and resolved when shown; in a cases file an eval
  file's `tests:` names, the same for its tests as that eval file loads them;
- `textDocument/documentLink` / `textDocument/definition`: the files of `references`.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.checks.layout import Layout
from agentv_lsp.lsp.convert import (
    JsonDict,
    from_client_col,
    path_to_uri,
    range_json,
    shifted_symbol,
    to_range,
)
from agentv_lsp.lsp.names import LENS_PREVIEW, PREVIEW_CASE
from agentv_lsp.lsp.v4.cases import cases_context
from agentv_lsp.lsp.v4.hover import preview_of_test
from agentv_lsp.lsp.v4.last_run import last_run_of, lens_text
from agentv_lsp.lsp.v4.model import Entry, V4Model
from agentv_lsp.lsp.v4.references import references
from agentv_lsp.lsp.v4.state import STATE, Placed, SymbolTable
from agentv_lsp.lsp.v4.units import layout_of, unit_model
from agentv_lsp.yamlpos import Span


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _one_line(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


# -- outline ------------------------------------------------------------------------------------


def document_symbols(model: V4Model, encoding: str) -> list[JsonDict]:
    def compute() -> list[JsonDict]:
        layout = layout_of(model)
        found = _symbols_by_test(model, layout, encoding) if layout is not None else None
        return found if found is not None else _symbols(model, encoding)

    found: list[JsonDict] = model.memoized(("symbols", encoding), compute)
    return found


# -- outline of a large file, test by test --------------------------------------------------------
# Each test's symbol is kept in its own lines (its `- ` line is 0), by the test's text, so a
# version after an edit builds the symbols of the changed tests only (from their units) and
# moves the others; the first version takes them all from one whole-text load.

WHOLE_TEXT_SYMBOLS = 64  # more tests than this without a symbol yet: one whole-text load
MAX_SYMBOL_TABLES = 8


def _symbol_table(model: V4Model, layout: Layout, encoding: str) -> SymbolTable:
    """The symbols of a document's tests by their text, the same at their last place, and the
    lock held while a whole-text load fills them (a request then waits for that load instead
    of starting another)."""
    key = (model.path, layout.head, layout.tail, encoding, model.generation, id(model.opts), model.choice)
    tables = STATE.symbol_tables
    with STATE.symbol_tables_lock:
        found = tables.get(key)
        if found is None:
            found = tables[key] = ({}, {}, threading.Lock())
            while len(tables) > MAX_SYMBOL_TABLES:
                tables.popitem(last=False)
        tables.move_to_end(key)
        if len(found[0]) > 4 * len(layout.offsets) + 1024:
            found[0].clear()  # edited away: forget the old tests' symbols
            found[1].clear()
        return found


def _symbols_by_test(model: V4Model, layout: Layout, encoding: str) -> list[JsonDict] | None:
    """The outline from each test's own symbol (None: take the whole text's)."""
    table, placed, filling = _symbol_table(model, layout, encoding)
    with filling:
        return _fill_and_place(model, layout, encoding, table, placed)


def _fill_and_place(
    model: V4Model, layout: Layout, encoding: str, table: dict[str, JsonDict | None], placed: Placed
) -> list[JsonDict] | None:
    count = len(layout.offsets)
    chunks = [layout.chunk(k) for k in range(count)]
    missing = [k for k in range(count) if chunks[k] not in table]
    if len(missing) > WHOLE_TEXT_SYMBOLS:
        entries = model.entries()
        if len(entries) != count:
            return None
        for k, (entry, symbol) in enumerate(zip(entries, _symbols(model, encoding), strict=True)):
            if entry.yaml_path != ("tests", k) or layout.case_at(entry.start_line) != k:
                return None
            table[chunks[k]] = _template(symbol, -layout.lines[k], k)
    else:
        head_lines = layout.head.count("\n")
        for k in missing:
            unit = unit_model(model, layout, k)
            entries = unit.entries()
            if len(entries) != 1 or entries[0].yaml_path != ("tests", 0):
                table[chunks[k]] = None
                continue
            table[chunks[k]] = _template(_symbols(unit, encoding)[0], -head_lines, 0)
    out: list[JsonDict] = []
    lines = layout.lines
    for k in range(count):
        chunk = chunks[k]
        template = table.get(chunk)
        if template is None:
            return None
        # the tests that kept their line and index (above an edit) keep their symbol as it is
        last = placed.get(chunk)
        if last is None or last[0] != lines[k] or last[1] != k or last[2] is not template:
            last = placed[chunk] = (lines[k], k, template, _placed(template, lines[k], k))
        out.append(last[3])
    return out


def _template(symbol: JsonDict, lines: int, index: int) -> JsonDict:
    """A symbol moved by `lines`; a name taken from the test's place becomes None."""
    out = _placed(symbol, lines, None)
    if out["name"] == f"tests[{index}]":
        out["name"] = None
    return out


def _placed(symbol: JsonDict, lines: int, index: int | None) -> JsonDict:
    out = shifted_symbol(symbol, lines)  # its messages and assertions move with it
    if index is not None and out["name"] is None:
        out["name"] = f"tests[{index}]"
    return out


def _symbols(model: V4Model, encoding: str) -> list[JsonDict]:
    out: list[JsonDict] = []
    for entry in model.entries():
        end_line = entry.end_line
        full = range_json(
            Span(entry.start_line, entry.span.start_col, end_line, len(model.line(end_line))),
            model.line,
            encoding,
        )
        id_span = model.doc.span_of((*entry.yaml_path, "id"))
        selection = range_json(id_span, model.line, encoding) if _inside(id_span, entry) else full
        symbol: JsonDict = {
            "name": entry.id or _location(entry),
            "kind": int(lsp.SymbolKind.Object),
            "range": full,
            "selectionRange": selection,
        }
        if entry.tests and entry.tests[0].criteria:
            symbol["detail"] = _one_line(entry.tests[0].criteria)
        elif entry.skipped is not None:
            symbol["detail"] = "skipped by AgentV"
        children = _test_children(model, entry, encoding)
        if children:
            symbol["children"] = children
        out.append(symbol)
    return out


MAX_CHILD_LABEL = 40


def _test_children(model: V4Model, entry: Entry, encoding: str) -> list[JsonDict]:
    """A test's messages (input, expected output) and assertions, as v2's outline shows a
    case's messages and evaluators."""
    test = _value_at(model.doc.value, entry.yaml_path)
    if not isinstance(test, dict):
        return []
    out: list[JsonDict] = []

    def child(name: str, kind: lsp.SymbolKind, where: tuple[Any, ...]) -> None:
        span = model.doc.span_of((*entry.yaml_path, *where))
        if not _inside(span, entry):
            return
        rng = range_json(span, model.line, encoding)
        out.append({"name": name or "(unnamed)", "kind": int(kind), "range": rng, "selectionRange": rng})

    for key, kind in (("input", lsp.SymbolKind.Field), ("expected_output", lsp.SymbolKind.Constant)):
        value = test.get(key)
        if isinstance(value, str):
            child(f"{'user' if key == 'input' else 'assistant'}: {_short(value)}", kind, (key,))
        elif isinstance(value, list):
            for i, message in enumerate(value):
                if isinstance(message, dict):
                    child(f"{message.get('role', '?')}: {_short(message.get('content'))}", kind, (key, i))
    assertions = test.get("assertions")
    if isinstance(assertions, list):
        for i, assertion in enumerate(assertions):
            if isinstance(assertion, dict):
                label = f"{_short(assertion.get('name') or assertion.get('type'))} ({_short(assertion.get('type'))})"
                child(label, lsp.SymbolKind.Function, ("assertions", i))
            elif isinstance(assertion, str):
                child(_short(assertion), lsp.SymbolKind.Function, ("assertions", i))
    return out


def _value_at(value: Any, path: tuple[Any, ...]) -> Any:
    for item in path:
        if isinstance(item, int) and isinstance(value, list) and 0 <= item < len(value):
            value = value[item]
        elif isinstance(item, str) and isinstance(value, dict):
            value = value.get(item)
        else:
            return None
    return value


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else "…" if isinstance(value, list | dict) else str(value or "")
    text = _one_line(text)
    return text if len(text) <= MAX_CHILD_LABEL else text[: MAX_CHILD_LABEL - 1] + "…"


def _inside(span: Span, entry: Entry) -> bool:
    return entry.start_line <= span.start_line <= entry.end_line


def _location(entry: Entry) -> str:
    out = ""
    for item in entry.yaml_path:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else item)
    return out


# -- code lenses --------------------------------------------------------------------------------


def lens_lines(model: V4Model) -> list[int]:
    """The first line of each test (lenses go there); in a large file from the layout alone
    (no parse; followed through the edits from the previous version), each lens resolved from
    its test's unit; in a cases file the tests an eval file's `tests:` loads from it."""
    if model.kind == "cases":
        context = cases_context(model)
        return [e.start_line for e in context.entries] if context is not None else []
    layout = layout_of(model)
    return layout.lines if layout is not None else [e.start_line for e in model.entries()]


def document_lens_lines(model: V4Model) -> list[int] | None:
    """`lens_lines` of a document that gets lenses: eval files and (unlike v2) cases files
    (None: the others)."""
    return lens_lines(model) if model.kind in ("eval", "cases") else None


def resolve_document_lens(model: V4Model, uri: str, index: int, kind: str) -> lsp.Command:
    if model.kind not in ("eval", "cases"):
        return lsp.Command(title="", command="")
    return resolve_lens(model, uri, index, kind)


def resolve_lens(model: V4Model, uri: str, index: int, kind: str) -> lsp.Command:
    if model.kind == "cases":
        return _resolve_cases_lens(model, uri, index, kind)
    layout = layout_of(model)
    if layout is not None:
        if not 0 <= index < len(layout.offsets):
            return lsp.Command(title="", command="")
        unit = unit_model(model, layout, index)
        if len(unit.entries()) != 1:
            return lsp.Command(title="", command="")  # a `file://` item: its tests are elsewhere
        return resolve_lens(unit, uri, 0, kind)
    entries = model.entries()
    if not 0 <= index < len(entries):
        return lsp.Command(title="", command="")
    return _entry_lens(model, uri, entries[index], kind)


def _entry_lens(model: V4Model, uri: str, entry: Any, kind: str, where: str = "") -> lsp.Command:
    """A loaded entry's lens: its first test's preview or summary (`where`: after the summary),
    or why the runtime skips it."""
    if not entry.tests:
        return _skipped_lens(entry, kind)
    test = entry.tests[0]
    if kind == LENS_PREVIEW:
        return lsp.Command(
            title="▶ Preview", command=PREVIEW_CASE, arguments=[{"uri": uri, "caseId": test.id}]
        )
    preview = preview_of_test(model, test)
    last = lens_text(last_run_of(model, preview))
    return lsp.Command(title=summary(preview) + where + (f"  ·  {last}" if last else ""), command="")


def _skipped_lens(entry: Any, kind: str) -> lsp.Command:
    """A test the runtime skips: one lens saying why (the preview lens stays empty: there is
    no prompt to preview)."""
    if kind == LENS_PREVIEW:
        return lsp.Command(title="", command="")
    reason = entry.skipped.reason if entry.skipped is not None else "not loaded"
    return lsp.Command(title=f"⚠ AgentV skips this test: {_one_line(reason, 80)}", command="")


def _resolve_cases_lens(model: V4Model, uri: str, index: int, kind: str) -> lsp.Command:
    """A lens in a cases file: the test as the eval file loading the file runs it. Preview
    names this document: `commands.eval_model` answers with that eval file."""
    context = cases_context(model)
    if context is None or not 0 <= index < len(context.entries):
        return lsp.Command(title="", command="")
    where = f" · in {os.path.basename(context.eval_model.path)}"
    return _entry_lens(context.eval_model, uri, context.entries[index], kind, where)


def summary(preview: dict[str, Any]) -> str:
    lm = preview.get("lm") or {}
    turns = lm.get("chatPrompt") if isinstance(lm, dict) else None
    input_messages = preview.get("input")
    count = len(turns) if isinstance(turns, list) and turns else 1
    if not turns and isinstance(input_messages, list):
        count = len(input_messages) or 1
    assertions = preview.get("assertions")
    graders = len(assertions) if isinstance(assertions, list) else 0
    return " · ".join(
        (
            _plural(count, "turn"),
            _plural(len(preview.get("file_paths") or []), "file"),
            _plural(graders, "assertion") if graders else "default grader",
            "role markers" if preview.get("role_markers") else "flat",
        )
    )


# -- links and definitions ----------------------------------------------------------------------


def document_links(model: V4Model, encoding: str) -> list[lsp.DocumentLink]:
    return [
        lsp.DocumentLink(
            range=to_range(ref.span, model.line, encoding), target=path_to_uri(ref.target), tooltip=ref.target
        )
        for ref in references(model)
        if ref.target is not None
    ]


def definition(model: V4Model, line: int, character: int, encoding: str) -> list[lsp.Location] | None:
    from agentv_lsp.lsp.v4.references import reference_at

    col = from_client_col(model.line(line), character, encoding)
    ref = reference_at(model, line, col)
    if ref is None or ref.target is None:
        return None
    start = lsp.Position(line=0, character=0)
    return [lsp.Location(uri=path_to_uri(ref.target), range=lsp.Range(start=start, end=start))]
