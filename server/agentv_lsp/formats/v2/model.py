"""Plain data passed between the v2 engine's stages (no behaviour, no LSP types)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["lm", "agent"]
YamlPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Notice:
    """Something AgentV's runtime prints (`console.warn`) while loading or formatting.

    `message` is the runtime's text without the "Warning: " prefix; `details` are the extra
    lines it prints after it (e.g. the "Tried:" list). `yaml_path` locates the cause in
    `file` (an eval file unless the notice concerns a config).
    """

    code: str
    message: str
    file: str | None = None
    yaml_path: YamlPath = ()
    details: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False)
    prefixed: bool = True  # a few runtime warnings are printed without "Warning: "

    def render(self) -> str:
        text = f"Warning: {self.message}" if self.prefixed else self.message
        return "\n".join((text, *self.details)) if self.details else text


@dataclass(frozen=True, slots=True)
class FileRef:
    """A `type: file` segment as the loader saw it."""

    yaml_path: YamlPath  # path of the segment object
    raw: str
    display_path: str
    resolved_path: str | None
    attempted: tuple[str, ...]
    in_expected: bool
    guideline_pattern: str | None = None  # set when the loader extracted it to guidelines
    text: str | None = None  # content read (CRLF->LF), None when unread


@dataclass(frozen=True, slots=True)
class EvaluatorConfig:
    name: str
    type: Literal["llm_judge", "code"]
    yaml_path: YamlPath
    prompt: str | None = None
    prompt_path: str | None = None
    script: str | None = None
    cwd: str | None = None
    resolved_cwd: str | None = None


@dataclass(slots=True)
class EvalCase:
    """One loaded eval case, with the fields AgentV's `EvalCase` has."""

    index: int  # position in `evalcases`
    id: str
    dataset: str
    conversation_id: str | None
    expected_outcome: str
    evaluator: str
    evaluators: tuple[EvaluatorConfig, ...] | None
    input_messages: list[dict[str, Any]]  # surviving raw messages
    input_message_indices: list[int]  # their positions in the raw `input_messages`
    input_segments: list[dict[str, Any]]
    output_segments: list[dict[str, Any]]
    reference_answer: str
    guideline_paths: list[str]
    guideline_patterns: tuple[str, ...] | None
    file_paths: list[str]
    code_snippets: list[str]
    question: str
    file_refs: list[FileRef] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PromptInputs:
    question: str
    guidelines: str
    chat_prompt: list[dict[str, str]] | None
    role_markers: bool


@dataclass(frozen=True, slots=True)
class JudgePrompt:
    question: str
    system_prompt: str
    evaluator: str | None
