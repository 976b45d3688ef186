"""The code lens list and the outline as JSON text, test by test, for both formats.

At 10,000 tests these answers are megabytes: made as dicts and encoded on the event loop they
blocked every other request for a quarter to half a second. Here each answer is written once per
document version in a worker thread (`RawJson`), from per-test fragments kept across versions:
after an edit the tests above it keep their text and the ones it moved are re-made by one
string format each (a test's lenses depend only on its line and index, its tests-only symbol
on its text and line).

- Lenses carry `data: [doc, index, kind]`: `doc` is a small number per server that stands for
  the document's URI (`DocumentNumbers`, bounded; a number it no longer knows resolves to an
  empty lens), `kind` one of `LENS_KINDS`' indices.
- The outline keeps every test (how one navigates a large file) but gives their messages,
  evaluators and assertions only while the whole outline stays within `MAX_OUTLINE_SYMBOLS`,
  the cap yaml-language-server (`yaml.maxItemsComputed`) and VS Code's JSON server put on an
  outline for the same reason. Above it a large file's tests are listed from the text alone
  (`Layout`): named by the `id:` written in the item, from its `-` to the next item's.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from agentv_lsp.checks.layout import Layout
from agentv_lsp.lsp.convert import JsonDict, to_client_col
from agentv_lsp.lsp.names import LENS_COMPARE, LENS_KINDS, LENS_PREVIEW, LENS_SUMMARY
from agentv_lsp.lsp.protocol import RawJson

# indices of LENS_KINDS, as lens data carry them
PREVIEW, SUMMARY, COMPARE = (LENS_KINDS.index(k) for k in (LENS_PREVIEW, LENS_SUMMARY, LENS_COMPARE))
MAX_DOCUMENTS = 4096  # URIs numbered for lens data at most (the least recently used forgotten)
MAX_TABLES = 8  # documents whose per-test pieces are kept (besides being dropped at close)
MAX_OUTLINE_SYMBOLS = 5000
SYMBOL_KIND_OBJECT = 19  # lsp.SymbolKind.Object


class DocumentNumbers:
    """A small number for each document URI (lens data carry it instead of the URI). Numbers
    are never reused: a forgotten one stays unknown."""

    def __init__(self, limit: int = MAX_DOCUMENTS) -> None:
        self.limit = limit
        self.by_uri: OrderedDict[str, int] = OrderedDict()
        self.by_number: dict[int, str] = {}
        self.next = 1
        self.lock = threading.Lock()

    def number(self, uri: str) -> int:
        with self.lock:
            found = self.by_uri.get(uri)
            if found is None:
                found = self.by_uri[uri] = self.next
                self.by_number[found] = uri
                self.next += 1
                while len(self.by_uri) > self.limit:
                    del self.by_number[self.by_uri.popitem(last=False)[1]]
            self.by_uri.move_to_end(uri)
            return found

    def uri(self, number: int) -> str | None:
        with self.lock:
            return self.by_number.get(number)

    def forget(self, uri: str) -> int | None:
        """A closed document: its number becomes unknown (returned, to forget what it keys)."""
        with self.lock:
            number = self.by_uri.pop(uri, None)
            if number is not None:
                del self.by_number[number]
            return number


def read_lens_data(data: Any) -> tuple[int, int, str] | None:
    """(doc, index, kind name) of a lens's data, or None when it is not ours."""
    if not isinstance(data, list) or len(data) != 3 or not all(type(x) is int for x in data):
        return None
    doc, index, kind = data
    return (doc, index, LENS_KINDS[kind]) if 0 <= kind < len(LENS_KINDS) else None


class PerDocument:
    """Per-document state kept across versions (bounded: the most recently used)."""

    def __init__(self, make: Callable[[], Any], limit: int = MAX_TABLES) -> None:
        self.make = make
        self.limit = limit
        self.tables: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def of(self, key: Any) -> Any:
        with self.lock:
            found = self.tables.get(key)
            if found is None:
                found = self.tables[key] = self.make()
                while len(self.tables) > self.limit:
                    self.tables.popitem(last=False)
            self.tables.move_to_end(key)
            return found

    def forget(self, key: Any) -> None:
        with self.lock:
            self.tables.pop(key, None)


