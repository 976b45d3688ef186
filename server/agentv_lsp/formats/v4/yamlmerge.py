"""YAML 1.1 merge keys (`<<: *anchor`), which AgentV 4.42.4 turns on (`parse(text, {merge: true})`).

`agentv_lsp.yamlpos` reads YAML the way the v2 runtime did (merge keys off: `<<` stays a
plain key); this pass rewrites the parsed value as eemeli/yaml does with merging on:
a plain `<<` key's map (or each map of a sequence, earlier ones winning) fills in the keys
the mapping does not set itself; explicit keys always win; anything else as a merge source
is an error ("Merge sources must be maps or map aliases").

`parse_yaml_value` is the runtime's `parseYamlValue` on top of it: parse, allow repeated
`<<`, raise the runtime's YAML error, merge. The loader and the grader parser (templates)
both read YAML through it.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.formats.v4.runtime import LoadFailure, quick_contains
from agentv_lsp.formats.v4.yamlbom import parse_yaml_v4
from agentv_lsp.formats.v4.yamlerrors import runtime_error_text
from agentv_lsp.yamlpos import YamlDocument
from agentv_lsp.yamlpos.document import (  # the converter's own key rules
    MERGE_VALUE,
    _js_key,
    _key_string,
    _scalar_value,
)
from agentv_lsp.yamlpos.keytext import collection_key_text

# A mapping may repeat `<<` (the runtime allows it with merging on; the shared parser calls
# it a duplicate key): later ones are renamed to these two-character stand-ins, which keep
# every position in place, and are merged like `<<`.
_STAND_IN = "\ue000"
MAX_REPEATS = 64
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_EXCESSIVE_ALIASES = "Excessive alias count indicates a resource exhaustion attack"


def parse_yaml_value(text: str, file: str) -> Any:
    """`parseYamlValue` (eemeli/yaml with merge keys); raises LoadFailure like the runtime."""
    doc = parse_yaml_v4(text)
    return document_value(doc, file)


def document_value(doc: YamlDocument, file: str) -> Any:
    """The value of an already parsed document, as `parse_yaml_value` gives it."""
    has_merge_keys = _may_merge(doc.text)
    if doc.error is not None and doc.error.kind == "duplicate-key" and has_merge_keys:
        doc = allow_repeated_merge_keys(doc)
        has_merge_keys = _may_merge(doc.text) or _STAND_IN in doc.text  # the text that parsed now
    if doc.error is not None:
        raise LoadFailure(
            runtime_error_text(doc) or doc.error.describe(),
            "v4-yaml-syntax",
            error_type="YAMLParseError",
            file=file,
            yaml_path=None,
        )
    value = doc.value
    if has_merge_keys:
        value = apply_merge_keys(doc, value, file)
    return value


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
    found: list[int] = []
    seen: set[int] = set()
    stack: list[Node] = [doc.root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
                if (
                    isinstance(key, ScalarNode)
                    and not key.style
                    and key.value == "<<"
                    and key.tag.startswith("?plain")
                ):
                    offset = key.end_mark.index - 2
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


def apply_merge_keys(doc: YamlDocument, value: Any, file: str) -> Any:
    if doc.root is None:
        return value
    memo: dict[int, Any] = {}
    building: set[int] = set()  # the mappings being merged now: the path from the root

    def fix(node: Node, current: Any) -> Any:
        key = id(node)
        if key in memo:
            return memo[key]
        if isinstance(node, SequenceNode) and isinstance(current, list):
            result_list: list[Any] = []
            memo[key] = result_list
            result_list.extend(fix(child, item) for child, item in zip(node.value, current, strict=False))
            return result_list
        if isinstance(node, MappingNode) and isinstance(current, dict):
            result: dict[str, Any] = {}
            memo[key] = result
            building.add(key)
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
                            raise LoadFailure(
                                "Merge sources must be maps or map aliases", "v4-yaml-syntax", file=file
                            )
                        if id(source) in building:
                            # a merge of the mapping into itself, or of a mapping around it:
                            # eemeli/yaml's alias count grows without end
                            raise LoadFailure(_EXCESSIVE_ALIASES, "v4-yaml-syntax", file=file)
                        own_keys = _js_string_keys(source, source_value)
                        for merged_key, merged in fix(source, source_value).items():
                            # a merged key is String(key): `~` is "null", `[a, b]` "a,b"
                            result.setdefault(own_keys.get(merged_key, merged_key), merged)
                    continue
                if name is None:
                    name = _collection_key(k_node, current)
                if name is None or name not in current:
                    continue
                result[name] = fix(v_node, current[name])
            building.discard(key)
            return result
        memo[key] = current
        return current

    return fix(doc.root, value)


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
