"""Plain data produced by the AgentV 4.42.4 loader (`loader.load_suite`) and prompt builder.

No behaviour and no LSP types: the preview, the checks and the language server all read
these records. Paths are absolute; YAML paths locate a value inside `source_file`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agentv_lsp.formats.v4.keys import V4_KEYS, Keys

# "notice": not the runtime's but ours (a file cut at the read cap, a glob walk stopped), text
# starting "agentv-lsp"; everything else is a console method the runtime calls.
Stream = Literal["warn", "error", "log", "info", "notice"]
Mode = Literal["lm", "agent"]
YamlPath = tuple[str | int, ...]
JsonObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class RuntimeMessage:
    """One console message the runtime prints while loading a suite.

    `text` is exactly what it prints, colour codes removed (e.g. "Warning: File not found:
    x.md\\n  Tried:\\n    /abs/x.md" or "Error: Skipping incomplete test: t1. …").
    `stream` is the console method used. `file`/`yaml_path` locate the cause when known
    (`file` may be a referenced cases file, a config or a template rather than the eval
    file). `code` is stable for programs ("v4-file-not-found", "v4-skipped-test", …);
    `data` carries facts a diagnostic may want (attempted paths, the test id, …).
    """

    stream: Stream
    text: str
    code: str
    file: str | None = None
    yaml_path: YamlPath | None = None
    data: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(slots=True)
class V4Test:
    """A test as `loadTests` returns it (the fields the preview and checks use)."""

    index: int  # position among the expanded `tests` entries
    id: str
    source_file: str
    yaml_path: YamlPath
    conversation_id: str | None
    criteria: str
    question: str
    input: list[JsonObject]  # messages, file segments resolved (path/text/resolvedPath)
    expected_output: list[JsonObject]  # processed expected messages
    reference_answer: str
    file_paths: list[str]  # absolute, in input order
    evaluator: str
    assertions: list[JsonObject] | None  # parsed grader configs
    metadata: JsonObject | None = None  # the test's metadata merged with the suite's
    raw: JsonObject = field(default_factory=dict, repr=False)  # the rendered test object
    # Where the runtime's EvalTest holds a non-string (an evals.json `expected_output` that is
    # absent or a number): "criteria"/"reference_answer" -> that value. The str fields above
    # then hold "" or the JSON text, for consumers that need strings.
    runtime_values: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, slots=True)
class SkippedTest:
    """A `tests` entry the runtime dropped, and the message it printed for it."""

    index: int
    id: str | None
    reason: str
    source_file: str
    yaml_path: YamlPath
    code: str


@dataclass(slots=True)
class SuiteLoad:
    """Everything `loadTests(evalPath, repoRoot)` produced for one eval file.

    When `load_error` is set the runtime threw: `tests` is empty and `messages` holds what
    was printed before the throw.
    """

    eval_path: str  # absolute
    repo_root: str
    cwd: str
    load_error: str | None = None
    load_error_type: str | None = None  # "Error", "YAMLParseError", "TypeError", …
    load_error_code: str | None = None
    load_error_file: str | None = None
    load_error_path: YamlPath | None = None
    messages: list[RuntimeMessage] = field(default_factory=list)
    tests: list[V4Test] = field(default_factory=list)
    skipped: list[SkippedTest] = field(default_factory=list)
    config_path: str | None = None  # the `.agentv/config.yaml` in use
    tests_source: str | None = None  # external file or directory named by `tests:`
    keys: Keys = V4_KEYS  # the key names the file was read with (what reads `raw` needs them)

    @property
    def loaded(self) -> bool:
        return self.load_error is None


@dataclass(frozen=True, slots=True)
class PromptInputs:
    """`buildPromptInputs(test, mode)`."""

    question: str
    chat_prompt: list[dict[str, str]] | None
    system_message: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "chatPrompt": self.chat_prompt,
            "systemMessage": self.system_message,
        }
