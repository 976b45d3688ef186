# PyYAML's stages are mixins that call one another's methods (`self.peek`, `self.check_token`,
# `self.get_event`); its type stubs type each stage alone, so these codes cannot be checked here.
# mypy: disable-error-code="attr-defined, no-untyped-call, override"
"""The slow, exact reader: PyYAML's pure-Python scanner, parser and composer, bent to eemeli/yaml's rules.

libyaml (C) reads most eval files exactly as AgentV's YAML library (eemeli/yaml 2.9.1) does, and
`document` uses it first. Where the two libraries part (a tab in a block scalar or after a `-`,
anchors defined twice or with a `:` in their name, `%` directives, empty or multi-line implicit keys
in flow collections, `:x` and `?x` in flow, a comment glued to a token, `-` inside a flow collection,
the non-specific tag `!`), this reader is used instead: it yields the same `yaml.nodes` tree, with
the same marks, so nothing downstream knows which reader ran. Each override below names the
eemeli/yaml rule it follows; PyYAML's own code is kept wherever the two agree.

It is slower than libyaml (2.5-3x on the 4.x benchmark workloads, where `blockfast` reads the
plain block texts a line at a time; ~12x token by token), which is why `document` only sends it
the texts libyaml refuses or might misread (`needs_eemeli_rules`).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser, ParserError
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner, ScannerError, SimpleKey
from yaml.tokens import (
    AliasToken,
    AnchorToken,
    BlockEndToken,
    BlockEntryToken,
    BlockMappingStartToken,
    BlockSequenceStartToken,
    DirectiveToken,
    DocumentEndToken,
    DocumentStartToken,
    FlowEntryToken,
    FlowMappingEndToken,
    FlowMappingStartToken,
    FlowSequenceEndToken,
    FlowSequenceStartToken,
    KeyToken,
    ScalarToken,
    StreamEndToken,
    TagToken,
    ValueToken,
)

from agentv_lsp.engine.budget import checkpoint
from agentv_lsp.yamlpos.blockfast import NotPlainBlock, compose_block_text
from agentv_lsp.yamlpos.fastpaths import (
    FastComposing,
    FastEvents,
    FastReader,
    FastScanning,
    FastSkipping,
    FastTokens,
    plain_double_quoted,
)
from agentv_lsp.yamlpos.scalars import is_timestamp

_OPENING = (BlockMappingStartToken, BlockSequenceStartToken, FlowMappingStartToken, FlowSequenceStartToken)
_CLOSING = (BlockEndToken, FlowMappingEndToken, FlowSequenceEndToken)
_WHOLE_NODE_END = (ScalarToken, AliasToken, *_CLOSING)
_PROPERTY_TOKENS = (AnchorToken, TagToken)
# anchors and tags, then white space, line breaks and comments (before a flow collection)
_PROPS_AND_BLANKS = re.compile(r"(?:[&!][^ \t\r\n]*(?:[ \t\r\n]|(?<=[ \t\r\n])#[^\r\n]*)*)+")
_SKIP_TO_TOKEN = re.compile(r"(?:[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*[ \t]*")
_BLANK_LINES = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\r?\n)+[ \t]*")

PLAIN = "?plain"  # an untagged plain scalar, resolved later by the YAML 1.2 core schema
PLAIN_11 = "?plain-1.1"  # the same under `%YAML 1.1`, resolved by eemeli/yaml's yaml-1.1 schema
STR = "tag:yaml.org,2002:str"
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"
TIMESTAMP = "tag:yaml.org,2002:timestamp"

_BREAKS = "\r\n"
_END = "\0" + _BREAKS
_BLANK = "\0 \t" + _BREAKS
# A CR not followed by LF is no line break for eemeli/yaml: an ordinary character of a scalar or
# comment, yet white space after an indicator (`-`, `?`, `:`, `---`) or a name (`&a`).
# `document` hands it to this reader as LONE_CR, a noncharacter no text holds.
LONE_CR = "\ufdd0"
_EMPTY = _BLANK + LONE_CR
_FLOW_INDICATORS = ",[]{}"
# the characters of a tag after its `!` (URI characters but the flow indicators), and `%xx`
_TAG_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()")
_HEX = frozenset("0123456789abcdefABCDEF")


class EemeliError(yaml.MarkedYAMLError):
    """A text eemeli/yaml refuses, with eemeli/yaml's own message where we know it."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(None, None, problem, mark)


_GLUED_COMMENT = "Comments must be separated from other tokens by white space characters"
_NO_VALUE = "Implicit map keys need to be followed by map values"
_UNSEPARATED = "Tags and anchors must be separated from the next token by white space"


_FLOW_FETCHERS = {
    "[": "fetch_flow_sequence_start",
    "{": "fetch_flow_mapping_start",
    "]": "fetch_flow_sequence_end",
    "}": "fetch_flow_mapping_end",
    ",": "fetch_flow_entry",
}

# Tokens read between two budget checkpoints: a few milliseconds of reading.
CHECKPOINT_TOKENS = 256


