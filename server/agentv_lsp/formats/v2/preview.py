"""The preview contract: what `agentv-lsp preview --json` prints and `agentv.previewCase` returns."""

from __future__ import annotations

from typing import Any

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.jsrt import relative_display
from agentv_lsp.formats.v2.judge import CANDIDATE_PLACEHOLDER, build_judge_prompt
from agentv_lsp.formats.v2.loader import CaseOutcome, EvalFile, load_case
from agentv_lsp.formats.v2.model import EvalCase, Notice
from agentv_lsp.formats.v2.prompt import build_both_modes


def preview_case(
    ef: EvalFile, case: EvalCase, notices: list[Notice] | None = None, candidate: str = CANDIDATE_PLACEHOLDER
) -> dict[str, Any]:
    """One element of `cases`: both modes, paths relative to the repo root, the judge prompt."""
    fs: FileSystem = ef.fs
    lm, agent = build_both_modes(case, fs, notices)
    judge = build_judge_prompt(case, lm, fs, notices, candidate)
    root = ef.repo_root
    return {
        "id": case.id,
        "index": case.index,
        "conversation_id": case.conversation_id,
        "dataset": case.dataset,
        "expected_outcome": case.expected_outcome,
        "evaluator": case.evaluator,
        "lm": {"question": lm.question, "guidelines": lm.guidelines, "chatPrompt": lm.chat_prompt},
        "agent": {
            "question": agent.question,
            "guidelines": agent.guidelines,
            "chatPrompt": agent.chat_prompt,
        },
        "role_markers": lm.role_markers,
        "guideline_paths": [relative_display(p, root) for p in case.guideline_paths],
        "file_paths": [relative_display(p, root) for p in case.file_paths],
        "reference_answer": case.reference_answer,
        "judge_prompt": None
        if judge is None
        else {"question": judge.question, "systemPrompt": judge.system_prompt},
    }


def preview_file(
    ef: EvalFile, case_id: str | None = None, candidate: str = CANDIDATE_PLACEHOLDER
) -> dict[str, Any]:
    """The whole `preview --json` object (only the cases with `case_id` when given)."""
    warnings: list[Notice] = list(ef.notices)
    cases: list[dict[str, Any]] = []
    if ef.loaded:
        outcomes: list[CaseOutcome] = [load_case(ef, i) for i in range(len(ef.raw_cases))]
        for outcome in outcomes:
            warnings.extend(outcome.notices)
        build_notices: list[Notice] = []
        for outcome in outcomes:
            if outcome.case is not None and (case_id is None or outcome.case.id == case_id):
                cases.append(preview_case(ef, outcome.case, build_notices, candidate))
        warnings.extend(build_notices)
    return {
        "file": relative_display(ef.path, ef.repo_root),
        "load_error": ef.load_error,
        "warnings": [n.render() for n in warnings],
        "cases": cases,
    }
