"""YAML with positions, read exactly the way AgentV's YAML library reads it.

AgentV 4.42.4 reads every YAML file with eemeli/yaml 2.9.1 as `parse(text, {merge: true})`;
this module gives the same value (key order included) and loads or refuses exactly where it
does: all 402 cases of the YAML test suite (tests/yaml_suite). Two readers build the node tree,
the same `yaml.nodes` tree with line/column marks on every node either way:

* libyaml's C composer, first: it reads nearly every eval file as eemeli/yaml does, at C speed.
* the exact reader (`eemeli`: PyYAML's pure-Python stages bent to eemeli/yaml's rules), a few
  times slower (issue 34: `bench_yaml.py`), for the texts libyaml refuses (a tab opening a line of a block scalar,
  an anchor defined twice, `%` directives, multi-line implicit keys in flow mappings...) and
  for those it might read differently without a word, which a pre-scan of substring checks
  finds (`prescan`: `%YAML 1.1`, tags, `?x`, glued comments, `-` alone in a flow collection,
  anchors with a `:`, indentation indicators, escaped line breaks before a blank line...).
  A collection used as a mapping key sends the text there too: eemeli/yaml keys the mapping
  by the collection's YAML text (`"[ a, b ]"`, `keytext`), anchors included.

When both readers refuse a text, libyaml's message is kept where it names the same line (the
message users of earlier versions know); otherwise the exact reader's, in eemeli/yaml's words.

The tree becomes plain JSON-like Python values under YAML 1.2 core-schema rules (`%YAML 1.1`:
eemeli/yaml's yaml-1.1 schema): `yes`/`on`/dates stay strings, `001` is an int, duplicate keys
and multi-document streams are errors, explicit tags act as in eemeli/yaml (`!!binary` a Buffer,
`!!set` and `!!omap` a Set and a Map, unknown tags a string), and aliases obey the same
"excessive alias count" limit as the runtime. Errors come back as data (`YamlError`), never as
exceptions.

Positions are 0-based lines and 0-based columns counted in Unicode code points, as libyaml
reports them (the exact reader marks nodes the same way); the LSP layer converts columns to
UTF-16 when a client needs that.
"""

from __future__ import annotations

import _thread
import bisect
import math
import re
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from sys import intern
from typing import Any, Literal, cast

import yaml
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

import agentv_lsp.yamlpos.eemeli as eemeli
from agentv_lsp.engine.budget import checkpoint, limited
from agentv_lsp.engine.budget import current as current_budget
from agentv_lsp.engine.gcpause import collector_paused
from agentv_lsp.yamlpos.keytext import InvalidAnchor, collection_key_text
from agentv_lsp.yamlpos.prescan import needs_eemeli_rules, tab_indented_lines
from agentv_lsp.yamlpos.scalars import (
    TagResolveError,
    js_json_stringify,
    resolve_plain,
    resolve_plain_11,
    resolve_tagged,
)

# The runtime (eemeli/yaml on V8) dies with "Maximum call stack size exceeded" at about
# 1,500 levels; we stop a little earlier with a clear message.
MAX_DEPTH = 1000
# eemeli/yaml's default `maxAliasCount`.
MAX_ALIAS_COUNT = 100
TOO_DEEP_MESSAGE = (
    f"YAML nesting is deeper than {MAX_DEPTH} levels (AgentV's YAML parser fails with "
    "'Maximum call stack size exceeded' at about 1,500)"
)
# libyaml's parser is quadratic in nesting depth (about 0.4 s at 10,000 levels, 1.5 s at
# 20,000) and its Cython composer recurses on the C stack; texts whose possible depth stays
# under this bound are parsed directly (in a thread with a large stack when needed).
_SAFE_DEPTH_BOUND = 20_000

_COMPOSE_STACK_BYTES = 256 * 1024 * 1024

# libyaml 0.2.6 (bundled from PyYAML 6.0.4) refuses more than 1,000 nested block or flow
# levels ("exceeded maximum nesting depth"), one block level short of our limit and before our
# guard can speak. Texts reaching libyaml nest less than _SAFE_DEPTH_BOUND levels (the guard
# sees to that), so its limit goes up to that bound: a protection kept, never reached first.
# The setter is private to PyYAML; without it libyaml's error is mapped to ours
# (`_LIBYAML_NESTING`).
_LIBYAML_NESTING = "exceeded maximum nesting depth"


def _raise_libyaml_nesting_limit() -> bool:
    try:
        from yaml import _yaml as libyaml_binding
    except ImportError:
        return False
    getter = getattr(libyaml_binding, "_get_max_nest_level", None)
    setter = getattr(libyaml_binding, "_set_max_nest_level", None)
    if getter is None or setter is None:
        return False  # libyaml before 0.2.6 has no limit; a future PyYAML may rename it
    if int(getter()) < _SAFE_DEPTH_BOUND:
        setter(_SAFE_DEPTH_BOUND)
    return True


_raise_libyaml_nesting_limit()
_stack_size_lock = threading.Lock()

_PLAIN = "?plain"  # tag our resolver gives untagged plain scalars: resolved later by YAML 1.2 rules
_STR = "tag:yaml.org,2002:str"
_SET = "tag:yaml.org,2002:set"
_OMAP = "tag:yaml.org,2002:omap"
_PAIRS = "tag:yaml.org,2002:pairs"
_MERGE = "tag:yaml.org,2002:merge"


class _MergeValue:
    """A `!!merge` scalar that is no key: eemeli/yaml's merge marker, which JSON.stringify drops
    from an object and writes as null in an array."""


MERGE_VALUE = _MergeValue()

PathItem = str | int
Path = tuple[PathItem, ...]


