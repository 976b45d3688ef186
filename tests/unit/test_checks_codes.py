"""Every diagnostic code `agentv-lsp check` can emit: one trigger each (severity, code, range
start, AgentV location `path`, key part of the message), and none of them on clean files.

Severity rule: `error` only where AgentV's runtime cannot load the file or `agentv validate`
fails it (the eval validator counts its own warnings, e.g. role markers, as failures);
`warning` where the runtime goes on but loses or ignores something; `information` for facts.

| code                            | sev   | file    | trigger                                                          |
|---------------------------------|-------|---------|------------------------------------------------------------------|
| unknown-file-type               | error | any     | no/unknown `$schema` (also: a named file that does not parse)    |
| yaml-syntax                     | error | any     | YAML syntax error in an eval file (its `$schema:` line) or config |
| yaml-duplicate-key              | error | any     | a key twice in one mapping                                       |
| yaml-multiple-documents         | error | any     | a second `---` document                                          |
| yaml-alias-limit                | error | any     | more than eemeli/yaml's 100 alias expansions                     |
| yaml-too-deep                   | error | any     | nesting deeper than 1000 levels                                  |
| yaml-alias                      | error | any     | an undefined alias                                               |
| file-unreadable                 | error | any     | a file named on the command line that cannot be read (FIFO)      |
| schema-value / schema-missing   | error | eval    | wrong / missing `$schema` when the kind is given (LSP)           |
| file-not-object                 | error | eval    | the root is not a mapping (kind given)                           |
| evalcases-missing               | error | eval    | `evalcases` not a list                                           |
| config-skipped                  | warn  | eval    | a nearer `.agentv/config.yaml` is invalid and skipped            |
| validate-case-not-object        | error | eval    | a case that is not a mapping                                     |
| validate-id                     | error | eval    | id missing, not a string, or blank                               |
| validate-outcome                | error | eval    | outcome missing, not a string, or blank                          |
| validate-input-messages         | error | eval    | input_messages not a list                                        |
| validate-expected-messages      | error | eval    | expected_messages present but not a list (null too)              |
| validate-message-not-object     | error | eval    | a message that is not a mapping                                  |
| validate-role                   | error | eval    | role not system/user/assistant (`User`, missing)                 |
| role-tool-rejected-by-validate  | error | eval    | role `tool` (the runtime accepts it, validate does not)          |
| validate-content                | error | eval    | content neither string nor list                                  |
| validate-content-type           | error | eval    | a content mapping without `type`                                 |
| validate-text-value             | error | eval    | `type: text` without a string `value`                            |
| validate-content-item           | error | eval    | a content item neither string nor mapping                        |
| validate-role-marker            | error | eval    | `@[User]:` etc. in content (validate exits 1 on it)              |
| validate-no-git-root            | error | eval    | no `.git` above the eval file                                    |
| validate-file-value             | error | eval    | `type: file` without a string `value`                            |
| validate-file-not-found         | error | eval    | file reference that resolves nowhere                             |
| validate-file-unreadable        | error | eval    | file reference to a directory (EISDIR)                           |
| validate-file-empty             | warn  | eval    | referenced file blank (validate still passes)                    |
| file-binary                     | warn  | eval    | referenced file holds NUL bytes (inlined as text with U+FFFD)    |
| hidden-bidi                     | warn  | any v2  | a closed bidi control (U+202A-E, U+2066-9) in the text           |
| bidi-unbalanced                 | warn  | any v2  | a bidi override/isolate not closed in its value (Trojan Source)  |
| hidden-invisible                | warn  | any v2  | zero-width/format character (Cf, default-ignorable) in the text  |
| hidden-tag                      | warn  | eval    | Unicode tag characters (hidden ASCII), here in a referenced file |
| file-truncated                  | warn  | eval    | referenced file larger than the read cap (preview incomplete)    |
| too-many-diagnostics            | warn  | any     | more than `--max-diagnostics` (1,000) in one file: how many more |
| check-incomplete                | warn  | any     | LSP only: a check past `agentv.checkTimeBudgetMs` stopped         |
| runtime-manifest-unusable       | warn  | any     | `auto` passed over a package.json (FIFO, device, bad JSON, ...)  |
| runtime-v2-undeclared           | info  | eval    | a v2 file judged as v2 by its format alone (no AgentV declared)  |
| expected-none-valid             | warn  | eval    | no valid expected message: the runtime skips the case            |
| expected-multiple               | warn  | eval    | several expected messages: only the first is the reference       |
| file-not-found                  | warn  | eval    | runtime "File not found" while validate skips file checks        |
| file-unreadable (runtime)       | warn  | eval    | runtime "Could not read file" while validate skips file checks   |
| evaluator-kind-unknown          | warn  | eval    | `evaluator: fancy`                                               |
| evaluators-not-list             | warn  | eval    | `evaluators: strict`                                             |
| evaluator-not-object            | warn  | eval    | `evaluators: [x]`                                                |
| evaluator-invalid               | warn  | eval    | evaluator name/type invalid                                      |
| evaluator-no-script             | warn  | eval    | code evaluator without `script`                                  |
| evaluator-cwd-missing           | warn  | eval    | code evaluator `cwd` not found                                   |
| evaluator-prompt-inline         | warn  | eval    | judge `prompt` that is not a file                                |
| duplicate-case-id               | warn  | eval    | the same id twice                                                |
| message-dropped-plain-item      | warn  | eval    | a plain string in a content list drops the message               |
| case-target-ignored             | warn  | eval    | per-case `execution.target`                                      |
| evaluators-not-inherited        | warn  | eval    | case `execution` block hides the suite evaluators                |
| evaluator-code-runs-llm-judge   | warn  | eval    | `evaluator: code` without an evaluators list                     |
| guideline-basename-collision    | warn  | eval    | two guidelines with one basename                                 |
| guideline-extracted             | info  | eval    | a file becomes a guideline                                       |
| guideline-content-lost          | warn  | eval    | builder matches the raw value, loader does not                   |
| file-dropped-leading-slash      | warn  | eval    | `/x` file in a role-marker case                                  |
| guideline-dot-directory         | warn  | eval    | a dot-directory file that a pattern would match without the dot  |
| code-fence-duplicated           | info  | eval    | fenced block in a flat question                                  |
| targets-file-missing            | info  | eval    | `execution.target` with no targets.yaml                          |
| target-unknown                  | warn  | eval    | `execution.target` not defined in targets.yaml                   |
| config-not-object               | error | config  | root not a mapping (kind given)                                  |
| config-schema                   | error | config  | wrong `$schema` (kind given)                                     |
| config-patterns-not-array       | error | config  | `guideline_patterns` not a list                                  |
| config-patterns-not-strings     | error | config  | a non-string pattern                                             |
| config-patterns-empty           | warn  | config  | `guideline_patterns: []`                                         |
| config-unexpected-fields        | warn  | config  | keys other than `$schema`/`guideline_patterns` (one per key)     |
| targets-not-object              | error | targets | root not a mapping (kind given)                                  |
| targets-schema                  | error | targets | missing `$schema` (kind given)                                   |
| targets-not-array               | error | targets | `targets` not a list                                             |
| target-not-object               | error | targets | an entry that is not a mapping                                   |
| target-name                     | error | targets | no name                                                          |
| target-provider                 | error | targets | no provider                                                      |
| target-provider-unknown         | warn  | targets | provider not in the validator's list                             |
| target-setting-unknown          | warn  | targets | a setting the provider does not know                             |
| target-judge-target             | error | targets | `judge_target` not a string                                      |
| target-cli-command              | error | targets | cli without commandTemplate                                      |
| target-cli-placeholder          | error | targets | unknown `{PLACEHOLDER}`                                          |
| target-cli-setting              | error | targets | cli `cwd` etc. of the wrong type                                 |
| target-cli-healthcheck          | error | targets | cli healthcheck not an object                                    |
| target-provider-unsupported     | warn  | targets | openai/bedrock/vertex: validate passes, the runtime throws       |
| schema-*                        | warn  | all     | JSON-schema issues not covered above (`agentv_lsp.engine.schemas`)      |

Never emitted as such (listed so that the completeness test knows them):
`validate-not-object`, `validate-schema`, `validate-evalcases` (the load error is reported
instead), `case-not-object` and `case-incomplete` (merged into the validator's diagnostic at
the same place, whose message says the runtime skips the case), `load-error` (fallback for a
load error without a code). Engine notices `config-invalid`, `config-unreadable`,
`config-patterns-invalid` and the config's `config-schema` become `config-skipped` on the eval
file; `guideline-unreadable` and `judge-prompt-unreadable` are preview warnings only.
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SERVER = Path(__file__).resolve().parents[2] / "server" / "agentv_lsp"
EVAL_HEADER = "$schema: agentv-eval-v2\nevalcases:\n"


def E(body: str) -> str:
    """An eval file: header on lines 0-1, the body (as written, cases at column 2) from line 2 on."""
    return EVAL_HEADER + body.lstrip("\n")


CASE = """
  - id: c
    outcome: o
    input_messages:
      - role: user
