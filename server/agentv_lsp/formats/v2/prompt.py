"""`buildPromptInputs`: the question, guidelines and chatPrompt a candidate receives.

Reproduces formatting/prompt-builder.ts and segment-formatter.ts at AgentV 903e156c2,
quirks included (each one is pinned by a named unit test):
- role markers when any assistant/tool turn exists or more than one message is visible;
- flat mode trims and joins parts with blank lines and appends every fenced code block again;
- marker mode trims nothing;
- guideline refs are matched on the *raw* YAML value here, while the loader matched the
  repo-relative path, so the two can disagree (content lost or no `<Attached:>` marker);
- a regular file whose value starts with '/' vanishes in marker mode (looked up by raw value,
  stored by display path);
- only the leading run of system messages is merged into the chatPrompt system message.
"""

from __future__ import annotations

import os
from typing import Any

from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.engine.jsrt import capitalize_first, crlf_to_lf, is_blank, js_trim
from agentv_lsp.formats.v2.config import is_guideline_file
from agentv_lsp.formats.v2.loader import format_file_contents
from agentv_lsp.formats.v2.model import EvalCase, Mode, Notice, PromptInputs

Segment = dict[str, Any]


def build_both_modes(
    case: EvalCase, fs: FileSystem, notices: list[Notice] | None = None
) -> tuple[PromptInputs, PromptInputs]:
    """LM and agent prompt inputs, sharing the mode-independent work."""
    guidelines = read_guidelines(case, fs, notices)
    by_message = segments_by_message(case)
    return (
        build_prompt_inputs(case, "lm", fs, notices, guidelines, by_message),
        build_prompt_inputs(case, "agent", fs, notices, guidelines, by_message),
    )


def read_guidelines(case: EvalCase, fs: FileSystem, notices: list[Notice] | None = None) -> str:
    """The `guidelines` string: `<file path="basename">` blocks of the trimmed contents."""
    parts: list[tuple[str, str | None]] = []
    for path in case.guideline_paths:
        if not fs.exists(path):
            if notices is not None:
                notices.append(
                    Notice(
                        "guideline-unreadable", f"Could not read guideline file {path}: file does not exist"
                    )
                )
            continue
        try:
            content = js_trim(crlf_to_lf(fs.read_text(path)))
        except FileReadError as exc:
            if notices is not None:
                notices.append(Notice("guideline-unreadable", f"Could not read guideline file {path}: {exc}"))
            continue
        parts.append((content, os.path.basename(path)))
    return format_file_contents(parts)


def build_prompt_inputs(
    case: EvalCase,
    mode: Mode,
    fs: FileSystem,
    notices: list[Notice] | None = None,
    guidelines: str | None = None,
    by_message: list[list[Segment]] | None = None,
) -> PromptInputs:
    """The same result as the runtime's `buildPromptInputs(case, mode)`.

    `guidelines` and `by_message` do not depend on the mode: pass them in when already
    computed for the other mode; otherwise they are computed here.
    """
    if guidelines is None:
        guidelines = read_guidelines(case, fs, notices)
    if by_message is None:
        by_message = segments_by_message(case)
    role_markers = needs_role_markers(case.input_messages, by_message)
    if role_markers:
        question = _marker_question(case.input_messages, by_message, mode)
        chat_prompt = _chat_prompt(case.input_messages, by_message, guidelines, mode)
    else:
        question = _flat_question(case, mode)
        chat_prompt = None
    return PromptInputs(question, guidelines, chat_prompt, role_markers)


def segments_by_message(case: EvalCase) -> list[list[Segment]]:
    """Per-message segments rebuilt from the raw messages (1:1 with `input_messages`)."""
    file_texts: dict[str, str] = {}
    for segment in case.input_segments:
        if segment.get("type") == "file":
            path, text = segment.get("path"), segment.get("text")
            if isinstance(path, str) and isinstance(text, str):
                file_texts[path] = text
    patterns = case.guideline_patterns
    result: list[list[Segment]] = []
    for message in case.input_messages:
        content = message["content"]
        segments: list[Segment] = []
        if isinstance(content, str):
            if not is_blank(content):
                segments.append({"type": "text", "value": content})
        else:
            for item in content:
                kind = item.get("type")
                value = item.get("value")
                if kind == "file":
                    if not isinstance(value, str) or not value:
                        continue
                    if patterns is not None and is_guideline_file(value, patterns):
                        segments.append({"type": "guideline_ref", "path": value})
                        continue
                    text = file_texts.get(value)
                    if text is not None:
                        segments.append({"type": "file", "text": text, "path": value})
                elif kind == "text" and isinstance(value, str) and not is_blank(value):
                    segments.append({"type": "text", "value": value})
        result.append(segments)
    return result