class _Scanner(Scanner):
    def __init__(self) -> None:
        super().__init__()
        self.flow_kinds: list[str] = []  # "[" or "{" per open flow collection
        # per open flow collection: the last `?` or `:` of its current entry ("" before one)
        self.flow_pair_parts: list[str] = []
        self.flow_starts_in_pair: list[bool] = []  # per open flow collection: opened as a pair's part
        # per open flow collection: the possible simple key saved where it opened
        self.flow_start_keys: list[SimpleKey | None] = []
        # a flow collection that opened and closed on one line, as a flow sequence's possible
        # key: eemeli/yaml takes a `:` on a later line for it (`[{a: 1}\n : 1]`), as for no scalar
        self.one_line_flow_key: SimpleKey | None = None
        # eemeli/yaml gives a flow pair's value (and a flow collection as a key) no white space
        # after its line: a comment opening the next line at column 0 is glued to it
        self.glued_comment_line = -1
        self.after_json_node = False  # the last token was a quoted scalar or a closed flow collection
        self.tab_after_indicator: Any = None  # mark of a tab separating a block indicator from content
        self.name_end = -1  # where the last anchor, alias or tag ended (its name may end in `:`)
        self.explicit_key_columns: set[int] = set()
        self.sequence_columns: set[int] = set()  # block sequences opened there (no mapping since)
        self.empty_key_line = -1  # the line of the last `: value` entry with an empty implicit key
        # (line, column) of a bare `:` whose indentation the parser took back (`1: x\n :`)
        self.indent_to_drop: tuple[int, int] | None = None
        # the saved simple keys a line end makes stale, in the order saved (some dropped since)
        self.line_bound_keys: deque[tuple[int, SimpleKey]] = deque()
        self.tokens_to_checkpoint = CHECKPOINT_TOKENS

    # -- white space and comments ---------------------------------------------------------------
    def scan_to_next_token(self) -> None:
        # eemeli/yaml: spaces and tabs both separate tokens, but a tab may not indent block
        # content (at a line start, or after `-`, `?`, `:` before a block collection), and a
        # comment needs white space before it.
        if self.column == 0 and self.peek() == "\ufeff":
            self.forward()  # as libyaml: a BOM opening a line (formats/v4 hides the ones that are text)
        before = self.prefix_before()
        if self.column == 0 and before == "\ufeff":  # (PyYAML counts no column for a BOM)
            before = "\n"  # the leading BOM is no token: a comment may follow it
        if self.index > 0 and self.peek() == "#" and before not in " \t\r\n":
            raise EemeliError(_GLUED_COMMENT, self.get_mark())
        after_indicator = self.column > 0 and before in "-?:" and self.pointer != self.name_end
        at_line_start = self.column == 0
        self.tab_after_indicator = None
        while True:
            if self.column == 0 and self.peek() == "\ufeff":
                self.forward()
            if self.line == self.glued_comment_line and self.column == 0 and self.peek() == "#":
                raise EemeliError(_GLUED_COMMENT, self.get_mark())
            spaces, tab_mark = self.skip_blanks(0, None)
            content = self.peek() not in _END + "#"
            if tab_mark is not None and content and not self.flow_level:
                # (at the top level a flow collection may follow such a tab)
                # (anchors and tags may come between: `\t&a [x]` loads too)
                flow_at_top = self.indent < 0 and self._flow_after_props()
                if at_line_start and spaces <= max(self.indent, 0) and not flow_at_top:
                    raise EemeliError("Tabs are not allowed as indentation", tab_mark)
                if at_line_start:
                    # deeper than the block around it, a tab still may not indent a block
                    # collection (`a:\n \tb: 1`, `a:\n \t- b`); a scalar may follow it
                    self.tab_after_indicator = tab_mark
                if after_indicator:
                    self.tab_after_indicator = tab_mark
                    if before in "-?" and self.peek() in "&!":
                        # resolve-props: after `-` or `?` the node's anchor or tag counts as
                        # at a line start, and a tab before it as indentation (`-\t&a x`)
                        raise EemeliError("Tabs are not allowed as indentation", tab_mark)
            if content and at_line_start and self.flow_level and self.column <= self.indent:
                self._flow_line_indented_too_little()
            if self.peek() == "#":
                self.forward_in_line(self.line_rest_length())
            if not self.scan_line_break():
                return
            if not self.flow_level:
                self.allow_simple_key = True
            at_line_start, after_indicator = True, False

    def _flow_line_indented_too_little(self) -> None:
        """eemeli/yaml: a flow collection inside a block collection needs each of its further
        lines indented more than the block entry's key or `-`; only the outermost closing
        bracket may sit at that column."""
        outer = self.flow_kinds[0] if self.flow_kinds else "["
        closing = "]" if outer == "[" else "}"
        if self.column == self.indent and self.flow_level == 1 and self.peek() == closing:
            return
        kind = "sequence" if outer == "[" else "map"
        raise EemeliError(
            f"Flow {kind} in block collection must be sufficiently indented and end with a {closing}",
            self.get_mark(),
        )

    def _token_opens_its_line(self) -> bool:
        start = max(self.buffer.rfind("\n", 0, self.pointer), self.buffer.rfind("\r", 0, self.pointer)) + 1
        return not self.buffer[start : self.pointer].strip(" ")

    def prefix_before(self) -> str:
        return self.buffer[self.pointer - 1] if self.pointer > 0 else "\n"

    # -- simple keys: eemeli/yaml lets an implicit key of a flow mapping span lines --------------
    # Linear whatever the flow nesting: PyYAML visits every saved key (one per open flow level)
    # at every token. The saved keys are in level order, which is also position and line order
    # (a key is saved at the current level, and closing a level drops its key), so the keys
    # past the 1024-character limit are the first ones, and the keys a new line makes stale
    # (`line_bound_keys`: those not in a flow mapping) the first ones of that queue: only the
    # stale keys and the first live one are visited.
    def stale_possible_simple_keys(self) -> None:
        keys = self.possible_simple_keys
        if not keys or self.index == self.keys_staled_at:
            return  # (called up to three times a token: at one position, once is enough)
        self.keys_staled_at = self.index
        stale: list[int] = []
        for level, key in keys.items():
            if self.index - key.index <= 1024:
                break
            stale.append(level)
        bound = self.line_bound_keys
        while bound:
            level, key = bound[0]
            if keys.get(level) is key:
                if key.line == self.line:
                    break
                if key is not self.one_line_flow_key or self.line > key.line + 1:
                    stale.append(level)
                else:
                    break  # (a token on the next line may still be its `:`)
            bound.popleft()  # stale, or dropped already
        for level in sorted(set(stale)) if len(stale) > 1 else stale:
            key = keys[level]
            if key.required and not level and self._colon_deeper_next(key):
                continue  # (`x: 1\na\n : v`: the next token, past blank and comment lines)
            if key.required and not self.passing_over:
                raise EemeliError(_NO_VALUE, key.mark)
            if level > 0 and key.line != self.line:
                self.stale_flow_key = key  # a `:` next in this flow sequence is an error
                self.stale_flow_level = level
            del keys[level]

    def _colon_deeper_next(self, key: SimpleKey) -> bool:
        """eemeli/yaml: a mapping's later key with no `:` on its line takes the next token for
        its `:` when that is a `:` opening a line deeper than the key."""
        if self.peek() in "# \t\r\n":
            # checked between tokens (after a plain key whose scalar stopped at a deeper comment
            # line): look past the comment and blank lines to where the next token opens
            return self._colon_deeper_after_comments(key)
        return bool(
            self.peek() == ":"
            and self.peek(1) in _EMPTY
            and self.column > key.column
            and self._token_opens_its_line()
            and bool(self.tokens)
            and self.tokens[-1].end_mark.line == key.line  # (the key on one line)
            and not isinstance(self.tokens[-1], _PROPERTY_TOKENS)  # (a node, not props alone)
        )

    def _colon_deeper_after_comments(self, key: SimpleKey) -> bool:
        skipped = _SKIP_TO_TOKEN.match(self.buffer, self.pointer)
        assert skipped is not None  # (the pattern matches the empty text too)
        at = skipped.end()
        line_start = max(self.buffer.rfind("\n", 0, at), self.buffer.rfind("\r", 0, at)) + 1
        return bool(
            line_start > self.pointer  # (the `:` opens a later line)
            and self.buffer[at : at + 1] == ":"
            and self.buffer[at + 1 : at + 2] in _EMPTY
            and not self.buffer[line_start:at].strip(" ")
            and at - line_start > key.column
            and bool(self.tokens)
            and self.tokens[-1].end_mark.line == key.line
            and not isinstance(self.tokens[-1], _PROPERTY_TOKENS)
        )

    def _in_flow_map(self, level: int) -> bool:
        return 0 < level <= len(self.flow_kinds) and self.flow_kinds[level - 1] == "{"

    def next_possible_simple_key(self) -> int | None:
        # the lowest level's key is the earliest (see above)
        for key in self.possible_simple_keys.values():
            number: int = key.token_number
            return number
        return None

    keys_staled_at = -1  # the position `stale_possible_simple_keys` last looked at the keys
    stale_flow_key: SimpleKey | None = None
    # the flow level of that key: a `:` of a flow mapping nested in the sequence (`[{? 'a
    # ...' : 1}]`, the mapping itself the stale key) is not that sequence's pair
    stale_flow_level = 0

    def remove_possible_simple_key(self) -> None:
        key = self.possible_simple_keys.get(self.flow_level)
        if key is not None and key.required and not self.passing_over:
            raise EemeliError(_NO_VALUE, key.mark)
        super().remove_possible_simple_key()

    # eemeli/yaml never composes a node passed over after an explicit key: what only its
    # composer refuses (a key with no `:`) is no error there (`? r\n- :\n  e` loads)
    passing_over = False

    def save_possible_simple_key(self) -> None:
        self.stale_flow_key = None
        level = self.flow_level
        before = self.possible_simple_keys.get(level)
        super().save_possible_simple_key()
        key = self.possible_simple_keys.get(level)
        if key is not None and key is not before and not self._in_flow_map(level):
            self.line_bound_keys.append((level, key))
        if key is not None and self.tab_after_indicator is not None:
            key.tab_mark = self.tab_after_indicator
        if key is not None and key.required and self.indent in self.sequence_columns:
            key.required = (
                False  # (at a block sequence's column: no key of its, see parse_block_sequence_entry)
            )

    # -- flow collections ------------------------------------------------------------------------
    def _in_flow_pair(self) -> bool:
        return bool(self.flow_pair_parts) and (self.flow_kinds[-1] == "{" or self.flow_pair_parts[-1] != "")

    def _flow_node_ended(self) -> None:
        if self.flow_level and self.flow_pair_parts[-1] == ":":
            self.glued_comment_line = self.tokens[-1].end_mark.line + 1

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        self.flow_starts_in_pair.append(self._in_flow_pair())
        self.flow_pair_parts.append("")
        self.flow_kinds.append(self.peek())
        super().fetch_flow_collection_start(TokenClass)
        self.flow_start_keys.append(self.possible_simple_keys.get(self.flow_level - 1))
        self.after_json_node = False

    def fetch_flow_collection_end(self, TokenClass: Any) -> None:
        in_pair = False
        start_key = None
        if self.flow_kinds:
            self.flow_kinds.pop()
            self.flow_pair_parts.pop()
            in_pair = self.flow_starts_in_pair.pop()
            start_key = self.flow_start_keys.pop()
        super().fetch_flow_collection_end(TokenClass)
        if (
            start_key is not None
            and self.flow_level
            and start_key.line == self.line
            and self.possible_simple_keys.get(self.flow_level) is start_key
        ):
            self.one_line_flow_key = start_key
        self.after_json_node = True
        if in_pair:
            self.glued_comment_line = self.line + 1

    def fetch_flow_entry(self) -> None:
        if self.flow_pair_parts:
            if self.flow_pair_parts[-1] != ":" and self._props_then_line_break():
                # eemeli/yaml: an anchor or tag as an entry, then a line break before the `,`,
                # makes no empty node there, and the `,` joins the props (`[&x\n,]` fails)
                kind = "sequence" if self.flow_kinds[-1] == "[" else "map"
                raise EemeliError(f"Unexpected , in flow {kind}", self.get_mark())
            self.flow_pair_parts[-1] = ""
        self.stale_flow_key = None  # (`[{a: 1}\n , : 1]`: the `:` after the `,` has an empty key)
        super().fetch_flow_entry()

    props_end = -1  # where the last anchor or tag ended

    def fetch_anchor(self) -> None:
        self._no_tab_before_props()
        super().fetch_anchor()
        self.props_end = self.pointer

    def fetch_tag(self) -> None:
        self._no_tab_before_props()
        super().fetch_tag()
        self.props_end = self.pointer

    def _flow_after_props(self) -> bool:
        """Whether a flow collection opens here, after any anchors and tags."""
        buffer = self.buffer
        after = _PROPS_AND_BLANKS.match(buffer, self.pointer)
        start = self.pointer if after is None else after.end()
        return buffer[start : start + 1] in ("[", "{")

    def _no_tab_before_props(self) -> None:
        """eemeli/yaml: a tab in the white space opening a line before an anchor or tag is
        indentation (`a:\n \t&r x` fails), save before the document's root when a flow
        collection follows the props (` \t&r [a]` loads)."""
        if self.flow_level:
            return
        buffer, pointer = self.buffer, self.pointer
        start = max(buffer.rfind("\n", 0, pointer), buffer.rfind("\r", 0, pointer)) + 1
        before = buffer[start:pointer]
        if "\t" not in before or before.strip(" \t"):
            return
        if self.indent < 0 and self._flow_after_props():
            return
        tab = start + before.index("\t")
        raise EemeliError(
            "Tabs are not allowed as indentation",
            yaml.Mark(self.name, tab, self.line, tab - start, None, 0),
        )

    def _props_then_line_break(self) -> bool:
        """Whether only white space, comments and a line break come between the last anchor or
        tag and here."""
        end = self.props_end
        if end < 0 or "\n" not in self.buffer[end : self.pointer]:
            return False
        return _BLANK_LINES.fullmatch(self.buffer, end, self.pointer) is not None

    def fetch_plain(self) -> None:
        super().fetch_plain()
        self._flow_node_ended()

    def fetch_alias(self) -> None:
        super().fetch_alias()
        self._flow_node_ended()

    def fetch_flow_scalar(self, style: Any) -> None:
        start_mark = self.get_mark()
        cut = self._quote_cut_by_unindent() if not self.flow_level else None
        if cut is not None:
            self._fetch_cut_quoted(cut)
            return
        try:
            super().fetch_flow_scalar(style)
        except ValueError:  # PyYAML's chr() on `\U00110000`: past Unicode, eemeli/yaml's escape error
            escape = re.search(r"\\U[0-9a-fA-F]{8}", self.buffer[start_mark.index : self.pointer + 1])
            raise EemeliError(
                f"Invalid escape sequence {escape.group() if escape else ''}", start_mark
            ) from None
        self.after_json_node = True
        self._flow_node_ended()
        if style == '"':
            token = self.tokens[-1]
            source = self.buffer[token.start_mark.index : token.end_mark.index]
            try:
                token.value = plain_double_quoted(source)
                if token.value is None:
                    token.value = double_quoted_value(source)
            except EemeliError as exc:
                raise EemeliError(exc.problem or "Invalid escape sequence", token.start_mark) from None

    def _quote_cut_by_unindent(self) -> int | None:
        """eemeli/yaml's lexer ends a quoted scalar at the end of the line before a line indented
        too little for the block it is in (`k:\\n  i: "a\\nj: 1"`): where that line ends in the
        quote character (escaped or doubled: `i: "\\"`), the scalar loads as cut there and the
        next line is read afresh. The end of the cut scalar then, else None (the lone quote
        runs on, or `document` reports the missing quote)."""
        buffer, start = self.buffer, self.pointer
        quote = buffer[start]
        end = buffer.find(quote, start + 1)
        if quote == "'":
            while end != -1 and buffer[end + 1 : end + 2] == "'":
                end = buffer.find("'", end + 2)
        else:
            while end != -1:
                backslashes = end - 1
                while buffer[backslashes] == "\\":
                    backslashes -= 1
                if (end - 1 - backslashes) % 2 == 0:
                    break
                end = buffer.find('"', end + 1)
        if end == -1:
            return None  # no closing quote: the lexer takes the rest of the text (`substring(0, -1)`)
        limit = end
        need = self.indent + 1  # the lexer's indentNext
        at = buffer.find("\n", start, limit)
        while at != -1:
            line = at + 1
            if need > 0:
                indent = line
                while buffer[indent] == " ":
                    indent += 1
                if buffer[indent] in "\r\n\0" or indent - line >= need:
                    at = buffer.find("\n", indent, limit)
                    continue
            elif buffer[line : line + 3] not in ("---", "...") or buffer[line + 3] not in _EMPTY:
                at = buffer.find("\n", line, limit)
                continue
            cut = at - (2 if buffer[at - 1] == "\r" else 1)
            return cut + 1 if cut > start and buffer[cut] == quote else None
        return None

    def _fetch_cut_quoted(self, end: int) -> None:
        self.save_possible_simple_key()
        self.allow_simple_key = False
        start_mark = self.get_mark()
        source = self.buffer[self.pointer : end]
        self.forward(len(source))
        try:
            value = double_quoted_value(source) if source[0] == '"' else single_quoted_value(source)
        except EemeliError as exc:
            raise EemeliError(exc.problem or "Invalid escape sequence", start_mark) from None
        self.tokens.append(ScalarToken(value, False, start_mark, self.get_mark(), source[0]))
        self.after_json_node = True

    def fetch_more_tokens(self) -> None:
        self.tokens_to_checkpoint -= 1
        if not self.tokens_to_checkpoint:
            # the language server may stop a stale or overlong check here (`engine.budget`):
            # a large text takes this reader seconds
            self.tokens_to_checkpoint = CHECKPOINT_TOKENS
            checkpoint()
        was_json = self.after_json_node
        self.after_json_node = False
        self.scan_to_next_token()
        self.glued_comment_line = -1  # (a token after the node on its line)
        self.after_json_node = was_json
        ch = self.peek()
        drop = self.indent_to_drop
        if drop is not None and not self.flow_level and (self.line > drop[0] or ch == "\0"):
            self.indent_to_drop = None
            if self.indent == drop[1]:
                self.indent = self.indents.pop()
        if self.flow_level and ch == "-" and self.peek(1) in _EMPTY + _FLOW_INDICATORS:
            raise EemeliError("Block collections are not allowed within flow collections", self.get_mark())
        # the rest as PyYAML does it, minus the white space already skipped
        self.stale_possible_simple_keys()
        self.unwind_indent(self.column)
        ch = self.peek()
        if ch == "\0":
            return self.fetch_stream_end()
        if ch == "%" and self.check_directive():
            return self.fetch_directive()
        if ch == "-" and self.check_document_start():
            return self.fetch_document_start()
        if ch == "." and self.check_document_end():
            return self.fetch_document_end()
        if ch in _FLOW_FETCHERS:
            self.after_json_node = False
            getattr(self, _FLOW_FETCHERS[ch])()
            return None
        self.after_json_node = False
        if ch == "-" and self.check_block_entry():
            return self.fetch_block_entry()
        if ch == "?" and self.check_key():
            return self.fetch_key()
        if ch == ":" and (self.check_value() or (self.flow_level and was_json)):
            return self.fetch_value()
        if ch == "*":
            return self.fetch_alias()
        if ch == "&":
            return self.fetch_anchor()
        if ch == "!":
            return self.fetch_tag()
        if ch == "|" and not self.flow_level:
            return self.fetch_literal()
        if ch == ">" and not self.flow_level:
            return self.fetch_folded()
        if ch == "'":
            return self.fetch_single()
        if ch == '"':
            return self.fetch_double()
        if self.check_plain():
            return self.fetch_plain()
        raise ScannerError(
            "while scanning for the next token",
            None,
            f"found character {ch!r} that cannot start any token",
            self.get_mark(),
        )

    # -- block indicators: a tab after one may not indent a block collection -----------------------
    def _no_tab_indent(self) -> None:
        if self.tab_after_indicator is not None and not self.flow_level:
            raise EemeliError("Tabs are not allowed as indentation", self.tab_after_indicator)

    # An entry with an empty implicit key (`: value`) takes no block collection on its line:
    # eemeli/yaml refuses `: - x`, `: a: 1` and `: ? x` (`? k` then `: - x` is the compact form,
    # allowed). `explicit_key_columns`: columns of `?` keys still waiting for their `:`.
    def fetch_block_entry(self) -> None:
        self._no_tab_indent()
        if not self.flow_level and self.line == self.empty_key_line:
            raise EemeliError("Unexpected block-seq-ind on same line with key", self.get_mark())
        depth = len(self.indents)
        super().fetch_block_entry()
        if len(self.indents) > depth:
            self.sequence_columns.add(self.indent)

    # eemeli/yaml: a block scalar opening a line at the column of the block collection it is in
    # is no value there but that collection's next entry, which it cannot be (`a:\n|\n x`)
    def fetch_block_scalar(self, style: Any) -> None:
        if self.column == self.indent and not self.flow_level and self._token_opens_its_line():
            if self.indent in self.sequence_columns:
                raise EemeliError("Unexpected block-scalar-header at node end", self.get_mark())
            raise EemeliError("Implicit keys need to be on a single line", self.get_mark())
        super().fetch_block_scalar(style)

    def fetch_key(self) -> None:
        self._no_tab_indent()
        if not self.flow_level and self.line == self.empty_key_line:
            raise EemeliError("Nested mappings are not allowed in compact mappings", self.get_mark())
        if self.flow_pair_parts:
            self.flow_pair_parts[-1] = "?"
        if not self.flow_level:
            self.explicit_key_columns = {c for c in self.explicit_key_columns if c < self.column}
            self.explicit_key_columns.add(self.column)
        depth = len(self.indents)
        super().fetch_key()
        if len(self.indents) > depth:
            self.sequence_columns.discard(self.indent)

    def fetch_value(self) -> None:
        level = self.flow_level
        if (
            level
            and level not in self.possible_simple_keys
            and self.stale_flow_key is not None
            and self.stale_flow_level == level
        ):
            raise EemeliError(
                "Implicit keys of flow sequence pairs need to be on a single line", self.stale_flow_key.mark
            )
        key = self.possible_simple_keys.get(level)
        tab_mark = getattr(key, "tab_mark", None)
        if key is not None and not level and tab_mark is not None and self.indent < key.column:
            # the key opens a block mapping after a tab that follows `-`, `?` or `:`
            raise EemeliError("Tabs are not allowed as indentation", tab_mark)
        explicit_value = False
        if not level:
            if key is None:
                if self.column in self.explicit_key_columns:
                    self.explicit_key_columns.discard(self.column)
                    explicit_value = True
                else:
                    self.empty_key_line = self.line
                    if self._after_empty_explicit_value():
                        # eemeli/yaml: `? k` then a bare `:`, then `: v` at their column: the
                        # mapping's further entries become a mapping that is k's value
                        mark = self.get_mark()
                        self.indents.append(self.indent)  # (it ends where the mapping around it does)
                        self.tokens.append(BlockMappingStartToken(mark, mark))
            elif key.line == self.empty_key_line and self.indent < key.column:
                raise EemeliError("Nested mappings are not allowed in compact mappings", key.mark)
            else:
                # an implicit key at an explicit key's column is the mapping's next entry: a
                # `:` there later is no longer that explicit key's (`? a\n<:\n: -` fails)
                self.explicit_key_columns.discard(key.column)
        elif self.flow_pair_parts:
            self.flow_pair_parts[-1] = ":"
        line, column = self.line, self.column
        depth = len(self.indents)
        # a block key's `:` opening a later line (`_colon_deeper_next`): like an explicit
        # key's, it may have a block collection on its line (`a\n : - b`)
        colon_on_later_line = not level and key is not None and key.line != line
        super().fetch_value()
        if colon_on_later_line:
            self.allow_simple_key = True
        if len(self.indents) > depth:
            self.sequence_columns.discard(self.indent)
        if explicit_value:
            produced = self.tokens_taken + len(self.tokens)
            self.explicit_value_at = (line, column, produced, self.property_tokens)

    explicit_value_at: tuple[int, int, int, int] | None = None  # an explicit key's `:`: where, tokens
    property_tokens = 0  # anchors and tags scanned so far

    def _after_empty_explicit_value(self) -> bool:
        """Whether this `:` opens a line after an explicit key's `:` with no node after it
        (properties only), at that `:`'s column."""
        at = self.explicit_value_at
        if at is None or at[0] >= self.line or at[1] != self.column:
            return False
        produced = self.tokens_taken + len(self.tokens)
        return produced - at[2] == self.property_tokens - at[3]

    # -- indicators and document markers: a lone CR after them is white space ------------------
    def check_block_entry(self) -> bool:
        return bool(self.peek(1) in _EMPTY)

    def check_document_start(self) -> bool:
        return bool(self.column == 0 and self.prefix(3) == "---" and self.peek(3) in _EMPTY)

    def check_document_end(self) -> bool:
        return bool(self.column == 0 and self.prefix(3) == "..." and self.peek(3) in _EMPTY)

    # -- `?` and `:` -------------------------------------------------------------------------------
    def check_key(self) -> bool:
        # eemeli/yaml: `?x` starts a plain scalar in flow context too
        return bool(self.peek(1) in _EMPTY or (self.flow_level and self.peek(1) in _FLOW_INDICATORS))

    def check_value(self) -> bool:
        if self.flow_level:
            return bool(self.peek(1) in _EMPTY + _FLOW_INDICATORS)
        return bool(self.peek(1) in _EMPTY)

    def check_plain(self) -> bool:
        ch = self.peek()
        nxt = self.peek(1)
        if ch not in "\0 \t\r\n-?:,[]{}#&*!|>'\"%@`":
            return True
        if ch in "-?:" and nxt not in _EMPTY:
            return not (self.flow_level and nxt in _FLOW_INDICATORS)
        return False

    def scan_plain(self) -> ScalarToken:
        chunks: list[str] = []
        start_mark = self.get_mark()
        end_mark = start_mark
        indent = self.indent + 1
        spaces: list[str] | None = []
        while True:
            if self.peek() == "#":
                break
            # the words of this line up to white space before a comment or the line's end, a
            # `: ` or (in flow) a flow indicator: white space between words is kept as it is
            length = self.plain_line_length()
            if length == 0:
                break
            self.allow_simple_key = False
            chunks.extend(spaces or ())
            chunks.append(self.prefix(length))
            self.forward_in_line(length)
            end_mark = self.get_mark()
            spaces = self.scan_plain_spaces(indent, start_mark)
            if not spaces or self.peek() == "#" or (not self.flow_level and self.column < indent):
                break
        value = "".join(chunks)
        if LONE_CR in value:
            self._no_comment_after_lone_cr(start_mark.index, end_mark.index)
        return ScalarToken(value, True, start_mark, end_mark)

    def _no_comment_after_lone_cr(self, start: int, end: int) -> None:
        # eemeli/yaml: a lone CR ends a plain scalar's word before `#`, which then opens a
        # comment with no white space before it (`a\r#` fails)
        buffer = self.buffer
        at = buffer.find(LONE_CR + "#", start, end)
        if at < 0:
            return
        at += 1
        line_start = buffer.rfind("\n", 0, at) + 1
        line = self.line - buffer.count("\n", at, self.pointer)
        raise EemeliError(_GLUED_COMMENT, yaml.Mark(self.name, at, line, at - line_start, None, 0))

    def scan_plain_spaces(self, indent: int, start_mark: Any) -> list[str] | None:
        chunks: list[str] = []
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        ch = self.peek()
        if ch in _BREAKS:
            self.scan_line_break()  # a single break folds to a space (CR, LF and CRLF alike)
            self.allow_simple_key = True
            if self._document_marker():
                return None
            after_scalar = self.get_mark()
            breaks: list[str] = []
            spaces, tab_mark = 0, None
            tab_opens_a_line = False
            while self.peek() in " \t" + _BREAKS:
                if self.peek() == " ":
                    run = self.space_run()
                    if tab_mark is None:
                        spaces += run
                    self.forward_in_line(run)
                elif self.peek() == "\t":
                    if self.column == 0 and self.peek() == "\t":
                        tab_opens_a_line = True
                    if self.peek() == "\t" and tab_mark is None:
                        tab_mark = self.get_mark()
                    elif tab_mark is None:
                        spaces += 1
                    self.forward()
                else:
                    breaks.append(self.scan_line_break())
                    spaces, tab_mark = 0, None
                    if self._document_marker():
                        return None
            if self.flow_level and self.peek() not in _END + "#" and self.column <= self.indent:
                self._flow_line_indented_too_little()
            continues = self.peek() not in _END + "#" and (self.flow_level or self.column >= indent)
            if tab_opens_a_line and continues and not self.flow_level and indent > 0:
                # eemeli/yaml: a blank line opening with a tab ends an indented plain scalar,
                # and its next line is then a misplaced entry of the block around it
                raise EemeliError(self._misplaced_entry(start_mark), after_scalar)
            content = self.peek() not in _END + "#"
            if (
                tab_mark is not None
                and content
                and not self.flow_level
                and (spaces <= self.indent or not continues)
            ):
                raise EemeliError("Tabs are not allowed as indentation", tab_mark)
            if not breaks:
                chunks.append(" ")
            chunks.extend(breaks)
        elif whitespaces:
            chunks.append(whitespaces)
        return chunks

    def _misplaced_entry(self, scalar_start: Any) -> str:
        before = self.buffer[: scalar_start.index].rstrip(" \t")
        if before.endswith("-"):
            return "Sequence item without - indicator"
        return "All mapping items must start at the same column"

    def _document_marker(self) -> bool:
        return self.prefix(3) in ("---", "...") and self.peek(3) in _EMPTY

    # -- anchors and aliases: any characters but white space and flow indicators ---------------------
    def scan_anchor(self, TokenClass: Any) -> Any:
        start_mark = self.get_mark()
        name = "alias" if self.peek() == "*" else "anchor"
        self.forward()
        length = 0
        while self.peek(length) not in _EMPTY + _FLOW_INDICATORS:
            length += 1
        if not length:
            raise ScannerError(
                f"while scanning an {name}",
                start_mark,
                f"expected an {name} name, but found {self.peek()!r}",
                self.get_mark(),
            )
        value = self.prefix(length)
        self.forward(length)
        self.name_end = self.pointer
        if name == "anchor":
            self.property_tokens += 1
            self._separated()
        return TokenClass(value, start_mark, self.get_mark())

    # -- directives: unknown names are ignored, `%YAML` keeps its version text --------------------
    def scan_directive(self) -> DirectiveToken:
        start_mark = self.get_mark()
        self.forward()
        length = 0
        while self.peek(length) not in _BLANK:
            length += 1
        name = self.prefix(length)
        self.forward(length)
        params: list[str] = []
        while True:
            while self.peek() in " \t" + LONE_CR:
                self.forward()
            if self.peek() in _END or self.peek() == "#":
                break
            length = 0
            while self.peek(length) not in _EMPTY:
                length += 1
            params.append(self.prefix(length))
            self.forward(length)
        end_mark = self.get_mark()
        while self.peek() not in _END:
            self.forward()
        self.scan_line_break()
        return DirectiveToken(name, (params, start_mark), start_mark, end_mark)

    # -- tags: `!` then anything but white space and flow indicators; white space after it --------
    def scan_tag(self) -> Any:
        start_mark = self.get_mark()
        if self.peek(1) == "<":
            length = 2
            while self.peek(length) not in _EMPTY + ">":
                length += 1
            if self.peek(length) != ">":
                raise ScannerError("while parsing a tag", start_mark, "expected '>'", self.get_mark())
            handle, suffix = None, self.prefix(length)[2:]
            self.forward(length + 1)
        else:
            length = 1
            while True:
                ch = self.peek(length)
                if ch in _TAG_CHARS:
                    length += 1
                elif ch == "%" and all(c in _HEX for c in self.prefix(length + 3)[length + 1 :]):
                    length += 3
                else:
                    break
            text = self.prefix(length)
            self.forward(length)
            last = text.rfind("!")  # eemeli/yaml: the handle runs to the last `!`
            if text == "!":
                handle, suffix = None, "!"
            elif not text[last + 1 :]:
                raise EemeliError(f"The {text} tag has no suffix", start_mark)
            else:
                handle, suffix = text[: last + 1], text[last + 1 :]
        self.name_end = self.pointer
        self.property_tokens += 1
        self._separated()
        return TagToken((handle, suffix), start_mark, self.get_mark())

    def _separated(self) -> None:
        ch = self.peek()
        if ch not in _BLANK and not (self.flow_level and ch in _FLOW_INDICATORS):
            raise EemeliError(_UNSEPARATED, self.get_mark())

    # -- block scalars -------------------------------------------------------------------------------
    def scan_block_scalar(self, style: Any) -> ScalarToken:
        # PyYAML's, with eemeli/yaml's rules: content may start at column 0 at the top level,
        # leading blank lines may not be indented more than the first content line (without
        # an indentation indicator), a line indented less than the content may not start
        # with a tab, and document markers end the scalar.
        folded = style == ">"
        chunks: list[str] = []
        start_mark = self.get_mark()
        self.forward()
        chomping, increment = self.scan_block_scalar_indicators(start_mark)
        self.scan_block_scalar_ignored_line(start_mark)
        body = self.pointer
        min_indent = max(self.indent + 1, 0)
        if increment is None:
            breaks, max_indent, end_mark = self.scan_block_scalar_indentation()
            indent = max(min_indent, max_indent, 1 if min_indent else 0)
            if self.peek() not in _END and self.peek() != "\t" and min_indent <= self.column < max_indent:
                raise EemeliError(
                    "Block scalars with more-indented leading empty lines must use an explicit indentation indicator",
                    self.get_mark(),
                )
            if self.peek() not in _END and self.peek() != "\t" and self.column >= min_indent:
                indent = max(min_indent, self.column)
        else:
            indent = min_indent + increment - 1 if min_indent else increment
            breaks, end_mark = self.scan_block_scalar_breaks(indent)
        self._no_tab_before(indent)
        line_break = ""
        # with an indentation indicator: per line, where its text ends in `chunks`, its line
        # break, and its length when it holds spaces only (else -1)
        lines: list[tuple[int, str, int]] = []
        while self.column == indent and self.peek() != "\0" and not (indent == 0 and self._document_marker()):
            chunks.extend(breaks)
            leading_non_space = self.peek() not in " \t"
            length = self.line_rest_length()
            text = self.prefix(length)
            chunks.append(text)
            self.forward_in_line(length)
            line_break = self.scan_line_break()
            if increment is not None:
                lines.append((len(chunks), line_break, -1 if text.strip(" ") else indent + length))
            breaks, end_mark = self.scan_block_scalar_breaks(indent)
            self._no_tab_before(indent)
            if (
                self.column == indent
                and self.peek() != "\0"
                and not (indent == 0 and self._document_marker())
            ):
                if folded and line_break == "\n" and leading_non_space and self.peek() not in " \t":
                    if not breaks:
                        chunks.append(" ")
                else:
                    chunks.append(line_break)
            else:
                break
        if lines and chomping is not True and lines[-1][2] >= 0:
            line_break = self._drop_short_space_lines(chunks, lines, body, line_break)
        if chomping is not False:
            chunks.append(line_break)
        if chomping is True:
            chunks.extend(breaks)
        value = "".join(chunks)
        if increment is not None and value and not value.strip(" \r\n"):
            # eemeli/yaml: a scalar of lines of spaces only has no content, whatever the
            # indicator says: empty, or its line breaks when kept
            value = "\n" * max(1, value.count("\n")) if chomping is True else ""
        return ScalarToken(value, False, start_mark, end_mark, style)

    def _drop_short_space_lines(
        self, chunks: list[str], lines: list[tuple[int, str, int]], body: int, line_break: str
    ) -> str:
        """eemeli/yaml's lexer drops a clipped or stripped scalar's last lines of spaces only
        that are no longer than its first content line's indentation (`|1\n  x\n  ` is " x\n"),
        the first line excepted: cut from `chunks`; the line break that then ends the text."""
        buffer = self.buffer
        first_indent = 0
        at = body
        while buffer[at] in " \r\n":
            first_indent = 0 if buffer[at] in "\r\n" else first_indent + 1
            at += 1
        while len(lines) > 1 and 0 <= lines[-1][2] <= first_indent:
            lines.pop()
            end, line_break, _ = lines[-1]
            del chunks[end:]
        return line_break

    def scan_block_scalar_indicators(self, start_mark: Any) -> Any:
        # PyYAML's wants a space after the indicators; eemeli/yaml takes a tab too
        chomping, increment = None, None
        for _ in range(2):
            ch = self.peek()
            if ch in "+-" and chomping is None:
                chomping = ch == "+"
            elif ch in "123456789" and increment is None:
                increment = int(ch)
            elif ch == "0" and increment is None:
                raise ScannerError(
                    "while scanning a block scalar",
                    start_mark,
                    "expected indentation indicator in the range 1-9, but found 0",
                    self.get_mark(),
                )
            else:
                break
            self.forward()
        if self.peek() not in _BLANK:
            raise ScannerError(
                "while scanning a block scalar",
                start_mark,
                f"expected chomping or indentation indicators, but found {self.peek()!r}",
                self.get_mark(),
            )
        return chomping, increment

    def _no_tab_before(self, indent: int) -> None:
        if self.peek() == "\t" and self.column < indent:
            raise EemeliError("Block scalar values in collections must be indented", self.get_mark())

    def scan_block_scalar_ignored_line(self, start_mark: Any) -> None:
        spaced = False
        while self.peek() in " \t":
            spaced = True
            self.forward()
        if self.peek() == "#":
            if not spaced:
                raise EemeliError(_GLUED_COMMENT, self.get_mark())
            while self.peek() not in _END:
                self.forward()
        if self.peek() not in _END:
            raise ScannerError(
                "while scanning a block scalar",
                start_mark,
                f"expected a comment or a line break, but found {self.peek()!r}",
                self.get_mark(),
            )
        self.scan_line_break()