def per_version(model: Any, key: Any, compute: Callable[[], Any]) -> Any:
    """`compute()` once per document version (a model's `memoized`, else its `memo` dict)."""
    memoized = getattr(model, "memoized", None)
    if memoized is not None:
        return memoized(key, compute)
    found = model.memo.get(key)
    if found is None:
        found = model.memo[key] = compute()
    return found


# -- code lenses ----------------------------------------------------------------------------------


class LensLists:
    """Each document's last lens list, by test: (lines, fragments)."""

    def __init__(self) -> None:
        self.last = PerDocument(lambda: [([], [])])

    def json(self, doc: int, lines: list[int]) -> RawJson:
        """Three lenses per test (preview, compare, summary) on its first line."""
        box = self.last.of(doc)
        old_lines, old = box[0]
        kept = len(old_lines)
        head = _LENS_HEAD.replace("DOC", str(doc))
        fragments = [
            old[i] if i < kept and old_lines[i] == line else _lens_fragment(head, i, line)
            for i, line in enumerate(lines)
        ]
        box[0] = (list(lines), fragments)
        return RawJson.of_items(fragments)

    def forget(self, doc: int) -> None:
        self.last.forget(doc)


_LENS_HEAD = '{"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":0}},"data":[DOC,%d,'


def _lens_fragment(head: str, index: int, line: int) -> str:
    """A test's three lenses; `head` is `_LENS_HEAD` with the document's number."""
    start = head % (line, line, index)
    return f"{start}{PREVIEW}]}},{start}{COMPARE}]}},{start}{SUMMARY}]}}"


# -- the outline ----------------------------------------------------------------------------------


def count_symbols(symbols: list[JsonDict]) -> int:
    return sum(1 + count_symbols(s.get("children") or []) for s in symbols)


def outline_json(
    tables: OutlineTable,
    layout: Layout | None,
    list_name: str,
    encoding: str,
    full: Callable[[], list[JsonDict]],
) -> RawJson:
    """The outline: `full()` (tests with their children) while it has at most
    `MAX_OUTLINE_SYMBOLS` symbols, else the tests alone (from the layout when there is one, so
    a file of more tests than that is never parsed for its outline)."""
    if layout is not None and len(layout.offsets) > MAX_OUTLINE_SYMBOLS:
        return RawJson.of_items(tables.placed_symbols(layout, list_name, encoding))
    symbols = full()
    if count_symbols(symbols) <= MAX_OUTLINE_SYMBOLS:
        return RawJson.of(symbols)
    if layout is not None and len(layout.offsets) == len(symbols):
        return RawJson.of_items(tables.placed_symbols(layout, list_name, encoding))
    return RawJson.of([{k: v for k, v in s.items() if k != "children"} for s in symbols])


Template = tuple[str, bool, int, int]  # format, named by its id, end line and id line (relative)


class OutlineTable:
    """One document's tests-only symbols, by test text: the template (its lines relative to
    its `-` line) and the text last placed from it (line, index, text)."""

    def __init__(self) -> None:
        self.tests: dict[tuple[str, bool, str, str], tuple[Template, int, int, str]] = {}
        self.lock = threading.Lock()

    def placed_symbols(self, layout: Layout, list_name: str, encoding: str) -> list[str]:
        count = len(layout.offsets)
        with self.lock:
            if len(self.tests) > 4 * count + 1024:
                self.tests.clear()  # edited away: forget the old tests
            out: list[str] = []
            lines = layout.lines
            for k in range(count):
                key = (layout.chunk(k), k == count - 1, list_name, encoding)
                line = lines[k]
                found = self.tests.get(key)
                if found is None or found[1] != line or found[2] != k:
                    template = (
                        found[0]
                        if found is not None
                        else _symbol_template(key[0], key[1], layout.indent, list_name, encoding)
                    )
                    fmt, named, end, at = template
                    lines_of = (line, line + end, line + at, line + at)
                    found = self.tests[key] = (
                        template,
                        line,
                        k,
                        fmt % (lines_of if named else (k, *lines_of)),
                    )
                out.append(found[3])
            return out


