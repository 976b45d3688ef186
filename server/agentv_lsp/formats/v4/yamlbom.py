"""U+FEFF (byte order mark) in YAML the way AgentV 4.42.4's parser (eemeli/yaml 2.x) reads it.

`agentv_lsp.yamlpos` parses with libyaml, which skips a BOM at the start of ANY line (its
scanner drops U+FEFF in column 0 before every token). eemeli/yaml skips one only where it
opens a line before the document's first content (its lexer's stream state: the start of the
text, or after blank, comment and directive lines); anywhere else it is an ordinary character, so after a `---` line
`\\ufeff"tests": …` is the key `\\ufeff"tests"` and the file has no `tests`. And even the
leading one is not harmless: its lexer emits it as a token of its own that still takes a
column, so a first line `\\ufeff- id: t0` opens a sequence item whose content the parser then
rejects ("Unexpected scalar at node end at line 1, column 4").

`parse_yaml_v4` reproduces both on top of the shared parser (which v2 relies on and must not
change): every other BOM is swapped for an unused private-use character
(one code point, so every position holds) while libyaml reads the text, and swapped back
in the node tree and the value afterwards; a first line of the failing shape becomes the
runtime's error.
"""

from __future__ import annotations

import re
from typing import Any

from yaml import Mark
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.yamlpos import Span, YamlDocument, YamlError, parse_yaml

BOM = "\ufeff"

# After the leading BOM: optional indentation, one or more `-` items on the first line, then
# the whitespace and the first thing that is not a comment or the end of the line.
_FIRST_LINE_ITEM = re.compile(
    r"\ufeff *-(?:( +)-(?=[ \t\r\n]|$))*(?P<gap>[ \t]+)(?P<token>(?!-(?:[ \t\r\n]|$))[^ \t\r\n#][^\r\n]*)"
)
_PLAIN_END = re.compile(r":(?=[ \t]|$)| #|[ \t]+$")
# eemeli/yaml's name for the token a first character starts (anything else: a plain scalar)
_TOKEN_NAMES = {
    '"': "double-quoted-scalar",
    "'": "single-quoted-scalar",
    "{": "flow-map-start",
    "[": "flow-seq-start",
    "|": "block-scalar-header",
    ">": "block-scalar-header",
    "&": "anchor",
    "!": "tag",
    "*": "alias",
}
_HINT = (
    " (AgentV's YAML parser counts a byte order mark U+FEFF opening the file (or a line before its first content) as a column, "
    "which breaks a '-' item on that line: save the file without a BOM, or start it with a "
    "comment line)"
)


def parse_yaml_v4(text: str) -> YamlDocument:
    """`parse_yaml` with eemeli/yaml's handling of U+FEFF (see the module docstring)."""
    if BOM not in text:
        return parse_yaml(text)
    spaces = _spaces_after_content_bom(text)
    if spaces is None:
        return _parse_with_boms(text)
    # eemeli/yaml's parser counts no indentation after the BOM token (its lexer leaves the
    # line start), so a block collection opened there sits at column 0: `\ufeff  a: 1\nb: 2`
    # is one mapping, `\ufeff  a: 1\n  b: 2` fails. Read the line without those spaces, then
    # put every position back where the text has it.
    bom, count = spaces
    doc = _parse_with_boms(text[: bom + 1] + text[bom + 1 + count :])
    _shift_positions(doc, bom, text.count("\n", 0, bom), count)
    doc.text = text
    return doc


def _spaces_after_content_bom(text: str) -> tuple[int, int] | None:
    """(where, how many spaces) for a BOM that opens the document's first content line and
    spaces then content other than a `-` item (which `leading_bom_error` reads) follow."""
    stream_boms = _stream_boms(text)
    if not stream_boms:
        return None
    bom = stream_boms[-1]
    end = text.find("\n", bom)
    line = text[bom + 1 : len(text) if end < 0 else end]
    count = len(line) - len(line.lstrip(" "))
    if not count or _PRELUDE_LINE.match(line) is not None or _KEPT_WHERE_IT_IS.match(line, count):
        return None
    return bom, count


# what that shift does not apply to: a `-` item with content (see `leading_bom_error`), a tab, an explicit
# key (its `:` lines up with the `?` where the text has it), what would become a marker or
# a directive
_KEPT_WHERE_IT_IS = re.compile(r"-[ \t]+[^ \t\r\n#]|\t|%|\?(?:[ \t\r]|$)|(?:\.\.\.|---)(?:[ \t\r]|$)")


def _shift_positions(doc: YamlDocument, bom: int, line: int, count: int) -> None:
    """Marks and the error span read from the text without `count` spaces after the BOM at
    `bom` (on `line`), moved to where the text has them."""

    def moved(mark: Any) -> Any:
        if mark.line < line:  # (libyaml's marks do not count a BOM opening the text: lines do)
            return mark
        column = mark.column + count if mark.line == line else mark.column
        return Mark(mark.name, mark.index + count, mark.line, column, None, 0)

    if doc.root is not None:
        seen: set[int] = set()
        stack: list[Node] = [doc.root]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            node.start_mark, node.end_mark = moved(node.start_mark), moved(node.end_mark)
            if isinstance(node, SequenceNode):
                stack.extend(node.value)
            elif isinstance(node, MappingNode):
                for key, value in node.value:
                    stack.extend((key, value))
    if doc.error is not None:
        span = doc.error.span
        start_col = span.start_col + count if span.start_line == line else span.start_col
        end_col = span.end_col + count if span.end_line == line else span.end_col
        doc.error = YamlError(
            doc.error.kind, doc.error.message, Span(span.start_line, start_col, span.end_line, end_col)
        )


