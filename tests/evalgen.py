"""Generated eval suites and random edits of them, for tests that compare two ways of
checking the same text (case by case in the language server, in parts in the CLI) with
the plain whole-text check."""

from __future__ import annotations

import random

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.formats.v2.layout import cut

HEAD = """\
# A generated suite
$schema: agentv-eval-v2
description: Property test suite
execution:
  target: default
  evaluators:
    - name: judge
      type: llm_judge
      prompt: judges/rubric.md
evalcases:
"""

SHAPES = [
    """\
  - id: single-{n}
    outcome: Answers {n}.
    input_messages:
      - role: user
        content: What is {n}?
""",
    """\
  - id: system-{n}
    outcome: Reviews {n}.
    input_messages:
      - role: system
        content: You are careful.
      - role: user
        content:
          - type: text
            value: Review case {n} ```print({n})```
          - type: file
            value: code.py
          - type: file
            value: rules.instructions.md
    expected_messages:
      - role: assistant
        content: |
          Looks fine {n}.
""",
    """\
  - id: multi-{n}
    outcome: Multi {n}.
    input_messages:
      - role: system
        content: Be brief.
      - role: user
        content: First {n}
      - role: assistant
        content: Answer {n}
      - role: user
        content: "Second ünïcode 😀 {n}"
    evaluators:
      - name: exact
        type: code
        script: python check.py
        cwd: judges
""",
]


def generate(count: int, seed: int) -> str:
    rng = random.Random(seed)
    return HEAD + "".join(rng.choice(SHAPES).format(n=i) for i in range(count))


def mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    layout = cut(text)
    starts = layout.lines if layout else [i for i, line in enumerate(lines) if line.startswith("  - id:")]
    starts = starts or [len(lines) - 1]
    at = rng.randrange(len(lines))
    case_line = rng.choice(starts)
    op = rng.randrange(18)
    if op == 0:  # misspell a role
        roles = [i for i, line in enumerate(lines) if "role: " in line]
        if roles:
            i = rng.choice(roles)
            lines[i] = lines[i].replace("role: user", "role: usr").replace("role: system", "role: System")
    elif op == 1:  # duplicate an id
        ids = [i for i, line in enumerate(lines) if line.startswith("  - id: ")]
        if len(ids) > 1:
            a, b = rng.sample(ids, 2)
            lines[b] = lines[a]
    elif op == 2:  # drop an outcome
        outcomes = [i for i, line in enumerate(lines) if line.startswith("    outcome:")]
        if outcomes:
            del lines[rng.choice(outcomes)]
    elif op == 3:  # blank lines and comments
        lines.insert(at, rng.choice(["", "    # note", "# top comment", "  "]))
    elif op == 4:  # a YAML error
        lines.insert(at, rng.choice(["  - [", "    key: [a,", '    bad: "x', "\tindented: tab"]))
    elif op == 5:  # anchors and aliases
        lines.insert(case_line + 1, "    note: &n" + str(at) + " shared")
        lines.insert(case_line + 2, "    conversation_id: *n" + str(at))
    elif op == 6:  # a top-level key after the cases
        lines.append("dataset: tail-dataset")
        lines.append("")
    elif op == 7:  # the head changes
        lines = [line.replace("target: default", "target: other") for line in lines]
    elif op == 8:  # a new case
        lines[case_line:case_line] = SHAPES[rng.randrange(3)].format(n=f"new{at}").rstrip("\n").split("\n")
    elif op == 9:  # delete a case
        following = [s for s in starts if s > case_line]
        end = following[0] if following else len(lines) - 1
        del lines[case_line:end]
    elif op == 10:  # a missing file
        lines = [line.replace("value: code.py", "value: nope.py", 1) for line in lines]
    elif op == 11:  # a plain string in a content list
        segments = [i for i, line in enumerate(lines) if line.strip() == "- type: text"]
        if segments:
            i = rng.choice(segments)
            lines[i : i + 2] = ["          - just text"]
    elif op == 12:  # an id that is not a string
        ids = [i for i, line in enumerate(lines) if line.startswith("  - id: ")]
        if ids:
            lines[rng.choice(ids)] = "  - id: 12345"
    elif op == 13:  # an unknown key inside a case
        lines.insert(case_line + 1, "    colour: blue")
    elif op == 14:  # the suite evaluator's prompt goes missing
        lines = [line.replace("prompt: judges/rubric.md", "prompt: judges/missing.md") for line in lines]
    elif op == 15:  # a leading slash
        lines = [line.replace("value: code.py", "value: /code.py", 1) for line in lines]
    elif op == 16:  # truncate
        lines = lines[: max(12, at)]
    else:  # re-indent one line
        lines[at] = " " + lines[at]
    return "\n".join(lines)


def key(d: Diagnostic) -> tuple[object, ...]:
    return (
        d.span,
        d.severity,
        d.code,
        d.message,
        d.yaml_path,
        repr(sorted(d.data.items())),
        d.related,
        d.unnecessary,
    )