def _symbol_template(chunk: str, last: bool, indent: int, list_name: str, encoding: str) -> Template:
    """A test's symbol as a `%` format of its lines: range start and end, selection start and
    end (the index first when the test has no plain id to be named by)."""
    end_line = chunk.count("\n")
    if last:  # up to the tail (a line start), or the end of a text without a final newline
        partial = chunk[chunk.rfind("\n") + 1 :]
        end_col = to_client_col(partial, len(partial), encoding)
    else:
        end_col = indent  # the next item's `-`
    found = written_id(chunk, indent)
    if found is None:
        name, named, id_line, first, after = f'"{list_name}[%d]"', False, 0, indent, indent
    else:
        id_line, start, end, value = found
        text_line = chunk.split("\n", id_line + 1)[id_line]
        name, named = json.dumps(value).replace("%", "%%"), True
        first, after = to_client_col(text_line, start, encoding), to_client_col(text_line, end, encoding)
    full = f'{{"start":{{"line":%d,"character":{indent}}},"end":{{"line":%d,"character":{end_col}}}}}'
    selection = f'{{"start":{{"line":%d,"character":{first}}},"end":{{"line":%d,"character":{after}}}}}'
    fmt = f'{{"name":{name},"kind":{SYMBOL_KIND_OBJECT},"range":{full},"selectionRange":{selection}}}'
    return fmt, named, end_line, id_line


@functools.lru_cache(maxsize=64)
def _id_line_pattern(indent: int, key_col: int) -> re.Pattern[str]:
    """The item's `id:` key: on its `-` line, or on a line of its own at the keys' column."""
    return re.compile(
        "^(?:"
        + " " * indent
        + r"-[ \t]+|"
        + " " * key_col
        + r")id[ \t]*:(?:[ \t]+|(?=\r?$))(?P<value>[^\r\n]*)\r?$",
        re.M,
    )


_NOT_PLAIN = frozenset("|>&*!{[@`%#?:,]}-")  # a block, flow, anchor, alias, tag, ... value
_NULLS = ("", "~", "null", "Null", "NULL")
_DOUBLE = re.compile(r'"(?:[^"\\]|\\.)*"')
_SINGLE = re.compile(r"'(?:[^']|'')*'")
_COMMENT = re.compile(r"[ \t]+#|[ \t]*$")


def written_id(chunk: str, indent: int) -> tuple[int, int, int, str] | None:
    """(line in the chunk, start and end column, value) of a test's `id:` as written in its
    item, when it is a one-line plain or quoted scalar; None when it has none or it is written
    otherwise (a block or flow value, a tag, an anchor, escapes JSON lacks): the test is then
    named by its place."""
    first_end = chunk.find("\n")
    first = chunk if first_end < 0 else chunk[:first_end]
    after_dash = first[indent + 1 :]
    content = after_dash.lstrip(" \t")
    if not content or content.startswith("#"):
        return None
    key_col = len(first) - len(content)
    match = _id_line_pattern(indent, key_col).search(chunk)
    if match is None:
        return None
    raw = match.group("value").rstrip("\r")
    start = match.start("value")
    line = chunk.count("\n", 0, start)
    col = start - (chunk.rfind("\n", 0, start) + 1)
    value: str | None
    if raw.startswith('"'):
        quoted = _DOUBLE.match(raw)
        if quoted is None:
            return None
        try:
            value = json.loads(quoted.group(), strict=False)
        except ValueError:
            return None
        size = quoted.end()
    elif raw.startswith("'"):
        quoted = _SINGLE.match(raw)
        if quoted is None:
            return None
        value, size = quoted.group()[1:-1].replace("''", "'"), quoted.end()
    elif raw[:1] in _NOT_PLAIN:
        return None
    else:
        ends = _COMMENT.search(raw)
        size = ends.start() if ends is not None else len(raw)
        value = raw[:size]
        if value in _NULLS or ": " in value:
            return None
    if not _COMMENT.match(raw, size):
        return None  # something after the closing quote
    # a plain or quoted scalar may go on over more-indented lines
    line_end = chunk.find("\n", start)
    if line_end >= 0:
        next_end = chunk.find("\n", line_end + 1)
        following = chunk[line_end + 1 : next_end if next_end >= 0 else len(chunk)]
        body = following.lstrip(" ")
        if body and not body.startswith("#") and len(following) - len(body) > key_col:
            return None
    return line, col, col + size, value if isinstance(value, str) else str(value)