def has_visible_content(segments: list[Segment]) -> bool:
    for segment in segments:
        kind = segment.get("type")
        if kind == "text":
            value = segment.get("value")
            if isinstance(value, str) and not is_blank(value):
                return True
        elif kind == "file":
            text = segment.get("text")
            if isinstance(text, str) and not is_blank(text):
                return True
    return False


def needs_role_markers(messages: list[dict[str, Any]], by_message: list[list[Segment]]) -> bool:
    if any(m.get("role") in ("assistant", "tool") for m in messages):
        return True
    return sum(1 for segments in by_message if has_visible_content(segments)) > 1


def format_segment(segment: Segment, mode: Mode) -> str | None:
    """`formatSegment`: None where the runtime returns undefined."""
    kind = segment.get("type")
    if kind == "text":
        value = segment.get("value")
        return value if isinstance(value, str) else None
    if kind == "guideline_ref":
        path = segment.get("path")
        return f"<Attached: {path}>" if isinstance(path, str) and path else None
    if kind == "file":
        path = segment.get("path")
        if not isinstance(path, str) or not path:
            return None
        if mode == "agent":
            return f'<file: path="{path}">'
        text = segment.get("text")
        if isinstance(text, str) and text:
            return f'<file path="{path}">\n{js_trim(text)}\n</file>'
    return None


def _marker_question(messages: list[dict[str, Any]], by_message: list[list[Segment]], mode: Mode) -> str:
    turns: list[str] = []
    for message, segments in zip(messages, by_message, strict=True):
        if not has_visible_content(segments):
            continue
        parts = [f for f in (format_segment(s, mode) for s in segments) if f]
        if parts:
            turns.append(f"@[{capitalize_first(message['role'])}]:\n" + "\n".join(parts))
    return "\n\n".join(turns)


def _flat_question(case: EvalCase, mode: Mode) -> str:
    parts: list[str] = []
    patterns = case.guideline_patterns
    for segment in case.input_segments:
        path = segment.get("path")
        if (
            segment.get("type") == "file"
            and isinstance(path, str)
            and patterns is not None
            and is_guideline_file(path, patterns)
        ):
            parts.append(f"<Attached: {path}>")
            continue
        formatted = format_segment(segment, mode)
        if formatted:
            parts.append(formatted)
    if case.code_snippets:
        parts.append("\n".join(case.code_snippets))
    return "\n\n".join(p for p in (js_trim(part) for part in parts) if p)


def _chat_prompt(
    messages: list[dict[str, Any]], by_message: list[list[Segment]], guidelines: str, mode: Mode
) -> list[dict[str, str]] | None:
    if not messages:
        return None
    system_parts: list[str] = []
    if not is_blank(guidelines):
        system_parts.append(f"[[ ## Guidelines ## ]]\n\n{js_trim(guidelines)}")
    start = 0
    while start < len(messages) and messages[start]["role"] == "system":
        parts = [f for f in (format_segment(s, mode) for s in by_message[start]) if f]
        if parts:
            system_parts.append("\n".join(parts))
        start += 1
    chat: list[dict[str, str]] = []
    if system_parts:
        chat.append({"role": "system", "content": "\n\n".join(system_parts)})
    for message, segments in zip(messages[start:], by_message[start:], strict=True):
        role = message["role"]
        parts = []
        if role == "system":
            role = "assistant"
            parts.append("@[System]:")
        elif role == "tool":
            role = "assistant"
            parts.append("@[Tool]:")
        for segment in segments:
            if segment.get("type") == "guideline_ref":
                continue
            formatted = format_segment(segment, mode)
            if formatted:
                parts.append(formatted)
        if parts:
            chat.append({"role": role, "content": "\n".join(parts)})
    return chat or None
