"""`textDocument/hover`: on a case, the exact LM question, chatPrompt turns and guidelines;
on a file reference, where it resolves and whether it is a guideline; on a key, its schema
description."""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.config import matching_pattern
from agentv_lsp.engine.files import FileReadError
from agentv_lsp.engine.jsrt import node_relative
from agentv_lsp.lsp.convert import from_position
from agentv_lsp.lsp.features.commands import case_preview
from agentv_lsp.lsp.schema_nav import schema_for_path
from agentv_lsp.lsp.server import AgentVLanguageServer, Analysis
from agentv_lsp.lsp.yamlnav import path_at

CASE_HEADER_KEYS = ("id", "outcome", "conversation_id", "note")


def fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}text\n{text}\n{ticks}"


def case_markdown(preview: dict[str, Any]) -> str:
    lm = preview["lm"]
    parts = [f"**AgentV question** for `{preview['id']}` (LM mode)", fence(lm["question"])]
    if lm["chatPrompt"]:
        parts.append("**chatPrompt**")
        for turn in lm["chatPrompt"]:
            parts.append(f"*{turn['role']}*")
            parts.append(fence(turn["content"]))
    else:
        parts.append("*No chatPrompt: one visible message, so the question is flat.*")
    guidelines = preview["guideline_paths"]
    parts.append(f"**Guidelines:** {', '.join(guidelines)}" if guidelines else "**Guidelines:** none")
    return "\n\n".join(parts)


def file_markdown(analysis: Analysis, path: tuple[str | int, ...]) -> str | None:
    ef = analysis.eval_file
    if ef is None or not ef.loaded or len(path) < 2 or not isinstance(path[1], int):
        return None
    raw = ef.raw_cases[path[1]] if path[1] < len(ef.raw_cases) else None
    segment: Any = raw
    for item in path[2:-1]:
        if isinstance(segment, dict) and isinstance(item, str):
            segment = segment.get(item)
        elif isinstance(segment, list) and isinstance(item, int) and item < len(segment):
            segment = segment[item]
        else:
            segment = None
    if (
        not isinstance(segment, dict)
        or segment.get("type") != "file"
        or not isinstance(segment.get("value"), str)
    ):
        return None
    res = ef.resolve(segment["value"])
    if res.resolved_path is None:
        return f"**File not found:** `{res.display_path}`\n\nTried:\n" + "\n".join(
            f"- `{a}`" for a in res.attempted
        )
    relative = node_relative(ef.repo_root, res.resolved_path)
    pattern = matching_pattern(relative, ef.config.guideline_patterns)
    lines = [f"**{relative}** → `{res.resolved_path}`"]
    if pattern is not None and path[2] == "input_messages":
        lines.append(f"Guideline: extracted to `guidelines` by pattern `{pattern}`.")
    else:
        lines.append("Regular file: inlined as `<file path>` in LM mode, referenced in agent mode.")
    if os.path.isfile(res.resolved_path):
        try:
            head = "\n".join(ef.fs.read_text(res.resolved_path).split("\n")[:8])
            lines.append(fence(head))
        except FileReadError as exc:
            lines.append(f"Cannot read: {exc}")
    return "\n\n".join(lines)


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: AgentVLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        if params.text_document.uri not in ls.workspace.text_documents:
            return None
        analysis = await ls.analyze(params.text_document.uri)
        if not analysis.is_agentv or analysis.report.doc is None:
            return None
        line, col = from_position(params.position, analysis.lines)
        path, on_key = path_at(analysis.report.doc.root, line, col)
        markdown: str | None = None
        if len(path) >= 2 and path[0] == "evalcases" and isinstance(path[1], int):
            if path[-1] == "value" and "content" in path:
                markdown = file_markdown(analysis, path)
            elif len(path) == 2 or (len(path) == 3 and path[2] in CASE_HEADER_KEYS):
                preview = case_preview(analysis, path[1])
                markdown = case_markdown(preview) if preview else None
        if markdown is None and on_key and analysis.report.kind is not None:
            schema = schema_for_path(analysis.report.kind, path)
            if schema is not None:
                text = schema.get("markdownDescription") or schema.get("description")
                markdown = f"**{path[-1]}**\n\n{text}" if text else None
        if markdown is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=markdown))
