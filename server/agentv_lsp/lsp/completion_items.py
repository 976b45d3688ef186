"""What completion reads of the cursor's line and the items it offers, for both formats
(`lsp/v2/completion.py`, `lsp/v4/completion.py`). Works on half-typed lines: the YAML path
comes from the indentation of the lines above (not from a parse), read only as far up as
needed."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.targets_file import find_targets_file, read_targets
from agentv_lsp.lsp.base import ServerBase
from agentv_lsp.lsp.convert import from_client_col

_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_$][\w$-]*):(.*)$")
MAX_FILES = 500


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


def file_items(ls: ServerBase, document_path: str, typed: str) -> list[lsp.CompletionItem]:
    """Entries of the folder the typed path names, relative to the eval file's folder."""
    base = os.path.dirname(document_path)
    prefix = os.path.dirname(typed.lstrip("/"))
    folder = os.path.normpath(os.path.join(base, prefix))
    entries = ls.fs.folder_entries(folder)
    if entries is None:
        return []
    items = []
    for entry, is_dir in entries[:MAX_FILES]:
        if entry.startswith(".") or entry == "node_modules":
            continue
        label = f"{prefix}/{entry}" if prefix else entry
        items.append(
            lsp.CompletionItem(
                label=label + ("/" if is_dir else ""),
                kind=lsp.CompletionItemKind.Folder if is_dir else lsp.CompletionItemKind.File,
                command=lsp.Command(title="", command="editor.action.triggerSuggest") if is_dir else None,
            )
        )
    return items


def target_items(ls: ServerBase, document_path: str) -> list[lsp.CompletionItem]:
    """The targets a `targets.yaml` names, each with its provider, offered for `target:` in
    either format."""
    repo_root, cwd = ls.context_for(document_path)
    targets_path = find_targets_file(document_path, repo_root, cwd, ls.fs)
    targets = read_targets(targets_path, ls.fs) if targets_path else None
    if targets is None:
        return []
    return [
        lsp.CompletionItem(label=name, kind=lsp.CompletionItemKind.Value, detail=targets.providers.get(name))
        for name in targets.names
    ]
