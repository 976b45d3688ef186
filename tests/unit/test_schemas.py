"""Our JSON Schemas (schema/*.json) and `agentv_lsp.engine.schemas.validate`.

- the schemas are valid draft 2020-12 schemas, documented for hover (every property described);
- every golden eval/config/targets file the AgentV runtime loaded cleanly validates without
  issues, apart from three listed files where the runtime silently loses content;
- one inline fixture per issue code: message, path, on_key, severity, fix data;
- unions report the branch the discriminator selects; an unknown discriminator gets one error;
- sharing validation results between same-shaped cases gives exactly the results of plain
  jsonschema validation of the whole document.
"""

from __future__ import annotations

import copy
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agentv_lsp.engine import schemas
from agentv_lsp.engine.schemas import SchemaIssue, validate
from agentv_lsp.yamlpos import parse_yaml


def _shared_dir() -> Path | None:
    for candidate in (
        Path(__file__).parents[3] / "shared",
        Path(os.environ.get("AGENTV_SHARED", "/nonexistent")),
    ):
        if (candidate / "golden" / "cases").is_dir():
            return candidate
    return None


SHARED = _shared_dir()
KINDS = ("eval", "config", "targets")


def load(text: str) -> Any:
    doc = parse_yaml(text)
    assert doc.error is None, doc.error
    return doc.value


def issues_of(text: str, kind: schemas.SchemaKind = "eval") -> list[SchemaIssue]:
    return validate(load(text), kind)


def only(issues: list[SchemaIssue]) -> SchemaIssue:
    assert len(issues) == 1, [(i.path, i.code, i.message) for i in issues]
    return issues[0]


EVAL_HEAD = "$schema: agentv-eval-v2\nevalcases:\n"


def one_case(body: str) -> str:
    """An eval file with one case; `body` is the case's mapping, indented by 4."""
    return EVAL_HEAD + "  - " + body.strip("\n")[4:] + "\n"


CLEAN_EVAL = """\
$schema: agentv-eval-v2
description: A suite using every key the runtime reads
dataset: review
evaluator: llm_judge
target: legacy
execution:
  target: default
  evaluators:
    - name: rubric
      type: llm_judge
      prompt: judges/rubric.md
      model: ignored-but-read
    - name: format
      type: code
      script: uv run check.py
      cwd: scripts
evalcases:
  - id: full
    conversation_id: conv-1
    note: for people
    outcome: Finds the bug
    evaluator: code
    input_messages:
      - role: system
        content: You review code.
      - role: user
        content:
          - type: text
            value: Review this.
          - type: file
            value: snippets/parser.py
          - type: image
            value: chart.png
            detail: high
      - role: assistant
        content: []
      - role: tool
        content: ""
    expected_messages:
      - role: assistant
        content: The loop is off by one.
    evaluators:
      - name: judge
        type: llm_judge
  - id: with-execution
    outcome: Uses its own evaluators
    input_messages: []
    execution:
      target: ignored
      evaluators:
        - name: check
          type: code
          script: python3 check.py
"""

CLEAN_CONFIG = (
    "$schema: agentv-config-v2\nguideline_patterns:\n  - '**/*.instructions.md'\n  - '.github/**'\n"
)

CLEAN_TARGETS = """\
$schema: agentv-targets-v2.2
targets:
  - name: default
    provider: azure
    endpoint: ${{ AZURE_OPENAI_ENDPOINT }}
    api_key: ${{ AZURE_OPENAI_API_KEY }}
    model: ${{ AZURE_DEPLOYMENT_NAME }}
    version: ${{ AZURE_API_VERSION }}
    temperature: 0.2
    maxTokens: "2048"
    retry_status_codes: [429, 503]
    workers: 4
    provider_batching: "1"
    judge_target: default
  - name: claude
    provider: anthropic
    apiKey: ${{ ANTHROPIC_API_KEY }}
    variant: ${{ ANTHROPIC_MODEL }}
    thinking_budget: 1024
  - name: gem
    provider: google
    api_key: ${{ GOOGLE_API_KEY }}
    model: gemini-2.5-flash
  - name: codex
    provider: codex-cli
    args: [--profile, "${{ CODEX_PROFILE }}"]
    timeout_seconds: "180"
    log_format: JSON
  - name: vs
    provider: vscode-insiders
    workspace_template: ${{ WS }}
    wait: false
    dryRun: "true"
  - name: mock
    provider: mock
    response: '{"answer": 42}'
    delayMs: 10
  - name: local
    provider: cli
    commandTemplate: run.sh {PROMPT} {FILES} --out {OUTPUT_FILE} {lowercase} {}
    files_format: --file {path}
    env: {A: b}
    healthcheck:
      type: http
      url: ${{ HEALTH_URL }}
      timeoutSeconds: 5
  - name: local2
    provider: cli
    command_template: run.sh {PROMPT} > {OUTPUT_FILE}
    healthcheck:
      type: command
      commandTemplate: run.sh --health {ATTEMPT}
      cwd: tools
"""