"""  # lines 2-5; content goes on line 6


def content(body: str) -> str:
    return E(CASE + textwrap.indent(textwrap.dedent(body).lstrip("\n"), "        "))


@dataclass
class Trigger:
    code: str
    files: dict[str, Any]
    severity: str
    start: tuple[int, int]
    path: str
    message: str  # a substring of the message (<ROOT> stands for the repository root)
    file: str = "eval.yaml"
    kind: str | None = None
    git: bool = True
    patterns: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


TARGETS_HEAD = "$schema: agentv-targets-v2.2\ntargets:\n"
CONFIG_HEAD = "$schema: agentv-config-v2\n"

TRIGGERS = [
    # -- any file ----------------------------------------------------------------------------
    Trigger(
        "unknown-file-type",
        {"notes.yaml": "title: hello\n"},
        "error",
        (0, 0),
        "",
        "Missing or invalid $schema field. File must declare schema: 'agentv-eval-v2', 'agentv-targets-v2', "
        "or 'agentv-config-v2'",
        file="notes.yaml",
    ),
    Trigger(
        "yaml-syntax",
        {".agentv/config.yaml": CONFIG_HEAD + "guideline_patterns: [a\n"},
        "error",
        (2, 0),
        "",
        "Failed to parse config file: YAML syntax error",
        file=".agentv/config.yaml",
    ),
    Trigger(
        "yaml-duplicate-key",
        {"eval.yaml": "$schema: agentv-eval-v2\nevalcases: []\nevalcases: []\n"},
        "error",
        (2, 0),
        "",
        "Map keys must be unique",
        kind="eval",
    ),
    Trigger(
        "yaml-multiple-documents",
        {"eval.yaml": "$schema: agentv-eval-v2\nevalcases: []\n---\na: 1\n"},
        "error",
        (2, 0),
        "",
        "more than one YAML document",
        kind="eval",
    ),
    Trigger(
        "yaml-alias-limit",
        {"eval.yaml": "$schema: agentv-eval-v2\nx: &x v\nevalcases: [" + ", ".join(["*x"] * 100) + "]\n"},
        "error",
        (1, 3),
        "",
        "Excessive alias count",
        kind="eval",
    ),
    Trigger(
        "yaml-too-deep",
        {"eval.yaml": "$schema: agentv-eval-v2\nevalcases: " + "[" * 1200 + "]" * 1200 + "\n"},
        "error",
        (1, 1010),
        "",
        "deeper than 1000 levels",
        kind="eval",
    ),
    Trigger(
        "yaml-alias",
        {"eval.yaml": "$schema: agentv-eval-v2\nevalcases: *nope\n"},
        "error",
        (1, 11),
        "",
        "undefined alias",
        kind="eval",
    ),
    # -- eval files: load errors -----------------------------------------------------------------
    Trigger(
        "schema-value",
        {"eval.yaml": "$schema: agentv-eval-v1\nevalcases: []\n"},
        "error",
        (0, 9),
        "$schema",
        "AgentV cannot load this file: Invalid $schema value 'agentv-eval-v1'",
        kind="eval",
    ),
    Trigger(
        "schema-missing",
        {"eval.yaml": "evalcases: []\n"},
        "error",
        (0, 0),
        "$schema",
        "AgentV cannot load this file: Missing required field '$schema'",
        kind="eval",
    ),
    Trigger(
        "file-not-object",
        {"eval.yaml": "- a\n- b\n"},
        "error",
        (0, 0),
        "",
        "AgentV cannot load this file: Invalid test file format",
        kind="eval",
    ),
    Trigger(
        "evalcases-missing",
        {"eval.yaml": "$schema: agentv-eval-v2\nevalcases: {a: 1}\n"},
        "error",
        (1, 11),
        "evalcases",
        "missing 'evalcases' field",
    ),
    Trigger(
        "config-skipped",
        {"eval.yaml": E("  []\n"), ".agentv/config.yaml": "$schema: agentv-config-v1\n"},
        "warning",
        (0, 0),
        "",
        "AgentV skips <ROOT>/.agentv/config.yaml: Invalid $schema value 'agentv-config-v1'",
    ),
    # -- eval files: `agentv validate` parity ---------------------------------------------------
    Trigger(
        "validate-case-not-object",
        {"eval.yaml": E("  - just text\n")},
        "error",
        (2, 4),
        "evalcases[0]",
        "Eval case must be an object — AgentV runtime: Skipping invalid eval case entry (expected object)",
    ),
    Trigger(
        "validate-id",
        {"eval.yaml": E("  - id: 1\n    outcome: o\n    input_messages: []\n")},
        "error",
        (2, 8),
        "evalcases[0].id",
        "Missing or invalid 'id' field (must be a non-empty string) — the AgentV runtime skips this whole case",
    ),
    Trigger(
        "validate-outcome",
        {"eval.yaml": E("  - id: c\n    outcome: '  '\n    input_messages: []\n")},
        "error",
        (3, 13),
        "evalcases[0].outcome",
        "Missing or invalid 'outcome' field (must be a non-empty string) — the AgentV runtime accepts it",
    ),
    Trigger(
        "validate-input-messages",
        {"eval.yaml": E("  - id: c\n    outcome: o\n    input_messages: hi\n")},
        "error",
        (4, 20),
        "evalcases[0].input_messages",
        "Missing or invalid 'input_messages' field (must be an array)",
    ),
    Trigger(
        "validate-expected-messages",
        {"eval.yaml": E("  - id: c\n    outcome: o\n    input_messages: []\n    expected_messages: null\n")},
        "error",
        (5, 23),
        "evalcases[0].expected_messages",
        "Invalid 'expected_messages' field (must be an array if provided)",
    ),
    Trigger(
        "validate-message-not-object",
        {"eval.yaml": E("  - id: c\n    outcome: o\n    input_messages:\n      - hi\n")},
        "error",
        (5, 8),
        "evalcases[0].input_messages[0]",
        "Message must be an object",
    ),
    Trigger(
        "validate-role",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages:\n      - role: User\n        content: x\n"
            )
        },
        "error",
        (5, 14),
        "evalcases[0].input_messages[0].role",
        "Invalid role 'User'. Must be one of: system, user, assistant — the AgentV runtime drops this whole "
        "message silently",
    ),
    Trigger(
        "role-tool-rejected-by-validate",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages:\n      - role: tool\n        content: x\n"
            )
        },
        "error",
        (5, 14),
        "evalcases[0].input_messages[0].role",
        "Invalid role 'tool'. Must be one of: system, user, assistant — `agentv validate` rejects role 'tool', "
        "but the runtime accepts it",
    ),
    Trigger(
        "validate-content",
        {"eval.yaml": content("content: 42\n")},
        "error",
        (6, 17),
        "evalcases[0].input_messages[0].content",
        "Missing or invalid 'content' field (must be a string or array)",
    ),
    Trigger(
        "validate-content-type",
        {"eval.yaml": content("content:\n  - value: x\n")},
        "error",
        (7, 12),
        "evalcases[0].input_messages[0].content[0].type",
        "Content object must have a 'type' field",
    ),
    Trigger(
        "validate-text-value",
        {"eval.yaml": content("content:\n  - type: text\n")},
        "error",
        (7, 12),
        "evalcases[0].input_messages[0].content[0].value",
        "Content with type 'text' must have a 'value' field",
    ),
    Trigger(
        "validate-content-item",
        {"eval.yaml": content("content:\n  - 42\n")},
        "error",
        (7, 12),
        "evalcases[0].input_messages[0].content[0]",
        "Content array items must be strings or objects",
    ),
    Trigger(
        "validate-role-marker",
        {"eval.yaml": content("content: 'Say @[User]: hi'\n")},
        "error",
        (6, 17),
        "evalcases[0].input_messages[0].content",
        "Content contains potential role marker '@[User]:'. This may confuse agentic providers or cause prompt "
        "injection. — `agentv validate` counts this warning as a failure",
    ),
    Trigger(
        "validate-no-git-root",
        {"eval.yaml": content("content: Q\n")},
        "error",
        (0, 0),
        "",
        "Cannot validate file references: git repository root not found",
        git=False,
    ),
    Trigger(
        "validate-file-value",
        {"eval.yaml": content("content:\n  - type: file\n")},
        "error",
        (7, 12),
        "evalcases[0].input_messages[0].content[0].value",
        "File reference must have a 'value' field with the file path",
    ),
    Trigger(
        "validate-file-not-found",
        {"eval.yaml": content("content:\n  - type: file\n    value: nope.md\n")},
        "error",
        (8, 19),
        "evalcases[0].input_messages[0].content[0]",
        "Referenced file not found: nope.md. Tried: <ROOT>/nope.md",
    ),
    Trigger(
        "validate-file-unreadable",
        {"eval.yaml": content("content:\n  - type: file\n    value: docs\n"), "docs/": ""},
        "error",
        (8, 19),
        "evalcases[0].input_messages[0].content[0]",
        "Cannot read referenced file: docs (EISDIR: illegal operation on a directory, read)",
    ),
    Trigger(
        "file-binary",
        {"eval.yaml": content("content:\n  - type: file\n    value: blob.bin\n"), "blob.bin": "PNG\x00\x01"},
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "looks binary (it contains NUL bytes)",
    ),
    Trigger(
        "hidden-bidi",
        {"eval.yaml": content("content: a\u202eb\u202c\n")},
        "warning",
        (6, 18),
        "evalcases[0].input_messages[0].content",
        "Bidirectional control U+202E RIGHT-TO-LEFT OVERRIDE",
    ),
    Trigger(
        "bidi-unbalanced",
        {"eval.yaml": content("content: 'a\u2067b' # c\n")},
        "warning",
        (6, 19),
        "evalcases[0].input_messages[0].content",
        "U+2067 RIGHT-TO-LEFT ISOLATE is not closed",
    ),
    Trigger(
        "hidden-invisible",
        {"eval.yaml": content("content: pass\u200bword\n")},
        "warning",
        (6, 21),
        "evalcases[0].input_messages[0].content",
        "Invisible character U+200B ZERO WIDTH SPACE",
    ),
    Trigger(
        "hidden-tag",
        {
            "eval.yaml": content("content:\n  - type: file\n    value: a.md\n"),
            "a.md": "hi" + "".join(chr(0xE0000 + ord(c)) for c in "obey"),
        },
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "The referenced file a.md, line 1, column 3: 4 Unicode tag characters spelling hidden text 'obey'",
    ),
    Trigger(
        "validate-file-empty",
        {"eval.yaml": content("content:\n  - type: file\n    value: empty.md\n"), "empty.md": " \n"},
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0]",
        "Referenced file is empty: empty.md. In LM mode it is left out entirely",
    ),
    # -- eval files: what the runtime prints -------------------------------------------------------
    Trigger(
        "expected-none-valid",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages: []\n    expected_messages:\n"
                "      - role: Assistant\n        content: x\n"
            )
        },
        "warning",
        (6, 6),
        "evalcases[0].expected_messages",
        "AgentV: No valid expected message found for eval case: c.",
    ),
    Trigger(
        "expected-multiple",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages: []\n    expected_messages:\n"
                "      - role: assistant\n        content: a\n      - role: assistant\n        content: b\n"
            )
        },
        "warning",
        (8, 8),
        "evalcases[0].expected_messages[1]",
        "AgentV: Multiple expected messages found for eval case: c, using first.",
    ),
    Trigger(
        "file-not-found",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: '  '\n    input_messages:\n      - role: user\n        content:\n"
                "          - type: file\n            value: nope.md\n"
            )
        },
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "AgentV: File not found: nope.md. Tried: <ROOT>/nope.md. (`agentv validate` does not check file "
        "references while the file has other errors.)",
    ),
    Trigger(
        "file-unreadable",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: '  '\n    input_messages:\n      - role: user\n        content:\n"
                "          - type: file\n            value: docs\n"
            ),
            "docs/": "",
        },
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "AgentV: Could not read file <ROOT>/docs: EISDIR: illegal operation on a directory, read",
    ),
    Trigger(
        "evaluator-kind-unknown",
        {"eval.yaml": "$schema: agentv-eval-v2\nevaluator: fancy\nevalcases: []\n"},
        "warning",
        (1, 0),
        "evaluator",
        "AgentV: Unknown evaluator 'fancy' in global, falling back to default. Use `llm_judge` or `code`.",
    ),
    Trigger(
        "evaluators-not-list",
        {"eval.yaml": E("  - id: c\n    outcome: o\n    input_messages: []\n    evaluators: strict\n")},
        "warning",
        (5, 16),
        "evalcases[0].evaluators",
        "AgentV: Skipping evaluators for 'c': expected array.",
    ),
    Trigger(
        "evaluator-not-object",
        {"eval.yaml": E("  - id: c\n    outcome: o\n    input_messages: []\n    evaluators: [x]\n")},
        "warning",
        (5, 17),
        "evalcases[0].evaluators[0]",
        "AgentV: Skipping invalid evaluator entry for 'c' (expected object)",
    ),
    Trigger(
        "evaluator-invalid",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages: []\n    evaluators: [{name: n, type: rubric}]\n"
            )
        },
        "warning",
        (5, 17),
        "evalcases[0].evaluators[0]",
        "AgentV: Skipping evaluator with invalid name/type in 'c'.",
    ),
    Trigger(
        "evaluator-no-script",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages: []\n    evaluators: [{name: s, type: code}]\n"
            )
        },
        "warning",
        (5, 17),
        "evalcases[0].evaluators[0]",
        "AgentV: Skipping code evaluator 's' in 'c': missing script.",
    ),
    Trigger(
        "evaluator-cwd-missing",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages: []\n"
                "    evaluators: [{name: s, type: code, script: x, cwd: nowhere}]\n"
            )
        },
        "warning",
        (5, 55),
        "evalcases[0].evaluators[0].cwd",
        "AgentV: Code evaluator 's' in 'c': cwd not found (nowhere). Tried: <ROOT>/nowhere.",
    ),
    Trigger(
        "evaluator-prompt-inline",
        {
            "eval.yaml": E(
                "  - id: c\n    outcome: o\n    input_messages: []\n"
                "    evaluators: [{name: j, type: llm_judge, prompt: 'Judge {{question}}'}]\n"
            )
        },
        "warning",
        (5, 52),
        "evalcases[0].evaluators[0].prompt",
        "AgentV: Inline prompt used for evaluator 'j' in 'c' (file not found: Judge {{question}}). "
        "Tried: <ROOT>/Judge {{question}}.",
    ),
    # -- eval files: silent losses -----------------------------------------------------------------
    Trigger(
        "duplicate-case-id",
        {
            "eval.yaml": E(
                "  - id: d\n    outcome: o\n    input_messages: []\n  - id: d\n    outcome: o\n    input_messages: []\n"
            )
        },
        "warning",
        (5, 8),
        "evalcases[1].id",
        "Duplicate case id 'd' (first used by evalcases[0])",
    ),
    Trigger(
        "message-dropped-plain-item",
        {"eval.yaml": content("content:\n  - plain\n")},
        "warning",
        (7, 12),
        "evalcases[0].input_messages[0].content[0]",
        "AgentV silently drops this whole input message",
    ),
    Trigger(
        "case-target-ignored",
        {"eval.yaml": E("  - id: c\n    outcome: o\n    input_messages: []\n    execution: {target: x}\n")},
        "warning",
        (5, 24),
        "evalcases[0].execution.target",
        "AgentV ignores a per-case `execution.target`",
    ),
    Trigger(
        "evaluators-not-inherited",
        {
            "eval.yaml": "$schema: agentv-eval-v2\nexecution:\n  evaluators:\n    - {name: j, type: llm_judge}\n"
            "evalcases:\n  - id: c\n    outcome: o\n    input_messages: []\n    execution: {target: x}\n"
        },
        "warning",
        (8, 4),
        "evalcases[0].execution",
        "does NOT inherit the file's `execution.evaluators`",
    ),
    Trigger(
        "evaluator-code-runs-llm-judge",
        {"eval.yaml": E("  - id: c\n    outcome: o\n    input_messages: []\n    evaluator: code\n")},
        "warning",
        (5, 15),
        "evalcases[0].evaluator",
        "`evaluator: code` without an `evaluators` list silently runs the LLM judge",
    ),
    Trigger(
        "guideline-basename-collision",
        {
            "eval.yaml": content(
                "content:\n  - type: file\n    value: x/style.instructions.md\n"
                "  - type: file\n    value: y/style.instructions.md\n"
            ),
            "x/style.instructions.md": "X",
            "y/style.instructions.md": "Y",
        },
        "warning",
        (10, 19),
        "evalcases[0].input_messages[0].content[1].value",
        'Two different guideline files are both labelled <file path="style.instructions.md">',
        patterns=["**/*.instructions.md"],
    ),
    Trigger(
        "guideline-extracted",
        {
            "eval.yaml": content("content:\n  - type: file\n    value: g.instructions.md\n"),
            "g.instructions.md": "G",
        },
        "information",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "Guideline: extracted to `guidelines` by pattern '**/*.instructions.md' (.agentv/config.yaml)",
        patterns=["**/*.instructions.md"],
    ),
    Trigger(
        "guideline-content-lost",
        {
            "evals/eval.yaml": E(
                CASE + "        content:\n          - type: file\n            value: prompts/style.md\n"
                "      - role: assistant\n        content: ok\n"
            ),
            "evals/prompts/style.md": "Use tabs.",
        },
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "The content of prompts/style.md appears nowhere in the prompt",
        file="evals/eval.yaml",
        patterns=["prompts/**"],
    ),
    Trigger(
        "file-dropped-leading-slash",
        {
            "eval.yaml": E(
                CASE + "        content:\n          - type: file\n            value: /data/notes.txt\n"
                "      - role: assistant\n        content: ok\n"
            ),
            "data/notes.txt": "N",
        },
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "In this multi-turn case AgentV drops /data/notes.txt from the question and chatPrompt",
    ),
    Trigger(
        "guideline-dot-directory",
        {"eval.yaml": content("content:\n  - type: file\n    value: .cursor/x.md\n"), ".cursor/x.md": "X"},
        "warning",
        (8, 19),
        "evalcases[0].input_messages[0].content[0].value",
        "'.cursor/x.md' is not a guideline although it looks like one for pattern '**/*.md'",
        patterns=["**/*.md"],
    ),
    Trigger(
        "code-fence-duplicated",
        {"eval.yaml": content("content: 'see ```x```'\n")},
        "information",
        (6, 17),
        "evalcases[0].input_messages[0].content",
        "AgentV appends every fenced code block of this case again at the end of the question (1 block(s))",
    ),
    Trigger(
        "targets-file-missing",
        {"eval.yaml": "$schema: agentv-eval-v2\nexecution:\n  target: t\nevalcases: []\n"},
        "information",
        (2, 10),
        "execution.target",
        "No targets.yaml was found for target 't'",
    ),
    Trigger(
        "target-unknown",
        {
            "eval.yaml": "$schema: agentv-eval-v2\nexecution:\n  target: b\nevalcases: []\n",
            ".agentv/targets.yaml": TARGETS_HEAD + "  - name: a\n    provider: mock\n",
        },
        "warning",
        (2, 10),
        "execution.target",
        "Target 'b' is not defined in .agentv/targets.yaml (available: a)",
    ),
    # -- config files ------------------------------------------------------------------------------------
    Trigger(
        "config-not-object",
        {".agentv/config.yaml": "just text\n"},
        "error",
        (0, 0),
        "",
        "Config file must contain a valid YAML object",
        file=".agentv/config.yaml",
        kind="config",
    ),
    Trigger(
        "config-schema",
        {".agentv/config.yaml": "$schema: agentv-config-v1\n"},
        "error",
        (0, 9),
        "$schema",
        "Invalid $schema value 'agentv-config-v1'. Expected 'agentv-config-v2'",
        file=".agentv/config.yaml",
        kind="config",
    ),
    Trigger(
        "config-patterns-not-array",
        {".agentv/config.yaml": CONFIG_HEAD + "guideline_patterns: x\n"},
        "error",
        (1, 20),
        "guideline_patterns",
        "Field 'guideline_patterns' must be an array",
        file=".agentv/config.yaml",
    ),
    Trigger(
        "config-patterns-not-strings",
        {".agentv/config.yaml": CONFIG_HEAD + "guideline_patterns: [1]\n"},
        "error",
        (1, 20),
        "guideline_patterns",
        "All entries in 'guideline_patterns' must be strings",
        file=".agentv/config.yaml",
    ),
    Trigger(
        "config-patterns-empty",
        {".agentv/config.yaml": CONFIG_HEAD + "guideline_patterns: []\n"},
        "warning",
        (1, 20),
        "guideline_patterns",
        "Field 'guideline_patterns' is empty. Consider removing it or adding patterns.",
        file=".agentv/config.yaml",
    ),
    Trigger(
        "config-unexpected-fields",
        {".agentv/config.yaml": CONFIG_HEAD + "guideline_patterns: ['*.md']\nfoo: 1\n"},
        "warning",
        (2, 0),
        "foo",
        "Unexpected field 'foo' (`agentv validate`: Unexpected fields: foo). AgentV ignores it.",
        file=".agentv/config.yaml",
    ),
    # -- targets files -------------------------------------------------------------------------------
    Trigger(
        "targets-not-object",
        {"targets.yaml": "- a\n"},
        "error",
        (0, 0),
        "",
        "File must contain a YAML object",
        file="targets.yaml",
        kind="targets",
    ),
    Trigger(
        "targets-schema",
        {"targets.yaml": "targets: []\n"},
        "error",
        (0, 0),
        "$schema",
        "Missing required field '$schema'. Expected 'agentv-targets-v2.2'",
        file="targets.yaml",
        kind="targets",
    ),
    Trigger(
        "targets-not-array",
        {"targets.yaml": "$schema: agentv-targets-v2.2\ntargets: x\n"},
        "error",
        (1, 9),
        "targets",
        "Missing or invalid 'targets' field (must be an array)",
        file="targets.yaml",
    ),
    Trigger(
        "target-not-object",
        {"targets.yaml": TARGETS_HEAD + "  - x\n"},
        "error",
        (2, 4),
        "targets[0]",
        "Target must be an object",
        file="targets.yaml",
    ),
    Trigger(
        "target-name",
        {"targets.yaml": TARGETS_HEAD + "  - provider: mock\n"},
        "error",
        (2, 4),
        "targets[0].name",
        "Missing or invalid 'name' field (must be a non-empty string)",
        file="targets.yaml",
    ),
    Trigger(
        "target-provider",
        {"targets.yaml": TARGETS_HEAD + "  - name: a\n"},
        "error",
        (2, 4),
        "targets[0].provider",
        "Missing or invalid 'provider' field (must be a non-empty string)",
        file="targets.yaml",
    ),
    Trigger(
        "target-provider-unknown",
        {"targets.yaml": TARGETS_HEAD + "  - name: a\n    provider: openia\n"},
        "warning",
        (3, 14),
        "targets[0].provider",
        "Unknown provider 'openia'. Known providers: azure, anthropic, gemini, codex, cli, mock, vscode, "
        "vscode-insiders, azure-openai, google, google-gemini, codex-cli, openai, bedrock, vertex",
        file="targets.yaml",
    ),
    Trigger(
        "target-setting-unknown",
        {"targets.yaml": TARGETS_HEAD + "  - name: a\n    provider: mock\n    foo: 1\n"},
        "warning",
        (4, 4),
        "targets[0].foo",
        "Unknown setting 'foo' for mock provider. This property will be ignored.",
        file="targets.yaml",
    ),
    Trigger(
        "target-judge-target",
        {"targets.yaml": TARGETS_HEAD + "  - name: a\n    provider: mock\n    judge_target: 3\n"},
        "error",
        (4, 18),
        "targets[0].judge_target",
        "Invalid 'judge_target' field (must be a string)",
        file="targets.yaml",
    ),
    Trigger(
        "target-cli-command",
        {"targets.yaml": TARGETS_HEAD + "  - name: a\n    provider: cli\n"},
        "error",
        (2, 4),
        "targets[0].commandTemplate",
        "CLI provider requires 'commandTemplate' as a non-empty string",
        file="targets.yaml",
    ),
    Trigger(
        "target-cli-placeholder",
        {
            "targets.yaml": TARGETS_HEAD
            + "  - name: a\n    provider: cli\n    commandTemplate: 'run {PROMPT} {BAD}'\n"
        },
        "error",
        (4, 21),
        "targets[0].commandTemplate",
        "Unknown CLI placeholder '{BAD}'. Supported placeholders: PROMPT, GUIDELINES, EVAL_ID, ATTEMPT, FILES, "
        "OUTPUT_FILE",
        file="targets.yaml",
    ),
    Trigger(
        "target-cli-setting",
        {
            "targets.yaml": TARGETS_HEAD
            + "  - name: a\n    provider: cli\n    commandTemplate: run\n    cwd: 3\n"
        },
        "error",
        (5, 9),
        "targets[0].cwd",
        "'cwd' must be a string when provided",
        file="targets.yaml",
    ),
    Trigger(
        "target-cli-healthcheck",
        {
            "targets.yaml": TARGETS_HEAD
            + "  - name: a\n    provider: cli\n    commandTemplate: run\n    healthcheck: x\n"
        },
        "error",
        (5, 17),
        "targets[0].healthcheck",
        "'healthcheck' must be an object when provided",
        file="targets.yaml",
    ),
    Trigger(
        "target-provider-unsupported",
        {"targets.yaml": TARGETS_HEAD + "  - name: a\n    provider: openai\n"},
        "warning",
        (3, 14),
        "targets[0].provider",
        "`agentv validate` accepts provider 'openai', but the runtime throws \"Unsupported provider 'openai'\"",
        file="targets.yaml",
    ),
]


@pytest.mark.parametrize("trigger", TRIGGERS, ids=[t.code for t in TRIGGERS])
def test_code_fires(make_repo, trigger):
    repo = make_repo(trigger.files, git=trigger.git, patterns=trigger.patterns)
    diagnostics = repo.check(trigger.file, kind=trigger.kind)
    matching = [d for d in diagnostics if d.code == trigger.code]
    assert matching, f"{trigger.code} not emitted; got {[(d.code, d.message) for d in diagnostics]}"
    d = matching[0]
    assert d.severity == trigger.severity
    assert (d.span.start_line, d.span.start_col) == trigger.start
    assert d.path == trigger.path
    assert trigger.message in repo.scrub(d.message)
    assert d.file == str(repo.root / trigger.file)


def test_file_unreadable_when_named_on_the_command_line(make_repo):
    from agentv_lsp.checks.runner import run_check
    from agentv_lsp.formats.v2.check import CheckOptions

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    repo = make_repo()
    os.mkfifo(repo.root / "pipe.yaml")
    run = run_check(
        [str(repo.root / "pipe.yaml")], CheckOptions(repo_root=str(repo.root), cwd=str(repo.root))
    )
    (d,) = run.diagnostics
    assert (d.code, d.severity, d.span.start_line, d.span.start_col) == ("file-unreadable", "error", 0, 0)
    assert d.message.startswith(f"Cannot read {repo.root / 'pipe.yaml'}: not a regular file")


def test_file_truncated_when_a_referenced_file_exceeds_the_read_cap(make_repo):
    from agentv_lsp.engine.files import FileSystem

    repo = make_repo(
        {"eval.yaml": content("content:\n  - type: file\n    value: big.txt\n"), "big.txt": "x" * 100}
    )
    (d,) = [d for d in repo.check(fs=FileSystem(max_bytes=16)) if d.code == "file-truncated"]
    assert (d.severity, d.span.start_line, d.span.start_col) == ("warning", 8, 19)
    assert d.path == "evalcases[0].input_messages[0].content[0].value"
    assert repo.scrub(d.message).startswith(
        "agentv-lsp read only the first 16 bytes of <ROOT>/big.txt (100 bytes)"
    )


def test_validate_id_blank_string_says_only_validate_fails(make_repo):
    repo = make_repo({"eval.yaml": E("  - id: '  '\n    outcome: o\n    input_messages: []\n")})
    (d,) = [d for d in repo.check() if d.code == "validate-id"]
    assert d.message == (
        "Missing or invalid 'id' field (must be a non-empty string) — the AgentV runtime accepts it (it does not "
        "trim), so only `agentv validate` fails on this."
    )


def test_validate_role_missing_prints_undefined(make_repo):
    repo = make_repo(
        {"eval.yaml": content("content: x\n").replace("      - role: user\n", "      - name: x\n")}
    )
    (d,) = [d for d in repo.check() if d.code == "validate-role"]
    assert d.message.startswith("Invalid role 'undefined'. Must be one of: system, user, assistant")
    assert d.path == "evalcases[0].input_messages[0].role"


def test_role_markers_warn_once_per_marker_in_fixed_order(make_repo):
    repo = make_repo({"eval.yaml": content("content: '@[tool]: x @[SYSTEM]: y'\n")})
    markers = [d.message.split("'")[1] for d in repo.check() if d.code == "validate-role-marker"]
    assert markers == ["@[System]:", "@[Tool]:"]


def test_config_unexpected_fields_one_diagnostic_per_key(make_repo):
    repo = make_repo({".agentv/config.yaml": CONFIG_HEAD + "foo: 1\nbar: 2\n"})
    found = [(d.path, d.span.start_line, d.span.end_col) for d in repo.check(".agentv/config.yaml")]
    assert ("foo", 1, 3) in found
    assert ("bar", 2, 3) in found
    assert all(
        d.unnecessary for d in repo.check(".agentv/config.yaml") if d.code == "config-unexpected-fields"
    )


def test_config_skipped_names_the_config_actually_used(make_repo):
    repo = make_repo({"evals/eval.yaml": E("  []\n")}, patterns=["*.md"])
    repo.config(text="- not a mapping\n", at="evals")
    (d,) = [d for d in repo.check("evals/eval.yaml") if d.code == "config-skipped"]
    assert repo.scrub(d.message) == (
        "AgentV skips <ROOT>/evals/.agentv/config.yaml: Invalid .agentv/config.yaml format at "
        "<ROOT>/evals/.agentv/config.yaml The next config up is used instead: <ROOT>/.agentv/config.yaml."
    )


# -- the severity rule ---------------------------------------------------------------------------------------


def test_role_marker_warning_is_an_error_because_validate_fails_on_it(make_repo):
    repo = make_repo({"eval.yaml": content("content: 'Ask @[Assistant]: now'\n")})
    assert {d.severity for d in repo.check() if d.code == "validate-role-marker"} == {"error"}


def test_runtime_only_findings_are_never_errors(make_repo):
    """A file that loads and passes `agentv validate` gets no error, whatever the runtime warns."""
    repo = make_repo(
        {
            "eval.yaml": "$schema: agentv-eval-v2\nevaluator: fancy\nevalcases:\n"
            "  - id: d\n    outcome: o\n    input_messages:\n      - role: user\n        content: ['plain']\n"
            "    evaluators: [x, {name: s, type: code}]\n    expected_messages:\n"
            "      - {role: assistant, content: a}\n      - {role: assistant, content: b}\n"
            "  - id: d\n    outcome: o\n    evaluator: code\n    execution: {target: t}\n    input_messages: []\n"
        }
    )
    diagnostics = repo.check()
    assert {d.code for d in diagnostics} >= {
        "evaluator-kind-unknown",
        "message-dropped-plain-item",
        "evaluator-not-object",
        "evaluator-no-script",
        "expected-multiple",
        "duplicate-case-id",
        "evaluator-code-runs-llm-judge",
        "case-target-ignored",
    }
    assert [d for d in diagnostics if d.severity == "error"] == []


# -- nothing fires on clean files ------------------------------------------------------------------------------

CLEAN = {
    "evals/review.eval.yaml": "$schema: agentv-eval-v2\n"
    "description: clean\n"
    "execution:\n  target: default\n"
    "evalcases:\n"
    "  - id: review\n"
    "    outcome: Finds the bug.\n"
    "    input_messages:\n"
    "      - role: system\n        content: You review code.\n"
    "      - role: user\n        content:\n"
    "          - type: text\n            value: Review this\n"
    "          - type: file\n            value: snippets/code.py\n"
    "    expected_messages:\n"
    "      - role: assistant\n        content: Line 1 divides by zero.\n",
    "evals/snippets/code.py": "print(1 / 0)\n",
    ".agentv/config.yaml": "$schema: agentv-config-v2\nguideline_patterns:\n  - '**/*.instructions.md'\n",
    ".agentv/targets.yaml": TARGETS_HEAD + "  - name: default\n    provider: mock\n"
    "  - name: tool\n    provider: cli\n    commandTemplate: 'run {PROMPT} {FILES}'\n    timeoutSeconds: 30\n",
}


@pytest.fixture(scope="module")
def clean_diagnostics(tmp_path_factory, build_repo):
    repo = build_repo(tmp_path_factory.mktemp("clean"), CLEAN)
    return {
        rel: repo.check(rel)
        for rel in ("evals/review.eval.yaml", ".agentv/config.yaml", ".agentv/targets.yaml")
    }


def test_clean_eval_config_and_targets_have_no_diagnostics(clean_diagnostics):
    assert {rel: [(d.code, d.message) for d in ds] for rel, ds in clean_diagnostics.items()} == {
        "evals/review.eval.yaml": [],
        ".agentv/config.yaml": [],
        ".agentv/targets.yaml": [],
    }


@pytest.mark.parametrize("code", sorted({t.code for t in TRIGGERS}))
def test_code_does_not_fire_on_clean_files(clean_diagnostics, code):
    assert all(d.code != code for ds in clean_diagnostics.values() for d in ds)


# -- the table is complete ------------------------------------------------------------------------------------

NEVER_EMITTED = {
    "validate-not-object",
    "validate-schema",
    "validate-evalcases",
    "case-not-object",
    "case-incomplete",
    "load-error",
    "config-invalid",
    "config-unreadable",
    "config-patterns-invalid",
    "guideline-unreadable",
    "judge-prompt-unreadable",
}
NOT_CODES = {  # hyphenated literals in the sources that are not diagnostic codes
    "agentv-eval-v2",
    "agentv-config-v2",
    "agentv-targets-v2",
    "agentv-lsp",
    "azure-openai",
    "codex-cli",
    "google-gemini",
    "vscode-insiders",
    "utf-8",
    "utf-16-le",
    "add-schema",
    "set-schema",
    "wrap-text",
    "strip-leading-slash",
    "duplicate-key",
    "multiple-documents",
    "alias-limit",
    "too-deep",
    "yaml-compose",
    "a-z",  # a POSIX character class range in engine/globs.py
    "remove-hidden",  # checks/hidden_chars.py: the kind of its quick fix
    "agentv-tokens",  # engine/tokens.py: its worker thread's name
    "message-list",  # engine/schemas.py: a kind of value it may append to
    "x-codes",  # engine/schemas.py: our schemas' keywords naming a finding's code and wording
    "x-expected",
}


def _literals() -> set[str]:
    found: set[str] = set()
    for folder in ("checks", "engine", "formats/v2", "yamlpos"):
        for path in (SERVER / folder).glob("*.py"):
            found.update(re.findall(r"[\"']([a-z]+(?:-[a-z0-9]+)+)[\"']", path.read_text(encoding="utf-8")))
    return found


# triggered by their own tests above (a FIFO named on the command line; a small read cap)
# tested in tests/reliability/test_hostile_growth.py and tests/lsp/test_hostile.py
# runtime-manifest-unusable: tests/unit/test_runtime_manifests.py (FIFOs, devices, 5,000 digits)
# runtime-v2-undeclared: tests/unit/test_cli_runtime.py (declared, asked for and chosen by the file)
TESTED_ALONE = {
    "file-unreadable",
    "file-truncated",
    "too-many-diagnostics",
    "check-incomplete",
    "runtime-manifest-unusable",
    "runtime-v2-undeclared",
}


def test_every_code_in_the_sources_is_in_the_table():
    covered = {t.code for t in TRIGGERS} | NEVER_EMITTED | NOT_CODES | TESTED_ALONE
    unknown = sorted(c for c in _literals() if c not in covered and not c.startswith("schema-"))
    assert unknown == [], f"add a trigger (or a NEVER_EMITTED entry) for: {unknown}"
    documented = set(re.findall(r"^\| ([a-z][a-z0-9-]+)", __doc__ or "", re.M))
    assert {t.code for t in TRIGGERS} <= documented | {"schema-value", "schema-missing"}
