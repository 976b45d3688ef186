# PyYAML's stages are mixins that call one another's methods (`self.peek`, `self.get_token`,
# `self.get_event`); its type stubs type each stage alone, so these codes cannot be checked here.
# mypy: disable-error-code="attr-defined, no-untyped-call, override, arg-type"
"""Faster equivalents of PyYAML's pure-Python hot paths, for the exact reader (`eemeli`).

Each gives the same results, positions included, as the code it stands in for; only the work
per call shrinks (issue 34: the exact reader was ~20x slower than libyaml on the 4.x workloads):
- `forward` moves over a run of characters holding no line break or BOM in one step, where
  PyYAML looks at each character; the Reader holds the whole text, so runs (a plain scalar's
  words on a line, spaces, comments, block scalar lines, quoted scalar words) are matched in
  it by regexes instead of a `peek` per character;
- `check_token`, `peek_token`, `get_token` ask whether more tokens are needed once per token
  taken: the parser asks several times per token, and the answer only changes when a token is
  taken or more are read (`need_more_tokens` depends on the scanner's position and queue);
- `FastSkipping` (before `eemeli`'s scanner) takes the commonest cases of skipping to the next
  token and of a one-line plain scalar, where none of eemeli/yaml's rules applies;
- `FastScanning`, `FastEvents`, `FastComposing` (after `eemeli`'s stages, so its rules keep
  precedence) replace PyYAML's own methods: the parser's `parse_node` and event queue and the
  composer's collection loops look at the next token or event once instead of once per kind.
`blockfast` goes further for the commonest shape of text, skipping tokens and events.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.composer import Composer
from yaml.error import Mark
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, SequenceNode
from yaml.parser import Parser, ParserError
from yaml.reader import Reader
from yaml.scanner import Scanner, ScannerError
from yaml.tokens import (
    AliasToken,
    AnchorToken,
    BlockEntryToken,
    BlockMappingStartToken,
    BlockSequenceStartToken,
    FlowMappingStartToken,
    FlowSequenceStartToken,
    ScalarToken,
    TagToken,
)

# what PyYAML's `forward` does not count as one more column
_NOT_A_COLUMN_CHARS = "\n\r\x85\u2028\u2029\ufeff"
_NOT_A_COLUMN = re.compile(f"[{_NOT_A_COLUMN_CHARS}]")
_ODD_COLUMN = re.compile("[\x85\u2028\u2029\ufeff]")


class FastReader(Reader):
    # whether the text holds a character PyYAML's `forward` counts otherwise than one column
    # without being a line break of `eemeli` (NEL, LS, PS, BOM): set on the first use
    odd_columns: bool | None = None

    def forward(self, length: int = 1) -> None:
        pointer = self.pointer
        end = pointer + length
        buffer = self.buffer
        if length == 1:
            if end + 1 >= len(buffer) or buffer[pointer] in _NOT_A_COLUMN_CHARS:
                super().forward(length)
                return
        elif end + 1 >= len(buffer) or _NOT_A_COLUMN.search(buffer, pointer, end) is not None:
            super().forward(length)  # near the end (PyYAML reads more), or across a break
            return
        self.pointer = end
        self.index += length
        self.column += length

    def has_odd_columns(self) -> bool:
        if self.odd_columns is None:
            self.odd_columns = _ODD_COLUMN.search(self.buffer) is not None
        return self.odd_columns

    def forward_in_line(self, length: int) -> None:
        """`forward` over characters known to hold no CR or LF."""
        if self.has_odd_columns() or self.pointer + length + 1 >= len(self.buffer):
            self.forward(length)
            return
        self.pointer += length
        self.index += length
        self.column += length

    def get_mark(self) -> Mark:
        # PyYAML's for a text (no stream), where the index is the position in the buffer
        return Mark(self.name, self.index, self.line, self.column, self.buffer, self.pointer)


class FastTokens(Scanner):
    # the tokens taken when `need_more_tokens` last said no more were needed
    ready_at = -1

    def _fill(self) -> None:
        # PyYAML's `need_more_tokens` loop, inlined
        while not self.done:
            if self.tokens:
                self.stale_possible_simple_keys()
                if self.next_possible_simple_key() != self.tokens_taken:
                    break
            self.fetch_more_tokens()
        self.ready_at = self.tokens_taken

    def check_token(self, *choices: Any) -> bool:
        if self.ready_at != self.tokens_taken:
            self._fill()
        tokens = self.tokens
        return bool(tokens) and (not choices or isinstance(tokens[0], choices))

    def peek_token(self) -> Any:
        if self.ready_at != self.tokens_taken:
            self._fill()
        return self.tokens[0] if self.tokens else None

    def get_token(self) -> Any:
        if self.ready_at != self.tokens_taken:
            self._fill()
        if self.tokens:
            self.tokens_taken += 1
            return self.tokens.pop(0)
        return None


# -- runs of characters, matched over the whole text ---------------------------------------------
# PyYAML's Reader holds the whole text (a `str` stream is never refilled: `update` returns at
# once), so a run can be matched in `buffer` from `pointer` in one step instead of a `peek` per
# character. `LONE_CR` (`eemeli`) is spelled out here: `eemeli` imports this module.
_LONE_CR = "\ufdd0"
_SPACE_RUN = re.compile(" *")
_LINE_REST = re.compile("[^\x00\r\n]*")
# the characters of a plain scalar on one line as `eemeli.scan_plain` takes them: a `:` ends it
# before white space (or a flow indicator in flow context), a `#` after white space; the words
# of one line with the white space between them, which PyYAML takes a word at a time
_PLAIN_WORD = "(?:[^\x00 \t\r\n:]|:(?![\x00 \t\r\n" + _LONE_CR + "]))+"
_PLAIN_WORD_FLOW = "(?:[^\x00 \t\r\n:,\\[\\]{}]|:(?![\x00 \t\r\n" + _LONE_CR + ",\\[\\]{}]))+"
_PLAIN_WORD_RE = re.compile(_PLAIN_WORD)
_PLAIN_WORD_FLOW_RE = re.compile(_PLAIN_WORD_FLOW)
_PLAIN_LINE = re.compile(f"{_PLAIN_WORD}(?:[ \t]+(?!#){_PLAIN_WORD})*")
# what may follow a plain scalar's last word on its line (up to a `: `, a comment or the end)
_PLAIN_LINE_END = re.compile("[ \t]*")
_PLAIN_LINE_FLOW = re.compile(f"{_PLAIN_WORD_FLOW}(?:[ \t]+(?!#){_PLAIN_WORD_FLOW})*")
# the words of a quoted scalar and the white space between them, up to a quote, an escape, a
# line break or white space before one (PyYAML's `scan_flow_scalar_non_spaces` takes a word)
_QUOTED_WORD = "[^'\"\\\\\x00 \t\r\n\x85\u2028\u2029]+"
_QUOTED_LINE = re.compile(f"{_QUOTED_WORD}(?:[ \t]+{_QUOTED_WORD})*")
# what makes a double-quoted scalar's value differ from its text between the quotes
_DOUBLE_QUOTED_SPECIAL = re.compile("[\\\\\r\n]")
_LINE_BREAKS = "\r\n\x85\u2028\u2029"


def plain_double_quoted(source: str) -> str | None:
    """The value of a double-quoted scalar (`source` with its quotes) holding no escape and no
    line break: the text between the quotes. None for any other (`eemeli.double_quoted_value`)."""
    if _DOUBLE_QUOTED_SPECIAL.search(source, 1, len(source) - 1) is None:
        return source[1:-1]
    return None


# where `scan_to_next_token` has more to do than move over spaces (and one LF before them)
_NOT_PLAIN_SKIP = " \t#\r\n\ufeff\x85\u2028\u2029"


class FastSkipping(Scanner):
    """Placed before `eemeli`'s scanner: the commonest cases of its `scan_to_next_token`."""

    def scan_to_next_token(self) -> None:
        # The commonest cases, where none of `eemeli`'s rules about tabs, comments, BOMs or flow
        # lines applies: the next token here, or after spaces on this line, or (in block
        # context) on the next line after spaces. Anything else: `eemeli.scan_to_next_token`.
        buffer = self.buffer
        pointer = self.pointer
        ch = buffer[pointer]
        if ch not in _NOT_PLAIN_SKIP:
            if self.column or not self.flow_level:
                self.tab_after_indicator = None
                return
        elif ch == " ":
            end = _SPACE_RUN.match(buffer, pointer).end()  # type: ignore[union-attr]
            if buffer[end] not in _NOT_PLAIN_SKIP and (self.column or not self.flow_level):
                self.tab_after_indicator = None
                self.forward_in_line(end - pointer)
                return
        elif ch == "\n" and not self.flow_level:
            end = _SPACE_RUN.match(buffer, pointer + 1).end()  # type: ignore[union-attr]
            if buffer[end] not in _NOT_PLAIN_SKIP:
                self.forward()  # (the line break)
                self.forward_in_line(end - pointer - 1)
                self.allow_simple_key = True
                self.tab_after_indicator = None
                return
        super().scan_to_next_token()

    def scan_plain(self) -> Any:
        # A plain scalar of one line in block context, followed by the rest of the line
        # (white space, then a `: `, a comment or the end) and, after a line break, by a line
        # indented less than the scalar may be (which ends the scalar): `eemeli.scan_plain`
        # takes the same steps there and reaches the same state. Anything else: its own.
        if not self.flow_level and not self.has_odd_columns():
            buffer = self.buffer
            pointer = self.pointer
            words = _PLAIN_LINE.match(buffer, pointer)
            if words is not None:
                end = words.end()
                rest = _PLAIN_LINE_END.match(buffer, end).end()  # type: ignore[union-attr]
                if buffer[rest] in ":#\x00":
                    token = self._plain_line(end, rest)
                    self.allow_simple_key = False
                    return token
                after = _SPACE_RUN.match(buffer, rest + 1).end()  # type: ignore[union-attr]
                if (
                    buffer[rest] == "\n"
                    and after - rest - 1 < self.indent + 1
                    and buffer[after] not in _NOT_PLAIN_SKIP
                    and (after > rest + 1 or buffer[after : after + 3] not in ("---", "..."))
                ):
                    token = self._plain_line(end, rest)
                    self.forward()  # (the line break)
                    self.forward_in_line(after - rest - 1)
                    self.allow_simple_key = True
                    return token
        return super().scan_plain()

    def _plain_line(self, end: int, rest: int) -> Any:
        pointer = self.pointer
        if _LONE_CR in self.buffer[pointer:end]:
            self._no_comment_after_lone_cr(pointer, end)  # (`eemeli.scan_plain`'s rule)
        start_mark = self.get_mark()
        self.forward_in_line(end - pointer)
        end_mark = self.get_mark()
        self.forward_in_line(rest - end)
        return ScalarToken(self.buffer[pointer:end], True, start_mark, end_mark)


