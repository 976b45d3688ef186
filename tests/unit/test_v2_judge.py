"""Evaluator parsing and the LLM judge prompt (evaluators.ts, evaluator-parser.ts and the
orchestrator at AgentV 903e156c2).

The template and system prompt below are the verbatim texts quoted in
`shared/golden/README.md` §2; the variable rules are `agentv-v2.md` §6.
"""

from __future__ import annotations

import json

DEFAULT_TEMPLATE = (
    "You are an expert evaluator. Your goal is to grade the candidate_answer based on how well it achieves "
    "the expected_outcome for the original task.\n\n"
    "Use the reference_answer as a gold standard for a high-quality response (if provided). The "
    "candidate_answer does not need to match it verbatim, but should capture the key points and follow the "
    "same spirit.\n\n"
    "Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose "
    "explanations.\n\n"
    "[[ ## expected_outcome ## ]]\n{expected_outcome}\n\n"
    "[[ ## question ## ]]\n{question}\n\n"
    "[[ ## reference_answer ## ]]\n{reference_answer}\n\n"
    "[[ ## candidate_answer ## ]]\nCANDIDATE_ANSWER"
)

SYSTEM_PROMPT = "\n".join(
    [
        "You must respond with a single JSON object matching this schema:",
        "",
        "{",
        '  "score": <number between 0.0 and 1.0>,',
        '  "hits": [<array of strings, max 4 items, brief specific achievements>],',
        '  "misses": [<array of strings, max 4 items, brief specific failures or omissions, empty if none>],',
        '  "reasoning": "<string, concise explanation for the score, 1-2 sentences max>"',
        "}",
    ]
)


def default_prompt(expected_outcome: str, question: str, reference_answer: str) -> str:
    return DEFAULT_TEMPLATE.format(
        expected_outcome=expected_outcome, question=question, reference_answer=reference_answer
    )


def inline_judge(prompt: str) -> str:
    """A case-level evaluators list with one llm_judge whose `prompt` is `prompt` (JSON-quoted)."""
    return f"evaluators:\n  - name: j\n    type: llm_judge\n    prompt: {json.dumps(prompt)}\n"


def test_judge_prompt_exact_text(repo):
    repo.write(
        "eval.yaml",
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: ' Says 42. '\n    input_messages:\n"
        "      - role: user\n        content: What is 6*7?\n    expected_messages:\n"
        "      - role: assistant\n        content: ' 42 '\n",
    )
    judge = repo.case()["judge_prompt"]
    assert judge["question"] == default_prompt("Says 42.", "What is 6*7?", "42")
    assert judge["systemPrompt"] == SYSTEM_PROMPT


def test_outcome_only_case_keeps_an_empty_reference_section(repo):
    c = repo.case_with("- role: user\n  content: Hi\n")
    assert c["judge_prompt"]["question"] == default_prompt("o", "Hi", "")
    assert "[[ ## reference_answer ## ]]\n\n\n[[ ## candidate_answer ## ]]" in c["judge_prompt"]["question"]


def test_judge_question_is_the_lm_question_trimmed(repo):
    repo.write("f.txt", "F\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: f.txt
            - type: text
              value: |
                Why?
        - role: assistant
          content: "Because  \\n"
        """
    )
    assert (
        c["lm"]["question"]
        == '@[User]:\n<file path="f.txt">\nF\n</file>\nWhy?\n\n\n@[Assistant]:\nBecause  \n'
    )
    expected_question = '@[User]:\n<file path="f.txt">\nF\n</file>\nWhy?\n\n\n@[Assistant]:\nBecause'
    assert c["judge_prompt"]["question"] == default_prompt("o", expected_question, "")


def test_judge_never_sees_guidelines(make_repo):
    repo = make_repo({"g.instructions.md": "SECRET RULE"}, patterns=["*.instructions.md"])
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: g.instructions.md
            - type: text
              value: Q
        """
    )
    assert "SECRET RULE" in c["lm"]["guidelines"]
    assert c["judge_prompt"]["question"] == default_prompt("o", "Q", "")


def test_judge_falls_back_to_legacy_question_when_formatted_question_is_blank(repo):
    c = repo.case_with(
        """
        - role: user
          content:
            - type: image
              value: " chart.png "
            - type: image
              value: diagram.svg
        """
    )
    assert c["lm"]["question"] == ""
    assert c["judge_prompt"]["question"] == default_prompt("o", "chart.png diagram.svg", "")


