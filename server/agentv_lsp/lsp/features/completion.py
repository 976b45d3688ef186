"""`textDocument/completion`: keys and enum values from our JSON schema at the cursor's
YAML path, file paths for `value:` of file segments, target names for `execution.target`,
and a snippet for a new eval case. Works on half-typed lines: the path comes from the
indentation of the lines above, not from a parse."""

from __future__ import annotations

import os
import re
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.targets import find_targets_file, read_targets
from agentv_lsp.lsp.schema_nav import keys_for_path, schema_for_path
from agentv_lsp.lsp.server import AgentVLanguageServer

_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_$][\w$-]*):(.*)$")
NEW_CASE = (
    "- id: ${1:case-id}\n  outcome: ${2:What a good answer achieves}\n  input_messages:\n"
    "    - role: user\n      content: ${3:Question}\n  expected_messages:\n    - role: assistant\n"
    "      content: ${4:Reference answer}"
)


def yaml_path_above(lines: list[str], line: int, indent: int) -> list[str | int]:
    """Keys of the enclosing mappings (with 0 for sequence levels), from indentation."""
    path: list[str | int] = []
    current = indent
    for text in reversed(lines[:line]):
        match = _KEY.match(text)
        if not match or not text.strip():
            continue
        spaces = len(match.group(1))
        column = spaces + (len(match.group(2)) if match.group(2) else 0)
        if match.group(2) and column <= current and spaces < current:
            path.append(0)  # we are inside an item of the sequence whose '-' is here
        if column < current and not match.group(4).strip():
            path.append(match.group(3))
            current = spaces
        elif spaces < current and match.group(2):
            current = spaces
    return list(reversed(path))


def _enum_items(schema: dict[str, Any]) -> list[str]:
    values = schema.get("enum") or ([schema["const"]] if "const" in schema else [])
    return [str(v) for v in values]


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[":", " ", "/"]))
    def completion(ls: AgentVLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return None
        document = ls.workspace.get_text_document(uri)
        lines = document.source.split("\n")
        text = (
            lines[params.position.line][: params.position.character]
            if params.position.line < len(lines)
            else ""
        )
        kind = (
            "eval"
            if "agentv-eval-v2" in document.source
            else (
                "config"
                if document.path.endswith(os.path.join(".agentv", "config.yaml"))
                else "targets"
                if "agentv-targets" in document.source
                else None
            )
        )
        if kind is None:
            return None
        value_match = _KEY.match(text)
        stripped = text.lstrip(" ")
        dash_column = len(text) - len(stripped)
        in_new_item = stripped.startswith("- ")  # this line starts a sequence item
        indent = dash_column if in_new_item else len(text) - len(text.lstrip(" -"))
        items: list[lsp.CompletionItem] = []
        if value_match:  # completing a value after "key: "
            key = value_match.group(3)
            path = [*yaml_path_above(lines, params.position.line, indent), *([0] if in_new_item else []), key]
            if key == "value" and any(
                "type: file" in ln
                for ln in lines[max(0, params.position.line - 2) : params.position.line + 1]
            ):
                items.extend(_file_items(ls, document.path, value_match.group(4).strip()))
            elif key == "target" and kind == "eval":
                items.extend(_target_items(ls, document.path))
            else:
                schema = schema_for_path(kind, tuple(path)) or {}
                items.extend(
                    lsp.CompletionItem(label=v, kind=lsp.CompletionItemKind.EnumMember)
                    for v in _enum_items(schema)
                )
        else:
            path = [*yaml_path_above(lines, params.position.line, indent), *([0] if in_new_item else [])]
            for name, schema in keys_for_path(kind, tuple(path)).items():
                items.append(
                    lsp.CompletionItem(
                        label=name,
                        kind=lsp.CompletionItemKind.Property,
                        insert_text=f"{name}: ",
                        documentation=lsp.MarkupContent(
                            kind=lsp.MarkupKind.Markdown,
                            value=str(schema.get("markdownDescription") or schema.get("description", "")),
                        ),
                    )
                )
            if (kind == "eval" and path[-1:] in (["evalcases"], [0])) or path == ["evalcases"]:
                items.append(
                    lsp.CompletionItem(
                        label="New eval case",
                        kind=lsp.CompletionItemKind.Snippet,
                        insert_text=NEW_CASE,
                        insert_text_format=lsp.InsertTextFormat.Snippet,
                    )
                )
        return lsp.CompletionList(is_incomplete=False, items=items)


def _file_items(ls: AgentVLanguageServer, document_path: str, typed: str) -> list[lsp.CompletionItem]:
    base = os.path.dirname(document_path)
    folder = os.path.normpath(os.path.join(base, os.path.dirname(typed)))
    if not ls.fs.is_allowed(folder) or not os.path.isdir(folder):
        return []
    prefix = os.path.dirname(typed)
    items = []
    for entry in sorted(os.listdir(folder))[:500]:
        if entry.startswith("."):
            continue
        label = f"{prefix}/{entry}" if prefix else entry
        is_dir = os.path.isdir(os.path.join(folder, entry))
        items.append(
            lsp.CompletionItem(
                label=label + ("/" if is_dir else ""),
                kind=lsp.CompletionItemKind.Folder if is_dir else lsp.CompletionItemKind.File,
            )
        )
    return items


def _target_items(ls: AgentVLanguageServer, document_path: str) -> list[lsp.CompletionItem]:
    repo_root, cwd = ls.context_for(document_path)
    targets_path = find_targets_file(document_path, repo_root, cwd, ls.fs)
    targets = read_targets(targets_path, ls.fs) if targets_path else None
    if targets is None:
        return []
    return [
        lsp.CompletionItem(label=name, kind=lsp.CompletionItemKind.Value, detail=targets.providers.get(name))
        for name in targets.names
    ]
