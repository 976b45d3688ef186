"""What `agentv validate` reports (validation/*.ts at 903e156c2), as data.

Each function returns `ValidatorFinding`s with the validator's own severity, location and
message text, false alarms included (a `tool` role is rejected here though the runtime
accepts it). `checks.document` turns them into diagnostics and says where the runtime and
the validator disagree.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from agentv_lsp.engine.files import FileReadError, FileSystem, build_search_roots, resolve_reference
from agentv_lsp.engine.jsrt import is_blank, js_number, js_string
from agentv_lsp.formats.v2.model import YamlPath

SCHEMA_EVAL = "agentv-eval-v2"
SCHEMA_TARGETS = "agentv-targets-v2.2"
SCHEMA_CONFIG = "agentv-config-v2"
UNKNOWN_TYPE_MESSAGE = (
    "Missing or invalid $schema field. File must declare schema: 'agentv-eval-v2', "
    "'agentv-targets-v2', or 'agentv-config-v2'"
)
VALIDATOR_ROLES = ("system", "user", "assistant")
ROLE_MARKERS = ("@[System]:", "@[User]:", "@[Assistant]:", "@[Tool]:")
KNOWN_PROVIDERS = (
    "azure",
    "anthropic",
    "gemini",
    "codex",
    "cli",
    "mock",
    "vscode",
    "vscode-insiders",
    "azure-openai",
    "google",
    "google-gemini",
    "codex-cli",
    "openai",
    "bedrock",
    "vertex",
)
RUNTIME_PROVIDERS = frozenset(KNOWN_PROVIDERS) - {"openai", "bedrock", "vertex"}
CLI_PLACEHOLDERS = ("PROMPT", "GUIDELINES", "EVAL_ID", "ATTEMPT", "FILES", "OUTPUT_FILE")
_PLACEHOLDER = re.compile(r"\{([A-Z_]+)\}")

_COMMON = ("provider_batching", "providerBatching")
_RETRY = (
    "max_retries",
    "maxRetries",
    "retry_initial_delay_ms",
    "retryInitialDelayMs",
    "retry_max_delay_ms",
    "retryMaxDelayMs",
    "retry_backoff_factor",
    "retryBackoffFactor",
    "retry_status_codes",
    "retryStatusCodes",
)
_AZURE = (
    *_COMMON,
    *_RETRY,
    "endpoint",
    "resource",
    "resourceName",
    "api_key",
    "apiKey",
    "deployment",
    "deploymentName",
    "model",
    "version",
    "api_version",
    "temperature",
    "max_output_tokens",
    "maxTokens",
)
_GEMINI = (
    *_COMMON,
    *_RETRY,
    "api_key",
    "apiKey",
    "model",
    "deployment",
    "variant",
    "temperature",
    "max_output_tokens",
    "maxTokens",
)
_ANTHROPIC = (*_GEMINI, "thinking_budget", "thinkingBudget")
_CODEX = (
    *_COMMON,
    "executable",
    "command",
    "binary",
    "args",
    "arguments",
    "cwd",
    "timeout_seconds",
    "timeoutSeconds",
    "log_dir",
    "logDir",
    "log_directory",
    "logDirectory",
    "log_format",
    "logFormat",
    "log_output_format",
    "logOutputFormat",
)
_VSCODE = (
    *_COMMON,
    "workspace_template",
    "workspaceTemplate",
    "vscode_cmd",
    "command",
    "wait",
    "dry_run",
    "dryRun",
    "subagent_root",
    "subagentRoot",
)
_MOCK = (*_COMMON, "response", "delayMs", "delayMinMs", "delayMaxMs")
_CLI = (
    *_COMMON,
    "command_template",
    "commandTemplate",
    "files_format",
    "filesFormat",
    "attachments_format",
    "attachmentsFormat",
    "cwd",
    "env",
    "timeout_seconds",
    "timeoutSeconds",
    "healthcheck",
)
PROVIDER_SETTINGS: dict[str, tuple[str, ...]] = {
    "azure": _AZURE,
    "azure-openai": _AZURE,
    "anthropic": _ANTHROPIC,
    "gemini": _GEMINI,
    "google": _GEMINI,
    "google-gemini": _GEMINI,
    "codex": _CODEX,
    "codex-cli": _CODEX,
    "vscode": _VSCODE,
    "vscode-insiders": _VSCODE,
    "mock": _MOCK,
    "cli": _CLI,
}
TARGET_BASE_FIELDS = ("name", "provider", "judge_target", "workers", "$schema", "targets")


@dataclass(frozen=True, slots=True)
class ValidatorFinding:
    severity: Literal["error", "warning"]
    path: YamlPath | None  # None: the validator gives no location
    message: str
    code: str
    data: dict[str, Any] = field(default_factory=dict, compare=False)


def detect_file_type(value: Any) -> Literal["eval", "targets", "config"] | None:
    """`detectFileType`: only an exact `$schema` decides; None is AgentV's "unknown"."""
    schema = value.get("$schema") if isinstance(value, dict) else None
    if schema == SCHEMA_EVAL:
        return "eval"
    if schema == SCHEMA_TARGETS:
        return "targets"
    if schema == SCHEMA_CONFIG:
        return "config"
    return None