def test_judge_placeholder_with_spaces_stays_literal(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        extra=inline_judge(
            "A={{ question }} B={{question}} C={{Question}} D={{unknown}} E={{expected_outcome}}"
        ),
    )
    assert c["judge_prompt"]["question"] == "A={{ question }} B=Q C={{Question}} D={{unknown}} E=o"
    assert c["judge_prompt"]["systemPrompt"] == SYSTEM_PROMPT


def test_judge_constructor_variable_prints_object_function(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        extra=inline_judge("{{constructor}}|{{toString}}|{{hasOwnProperty}}|{{__proto__}}"),
    )
    assert c["judge_prompt"]["question"] == (
        "function Object() { [native code] }|function toString() { [native code] }|"
        "function hasOwnProperty() { [native code] }|[object Object]"
    )


def test_input_and_output_messages_variables_are_pretty_json_with_absolute_paths(repo):
    repo.write("a.txt", "A\r\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Q
            - type: file
              value: a.txt
        """,
        expected="- role: assistant\n  content: R\n",
        extra=inline_judge("{{input_messages}}\n--\n{{output_messages}}"),
    )
    expected_input = (
        "[\n"
        "  {\n"
        '    "type": "text",\n'
        '    "value": "Q"\n'
        "  },\n"
        "  {\n"
        '    "type": "file",\n'
        '    "path": "a.txt",\n'
        '    "text": "A\\n",\n'
        f'    "resolvedPath": "{repo.root}/a.txt"\n'
        "  }\n"
        "]"
    )
    expected_output = '[\n  {\n    "type": "text",\n    "value": "R"\n  }\n]'
    assert c["judge_prompt"]["question"] == expected_input + "\n--\n" + expected_output


def test_custom_prompt_file_replaces_whole_template_crlf_normalised_untrimmed(repo):
    repo.write("judges/strict.md", "Grade {{question}}\r\nagainst {{reference_answer}}\r\n\r\n")
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected="- role: assistant\n  content: R\n",
        extra="evaluators:\n  - name: strict\n    type: llm_judge\n    prompt: judges/strict.md\n",
    )
    assert c["judge_prompt"]["question"] == "Grade Q\nagainst R\n\n"
    assert c["judge_prompt"]["systemPrompt"] == SYSTEM_PROMPT
    assert repo.preview()["warnings"] == []


def test_inline_prompt_warns_with_tried_lines_and_is_used_as_template(repo):
    c = repo.case_with("- role: user\n  content: Q\n", extra=inline_judge("Judge {{question}}"))
    assert c["judge_prompt"]["question"] == "Judge Q"
    assert repo.warnings() == [
        "Warning: Inline prompt used for evaluator 'j' in 'c' (file not found: Judge {{question}})\n"
        "  Tried: <ROOT>/Judge {{question}}"
    ]


def test_empty_prompt_string_replaces_the_template_with_nothing(repo):
    c = repo.case_with("- role: user\n  content: Q\n", extra=inline_judge(""))
    assert c["judge_prompt"]["question"] == ""
    assert repo.preview()["warnings"] == []


def test_evaluator_code_without_list_runs_llm_judge(repo):
    c = repo.case_with("- role: user\n  content: Q\n", extra="evaluator: code")
    assert c["evaluator"] == "code"
    assert c["judge_prompt"]["question"] == default_prompt("o", "Q", "")


def test_only_code_evaluators_mean_no_judge_prompt(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        extra="evaluators:\n  - name: s\n    type: code\n    script: python check.py\n",
    )
    assert c["judge_prompt"] is None


def test_first_llm_judge_of_the_list_gives_the_judge_prompt(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        extra=(
            "evaluators:\n  - name: s\n    type: code\n    script: python check.py\n"
            "  - name: first\n    type: llm_judge\n    prompt: 'ONE {{question}}'\n"
            "  - name: second\n    type: llm_judge\n    prompt: 'TWO {{question}}'\n"
        ),
    )
    assert c["judge_prompt"]["question"] == "ONE Q"


def _suite_with_inherited_judge(repo) -> None:
    repo.write(
        "eval.yaml",
        "$schema: agentv-eval-v2\n"
        "execution:\n  evaluators:\n    - name: suite\n      type: llm_judge\n      prompt: 'SUITE {{question}}'\n"
        "evalcases:\n"
        "  - id: inherits\n    outcome: o\n    input_messages: [{role: user, content: Q}]\n"
        "  - id: empty-execution\n    execution: {}\n    outcome: o\n    input_messages: [{role: user, content: Q}]\n"
        "  - id: target-only\n    execution: {target: x}\n    outcome: o\n    input_messages: [{role: user, content: Q}]\n"
        "  - id: empty-list\n    evaluators: []\n    outcome: o\n    input_messages: [{role: user, content: Q}]\n"
        "  - id: null-list\n    evaluators: null\n    outcome: o\n    input_messages: [{role: user, content: Q}]\n",
    )


def test_execution_object_blocks_suite_evaluator_inheritance(repo):
    _suite_with_inherited_judge(repo)
    judged = {c["id"]: c["judge_prompt"]["question"] for c in repo.preview()["cases"]}
    assert judged["inherits"] == "SUITE Q"
    assert judged["empty-execution"] == default_prompt("o", "Q", "")
    assert judged["target-only"] == default_prompt("o", "Q", "")


def test_empty_evaluators_list_disables_inheritance_but_null_does_not(repo):
    _suite_with_inherited_judge(repo)
    judged = {c["id"]: c["judge_prompt"]["question"] for c in repo.preview()["cases"]}
    assert judged["empty-list"] == default_prompt("o", "Q", "")
    assert judged["null-list"] == "SUITE Q"


def test_case_execution_evaluators_beat_case_evaluators(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        extra=(
            "evaluators:\n  - {name: a, type: llm_judge, prompt: 'CASE {{question}}'}\n"
            "execution:\n  evaluators:\n    - {name: b, type: llm_judge, prompt: 'EXEC {{question}}'}\n"
        ),
    )
    assert c["judge_prompt"]["question"] == "EXEC Q"


def test_execution_without_evaluators_falls_back_to_case_evaluators(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        extra="evaluators:\n  - {name: a, type: llm_judge, prompt: 'CASE {{question}}'}\nexecution: {target: t}\n",
    )
    assert c["judge_prompt"]["question"] == "CASE Q"


def test_evaluators_not_a_list_warns_and_default_judge_runs(repo):
    c = repo.case_with("- role: user\n  content: Q\n", extra="evaluators: strict")
    assert repo.warnings() == ["Warning: Skipping evaluators for 'c': expected array"]
    assert c["judge_prompt"]["question"] == default_prompt("o", "Q", "")


def test_invalid_evaluator_entries_warn_in_order(repo):
    repo.one_case(
        "- role: user\n  content: Q\n",
        extra=(
            "evaluators:\n  - just-a-string\n  - {name: '', type: llm_judge}\n  - {name: n, type: rubric}\n"
            "  - {name: s, type: code}\n"
        ),
    )
    assert repo.warnings() == [
        "Warning: Skipping invalid evaluator entry for 'c' (expected object)",
        "Warning: Skipping evaluator with invalid name/type in 'c'",
        "Warning: Skipping evaluator with invalid name/type in 'c'",
        "Warning: Skipping code evaluator 's' in 'c': missing script",
    ]
    assert repo.case()["judge_prompt"]["question"] == default_prompt("o", "Q", "")


def test_code_evaluator_cwd_resolution(repo):
    from agentv_lsp.formats.v2.loader import load_case

    repo.write("scripts/check.py", "print(1)\n")
    repo.one_case(
        "- role: user\n  content: Q\n",
        extra=(
            "evaluators:\n"
            "  - {name: here, type: code, script: python check.py, cwd: scripts}\n"
            "  - {name: nowhere, type: code, script: python check.py, cwd: nowhere}\n"
            "  - {name: default, type: code, script: uv run check.py}\n"
        ),
        name="evals/eval.yaml",
    )
    assert repo.warnings("evals/eval.yaml") == [
        "Warning: Code evaluator 'nowhere' in 'c': cwd not found (nowhere)\n"
        "  Tried: <ROOT>/evals/nowhere\n  Tried: <ROOT>/nowhere"
    ]
    evaluators = load_case(repo.open("evals/eval.yaml"), 0).case.evaluators
    assert [(e.name, e.script, e.resolved_cwd) for e in evaluators] == [
        ("here", "python check.py", str(repo.root / "scripts")),
        ("nowhere", "python check.py", None),
        ("default", "uv run check.py", str(repo.root / "evals")),
    ]
