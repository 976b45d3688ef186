"""`textDocument/completion` for 4.x eval files: keys from the 4.x JSON schema at the
cursor's YAML path (suite keys, test keys, message keys, assertion keys, ...), values from
its enums (roles, segment types `text`/`file`/`image`, assertion types, ...), file paths
for `type: file|image` values, `input_files` items, `tests:` and grader `prompt: file://`,
target names for `target`, and a snippet for a new test. Half-typed lines work: the path
comes from the indentation of the lines above (`completion_items.yaml_path_above`).
Deprecated keys and the snake_case spellings of assertion types are not offered."""

from __future__ import annotations

import re

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase
from agentv_lsp.lsp.completion_items import (
    cursor_at,
    file_items,
    key_item,
    present_keys,
    snippet_item,
    target_items,
)
from agentv_lsp.lsp.v4.model import v4_kind_from_path
from agentv_lsp.lsp.v4.schema_nav import keys_for_path, schema_for_path, values_for

NEW_TEST = (
    "- id: ${1:test-id}\n  criteria: ${2:What a good answer does}\n  input: ${3:Question}\n"
    "  expected_output: ${4:Reference answer}"
)
_FILE_TYPE = re.compile(r"\btype:\s*['\"]?(file|image)\b")


def is_eval(path: str, text_head: str) -> bool:
    return v4_kind_from_path(path) == "eval" or bool(
        re.search(r"^\$schema:\s*['\"]?agentv-eval-v2", text_head, re.M)
    )


def completions(
    ls: ServerBase, path: str, lines: list[str], line: int, character: int
) -> list[lsp.CompletionItem]:
    if not is_eval(path, "\n".join(lines[:20])):
        return []
    cursor = cursor_at(lines, line, character, ls.encoding)
    if cursor.key_value:  # after "key: "
        key = cursor.key_value.group(3)
        typed = cursor.key_value.group(4).strip().strip("'\"")
        where = [*cursor.above, *([0] if cursor.in_new_item else []), key]
        nearby = lines[max(0, line - 3) : line + 4]
        if key == "value" and any(_FILE_TYPE.search(n) for n in nearby):
            return file_items(ls, path, typed)
        if key == "tests" and where == ["tests"]:
            return file_items(ls, path, typed)
        if key == "prompt" and any(k in where for k in ("assertions", "assert", "evaluators")):
            if typed.startswith("file://"):
                return [_prefixed(item, "file://") for item in file_items(ls, path, typed[len("file://") :])]
            return [lsp.CompletionItem(label="file://", kind=lsp.CompletionItemKind.Keyword)]
        if key == "target" and where in (["target"], ["execution", "target"]):
            return target_items(ls, path)
        schema = schema_for_path("eval", tuple(where)) or {}
        return [
            lsp.CompletionItem(
                label=value,
                kind=lsp.CompletionItemKind.EnumMember,
                documentation=description or None,
            )
            for value, description in _preferred(values_for(schema))
        ]
    if cursor.in_new_item and cursor.above and cursor.above[-1] == "input_files":
        return file_items(ls, path, cursor.stripped[2:].strip())
    where = [*cursor.above, *([0] if cursor.in_new_item else [])]
    written = present_keys(lines, line, cursor.indent, cursor.in_new_item)
    items: list[lsp.CompletionItem] = []
    for name, schema in keys_for_path("eval", tuple(where)).items():
        if name in written:
            continue
        if schema.get("deprecationMessage") or schema.get("x-rename") or schema.get("deprecated"):
            continue
        items.append(key_item(name, schema))
    if where in (["tests"], ["tests", 0]) and not cursor.before.strip(" -"):
        items.append(snippet_item("New test", NEW_TEST, cursor, "id, criteria, input, expected_output"))
    return items


def _preferred(values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Without the snake_case spellings that have a kebab-case twin (`llm_grader`)."""
    names = {v for v, _ in values}
    return [(v, d) for v, d in values if not ("_" in v and v.replace("_", "-") in names)]


def _prefixed(item: lsp.CompletionItem, prefix: str) -> lsp.CompletionItem:
    item.label = prefix + item.label
    return item