# -- eval files ----------------------------------------------------------------------------


def validate_eval(value: Any) -> list[ValidatorFinding]:
    """`validateEvalFile` on an already-parsed value."""
    out: list[ValidatorFinding] = []
    if not isinstance(value, dict):
        return [ValidatorFinding("error", None, "File must contain a YAML object", "validate-not-object")]
    schema = value.get("$schema")
    if schema != SCHEMA_EVAL:
        message = (
            f"Invalid $schema value '{schema}'. Expected '{SCHEMA_EVAL}'"
            if isinstance(schema, str)
            else f"Missing required field '$schema'. Expected '{SCHEMA_EVAL}'"
        )
        out.append(ValidatorFinding("error", ("$schema",), message, "validate-schema"))
    cases = value.get("evalcases")
    if not isinstance(cases, list):
        out.append(
            ValidatorFinding(
                "error",
                ("evalcases",),
                "Missing or invalid 'evalcases' field (must be an array)",
                "validate-evalcases",
            )
        )
        return out
    for i, case in enumerate(cases):
        base: YamlPath = ("evalcases", i)
        if not isinstance(case, dict):
            out.append(
                ValidatorFinding("error", base, "Eval case must be an object", "validate-case-not-object")
            )
            continue
        case_id = case.get("id")
        if not isinstance(case_id, str) or is_blank(case_id):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "id"),
                    "Missing or invalid 'id' field (must be a non-empty string)",
                    "validate-id",
                )
            )
        outcome = case.get("outcome")
        if not isinstance(outcome, str) or is_blank(outcome):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "outcome"),
                    "Missing or invalid 'outcome' field (must be a non-empty string)",
                    "validate-outcome",
                )
            )
        inputs = case.get("input_messages")
        if not isinstance(inputs, list):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "input_messages"),
                    "Missing or invalid 'input_messages' field (must be an array)",
                    "validate-input-messages",
                )
            )
        else:
            _validate_messages(inputs, (*base, "input_messages"), out)
        if "expected_messages" in case and not isinstance(case["expected_messages"], list):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "expected_messages"),
                    "Invalid 'expected_messages' field (must be an array if provided)",
                    "validate-expected-messages",
                )
            )
        elif isinstance(case.get("expected_messages"), list):
            _validate_messages(case["expected_messages"], (*base, "expected_messages"), out)
    return out


def _validate_messages(messages: list[Any], base: YamlPath, out: list[ValidatorFinding]) -> None:
    for i, message in enumerate(messages):
        path = (*base, i)
        if not isinstance(message, dict):
            out.append(
                ValidatorFinding("error", path, "Message must be an object", "validate-message-not-object")
            )
            continue
        role = message.get("role")
        if not (isinstance(role, str) and role in VALIDATOR_ROLES):
            shown = js_string(role, missing="role" not in message)
            out.append(
                ValidatorFinding(
                    "error",
                    (*path, "role"),
                    f"Invalid role '{shown}'. Must be one of: {', '.join(VALIDATOR_ROLES)}",
                    "validate-role",
                    {"role": role},
                )
            )
        content = message.get("content")
        if isinstance(content, str):
            _role_markers(content, (*path, "content"), out)
        elif isinstance(content, list):
            for j, item in enumerate(content):
                item_path = (*path, "content", j)
                if isinstance(item, str):
                    _role_markers(item, item_path, out)
                elif isinstance(item, dict):
                    kind = item.get("type")
                    if not isinstance(kind, str):
                        out.append(
                            ValidatorFinding(
                                "error",
                                (*item_path, "type"),
                                "Content object must have a 'type' field",
                                "validate-content-type",
                            )
                        )
                    if kind == "text":
                        text = item.get("value")
                        if not isinstance(text, str):
                            out.append(
                                ValidatorFinding(
                                    "error",
                                    (*item_path, "value"),
                                    "Content with type 'text' must have a 'value' field",
                                    "validate-text-value",
                                )
                            )
                        else:
                            _role_markers(text, (*item_path, "value"), out)
                else:
                    out.append(
                        ValidatorFinding(
                            "error",
                            item_path,
                            "Content array items must be strings or objects",
                            "validate-content-item",
                        )
                    )
        else:
            out.append(
                ValidatorFinding(
                    "error",
                    (*path, "content"),
                    "Missing or invalid 'content' field (must be a string or array)",
                    "validate-content",
                )
            )