_ESCAPES = {
    "0": "\0", "a": "\x07", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
    "v": "\v", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029", " ": " ", '"': '"', "/": "/",
    "\\": "\\", "\t": "\t",
}  # fmt: skip
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}


_FIRST_FOLD = re.compile(r"(.*?)(?<![ \t])[ \t]*\r?\n", re.DOTALL)
_NEXT_FOLD = re.compile(r"[ \t]*(.*?)(?:(?<![ \t])[ \t]*)?\r?\n", re.DOTALL)
_LAST_FOLD = re.compile(r"[ \t]*(.*)", re.DOTALL)


def single_quoted_value(source: str) -> str:
    """A single-quoted scalar's value from its source (quotes included), as eemeli/yaml's
    `singleQuotedValue` folds it (for a scalar the lexer cut; PyYAML reads the others)."""
    body = source[1:-1]
    match = _FIRST_FOLD.match(body)
    if match is None:
        return body.replace("''", "'")
    folded, sep, pos = match[1], " ", match.end()
    while (match := _NEXT_FOLD.match(body, pos)) is not None:
        if match[1] == "":
            if sep == "\n":
                folded += sep
            else:
                sep = "\n"
        else:
            folded += sep + match[1]
            sep = " "
        pos = match.end()
    last = _LAST_FOLD.match(body, pos)
    return (folded + sep + (last[1] if last else "")).replace("''", "'")