def _parse_with_boms(text: str) -> YamlDocument:
    stream_boms = _stream_boms(text)
    if stream_boms:
        line_start = stream_boms[-1]
        line = text.count("\n", 0, line_start)
        error = leading_bom_error(text[line_start:])
        if error is not None:
            span = error.span
            return YamlDocument(
                text=text,
                error=YamlError(error.kind, error.message, Span(line, span.start_col, line, span.end_col)),
            )
    kept = _after_document_ends(text, set(stream_boms))
    if text.count(BOM) == len(kept):
        return parse_yaml(text)
    stand_in = _unused_private_character(text)
    doc = parse_yaml("".join(stand_in if c == BOM and i not in kept else c for i, c in enumerate(text)))
    if doc.root is not None:
        _restore_nodes(doc.root, stand_in)
    if doc.value is not None:
        doc.value = _restore_value(doc.value, stand_in)
    if doc.error is not None and stand_in in doc.error.message:
        doc.error = YamlError(doc.error.kind, doc.error.message.replace(stand_in, BOM), doc.error.span)
    doc.text = text
    return doc


_PRELUDE_LINE = re.compile(r"[ \t]*(?:#.*)?\r?$|%")


def _stream_boms(text: str) -> list[int]:
    """Where a BOM opens a line before the document's first content or `---` line: eemeli/yaml's
    lexer drops it there (stream state), as at the very start; elsewhere a BOM is text."""
    found: list[int] = []
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        bom = text.startswith(BOM, start)
        if bom:
            found.append(start)
        line = text[start + bom : end]
        if _PRELUDE_LINE.match(line) is None:
            break  # the first line of the document (its BOM, if any, is the last found)
        start = end + 1
    return found


_DOCUMENT_END_LINE = re.compile(r"^\ufeff?\.\.\.(?=[ \t\r\n]|$)", re.MULTILINE)


def _after_document_ends(text: str, kept: set[int]) -> set[int]:
    """`kept` and the BOMs opening a line after a `...` line, up to the next content line: eemeli/
    yaml's lexer is back in its stream state there, and drops them (`a\n...\n\ufeff` is `a`)."""
    for marker in _DOCUMENT_END_LINE.finditer(text):
        if text[marker.start()] == BOM and marker.start() not in kept:
            continue  # a BOM that is text: no marker
        start = text.find("\n", marker.end()) + 1
        while 0 < start < len(text):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            bom = text.startswith(BOM, start)
            if bom:
                kept.add(start)
            if _PRELUDE_LINE.match(text, start + bom, end) is None:
                break
            start = end + 1
    return kept


def leading_bom_error(text: str) -> YamlError | None:
    """The runtime's error for a text starting with a BOM then a `-` item with content on that line."""
    match = _FIRST_LINE_ITEM.match(text)
    if match is None:
        return None
    gap_start = match.start("gap")
    if "\t" in match.group("gap"):
        width = len(match.group("gap"))
        return YamlError(
            "syntax", "Tabs are not allowed as indentation" + _HINT, Span(0, gap_start, 0, gap_start + width)
        )
    token = match.group("token")
    start = match.start("token")
    first = token[0]
    if first in _TOKEN_NAMES:
        name = _TOKEN_NAMES[first]
        width = _quoted_width(token) if first in "\"'" else _word_width(token) if first in "&!*|>" else 1
    elif first == "?" and token[1:2] in ("", " ", "\t"):
        name, width = "explicit-key-ind", 1
    elif first == ":" and token[1:2] in ("", " ", "\t"):
        return YamlError(
            "syntax",
            'Unexpected map-value-ind token in YAML stream: ":"' + _HINT,
            Span(0, start, 0, start + 1),
        )
    else:
        end = _PLAIN_END.search(token, 1)
        name, width = "scalar", end.start() if end is not None else len(token)
    return YamlError(
        "syntax", f"Unexpected {name} at node end" + _HINT, Span(0, start, 0, start + max(width, 1))
    )


def _quoted_width(token: str) -> int:
    """Length of a quoted scalar on its first line (to the closing quote, or the line's end)."""
    quote = token[0]
    i = 1
    while i < len(token):
        if token[i] == "\\" and quote == '"':
            i += 2
            continue
        if token[i] == quote:
            if quote == "'" and token[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return len(token)


def _word_width(token: str) -> int:
    space = re.search(r"[ \t]", token)
    return space.start() if space is not None else len(token)


def _unused_private_character(text: str) -> str:
    candidate = 0xF8FF  # from the top of the private-use area: yamlpos takes its stand-ins from the bottom
    while chr(candidate) in text:
        candidate -= 1
    return chr(candidate)


def _restore_nodes(root: Node, stand_in: str) -> None:
    seen: set[int] = set()
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if stand_in in node.value:
                node.value = node.value.replace(stand_in, BOM)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                stack.extend((key, value))


def _restore_value(value: Any, stand_in: str) -> Any:
    """The value with the BOMs back, changed in place (aliases stay shared, no recursion)."""
    if isinstance(value, str):
        return value.replace(stand_in, BOM)
    seen: set[int] = set()
    stack: list[Any] = [value]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, list):
            for i, item in enumerate(current):
                if isinstance(item, str):
                    if stand_in in item:
                        current[i] = item.replace(stand_in, BOM)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
        elif isinstance(current, dict):
            if any(stand_in in key for key in current):
                items = list(current.items())
                current.clear()
                current.update((key.replace(stand_in, BOM), item) for key, item in items)
            for key, item in current.items():
                if isinstance(item, str):
                    if stand_in in item:
                        current[key] = item.replace(stand_in, BOM)
                elif isinstance(item, (list, dict)):
                    stack.append(item)
    return value
