"""What `agentv validate` 4.42.4 reports (packages/core/src/evaluation/validation/*.ts and the
CLI's validate command), as data.

Every function returns `ValidationIssue`s carrying the validator's own severity, location
and message text, false alarms included (a `tool` role is rejected here though the runtime
accepts it). `formats.v4.check` turns them into ranged diagnostics and says where the
runtime disagrees. Nothing here raises on bad input: wrong types, unreadable files, FIFOs
and folders all become issues, as they do in AgentV (or are refused where AgentV would hang).
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from agentv_lsp.checks.model import format_location
from agentv_lsp.engine.files import (
    FileReadError,
    FileSystem,
    Resolution,
    build_search_roots,
    find_git_root,
    resolve_reference,
)
from agentv_lsp.engine.jsregex import js_regex_error
from agentv_lsp.engine.jsrt import (
    is_blank,
    js_number,
    js_string,
    js_trim,
    node_normalize,
    node_resolve,
)
from agentv_lsp.formats.v4.grader_parser import GRADER_KINDS  # the types the runtime knows: one list
from agentv_lsp.formats.v4.jsonparse import JsonParseError, parse_json
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.model import YamlPath
from agentv_lsp.formats.v4.runtime import (
    interpolate_env,
    js_sort_key,
    js_typeof,
    may_reference_env,
    node_extname,
    truthy,
)
from agentv_lsp.formats.v4.yamlbom import BOM
from agentv_lsp.formats.v4.yamlmerge import MergedDocument, merged_document, read_yaml_v4
from agentv_lsp.yamlpos import YamlDocument

FileType = Literal["eval", "cases", "targets", "config", "unknown"]
Severity = Literal["error", "warning"]

SCHEMA_EVAL = "agentv-eval-v2"
SCHEMA_TARGETS = "agentv-targets-v2.2"
SCHEMA_CONFIG = "agentv-config-v2"
UNKNOWN_FILE_MESSAGE = "File type not recognized. Eval files must end in .eval.yaml. Skipping validation."

VALIDATOR_ROLES = ("system", "user", "assistant")
ROLE_MARKERS = ("@[System]:", "@[User]:", "@[Assistant]:", "@[Tool]:")
TEST_FILE_EXTENSIONS = (".yaml", ".yml", ".jsonl")

KNOWN_TOP_LEVEL_FIELDS = frozenset(
    {
        "$schema",
        "name",
        "description",
        "category",
        "version",
        "author",
        "tags",
        "license",
        "requires",
        "input",
        "input_files",
        "tests",
        "target",
        "execution",
        "assertions",
        "evaluators",
        "preprocessors",
        "workspace",
        "metadata",
        "governance",
    }
)
DEPRECATED_TOP_LEVEL_FIELDS = {
    "eval_cases": "tests",
    "evalcases": "tests",
    "evaluator": "assertions",
    "assert": "assertions",
}
KNOWN_TEST_FIELDS = frozenset(
    {
        "id",
        "vars",
        "criteria",
        "input",
        "input_files",
        "expected_output",
        "assertions",
        "evaluators",
        "rubrics",
        "execution",
        "workspace",
        "metadata",
        "conversation_id",
        "suite",
        "depends_on",
        "on_dependency_failure",
        "mode",
        "turns",
        "aggregation",
        "on_turn_failure",
        "window_size",
    }
)
DEPRECATED_TEST_FIELDS = {"evaluator": "assertions", "assert": "assertions", "expected_outcome": "criteria"}
# a test without any of these has no conversation-mode issue
_CONVERSATION_FIELDS = frozenset({"mode", "turns", "aggregation", "on_turn_failure", "window_size"})
# known test fields that need no check beyond the id, criteria, input and expected_output ones
_PLAIN_TEST_FIELDS = KNOWN_TEST_FIELDS - _CONVERSATION_FIELDS - {"assertions", "workspace"}


@dataclass(frozen=True, slots=True)
class _FieldSets:
    """The field lists above (4.42.4's names) as a key table names them."""

    top: frozenset[str]
    deprecated_top: dict[str, str]
    test: frozenset[str]
    deprecated_test: dict[str, str]
    conversation: frozenset[str]
    plain_test: frozenset[str]


@functools.cache
def _field_sets(keys: Keys) -> _FieldSets:
    return _FieldSets(
        keys.names(KNOWN_TOP_LEVEL_FIELDS),
        {keys.named(k): keys.named(v) for k, v in DEPRECATED_TOP_LEVEL_FIELDS.items()},
        keys.names(KNOWN_TEST_FIELDS),
        {keys.named(k): keys.named(v) for k, v in DEPRECATED_TEST_FIELDS.items()},
        keys.names(_CONVERSATION_FIELDS),
        keys.names(_PLAIN_TEST_FIELDS),
    )


ASSERTION_TYPES_WITH_STRING_VALUE = frozenset(
    {"contains", "icontains", "starts-with", "ends-with", "equals", "regex"}
)
ASSERTION_TYPES_WITH_ARRAY_VALUE = frozenset(
    {"contains-any", "contains-all", "icontains-any", "icontains-all"}
)
ASSERTION_SCRIPT_EXTENSIONS = frozenset({".ts", ".js", ".mts", ".mjs", ".cts", ".cjs"})
_NAME_PATTERN = re.compile(r"[a-z0-9-]+")
HOOK_NAMES = ("before_all", "before_each", "after_each", "after_all")
_SCRIPT_EXTENSIONS = (".mjs", ".cjs", ".js", ".ts", ".sh", ".bash", ".zsh", ".py", ".rb", ".pl")

# -- targets.yaml (providers/types.ts, providers/targets.ts, targets-validator.ts) -------------

KNOWN_PROVIDERS = (
    "openai",
    "openrouter",
    "azure",
    "anthropic",
    "gemini",
    "codex",
    "copilot-sdk",
    "copilot-cli",
    "copilot-log",
    "pi-coding-agent",
    "pi-cli",
    "claude",
    "claude-cli",
    "claude-sdk",
    "cli",
    "mock",
    "vscode",
    "vscode-insiders",
    "agentv",
    "transcript",
    "replay",
)
PROVIDER_ALIASES = (
    "azure-openai",
    "google",
    "google-gemini",
    "codex-cli",
    "copilot",
    "copilot_sdk",
    "pi",
    "claude-code",
    "cc-mirror",
    "bedrock",
    "vertex",
)
ALL_PROVIDERS = (*KNOWN_PROVIDERS, *PROVIDER_ALIASES)
CLI_PLACEHOLDERS = ("PROMPT", "PROMPT_FILE", "EVAL_ID", "ATTEMPT", "FILES", "OUTPUT_FILE")
_PLACEHOLDER = re.compile(r"\{([A-Z_]+)\}")
_TEMPLATED = re.compile(r"\$\{\{.+\}\}", re.S)
_COMMON = ("use_target", "provider_batching", "subagent_mode_allowed", "fallback_targets")
_RETRY = (
    "max_retries",
    "retry_initial_delay_ms",
    "retry_max_delay_ms",
    "retry_backoff_factor",
    "retry_status_codes",
)
_AZURE = frozenset(
    {
        *_COMMON,
        *_RETRY,
        "endpoint",
        "resource",
        "api_key",
        "deployment",
        "model",
        "version",
        "api_version",
        "temperature",
        "max_output_tokens",
    }
)
_OPENAI = frozenset(
    {
        *_COMMON,
        *_RETRY,
        "endpoint",
        "base_url",
        "api_key",
        "model",
        "deployment",
        "variant",
        "api_format",
        "temperature",
        "max_output_tokens",
    }
)
_OPENROUTER = frozenset(
    {*_COMMON, *_RETRY, "api_key", "model", "deployment", "variant", "temperature", "max_output_tokens"}
)
_GEMINI = _OPENROUTER
_ANTHROPIC = _OPENROUTER | {"thinking_budget"}
_CODEX = frozenset(
    {
        *_COMMON,
        "model",
        "model_reasoning_effort",
        "executable",
        "command",
        "binary",
        "args",
        "arguments",
        "cwd",
        "timeout_seconds",
        "log_dir",
        "log_directory",
        "stream_log",
        "system_prompt",
    }
)
_COPILOT_SHARED = (
    "args",
    "arguments",
    "model",
    "cwd",
    "timeout_seconds",
    "log_dir",
    "log_format",
    "stream_log",
    "system_prompt",
    "subprovider",
    "base_url",
    "api_key",
    "bearer_token",
    "api_version",
    "api_format",
)
_COPILOT_SDK = frozenset({*_COMMON, *_COPILOT_SHARED, "cli_url", "cli_path", "github_token"})
_COPILOT_CLI = frozenset({*_COMMON, *_COPILOT_SHARED, "executable", "command", "binary"})
_VSCODE = frozenset({*_COMMON, "executable", "wait", "dry_run", "subagent_root", "timeout_seconds"})
_MOCK = frozenset({*_COMMON, "response", "trace"})
_REPLAY = frozenset(
    {*_COMMON, "fixtures", "execution_traces", "source_target", "suite", "eval_path", "variant"}
)
_CLAUDE = frozenset(
    {
        *_COMMON,
        "executable",
        "command",
        "binary",
        "model",
        "cwd",
        "timeout_seconds",
        "log_dir",
        "log_directory",
        "log_format",
        "log_output_format",
        "stream_log",
        "system_prompt",
        "max_turns",
        "max_budget_usd",
    }
)
PROVIDER_SETTINGS: dict[str, frozenset[str]] = {
    "openai": _OPENAI,
    "openrouter": _OPENROUTER,
    "azure": _AZURE,
    "azure-openai": _AZURE,
    "anthropic": _ANTHROPIC,
    "gemini": _GEMINI,
    "google": _GEMINI,
    "google-gemini": _GEMINI,
    "codex": _CODEX,
    "codex-cli": _CODEX,
    "copilot-sdk": _COPILOT_SDK,
    "copilot_sdk": _COPILOT_SDK,
    "copilot": _COPILOT_CLI,
    "copilot-cli": _COPILOT_CLI,
    "cc-mirror": _CLAUDE | {"variant"},
    "claude": _CLAUDE,
    "claude-code": _CLAUDE,
    "claude-cli": _CLAUDE,
    "claude-sdk": _CLAUDE,
    "vscode": _VSCODE,
    "vscode-insiders": _VSCODE,
    "mock": _MOCK,
    "replay": _REPLAY,
}
TARGET_BASE_FIELDS = frozenset(
    {"name", "provider", "grader_target", "judge_target", "workers", "$schema", "targets"}
)
_REMOVED_TARGET_FIELDS = ("workspace_template", "workspaceTemplate")
_CODEX_LOG = (
    "The '{field}' field is no longer supported on Codex targets. Use 'stream_log: raw' for per-event logs "
    "or 'stream_log: summary' for consolidated logs."
)
_REMOVED_PER_PROVIDER: dict[str, dict[str, str]] = {
    "azure": {
        "api_format": "The 'api_format' field is no longer supported on Azure targets. AgentV always uses "
        "Azure's Responses API (`/openai/v1/responses`). If your deployment only exposes /chat/completions, "
        "use 'provider: openai' with a deployment-scoped 'base_url' instead."
    },
    "codex": {f: _CODEX_LOG.format(field=f) for f in ("log_format", "log_output_format")},
    "codex-cli": {f: _CODEX_LOG.format(field=f) for f in ("log_format", "log_output_format")},
}
CAMEL_CASE_TARGET_FIELDS = (
    ("providerBatching", "provider_batching"),
    ("subagentModeAllowed", "subagent_mode_allowed"),
    ("fallbackTargets", "fallback_targets"),
    ("resourceName", "endpoint"),
    ("baseUrl", "base_url"),
    ("apiKey", "api_key"),
    ("deploymentName", "model"),
    ("thinkingBudget", "thinking_budget"),
    ("maxTokens", "max_output_tokens"),
    ("apiFormat", "api_format"),
    ("timeoutSeconds", "timeout_seconds"),
    ("logDir", "log_dir"),
    ("logDirectory", "log_directory"),
    ("logFormat", "log_format"),
    ("logOutputFormat", "log_output_format"),
    ("systemPrompt", "system_prompt"),
    ("maxTurns", "max_turns"),
    ("maxBudgetUsd", "max_budget_usd"),
    ("dryRun", "dry_run"),
    ("subagentRoot", "subagent_root"),
    ("filesFormat", "files_format"),
    ("attachmentsFormat", "attachments_format"),
    ("cliUrl", "cli_url"),
    ("cliPath", "cli_path"),
    ("githubToken", "github_token"),
    ("sessionDir", "session_dir"),
    ("sessionId", "session_id"),
    ("sessionStateDir", "session_state_dir"),
    ("maxRetries", "max_retries"),
    ("retryInitialDelayMs", "retry_initial_delay_ms"),
    ("retryMaxDelayMs", "retry_max_delay_ms"),
    ("retryBackoffFactor", "retry_backoff_factor"),
    ("retryStatusCodes", "retry_status_codes"),
    ("modelReasoningEffort", "model_reasoning_effort"),
)

CONFIG_FIELDS = frozenset(
    {
        "$schema",
        "eval_patterns",
        "required_version",
        "execution",
        "results",
        "projects",
        "results_by_project",
        "dashboard",
        "studio",
    }
)


@dataclass(frozen=True, slots=True)
class ValidationIssue:
    """One line of `agentv validate` output.

    `path` is AgentV's location as a path (`format_location(path)` prints it exactly;
    None when AgentV prints none). `node` is where the issue sits in the validated file
    when that differs from `path`: `workspace.repos[path=x]` names a repo by its path, a
    hook's `script` is reported as `command`, and an issue inside another file (`file`: an
    external workspace file) points at the value naming that file.
    """

    severity: Severity
    path: YamlPath | None
    message: str
    code: str
    file: str | None = None  # AgentV's filePath when it is not the validated file
    node: YamlPath | None = None
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def location(self) -> str | None:
        return None if self.path is None else format_location(self.path)

    @property
    def anchored(self) -> bool:
        """Whether `node` only names the file the issue is in (not the issue's own place)."""
        return bool(self.data.get("anchor"))

    @property
    def target(self) -> YamlPath | None:
        """The path whose range a diagnostic underlines."""
        return self.node if self.node is not None else self.path


@dataclass
class ValidateResult:
    """`validateSingleFile` for one file."""

    file_type: FileType
    issues: list[ValidationIssue]
    valid: bool
    # eval files: whether the file-reference and workspace-path checks ran (no other error)
    references_checked: bool = False


# -- small JavaScript equivalents --------------------------------------------------------------


def _non_empty_string(value: Any) -> bool:
    return isinstance(value, str) and not is_blank(value)


def _resolve(base_dir: str, raw: str) -> str:
    return node_resolve(base_dir, raw)


def interpolate_text_env(value: Any, text: str, env: Mapping[str, str]) -> Any:
    """`interpolate_env`, skipped (the same value returned) when the text cannot reference
    an environment variable."""
    return interpolate_env(value, env) if may_reference_env(text) else value


# -- file type -----------------------------------------------------------------------------


def infer_file_type_from_path(path: str) -> FileType:
    normalized = node_normalize(path)
    base = os.path.basename(path)
    if "/.agentv/" in normalized:
        if base in ("config.yaml", "config.yml"):
            return "config"
        if base in ("targets.yaml", "targets.yml"):
            return "targets"
    lower = base.lower()
    if lower.endswith((".eval.yaml", ".eval.yml")):
        return "eval"
    return "unknown"


def detect_file_type(path: str, doc: YamlDocument | None) -> FileType:
    """`detectFileType`: an array root is a cases file; an exact `$schema` decides; the
    path decides otherwise (also when the file cannot be read or parsed)."""
    if doc is None or not doc.ok:
        return infer_file_type_from_path(path)
    value = doc.value
    if isinstance(value, list):
        return "cases"
    if not isinstance(value, dict):
        return infer_file_type_from_path(path)
    schema = value.get("$schema")
    if schema == SCHEMA_EVAL:
        return "eval"
    if schema == SCHEMA_TARGETS:
        return "targets"
    if schema == SCHEMA_CONFIG:
        return "config"
    return infer_file_type_from_path(path)


# -- external cases (loaders/case-file-loader.ts) ------------------------------------------


@dataclass
class ExternalCases:
    """What `loadCasesFromFile` / `loadCasesFromDirectory` produced or threw (validate only
    needs the tests and the error; their console warnings go to stderr, not the report)."""

    cases: list[Any]
    error: str | None = None
    # where the error is: the file, and a JSONL line (1-based) or a YAML path inside it
    error_file: str | None = None
    error_line: int | None = None
    error_path: YamlPath | None = None


def _read(fs: FileSystem, path: str) -> str:
    return fs.read_text(path)


def load_cases_from_file(path: str, fs: FileSystem, env: Mapping[str, str]) -> ExternalCases:
    ext = node_extname(path).lower()
    try:
        content = _read(fs, path)
    except FileReadError as exc:
        return ExternalCases([], f"Cannot read external test file: {path}\n  {exc}", error_file=path)
    if is_blank(content):
        return ExternalCases([])
    if ext in (".yaml", ".yml"):
        doc = read_yaml_v4(content)
        if doc.error is not None:
            return ExternalCases([], doc.error.describe(), error_file=path, error_path=())
        value = interpolate_text_env(doc.value, content, env)
        if not isinstance(value, list):
            return ExternalCases(
                [],
                f"External test file must contain a YAML array, got {js_typeof(value)}: {path}",
                error_file=path,
                error_path=(),
            )
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                return ExternalCases(
                    [],
                    f"External test file contains non-object entry: {path}",
                    error_file=path,
                    error_path=(i,),
                )
        return ExternalCases(value)
    if ext == ".jsonl":
        cases: list[Any] = []
        for number, line, value, error in iter_jsonl(content):
            if error is None and not isinstance(value, dict):
                error = "Expected JSON object"
            if error is not None:
                return ExternalCases(
                    [],
                    f"Malformed JSONL at line {number}: {error}\n  File: {path}",
                    error_file=path,
                    error_line=number,
                )
            cases.append(interpolate_env(value, env) if may_reference_env(line) else value)
        return ExternalCases(cases)
    return ExternalCases(
        [],
        f"Unsupported external test file format '{ext}': {path}. Supported: .yaml, .yml, .jsonl",
        error_file=path,
    )


def load_cases_from_directory(
    path: str, fs: FileSystem, env: Mapping[str, str], keys: Keys = V4_KEYS
) -> ExternalCases:
    try:
        listing = fs.scandir(path)  # Dirent.isDirectory(): symbolic links are not followed
        entries = sorted((e.name for e in listing if e.is_dir(follow_symlinks=False)), key=js_sort_key)
    except OSError as exc:
        return ExternalCases([], f"{exc.strerror}: {path}", error_file=path)
    result = ExternalCases([])
    for name in entries:
        sub = os.path.join(path, name)
        case_file = next(
            (c for c in (os.path.join(sub, "case.yaml"), os.path.join(sub, "case.yml")) if fs.is_file(c)),
            None,
        )
        if case_file is None:
            continue  # the runtime warns and skips the folder
        try:
            content = _read(fs, case_file)
        except FileReadError as exc:
            return ExternalCases([], f"Cannot read case file: {case_file}\n  {exc}", error_file=case_file)
        doc = read_yaml_v4(content)
        if doc.error is not None:
            return ExternalCases([], doc.error.describe(), error_file=case_file, error_path=())
        value = interpolate_text_env(doc.value, content, env)
        if not isinstance(value, dict):
            return ExternalCases(
                [],
                f"Case file must contain a YAML object, got {js_typeof(value)}: {case_file}",
                error_file=case_file,
                error_path=(),
            )
        case = dict(value)
        if case.get(keys.id) is None:
            case[keys.id] = name
        # the folder on disk is named `workspace` whatever the key
        if not truthy(case.get(keys.workspace)) and fs.is_dir(os.path.join(sub, "workspace")):
            case[keys.workspace] = {"template": os.path.join(sub, "workspace")}
        result.cases.append(case)
    return result


def iter_jsonl(content: str) -> Iterator[tuple[int, str, Any, str | None]]:
    """Each non-blank JSONL line: (1-based number, text, value, V8's `JSON.parse` error)."""
    for index, raw in enumerate(content.split("\n")):
        line = js_trim(raw)
        if not line:
            continue
        try:
            value = parse_json(line)
        except JsonParseError as exc:
            yield index + 1, raw, None, str(exc)
            continue
        yield index + 1, raw, value, None


# -- eval files (eval-validator.ts) ----------------------------------------------------------


class _EvalValidator:
    def __init__(self, eval_path: str, fs: FileSystem, env: Mapping[str, str], keys: Keys = V4_KEYS) -> None:
        self.k = keys  # the eval file's key names
        self.fields = _field_sets(keys)
        self.eval_path = eval_path
        self.eval_dir = os.path.dirname(eval_path)
        self.fs = fs
        self.env = env
        self.out: list[ValidationIssue] = []
        self._custom_types: frozenset[str] | None = None

    def add(
        self,
        severity: Severity,
        path: YamlPath | None,
        message: str,
        code: str,
        *,
        file: str | None = None,
        node: YamlPath | None = None,
        **data: Any,
    ) -> None:
        self.out.append(ValidationIssue(severity, path, message, code, file, node, data))

    @property
    def custom_types(self) -> frozenset[str]:
        if self._custom_types is None:
            self._custom_types = discover_custom_assertion_types(self.eval_dir, self.fs)
        return self._custom_types

    # the file ---------------------------------------------------------------------------
    def run(self, value: Any) -> list[ValidationIssue]:
        if not isinstance(value, dict):
            self.add("error", None, "File must contain a YAML object", "v4-not-object")
            return self.out
        name = value.get("name")
        if isinstance(name, str) and not _NAME_PATTERN.fullmatch(name):
            self.add(
                "warning",
                ("name",),
                f"Invalid 'name' format '{name}'. Must match pattern /^[a-z0-9-]+$/ "
                "(lowercase alphanumeric with hyphens).",
                "v4-name-format",
            )
        k = self.k
        for key in value:
            replacement = self.fields.deprecated_top.get(key)
            if replacement is not None:
                self.add(
                    "warning",
                    (key,),
                    f"'{key}' is deprecated. Use '{replacement}' instead.",
                    "v4-deprecated-field",
                    field=key,
                    replacement=replacement,
                )
            elif key not in self.fields.top:
                self.add(
                    "warning",
                    (key,),
                    f"Unknown field '{key}'. This field will be ignored.",
                    "v4-unknown-field",
                    field=key,
                )
        if k.input in value:
            suite_input = value[k.input]
            if isinstance(suite_input, list):
                self.messages(suite_input, (k.input,))
            elif not isinstance(suite_input, str):
                self.add(
                    "error",
                    (k.input,),
                    f"Invalid suite-level '{k.input}' field (must be a string or array of messages)",
                    "v4-input-invalid",
                )
        tests = value.get(k.tests)
        if isinstance(tests, str):
            self.workspace_config(value, (k.workspace,), (k.workspace,), True)
            self.tests_path(tests)
            return self.out
        if not isinstance(tests, list):
            self.add(
                "error",
                (k.tests,),
                f"Missing or invalid '{k.tests}' field (must be an array or a file path string)",
                "v4-tests-missing",
                legacy=next((key for key in reversed(k.deprecated_tests) if key in value), None),
            )
            return self.out
        for i, test in enumerate(tests):
            self.test(test, i)
        self.workspace_config(value, (k.workspace,), (k.workspace,), True)
        return self.out

    def tests_path(self, tests: str) -> None:
        external = _resolve(self.eval_dir, tests)
        if self.fs.is_dir(external) and self.fs.is_allowed(external):
            loaded = load_cases_from_directory(external, self.fs, self.env, self.k)
        else:
            self.extension(tests)
            if node_extname(tests).lower() not in TEST_FILE_EXTENSIONS:
                return
            loaded = load_cases_from_file(external, self.fs, self.env)
        if loaded.error is not None:
            self.add(
                "error",
                (self.k.tests,),
                loaded.error,
                "v4-tests-load",
                file_path=loaded.error_file,
                line=loaded.error_line,
                path_in_file=loaded.error_path,
            )
            return
        for i, case in enumerate(loaded.cases):
            if isinstance(case, dict):
                self.workspace_config(case, (self.k.tests, i, self.k.workspace), (self.k.tests,), False)

    def extension(self, tests_path: str, node: YamlPath | None = None) -> None:
        ext = node_extname(tests_path)
        if ext not in TEST_FILE_EXTENSIONS:
            self.add(
                "warning",
                (self.k.tests,),
                f"Unsupported file extension '{ext}' for {self.k.tests} path '{tests_path}'. "
                f"Supported extensions: {', '.join(TEST_FILE_EXTENSIONS)}",
                "v4-tests-extension",
                node=node,
            )

    # one test ---------------------------------------------------------------------------
    # Runs for every test: the checks most tests need come first, paths are built for issues.
    def test(self, test: Any, i: int) -> None:
        k = self.k
        if isinstance(test, str):
            if test.startswith("file://"):
                self.extension(test, node=(k.tests, i))
            else:
                self.add(
                    "error",
                    (k.tests, i),
                    "Test case string must be a file reference (file://...)",
                    "v4-test-string",
                )
            return
        if not isinstance(test, dict):
            self.add("error", (k.tests, i), "Eval case must be an object", "v4-test-not-object")
            return
        # Most tests hold only fields that the checks below cover: one set test then stands
        # for the unknown-field, assertion, conversation and workspace checks.
        plain = self.fields.plain_test.issuperset(test)
        if not plain:
            self.test_fields(test, (k.tests, i))
        if not _non_empty_string(test.get(k.id)):
            self.add(
                "error",
                (k.tests, i, k.id),
                f"Missing or invalid '{k.id}' field (must be a non-empty string)",
                "v4-invalid-id",
            )
        if k.criteria in test and not _non_empty_string(test[k.criteria]):
            self.add(
                "error",
                (k.tests, i, k.criteria),
                f"Invalid '{k.criteria}' field (must be a non-empty string if provided)",
                "v4-invalid-criteria",
            )
        test_input = test.get(k.input, _MISSING)
        if isinstance(test_input, list):
            self.messages(test_input, (k.tests, i, k.input))
        elif test_input is _MISSING:
            self.add(
                "error",
                (k.tests, i, k.input),
                f"Missing '{k.input}' field (must be a string or array of messages)",
                "v4-input-missing",
            )
        elif not isinstance(test_input, str):
            self.add(
                "error",
                (k.tests, i, k.input),
                f"Invalid '{k.input}' field (must be a string or array of messages)",
                "v4-input-invalid",
            )
        expected = test.get(k.expected_output, _MISSING)
        if isinstance(expected, list):
            if expected and isinstance(expected[0], dict) and "role" in expected[0]:
                self.messages(expected, (k.tests, i, k.expected_output))
        elif expected is not _MISSING and not isinstance(expected, (str, dict)):
            self.add(
                "error",
                (k.tests, i, k.expected_output),
                f"Invalid '{k.expected_output}' field (must be a string, object, or array)",
                "v4-expected-output-invalid",
            )
        if plain:
            return
        base: YamlPath = (k.tests, i)
        if k.assertions in test:
            self.assertions(test[k.assertions], base)
        if not self.fields.conversation.isdisjoint(test):  # without them there is nothing to check
            self.conversation(test, base)
        if k.workspace in test:
            self.workspace_config(test, (*base, k.workspace), (*base, k.workspace), True)

    def test_fields(self, test: dict[str, Any], base: YamlPath) -> None:
        """Deprecated and unknown test fields, in the test's order."""
        for key in test:
            replacement = self.fields.deprecated_test.get(key)
            if replacement is not None:
                self.add(
                    "warning",
                    (*base, key),
                    f"'{key}' is deprecated. Use '{replacement}' instead.",
                    "v4-deprecated-field",
                    field=key,
                    replacement=replacement,
                )
            elif key not in self.fields.test:
                self.add(
                    "warning",
                    (*base, key),
                    f"Unknown field '{key}'. This field will be ignored.",
                    "v4-unknown-field",
                    field=key,
                )

    # messages ---------------------------------------------------------------------------
    # These run for every message of every test: paths are built for issues and text content.
    def messages(self, messages: list[Any], base: YamlPath) -> None:
        for i, message in enumerate(messages):
            if not isinstance(message, dict):
                self.add("error", (*base, i), "Message must be an object", "v4-message-not-object")
                continue
            role = message.get("role")
            if role not in VALIDATOR_ROLES:  # a parsed value equals one of them only if it is that string
                shown = js_string(role, missing="role" not in message)
                self.add(
                    "error",
                    (*base, i, "role"),
                    f"Invalid role '{shown}'. Must be one of: {', '.join(VALIDATOR_ROLES)}",
                    "v4-role-tool" if role == "tool" else "v4-invalid-role",
                    role=role,
                )
            content = message.get("content")
            if isinstance(content, str):  # the usual message
                # `role_markers`' own first test, without a call or a path; one character is
                # looked for first (`quick_contains`: many times faster, and usually absent)
                if "@" in content and "@[" in content:
                    self.role_markers(content, (*base, i, "content"))
                continue
            if content is None and "content" not in message and "tool_calls" in message:
                continue
            if isinstance(content, list):
                self.content_items(content, base, i)
            elif not isinstance(content, dict):
                self.add(
                    "error",
                    (*base, i, "content"),
                    "Missing or invalid 'content' field (must be a string, array, or object)",
                    "v4-content-invalid",
                )

    def content_items(self, content: list[Any], base: YamlPath, message: int) -> None:
        """The content list of message `message` of the list at `base`."""
        for index, item in enumerate(content):
            if isinstance(item, dict):
                kind = item.get("type")
                if kind == "text":
                    text = item.get("value")
                    if not isinstance(text, str):
                        self.add(
                            "error",
                            (*base, message, "content", index, "value"),
                            "Content with type 'text' must have a 'value' field",
                            "v4-text-value-missing",
                        )
                    else:
                        self.role_markers(text, (*base, message, "content", index, "value"))
                elif not isinstance(kind, str):
                    self.add(
                        "error",
                        (*base, message, "content", index, "type"),
                        "Content object must have a 'type' field",
                        "v4-content-type-missing",
                    )
            elif isinstance(item, str):
                self.role_markers(item, (*base, message, "content", index))
            else:
                self.add(
                    "error",
                    (*base, message, "content", index),
                    "Content array items must be strings or objects",
                    "v4-content-item-invalid",
                )

    def role_markers(self, text: str, path: YamlPath) -> None:
        if "@[" not in text:
            return
        lowered = text.lower()
        for marker in ROLE_MARKERS:
            if marker.lower() in lowered:
                self.add(
                    "warning",
                    path,
                    f"Content contains potential role marker '{marker}'. "
                    "This may confuse agentic providers or cause prompt injection.",
                    "v4-role-marker",
                    marker=marker,
                )

    # assertions -------------------------------------------------------------------------
    def assertions(self, assertions: Any, base: YamlPath) -> None:
        where = (*base, self.k.assertions)
        if not isinstance(assertions, list):
            self.add(
                "warning",
                where,
                f"'{self.k.assertions}' must be an array of assertion objects.",
                "v4-assertions-not-array",
            )
            return
        objects: list[tuple[int, dict[str, Any]]] = []
        for i, item in enumerate(assertions):
            if isinstance(item, str):
                if is_blank(item):
                    self.add(
                        "warning",
                        (*where, i),
                        "Empty string assertion item will be ignored.",
                        "v4-assertion-empty",
                    )
                continue
            if not isinstance(item, dict):
                self.add(
                    "warning",
                    (*where, i),
                    "Assertion item must be a string or an object with a type field.",
                    "v4-assertion-item-invalid",
                )
                continue
            objects.append((i, item))
        for i, item in objects:
            path = (*where, i)
            raw_type = item.get("type")
            if not isinstance(raw_type, str):
                self.add(
                    "warning",
                    (*path, "type"),
                    "Assertion item is missing a 'type' field.",
                    "v4-assertion-type-missing",
                )
                continue
            kind = raw_type.replace("_", "-")
            if kind not in GRADER_KINDS and kind not in self.custom_types:
                self.add(
                    "warning",
                    (*path, "type"),
                    f"Unknown assertion type '{raw_type}'.",
                    "v4-assertion-type-unknown",
                    type=raw_type,
                )
                continue
            if kind in ASSERTION_TYPES_WITH_STRING_VALUE:
                value = item.get("value")
                if not isinstance(value, str):
                    self.add(
                        "warning",
                        (*path, "value"),
                        f"Assertion type '{kind}' requires a 'value' field (string).",
                        "v4-assertion-value-missing",
                    )
                    continue
                if kind == "regex":
                    problem = js_regex_error(value)
                    if problem is not None:
                        self.add(
                            "warning",
                            (*path, "value"),
                            f"Invalid regex pattern '{value}': not a valid regular expression.",
                            "v4-assertion-regex-invalid",
                            reason=problem,
                        )
            if kind in ASSERTION_TYPES_WITH_ARRAY_VALUE:
                value = item.get("value")
                if not isinstance(value, list) or not value:
                    self.add(
                        "warning",
                        (*path, "value"),
                        f"Assertion type '{kind}' requires a 'value' field (non-empty string array).",
                        "v4-assertion-value-missing",
                    )
                    continue
            if "required" in item:
                self.required(item["required"], path)

    def required(self, required: Any, base: YamlPath) -> None:
        if isinstance(required, bool):
            return
        if isinstance(required, (int, float)):
            if required <= 0 or required > 1:
                self.add(
                    "warning",
                    (*base, "required"),
                    f"Invalid 'required' value {js_string(required)}. When a number, it must be between "
                    "0 (exclusive) and 1 (inclusive).",
                    "v4-assertion-required-invalid",
                )
            return
        self.add(
            "warning",
            (*base, "required"),
            "Invalid 'required' value. Must be a boolean or a number between 0 (exclusive) and 1 (inclusive).",
            "v4-assertion-required-invalid",
        )

    # conversation mode ------------------------------------------------------------------
    def conversation(self, test: dict[str, Any], base: YamlPath) -> None:
        k = self.k
        conversation = test.get(k.mode) == "conversation"
        turns = test.get(k.turns)
        if k.turns in test and not conversation:
            self.add(
                "error",
                (*base, k.turns),
                f"'{k.turns}' requires {k.mode}: conversation",
                "v4-conversation-field",
            )
        if conversation and (not isinstance(turns, list) or not turns):
            self.add(
                "error",
                (*base, k.mode),
                f"{k.mode}: conversation requires a non-empty '{k.turns}' array",
                "v4-conversation-turns-missing",
            )
        if conversation and isinstance(turns, list) and k.expected_output in test:
            self.add(
                "error",
                (*base, k.expected_output),
                f"Top-level '{k.expected_output}' is not allowed with {k.mode}: conversation "
                f"(use per-turn {k.expected_output} instead)",
                "v4-conversation-expected-output",
            )
        for key in ("aggregation", "on_turn_failure", k.window_size):
            if key in test and not conversation:
                self.add(
                    "error", (*base, key), f"'{key}' requires {k.mode}: conversation", "v4-conversation-field"
                )
        if conversation and isinstance(turns, list):
            for i, turn in enumerate(turns):
                if not isinstance(turn, dict):
                    self.add("error", (*base, k.turns, i), "Turn must be an object", "v4-turn-not-object")
                    continue
                turn_input = turn.get(k.input, _MISSING)
                empty = (
                    turn_input is _MISSING
                    or (isinstance(turn_input, str) and is_blank(turn_input))
                    or (isinstance(turn_input, list) and not turn_input)
                )
                if empty:
                    self.add(
                        "error",
                        (*base, k.turns, i, k.input),
                        f"Each turn must have a non-empty {k.input}",
                        "v4-turn-input-empty",
                    )

    # workspace --------------------------------------------------------------------------
    def workspace_config(
        self, holder: dict[str, Any], location: YamlPath, anchor: YamlPath, inline: bool
    ) -> None:
        """`validateWorkspaceConfig(holder.workspace)`. `anchor` is where the value sits in
        this file; `inline` False when it came from an external cases file (`anchor` is then
        the `tests` value naming that file)."""
        if self.k.workspace not in holder:
            return
        workspace = holder[self.k.workspace]
        if isinstance(workspace, dict):
            self.workspace_repos(workspace, None, anchor, inline)
            return
        if not isinstance(workspace, str):
            return
        node = None if inline else anchor
        workspace_path = _resolve(self.eval_dir, workspace)
        try:
            content = _read(self.fs, workspace_path)
        except FileReadError as exc:
            self.add(
                "error",
                location,
                f"Failed to load external workspace file '{workspace}': {exc}",
                "v4-workspace-file",
                node=node,
                resolved=workspace_path,
                anchor=node is not None,
            )
            return
        doc = read_yaml_v4(content)
        if doc.error is not None:
            self.add(
                "error",
                location,
                f"Failed to load external workspace file '{workspace}': {doc.error.describe()}",
                "v4-workspace-file",
                node=node,
                resolved=workspace_path,
                anchor=node is not None,
            )
            return
        parsed = interpolate_text_env(doc.value, content, self.env)
        if not isinstance(parsed, dict):
            self.add(
                "error",
                location,
                f"External workspace file must contain a YAML object: {workspace}",
                "v4-workspace-file",
                node=node,
                resolved=workspace_path,
                anchor=node is not None,
            )
            return
        self.workspace_repos(parsed, workspace_path, anchor, False)

    def workspace_repos(
        self, workspace: dict[str, Any], other_file: str | None, anchor: YamlPath, inline: bool
    ) -> None:
        """`validateWorkspaceRepoConfig`: AgentV's location is always `workspace.repos[path=…]`,
        whichever workspace (suite, test, external file) it is about."""
        repos = workspace.get("repos")
        hooks = workspace.get("hooks")
        after_each = hooks.get("after_each") if isinstance(hooks, dict) else None
        docker = workspace.get("docker")

        def at(*rest: str | int) -> YamlPath:
            return (*anchor, *rest) if inline else anchor

        if isinstance(repos, list):
            for i, repo in enumerate(repos):
                if not isinstance(repo, dict):
                    continue
                repo_path = repo.get("path")
                label = "(none)" if repo_path is None else js_string(repo_path)
                location: YamlPath = (self.k.workspace, f"repos[path={label}]")
                for removed, message in (
                    ("source", "workspace.repos[].source has been removed. Use workspace.repos[].repo."),
                    (
                        "checkout",
                        "workspace.repos[].checkout has been removed. Use top-level commit, base_commit, and ancestor.",
                    ),
                    ("clone", "workspace.repos[].clone has been removed. Use top-level sparse if needed."),
                ):
                    if removed in repo:
                        self.add(
                            "error",
                            location,
                            message,
                            "v4-workspace-repo-removed-field",
                            file=other_file,
                            node=at("repos", i, removed),
                            field=removed,
                            anchor=not inline,
                        )
                if not truthy(repo.get("repo")) and not isinstance(docker, dict):
                    self.add(
                        "error",
                        location,
                        "repos[].repo is required for non-Docker workspaces. "
                        "Repo-less entries are only valid when workspace.docker is configured.",
                        "v4-workspace-repo-missing",
                        file=other_file,
                        node=at("repos", i, "repo"),
                        anchor=not inline,
                    )
                commit, base_commit = repo.get("commit"), repo.get("base_commit")
                if isinstance(commit, str) and isinstance(base_commit, str) and commit != base_commit:
                    self.add(
                        "error",
                        location,
                        "repos[].commit and repos[].base_commit must match when both are set.",
                        "v4-workspace-commit-mismatch",
                        file=other_file,
                        node=at("repos", i, "base_commit"),
                        anchor=not inline,
                    )
        if (
            isinstance(after_each, dict)
            and truthy(after_each.get("reset"))
            and workspace.get("isolation") == "per_test"
        ):
            self.add(
                "warning",
                (self.k.workspace, "hooks", "after_each"),
                "hooks.after_each.reset is redundant with isolation: per_test (each test gets a fresh workspace).",
                "v4-workspace-reset-redundant",
                file=other_file,
                node=at("hooks", "after_each", "reset"),
                anchor=not inline,
            )


class _Missing:
    pass


_MISSING = _Missing()


def discover_custom_assertion_types(start_dir: str, fs: FileSystem) -> frozenset[str]:
    """Names of `.agentv/assertions/*.{ts,js,…}` files in `start_dir` and its ancestors
    (not the filesystem root), as `discoverCustomAssertionTypes` finds them."""
    found: set[str] = set()
    current = node_resolve("/", start_dir)
    while current != "/":
        folder = os.path.join(current, ".agentv", "assertions")
        if fs.is_allowed(folder):
            try:
                for entry in fs.scandir(folder):
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    ext = node_extname(entry.name).lower()
                    if ext in ASSERTION_SCRIPT_EXTENSIONS:
                        found.add(entry.name[: -len(ext)])
            except OSError:
                pass
        current = os.path.dirname(current)
    return frozenset(found)


def validate_eval(
    value: Any,
    eval_path: str,
    fs: FileSystem | None = None,
    env: Mapping[str, str] | None = None,
    text: str | None = None,
    keys: Keys = V4_KEYS,
) -> list[ValidationIssue]:
    """`validateEvalFile` on the parsed (not yet interpolated) value of `eval_path`
    (`text`, when given, lets a file without `${{` skip the interpolation copy)."""
    environment = os.environ if env is None else env
    interpolated = _interpolated(value, text, environment)
    return _EvalValidator(eval_path, fs or FileSystem(), environment, keys).run(interpolated)


def _interpolated(value: Any, text: str | None, env: Mapping[str, str]) -> Any:
    return interpolate_env(value, env) if text is None else interpolate_text_env(value, text, env)


# -- file references (file-reference-validator.ts) -------------------------------------------


def validate_file_references(
    value: Any, eval_path: str, cwd: str, fs: FileSystem, git_root: str | None = None, keys: Keys = V4_KEYS
) -> list[ValidationIssue]:
    """`validateFileReferences`: every `type: file` content item of inline tests resolves and
    is not empty. `git_root` None: found from the eval file's folder."""
    root = git_root if git_root is not None else find_git_root(os.path.dirname(eval_path), _git_marker(fs))
    if root is None:
        return [
            ValidationIssue(
                "error",
                None,
                "Cannot validate file references: git repository root not found",
                "v4-no-git-root",
            )
        ]
    if not isinstance(value, dict):
        return []
    cases: Any = _MISSING
    for key in keys.test_list_keys():
        if key in value:
            cases = value[key]
            break
    if not isinstance(cases, list):
        return []
    roots = build_search_roots(eval_path, root, cwd)
    out: list[ValidationIssue] = []
    # thousands of tests name the same few files: each value is resolved and read once
    checked: dict[str, _ReferenceCheck] = {}
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            continue
        for key in (keys.input, keys.expected_output):
            messages = case.get(key)
            if isinstance(messages, list):
                _message_file_refs(messages, (keys.tests, i, key), roots, fs, out, checked)
    return out


def _git_marker(fs: FileSystem) -> Any:
    return lambda folder: fs.exists(os.path.join(folder, ".git"))


@dataclass(frozen=True, slots=True)
class _ReferenceCheck:
    """What `validateFileReferences` finds for a file item's value: the same for every item."""

    resolution: Resolution
    read_error: str | None = None  # the file resolved but could not be read
    empty: bool = False


def _check_reference(raw: str, roots: tuple[str, ...], fs: FileSystem) -> _ReferenceCheck:
    resolution = resolve_reference(raw, roots, fs)
    if resolution.resolved_path is None:
        return _ReferenceCheck(resolution)
    try:
        text = fs.read_text(resolution.resolved_path)
    except FileReadError as exc:
        return _ReferenceCheck(resolution, read_error=str(exc))
    return _ReferenceCheck(resolution, empty=is_blank(text))


def _message_file_refs(
    messages: list[Any],
    base: YamlPath,
    roots: tuple[str, ...],
    fs: FileSystem,
    out: list[ValidationIssue],
    checked: dict[str, _ReferenceCheck],
) -> None:
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for j, item in enumerate(content):
            if not isinstance(item, dict) or item.get("type") != "file":
                continue
            path: YamlPath = (*base, i, "content", j)
            raw = item.get("value")
            if not isinstance(raw, str):
                out.append(
                    ValidationIssue(
                        "error",
                        (*path, "value"),
                        "File reference must have a 'value' field with the file path",
                        "v4-file-value-missing",
                    )
                )
                continue
            check = checked.get(raw)
            if check is None:
                check = checked[raw] = _check_reference(raw, roots, fs)
            resolved = check.resolution.resolved_path
            if resolved is None:
                out.append(
                    ValidationIssue(
                        "error",
                        path,
                        f"Referenced file not found: {raw}",
                        "v4-file-not-found",
                        node=(*path, "value"),
                        data={"attempted": list(check.resolution.attempted)},
                    )
                )
            elif check.read_error is not None:
                out.append(
                    ValidationIssue(
                        "error",
                        path,
                        f"Cannot read referenced file: {raw} ({check.read_error})",
                        "v4-file-unreadable",
                        node=(*path, "value"),
                        data={"resolved": resolved},
                    )
                )
            elif check.empty:
                out.append(
                    ValidationIssue(
                        "warning",
                        path,
                        f"Referenced file is empty: {raw}",
                        "v4-file-empty",
                        node=(*path, "value"),
                        data={"resolved": resolved},
                    )
                )


# -- workspace paths (workspace-path-validator.ts) -------------------------------------------


def validate_workspace_paths(
    value: Any, eval_path: str, fs: FileSystem, keys: Keys = V4_KEYS
) -> list[ValidationIssue]:
    """`validateWorkspacePaths`: the suite workspace's template and hook scripts exist."""
    if not isinstance(value, dict):
        return []
    workspace = value.get(keys.workspace)
    eval_dir = os.path.dirname(eval_path)
    out: list[ValidationIssue] = []
    if isinstance(workspace, str):
        workspace_file = _resolve(eval_dir, workspace)
        try:
            content = _read(fs, workspace_file)
        except FileReadError:
            return out
        doc = read_yaml_v4(content)
        if doc.error is None and isinstance(doc.value, dict):
            _workspace_object(doc.value, os.path.dirname(workspace_file), fs, out, None, workspace_file, keys)
    elif isinstance(workspace, dict):
        _workspace_object(workspace, eval_dir, fs, out, (keys.workspace,), None, keys)
    return out


def _workspace_object(
    workspace: dict[str, Any],
    base_dir: str,
    fs: FileSystem,
    out: list[ValidationIssue],
    here: YamlPath | None,
    other_file: str | None,
    keys: Keys,
) -> None:
    ws = keys.workspace
    template = workspace.get("template")
    if isinstance(template, str):
        resolved = template if template.startswith("/") else _resolve(base_dir, template)
        if not fs.exists(resolved):
            out.append(
                ValidationIssue(
                    "error",
                    (ws, "template"),
                    f"Template path not found: {template} (resolved to {resolved})",
                    "v4-workspace-template-missing",
                    other_file,
                    None if here is not None else (ws,),
                    {"resolved": resolved, "anchor": here is None},
                )
            )
    hooks = workspace.get("hooks")
    if not isinstance(hooks, dict):
        return
    for name in HOOK_NAMES:
        hook = hooks.get(name)
        if not isinstance(hook, dict):
            continue
        cwd_raw = hook.get("cwd")
        hook_cwd = (
            (cwd_raw if cwd_raw.startswith("/") else _resolve(base_dir, cwd_raw))
            if isinstance(cwd_raw, str) and cwd_raw
            else base_dir
        )
        key = "command" if hook.get("command") is not None else "script"
        command = hook.get(key)
        if not isinstance(command, list):
            continue
        for i, arg in enumerate(command):
            if not isinstance(arg, str) or not _looks_like_file_path(arg):
                continue
            resolved = arg if arg.startswith("/") else _resolve(hook_cwd, arg)
            if not fs.exists(resolved):
                out.append(
                    ValidationIssue(
                        "error",
                        (ws, "hooks", name, "command", i),
                        f"Hook script not found: {arg} (resolved to {resolved})",
                        "v4-hook-script-missing",
                        other_file,
                        (*here, "hooks", name, key, i) if here is not None else (ws,),
                        {"resolved": resolved, "anchor": here is None},
                    )
                )


def _looks_like_file_path(arg: str) -> bool:
    return arg.startswith(("./", "../")) or arg.endswith(_SCRIPT_EXTENSIONS)


# -- cases files (cases-validator.ts) --------------------------------------------------------


def validate_cases(value: Any, keys: Keys = V4_KEYS) -> list[ValidationIssue]:
    """`validateCasesFile` on a parsed YAML value (no interpolation, as in AgentV)."""
    if not isinstance(value, list):
        return [
            ValidationIssue(
                "error",
                None,
                "Cases file must contain a YAML array of test case objects",
                "v4-cases-not-array",
            )
        ]
    out: list[ValidationIssue] = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            out.append(
                ValidationIssue("error", (i,), "Each test case must be an object", "v4-case-not-object")
            )
            continue
        if not _non_empty_string(item.get(keys.id)):
            out.append(
                ValidationIssue(
                    "error",
                    (i, keys.id),
                    f"Missing or invalid '{keys.id}' field (must be a non-empty string)",
                    "v4-invalid-id",
                )
            )
        if keys.input not in item:
            out.append(
                ValidationIssue(
                    "error",
                    (i, keys.input),
                    f"Missing '{keys.input}' field (must be a string or array of messages)",
                    "v4-input-missing",
                )
            )
        elif not isinstance(item[keys.input], (str, list)):
            out.append(
                ValidationIssue(
                    "error",
                    (i, keys.input),
                    f"Invalid '{keys.input}' field (must be a string or array of messages)",
                    "v4-input-invalid",
                )
            )
    return out


# -- .agentv/config.yaml (config-validator.ts) -----------------------------------------------


def agentv_config_dir(env: Mapping[str, str]) -> str:
    home = env.get("AGENTV_HOME")
    if home and home != "undefined":
        return home
    return os.path.join(os.path.expanduser("~"), ".agentv")


def config_scope(path: str, env: Mapping[str, str]) -> Literal["project", "global"]:
    if node_resolve("/", path) == node_resolve(node_resolve("/", agentv_config_dir(env)), "config.yaml"):
        return "global"
    return "project" if ".agentv" in path.split("/") else "global"


def validate_config(
    value: Any, path: str, env: Mapping[str, str] | None = None, text: str | None = None
) -> list[ValidationIssue]:
    """`validateConfigFile` on a parsed value."""
    environment = os.environ if env is None else env
    parsed = _interpolated(value, text, environment)
    if not isinstance(parsed, (dict, list)):
        return [
            ValidationIssue(
                "error", None, "Config file must contain a valid YAML object", "v4-config-not-object"
            )
        ]
    config = parsed if isinstance(parsed, dict) else {str(i): v for i, v in enumerate(parsed)}
    out: list[ValidationIssue] = []

    def add(severity: Severity, where: YamlPath | None, message: str, code: str, **data: Any) -> None:
        out.append(ValidationIssue(severity, where, message, code, data=data))

    if "eval_patterns" in config:
        patterns = config["eval_patterns"]
        if not isinstance(patterns, list):
            add("error", ("eval_patterns",), "Field 'eval_patterns' must be an array", "v4-config-patterns")
        elif not all(isinstance(p, str) for p in patterns):
            add(
                "error",
                ("eval_patterns",),
                "All entries in 'eval_patterns' must be strings",
                "v4-config-patterns",
            )
        elif not patterns:
            add(
                "warning",
                ("eval_patterns",),
                "Field 'eval_patterns' is empty. Consider removing it or adding patterns.",
                "v4-config-patterns-empty",
            )
    if "required_version" in config and not _non_empty_string(config["required_version"]):
        add(
            "error",
            ("required_version",),
            "Field 'required_version' must be a non-empty string (e.g. \">=3.1.0\")",
            "v4-config-required-version",
        )
    if "results" in config:
        _results_config(config["results"], ("results",), out)
    if "projects" in config:
        projects = config["projects"]
        if config_scope(path, environment) == "project":
            add(
                "warning",
                ("projects",),
                "Field 'projects' is only valid in $AGENTV_HOME/config.yaml. Ignoring project registry entries "
                "in project-local .agentv/config.yaml.",
                "v4-config-projects-local",
            )
        elif not isinstance(projects, list):
            add("error", ("projects",), "Field 'projects' must be an array", "v4-config-projects")
        else:
            _projects(projects, out)
    if "results_by_project" in config:
        add(
            "warning",
            ("results_by_project",),
            "Field 'results_by_project' is deprecated. Put per-project result repo settings under "
            "projects[].results in $AGENTV_HOME/config.yaml.",
            "v4-config-deprecated-field",
        )
    unexpected = [k for k in config if k not in CONFIG_FIELDS]
    if unexpected:
        add(
            "warning",
            None,
            f"Unexpected fields: {', '.join(unexpected)}",
            "v4-config-unexpected-fields",
            fields=unexpected,
        )
    return out


def _loc(path: YamlPath) -> str:
    return format_location(path)


def _required_string(value: Any, where: YamlPath, out: list[ValidationIssue]) -> None:
    if not _non_empty_string(value):
        out.append(
            ValidationIssue(
                "error", where, f"Field '{_loc(where)}' must be a non-empty string", "v4-config-field"
            )
        )


def _git_remote(value: Any, where: YamlPath, out: list[ValidationIssue]) -> None:
    loc = _loc(where)
    if not _non_empty_string(value):
        out.append(
            ValidationIssue(
                "error",
                where,
                f"Field '{loc}' must be a non-empty Git remote URL (e.g., https://github.com/EntityProcess/agentv.git "
                "or git@github.com:EntityProcess/agentv.git)",
                "v4-config-field",
            )
        )
        return
    if not re.match(r"(https?://|ssh://|git@|file://).", js_trim(value), re.S):
        out.append(
            ValidationIssue(
                "error",
                where,
                f"Field '{loc}' must be a Git remote URL, not an owner/name shorthand. Use "
                "https://github.com/owner/repo.git or git@github.com:owner/repo.git.",
                "v4-config-field",
            )
        )


def _is_filesystem_path(p: str) -> bool:
    return p.startswith(("/", "~/", "~\\")) or p == "~" or re.match(r"[A-Za-z]:[/\\]", p) is not None


def _projects(projects: list[Any], out: list[ValidationIssue]) -> None:
    for index, project in enumerate(projects):
        where: YamlPath = ("projects", index)
        loc = _loc(where)
        if not isinstance(project, dict):
            out.append(ValidationIssue("error", where, f"Field '{loc}' must be an object", "v4-config-field"))
            continue
        for key in ("id", "name", "path"):
            _required_string(project.get(key), (*where, key), out)
        if "source" in project:
            out.append(
                ValidationIssue(
                    "error",
                    (*where, "source"),
                    f"Field '{loc}.source' was removed. Move 'source.url' to '{loc}.repo_url' and move 'source.ref' "
                    f"to '{loc}.ref'. Use a Git remote URL such as https://github.com/example/repo.git or "
                    "git@github.com:example/repo.git.",
                    "v4-config-removed-field",
                )
            )
        if "repository" in project:
            out.append(
                ValidationIssue(
                    "error",
                    (*where, "repository"),
                    f"Field '{loc}.repository' was removed. Use '{loc}.repo_url' with a Git remote URL instead.",
                    "v4-config-removed-field",
                )
            )
        if "repo_url" in project:
            _git_remote(project["repo_url"], (*where, "repo_url"), out)
        if "ref" in project:
            _required_string(project["ref"], (*where, "ref"), out)
        if "results" in project:
            _results_config(project["results"], (*where, "results"), out, project_level=True)


def _results_config(
    raw: Any, where: YamlPath, out: list[ValidationIssue], project_level: bool = False
) -> None:
    """`validateResultsConfig` (`project_level`: `validateProjectResultsConfig`)."""
    loc = _loc(where)
    if not isinstance(raw, dict):
        out.append(ValidationIssue("error", where, f"Field '{loc}' must be an object", "v4-config-field"))
        return

    def add(at: YamlPath, message: str, code: str = "v4-config-field") -> None:
        out.append(ValidationIssue("error", at, message, code))

    if project_level:
        removed = {
            "mode": f"Remove '{loc}.mode'; project results use '{loc}.repo_url' as the Git remote URL.",
            "repo": f"Field '{loc}.repo' was removed. Use '{loc}.repo_url' with a Git remote URL instead.",
            "repository": f"Field '{loc}.repository' was removed. Use '{loc}.repo_url' with a Git remote URL instead.",
            "local_path": f"Field '{loc}.local_path' was removed. Use '{loc}.path' for the local clone path instead.",
            "auto_push": f"Field '{loc}.auto_push' was removed. Use '{loc}.sync.auto_push' instead.",
        }
        for key, message in removed.items():
            if key in raw:
                add((*where, key), message, "v4-config-removed-field")
        has_url, has_path = "repo_url" in raw, "repo_path" in raw
        if has_url and has_path:
            add(where, f"Field '{loc}' must set only one of repo_url or repo_path")
        elif has_url:
            _git_remote(raw["repo_url"], (*where, "repo_url"), out)
        elif has_path:
            _required_string(raw["repo_path"], (*where, "repo_path"), out)
        else:
            add(where, f"Field '{loc}' must set repo_url or repo_path")
    else:
        if "mode" in raw and raw["mode"] != "github":
            add((*where, "mode"), f"Field '{loc}.mode' must be 'github'")
        sources = [k for k in ("repo", "repo_url", "repo_path") if k in raw]
        if not sources:
            add(where, f"Field '{loc}' must set repo_url/repo or repo_path")
        elif len(sources) > 1:
            add(where, f"Field '{loc}' must set only one of repo_url/repo or repo_path")
        elif sources[0] == "repo":
            _required_string(raw["repo"], (*where, "repo"), out)
        elif sources[0] == "repo_url":
            _git_remote(raw["repo_url"], (*where, "repo_url"), out)
        else:
            _required_string(raw["repo_path"], (*where, "repo_path"), out)
    for key in ("branch", "remote"):
        if key in raw and not _non_empty_string(raw[key]):
            add((*where, key), f"Field '{loc}.{key}' must be a non-empty string")
    if "path" in raw:
        value = raw["path"]
        if not _non_empty_string(value):
            add((*where, "path"), f"Field '{loc}.path' must be a non-empty string")
        else:
            trimmed = js_trim(value)
            if not _is_filesystem_path(trimmed):
                message = (
                    f"'{loc}.path' must be an absolute or home-relative filesystem path "
                    "(e.g., ~/data/agentv-results)."
                )
                if not project_level:
                    message += f" Found: '{trimmed}'. Remove 'path' to use the default."
                add((*where, "path"), message)
    if not project_level and "auto_push" in raw and not isinstance(raw["auto_push"], bool):
        add((*where, "auto_push"), f"Field '{loc}.auto_push' must be a boolean")
    if "sync" in raw:
        sync = raw["sync"]
        if not isinstance(sync, dict):
            add((*where, "sync"), f"Field '{loc}.sync' must be an object")
        else:
            for key in ("auto_push", "require_push"):
                if key in sync and not isinstance(sync[key], bool):
                    add((*where, "sync", key), f"Field '{loc}.sync.{key}' must be a boolean")
    if "branch_prefix" in raw and not _non_empty_string(raw["branch_prefix"]):
        add((*where, "branch_prefix"), f"Field '{loc}.branch_prefix' must be a non-empty string")


# -- targets.yaml (targets-validator.ts) -----------------------------------------------------


def validate_targets(
    value: Any, env: Mapping[str, str] | None = None, text: str | None = None
) -> list[ValidationIssue]:
    """`validateTargetsFile` on a parsed (not yet interpolated) value."""
    environment = os.environ if env is None else env
    parsed = _interpolated(value, text, environment)
    if not isinstance(parsed, dict):
        return [ValidationIssue("error", None, "File must contain a YAML object", "v4-not-object")]
    targets = parsed.get("targets")
    raw_list = value.get("targets") if isinstance(value, dict) else None
    raw_targets: list[Any] = raw_list if isinstance(raw_list, list) else []
    if not isinstance(targets, list):
        return [
            ValidationIssue(
                "error",
                ("targets",),
                "Missing or invalid 'targets' field (must be an array)",
                "v4-targets-not-array",
            )
        ]
    out: list[ValidationIssue] = []
    for i, target in enumerate(targets):
        raw_target = raw_targets[i] if i < len(raw_targets) else None
        _target(target, raw_target, ("targets", i), out)
    return out


def _target(target: Any, raw_target: Any, base: YamlPath, out: list[ValidationIssue]) -> None:
    def add(severity: Severity, where: YamlPath, message: str, code: str, **data: Any) -> None:
        out.append(ValidationIssue(severity, where, message, code, data=data))

    if not isinstance(target, dict):
        add("error", base, "Target must be an object", "v4-target-not-object")
        return
    for holder, camel_fields, where in (
        (target, CAMEL_CASE_TARGET_FIELDS, base),
        (target.get("healthcheck"), (("timeoutSeconds", "timeout_seconds"),), (*base, "healthcheck")),
    ):
        if not isinstance(holder, dict):
            continue
        for camel, snake in camel_fields:
            if camel in holder:
                add(
                    "error",
                    (*where, camel),
                    f"camelCase field '{camel}' is no longer supported in targets.yaml. Use '{snake}' instead.",
                    "v4-target-camel-case",
                    field=camel,
                    replacement=snake,
                )
    if not _non_empty_string(target.get("name")):
        add(
            "error",
            (*base, "name"),
            "Missing or invalid 'name' field (must be a non-empty string)",
            "v4-target-name",
        )
    provider = target.get("provider")
    raw_use = raw_target.get("use_target") if isinstance(raw_target, dict) else None
    has_use_target = _non_empty_string(target.get("use_target")) or _non_empty_string(raw_use)
    templated = isinstance(provider, str) and _TEMPLATED.fullmatch(js_trim(provider)) is not None
    if not has_use_target and not _non_empty_string(provider):
        add(
            "error",
            (*base, "provider"),
            "Missing or invalid 'provider' field (must be a non-empty string, or use use_target for delegation)",
            "v4-target-provider",
        )
    elif isinstance(provider, str) and not templated and provider not in ALL_PROVIDERS:
        add(
            "warning",
            (*base, "provider"),
            f"Unknown provider '{provider}'. Known providers: {', '.join(ALL_PROVIDERS)}",
            "v4-target-provider-unknown",
            provider=provider,
            expected=list(ALL_PROVIDERS),
        )
    normalized = js_trim(provider).lower() if isinstance(provider, str) else None
    if normalized == "cli":
        _cli_settings(target, base, out)
    if normalized == "replay":
        if _non_empty_string(target.get("fixtures")) == _non_empty_string(target.get("execution_traces")):
            add(
                "error",
                base,
                "Replay provider requires exactly one replay source: 'fixtures' or 'execution_traces'",
                "v4-target-replay",
            )
        if not _non_empty_string(target.get("source_target")):
            add(
                "error",
                (*base, "source_target"),
                "Replay provider requires 'source_target' as a non-empty string",
                "v4-target-replay",
            )
    if isinstance(provider, str) and not templated:
        _unknown_settings(target, provider, base, out)
    # `target.grader_target ?? target.judge_target`, then `!== undefined`
    grader = target.get("grader_target")
    defined = grader is not None
    if not defined:
        defined, grader = "judge_target" in target, target.get("judge_target")
    if defined and not isinstance(grader, str):
        add(
            "error",
            (*base, "grader_target"),
            "Invalid 'grader_target' field (must be a string)",
            "v4-target-grader",
        )


def _unknown_settings(
    target: dict[str, Any], provider: str, base: YamlPath, out: list[ValidationIssue]
) -> None:
    known = PROVIDER_SETTINGS.get(provider.lower())
    if known is None:
        return
    removed_here = _REMOVED_PER_PROVIDER.get(provider, {})
    for key in target:
        if key in _REMOVED_TARGET_FIELDS:
            out.append(
                ValidationIssue(
                    "warning",
                    (*base, key),
                    "workspace_template has been removed from targets. Use eval-level workspace.template instead.",
                    "v4-target-removed-field",
                )
            )
            continue
        if key in removed_here:
            out.append(ValidationIssue("error", (*base, key), removed_here[key], "v4-target-removed-field"))
            continue
        if key not in TARGET_BASE_FIELDS and key not in known:
            out.append(
                ValidationIssue(
                    "warning",
                    (*base, key),
                    f"Unknown setting '{key}' for {provider} provider. This property will be ignored.",
                    "v4-target-setting-unknown",
                    data={"key": key, "expected": sorted(known)},
                )
            )


def _placeholders(template: str, where: YamlPath, out: list[ValidationIssue]) -> None:
    for name in _PLACEHOLDER.findall(template):
        if name not in CLI_PLACEHOLDERS:
            out.append(
                ValidationIssue(
                    "error",
                    where,
                    f"Unknown CLI placeholder '{{{name}}}'. Supported placeholders: {', '.join(CLI_PLACEHOLDERS)}",
                    "v4-target-cli-placeholder",
                    data={"placeholder": name, "expected": list(CLI_PLACEHOLDERS)},
                )
            )


def _cli_settings(target: dict[str, Any], base: YamlPath, out: list[ValidationIssue]) -> None:
    command = target.get("command")
    if not isinstance(command, str) or is_blank(command):
        out.append(
            ValidationIssue(
                "error",
                (*base, "command"),
                "CLI provider requires 'command' as a non-empty string",
                "v4-target-cli-command",
            )
        )
    else:
        _placeholders(command, (*base, "command"), out)
    if "healthcheck" not in target:
        return
    check = target["healthcheck"]
    where: YamlPath = (*base, "healthcheck")
    if not isinstance(check, dict):
        out.append(
            ValidationIssue(
                "error", where, "'healthcheck' must be an object when provided", "v4-target-healthcheck"
            )
        )
        return
    if "timeout_seconds" in check:
        number = js_number(check["timeout_seconds"])
        if not (math.isfinite(number) and number > 0):
            out.append(
                ValidationIssue(
                    "error",
                    (*where, "timeout_seconds"),
                    "healthcheck.timeout_seconds must be a positive number when provided",
                    "v4-target-healthcheck",
                )
            )
    has_url = _non_empty_string(check.get("url"))
    has_command = _non_empty_string(check.get("command"))
    if not has_url and not has_command:
        out.append(
            ValidationIssue(
                "error",
                where,
                "healthcheck must have either 'url' (HTTP) or 'command' (command)",
                "v4-target-healthcheck",
            )
        )
        return
    if has_url:
        return
    _placeholders(check["command"], (*where, "command"), out)
    if "cwd" in check and not isinstance(check["cwd"], str):
        out.append(
            ValidationIssue(
                "error",
                (*where, "cwd"),
                "healthcheck.cwd must be a string when provided",
                "v4-target-healthcheck",
            )
        )


# -- one file, as `agentv validate FILE` --------------------------------------------------------


def validate_document(
    path: str,
    doc: YamlDocument | None,
    *,
    cwd: str,
    fs: FileSystem,
    env: Mapping[str, str] | None = None,
    file_type: FileType | None = None,
    read_error: str | None = None,
    keys: Keys = V4_KEYS,
) -> ValidateResult:
    """`validateSingleFile` for `path` (absolute) whose text parsed to `doc` (None: the file
    could not be read, `read_error` says why). `file_type` None: detect it as AgentV does."""
    environment = os.environ if env is None else env
    if doc is not None and not isinstance(doc, MergedDocument):
        # the runtime's reading (a caller's libyaml parse skipped BOMs AgentV keeps)
        doc = read_yaml_v4(doc.text) if BOM in doc.text else merged_document(doc)
    kind = file_type or detect_file_type(path, doc)
    if kind == "unknown":
        return ValidateResult(
            kind, [ValidationIssue("warning", None, UNKNOWN_FILE_MESSAGE, "v4-unknown-file-type")], True
        )
    if doc is None or doc.error is not None:
        reason = read_error if doc is None else doc.error.describe() if doc.error else ""
        prefix = "Failed to parse config file" if kind == "config" else "Failed to parse YAML"
        issue = ValidationIssue(
            "error",
            None,
            f"{prefix}: {reason}",
            f"v4-yaml-{doc.error.kind}" if doc and doc.error else "v4-unreadable",
        )
        return ValidateResult(kind, [issue], False)
    value = doc.value  # merge keys applied (`parseYamlValue`)
    if kind == "cases":
        issues = validate_cases(value, keys)
    elif kind == "config":
        issues = validate_config(value, path, environment, doc.text)
    elif kind == "targets":
        issues = validate_targets(value, environment, doc.text)
    else:
        issues = validate_eval(value, path, fs, environment, doc.text, keys)
        if not any(i.severity == "error" for i in issues):
            extra = validate_file_references(value, path, cwd, fs, keys=keys) + validate_workspace_paths(
                value, path, fs, keys
            )
            return ValidateResult(
                kind, issues + extra, not any(i.severity == "error" for i in extra), references_checked=True
            )
    return ValidateResult(kind, issues, not any(i.severity == "error" for i in issues))