class FastScanning(Scanner):
    """Placed after `eemeli`'s scanner: runs of characters taken in one step, and PyYAML's own
    methods `eemeli` keeps, with the same results."""

    def space_run(self) -> int:
        """How many spaces start at the reader's position."""
        pointer: int = self.pointer
        return _SPACE_RUN.match(self.buffer, pointer).end() - pointer  # type: ignore[union-attr]

    def line_rest_length(self) -> int:
        """How many characters before the next line break (or the end of the text)."""
        pointer: int = self.pointer
        return _LINE_REST.match(self.buffer, pointer).end() - pointer  # type: ignore[union-attr]

    def plain_line_length(self) -> int:
        """How many characters of a plain scalar's line, its last word included, start here
        (of its first word only in a text holding NEL, LS, PS or BOM: PyYAML's columns, which
        `eemeli.scan_plain` checks after each word, do not simply grow along the line there)."""
        pointer = self.pointer
        if self.has_odd_columns():
            words = _PLAIN_WORD_FLOW_RE if self.flow_level else _PLAIN_WORD_RE
        else:
            words = _PLAIN_LINE_FLOW if self.flow_level else _PLAIN_LINE
        match = words.match(self.buffer, pointer)
        return 0 if match is None else match.end() - pointer

    def skip_blanks(self, spaces: int, tab_mark: Any) -> tuple[int, Any]:
        """Move over spaces and tabs: `spaces` counts the spaces before the first tab, whose mark
        `tab_mark` is (as `eemeli.scan_to_next_token` counted them a character at a time)."""
        buffer = self.buffer
        while True:
            ch = buffer[self.pointer]
            if ch == " ":
                run = self.space_run()
                if tab_mark is None:
                    spaces += run
                self.forward_in_line(run)
            elif ch == "\t":
                if tab_mark is None:
                    tab_mark = self.get_mark()
                self.forward()
            else:
                return spaces, tab_mark

    # PyYAML's, with runs of spaces and words taken at once
    def scan_block_scalar_breaks(self, indent: int) -> Any:
        chunks = []
        end_mark = self.get_mark()
        self._indentation_spaces(indent)
        while self.buffer[self.pointer] in _LINE_BREAKS:
            chunks.append(self.scan_line_break())
            end_mark = self.get_mark()
            self._indentation_spaces(indent)
        return chunks, end_mark

    def _indentation_spaces(self, indent: int) -> None:
        if self.column < indent and self.buffer[self.pointer] == " ":
            self.forward_in_line(min(indent - self.column, self.space_run()))

    def scan_flow_scalar_non_spaces(self, double: bool, start_mark: Any) -> Any:
        chunks = []
        buffer = self.buffer
        while True:
            match = _QUOTED_LINE.match(buffer, self.pointer)
            if match is not None:
                chunks.append(match.group())
                self.forward_in_line(match.end() - self.pointer)
            ch = buffer[self.pointer]
            if not double and ch == "'" and buffer[self.pointer + 1] == "'":
                chunks.append("'")
                self.forward(2)
            elif (double and ch == "'") or (not double and ch in '"\\'):
                chunks.append(ch)
                self.forward()
            elif double and ch == "\\":
                self.forward()
                ch = self.peek()
                if ch in self.ESCAPE_REPLACEMENTS:
                    chunks.append(self.ESCAPE_REPLACEMENTS[ch])
                    self.forward()
                elif ch in self.ESCAPE_CODES:
                    length = self.ESCAPE_CODES[ch]
                    self.forward()
                    for k in range(length):
                        if self.peek(k) not in "0123456789ABCDEFabcdef":
                            raise ScannerError(
                                "while scanning a double-quoted scalar",
                                start_mark,
                                f"expected escape sequence of {length} hexadecimal numbers, "
                                f"but found {self.peek(k)!r}",
                                self.get_mark(),
                            )
                    code = int(self.prefix(length), 16)
                    chunks.append(chr(code))
                    self.forward(length)
                elif ch in _LINE_BREAKS:
                    self.scan_line_break()
                    chunks.extend(self.scan_flow_scalar_breaks(double, start_mark))
                else:
                    raise ScannerError(
                        "while scanning a double-quoted scalar",
                        start_mark,
                        f"found unknown escape character {ch!r}",
                        self.get_mark(),
                    )
            else:
                return chunks


