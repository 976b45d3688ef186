"""YAML 1.1 merge keys (`<<: *anchor`), which AgentV 4.42.4 turns on (`parse(text, {merge: true})`).

`agentv_lsp.yamlpos` reads YAML the way the v2 runtime did (merge keys off: `<<` stays a
plain key); this pass rewrites the parsed value as eemeli/yaml does with merging on:
a plain `<<` key's map (or each map of a sequence, earlier ones winning) fills in the keys
the mapping does not set itself; explicit keys always win; anything else as a merge source
is an error ("Merge sources must be maps or map aliases").

`parse_yaml_value` is the runtime's `parseYamlValue` on top of it: parse, allow repeated
`<<`, raise the runtime's YAML error, merge. The loader and the grader parser (templates)
both read YAML through it.

`read_yaml_v4` is the same reading with positions, for everything that judges a 4.x file (the
check, validate's parity, the schema, lint, losses, the editor): a `MergedDocument` whose value
is that value and whose node tree holds the same pairs, each merged key and value being the
nodes where they were written (the anchor's text), `<<` entries gone. Given to the loader, it is
not read again: check and preview see one value by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.engine.gcpause import collector_paused
from agentv_lsp.formats.v4.runtime import LoadFailure, quick_contains
from agentv_lsp.formats.v4.yamlbom import parse_yaml_v4
from agentv_lsp.formats.v4.yamlerrors import runtime_error_text
from agentv_lsp.yamlpos import Span, YamlDocument, YamlError
from agentv_lsp.yamlpos.document import (  # the converter's own key rules
    MERGE_VALUE,
    _js_key,
    _key_string,
    _scalar_value,
    each_node,
)
from agentv_lsp.yamlpos.keytext import collection_key_text

# A mapping may repeat `<<` (the runtime allows it with merging on; the shared parser calls
# it a duplicate key): later ones are renamed to these two-character stand-ins, which keep
# every position in place, and are merged like `<<`.
_STAND_IN = "\ue000"
MAX_REPEATS = 64
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_EXCESSIVE_ALIASES = "Excessive alias count indicates a resource exhaustion attack"


@dataclass(slots=True)
class MergedDocument(YamlDocument):
    """A 4.x file as the runtime reads it (`read_yaml_v4`): `value` and `root` with merge keys
    applied, `error` the YAML error the runtime stops at (after repeated `<<` are allowed), or
    the merge it refuses, at the source that is no map (then `merge_error` is the runtime's
    message, `value` None and `root` the tree as written)."""

    merge_error: str | None = None


def parse_yaml_value(text: str, file: str) -> Any:
    """`parseYamlValue` (eemeli/yaml with merge keys); raises LoadFailure like the runtime."""
    return document_value(read_yaml_v4(text), file)


def read_yaml_v4(text: str) -> MergedDocument:
    """The one reading of a 4.x YAML text (see the module docstring)."""
    return merged_document(parse_yaml_v4(text))


def merged_document(doc: YamlDocument) -> MergedDocument:
    """`doc` (a `parse_yaml_v4` result) read as the runtime reads it; a MergedDocument as is."""
    if isinstance(doc, MergedDocument):
        return doc
    text = doc.text
    if not _may_merge(text):
        return MergedDocument(text=text, value=doc.value, root=doc.root, error=doc.error)
    parsed = doc
    if doc.error is not None and doc.error.kind == "duplicate-key":
        parsed = allow_repeated_merge_keys(doc)
    if parsed.error is not None:
        return MergedDocument(text=text, value=parsed.value, root=parsed.root, error=parsed.error)
    try:
        with collector_paused():  # the walk allocates a node and a value per collection
            value, root = _merge(parsed)
    except _MergeRefused as refused:
        # `agentv validate` too stops there ("Failed to parse YAML: Merge sources must be …")
        error = YamlError("syntax", refused.message, Span.of(refused.source))
        return MergedDocument(text=text, root=parsed.root, error=error, merge_error=refused.message)
    return MergedDocument(text=text, value=value, root=root)


def document_value(doc: YamlDocument, file: str) -> Any:
    """The value of an already parsed document, as `parse_yaml_value` gives it."""
    merged = merged_document(doc)
    if merged.merge_error is not None:
        raise LoadFailure(merged.merge_error, "v4-yaml-syntax", file=file)
    if merged.error is not None:
        raise LoadFailure(
            runtime_error_text(merged) or merged.error.describe(),
            "v4-yaml-syntax",
            error_type="YAMLParseError",
            file=file,
            yaml_path=None,
        )
    root = merged.root
    if merged.value is None and isinstance(root, ScalarNode) and root.tag == "tag:yaml.org,2002:merge":
        return MERGE_VALUE  # a document that is a `!!merge` scalar: eemeli/yaml's Symbol(<<), not null
    return merged.value


def _may_merge(text: str) -> bool:
    """Whether a text may hold a merge key: `<<`, or the `!!merge` tag on any key."""
    return quick_contains(text, "<<") or quick_contains(text, "merge")


def _is_merge_key(node: Node) -> bool:
    if isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:merge":
        return True  # `!!merge anything:` is a merge key, whatever its text
    if not isinstance(node, ScalarNode) or node.style:
        return False
    value = node.value
    return value == "<<" or (len(value) == 2 and value[0] == _STAND_IN)


def allow_repeated_merge_keys(doc: YamlDocument) -> YamlDocument:
    """Re-parse a text whose only fault is a repeated plain `<<` key in one mapping."""
    offsets = _merge_key_offsets(doc)
    if offsets:  # every plain `<<` key gets a stand-in: a quoted '<<' beside one is no duplicate
        text = doc.text
        for n, offset in enumerate(offsets):
            text = f"{text[:offset]}{_STAND_IN}{chr(0xE001 + n)}{text[offset + 2 :]}"
        retried = parse_yaml_v4(text)
        if retried.error is None or retried.error.kind != "duplicate-key":
            return retried
    return _rename_one_at_a_time(doc)


def _merge_key_offsets(doc: YamlDocument) -> list[int]:
    """Where the untagged plain `<<` keys of the parsed tree are written (anchored ones too)."""
    if doc.root is None:
        return []
    # libyaml's marks do not count a BOM opening the text; the text holds it
    shift = 1 if doc.text.startswith("\ufeff") else 0
    found: list[int] = []
    for node in each_node(doc.root):
        if not isinstance(node, MappingNode):
            continue
        for key, _value in node.value:
            if (
                isinstance(key, ScalarNode)
                and not key.style
                and key.value == "<<"
                and key.tag.startswith("?plain")
            ):
                offset = key.end_mark.index - 2
                if shift and doc.text[offset : offset + 2] != "<<":
                    offset += shift
                if doc.text[offset : offset + 2] != "<<":
                    return []  # marks that do not index the text: the slow way
                found.append(offset)
    return sorted(set(found))[: 0xF8FF - 0xE001]


def _rename_one_at_a_time(doc: YamlDocument) -> YamlDocument:
    text = doc.text
    for n in range(MAX_REPEATS):
        error = doc.error
        if error is None or error.kind != "duplicate-key":
            return doc
        offset = _offset(text, error.span.start_line, error.span.start_col)
        if (
            offset is None
            or text[offset : offset + 2] != "<<"
            or text[offset + 2 : offset + 3] not in (":", " ", "\t")
        ):
            return doc
        text = f"{text[:offset]}{_STAND_IN}{chr(0xE001 + n)}{text[offset + 2 :]}"
        retried = parse_yaml_v4(text)
        if retried.error is not None and retried.error.span == error.span:
            return doc
        doc = retried
    return doc


def _offset(text: str, line: int, column: int) -> int | None:
    start = 0
    for _ in range(line):
        match = _LINE_BREAK.search(text, start)
        if match is None:
            return None
        start = match.end()
    return start + column


class _MergeRefused(Exception):
    def __init__(self, source: Node, message: str) -> None:
        super().__init__(message)
        self.source = source  # the merge source that is not a map, or merges into itself
        self.message = message


_MERGE_SOURCES = "Merge sources must be maps or map aliases"


def _merge(doc: YamlDocument) -> tuple[Any, Node | None]:
    """The value and node tree of `doc` with merge keys applied, built in one walk so that they
    hold the same pairs: a mapping's pairs are its value's keys, in order, each the (key, value)
    nodes where that key was written (an explicit key, or one of a merge source)."""
    if doc.root is None:
        return doc.value, doc.root
    memo: dict[int, tuple[Any, Node]] = {}
    building: set[int] = set()  # the mappings being merged now: the path from the root

    def fix(node: Node, current: Any) -> tuple[Any, Node]:
        key = id(node)
        if key in memo:  # an alias: the anchor's value and nodes, shared
            return memo[key]
        if isinstance(node, SequenceNode) and isinstance(current, list):
            result_list: list[Any] = []
            items: list[Node] = []
            new_sequence = SequenceNode(node.tag, items, node.start_mark, node.end_mark, node.flow_style)
            memo[key] = (result_list, new_sequence)
            for child, item in zip(node.value, current, strict=False):
                fixed, fixed_node = fix(child, item)
                result_list.append(fixed)
                items.append(fixed_node)
            return result_list, new_sequence
        if isinstance(node, MappingNode) and isinstance(current, dict):
            result: dict[str, Any] = {}
            origin: dict[str, tuple[Node, Node]] = {}  # key -> the nodes it was written as
            new_mapping = MappingNode(node.tag, [], node.start_mark, node.end_mark, node.flow_style)
            memo[key] = (result, new_mapping)
            building.add(key)
            if not any(_is_merge_key(k_node) for k_node, _ in node.value):
                # no merge here: the same keys (those the converter could not name too), the
                # values below fixed
                result.update(current)
                pairs: list[tuple[Node, Node]] = []
                for k_node, v_node in node.value:
                    name = _key_string(k_node)
                    if name is not None and name in current:
                        result[name], v_node = fix(v_node, current[name])
                    pairs.append((k_node, v_node))
                new_mapping.value = pairs
                building.discard(key)
                return result, new_mapping
            for k_node, v_node in node.value:
                name = _key_string(k_node)
                if _is_merge_key(k_node):
                    sources = v_node.value if isinstance(v_node, SequenceNode) else [v_node]
                    merged_value: Any = current.get(name) if name is not None else None
                    source_values: list[Any] = (
                        merged_value if isinstance(merged_value, list) else [merged_value]
                    )
                    for source, source_value in zip(sources, source_values, strict=False):
                        if not isinstance(source, MappingNode) or not isinstance(source_value, dict):
                            raise _MergeRefused(source, _MERGE_SOURCES)
                        if id(source) in building:
                            # a merge of the mapping into itself, or of a mapping around it:
                            # eemeli/yaml's alias count grows without end
                            raise _MergeRefused(source, _EXCESSIVE_ALIASES)
                        own_keys = _js_string_keys(source, source_value)
                        fixed_source, source_node = fix(source, source_value)
                        source_origin = _origins(source_node)
                        for written_key, merged in fixed_source.items():
                            # a merged key is String(key): `~` is "null", `[a, b]` "a,b"
                            merged_key = own_keys.get(written_key, written_key)
                            if merged_key not in result:
                                result[merged_key] = merged
                                where = source_origin.get(written_key)
                                if where is not None:
                                    origin[merged_key] = where
                    continue
                if name is None:
                    name = _collection_key(k_node, current)
                if name is None or name not in current:
                    continue
                result[name], fixed_node = fix(v_node, current[name])
                origin[name] = (k_node, fixed_node)  # an explicit key wins, in the merged key's place
            building.discard(key)
            new_mapping.value = [origin[name] for name in result if name in origin]
            return result, new_mapping
        memo[key] = (current, node)
        return current, node

    return fix(doc.root, doc.value)


def _origins(mapping: Node) -> dict[str, tuple[Node, Node]]:
    """A built mapping's pairs by key (the last of a name, as a JavaScript object keeps it)."""
    found: dict[str, tuple[Node, Node]] = {}
    for k_node, v_node in mapping.value if isinstance(mapping, MappingNode) else ():
        name = _key_string(k_node)
        if name is not None:
            found[name] = (k_node, v_node)
    return found


def _collection_key(node: Node, current: dict[str, Any]) -> str | None:
    """The key the converter gave a collection key (its YAML text, or `*anchor` for an alias)."""
    if isinstance(node, ScalarNode):
        return None
    for alias in (False, True):
        text = collection_key_text(node, alias=alias)
        if text in current:
            return text
    return None


def _js_string_keys(source: MappingNode, value: dict[str, Any]) -> dict[str, str]:
    """A merge source's own keys as the converter wrote them -> as merging writes them
    (JavaScript's String(key)), where the two differ."""
    renamed: dict[str, str] = {}
    for k_node, _ in source.value:
        if _is_merge_key(k_node):
            continue
        written = _key_string(k_node) if isinstance(k_node, ScalarNode) else _collection_key(k_node, value)
        if written is not None:
            js = _js_string(k_node)
            if js != written:
                renamed[written] = js
    return renamed


def _js_string(node: Node, in_array: bool = False) -> str:
    if isinstance(node, ScalarNode):
        value = _scalar_value(node)
        if value is None or value is MERGE_VALUE:
            return "" if in_array else "null"
        return _js_key(value)
    if isinstance(node, SequenceNode):
        return ",".join(_js_string(child, in_array=True) for child in node.value)
    return "[object Object]"
