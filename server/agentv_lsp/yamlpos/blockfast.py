# The loader's stages are PyYAML mixins (see eemeli.py): its attributes are not typed here.
# mypy: disable-error-code="attr-defined, no-untyped-call"
"""The exact reader's node tree for the commonest shape of eval file, a line at a time.

Most eval files are block mappings and sequences of one-line plain or quoted scalars and block
scalars, with nothing else: no flow collections, anchors, tags, comments outside block scalars,
explicit keys, directives or document markers. For such a text the token queue, the parser's
states and the composer's events of PyYAML (which `eemeli` is built on) cost far more than the
text's structure needs (issue 34). `compose_block_text` builds the same tree, node for node, with
the same marks, from the lines themselves; a block scalar is read by the loader's own
`scan_block_scalar` (eemeli/yaml's rules for it stay in one place). At the first line of any
other shape, or anything it is not sure of, it gives up (`NotPlainBlock`) and `eemeli.compose`
reads the text the usual way, so the few texts it refuses cost one more partial pass.

The marks it reproduces: a block mapping starts at its first key, a block sequence (indentless or
not) at its first `-`; every collection ends where the next token starts (the first character
of the next line indented less, or the end of the text after white space); a scalar's end is
after its last character; an empty value is at the `:` end.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.error import Mark
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.engine.budget import checkpoint


class NotPlainBlock(Exception):
    """The text has a shape `compose_block_text` does not read: the usual reader must."""


PLAIN = "?plain"  # (eemeli.PLAIN: eemeli imports this module)
STR = "tag:yaml.org,2002:str"
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"

# characters with rules of their own anywhere (CR, NEL, LS, PS, BOM, eemeli.LONE_CR)
_ODD = re.compile("[\r\x85\u2028\u2029\ufeff\ufdd0]")
# a plain scalar's word, and a one-line plain scalar starting with no indicator, its words
# separated by spaces only (a tab or a ` #` ends the match, and then the line is refused)
_WORD = "(?:[^\x00 \t\n:]|:(?![\x00 \t\n]))+"
_FIRST = "(?=[^\x00 \t\n\\-?:,\\[\\]{}#&*!|>'\"%@`])"
_PLAIN = re.compile(f"{_FIRST}{_WORD}(?: +(?!#){_WORD})*")
# an implicit key: such a scalar, then `:` and a space or the line's end
_KEY = re.compile(f"{_FIRST}{_WORD}(?: +(?!#){_WORD})*(?=:[ \n\x00])")
# a one-line double-quoted scalar, its escapes among the commonest (its value: the reader's own
# `double_quoted_value`)
_DOUBLE = re.compile('"(?:[^"\\\\\n\x00\t]|\\\\(?:["\\\\/0abefnrtvN_LP ]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}))*"')
_SINGLE = re.compile("'(?:[^'\n\x00\t]|'')*'")
_SPACES = re.compile(" *")
_MAX_KEY = 1000  # (an implicit key may not run past 1024 characters)
_MAX_DEPTH = 200
_NODES_TO_CHECKPOINT = 256


def compose_block_text(loader: Any) -> Node:
    """The tree of the loader's text, or NotPlainBlock."""
    buffer: str = loader.buffer
    if _ODD.search(buffer) is not None:
        raise NotPlainBlock
    return _Lines(loader).document()