def double_quoted_value(source: str) -> str:
    """A double-quoted scalar's value from its source (quotes included), by eemeli/yaml's rules:
    a line break folds to a space, or to n-1 line breaks before n-1 blank lines; white space
    around breaks is dropped; an escaped line break is dropped with the next line's indentation
    only, so a blank line after it still folds (`"a\\<br><br>b"` is "a b"). An escaped surrogate
    pair is one character; a lone one stays, as in the runtime's JavaScript string."""
    out: list[str] = []
    i, end = 1, len(source) - 1
    while i < end:
        ch = source[i]
        if ch == "\r" and source[i + 1] == "\n":
            i += 1
            continue
        if ch == "\n":
            breaks = 0
            while i + 1 < end and source[i + 1] in " \t\n\r":
                if source[i + 1] == "\r" and source[i + 2] != "\n":
                    break
                if source[i + 1] == "\n":
                    breaks += 1
                i += 1
            out.append("\n" * breaks or " ")
        elif ch == "\\":
            i += 1
            nxt = source[i]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
            elif nxt == "\n" or (nxt == "\r" and source[i + 1] == "\n"):
                if nxt == "\r":
                    i += 1
                while source[i + 1] in " \t":
                    i += 1
            elif nxt in _HEX_DIGITS:
                digits = source[i + 1 : i + 1 + _HEX_DIGITS[nxt]]
                if len(digits) != _HEX_DIGITS[nxt] or not all(c in "0123456789abcdefABCDEF" for c in digits):
                    raise EemeliError(f"Invalid escape sequence \\{nxt}{digits}", None)
                code = int(digits, 16)
                if code > 0x10FFFF:
                    raise EemeliError(f"Invalid escape sequence \\{nxt}{digits}", None)
                out.append(chr(code))
                i += len(digits)
            else:
                raise EemeliError(f"Invalid escape sequence \\{nxt}", None)
        elif ch in " \t":
            start = i
            while source[i + 1] in " \t":
                i += 1
            if source[i + 1] != "\n" and not (source[i + 1] == "\r" and source[i + 2] == "\n"):
                out.append(source[start : i + 1])
        else:
            out.append(ch)
        i += 1
    value = "".join(out)
    if any("\ud800" <= c <= "\udfff" for c in value):
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return value