@dataclass(frozen=True, slots=True)
class Span:
    """A source range: 0-based lines, 0-based code-point columns, end exclusive."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def __reduce__(self) -> tuple[type[Span], tuple[int, int, int, int]]:
        # a plain constructor call: dataclasses' frozen-slots pickling looks up the fields
        # of every instance (the checker sends thousands of spans between processes)
        return Span, (self.start_line, self.start_col, self.end_line, self.end_col)

    @staticmethod
    def of(node: Node) -> Span:
        s, e = node.start_mark, node.end_mark
        return Span(s.line, s.column, e.line, e.column)


ErrorKind = Literal["syntax", "duplicate-key", "multiple-documents", "alias-limit", "too-deep", "alias"]


@dataclass(frozen=True, slots=True)
class YamlError:
    """Why a text could not be loaded, and where."""

    kind: ErrorKind
    message: str
    span: Span

    def describe(self) -> str:
        return f"{self.message} at line {self.span.start_line + 1}, column {self.span.start_col + 1}"


@dataclass(slots=True)
class YamlDocument:
    """A parsed YAML text: its JSON-like value, its node tree (for positions) and any error."""

    text: str = field(repr=False)
    value: Any = field(default=None, repr=False)
    root: Node | None = field(default=None, repr=False)
    error: YamlError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    # -- positions -------------------------------------------------------------------------
    def node_at(self, path: Path) -> Node | None:
        """The node for a JSON path such as ("evalcases", 0, "id"), or None."""
        node = self.root
        for item in path:
            if node is None:
                return None
            node = _child(node, item)
        return node

    def key_node_at(self, path: Path) -> Node | None:
        """The key node of the mapping entry a path ends in (None for sequence items)."""
        if not path or not isinstance(path[-1], str):
            return None
        parent = self.node_at(path[:-1])
        if not isinstance(parent, MappingNode):
            return None
        pair = _entry(parent, path[-1])
        return pair[0] if pair is not None else None

    def span_of(self, path: Path, *, key: bool = False) -> Span:
        """Best range for a path: the key or value node, or the nearest existing ancestor."""
        if key:
            k = self.key_node_at(path)
            if k is not None:
                return Span.of(k)
        for cut in range(len(path), -1, -1):
            node = self.node_at(path[:cut])
            if node is not None:
                if cut < len(path) and isinstance(node, MappingNode):
                    # A missing key: point at the key of the parent entry if there is one,
                    # else at the start of the mapping, not at the whole (possibly huge) block.
                    parent_key = self.key_node_at(path[:cut]) if cut else None
                    if parent_key is not None:
                        return Span.of(parent_key)
                    s = node.start_mark
                    return Span(s.line, s.column, s.line, s.column + 1)
                return _head_span(node)
        return Span(0, 0, 0, 0)

    def iter_pairs(self, path: Path) -> Iterator[tuple[Node, Node]]:
        node = self.node_at(path)
        if isinstance(node, MappingNode):
            yield from node.value


def _head_span(node: Node) -> Span:
    """A collection's range can be hundreds of lines; diagnostics underline its first line."""
    span = Span.of(node)
    if isinstance(node, ScalarNode) or span.start_line == span.end_line:
        return span
    return Span(span.start_line, span.start_col, span.start_line, span.start_col + 1)


def _child(node: Node, item: PathItem) -> Node | None:
    if isinstance(node, MappingNode) and isinstance(item, str):
        pair = _entry(node, item)
        return pair[1] if pair is not None else None
    if isinstance(node, SequenceNode) and isinstance(item, int) and 0 <= item < len(node.value):
        return cast(Node, node.value[item])
    return None


# Mappings with more entries than this get a key index, built on the first lookup: a file
# with thousands of keys gets a diagnostic on each, and a scan per lookup was quadratic.
_INDEX_FROM = 16
# mapping node -> {key string: its last (key, value) pair}; weak, so an index lives as long
# as its document's tree (which is never changed after parsing).
_key_indexes: weakref.WeakKeyDictionary[MappingNode, dict[str, tuple[Node, Node]]] = (
    weakref.WeakKeyDictionary()
)


def _entry(node: MappingNode, key: str) -> tuple[Node, Node] | None:
    """The last entry of a mapping whose key reads as `key` (the one a JavaScript object keeps)."""
    pairs = node.value
    if len(pairs) <= _INDEX_FROM:
        for pair in reversed(pairs):
            if _key_string(pair[0]) == key:
                return cast(tuple[Node, Node], pair)
        return _binary_alias_entry(pairs, key)
    index = _key_indexes.get(node)
    if index is None:
        index = {}
        for pair in pairs:
            name = _key_string(pair[0])
            if name is not None:
                index[name] = pair
        _key_indexes[node] = index
    return index.get(key) or _binary_alias_entry(pairs, key)


def _binary_alias_entry(pairs: list[Any], key: str) -> tuple[Node, Node] | None:
    """The last entry keyed by an alias (`*b`) of a `!!binary` scalar: eemeli/yaml keys it by the
    alias's text. The alias shares its anchor's node, so the mark is where the anchor wrote it."""
    if not key.startswith("*"):
        return None
    for pair in reversed(pairs):
        k_node = pair[0]
        if (
            isinstance(k_node, ScalarNode)
            and getattr(k_node, "anchor", None) == key[1:]
            and isinstance(_scalar_value(k_node), dict)
        ):
            return cast(tuple[Node, Node], pair)
    return None


def _key_string(node: Node) -> str | None:
    if isinstance(node, ScalarNode):
        text: str = node.value
        tag = node.tag
        # most keys are words: a quoted key, or a plain one no YAML 1.2 rule turns into
        # anything but a string (the test `plain` in `_convert_without_aliases` makes), reads
        # as its text
        if tag == _STR or (
            tag == _PLAIN and text and text[0] not in _NOT_PLAIN_STRING and text not in _KEYWORDS
        ):
            return text
        return _js_key(_scalar_value(node))
    return None


_NO_PATH_RESOLVERS: dict[Any, Any] = {}  # stays empty


class _PositionLoader(yaml.CSafeLoader):
    """libyaml's parser and composer with our own tag resolution (YAML 1.2, applied later)."""

    # The composer calls these around every node, for path-based resolvers we do not use.
    # C-level no-ops instead of PyYAML's Python methods: about 8% of composing.
    descend_resolver = _NO_PATH_RESOLVERS.get  # type: ignore[assignment]  # (parent, index)
    ascend_resolver = tuple  # type: ignore[assignment]  # ()

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _STR
        if kind is SequenceNode:
            return "tag:yaml.org,2002:seq"
        return "tag:yaml.org,2002:map"


def parse_yaml(text: str) -> YamlDocument:
    """Parse one YAML document. Never raises for bad input: see `YamlDocument.error`.

    The garbage collector is paused meanwhile: parsing allocates millions of objects that
    all stay alive, and every collection would rescan them (5x slower on large files).
    """
    with collector_paused():
        return _parse(text)


def _parse(text: str) -> YamlDocument:
    if "\r" in text and _LONE_CR.search(text) is not None and eemeli.LONE_CR not in text:
        return _parse_with_lone_crs(text)
    doc = YamlDocument(text=text)
    end = _end_of(text) if text and not text.endswith(("\n", "\r")) and not _ends_in_tab_line(text) else None
    if end is not None:
        # eemeli/yaml keeps the final line break of a `|`/`>` block scalar that ends the
        # file without one; libyaml drops it. A newline at the end changes nothing else,
        # except positions on the added line: those are moved back to the end of the text.
        # (Save after a last line of white space opening with a tab, where it changes what
        # eemeli/yaml refuses, `a:\n\t`, in a text with no block scalar.)
        text += "\n"
    _parse_into(doc, text)
    if end is not None:
        _keep_inside(doc, end)
    return doc


_LONE_CR = re.compile(r"\r(?!\n)")
# a last line of spaces then a lone CR: eemeli/yaml's lexer ends the block scalar there (left)
_SPACES_THEN_CR = re.compile(r"(?:^|\n) +\r\Z")