class _Lines:
    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.buffer: str = loader.buffer
        self.name = loader.name
        self.to_checkpoint = _NODES_TO_CHECKPOINT
        # the next token: its index, line, the index its line starts at
        self.at = self.line = self.line_start = 0

    def mark(self, index: int) -> Mark:
        return Mark(self.name, index, self.line, index - self.line_start, self.buffer, index)

    def column(self) -> int:
        return self.at - self.line_start

    def document(self) -> Node:
        buffer = self.buffer
        self.at = _SPACES.match(buffer, 0).end()  # type: ignore[union-attr]
        if buffer[self.at] == "\n":
            self.next_token(self.at)
        if buffer[self.at] == "\x00" or self.column() != 0:
            raise NotPlainBlock
        if self.is_entry(self.at):
            root = self.sequence(0, indentless=False, depth=1)
        elif _KEY.match(buffer, self.at):
            root = self.mapping(0, depth=1)
        else:
            raise NotPlainBlock
        if buffer[self.at] != "\x00":
            raise NotPlainBlock
        return root

    def next_token(self, end: int) -> None:
        """Move to the next line's first character after blank lines (or the text's end);
        `end` is where the line read ends (its line break, or the end of the text)."""
        buffer = self.buffer
        while buffer[end] == "\n":
            self.line += 1
            self.line_start = end + 1
            end = _SPACES.match(buffer, end + 1).end()  # type: ignore[union-attr]
        if buffer[end] != "\x00" and buffer[end] in "\t#":
            raise NotPlainBlock  # a comment line, or a tab in indentation: their own rules
        self.at = end

    def line_end(self, index: int) -> int:
        """Where the line ends after `index`, given only spaces may follow there."""
        end = _SPACES.match(self.buffer, index).end()  # type: ignore[union-attr]
        if self.buffer[end] not in "\n\x00":
            raise NotPlainBlock
        return end

    def is_entry(self, index: int) -> bool:
        return self.buffer[index] == "-" and self.buffer[index + 1] == " "

    def node(self, node: Node) -> Node:
        node.anchor = None
        self.to_checkpoint -= 1
        if not self.to_checkpoint:
            self.to_checkpoint = _NODES_TO_CHECKPOINT
            checkpoint()
        return node

    def mapping(self, column: int, depth: int) -> Node:
        if depth > _MAX_DEPTH:
            raise NotPlainBlock
        buffer = self.buffer
        node = self.node(MappingNode(MAP, [], self.mark(self.at), None, flow_style=False))
        pairs = node.value
        while True:
            start = self.at
            key = _KEY.match(buffer, start)
            if key is None:
                raise NotPlainBlock
            colon = key.end()
            if colon - start > _MAX_KEY:
                raise NotPlainBlock
            key_node = self.node(ScalarNode(PLAIN, key.group(), self.mark(start), self.mark(colon), style=""))
            after = _SPACES.match(buffer, colon + 1).end()  # type: ignore[union-attr]
            if buffer[after] in "\n\x00":
                empty_at = self.mark(colon + 1)
                self.next_token(after)
                below = self.column()
                if buffer[self.at] != "\x00" and below > column:
                    if self.is_entry(self.at):
                        value = self.sequence(below, indentless=False, depth=depth + 1)
                    else:
                        value = self.mapping(below, depth + 1)
                elif buffer[self.at] != "\x00" and below == column and self.is_entry(self.at):
                    value = self.sequence(column, indentless=True, depth=depth + 1)
                else:
                    value = self.node(ScalarNode(PLAIN, "", empty_at, empty_at, style=""))
            else:
                value = self.inline(after, column)
            pairs.append((key_node, value))
            if buffer[self.at] == "\x00" or self.column() < column:
                break
            if self.column() > column or self.is_entry(self.at):
                raise NotPlainBlock
        node.end_mark = self.mark(self.at)
        return node

    def sequence(self, column: int, indentless: bool, depth: int) -> Node:
        if depth > _MAX_DEPTH:
            raise NotPlainBlock
        buffer = self.buffer
        node = self.node(SequenceNode(SEQ, [], self.mark(self.at), None, flow_style=False))
        items = node.value
        while True:
            start = _SPACES.match(buffer, self.at + 1).end()  # type: ignore[union-attr]
            if buffer[start] in "\n\x00" or self.is_entry(start):
                raise NotPlainBlock
            self.at = start
            if _KEY.match(buffer, start):
                items.append(self.mapping(self.column(), depth + 1))
            else:
                items.append(self.inline(start, column))
            if buffer[self.at] == "\x00" or self.column() < column:
                break
            if self.column() > column:
                raise NotPlainBlock
            if not self.is_entry(self.at):
                if indentless:
                    break  # the next key of the mapping around
                raise NotPlainBlock
        node.end_mark = self.mark(self.at)
        return node

    def inline(self, start: int, indent: int) -> Node:
        """The scalar starting at `start` (a value on its key's or `-`'s line), the block
        collection it is in indented at `indent`; then moves to the next token."""
        buffer = self.buffer
        ch = buffer[start]
        if ch in "|>":
            return self.block_scalar(start, indent)
        if ch == '"':
            match = _DOUBLE.match(buffer, start)
            style = '"'
        elif ch == "'":
            match = _SINGLE.match(buffer, start)
            style = "'"
        else:
            match = _PLAIN.match(buffer, start)
            style = ""
        if match is None:
            raise NotPlainBlock
        end = match.end()
        text = match.group()
        if style == '"':
            # the reader's own rules (`eemeli.double_quoted_value`, which imports this module)
            value, tag = (text[1:-1] if "\\" not in text else self.loader.double_quoted_value(text)), STR
        elif style == "'":
            value, tag = text[1:-1].replace("''", "'"), STR
        else:
            value, tag = text, PLAIN
        node = self.node(ScalarNode(tag, value, self.mark(start), self.mark(end), style=style))
        self.next_token(self.line_end(end))
        if buffer[self.at] != "\x00" and self.column() > indent:
            raise NotPlainBlock  # a plain scalar's next line, or content after a quoted one
        return node

    def block_scalar(self, start: int, indent: int) -> Node:
        loader = self.loader
        loader.pointer = loader.index = start
        loader.line, loader.column = self.line, start - self.line_start
        loader.indent = indent
        try:
            token = loader.scan_block_scalar(self.buffer[start])
        except Exception as exc:  # eemeli/yaml refuses it: the usual reader says where
            raise NotPlainBlock from exc
        # `scan_block_scalar` stops at the first character of a line indented less than the
        # scalar (or at the end of the text)
        self.line = loader.line
        self.line_start = loader.pointer - loader.column
        self.at = loader.pointer
        ch = self.buffer[self.at]
        if ch != "\x00" and (ch in " \t#\n" or self.column() > indent):
            raise NotPlainBlock
        return self.node(ScalarNode(STR, token.value, token.start_mark, token.end_mark, style=token.style))