class FastEvents(Parser):
    """Placed after `eemeli`'s parser: PyYAML's event queue and `parse_node`, asking for the next
    token once where PyYAML asks once per kind of token (same events, same errors, same order
    of reading: the next token is looked at where PyYAML first looks at it)."""

    def check_event(self, *choices: Any) -> bool:
        event = self.current_event
        if event is None:
            if self.state:
                event = self.current_event = self.state()
            if event is None:
                return False
        return not choices or isinstance(event, choices)

    def peek_event(self) -> Any:
        if self.current_event is None and self.state:
            self.current_event = self.state()
        return self.current_event

    def get_event(self) -> Any:
        if self.current_event is None and self.state:
            self.current_event = self.state()
        event = self.current_event
        self.current_event = None
        return event

    def parse_node(self, block: bool = False, indentless_sequence: bool = False) -> Any:
        token = self.peek_token()
        if isinstance(token, AliasToken):
            self.get_token()
            self.state = self.states.pop()
            return AliasEvent(token.value, token.start_mark, token.end_mark)
        anchor = tag = start_mark = end_mark = tag_mark = None
        if isinstance(token, AnchorToken):
            self.get_token()
            start_mark, end_mark, anchor = token.start_mark, token.end_mark, token.value
            token = self.peek_token()
            if isinstance(token, TagToken):
                self.get_token()
                tag_mark, end_mark, tag = token.start_mark, token.end_mark, token.value
        elif isinstance(token, TagToken):
            self.get_token()
            start_mark = tag_mark = token.start_mark
            end_mark, tag = token.end_mark, token.value
            token = self.peek_token()
            if isinstance(token, AnchorToken):
                self.get_token()
                end_mark, anchor = token.end_mark, token.value
        if tag is not None:
            handle, suffix = tag
            if handle is not None:
                if handle not in self.tag_handles:
                    raise ParserError(
                        "while parsing a node", start_mark, f"found undefined tag handle {handle!r}", tag_mark
                    )
                tag = self.tag_handles[handle] + suffix
            else:
                tag = suffix
        token = self.peek_token()
        if start_mark is None:
            start_mark = end_mark = token.start_mark
        implicit = tag is None or tag == "!"
        if indentless_sequence and isinstance(token, BlockEntryToken):
            self.state = self.parse_indentless_sequence_entry
            return SequenceStartEvent(anchor, tag, implicit, start_mark, token.end_mark)
        if isinstance(token, ScalarToken):
            self.get_token()
            if (token.plain and tag is None) or tag == "!":
                implicit_pair = (True, False)
            elif tag is None:
                implicit_pair = (False, True)
            else:
                implicit_pair = (False, False)
            self.state = self.states.pop()
            return ScalarEvent(
                anchor, tag, implicit_pair, token.value, start_mark, token.end_mark, style=token.style
            )
        if isinstance(token, FlowSequenceStartToken):
            self.state = self.parse_flow_sequence_first_entry
            return SequenceStartEvent(anchor, tag, implicit, start_mark, token.end_mark, flow_style=True)
        if isinstance(token, FlowMappingStartToken):
            self.state = self.parse_flow_mapping_first_key
            return MappingStartEvent(anchor, tag, implicit, start_mark, token.end_mark, flow_style=True)
        if block and isinstance(token, BlockSequenceStartToken):
            self.state = self.parse_block_sequence_first_entry
            return SequenceStartEvent(anchor, tag, implicit, start_mark, token.start_mark, flow_style=False)
        if block and isinstance(token, BlockMappingStartToken):
            self.state = self.parse_block_mapping_first_key
            return MappingStartEvent(anchor, tag, implicit, start_mark, token.start_mark, flow_style=False)
        if anchor is not None or tag is not None:
            # empty scalars are allowed even if a tag or an anchor is specified
            self.state = self.states.pop()
            return ScalarEvent(anchor, tag, (implicit, False), "", start_mark, end_mark)
        raise ParserError(
            f"while parsing a {'block' if block else 'flow'} node",
            start_mark,
            f"expected the node content, but found {token.id!r}",
            token.start_mark,
        )


class FastComposing(Composer):
    """Placed after `eemeli`'s composer: PyYAML's collection loops, asking for each event once."""

    def compose_sequence_node(self, anchor: Any) -> Any:
        start_event = self.get_event()
        tag = start_event.tag
        if tag is None or tag == "!":
            tag = self.resolve(SequenceNode, None, start_event.implicit)
        node = SequenceNode(tag, [], start_event.start_mark, None, flow_style=start_event.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node
        items = node.value
        index = 0
        while not isinstance(self.peek_event(), SequenceEndEvent):
            items.append(self.compose_node(node, index))
            index += 1
        node.end_mark = self.get_event().end_mark
        return node

    def compose_mapping_node(self, anchor: Any) -> Any:
        start_event = self.get_event()
        tag = start_event.tag
        if tag is None or tag == "!":
            tag = self.resolve(MappingNode, None, start_event.implicit)
        node = MappingNode(tag, [], start_event.start_mark, None, flow_style=start_event.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node
        pairs = node.value
        compose_node = self.compose_node
        while not isinstance(self.peek_event(), MappingEndEvent):
            key = compose_node(node, None)
            pairs.append((key, compose_node(node, key)))
        node.end_mark = self.get_event().end_mark
        return node