def _ends_in_tab_line(text: str) -> bool:
    last = text[text.rfind("\n") + 1 :]
    return last[:1] == "\t" and not last.strip(" \t") and "|" not in text and ">" not in text


def _block_scalar_ends_at(root: Node, index: int) -> bool:
    """Whether a `|` or `>` block scalar of the tree reaches `index`."""
    return any(
        isinstance(node, ScalarNode) and node.style in ("|", ">") and node.end_mark.index >= index
        for node in each_node(root)
    )


def _parse_with_lone_crs(text: str) -> YamlDocument:
    """eemeli/yaml breaks lines at LF and CRLF only: a lone CR is text (`input: hi\\r  x: y` is
    one scalar, then a misplaced `:`). The exact reader reads it as `eemeli.LONE_CR`; positions
    are then moved to the lines an editor counts (a lone CR breaks lines there)."""
    swapped = _LONE_CR.sub(eemeli.LONE_CR, text)
    doc = _parse(swapped)
    if (
        text.endswith("\r")
        and not _SPACES_THEN_CR.search(text)
        and doc.root is not None
        and _block_scalar_ends_at(doc.root, len(text) - 1)
    ):
        # eemeli/yaml strips a `\r` ending a block scalar's line (taking it for a CRLF's):
        # one ending the text there is a line break, not text (`|\n b\r` is "b\n")
        doc = _parse(swapped[:-1] + "\n")
    doc.text = text
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
    lf_starts = [0, *(m.end() for m in re.finditer(r"\n", text))]

    def at(index: int) -> tuple[int, int]:
        line = bisect.bisect_right(starts, index) - 1
        return line, index - starts[line]

    if doc.error is not None:
        span = doc.error.span
        begin = lf_starts[min(span.start_line, len(lf_starts) - 1)] + span.start_col
        stop = lf_starts[min(span.end_line, len(lf_starts) - 1)] + span.end_col
        doc.error = YamlError(doc.error.kind, doc.error.message, Span(*at(begin), *at(stop)))
    seen: set[int] = set()
    stack: list[Node] = [doc.root] if doc.root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for name in ("start_mark", "end_mark"):
            mark = getattr(node, name)
            line, column = at(min(mark.index, len(text)))
            setattr(node, name, yaml.Mark(mark.name, mark.index, line, column, None, 0))
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for pair in node.value:
                stack.extend(pair)
    return doc


def _end_of(text: str) -> tuple[int, int]:
    """(line, column) of the end of a text, counting lines as libyaml and LSP do (LF, CR, CRLF)."""
    line = text.count("\n") + text.count("\r") - text.count("\r\n")
    last_break = max(text.rfind("\n"), text.rfind("\r"))
    return line, len(text) - last_break - 1


def _keep_inside(doc: YamlDocument, end: tuple[int, int]) -> None:
    """Move positions past `end` (on the line break `_parse` added) back to `end`. Only the
    last node at each level (the right spine of the tree) and an error can be there."""
    if doc.error is not None:
        span = doc.error.span
        start, stop = min((span.start_line, span.start_col), end), min((span.end_line, span.end_col), end)
        if (start, stop) != ((span.start_line, span.start_col), (span.end_line, span.end_col)):
            if stop <= start:  # an error at the very end: point at the last character
                start = (start[0], max(start[1] - 1, 0)) if start[1] else start
            doc.error = YamlError(doc.error.kind, doc.error.message, Span(*start, *stop))
    node: Node | None = doc.root
    seen: set[int] = set()
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        _clamp_marks(node, end)
        if isinstance(node, SequenceNode) and node.value:
            node = node.value[-1]
        elif isinstance(node, MappingNode) and node.value:
            key, node = node.value[-1]
            _clamp_marks(key, end)
        else:
            node = None


def _clamp_marks(node: Node, end: tuple[int, int]) -> None:
    for name in ("start_mark", "end_mark"):
        mark = getattr(node, name)
        if (mark.line, mark.column) > end:  # libyaml's marks are read-only: replace them
            setattr(node, name, yaml.Mark(mark.name, mark.index, end[0], end[1], None, 0))


def _parse_into(doc: YamlDocument, text: str) -> None:
    too_deep = _depth_guard(text)
    if too_deep is not None:
        doc.error = too_deep
        return
    text, restore = _hide_non_breaks(text)
    escapes: dict[str, str] = {}  # stand-in escape -> the surrogate escape it replaces
    exact_tree = needs_eemeli_rules(text)
    if eemeli.LONE_CR in text:  # only the exact reader takes a lone CR for text
        restore[eemeli.LONE_CR] = "\r"
        exact_tree = True
    if exact_tree:
        exact = _compose_by_eemeli_rules(text)
        if isinstance(exact, YamlError):
            doc.error = exact
            return
        root = exact
    else:
        composed = _compose_by_libyaml(text, escapes)
        if isinstance(composed, _Refused):  # libyaml refuses: eemeli/yaml may still load it
            exact = _compose_by_eemeli_rules(text, refused=composed.error)
            if isinstance(exact, YamlError):
                doc.error = exact
                return
            root, escapes, exact_tree = exact, {}, True
        elif isinstance(composed, YamlError):
            doc.error = composed
            return
        elif composed is not None and _tab_indents_outside_block_scalars(composed, text):
            exact = _compose_by_eemeli_rules(text)
            if isinstance(exact, YamlError):
                doc.error = exact
                return
            root, escapes, exact_tree = exact, {}, True
        else:
            root = composed
    try:
        _convert_into(doc, root, text, restore, escapes, exact=exact_tree)
    except _NeedsExactTree:
        # a collection as a mapping key: eemeli/yaml keys the mapping by the collection's
        # YAML text, anchors included, which libyaml's tree does not keep
        exact = _compose_by_eemeli_rules(text)
        if isinstance(exact, YamlError):
            doc.error = exact
            return
        _convert_into(doc, exact, text, restore, {}, exact=True)


def _convert_into(
    doc: YamlDocument,
    root: Node | None,
    text: str,
    restore: dict[str, str],
    escapes: dict[str, str],
    *,
    exact: bool,
) -> None:
    doc.root = root
    if root is None:
        return
    if restore or escapes:
        _restore_non_breaks(root, restore, escapes)
    if exact or _may_have_anchors(text):
        doc.error = _unindented_continuation(root, text, exact=exact)
        if doc.error is None:
            try:
                doc.value = _Converter().convert(root, 0)
                if doc.value is MERGE_VALUE:
                    doc.value = None
            except _LoadError as exc:
                doc.error = exc.error
        return
    # The common case: converting collects the nodes `_unindented_continuation` would look
    # at, in the same pass. Its error comes first, whatever the conversion finds.
    suspects: list[_Suspect] = []
    try:
        value = _convert_without_aliases(root, suspects)
    except _LoadError as exc:  # the pass stopped early: look at the whole tree
        doc.error = _unindented_continuation(root, text, exact=exact) or exc.error
        return
    doc.error = _first_unindented(suspects, text, exact=exact) if suspects else None
    if doc.error is None:
        doc.value = value