class _Parser(Parser):
    # eemeli/yaml: unknown directives are ignored, `%YAML` may repeat, 1.1 and 1.2 are read
    # (1.1 with its own scalar rules), another `n.m` is passed over, anything else fails.
    def process_directives(self) -> Any:
        self.yaml_version = None
        self.tag_handles = {}
        while self.check_token(DirectiveToken):
            token = self.get_token()
            params, mark = token.value
            if token.name == "YAML":
                if len(params) != 1:
                    raise EemeliError("%YAML directive should contain exactly one part", mark)
                version = params[0]
                if version in ("1.1", "1.2"):
                    self.yaml_version = (1, 1) if version == "1.1" else (1, 2)
                elif not re.fullmatch(r"[0-9]+\.[0-9]+", version):
                    raise EemeliError(f"Unsupported YAML version {version}", mark)
                # another `n.m` is a warning only: the version read so far stays
            elif token.name == "TAG":
                if len(params) != 2:
                    raise EemeliError("%TAG directive should contain exactly two parts", mark)
                self.tag_handles[params[0]] = params[1]
        value = self.yaml_version, (self.tag_handles.copy() or None)
        for key in self.DEFAULT_TAGS:
            self.tag_handles.setdefault(key, self.DEFAULT_TAGS[key])
        return value

    # a `...` with no document before it ends nothing (eemeli/yaml reads `...` alone as null);
    # a second one after a document starts an empty document (PyYAML skips it)
    def parse_document_start(self) -> Any:
        if self.check_token(DocumentEndToken):
            self._another_document()
        if not self.check_token(DirectiveToken) or not self.document_read:
            return super().parse_document_start()
        # PyYAML's, but directives the stream's end follows after a document (`a\n...\n%YAML
        # 1.2`) start none: eemeli/yaml checks them and reads on (before any, they need a `---`)
        start_mark = self.peek_token().start_mark
        version, tags = self.process_directives()
        if self.check_token(StreamEndToken):
            return super().parse_document_start()
        if not self.check_token(DocumentStartToken):
            token = self.peek_token()
            raise ParserError(
                None, None, f"expected '<document start>', but found {token.id!r}", token.start_mark
            )
        end_mark = self.get_token().end_mark
        self.states.append(self.parse_document_end)
        self.state = self.parse_document_content
        return DocumentStartEvent(start_mark, end_mark, explicit=True, version=version, tags=tags)

    document_read = False  # a `...` ended a document (maybe an empty one) before

    def parse_document_end(self) -> Any:
        if self.check_token(DocumentEndToken):
            self.document_read = True
        return super().parse_document_end()

    def _another_document(self) -> None:
        raise ComposerError(
            "expected a single document in the stream",
            None,
            "but found another document",
            self.peek_token().start_mark,
        )

    def parse_implicit_document_start(self) -> Any:
        if self.check_token(DocumentEndToken):
            # `...` with nothing before it ends an empty document: anything after it but the
            # end of the stream is another one (`...` then `---`)
            self.get_token()
            self.document_read = True
            if self.check_token(DirectiveToken):
                self.process_directives()  # checked; the stream's end may follow them
            if not self.check_token(StreamEndToken):
                self._another_document()
            return self.parse_document_start()
        return super().parse_implicit_document_start()

    # -- empty implicit keys: `: value` ----------------------------------------------------------
    # eemeli/yaml: a line opening with a bare `:` deeper than a block mapping whose last entry
    # has its value (`1: x\n :`) is that mapping's next entry, with an empty key; the scanner
    # opened a mapping at the `:`'s column (as after an entry with no value, `a:\n :`), undone
    def parse_block_mapping_key(self) -> Any:
        if self.empty_value:
            self.empty_value = False
            self._no_tab_line_after_empty_value()
        if self.check_token(KeyToken) and self.peek_token().start_mark.column != self.marks[-1].column:
            # (where a sequence at that column ended: `a:\n - b\n c: d`)
            raise EemeliError("All mapping items must start at the same column", self.peek_token().start_mark)
        if self._bare_value_opened_mapping():
            self._drop_indent_after_line(self.get_token().start_mark)
        if self.check_token(ValueToken):
            self.state = self.parse_block_mapping_value
            return self.process_empty_scalar(self.peek_token().start_mark)
        if self.check_token(KeyToken):  # PyYAML's, with one more refusal
            key = self.get_token()
            if self._bare_value_opened_mapping() and self.peek_token().start_mark.line > key.start_mark.line:
                # eemeli/yaml: a bare `?`, then a `:` deeper on a later line: the key's `:`
                self._explicit_value_deeper()
            if self.check_token(KeyToken, ValueToken, BlockEndToken):
                self.state = self.parse_block_mapping_value
                self.bare_explicit_key = True
                return self.process_empty_scalar(key.end_mark)
            token = self.peek_token()
            if (
                isinstance(token, ScalarToken)
                and token.style in ("|", ">")
                and token.start_mark.line > key.start_mark.line
                and token.start_mark.column == key.start_mark.column
            ):
                # eemeli/yaml: a block scalar at the `?`'s column on a later line is no part of
                # that empty key but a new, implicit one, which a block scalar cannot be
                raise EemeliError("Implicit keys need to be on a single line", token.start_mark)
            self.states.append(self.parse_block_mapping_value)
            return self.parse_block_node_or_indentless_sequence()
        return super().parse_block_mapping_key()

    indent_to_drop: tuple[int, int] | None  # (the scanner's, as those below)
    explicit_value_at: tuple[int, int, int, int] | None
    empty_key_line: int
    property_tokens: int
    explicit_key_columns: set[int]

    def _drop_indent_after_line(self, mark: Any) -> None:
        # the indentation at the `:` stays the scanner's to its line's end: a value on that line
        # continues on lines indented past the `:` (eemeli/yaml's lexer counts the line's
        # indentation); then it is dropped with no block end, the parser's collection being gone
        self.indent_to_drop = (mark.line, mark.column)

    def _explicit_value_deeper(self) -> None:
        """Take the `:` after the mapping a bare `:` opened for the explicit key's (that mapping
        undone); the scanner learns it is that key's `:`, as if at the key's column."""
        mark = self.get_token().start_mark
        self._drop_indent_after_line(mark)
        produced = self.tokens_taken + len(self.tokens)
        self.explicit_value_at = (mark.line, self.marks[-1].column, produced, self.property_tokens)
        self.explicit_key_columns.discard(self.marks[-1].column)

    def _bare_value_opened_mapping(self) -> bool:
        """Whether the next tokens are the block mapping a bare `:` opened and that `:`."""
        if not self.check_token(BlockMappingStartToken):
            return False
        tokens = self.tokens
        return (
            len(tokens) > 1
            and isinstance(tokens[1], ValueToken)
            and tokens[1].start_mark.index == tokens[0].start_mark.index
        )

    # eemeli/yaml: a bare `:` at the column of a block sequence that is a block mapping's value
    # (`a:\n - 1\n :`) ends the sequence and is the mapping's next entry, with an empty key
    def parse_block_sequence_entry(self) -> Any:
        if (
            self.check_token(ValueToken)
            and self.peek_token().start_mark.column == self.marks[-1].column
            and self.states
            and self.states[-1] == self.parse_block_mapping_key
        ):
            mark = self.peek_token().start_mark
            self._drop_indent_after_line(mark)
            self.state = self.states.pop()
            self.marks.pop()
            return SequenceEndEvent(mark, mark)
        if not self.check_token(BlockEntryToken, BlockEndToken, StreamEndToken, ValueToken):
            # eemeli/yaml: another node at the sequence's column ends it; what is around it
            # takes that node (as its next entry, or passed over after an explicit key)
            token = self.peek_token()
            if token.start_mark.column == self.marks[-1].column and self._first_on_its_line(token):
                self._drop_indent_after_line(token.start_mark)
                self.state = self.states.pop()
                self.marks.pop()
                return SequenceEndEvent(token.start_mark, token.start_mark)
        if self.check_token(BlockEntryToken):
            entry = self.get_token()
            token = self.peek_token()
            if (
                token is not None
                and not isinstance(token, (BlockEntryToken, BlockEndToken))
                and token.start_mark.column <= self.marks[-1].column
                and self._first_on_its_line(token)
            ):
                # eemeli/yaml: a node on a later line no deeper than the `-` is no item's value
                self.state = self.parse_block_sequence_entry
                return self.process_empty_scalar(entry.end_mark)
            if not self.check_token(BlockEntryToken, BlockEndToken):
                self.states.append(self.parse_block_sequence_entry)
                return self.parse_block_node()
            self.state = self.parse_block_sequence_entry
            return self.process_empty_scalar(entry.end_mark)
        return super().parse_block_sequence_entry()

    def _first_on_its_line(self, token: Any) -> bool:
        start = token.start_mark.index
        line_start = max(self.buffer.rfind("\n", 0, start), self.buffer.rfind("\r", 0, start)) + 1
        return not self.buffer[line_start:start].strip(" ")

    def parse_flow_mapping_key(self, first: bool = False) -> Any:
        if not self.check_token(FlowMappingEndToken):
            if not first:
                if self.check_token(FlowEntryToken):
                    self.get_token()
                else:
                    token = self.peek_token()
                    raise ParserError(
                        "while parsing a flow mapping",
                        self.marks[-1],
                        f"expected ',' or '}}', but got {token.id!r}",
                        token.start_mark,
                    )
            if self.check_token(ValueToken):
                self.state = self.parse_flow_mapping_value
                return self.process_empty_scalar(self.peek_token().start_mark)
            return super().parse_flow_mapping_key(first=True)
        return super().parse_flow_mapping_key(first=True)

    def parse_flow_sequence_entry(self, first: bool = False) -> Any:
        if not self.check_token(FlowSequenceEndToken):
            if not first:
                if self.check_token(FlowEntryToken):
                    self.get_token()
                else:
                    token = self.peek_token()
                    raise ParserError(
                        "while parsing a flow sequence",
                        self.marks[-1],
                        f"expected ',' or ']', but got {token.id!r}",
                        token.start_mark,
                    )
            if self.check_token(ValueToken):
                token = self.peek_token()
                self.state = self.parse_flow_sequence_entry_empty_key
                return MappingStartEvent(None, None, True, token.start_mark, token.end_mark, flow_style=True)
            return super().parse_flow_sequence_entry(first=True)
        return super().parse_flow_sequence_entry(first=True)

    # -- what `keytext` needs: which pairs have no value at all (`{ a }`, not `{ a: }`) -----------
    def _missing_value(self, mark: Any) -> Any:
        event = self.process_empty_scalar(mark)
        event.missing = True
        return event

    def parse_block_mapping_value(self) -> Any:
        bare_key, self.bare_explicit_key = self.bare_explicit_key, False
        if self._bare_value_opened_mapping():
            # eemeli/yaml: after an explicit key, a `:` deeper on a later line is its `:` (and
            # with no node after it, a `:` then at the key's column opens a mapping as its value)
            self._explicit_value_deeper()
        if self.check_token(ValueToken):
            event = super().parse_block_mapping_value()
            if event.__class__ is ScalarEvent and not event.value and not event.style:
                self.empty_value = True  # (no node: a plain scalar is never empty)
            return event
        mark = self.peek_token().start_mark
        # eemeli/yaml: the first node after an explicit key on lines of its own, neither a `:`
        # nor the next key (`? k` then `- x`, `? b: 1` then ` k`), is passed over (the key has
        # no value); a second one is the next entry, where it may not be
        if self._passed_over_next():
            self.passing_over = True
            try:
                if self.check_token(BlockEntryToken, KeyToken):  # (an indentless sequence, or a
                    # mapping at the column of a sequence just ended: the scanner opened none)
                    token = self.peek_token()
                    self._skip_entries_at(token.start_mark.column, type(token))
                else:
                    self._skip_node_tokens()
            finally:
                self.passing_over = False
            if self._passed_over_next() and not self._bare_value_opened_mapping():
                token = self.peek_token()
                if isinstance(token, (BlockEntryToken, BlockSequenceStartToken)):
                    raise EemeliError(
                        "A block sequence may not be used as an implicit map key", token.start_mark
                    )
                raise EemeliError("All mapping items must start at the same column", token.start_mark)
            if self.check_token(ValueToken):
                # a `:` now opens the next entry, its key empty: no compact value of the key's
                # (`? k\n- x\n: - y` fails); the scanner has not read past that `:` yet
                self.empty_key_line = self.peek_token().start_mark.line
                self.explicit_value_at = None
        elif not bare_key:
            self.empty_value = True
        self.state = self.parse_block_mapping_key
        return self._missing_value(mark)

    empty_value = False  # the last block mapping entry has no node after its key or `:`
    bare_explicit_key = False  # the last explicit key has no node

    def _skip_entries_at(self, column: int, entry: type) -> None:
        """Consume entries (`entry` tokens) at `column` and all that is deeper."""
        depth = 0
        buffer = self.buffer
        last = -1  # the index the last token taken started at (a key's token and its scalar share one)
        while True:
            token = self.peek_token()
            if token is None or isinstance(token, StreamEndToken):
                return
            start = token.start_mark.index
            if depth <= 0:
                if isinstance(token, BlockEndToken):
                    return
                line_start = max(buffer.rfind("\n", 0, start), buffer.rfind("\r", 0, start)) + 1
                opens_line = start != last and not buffer[line_start:start].strip(" ")
                # (a mapping the scanner opened at that column again, its indentation dropped)
                at_entry = token.start_mark.column == column and (
                    isinstance(token, entry)
                    or (entry is KeyToken and isinstance(token, BlockMappingStartToken))
                )
                if opens_line and token.start_mark.column <= column and not at_entry:
                    return
            if not isinstance(token, BlockEndToken):  # (a block end is where the next token is)
                last = start
            self.get_token()
            if isinstance(token, _OPENING):
                depth += 1
            elif isinstance(token, _CLOSING):
                depth -= 1

    def _passed_over_next(self) -> bool:
        if self.check_token(KeyToken):  # deeper than the mapping: where a sequence ended
            return self.peek_token().start_mark.column > self.marks[-1].column and self._opens_its_line()
        return not self.check_token(BlockEndToken, StreamEndToken, ValueToken) and self._opens_its_line()

    def _no_tab_line_after_empty_value(self) -> None:
        """eemeli/yaml: after an entry with no value, the first line (past deeper comments),
        if its white space holds a tab after no more spaces than the mapping's column, stays
        the entry's where the next entry follows at that column or the text ends on it; a tab
        there is indentation (`a:\n\t\nr:` fails; `a:\n\n\t\nr:` and `a:\n \t\nr:` load)."""
        token = self.peek_token()
        column = self.marks[-1].column
        buffer = self.buffer
        start = token.start_mark.index
        if isinstance(token, (KeyToken, ValueToken)) and token.start_mark.column == column:
            end = buffer.rfind("\n", 0, start)  # the line break before the next entry's line
            if end < 0 or buffer.rfind("\n", 0, end) < 0:
                return
        elif isinstance(token, (BlockEndToken, StreamEndToken)) and buffer[start] == "\0":
            end = start  # the text's end: its last line counts, when white space only
            if buffer.rfind("\n", 0, end) < 0:
                return
        else:
            return
        # the lines back to the last holding a token (or a comment deeper than the mapping)
        gap: list[int] = []  # line starts, last first
        line_end = end
        while True:
            line_start = buffer.rfind("\n", 0, line_end) + 1
            text = buffer[line_start:line_end].rstrip("\r")
            stripped = text.strip(" \t")
            if stripped and (stripped[0] != "#" or len(text) - len(text.lstrip(" ")) > column):
                break
            gap.append(line_start)
            if line_start == 0:
                return
            line_end = line_start - 1
        if not gap:
            return
        # the first of those lines, before the next entry; at the text's end, its last line
        line_start = gap[-1] if end != start else gap[0]
        text = buffer[line_start : buffer.find("\n", line_start) if end != start else end].rstrip("\r")
        spaces = len(text) - len(text.lstrip(" "))
        if "\t" in text and not text.strip(" \t") and spaces <= column:
            tab = line_start + spaces
            line = token.start_mark.line - buffer.count("\n", tab, start)
            raise EemeliError(
                "Tabs are not allowed as indentation", yaml.Mark(self.name, tab, line, spaces, None, 0)
            )

    def _opens_its_line(self) -> bool:
        """A `-` at the mapping's column, or any node deeper, first on its line (a node at the
        mapping's column is its next, implicit key)."""
        token = self.peek_token()
        if token is None:
            return False
        start = token.start_mark.index
        line_start = max(self.buffer.rfind("\n", 0, start), self.buffer.rfind("\r", 0, start)) + 1
        if self.buffer[line_start:start].strip(" "):
            return False
        return isinstance(token, BlockEntryToken) or token.start_mark.column > self.marks[-1].column

    def _skip_node_tokens(self) -> None:
        """Consume one node's tokens (at least one token; never past what closes around it)."""
        depth = 0
        while True:
            if self.peek_token() is None or self.check_token(StreamEndToken):
                return  # (an unclosed flow collection: the stream's end stays for the parser)
            token = self.get_token()
            if isinstance(token, _OPENING):
                depth += 1
            elif isinstance(token, _CLOSING):
                depth -= 1
            if depth <= 0 and (
                isinstance(token, _WHOLE_NODE_END)  # (a scalar, an alias, a closed collection)
                or self.check_token(
                    BlockEntryToken, KeyToken, BlockEndToken, StreamEndToken, ValueToken, *_CLOSING
                )
            ):
                return

    def parse_flow_mapping_value(self) -> Any:
        if self.check_token(ValueToken):
            return super().parse_flow_mapping_value()
        self.state = self.parse_flow_mapping_key
        return self._missing_value(self.peek_token().start_mark)

    def parse_flow_mapping_empty_value(self) -> Any:
        self.state = self.parse_flow_mapping_key
        return self._missing_value(self.peek_token().start_mark)

    def parse_flow_sequence_entry_mapping_value(self) -> Any:
        if self.check_token(ValueToken):
            return super().parse_flow_sequence_entry_mapping_value()
        self.state = self.parse_flow_sequence_entry_mapping_end
        return self._missing_value(self.peek_token().start_mark)

    def parse_flow_sequence_entry_empty_key(self) -> Any:
        self.state = self.parse_flow_sequence_entry_mapping_value
        return self.process_empty_scalar(self.peek_token().start_mark)