# ---------------------------------------------------------------------------- the schemas


@pytest.mark.parametrize("kind", KINDS)
def test_schemas_are_valid_2020_12_with_id_title_description(kind: schemas.SchemaKind) -> None:
    schema = schemas.load_schema(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://agentv-lsp.dev/schema/{schemas.SCHEMA_FILES[kind]}"
    assert schema["title"] and schema["description"]
    assert schemas.load_schema(kind) is schema  # cached


def _property_tables(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            yield node["properties"]
        for key, value in node.items():
            if key not in ("defaultSnippets", "examples", "enum", "const", "if"):
                yield from _property_tables(value)
    elif isinstance(node, list):
        for item in node:
            yield from _property_tables(item)


@pytest.mark.parametrize("kind", KINDS)
def test_every_property_is_described(kind: schemas.SchemaKind) -> None:
    """Hover shows `description`. A branch of a union lists the base keys as `true` (they are
    described, and validated, by the base schema); the `if` of a branch is no declaration."""
    schema = schemas.load_schema(kind)
    described = {
        name for table in _property_tables(schema) for name, sub in table.items() if isinstance(sub, dict)
    }
    undocumented = []
    for table in _property_tables(schema):
        for name, sub in table.items():
            if sub is True:
                assert name in described, name
            elif not sub.get("description"):
                undocumented.append(name)
    assert undocumented == []


def test_enums_have_markdown_descriptions_for_each_value() -> None:
    seen = 0
    for kind in KINDS:
        for table in _property_tables(schemas.load_schema(kind)):
            for sub in table.values():
                if isinstance(sub, dict) and "markdownEnumDescriptions" in sub:
                    assert len(sub["markdownEnumDescriptions"]) == len(sub["enum"])
                    seen += 1
    assert seen >= 5  # role, segment type, evaluator kinds, evaluator type, provider, healthcheck type


def test_schema_files_are_found_next_to_the_package() -> None:
    folder = schemas.schema_dir()
    assert {p.name for p in folder.glob("*.json")} >= set(schemas.SCHEMA_FILES.values())


def _unsnippet(value: Any) -> Any:
    """A VS Code snippet body as the YAML it inserts: `${1:text}` -> text, `\\$` -> `$`."""
    if isinstance(value, dict):
        return {_unsnippet(k): _unsnippet(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unsnippet(v) for v in value]
    if isinstance(value, str):
        text = re.sub(r"\$\{\d+:((?:[^{}\\]|\\.|\{[^{}]*\})*)\}", r"\1", value)
        return re.sub(r"\\(.)", r"\1", text)
    return value


def test_default_snippets_insert_valid_yaml() -> None:
    eval_schema = schemas.load_schema("eval")
    case_snippets = eval_schema["$defs"]["evalCase"]["defaultSnippets"]
    assert any("eval case" in s["label"].lower() for s in case_snippets)
    cases = [_unsnippet(s["body"]) for s in case_snippets]
    assert validate({"$schema": "agentv-eval-v2", "evalcases": cases}, "eval") == []
    for kind in KINDS:
        for snippet in schemas.load_schema(kind)["defaultSnippets"]:
            assert validate(_unsnippet(snippet["body"]), kind) == [], snippet["label"]
    targets = [
        _unsnippet(s["body"]) for s in schemas.load_schema("targets")["$defs"]["target"]["defaultSnippets"]
    ]
    assert validate({"$schema": "agentv-targets-v2.2", "targets": targets}, "targets") == []


# ---------------------------------------------------------------------------- clean input


@pytest.mark.parametrize(
    ("text", "kind"), [(CLEAN_EVAL, "eval"), (CLEAN_CONFIG, "config"), (CLEAN_TARGETS, "targets")]
)
def test_clean_input_has_no_issues(text: str, kind: schemas.SchemaKind) -> None:
    assert issues_of(text, kind) == []


def test_an_empty_evalcases_list_is_fine() -> None:
    assert issues_of("$schema: agentv-eval-v2\nevalcases: []\n") == []


# ---------------------------------------------------------------------------- one fixture per code


def test_unknown_key_is_a_warning_on_the_key_with_a_suggestion() -> None:
    issue = only(issues_of(CLEAN_CONFIG + "guideline_pattern: ['*.md']\n", "config"))
    assert issue.code == "schema-unknown-key"
    assert issue.severity == "warning"
    assert issue.on_key is True
    assert issue.path == ("guideline_pattern",)
    assert issue.message == (
        "Unknown key 'guideline_pattern' at the top level: AgentV ignores it. Did you mean 'guideline_patterns'?"
    )
    assert issue.data["suggestion"] == "guideline_patterns"
    assert issue.data["expected"] == ["$schema", "guideline_patterns"]


def test_unknown_key_without_a_near_match_lists_the_keys_read() -> None:
    text = one_case("""
    id: a
    outcome: o
    input_messages:
      - role: user
        content: hi
        name: bob
""")
    issue = only(issues_of(text))
    assert issue.path == ("evalcases", 0, "input_messages", 0, "name")
    assert issue.message == (
        "Unknown key 'name' in evalcases[0].input_messages[0]: AgentV ignores it. Keys read here: role, content."
    )
    assert "suggestion" not in issue.data


def test_missing_required_key_points_at_the_key() -> None:
    issue = only(
        issues_of(
            one_case("""
    id: a
    input_messages: []
""")
        )
    )
    assert (issue.code, issue.path, issue.on_key, issue.severity) == (
        "schema-required",
        ("evalcases", 0, "outcome"),
        True,
        "error",
    )
    assert issue.message == "Missing required key 'outcome' in evalcases[0]."
    assert issue.data == {"key": "outcome"}


def test_missing_schema_key_says_what_to_add() -> None:
    issue = only(issues_of("evalcases: []\n"))
    assert issue.path == ("$schema",)
    assert issue.message == "Missing required key '$schema' at the top level. Add `$schema: agentv-eval-v2`."
    assert issue.data == {"key": "$schema", "value": "agentv-eval-v2"}


def test_wrong_schema_value_is_a_const_error() -> None:
    issue = only(issues_of("$schema: agentv-eval-v1\nevalcases: []\n"))
    assert issue.code == "schema-const"
    assert issue.path == ("$schema",)
    assert issue.on_key is False
    assert issue.message == "'$schema' must be 'agentv-eval-v2', not 'agentv-eval-v1'."
    assert issue.data["suggestion"] == "agentv-eval-v2"


def test_numeric_id_is_a_type_error_with_a_quoting_hint() -> None:
    issue = only(
        issues_of(
            one_case("""
    id: 001
    outcome: o
    input_messages: []
""")
        )
    )
    assert (issue.code, issue.path) == ("schema-type", ("evalcases", 0, "id"))
    assert (
        issue.message
        == "'id' must be a string, not the number 1. Put the value in quotes to make it a string."
    )
    assert issue.data == {"expected": ["string"]}


def test_list_item_of_the_wrong_type_names_the_item() -> None:
    issue = only(issues_of(EVAL_HEAD + "  - just a string\n"))
    assert issue.path == ("evalcases", 0)
    assert issue.message == "'evalcases[0]' must be a mapping (eval case), not the string 'just a string'."


def test_role_in_the_wrong_case_suggests_the_role() -> None:
    issue = only(
        issues_of(
            one_case("""
    id: a
    outcome: o
    input_messages:
      - role: User
        content: hi
""")
        )
    )
    assert issue.code == "schema-enum"
    assert issue.path == ("evalcases", 0, "input_messages", 0, "role")
    assert (
        issue.message
        == "'role' must be one of 'system', 'user', 'assistant', 'tool', not 'User'. Did you mean 'user'?"
    )
    assert issue.data == {
        "expected": ["system", "user", "assistant", "tool"],
        "value": "User",
        "suggestion": "user",
    }


def test_role_typo_suggests_the_closest_role() -> None:
    text = one_case("""
    id: a
    outcome: o
    input_messages:
      - role: asistant
        content: hi
""")
    assert only(issues_of(text)).data["suggestion"] == "assistant"


def test_empty_outcome_is_a_min_length_error() -> None:
    issue = only(
        issues_of(
            one_case("""
    id: a
    outcome: ""
    input_messages: []
""")
        )
    )
    assert (issue.code, issue.path, issue.message) == (
        "schema-min-length",
        ("evalcases", 0, "outcome"),
        "'outcome' must not be empty.",
    )


def test_string_inside_a_content_list_is_its_own_code_with_a_replacement() -> None:
    issues = issues_of(
        one_case("""
    id: a
    outcome: o
    input_messages:
      - role: user
        content:
          - Review this
          - type: text
            value: fine
          - 5
""")
    )
    assert [(i.code, i.path[-1]) for i in issues] == [
        ("schema-string-in-content-list", 0),
        ("schema-string-in-content-list", 2),
    ]
    first = issues[0]
    assert first.path == ("evalcases", 0, "input_messages", 0, "content", 0)
    assert first.severity == "error"
    assert first.message.startswith(
        "'content[0]' is the string 'Review this', but a content list may only hold segments such as "
        "`{type: text, value: ...}`: AgentV silently drops the whole message."
    )
    assert first.data["replacement"] == {"type": "text", "value": "Review this"}
    assert "replacement" not in issues[1].data
    assert "the number 5" in issues[1].message


def test_content_of_the_wrong_type() -> None:
    issue = only(
        issues_of(
            one_case("""
    id: a
    outcome: o
    input_messages:
      - role: user
        content: 42
""")
        )
    )
    assert issue.message == "'content' must be a string or a list of segments, not the number 42."


@pytest.mark.parametrize(
    ("setting", "code", "message"),
    [
        ("workers: 0", "schema-minimum", "'workers' must be at least 1, not the number 0."),
        ("workers: 1.5", "schema-type", "'workers' must be an integer, not the number 1.5."),
        ("temperature: hot", "schema-type", "'temperature' must be a number, not the string 'hot'."),
        (
            "provider_batching: maybe",
            "schema-type",
            "'provider_batching' must be true or false, not the string 'maybe'.",
        ),
        (
            "judge_target: 5",
            "schema-type",
            "'judge_target' must be a string, not the number 5. Put the value in quotes to make it a string.",
        ),
    ],
)
def test_target_setting_values(setting: str, code: str, message: str) -> None:
    text = (
        "$schema: agentv-targets-v2.2\ntargets:\n  - name: t\n    provider: gemini\n"
        "    api_key: ${{ KEY }}\n    " + setting + "\n"
    )
    issue = only(issues_of(text, "targets"))
    assert (issue.code, issue.message) == (code, message)
    assert issue.path == ("targets", 0, setting.split(":")[0])


def _cli(lines: str) -> str:
    return "$schema: agentv-targets-v2.2\ntargets:\n  - name: local\n    provider: cli\n" + lines


def test_cli_target_without_a_command_template() -> None:
    issue = only(issues_of(_cli("    cwd: x\n"), "targets"))
    assert issue.code == "schema-required"
    assert issue.path == ("targets", 0, "command_template")
    assert issue.on_key is True
    assert (
        issue.message
        == "Missing required key 'command_template' (or 'commandTemplate') in targets[0] (provider: cli)."
    )
    assert issue.data == {"key": "command_template", "alternatives": ["command_template", "commandTemplate"]}


def test_blank_command_template() -> None:
    issue = only(issues_of(_cli("    commandTemplate: '   '\n"), "targets"))
    assert (issue.code, issue.path, issue.message) == (
        "schema-blank",
        ("targets", 0, "commandTemplate"),
        "'commandTemplate' must not be blank.",
    )


def test_unknown_cli_placeholder_suggests_the_placeholder() -> None:
    issue = only(issues_of(_cli("    command_template: run {PROMT} {FILES} {OUTPUT_FILE}\n"), "targets"))
    assert issue.code == "schema-cli-placeholder"
    assert issue.message == (
        "Unknown CLI placeholder '{PROMT}' in 'command_template'. Supported placeholders: {PROMPT}, {GUIDELINES}, "
        "{EVAL_ID}, {ATTEMPT}, {FILES}, {OUTPUT_FILE}. Did you mean '{PROMPT}'?"
    )
    assert issue.data["placeholders"] == ["PROMT"]
    assert issue.data["suggestion"] == "PROMPT"


def test_timeout_must_be_positive() -> None:
    issues = issues_of(
        _cli("    command_template: run {OUTPUT_FILE}\n    timeout_seconds: 0\n    timeoutSeconds: '-3'\n"),
        "targets",
    )
    assert [(i.code, i.path[-1], i.message) for i in issues] == [
        ("schema-minimum", "timeout_seconds", "'timeout_seconds' must be greater than 0, not the number 0."),
        (
            "schema-type",
            "timeoutSeconds",
            "'timeoutSeconds' must be a number greater than 0, not the string '-3'.",
        ),
    ]


def test_literal_secret_must_be_an_environment_reference_and_is_not_echoed() -> None:
    text = (
        "$schema: agentv-targets-v2.2\ntargets:\n  - name: t\n    provider: azure\n    endpoint: ${{ E }}\n"
        "    apiKey: sk-secret-123\n    model: ${{ M }}\n"
    )
    issue = only(issues_of(text, "targets"))
    assert (issue.code, issue.path) == ("schema-env-ref", ("targets", 0, "apiKey"))
    assert issue.message.startswith(
        "'apiKey' must be an environment reference such as ${{ API_KEY }}, not a literal"
    )
    assert "sk-secret" not in issue.message
    assert issue.data == {"example": "${{ API_KEY }}"}


def test_log_format_is_an_enum_like_pattern() -> None:
    text = "$schema: agentv-targets-v2.2\ntargets:\n  - name: c\n    provider: codex\n    log_format: jsn\n"
    issue = only(issues_of(text, "targets"))
    assert issue.code == "schema-enum"
    assert issue.message == "'log_format' must be one of 'summary', 'json', not 'jsn'. Did you mean 'json'?"
    assert issue.data["suggestion"] == "json"


def test_provider_in_another_case_suggests_the_lower_case_name() -> None:
    """The runtime lower-cases `provider`, but `agentv validate` warns about `Google`: so do we."""
    text = (
        "$schema: agentv-targets-v2.2\ntargets:\n  - name: g\n    provider: Google\n    api_key: ${{ K }}\n"
    )
    issue = only(issues_of(text, "targets"))
    assert (issue.code, issue.data["suggestion"]) == ("schema-enum", "google")


def test_provider_the_runtime_rejects() -> None:
    text = "$schema: agentv-targets-v2.2\ntargets:\n  - name: o\n    provider: openai\n    api_key: x\n"
    issue = only(issues_of(text, "targets"))
    assert issue.code == "schema-unsupported-provider"
    assert issue.path == ("targets", 0, "provider")
    assert issue.message.startswith(
        "Provider 'openai' passes `agentv validate`, but `agentv eval` fails with \"Unsupported provider 'openai'\""
    )
    assert issue.data["suggestion"] == "azure-openai"


# ---------------------------------------------------------------------------- discriminated unions


def test_segment_errors_come_from_the_branch_its_type_selects() -> None:
    issues = issues_of(
        one_case("""
    id: a
    outcome: o
    input_messages:
      - role: user
        content:
          - type: file
            vaule: x.py
""")
    )
    # the file branch: `value` is required there and `vaule` is a typo of it
    assert [(i.path[-1], i.code, i.on_key) for i in issues] == [
        ("vaule", "schema-unknown-key", True),
        ("value", "schema-required", True),
    ]
    assert issues[0].message == (
        "Unknown key 'vaule' in evalcases[0].input_messages[0].content[0] (type: file): AgentV ignores it. "
        "Did you mean 'value'?"
    )
    assert (
        issues[1].message
        == "Missing required key 'value' in evalcases[0].input_messages[0].content[0] (type: file)."
    )


def test_image_segments_pass_through_with_any_keys() -> None:
    text = one_case("""
    id: a
    outcome: o
    input_messages:
      - role: user
        content:
          - type: image
            value: cat.png
            detail: high
""")
    assert issues_of(text) == []
    assert (
        only(issues_of(text.replace("value: cat.png", "value: 3"))).message
        == "'value' must be a string, not the number 3. Put the value in quotes to make it a string."
    )


def test_unknown_segment_type_gets_one_enum_error() -> None:
    issue = only(
        issues_of(
            one_case("""
    id: a
    outcome: o
    input_messages:
      - role: user
        content:
          - type: txt
            value: hi
            anything: goes
""")
        )
    )
    assert issue.code == "schema-enum"
    assert issue.path == ("evalcases", 0, "input_messages", 0, "content", 0, "type")
    assert issue.message == "'type' must be one of 'text', 'file', 'image', not 'txt'. Did you mean 'text'?"


def test_evaluator_branch_by_type() -> None:
    issues = issues_of(
        one_case("""
    id: a
    outcome: o
    input_messages: []
    evaluators:
      - name: c
        type: code
        prompt: not-for-code.md
      - name: j
        type: llm_judge
        script: not-for-judges.sh
      - name: r
        type: regex
        pattern: x
""")
    )
    assert [(i.path[-2:], i.code, i.severity) for i in issues] == [
        ((0, "prompt"), "schema-unknown-key", "warning"),
        ((0, "script"), "schema-required", "error"),
        ((1, "script"), "schema-unknown-key", "warning"),
        ((2, "type"), "schema-enum", "error"),
    ]


def test_target_branch_by_provider() -> None:
    text = (
        "$schema: agentv-targets-v2.2\ntargets:\n"
        "  - name: a\n    provider: anthropic\n    api_key: ${{ K }}\n    model: ${{ M }}\n    endpoint: ${{ E }}\n"
        "  - name: b\n    provider: azur\n    endpoint: whatever\n    bogus: 1\n"
    )
    issues = issues_of(text, "targets")
    assert [(i.path, i.code) for i in issues] == [
        (("targets", 0, "endpoint"), "schema-unknown-key"),
        (("targets", 1, "provider"), "schema-enum"),
    ]
    assert issues[0].message.startswith(
        "Unknown key 'endpoint' in targets[0] (provider: anthropic): AgentV ignores it."
    )
    assert issues[1].data["suggestion"] == "azure"


def test_healthcheck_branch_by_type() -> None:
    issues = issues_of(
        _cli(
            "    command_template: run {OUTPUT_FILE}\n    healthcheck:\n      type: http\n      command_template: x\n"
        ),
        "targets",
    )
    assert [(i.path[-1], i.code) for i in issues] == [
        ("command_template", "schema-unknown-key"),
        ("url", "schema-required"),
    ]


# ---------------------------------------------------------------------------- ordering, sharing


def test_issues_are_sorted_by_path_indexes_numerically_keys_in_document_order() -> None:
    cases = [{"id": f"c{i}", "outcome": "o", "input_messages": []} for i in range(12)]
    cases[10]["zz"] = 1
    cases[2]["outcome"] = ""
    cases[2]["aa"] = 1  # after `outcome` in the document
    issues = validate({"evalcases": cases, "$schema": "agentv-eval-v2", "x": 1}, "eval")
    assert [i.path for i in issues] == [
        ("evalcases", 2, "outcome"),
        ("evalcases", 2, "aa"),
        ("evalcases", 10, "zz"),
        ("x",),
    ]


def test_shared_results_keep_each_cases_own_values() -> None:
    schemas.clear_cache()
    cases = [{"id": name, "outcome": "o", "input_messages": [], "execution": name} for name in ("abc", "xyz")]
    issues = validate({"$schema": "agentv-eval-v2", "evalcases": cases}, "eval")
    assert [i.message for i in issues] == [
        "'execution' must be a mapping (case execution), not the string 'abc'.",
        "'execution' must be a mapping (case execution), not the string 'xyz'.",
    ]


def test_free_text_keys_are_derived_from_the_schema() -> None:
    free = schemas._free_text_keys()
    assert {"id", "outcome", "value", "content", "script", "prompt", "name"} <= free
    assert not {"role", "type", "evaluator", "$schema"} & free  # enums and consts read the text


def _reference(instance: Any) -> list[SchemaIssue]:
    """Plain jsonschema over the whole document: no splitting, no sharing."""
    full = schemas.JsDraft202012Validator(schemas.load_schema("eval"))
    return schemas._finish(list(schemas._issues(schemas._failures(full, instance), instance, ())), instance)


BASE_CASES: list[dict[str, Any]] = load(CLEAN_EVAL)["evalcases"]

MUTATIONS: list[Callable[[dict[str, Any]], None]] = [
    lambda c: None,
    lambda c: c.pop("id"),
    lambda c: c.update(id=7),
    lambda c: c.update(id=""),
    lambda c: c.update(outcome=None),
    lambda c: c.update(note=[1]),
    lambda c: c.update(colour="x"),
    lambda c: c.update(evaluator="fancy"),
    lambda c: c.update(execution="fast"),
    lambda c: c.update(execution={"target": 3, "evaluators": {}}),
    lambda c: c.update(input_messages={"role": "user"}),
    lambda c: c.update(expected_messages=[{"role": "User", "content": "x"}, "nope", {"role": "user"}]),
    lambda c: c["input_messages"].append({"role": "user", "content": ["a", {"type": "text"}]}),
    lambda c: c["input_messages"].append({"role": "tool", "content": [{"type": "file", "value": ""}]}),
    lambda c: c["input_messages"].append({"role": "user", "content": [{"type": "img", "value": 3}, {}]}),
    lambda c: c["input_messages"].append(
        {"role": "user", "content": [{"type": "text", "value": "v", "x": 1}]}
    ),
    lambda c: c["input_messages"].append({"role": "system", "content": None, "name": "n"}),
    lambda c: c.update(
        evaluators=[{"name": "", "type": "code", "script": ""}, {"type": "llm_judge", "model": 4}]
    ),
    lambda c: c.update(evaluators=[{"name": "x", "type": "code", "script": "s", "cwd": 1, "prompt": "p"}]),
]


def _with_text(value: Any, salt: str) -> Any:
    """The same shape with other free text: non-empty strings under free-text keys changed."""
    free = schemas._free_text_keys()
    if isinstance(value, dict):
        return {
            k: (v + salt if k in free and isinstance(v, str) and v else _with_text(v, salt))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_with_text(v, salt) for v in value]
    return value


def test_split_and_shared_validation_equals_plain_jsonschema() -> None:
    cases = []
    for base in BASE_CASES:
        for mutate in MUTATIONS:
            case = copy.deepcopy(base)
            mutate(case)
            cases.extend([case, _with_text(case, " (again)"), case])
    cases.extend(["a string", 3, None, []])
    document = {"$schema": "agentv-eval-v2", "evalcases": cases, "execution": {"evaluators": [{"type": "x"}]}}
    schemas.clear_cache()
    expected = _reference(document)
    assert len(expected) > 100
    for _ in range(2):  # cold, then with every shape shared from the first run
        got = validate(document, "eval")
        assert [(i.path, i.on_key, i.code, i.message, i.severity, i.data) for i in got] == [
            (i.path, i.on_key, i.code, i.message, i.severity, i.data) for i in expected
        ]


def test_ten_thousand_cases_validate_quickly() -> None:
    """The real budget is ~0.25 s for 10,000 cases (about 0.06 s measured); this guards against
    losing the sharing, which costs seconds."""
    base = load(CLEAN_EVAL)
    cases = [_with_text(base["evalcases"][i % 2], str(i)) for i in range(10_000)]
    document = {**base, "evalcases": cases}
    schemas.clear_cache()
    start = time.perf_counter()
    assert validate(document, "eval") == []
    assert time.perf_counter() - start < 1.0


# ---------------------------------------------------------------------------- the goldens

# Files the runtime loads without a word although it loses content: the schema reports it.
GOLDEN_EXCEPTIONS = {
    # a plain string inside a content list: AgentV drops the whole message silently
    ("edge-content-list-of-strings", "eval.yaml"): {"schema-string-in-content-list"},
    ("edge-role-marker-validator", "eval.yaml"): {"schema-string-in-content-list"},
    # `{type: text, text: ...}`: no `value`, so the segment is invisible (only `value` is read)
    ("edge-judge-fallback-question", "eval.yaml"): {"schema-required", "schema-unknown-key"},
}


def _golden_files() -> list[tuple[str, str, str, bool]]:
    """(case folder, file relative to it, kind, loaded cleanly?) for every golden file."""
    if SHARED is None:
        return []
    out = []
    for folder in sorted((SHARED / "golden" / "cases").iterdir()):
        meta = json.loads((folder / "expected" / "_case.json").read_text(encoding="utf-8"))
        for result in sorted((folder / "expected").glob("*.json")):
            if result.name == "_case.json":
                continue
            loaded = json.loads(result.read_text(encoding="utf-8"))
            out.append(
                (folder.name, loaded["file"], "eval", loaded["load_error"] is None and not loaded["warnings"])
            )
        for kind, name in (("config", "config.yaml"), ("targets", "targets.yaml")):
            if (folder / ".agentv" / name).is_file():
                validation = meta.get(f"{kind}_validation")
                clean = validation is not None and validation["valid"] and not validation["errors"]
                out.append((folder.name, f".agentv/{name}", kind, clean))
    return out


GOLDEN = _golden_files()


@pytest.mark.skipif(SHARED is None, reason="../shared (or $AGENTV_SHARED) is not available")
def test_goldens_are_found() -> None:
    assert len(GOLDEN) > 50
    assert {kind for _, _, kind, _ in GOLDEN} == set(KINDS)


@pytest.mark.skipif(SHARED is None, reason="../shared (or $AGENTV_SHARED) is not available")
@pytest.mark.parametrize(("folder", "file", "kind", "clean"), GOLDEN, ids=[f"{g[0]}/{g[1]}" for g in GOLDEN])
def test_golden_file(folder: str, file: str, kind: schemas.SchemaKind, clean: bool) -> None:
    assert SHARED is not None
    doc = parse_yaml((SHARED / "golden" / "cases" / folder / file).read_text(encoding="utf-8"))
    if doc.error is not None:
        assert not clean
        return
    issues = validate(doc.value, kind)
    found = [(i.path, i.code, i.message) for i in issues]
    if (folder, file) in GOLDEN_EXCEPTIONS:
        assert {i.code for i in issues} == GOLDEN_EXCEPTIONS[(folder, file)], found
    elif clean:
        assert issues == [], found
    else:
        meta = json.loads(
            (SHARED / "golden" / "cases" / folder / "expected" / "_case.json").read_text("utf-8")
        )
        result = file.replace("/", "__") + ".json"
        refused = (
            kind == "eval"
            and json.loads((SHARED / "golden" / "cases" / folder / "expected" / result).read_text("utf-8"))[
                "load_error"
            ]
        )
        invalid = kind != "eval" and any(
            e["severity"] == "error" for e in meta[f"{kind}_validation"]["errors"]
        )
        if refused or invalid:  # what AgentV refuses, the schema rejects too
            assert any(i.severity == "error" for i in issues), found


def _schema_patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for value in node.values():
            yield from _schema_patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schema_patterns(value)


def test_every_schema_pattern_reads_as_javascript_reads_it() -> None:
    patterns = {
        p
        for name in sorted(os.listdir(schemas.schema_dir()))
        if name.endswith(".json")
        for p in _schema_patterns(json.loads((schemas.schema_dir() / name).read_text("utf-8")))
    }
    assert "\\S" in patterns
    for pattern in patterns:
        schemas.js_pattern_matches(pattern, "")  # raises for one JavaScript or Python cannot read


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("\x85  ", True),  # NEL: space to Python, not to JavaScript's \s
        ("\x1c\x1d\x1e\x1f", True),
        ("\ufeff ", False),  # BOM: space to JavaScript only
        ("\u00a0\u3000\u2028\t", False),
        ("", False),
        ("  x", True),
        ("\U0001f389", True),
    ],
)
def test_a_pattern_reads_white_space_as_javascript(text: str, matches: bool) -> None:
    assert schemas.js_pattern_matches("\\S", text) is matches
    failures = list(schemas.JsDraft202012Validator({"type": "string", "pattern": "\\S"}).iter_errors(text))
    assert (not failures) is matches