def _role_markers(text: str, path: YamlPath, out: list[ValidatorFinding]) -> None:
    if "@[" not in text:
        return
    lowered = text.lower()
    for marker in ROLE_MARKERS:
        if marker.lower() in lowered:
            out.append(
                ValidatorFinding(
                    "warning",
                    path,
                    f"Content contains potential role marker '{marker}'. "
                    "This may confuse agentic providers or cause prompt injection.",
                    "validate-role-marker",
                    {"marker": marker},
                )
            )


def validate_file_references(
    value: Any, eval_path: str, git_root: str | None, cwd: str, fs: FileSystem
) -> list[ValidatorFinding]:
    """`validateFileReferences`: every `type: file` item in every message must resolve."""
    if git_root is None:
        return [
            ValidatorFinding(
                "error",
                None,
                "Cannot validate file references: git repository root not found",
                "validate-no-git-root",
            )
        ]
    if not isinstance(value, dict) or not isinstance(value.get("evalcases"), list):
        return []
    roots = build_search_roots(eval_path, git_root, cwd)
    out: list[ValidatorFinding] = []
    for i, case in enumerate(value["evalcases"]):
        if not isinstance(case, dict):
            continue
        for key in ("input_messages", "expected_messages"):
            messages = case.get(key)
            if not isinstance(messages, list):
                continue
            for j, message in enumerate(messages):
                content = message.get("content") if isinstance(message, dict) else None
                if not isinstance(content, list):
                    continue
                for k, item in enumerate(content):
                    if not isinstance(item, dict) or item.get("type") != "file":
                        continue
                    path: YamlPath = ("evalcases", i, key, j, "content", k)
                    raw = item.get("value")
                    if not isinstance(raw, str):
                        out.append(
                            ValidatorFinding(
                                "error",
                                (*path, "value"),
                                "File reference must have a 'value' field with the file path",
                                "validate-file-value",
                            )
                        )
                        continue
                    res = resolve_reference(raw, roots, fs)
                    if res.resolved_path is None:
                        out.append(
                            ValidatorFinding(
                                "error",
                                path,
                                f"Referenced file not found: {raw}",
                                "validate-file-not-found",
                                {"attempted": list(res.attempted)},
                            )
                        )
                        continue
                    try:
                        text = fs.read_text(res.resolved_path)
                    except FileReadError as exc:
                        out.append(
                            ValidatorFinding(
                                "error",
                                path,
                                f"Cannot read referenced file: {raw} ({exc})",
                                "validate-file-unreadable",
                                {"resolved": res.resolved_path},
                            )
                        )
                        continue
                    if is_blank(text):
                        out.append(
                            ValidatorFinding(
                                "warning",
                                path,
                                f"Referenced file is empty: {raw}",
                                "validate-file-empty",
                                {"resolved": res.resolved_path},
                            )
                        )
    return out


# -- .agentv/config.yaml -------------------------------------------------------------------


