"""`buildPromptInputs(test, 'lm' | 'agent')` of AgentV 4.42.4 (formatting/prompt-builder.ts,
segment-formatter.ts, input-message-utils.ts).

- Role markers (`@[User]:` …) and a chatPrompt when any assistant/tool message exists or
  more than one message has visible content; otherwise one flat question whose parts are
  trimmed and joined by blank lines.
- LM mode embeds files as `<file path="as written">\\n…trimmed text…\\n</file>`; agent mode
  writes `<file: path="/absolute/path">`. Images and unknown segments print nothing.
- `systemMessage` is the leading run of system messages; inside the chatPrompt a later
  system or tool message becomes an assistant turn starting with `@[System]:`/`@[Tool]:`.
"""

from __future__ import annotations

from typing import Any

from agentv_lsp.formats.v4.model import Mode, PromptInputs, V4Test
from agentv_lsp.formats.v4.runtime import as_string, is_object, js_trim
from agentv_lsp.yamlpos.scalars import js_json_stringify

Segment = dict[str, Any]


def content_segments(content: Any) -> list[Segment]:
    """`extractContentSegments`."""
    if isinstance(content, str):
        return [{"type": "text", "value": content}] if js_trim(content) else []
    if is_object(content):
        rendered = js_json_stringify(content, 2)
        return [{"type": "text", "value": rendered}] if js_trim(rendered) else []
    if not isinstance(content, list):
        return []
    segments: list[Segment] = []
    for item in content:
        if isinstance(item, str):
            if js_trim(item):
                segments.append({"type": "text", "value": item})
        elif is_object(item):
            segments.append(item)
    return segments


def format_segment(segment: Segment, mode: Mode) -> str | None:
    """`formatSegment`: the text a segment contributes, or None."""
    kind = segment.get("type")
    if kind == "text":
        return as_string(segment.get("value"))
    if kind == "file":
        path = as_string(segment.get("path"))
        if not path:
            return None
        if mode == "agent":
            resolved = as_string(segment.get("resolvedPath"))
            return f'<file: path="{resolved if resolved is not None else path}">'
        text = as_string(segment.get("text"))
        if text:
            return f'<file path="{path}">\n{js_trim(text)}\n</file>'
    return None


def has_visible_content(segments: list[Segment]) -> bool:
    for segment in segments:
        kind = segment.get("type")
        if kind == "text":
            value = segment.get("value")
            if isinstance(value, str) and js_trim(value):
                return True
        elif kind == "file":
            text = segment.get("text")
            if isinstance(text, str) and js_trim(text):
                return True
    return False


def _formatted_parts(segments: list[Segment], mode: Mode) -> list[str]:
    parts = []
    for segment in segments:
        formatted = format_segment(segment, mode)
        if formatted:
            parts.append(formatted)
    return parts


def needs_role_markers(messages: list[dict[str, Any]], by_message: list[list[Segment]]) -> bool:
    if any(m.get("role") in ("assistant", "tool") for m in messages):
        return True
    return sum(1 for segments in by_message if has_visible_content(segments)) > 1


def segments_by_message(test: V4Test) -> list[list[Segment]]:
    return [content_segments(m.get("content")) for m in test.input]


def build_prompt_inputs(
    test: V4Test, mode: Mode, by_message: list[list[Segment]] | None = None
) -> PromptInputs:
    """The runtime's `buildPromptInputs(test, mode)`; pass `by_message` to share the
    mode-independent segment extraction between the two modes."""
    messages = test.input
    if by_message is None:
        by_message = segments_by_message(test)
    markers = needs_role_markers(messages, by_message)
    if markers:
        blocks = []
        for message, segments in zip(messages, by_message, strict=True):
            if not has_visible_content(segments):
                continue
            parts = _formatted_parts(segments, mode)
            if parts:
                role = str(message.get("role", ""))
                blocks.append(f"@[{role[:1].upper()}{role[1:]}]:\n" + "\n".join(parts))
        question = "\n\n".join(blocks)
    else:
        flat = [s for segments in by_message for s in segments]
        question = "\n\n".join(p for p in (js_trim(x) for x in _formatted_parts(flat, mode)) if p)
    chat_prompt = _chat_prompt(messages, by_message, mode) if markers else None
    return PromptInputs(question, chat_prompt, _system_message(messages, by_message, mode))


def build_both_modes(test: V4Test) -> tuple[PromptInputs, PromptInputs]:
    by_message = segments_by_message(test)
    return build_prompt_inputs(test, "lm", by_message), build_prompt_inputs(test, "agent", by_message)


def _system_message(
    messages: list[dict[str, Any]], by_message: list[list[Segment]], mode: Mode
) -> str | None:
    parts: list[str] = []
    for message, segments in zip(messages, by_message, strict=True):
        if message.get("role") != "system":
            break
        formatted = _formatted_parts(segments, mode)
        if formatted:
            parts.append("\n".join(formatted))
    return "\n\n".join(parts) if parts else None


def _chat_prompt(
    messages: list[dict[str, Any]], by_message: list[list[Segment]], mode: Mode
) -> list[dict[str, str]] | None:
    if not messages:
        return None
    system_parts: list[str] = []
    start = 0
    while start < len(messages) and messages[start].get("role") == "system":
        formatted = _formatted_parts(by_message[start], mode)
        if formatted:
            system_parts.append("\n".join(formatted))
        start += 1
    prompt: list[dict[str, str]] = []
    if system_parts:
        prompt.append({"role": "system", "content": "\n\n".join(system_parts)})
    for message, segments in zip(messages[start:], by_message[start:], strict=True):
        role = str(message.get("role"))
        parts: list[str] = []
        if role == "system":
            role = "assistant"
            parts.append("@[System]:")
        elif role == "tool":
            role = "assistant"
            parts.append("@[Tool]:")
        parts.extend(_formatted_parts(segments, mode))
        if parts:
            prompt.append({"role": role, "content": "\n".join(parts)})
    return prompt or None
