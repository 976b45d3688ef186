"""The AgentV 4.42.4 grader prompt (formats/v4/judge.py) against requests the real runtime sent.

tests/oracle_v4/cases/*/expected/*.json were recorded by tests/oracle_v4/driver.mjs: it ran the
published orchestrator (`runEvalCase`) with a fake candidate answering CANDIDATE_ANSWER and a fake
grader provider capturing each request. Each recorded test also carries what the runtime loaded
(its question, criteria, reference answer, metadata and parsed grader configs), so these tests
feed the runtime's own values to `build_grader_prompt` and check the request byte for byte, in LM
and agent mode, independently of our loader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.judge import (
    CANDIDATE_PLACEHOLDER,
    Conversation,
    build_grader_prompt,
    contains_template_variables,
    substitute_variables,
)
from agentv_lsp.formats.v4.model import RuntimeMessage
from agentv_lsp.formats.v4.runtime import MISSING, js_string

CASES = Path(__file__).resolve().parents[1] / "oracle_v4" / "cases"


def _unscrub(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("<ROOT>", str(root))
    if isinstance(value, list):
        return [_unscrub(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _unscrub(v, root) for k, v in value.items()}
    return value


def _recorded_tests() -> list[Any]:
    params = []
    for record_path in sorted(CASES.glob("*/expected/*.json")):
        if record_path.name == "_case.json":
            continue
        root = record_path.parent.parent
        record = json.loads(record_path.read_text(encoding="utf-8"))
        for case in record["cases"]:
            if "judge_prompt" not in case:
                continue
            params.append(pytest.param(root, _unscrub(case, root), id=f"{root.name}/{case['id']}"))
    return params


RECORDED = _recorded_tests()


def test_recordings_exist() -> None:
    assert len(RECORDED) >= 30, "tests/oracle_v4/cases/*/expected/ should hold the recorded grader requests"


def _prompt(case: dict[str, Any], mode: str) -> dict[str, str] | None:
    conversation = None
    if case.get("mode") == "conversation" and case.get("turns"):
        conversation = Conversation(case["input"], case["turns"], case.get("window_size"))
    return build_grader_prompt(
        formatted_question=case[mode]["question"],
        test_question=case["question"],
        criteria=case["criteria"],
        reference_answer=case["reference_answer"],
        assertions=case["assertions"],
        fs=FileSystem(),
        metadata=case["metadata"],
        candidate=CANDIDATE_PLACEHOLDER,
        conversation=conversation,
    )


@pytest.mark.parametrize(("root", "case"), RECORDED)
def test_lm_mode_request_matches_runtime(root: Path, case: dict[str, Any]) -> None:
    assert _prompt(case, "lm") == case["judge_prompt"]


@pytest.mark.parametrize(("root", "case"), RECORDED)
def test_agent_mode_request_matches_runtime(root: Path, case: dict[str, Any]) -> None:
    assert _prompt(case, "agent") == case["judge_prompt_agent"]


def test_recorded_kinds_are_covered() -> None:
    """The recordings exercise every prompt shape the module builds (so the tests above can fail)."""
    systems = {
        c.values[1]["judge_prompt"]["systemPrompt"][:40] for c in RECORDED if c.values[1]["judge_prompt"]
    }
    assert len(systems) == 3  # freeform, checklist, score range
    assert any(c.values[1]["judge_prompt"] is None for c in RECORDED)


def test_unreadable_prompt_file_falls_back_to_the_reference_text(tmp_path: Path) -> None:
    # resolveCustomPrompt warns and uses `prompt` (the file reference without file://) as the template
    messages: list[RuntimeMessage] = []
    missing = str(tmp_path / "gone.md")
    got = build_grader_prompt(
        formatted_question="Q",
        test_question="Q",
        criteria="c",
        reference_answer="",
        assertions=[{"name": "g", "type": "llm-grader", "prompt": "gone.md", "promptPath": missing}],
        fs=FileSystem(),
        messages=messages,
    )
    assert got is not None and got["question"] == "gone.md"
    assert [m.text for m in messages] == [
        f"Could not read custom prompt at {missing}: ENOENT: no such file or directory, open '{missing}'"
    ]


def test_template_helpers_follow_javascript() -> None:
    # JavaScript's \s has no U+0085 / U+001C; Python's has
    assert substitute_variables("{{\u0085input}}", {"input": "x"}) == "{{\u0085input}}"
    assert substitute_variables("{{\u3000input\ufeff}}", {"input": "x"}) == "x"
    assert contains_template_variables("see {{ output }}")
    assert not contains_template_variables("see {{ outputs }} and {{constructor}}")
    # the grader prompt prints values as a template literal does (`${value}`)
    assert js_string([1, None, "a", [2.5, True], MISSING]) == "1,,a,2.5,true,"
    assert js_string(1e21) == "1e+21"
    assert js_string(MISSING) == "undefined"