class _NeedsExactTree(Exception):
    """A libyaml tree holds what only eemeli/yaml's rules read right (a collection key)."""


# Characters libyaml cannot take the way eemeli/yaml does: YAML 1.1 (libyaml) also breaks
# lines at NEL, LS and PS, where YAML 1.2 (eemeli/yaml) breaks only at LF and CR, so text
# pasted from the web with a U+2028 in it loads in AgentV; and libyaml refuses control
# characters (an ANSI colour escape in pasted terminal output, a NUL) that eemeli/yaml keeps
# as ordinary characters. While libyaml reads the text they are swapped for unused
# private-use characters (one code point each, so every position holds), and swapped back in
# the scalars afterwards.
_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _hide_non_breaks(text: str) -> tuple[str, dict[str, str]]:
    if _HIDDEN.search(text) is None:
        return text, {}
    restore: dict[str, str] = {}
    candidate = 0xE000
    for char in sorted(set(_HIDDEN.findall(text))):
        while chr(candidate) in text:
            candidate += 1
        restore[chr(candidate)] = char
        text = text.replace(char, chr(candidate))
        candidate += 1
    return text, restore


def _restore_non_breaks(root: Node, restore: dict[str, str], escapes: dict[str, str] | None = None) -> None:
    table = str.maketrans(restore)
    quoted = {
        chr(int(stand_in[2:], 16)): chr(int(original[2:], 16))
        for stand_in, original in (escapes or {}).items()
    }
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            value = node.value.translate(table)
            if escapes and node.style == '"':  # decoded: stand-in characters -> the pairs they were
                value = value.translate(str.maketrans(quoted))
                value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
            elif escapes and "\\u" in value:  # literal text: the escapes as written
                for stand_in, original in escapes.items():
                    value = value.replace(stand_in, original)
            node.value = value
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                stack.extend((key, value))


# `"\ud83d\ude00"` (how Python's json.dumps writes an emoji) is one character for eemeli/yaml;
# libyaml refuses escaped surrogates. When it does, every escaped surrogate pair becomes two
# escapes of unused private-use characters (same length), turned back into the character
# in double-quoted scalars and into the escapes as written elsewhere. A lone escaped
# surrogate (`"\uD800"`) loads too, and stays in the string as in AgentV's JavaScript one
# (js_json_stringify writes it as an escape; the command line writes U+FFFD, as node does).
_SURROGATE_PAIR = re.compile(
    r"(?<!\\)((?:\\\\)*)(?:(\\u[dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(\\u[dD][89a-fA-F][0-9a-fA-F]{2}))"
)


def _pair_surrogate_escapes(text: str, exc: yaml.MarkedYAMLError, escapes: dict[str, str]) -> str | None:
    if escapes or not (exc.problem or "").startswith("found invalid Unicode character escape code"):
        return None
    stand_ins: dict[str, str] = {}  # escape as written -> its stand-in escape
    candidate = 0xE000

    def stand_in(original: str) -> str:
        nonlocal candidate
        if original not in stand_ins:
            while chr(candidate) in text:
                candidate += 1
            stand_ins[original] = f"\\u{candidate:04X}"
            candidate += 1
        return stand_ins[original]

    def replace(m: re.Match[str]) -> str:
        if m.group(4) is not None:
            return m.group(1) + stand_in(m.group(4))
        return m.group(1) + stand_in(m.group(2)) + stand_in(m.group(3))

    replaced = _SURROGATE_PAIR.sub(replace, text)
    if not stand_ins:
        return None
    escapes.update({new: old for old, new in stand_ins.items()})
    return replaced


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# eemeli/yaml takes a line of nothing but spaces and tabs as a blank line; libyaml stops at
# the tab ("found a tab character that violates indentation"). Such a line (outside block
# scalars, where both read the tab the same way) gets spaces for tabs and the text is read
# again; each retry moves past one line.
_MAX_TAB_RETRIES = 100
_TAB_PROBLEMS = (
    "found a tab character that violates indentation",
    "found character that cannot start any token",
)


def _blank_tab_line(text: str, exc: yaml.MarkedYAMLError) -> str | None:
    mark = exc.problem_mark
    if mark is None or not (exc.problem or "").startswith(_TAB_PROBLEMS):
        return None
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]
    if mark.line >= len(starts):
        return None
    start = starts[mark.line]
    end = starts[mark.line + 1] if mark.line + 1 < len(starts) else len(text)
    line = text[start:end].rstrip("\r\n")
    if "\t" not in line or line.strip(" \t"):
        return None
    return text[:start] + line.replace("\t", " ") + text[start + len(line) :]


# A multi-line quoted scalar or flow collection in block context, and the block collection
# whose entry it is: its further lines need one more space than that collection's entries
# (`_entry_column`).
_Suspect = tuple[ScalarNode | CollectionNode, Node]


def _unindented_continuation(root: Node, text: str, *, exact: bool) -> YamlError | None:
    """What eemeli/yaml's lexer rejects and libyaml accepts: in block context, every further
    line of a quoted string or of a flow collection must be indented more than the block
    entry it belongs to (the mapping's keys, or the `-` of a sequence item). Only the closing
    bracket of the outermost flow collection may sit at that entry's own column.

        key: "first line
        second line"          <- AgentV: Missing closing "quote

    Only multi-line quoted scalars and flow collections are looked at closer. (Without
    anchors, `_convert_without_aliases` collects them while converting instead.)"""
    if not isinstance(root, CollectionNode):
        return None  # a scalar document: no block around it
    suspects: list[_Suspect] = []
    blocks: list[CollectionNode] = [root]
    seen: set[int] = set()  # aliases share nodes
    while blocks:
        node = blocks.pop()
        if node.flow_style or id(node) in seen:
            continue
        seen.add(id(node))
        # a mapping's keys too: a quoted key over several lines is an explicit one (`? "...`)
        children = (
            node.value if node.__class__ is SequenceNode else [n for entry in node.value for n in entry]
        )
        for child in children:
            if child.start_mark.index < node.start_mark.index:
                continue  # an alias (`*d`): its lines are where the anchor's node was written
            if child.__class__ is ScalarNode:
                if child.style in _QUOTED and child.start_mark.line != child.end_mark.line:
                    suspects.append((child, node))
            elif child.flow_style:
                if child.start_mark.line != child.end_mark.line:
                    suspects.append((child, node))
            else:
                blocks.append(child)
    return _first_unindented(suspects, text, exact=exact) if suspects else None