def validate_config(value: Any) -> list[ValidatorFinding]:
    """`validateConfigFile` on an already-parsed value."""
    if not isinstance(value, (dict, list)):  # JS: typeof parsed !== "object" || parsed === null
        return [
            ValidatorFinding(
                "error", None, "Config file must contain a valid YAML object", "config-not-object"
            )
        ]
    config = value if isinstance(value, dict) else {str(i): v for i, v in enumerate(value)}
    out: list[ValidatorFinding] = []
    schema = config.get("$schema")
    if schema != SCHEMA_CONFIG:
        message = (
            f"Invalid $schema value '{schema}'. Expected '{SCHEMA_CONFIG}'"
            if isinstance(schema, str)
            else f"Missing required field '$schema'. Please add '$schema: {SCHEMA_CONFIG}' at the top of the file."
        )
        out.append(ValidatorFinding("error", ("$schema",), message, "config-schema"))
    if "guideline_patterns" in config:
        patterns = config["guideline_patterns"]
        if not isinstance(patterns, list):
            out.append(
                ValidatorFinding(
                    "error",
                    ("guideline_patterns",),
                    "Field 'guideline_patterns' must be an array",
                    "config-patterns-not-array",
                )
            )
        elif not all(isinstance(p, str) for p in patterns):
            out.append(
                ValidatorFinding(
                    "error",
                    ("guideline_patterns",),
                    "All entries in 'guideline_patterns' must be strings",
                    "config-patterns-not-strings",
                )
            )
        elif not patterns:
            out.append(
                ValidatorFinding(
                    "warning",
                    ("guideline_patterns",),
                    "Field 'guideline_patterns' is empty. Consider removing it or adding patterns.",
                    "config-patterns-empty",
                )
            )
    unexpected = [k for k in config if k not in ("$schema", "guideline_patterns")]
    if unexpected:
        out.append(
            ValidatorFinding(
                "warning",
                None,
                f"Unexpected fields: {', '.join(unexpected)}",
                "config-unexpected-fields",
                {"fields": unexpected},
            )
        )
    return out


# -- .agentv/targets.yaml ------------------------------------------------------------------


def _coalesce(obj: dict[str, Any], *keys: str) -> tuple[bool, Any]:
    """`obj[k1] ?? obj[k2]`: (whether the result is not `undefined`, the result).

    Earlier keys count only when neither missing nor null; the last key counts when present,
    even as null (so `null` reaches the type checks, as in JavaScript)."""
    for key in keys[:-1]:
        value = obj.get(key)
        if value is not None:
            return True, value
    return keys[-1] in obj, obj.get(keys[-1])


def validate_targets(value: Any) -> list[ValidatorFinding]:
    """`validateTargetsFile` on an already-parsed value."""
    if not isinstance(value, dict):
        return [ValidatorFinding("error", None, "File must contain a YAML object", "targets-not-object")]
    out: list[ValidatorFinding] = []
    schema = value.get("$schema")
    if schema != SCHEMA_TARGETS:
        message = (
            f"Invalid $schema value '{schema}'. Expected '{SCHEMA_TARGETS}'"
            if isinstance(schema, str)
            else f"Missing required field '$schema'. Expected '{SCHEMA_TARGETS}'"
        )
        out.append(ValidatorFinding("error", ("$schema",), message, "targets-schema"))
    targets = value.get("targets")
    if not isinstance(targets, list):
        out.append(
            ValidatorFinding(
                "error",
                ("targets",),
                "Missing or invalid 'targets' field (must be an array)",
                "targets-not-array",
            )
        )
        return out
    for i, target in enumerate(targets):
        base: YamlPath = ("targets", i)
        if not isinstance(target, dict):
            out.append(ValidatorFinding("error", base, "Target must be an object", "target-not-object"))
            continue
        name = target.get("name")
        if not isinstance(name, str) or is_blank(name):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "name"),
                    "Missing or invalid 'name' field (must be a non-empty string)",
                    "target-name",
                )
            )
        provider = target.get("provider")
        if not isinstance(provider, str) or is_blank(provider):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "provider"),
                    "Missing or invalid 'provider' field (must be a non-empty string)",
                    "target-provider",
                )
            )
        elif provider not in KNOWN_PROVIDERS:
            out.append(
                ValidatorFinding(
                    "warning",
                    (*base, "provider"),
                    f"Unknown provider '{provider}'. Known providers: {', '.join(KNOWN_PROVIDERS)}",
                    "target-provider-unknown",
                    {"provider": provider, "expected": list(KNOWN_PROVIDERS)},
                )
            )
        if isinstance(provider, str) and provider.strip().lower() == "cli":
            _validate_cli(target, base, out)
        if isinstance(provider, str):
            known = PROVIDER_SETTINGS.get(provider.lower())
            if known is not None:
                for key in target:
                    if key not in TARGET_BASE_FIELDS and key not in known:
                        out.append(
                            ValidatorFinding(
                                "warning",
                                (*base, key),
                                f"Unknown setting '{key}' for {provider} provider. This property will be ignored.",
                                "target-setting-unknown",
                                {"key": key, "expected": list(known)},
                            )
                        )
        if "judge_target" in target and not isinstance(target["judge_target"], str):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "judge_target"),
                    "Invalid 'judge_target' field (must be a string)",
                    "target-judge-target",
                )
            )
    return out