class _Composer(Composer):
    """Anchors may be defined again (an alias takes the latest); every node keeps its anchor."""

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self.check_event(AliasEvent):
            event = self.get_event()
            if event.anchor not in self.anchors:
                raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
            return self.anchors[event.anchor]
        event = self.peek_event()
        anchor = event.anchor
        self.depth = getattr(self, "depth", 0) + 1
        try:
            if self.depth > MAX_NESTING:
                raise EemeliError(TOO_DEEP, event.start_mark)
            if self.check_event(ScalarEvent):
                node = self.compose_scalar_node(anchor)
            elif self.check_event(SequenceStartEvent):
                node = self.compose_sequence_node(anchor)
            else:
                node = self.compose_mapping_node(anchor)
        finally:
            self.depth -= 1
        node.anchor = anchor
        if getattr(node, "flow_style", False) is None:
            node.flow_style = False  # an indentless sequence: block style, as libyaml marks it
        return node

    def compose_scalar_node(self, anchor: Any) -> Node:
        event = self.peek_event()
        tag = event.tag
        if tag == "!" and event.implicit[0]:
            event.implicit = (False, False)  # the non-specific tag: a string, whatever it reads as
        missing = getattr(event, "missing", False)
        node = super().compose_scalar_node(anchor)
        if tag is not None:
            node.written_tag = tag  # as the text gave it: keytext writes it back (`[ !!str "" ]`)
        if tag == "!":
            node.tag = STR
        elif (
            node.tag == TIMESTAMP
            and getattr(self, "yaml_version", None) == (1, 1)
            and not is_timestamp(node.value)
        ):
            # the yaml-1.1 schema's timestamp applies only where its test matches: a string
            node.tag = STR
        elif node.tag == "tag:yaml.org,2002:merge" and getattr(self, "yaml_version", None) == (1, 1):
            node.tag = STR  # the yaml-1.1 schema has no `!!merge` tag: unresolved, the text stays
        if missing:
            node.missing = True
        if node.style is None:
            node.style = ""  # plain, as libyaml marks it
        return node

    def compose_sequence_node(self, anchor: Any) -> Node:
        tag = self.peek_event().tag
        node = super().compose_sequence_node(anchor)
        if tag is not None:
            node.written_tag = tag
        return node

    def compose_mapping_node(self, anchor: Any) -> Node:
        tag = self.peek_event().tag
        node = super().compose_mapping_node(anchor)
        if tag is not None:
            node.written_tag = tag
        if not node.flow_style and node.start_mark.column > 0:
            self._flow_key_after_value(node)
        return node

    def _flow_key_after_value(self, node: MappingNode) -> None:
        """eemeli/yaml's parser does not take a flow collection at the start of a line as the key
        of a further entry of an indented block mapping whose previous entry has a value
        (`m:\n  a: 1\n  [x]: 2`): it fails with "Map comment with trailing content"."""
        buffer = self.buffer
        for (_, before), (key, _) in zip(node.value, node.value[1:], strict=False):
            if not isinstance(key, (SequenceNode, MappingNode)) or not key.flow_style:
                continue
            if isinstance(before, ScalarNode) and (
                before.style in ("|", ">")  # a block scalar ends where its lines do
                or (before.value == "" and before.start_mark.index == before.end_mark.index)
            ):
                continue  # `a:` with nothing after it
            start = key.start_mark.index
            line_start = max(buffer.rfind("\n", 0, start), buffer.rfind("\r", 0, start)) + 1
            if buffer[line_start:start].strip(" \t") == "":
                raise EemeliError("Map comment with trailing content", key.start_mark)