def _first_unindented(suspects: list[_Suspect], text: str, *, exact: bool) -> YamlError | None:
    """The first (in the text) suspect with a line indented too little."""
    lines = _LINE_BREAK.split(text)
    for suspect, block in sorted(suspects, key=lambda s: (s[0].start_mark.line, s[0].start_mark.column)):
        need = max(_entry_column(block, lines), _bare_colon_column(suspect, block)) + 1
        if isinstance(suspect, ScalarNode):
            error = _check_scalar_lines(suspect, need, lines, exact=exact)
        else:
            error = _check_flow_lines(suspect, need, lines)
        if error is not None:
            return error
    return None


_QUOTED = frozenset(('"', "'"))
_SPACES = re.compile(r"[ \t]*")
_PROPERTY = re.compile(r"[&!][^ \t]*")


def _entry_column(block: Node, lines: list[str]) -> int:
    """The column where a block collection's entries start: the first key (`?` for an explicit
    one) or `-`. eemeli/yaml ends a quoted string or a flow collection at a line indented no
    more than that. libyaml's start of the collection is that column, unless an anchor or a tag
    on a line of their own stand before it (`key: &a` then the entries): then the entries start
    at the first token of the next line that holds more than properties and a comment.
    Properties on the first entry's own line belong to its key (`&a key: v`)."""
    line, column = block.start_mark.line, block.start_mark.column
    for number in range(line, len(lines)):
        text = lines[number]
        first = _SPACES.match(text, column if number == line else 0).end()  # type: ignore[union-attr]
        at = first
        while at < len(text) and text[at] in "&!":
            at = _SPACES.match(text, _PROPERTY.match(text, at).end()).end()  # type: ignore[union-attr]
        if at < len(text) and text[at] != "#":
            return first
    return column


def _bare_colon_column(value: Node, block: Node) -> int:
    """The column of the `:` opening the line of `value`'s entry when that entry has no key and
    sits deeper than the mapping's others (`a: 1\n : "v`), else -1: eemeli/yaml's lexer counts
    the `:` line's indentation, not the mapping's."""
    if block.__class__ is not MappingNode:
        return -1
    for key, item in block.value:
        if item is value:
            start = key.start_mark
            empty = key.__class__ is ScalarNode and key.value == "" and key.end_mark.index == start.index
            return start.column if empty and start.line == value.start_mark.line else -1
    return -1


def _short_of(line: str, need: int) -> int | None:
    """The indentation of a scalar's continuation line when it is too small, else None."""
    indent = len(line) - len(line.lstrip(" "))
    return indent if indent < need and line[indent:].strip("\r") else None


def _check_scalar_lines(node: ScalarNode, need: int, lines: list[str], *, exact: bool) -> YamlError | None:
    for number in range(node.start_mark.line + 1, node.end_mark.line + 1):
        indent = _short_of(lines[number], need)
        if indent is not None:
            quote = node.style
            before = lines[number - 1].rstrip("\r")
            opened_here = number - 1 == node.start_mark.line and len(before) == node.start_mark.column + 1
            if not exact and before.endswith(quote) and not opened_here:
                # eemeli/yaml ends the scalar with that quote (escaped or doubled) and reads on:
                # the exact reader cuts it so (`eemeli._quote_cut_by_unindent`)
                raise _NeedsExactTree
            return YamlError(
                "syntax",
                f"Missing closing {quote}quote: AgentV's YAML parser (eemeli/yaml) ends a quoted string at a "
                f"line that is not indented more than its key or '-' (at least {need} spaces)",
                Span(number, indent, number, indent + 1),
            )
    return None


def _check_flow_lines(flow: Node, need: int, lines: list[str]) -> YamlError | None:
    continued: set[int] = set()  # lines that continue a multi-line scalar inside the collection
    stack = [flow]
    seen: set[int] = set()  # an alias inside its own anchored collection (`&a {"x\n y": *a}`)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            continued.update(range(node.start_mark.line + 1, node.end_mark.line + 1))
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            stack.extend(item for pair in node.value for item in pair)
    closing = (flow.end_mark.line, flow.end_mark.column - 1)
    for number in range(flow.start_mark.line + 1, flow.end_mark.line + 1):
        line = lines[number]
        if number in continued:
            indent = _short_of(line, need)
        else:
            spaces = len(line) - len(line.lstrip(" "))
            rest = line[spaces:].lstrip(" \t")
            if not rest.strip("\r") or rest[0] == "#" or spaces >= need:
                continue
            at_closing = spaces == need - 1 and (number, len(line) - len(rest)) == closing
            indent = None if at_closing else spaces
        if indent is not None:
            kind, end = ("sequence", "]") if isinstance(flow, SequenceNode) else ("map", "}")
            return YamlError(
                "syntax",
                f"Flow {kind} in block collection must be sufficiently indented and end with a {end}: "
                f"AgentV's YAML parser (eemeli/yaml) needs every line inside it indented more than its "
                f"key or '-' (at least {need} spaces)",
                Span(number, indent, number, indent + 1),
            )
    return None


_BEFORE_ANCHOR = frozenset(" \t\n\r[{,")
_NOT_ANCHOR_NAME = frozenset(" \t\n\r,[]{}")


def _may_have_anchors(text: str) -> bool:
    """An anchor (`&name`) starts a token: after a space, tab, line break or flow indicator,
    and a name follows. Without one, no node can be shared and aliases need no bookkeeping.
    (Prose such as "R & D" has no name after the '&'.)"""
    position = text.find("&")
    checked = 0
    while position != -1:
        before_ok = position == 0 or text[position - 1] in _BEFORE_ANCHOR
        if before_ok and position + 1 < len(text) and text[position + 1] not in _NOT_ANCHOR_NAME:
            return True
        checked += 1
        if checked > 10_000:
            return True  # not worth scanning further: take the general path
        position = text.find("&", position + 1)
    return False


_NOT_PLAIN_STRING = frozenset("0123456789+-.~")
_KEYWORDS = frozenset(("null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"))