def _placeholders(template: str, path: YamlPath, out: list[ValidatorFinding]) -> None:
    for name in _PLACEHOLDER.findall(template):
        if name not in CLI_PLACEHOLDERS:
            out.append(
                ValidatorFinding(
                    "error",
                    path,
                    f"Unknown CLI placeholder '{{{name}}}'. Supported placeholders: {', '.join(CLI_PLACEHOLDERS)}",
                    "target-cli-placeholder",
                    {"placeholder": name, "expected": list(CLI_PLACEHOLDERS)},
                )
            )


def _positive(value: Any) -> bool:
    number = js_number(value)
    return math.isfinite(number) and number > 0


def _validate_cli(target: dict[str, Any], base: YamlPath, out: list[ValidatorFinding]) -> None:
    _defined, template = _coalesce(target, "command_template", "commandTemplate")
    if not isinstance(template, str) or is_blank(template):
        out.append(
            ValidatorFinding(
                "error",
                (*base, "commandTemplate"),
                "CLI provider requires 'commandTemplate' as a non-empty string",
                "target-cli-command",
            )
        )
    else:
        _placeholders(template, (*base, "commandTemplate"), out)
    for keys, label in (
        (("attachments_format", "attachmentsFormat"), "attachmentsFormat"),
        (("files_format", "filesFormat"), "filesFormat"),
        (("cwd",), "cwd"),
    ):
        defined, candidate = _coalesce(target, *keys)
        if defined and not isinstance(candidate, str):
            out.append(
                ValidatorFinding(
                    "error", (*base, label), f"'{label}' must be a string when provided", "target-cli-setting"
                )
            )
    defined, timeout = _coalesce(target, "timeout_seconds", "timeoutSeconds")
    if defined and not _positive(timeout):
        out.append(
            ValidatorFinding(
                "error",
                (*base, "timeoutSeconds"),
                "'timeoutSeconds' must be a positive number when provided",
                "target-cli-setting",
            )
        )
    if "healthcheck" in target:
        _validate_healthcheck(target["healthcheck"], (*base, "healthcheck"), out)


def _validate_healthcheck(check: Any, base: YamlPath, out: list[ValidatorFinding]) -> None:
    if not isinstance(check, dict):
        out.append(
            ValidatorFinding(
                "error", base, "'healthcheck' must be an object when provided", "target-cli-healthcheck"
            )
        )
        return
    kind = check.get("type")
    if kind not in ("http", "command"):
        out.append(
            ValidatorFinding(
                "error",
                (*base, "type"),
                "healthcheck.type must be either 'http' or 'command'",
                "target-cli-healthcheck",
            )
        )
        return
    defined, timeout = _coalesce(check, "timeout_seconds", "timeoutSeconds")
    if defined and not _positive(timeout):
        out.append(
            ValidatorFinding(
                "error",
                (*base, "timeoutSeconds"),
                "healthcheck.timeoutSeconds must be a positive number when provided",
                "target-cli-healthcheck",
            )
        )
    if kind == "http":
        url = check.get("url")
        if not isinstance(url, str) or is_blank(url):
            out.append(
                ValidatorFinding(
                    "error",
                    (*base, "url"),
                    "healthcheck.url must be a non-empty string for http checks",
                    "target-cli-healthcheck",
                )
            )
        return
    _defined, template = _coalesce(check, "command_template", "commandTemplate")
    if not isinstance(template, str) or is_blank(template):
        out.append(
            ValidatorFinding(
                "error",
                (*base, "commandTemplate"),
                "healthcheck.commandTemplate must be a non-empty string for command checks",
                "target-cli-healthcheck",
            )
        )
    else:
        _placeholders(template, (*base, "commandTemplate"), out)
    if "cwd" in check and not isinstance(check["cwd"], str):
        out.append(
            ValidatorFinding(
                "error",
                (*base, "cwd"),
                "healthcheck.cwd must be a string when provided",
                "target-cli-healthcheck",
            )
        )
