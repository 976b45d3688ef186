"""`textDocument/completion` for v2 files: keys and enum values from our JSON schema at the
cursor's YAML path (roles, segment types, evaluator types, ...), file paths for the `value:`
of a `type: file` segment and for evaluator `prompt:`, target names for `execution.target`,
and a snippet for a new eval case."""

from __future__ import annotations

import re
from typing import Any

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
from agentv_lsp.lsp.convert import is_agentv_path
from agentv_lsp.lsp.v2.schema_nav import keys_for_path, schema_for_path

NEW_CASE = (
    "- id: ${1:case-id}\n  outcome: ${2:What a good answer achieves}\n  input_messages:\n"
    "    - role: user\n      content: ${3:Question}\n  expected_messages:\n    - role: assistant\n"
    "      content: ${4:Reference answer}"
)


def file_kind(path: str, text: str) -> str | None:
    if "agentv-eval-v2" in text:
        return "eval"
    if "agentv-targets" in text or (is_agentv_path(path) and path.endswith("targets.yaml")):
        return "targets"
    if "agentv-config" in text or (is_agentv_path(path) and path.endswith("config.yaml")):
        return "config"
    return None


def _enum_items(schema: dict[str, Any]) -> list[str]:
    values = schema.get("enum") or ([schema["const"]] if "const" in schema else [])
    return [str(v) for v in values]


def completions(
    ls: ServerBase, path: str, lines: list[str], line: int, character: int
) -> list[lsp.CompletionItem]:
    kind = file_kind(path, "\n".join(lines[:50]))
    if kind is None:
        return []
    cursor = cursor_at(lines, line, character, ls.encoding)
    items: list[lsp.CompletionItem] = []
    if cursor.key_value:  # after "key: "
        key = cursor.key_value.group(3)
        typed = cursor.key_value.group(4).strip().strip("'\"")
        where = [*cursor.above, *([0] if cursor.in_new_item else []), key]
        nearby = lines[max(0, line - 3) : line + 4]
        if (key == "value" and any(re.search(r"\btype:\s*['\"]?file\b", n) for n in nearby)) or (
            key == "prompt" and "evaluators" in where
        ):
            items.extend(file_items(ls, path, typed))
        elif key == "target" and kind == "eval":
            items.extend(target_items(ls, path))
        else:
            schema = schema_for_path(kind, tuple(where)) or {}
            items.extend(
                lsp.CompletionItem(label=v, kind=lsp.CompletionItemKind.EnumMember)
                for v in _enum_items(schema)
            )
        return items
    where = [*cursor.above, *([0] if cursor.in_new_item else [])]
    written = present_keys(lines, line, cursor.indent, cursor.in_new_item)
    items.extend(
        key_item(name, schema)
        for name, schema in keys_for_path(kind, tuple(where)).items()
        if name not in written
    )
    if (
        kind == "eval"
        and (where == ["evalcases"] or where == ["evalcases", 0])
        and not cursor.before.strip(" -")
    ):
        items.append(
            snippet_item("New eval case", NEW_CASE, cursor, "id, outcome, input_messages, expected_messages")
        )
    return items