# Beyond this, `document` reports "too deep" (as it does past MAX_DEPTH converting): the
# Python composer recurses, three frames a level.
MAX_NESTING = 1000
TOO_DEEP = "too deep"


# The fast paths (`fastpaths`) placed before a stage replace its commonest cases; those after it
# replace PyYAML's methods under it.
class EemeliLoader(
    FastReader,
    FastTokens,
    FastSkipping,
    _Scanner,
    FastScanning,
    _Parser,
    FastEvents,
    _Composer,
    FastComposing,
    BaseResolver,
):
    double_quoted_value = staticmethod(double_quoted_value)  # for `blockfast`, which eemeli imports

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        _Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        BaseResolver.__init__(self)

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            if not implicit[0]:
                return STR
            return PLAIN_11 if getattr(self, "yaml_version", None) == (1, 1) else PLAIN
        return SEQ if kind is SequenceNode else MAP


def compose(text: str) -> Node | None:
    """The node tree eemeli/yaml's rules give `text`; raises yaml.MarkedYAMLError when it refuses."""
    loader = EemeliLoader(text)
    try:
        try:
            return compose_block_text(loader)  # the commonest shape of text, a line at a time
        except NotPlainBlock:
            loader.dispose()
            loader = EemeliLoader(text)
        node: Node | None = loader.get_single_node()
        return node
    finally:
        loader.dispose()


__all__ = ["LONE_CR", "MAP", "PLAIN", "PLAIN_11", "SEQ", "STR", "EemeliError", "EemeliLoader", "compose"]
