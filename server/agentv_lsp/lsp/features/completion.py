"""`textDocument/completion`: keys and enum values from our JSON schema at the cursor's YAML
path (roles, segment types, evaluator types, ...), file paths for the `value:` of a
`type: file` segment and for evaluator `prompt:`, target names for `execution.target`, and
a snippet for a new eval case. Works on half-typed lines: the path comes from the
indentation of the lines above (not from a parse), read only as far up as needed."""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.formats.v2.targets import read_targets
from agentv_lsp.lsp.convert import from_client_col, is_agentv_path, uri_to_path
from agentv_lsp.lsp.schema_nav import keys_for_path, schema_for_path
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v4 import completion as v4_completion

_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_$][\w$-]*):(.*)$")
MAX_FILES = 500
NEW_CASE = (
    "- id: ${1:case-id}\n  outcome: ${2:What a good answer achieves}\n  input_messages:\n"
    "    - role: user\n      content: ${3:Question}\n  expected_messages:\n    - role: assistant\n"
    "      content: ${4:Reference answer}"
)


def yaml_path_above(lines: list[str], line: int, indent: int) -> list[str | int]:
    """Keys of the enclosing mappings (0 for sequence levels), read from the indentation of
    the lines above `line`, stopping at the top-level key."""
    path: list[str | int] = []
    current = indent
    for index in range(min(line, len(lines)) - 1, -1, -1):
        if current <= 0:
            break
        text = lines[index]
        if text[:current].isspace() or not text:
            continue  # indented at least as deep as we are (or blank): not an enclosing key
        match = _KEY.match(text)
        if not match:
            continue
        spaces = len(match.group(1))
        column = spaces + (len(match.group(2)) if match.group(2) else 0)
        if match.group(2) and column <= current and spaces < current:
            path.append(0)  # inside an item of the sequence whose '-' is here
        if column < current and not match.group(4).strip():
            path.append(match.group(3))
            current = spaces
        elif spaces < current and match.group(2):
            current = spaces
    return list(reversed(path))


def present_keys(lines: list[str], line: int, indent: int, new_item: bool) -> set[str]:
    """Keys already written in the mapping the cursor is in (not offered again): the lines at
    the cursor's indentation above and below it, up to where the mapping (or its list item)
    starts and ends. `new_item`: the cursor line starts the item (`- `), nothing above counts."""
    column = indent + 2 if new_item else indent
    found: set[str] = set()
    for step in (1,) if new_item else (-1, 1):
        index = line + step
        while 0 <= index < len(lines):
            text = lines[index]
            stripped = text.lstrip(" ")
            index += step
            if not stripped.strip() or stripped.startswith("#"):
                continue
            at = len(text) - len(stripped)
            if stripped.startswith("- ") and at + 2 == column:
                if step < 0:  # the start of this item: its first key is one of ours
                    match = _KEY.match(text)
                    if match:
                        found.add(match.group(3))
                break  # above: the item starts here; below: the next item
            if at < column:
                break
            if at == column:
                match = _KEY.match(text)
                if match:
                    found.add(match.group(3))
    return found


@dataclass(frozen=True, slots=True)
class Cursor:
    """What completion reads of the cursor's line (either format)."""

    before: str  # the line's text before the cursor
    key_value: re.Match[str] | None  # `key: value` typed before the cursor
    stripped: str  # `before` without its indentation
    in_new_item: bool  # the line starts a list item (`- `)
    indent: int  # the column of the key being typed (after a `- `)
    above: list[str | int]  # the keys of the enclosing mappings (`yaml_path_above`)


def cursor_at(lines: list[str], line: int, character: int, encoding: str) -> Cursor:
    current = lines[line] if 0 <= line < len(lines) else ""
    before = current[: from_client_col(current, character, encoding)]
    stripped = before.lstrip(" ")
    in_new_item = stripped.startswith("- ")
    indent = len(before) - len(stripped) if in_new_item else len(before) - len(before.lstrip(" -"))
    return Cursor(
        before, _KEY.match(before), stripped, in_new_item, indent, yaml_path_above(lines, line, indent)
    )


def key_item(name: str, schema: dict[str, Any]) -> lsp.CompletionItem:
    """A key offered from the schema, with its description."""
    description = schema.get("markdownDescription") or schema.get("description") or ""
    return lsp.CompletionItem(
        label=name,
        kind=lsp.CompletionItemKind.Property,
        insert_text=f"{name}: ",
        documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=str(description)),
    )


def snippet_item(label: str, snippet: str, cursor: Cursor, detail: str) -> lsp.CompletionItem:
    """A new list item (`- ...`) as a snippet at the cursor's indentation (after its `- ` when
    the line has one)."""
    text = snippet if not cursor.in_new_item else snippet[2:]
    return lsp.CompletionItem(
        label=label,
        kind=lsp.CompletionItemKind.Snippet,
        insert_text=text.replace("\n", "\n" + " " * cursor.indent),
        insert_text_format=lsp.InsertTextFormat.Snippet,
        detail=detail,
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
    ls: AgentVLanguageServer, uri: str, lines: list[str], line: int, character: int
) -> list[lsp.CompletionItem]:
    path = uri_to_path(uri)
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


def file_items(ls: AgentVLanguageServer, document_path: str, typed: str) -> list[lsp.CompletionItem]:
    """Entries of the folder the typed path names, relative to the eval file's folder."""
    base = os.path.dirname(document_path)
    prefix = os.path.dirname(typed.lstrip("/"))
    folder = os.path.normpath(os.path.join(base, prefix))
    if not ls.fs.is_allowed(folder) or not os.path.isdir(folder):
        return []
    items = []
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return []
    for entry in entries[:MAX_FILES]:
        if entry.startswith(".") or entry == "node_modules":
            continue
        label = f"{prefix}/{entry}" if prefix else entry
        is_dir = os.path.isdir(os.path.join(folder, entry))
        items.append(
            lsp.CompletionItem(
                label=label + ("/" if is_dir else ""),
                kind=lsp.CompletionItemKind.Folder if is_dir else lsp.CompletionItemKind.File,
                command=lsp.Command(title="", command="editor.action.triggerSuggest") if is_dir else None,
            )
        )
    return items


def target_items(ls: AgentVLanguageServer, document_path: str) -> list[lsp.CompletionItem]:
    repo_root, cwd = ls.context_for(document_path)
    targets_path = find_targets_file(document_path, repo_root, cwd, ls.fs)
    targets = read_targets(targets_path, ls.fs) if targets_path else None
    if targets is None:
        return []
    return [
        lsp.CompletionItem(label=name, kind=lsp.CompletionItemKind.Value, detail=targets.providers.get(name))
        for name in targets.names
    ]


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[":", " ", "/"]))
    @guard()
    async def completion(ls: AgentVLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
        uri = params.text_document.uri
        lines = ls.document_lines(uri)
        if lines is None:
            return None
        position = params.position
        if ls.judged_by_v4(uri):
            path, line, character = uri_to_path(uri), position.line, position.character
            items = await asyncio.to_thread(v4_completion.completions, ls, path, lines, line, character)
        else:
            items = await asyncio.to_thread(completions, ls, uri, lines, position.line, position.character)
        return lsp.CompletionList(is_incomplete=False, items=items)