def _convert_without_aliases(root: Node, suspects: list[_Suspect]) -> Any:
    """The common case, kept lean: every node appears once, so no alias bookkeeping. Also
    collects what `_unindented_continuation` would look at (saves a walk over the tree)."""

    def plain(node: ScalarNode) -> Any:
        text: str = node.value
        tag = node.tag
        if tag == _PLAIN:
            # Most plain scalars are prose: only these can resolve to anything but a string.
            if not text or text[0] in _NOT_PLAIN_STRING or text in _KEYWORDS:
                return resolve_plain(text)
            return text
        return _scalar_value(node)

    def convert(node: Node, depth: int) -> Any:
        if type(node) is ScalarNode:
            return plain(node)
        if depth >= MAX_DEPTH:
            raise _LoadError(YamlError("too-deep", TOO_DEEP_MESSAGE, _head_span(node)))
        block = not node.flow_style  # type: ignore[attr-defined]  # a collection here (no cast: hot path)
        if type(node) is SequenceNode:
            if block:
                for c in node.value:
                    if (c.flow_style if type(c) is not ScalarNode else c.style in _QUOTED) and (
                        c.start_mark.line != c.end_mark.line
                    ):
                        suspects.append((c, node))
            return [plain(c) if type(c) is ScalarNode else convert(c, depth + 1) for c in node.value]
        mapping: dict[str, Any] = {}
        numeric_keys = False
        # identities of the keys so far, kept from a mapping's first key collision on
        identities: set[tuple[str, Any]] | None = None
        for k_node, v_node in node.value:
            if type(k_node) is ScalarNode:
                if block and k_node.style in _QUOTED and k_node.start_mark.line != k_node.end_mark.line:
                    suspects.append((k_node, node))  # an explicit key (`? "...`) over several lines
                raw_key = plain(k_node)
                # interned: a few keys repeat thousands of times, and every `.get("role")`
                # then finds its key by identity instead of comparing the text
                key = intern(raw_key) if type(raw_key) is str else _js_key(raw_key)
            else:  # a collection as a key: only eemeli/yaml's rules read it (`eemeli`)
                raise _NeedsExactTree
            if key in mapping:
                if identities is None:
                    identities = _identities_before(cast(MappingNode, node), k_node)
                _check_duplicate(identities, k_node)
            else:
                if identities is not None and type(k_node) is ScalarNode:
                    identities.add(_key_identity(_scalar_value(k_node)))
                if key[:1].isdigit():
                    numeric_keys = True
            if type(v_node) is ScalarNode:
                if block and v_node.style in _QUOTED and v_node.start_mark.line != v_node.end_mark.line:
                    suspects.append((v_node, node))
                mapping[key] = plain(v_node)
            else:
                if block and v_node.flow_style and v_node.start_mark.line != v_node.end_mark.line:
                    suspects.append((v_node, node))
                mapping[key] = convert(v_node, depth + 1)
        if numeric_keys:
            _order_like_js_object(mapping)
        return mapping

    return convert(root, 0)


def _key_identity(value: Any) -> tuple[str, Any]:
    """What eemeli/yaml compares to find duplicate keys (`a.value === b.value`). JavaScript has
    one number type, so `1`, `1.0` and `0x1` are the same key, while `1` and `"1"` are not."""
    if isinstance(value, dict) or value is MERGE_VALUE:  # a `!!binary` Buffer, a merge key: by identity
        return ("object", object())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value != value:  # NaN === NaN is false: `.nan` keys are never duplicates
            return ("nan", object())
        try:
            return ("number", float(value))
        except OverflowError:  # an integer beyond a double: Number() gives +/-Infinity
            return ("number", math.copysign(math.inf, value))
    return (type(value).__name__, value)


def _identities_before(mapping: MappingNode, key_node: Node) -> set[tuple[str, Any]]:
    """The identities of a mapping's scalar keys up to and including `key_node`."""
    found: set[tuple[str, Any]] = set()
    for other, _v in mapping.value:
        if isinstance(other, ScalarNode) and other is not key_node:
            found.add(_key_identity(_scalar_value(other)))
        if other is key_node:
            break
    return found


def _check_duplicate(identities: set[tuple[str, Any]], key_node: Node) -> None:
    """Two keys that become the same JavaScript key: an error only if eemeli/yaml sees the
    same scalar (`1` and `"1"` differ there, though the object ends up with one key).
    `identities` holds the keys before this one; this key's is added."""
    if not isinstance(key_node, ScalarNode):
        return
    ident = _key_identity(_scalar_value(key_node))
    if ident in identities:
        raise _LoadError(
            YamlError("duplicate-key", "Map keys must be unique (duplicate key)", Span.of(key_node))
        )
    identities.add(ident)


