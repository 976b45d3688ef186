#!/usr/bin/env python3
"""Deterministic AgentV 4.x benchmark workload, the same mix as ../shared/bench/make_workload.py (v2).

Usage:
    python benchmarks/make_workload_v4.py OUTDIR --cases N [--seed S] [--files K] [--no-tool] [--force]

Writes a small repository:

    OUTDIR/.git/                          empty directory (marks the git root)
    OUTDIR/evals/snippets/*.md|*.py       30 attachment files (1-5 KB each)
    OUTDIR/evals/judges/rubric.md         prompt file of the suite-level llm-grader
    OUTDIR/evals/big.eval.yaml            N tests (default, --files 1)
    OUTDIR/evals/part-001.eval.yaml ...   the same N tests split over K files (--files K, K > 1)

Test mix (exact per block of 20 tests, order shuffled inside each block), as for v2:
    40% a single user text (`input: "..."`)
    20% system text + user (`input:` messages)
    25% multi-turn system/user/assistant/user; one in four also has a `tool` turn
    15% file segments (`type: file`, value starting with `/`), some inside assistant turns
About 45% of the tests carry `expected_output` (text, or messages); every test has `criteria`.
The suite has a suite-level `input` (a system message prepended to every test) and an
`llm-grader` assertion with a prompt file. Texts mix plain scalars, double-quoted scalars,
block scalars (`|`, `|-`), fenced code blocks and some non-ASCII text.

`agentv validate` rejects the `tool` role (the runtime accepts it); `--no-tool` drops the tool
turns and nothing else. Output depends only on the arguments. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from pathlib import Path

LANGS = {"Python": "python", "TypeScript": "typescript", "Go": "go", "Rust": "rust", "SQL": "sql"}
COMPONENTS = [
    "the retry loop",
    "the cache layer",
    "the payment webhook",
    "the CSV importer",
    "the session middleware",
    "the rate limiter",
    "the billing job",
    "the auth callback",
]
PROBLEMS = [
    "swallows exceptions",
    "leaks file handles",
    "retries forever",
    "ignores the timeout",
    "mutates its input",
    "double counts refunds",
    "drops the last item",
    "logs secrets",
]
TASKS = [
    "deduplicates a list while keeping order",
    "parses ISO 8601 durations",
    "retries a call with exponential backoff",
    "merges two sorted iterators",
    "formats a byte count for humans",
    "truncates text on a word boundary",
]
UNICODE_BITS = ["naïve", "café", "Grüße", "日本語のテキスト", "Ελληνικά", "✓ done", "→ next step", "🚀"]
ROLES = ["code reviewer", "backend engineer", "technical writer", "support agent", "security auditor"]
OUTCOMES = [
    "identifies the root cause",
    "explains the off by one error",
    "proposes a minimal patch",
    "lists the edge cases",
    "flags the unsafe default",
    "describes the migration steps",
]
FILLER = [
    "Keep the answer short",
    "Mention any assumptions",
    "Prefer the standard library",
    "Point to the exact line",
    "Include a quick test",
    "Use plain language",
]
SNIPPETS = [
    "retry_policy",
    "invoice_parser",
    "rate_limiter",
    "csv_import",
    "session_store",
    "cursor_codec",
    "audit_log",
    "queue_worker",
    "money",
    "feature_flags",
    "report_builder",
    "path_utils",
    "email_normalizer",
    "chunking",
    "backoff",
]
NOTES = [
    "incident-notes",
    "design-review",
    "migration-plan",
    "api-changelog",
    "oncall-handover",
    "postmortem",
    "style-exceptions",
    "release-checklist",
    "answer-retry",
    "answer-cache",
    "answer-parser",
    "answer-limits",
    "meeting-notes",
    "requirements",
    "faq",
]

_SAFE_PLAIN = re.compile(r"^[A-Za-z0-9./_\u00c0-\uffff][^\n\t]*$")
_YAML_SPECIAL = re.compile(r"^(?:y|n|yes|no|true|false|on|off|null|~|[-+]?[0-9][0-9_.:eExXoObB+-]*)$", re.I)


def inline(s: str) -> str:
    plain = (
        s == s.strip()
        and _SAFE_PLAIN.match(s)
        and ": " not in s
        and " #" not in s
        and not s.endswith(":")
        and not _YAML_SPECIAL.match(s)
    )
    return s if plain else json.dumps(s, ensure_ascii=False)


def scalar(indent: int, key: str, value: str, rng: random.Random) -> list[str]:
    pad = " " * indent
    if "\n" in value or rng.random() < 0.3:
        indicator = "|" if value.endswith("\n") else "|-"
        body = [(pad + "  " + line) if line else "" for line in value.rstrip("\n").split("\n")]
        return [f"{pad}{key}: {indicator}", *body]
    return [f"{pad}{key}: {inline(value)}"]


def sentence(rng: random.Random) -> str:
    text = f"{rng.choice(COMPONENTS).capitalize()} {rng.choice(PROBLEMS)}. {rng.choice(FILLER)}."
    if rng.random() < 0.2:
        text += f" ({rng.choice(UNICODE_BITS)})"
    return text


def code_block(rng: random.Random) -> str:
    lang = rng.choice(list(LANGS))
    return f"```{LANGS[lang]}\n# {lang} that {rng.choice(TASKS)}\nvalue = compute(items)\n```"


def user_text(rng: random.Random) -> str:
    text = f"As a {rng.choice(ROLES)}, review this: {sentence(rng)}"
    return text + "\n\n" + code_block(rng) + "\n" if rng.random() < 0.35 else text


def message(indent: int, role: str, content: str, rng: random.Random) -> list[str]:
    pad = " " * indent
    return [f"{pad}- role: {role}", *scalar(indent + 2, "content", content, rng)]


def file_message(indent: int, role: str, rng: random.Random) -> list[str]:
    pad = " " * indent
    lines = [f"{pad}- role: {role}", f"{pad}  content:"]
    for _ in range(rng.randint(1, 2)):
        stem = rng.choice(SNIPPETS)
        lines += [f"{pad}    - type: file", f"{pad}      value: /evals/snippets/{stem}.py"]
    lines += [f"{pad}    - type: text", f"{pad}      value: {inline(sentence(rng))}"]
    return lines


def test_lines(index: int, kind: str, rng: random.Random, no_tool: bool) -> list[str]:
    lines = [f"  - id: case-{index:05d}", *scalar(4, "criteria", f"The answer {rng.choice(OUTCOMES)}.", rng)]
    if kind == "single":
        lines += scalar(4, "input", user_text(rng), rng)
    else:
        lines.append("    input:")
        if kind == "system":
            lines += message(6, "system", f"You are a {rng.choice(ROLES)}.", rng)
            lines += message(6, "user", user_text(rng), rng)
        elif kind == "multi":
            lines += message(6, "system", f"You are a {rng.choice(ROLES)}.", rng)
            lines += message(6, "user", user_text(rng), rng)
            lines += message(6, "assistant", sentence(rng), rng)
            if not no_tool and index % 4 == 0:
                lines += message(6, "tool", json.dumps({"status": "ok", "rows": index % 7}), rng)
            lines += message(6, "user", f"Follow up: {sentence(rng)}", rng)
        else:  # files
            lines += file_message(6, "user", rng)
            if rng.random() < 0.4:
                lines += file_message(6, "assistant", rng)
                lines += message(6, "user", "And now?", rng)
    if rng.random() < 0.45:
        if rng.random() < 0.5:
            lines += scalar(4, "expected_output", f"It {rng.choice(OUTCOMES)}.", rng)
        else:
            lines.append("    expected_output:")
            lines += message(6, "assistant", f"It {rng.choice(OUTCOMES)}.", rng)
    return lines


def suite_head(name: str) -> list[str]:
    return [
        f"description: Benchmark suite {name}",
        "input:",
        "  - role: system",
        "    content: Answer as a careful reviewer.",
        "assertions:",
        "  - name: rubric",
        "    type: llm-grader",
        "    prompt: ./judges/rubric.md",
        "tests:",
    ]


def write_support_files(root: Path, rng: random.Random) -> None:
    snippets = root / "evals" / "snippets"
    snippets.mkdir(parents=True, exist_ok=True)
    for stem in SNIPPETS:
        body = "\n".join(
            f"def {stem}_{i}(items):\n    return sorted(items)[:{i}]\n" for i in range(rng.randint(8, 40))
        )
        (snippets / f"{stem}.py").write_text(body)
    for stem in NOTES:
        (snippets / f"{stem}.md").write_text(
            "\n\n".join(sentence(rng) for _ in range(rng.randint(10, 50))) + "\n"
        )
    judges = root / "evals" / "judges"
    judges.mkdir(parents=True, exist_ok=True)
    (judges / "rubric.md").write_text(
        "Grade the answer.\n\nCriteria: {{criteria}}\nQuestion: {{question}}\nAnswer: {{answer}}\n"
    )


KINDS = ["single"] * 8 + ["system"] * 4 + ["multi"] * 5 + ["files"] * 3  # per block of 20


def generate(root: Path, cases: int, files: int, seed: int, no_tool: bool) -> None:
    rng = random.Random(seed)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    write_support_files(root, rng)
    tests: list[list[str]] = []
    for block_start in range(0, cases, 20):
        kinds = KINDS[:]
        rng.shuffle(kinds)
        for offset, kind in enumerate(kinds[: cases - block_start]):
            tests.append(test_lines(block_start + offset, kind, rng, no_tool))
    evals = root / "evals"
    if files <= 1:
        (evals / "big.eval.yaml").write_text(
            "\n".join(suite_head("big") + [line for t in tests for line in t]) + "\n"
        )
        return
    per_file = -(-len(tests) // files)
    for n in range(files):
        part = tests[n * per_file : (n + 1) * per_file]
        name = f"part-{n + 1:03d}"
        (evals / f"{name}.eval.yaml").write_text(
            "\n".join(suite_head(name) + [line for t in part for line in t]) + "\n"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--cases", type=int, required=True)
    parser.add_argument("--files", type=int, default=1)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--no-tool", action="store_true")
    parser.add_argument("--force", action="store_true", help="replace OUTDIR if it exists")
    args = parser.parse_args()
    if args.outdir.exists():
        if not args.force:
            print(f"{args.outdir} exists (use --force)", file=sys.stderr)
            return 2
        shutil.rmtree(args.outdir)
    generate(args.outdir, args.cases, args.files, args.seed, args.no_tool)
    return 0


if __name__ == "__main__":
    sys.exit(main())