def each_node(root: Node) -> Iterator[Node]:
    """Every node of a tree once (an anchored node shared by aliases too), depth first."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for pair in node.value:
                stack.extend(pair)


def _tab_indents_outside_block_scalars(root: Node, text: str) -> bool:
    """Whether a line indented with a tab lies outside every block scalar of libyaml's tree
    (see `tab_indented_lines`): then the exact reader decides."""
    lines = tab_indented_lines(text)
    if not lines:
        return False
    inside: set[int] = set()
    for node in each_node(root):
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            last = node.end_mark.line if node.end_mark.column else node.end_mark.line - 1
            inside.update(range(node.start_mark.line + 1, last + 1))
    return any(line not in inside for line in lines)


@dataclass(frozen=True, slots=True)
class _Refused:
    """libyaml refused a text (its error, reported if eemeli/yaml's rules refuse it too)."""

    error: YamlError


def _compose_by_libyaml(text: str, escapes: dict[str, str]) -> Node | YamlError | _Refused | None:
    retries = 0
    while True:
        try:
            return _compose(text)
        except yaml.MarkedYAMLError as exc:
            if _LIBYAML_NESTING in (exc.problem or ""):
                return _from_marked(exc)
            retry = _blank_tab_line(text, exc) if retries < _MAX_TAB_RETRIES else None
            if retry is None:
                retry = _pair_surrogate_escapes(text, exc, escapes)
            if retry is None:
                return _Refused(_from_marked(exc))
            text, retries = retry, retries + 1
        except yaml.YAMLError as exc:  # unmarked reader errors
            return YamlError("syntax", f"YAML error: {exc}", Span(0, 0, 0, 0))


def _compose_by_eemeli_rules(text: str, refused: YamlError | None = None) -> Node | YamlError | None:
    """The tree eemeli/yaml's rules give (`eemeli`), or why they refuse the text (`refused`:
    libyaml's error, when it refused the text first)."""
    try:
        return _eemeli_compose(text)
    except eemeli.EemeliError as exc:
        if exc.problem == eemeli.TOO_DEEP:
            line, col = (exc.problem_mark.line, exc.problem_mark.column) if exc.problem_mark else (0, 0)
            return YamlError("too-deep", TOO_DEEP_MESSAGE, Span(line, col, line, col + 1))
        error = _from_marked(exc)
    except yaml.MarkedYAMLError as exc:
        error = _from_marked(exc)
    except yaml.YAMLError as exc:
        error = YamlError("syntax", f"YAML error: {exc}", Span(0, 0, 0, 0))
    except RecursionError:
        return YamlError("too-deep", TOO_DEEP_MESSAGE, Span(0, 0, 0, 1))
    if refused is None and error.kind == "syntax":
        try:
            _compose(text)
        except yaml.MarkedYAMLError as exc:
            refused = _from_marked(exc)
        except yaml.YAMLError:
            pass
    # Both refuse: libyaml's message (the one users of earlier versions know) where it names
    # the same line; else ours, in eemeli/yaml's words (libyaml may blame a line eemeli/yaml
    # reads, such as a tab opening a line of a block scalar).
    if refused is not None and refused.span.start_line == error.span.start_line:
        return refused
    return error


def _eemeli_compose(text: str) -> Node | None:
    if len(text) < 8_000:
        return eemeli.compose(text)
    return _in_big_stack(eemeli.compose, text)


def _compose(text: str) -> Node | None:
    if len(text) < 8_000:  # cannot nest deep enough to threaten the C stack
        return _compose_here(text)
    return _in_big_stack(_compose_here, text)


def _in_big_stack(compose: Callable[[str], Node | None], text: str) -> Node | None:
    # The Cython composer recurses on the C stack: give it room in a thread of its own.
    result: list[Node | None] = []
    failure: list[BaseException] = []
    budget = current_budget()  # the caller's: the exact reader stops at its checkpoints

    def work() -> None:
        try:
            if budget is None:
                result.append(compose(text))
            else:
                with limited(budget):
                    result.append(compose(text))
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    with _stack_size_lock:
        old = _thread.stack_size(_COMPOSE_STACK_BYTES)
        try:
            worker = threading.Thread(target=work, name="yaml-compose", daemon=True)
            worker.start()
        finally:
            _thread.stack_size(old)
    worker.join()
    if failure:
        # popped, not kept in the list: the exception's traceback holds this closure's frame
        # (and, once raised here, the callers' frames: a whole document model), and a list it
        # is in would make that a cycle the frozen collector never frees
        raise failure.pop()
    return result[0]


def _compose_here(text: str) -> Node | None:
    loader = _PositionLoader(text)
    try:
        node: Node | None = loader.get_single_node()
        return node
    finally:
        loader.dispose()


_EVENTS_TO_CHECKPOINT = 1024


def _depth_guard(text: str) -> YamlError | None:
    """Reject nesting deeper than MAX_DEPTH before libyaml spends quadratic time on it.

    Nesting depth is at most the number of flow brackets plus the longest line (block
    nesting needs a column per level), so most texts are cleared by two C-speed scans.
    Only texts that cannot be cleared that way are walked event by event, stopping as soon
    as the limit is passed.
    """
    if len(text) < _SAFE_DEPTH_BOUND:
        return None
    if (
        text.count("[") + text.count("{") < _SAFE_DEPTH_BOUND // 2
        and _longest_line(text) < _SAFE_DEPTH_BOUND // 2
    ):
        return None  # brackets + longest line < bound, so the depth is too
    depth = events = 0
    loader = _PositionLoader(text)
    try:
        while True:
            event = loader.get_event()
            if event is None:
                return None
            events += 1
            if not events % _EVENTS_TO_CHECKPOINT:
                checkpoint()  # a second per 400 KB of deep flow collections: the budget may stop it
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    line, col = (
                        (event.start_mark.line, event.start_mark.column) if event.start_mark else (0, 0)
                    )
                    return YamlError(
                        "too-deep",
                        TOO_DEEP_MESSAGE,
                        Span(line, col, line, col + 1),
                    )
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        if _LIBYAML_NESTING in (exc.problem or ""):
            return _from_marked(exc)
        return None  # the real parse reports the syntax error with its position
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


def _longest_line(text: str) -> int:
    return max(map(len, text.split("\n")))


def _from_marked(exc: yaml.MarkedYAMLError) -> YamlError:
    mark = exc.problem_mark or exc.context_mark
    line, col = (int(mark.line), int(mark.column)) if mark is not None else (0, 0)
    problem = exc.problem or "syntax error"
    kind: ErrorKind = "syntax"
    if "expected a single document" in (exc.context or "") or "expected a single document" in problem:
        kind = "multiple-documents"
        message = (
            "The file contains more than one YAML document (a '---' separator); AgentV reads exactly one"
        )
    elif _LIBYAML_NESTING in problem:  # libyaml's own limit, if ever reached first: our diagnostic
        kind, message = "too-deep", TOO_DEEP_MESSAGE
    elif "undefined alias" in problem or "found duplicate anchor" in problem:
        kind = "alias"
        message = f"YAML alias error: {problem}"
    else:
        context = f" ({exc.context})" if exc.context else ""
        message = f"YAML syntax error: {problem}{context}"
    return YamlError(kind, message, Span(line, col, line, col + 1))


class _LoadError(Exception):
    def __init__(self, error: YamlError) -> None:
        super().__init__(error.message)
        self.error = error


class _AnchorUse:
    __slots__ = ("alias_weight", "count")

    def __init__(self) -> None:
        self.count = 1  # the anchored definition itself counts once, as in eemeli/yaml
        self.alias_weight = 0


class _Converter:
    """Node tree -> JSON-like values, with the runtime's duplicate-key and alias rules."""

    def __init__(self) -> None:
        self.values: dict[int, Any] = {}
        self.anchors: dict[int, _AnchorUse] = {}
        # children of a collection that were written as aliases (for the alias weight)
        self.alias_children: dict[int, set[int]] = {}

    def convert(self, node: Node, depth: int) -> Any:
        key = id(node)
        if key in self.values:
            return self._alias(node)
        if isinstance(node, ScalarNode):
            value = _scalar_value(node)
        elif depth >= MAX_DEPTH:
            raise _LoadError(YamlError("too-deep", TOO_DEEP_MESSAGE, _head_span(node)))
        elif (node.tag == _SET and isinstance(node, MappingNode)) or (
            node.tag == _OMAP and isinstance(node, SequenceNode)
        ):
            # `!!set` on a mapping, `!!omap` on a sequence: a JavaScript Set or Map, which
            # JSON.stringify prints as {} (read as usual first, for the same errors: duplicate
            # keys, aliases, depth). On the other kind of collection the tag is passed over.
            self.values[key] = {}
            if isinstance(node, MappingNode):
                self._fill_mapping(node, {}, depth)
                if not all(_is_null_value(v) for _, v in node.value):
                    raise _LoadError(
                        YamlError("syntax", "Set items must all have null values", _head_span(node))
                    )
            else:
                for child in node.value:
                    self.convert(child, depth + 1)
                _check_pairs(node, ordered=True)
            return self.values[key]
        elif isinstance(node, SequenceNode):
            if node.tag == _PAIRS:
                _check_pairs(node, ordered=False)
            items: list[Any] = []
            self.values[key] = items
            for child in node.value:
                if id(child) in self.values:
                    self.alias_children.setdefault(key, set()).add(id(child))
                item = self.convert(child, depth + 1)
                if node.tag == _PAIRS and isinstance(child, ScalarNode):
                    item = {_js_key(item): None}  # `!!pairs [a]`: the pair `a:` with no value
                items.append(None if item is MERGE_VALUE else item)
            return items
        else:
            mapping: dict[str, Any] = {}
            self.values[key] = mapping
            self._fill_mapping(cast(MappingNode, node), mapping, depth)
            return mapping
        self.values[key] = value
        return value

    def _fill_mapping(self, node: MappingNode, mapping: dict[str, Any], depth: int) -> None:
        seen: dict[tuple[str, Any], Node] = {}
        numeric_keys = False
        for k_node, v_node in node.value:
            key_is_alias = id(k_node) in self.values
            for child in (k_node, v_node):
                if id(child) in self.values:
                    self.alias_children.setdefault(id(node), set()).add(id(child))
            raw_key = self.convert(k_node, depth + 1)
            if isinstance(k_node, ScalarNode):
                if key_is_alias and isinstance(raw_key, dict):
                    # an alias of a `!!binary` Buffer: eemeli/yaml keys it by the alias's text
                    if not hasattr(k_node, "anchor"):
                        raise _NeedsExactTree  # a libyaml tree: no anchor to write the key with
                    key = "*" + str(k_node.anchor)
                else:
                    key = _js_key(raw_key)
                # eemeli/yaml compares scalar keys by value, anything else (an alias too) by identity
                if not key_is_alias:
                    ident = _key_identity(raw_key)
                    if ident in seen:
                        raise _LoadError(
                            YamlError(
                                "duplicate-key", "Map keys must be unique (duplicate key)", Span.of(k_node)
                            )
                        )
                    seen[ident] = k_node
            else:
                if not hasattr(k_node, "anchor"):
                    raise _NeedsExactTree  # a libyaml tree: no anchors to write the key with
                try:
                    key = collection_key_text(k_node, alias=key_is_alias)
                except InvalidAnchor as exc:
                    raise _LoadError(YamlError("syntax", str(exc), Span.of(k_node))) from exc
            if key[:1].isdigit():
                numeric_keys = True
            value = self.convert(v_node, depth + 1)
            if value is MERGE_VALUE:  # JSON.stringify drops the key (a merge key's is merged later)
                mapping.pop(key, None)
                continue
            mapping[key] = value
        if numeric_keys:
            _order_like_js_object(mapping)

    def _alias(self, node: Node) -> Any:
        use = self.anchors.get(id(node))
        if use is None:
            use = self.anchors[id(node)] = _AnchorUse()
        use.count += 1
        if use.alias_weight == 0:
            use.alias_weight = self._alias_weight(node)
        if use.count * use.alias_weight > MAX_ALIAS_COUNT:
            raise _LoadError(
                YamlError(
                    "alias-limit",
                    "Excessive alias count indicates a resource exhaustion attack "
                    f"(an anchor is expanded more than {MAX_ALIAS_COUNT} times)",
                    _head_span(node),
                )
            )
        return self.values[id(node)]

    def _alias_weight(self, node: Node, within: frozenset[int] = frozenset()) -> int:
        """eemeli/yaml's getAliasCount: 1 for a scalar, else the heaviest child. `within`: the
        collections being weighed around `node`; one met again is an alias inside its own
        anchored node (`&a {x: [*a]}`), weighed as an alias, never walked again."""
        if isinstance(node, ScalarNode):
            return 1
        aliased = self.alias_children.get(id(node), set())
        children: list[Node] = (
            [c for pair in node.value for c in pair] if isinstance(node, MappingNode) else list(node.value)
        )
        within = within | {id(node)}
        heaviest = 0
        for child in children:
            if id(child) in aliased or id(child) in within:
                use = self.anchors.get(id(child))
                weight = use.count * use.alias_weight if use is not None else 0
            else:
                weight = self._alias_weight(child, within)
            heaviest = max(heaviest, weight)
        return heaviest


def _is_null_value(node: Node) -> bool:
    """eemeli/yaml's hasAllNullValues for one value: none, or an untagged scalar reading null."""
    return (
        isinstance(node, ScalarNode) and node.tag in (_PLAIN, eemeli.PLAIN_11) and _scalar_value(node) is None
    )


def _check_pairs(node: SequenceNode, *, ordered: bool) -> None:
    """`!!pairs`/`!!omap` items: one pair each; an omap's scalar keys unique (by value)."""
    seen: list[Any] = []
    for item in node.value:
        if isinstance(item, MappingNode) and len(item.value) > 1:
            raise _LoadError(
                YamlError("syntax", "Each pair must have its own sequence indicator", _head_span(node))
            )
        pair_key = item.value[0][0] if isinstance(item, MappingNode) and item.value else item
        if ordered and isinstance(pair_key, ScalarNode):
            value = _scalar_value(pair_key)
            if value in seen:
                raise _LoadError(
                    YamlError(
                        "syntax",
                        f"Ordered maps must not include duplicate keys: {_js_key(value)}",
                        _head_span(node),
                    )
                )
            seen.append(value)


def _scalar_value(node: ScalarNode) -> Any:
    tag = node.tag
    text: str = node.value
    if tag == _MERGE:
        return MERGE_VALUE
    if tag == _PLAIN:
        return resolve_plain(text)
    if tag == _STR or tag is None:
        return text
    if tag == eemeli.PLAIN_11:
        return resolve_plain_11(text)
    # An explicit tag: a core tag applies when the text fits it, `!!binary` and `!!timestamp`
    # give their values, and unknown tags (`!custom`) keep the string, as in eemeli/yaml.
    try:
        return resolve_tagged(tag, text)
    except TagResolveError as exc:
        raise _LoadError(YamlError("syntax", str(exc), Span.of(node))) from None


def _js_key(value: Any) -> str:
    """How a scalar key becomes a JavaScript object key (String(key), null -> "")."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if value is MERGE_VALUE:  # a `!!merge` key: the merge-key pass (formats/v4) merges it
        return "<<"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):  # a `!!binary` Buffer: String(buffer) is its bytes as UTF-8
        return bytes(value["data"]).decode("utf-8", "replace")
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return js_json_stringify(value)
    return str(value)


def _order_like_js_object(mapping: dict[str, Any]) -> None:
    """JavaScript objects list array-index keys first, in ascending numeric order."""
    index_keys = sorted(
        (
            k
            for k in mapping
            if k.isascii() and k.isdigit() and (k == "0" or k[0] != "0") and int(k) < 2**32 - 1
        ),
        key=int,
    )
    if not index_keys:
        return
    first = set(index_keys)
    rest = [(k, v) for k, v in mapping.items() if k not in first]
    ordered = [(k, mapping[k]) for k in index_keys] + rest
    mapping.clear()
    mapping.update(ordered)


def ensure_recursion_headroom() -> None:
    """Conversion takes up to two Python frames per nesting level (a sequence's list
    comprehension, a mapping's `_fill_mapping`), at most MAX_DEPTH levels, on top of the
    caller's own stack."""
    if sys.getrecursionlimit() < 2 * MAX_DEPTH + 1000:
        sys.setrecursionlimit(2 * MAX_DEPTH + 1000)


ensure_recursion_headroom()
