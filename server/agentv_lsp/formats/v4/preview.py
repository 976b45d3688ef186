"""The `preview --json` object for a file judged by AgentV 4.42.4.

    {"file", "runtime", "load_error", "warnings", "skipped": [{"id", "reason", "index", "file", "path"}],
     "cases": [{"id", "conversation_id", "criteria", "expected_output", "reference_answer",
                "file_paths", "lm", "agent", "judge_prompt", "assertions"}]}

`warnings` are the runtime's console messages in order, as printed (without colours);
`file_paths` are relative to the repo root with "/"; `lm`/`agent` are
`buildPromptInputs(test, mode)`; `judge_prompt` is the first grader request (LM mode).
"""

from __future__ import annotations

import gc
from decimal import Decimal
from typing import Any

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.jsrt import relative_display
from agentv_lsp.formats.v4 import RUNTIME_VERSION
from agentv_lsp.formats.v4.judge import grader_prompt_for_test
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.model import PromptInputs, RuntimeMessage, SuiteLoad, V4Test
from agentv_lsp.formats.v4.prompt import build_both_modes


def preview_v4(
    eval_path: str,
    repo_root: str,
    cwd: str,
    fs: FileSystem,
    case_id: str | None = None,
    *,
    keys: Keys = V4_KEYS,
) -> dict[str, Any]:
    """The preview of an eval file whose keys `keys` names (the suite keeps the table, so
    `preview_suite` and `preview_test` of a loaded suite use it too)."""
    suite = load_suite(eval_path, repo_root, cwd, fs, keys=keys)
    return preview_suite(suite, fs, case_id)


def preview_suite(suite: SuiteLoad, fs: FileSystem, case_id: str | None = None) -> dict[str, Any]:
    """The preview object of an already loaded suite (only the tests named `case_id` when given)."""
    extra: list[RuntimeMessage] = []
    was_enabled = gc.isenabled()
    gc.disable()  # many small objects that all stay alive (see load_suite)
    try:
        cases = [
            preview_test(suite, test, fs, extra)
            for test in suite.tests
            if case_id is None or test.id == case_id
        ]
    finally:
        if was_enabled:
            gc.enable()
    return {
        "file": relative_display(suite.eval_path, suite.repo_root),
        "runtime": RUNTIME_VERSION,
        "load_error": suite.load_error,
        "warnings": [m.text for m in suite.messages],
        "skipped": [
            {
                "id": s.id,
                "reason": s.reason,
                "index": s.index,  # position among the expanded `tests` entries
                "file": relative_display(s.source_file, suite.repo_root),
                "path": list(s.yaml_path),  # inside `file`
            }
            for s in suite.skipped
        ],
        "cases": cases,
        # printed while building grader prompts (at run time, not while loading)
        "judge_warnings": [m.text for m in extra],
    }


def preview_test(
    suite: SuiteLoad, test: V4Test, fs: FileSystem, messages: list[RuntimeMessage]
) -> dict[str, Any]:
    lm, agent = build_both_modes(test)
    return {
        "id": test.id,
        "conversation_id": test.conversation_id,
        "criteria": test.runtime_values.get("criteria", test.criteria),
        "expected_output": js_numbers(test.expected_output),
        "reference_answer": test.runtime_values.get("reference_answer", test.reference_answer),
        "file_paths": [relative_display(p, suite.repo_root) for p in test.file_paths],
        "lm": lm.as_json(),
        "agent": agent.as_json(),
        "judge_prompt": _judge_prompt(test, lm, fs, messages, suite.keys),
        "assertions": js_numbers(test.assertions),
    }


def js_numbers(value: Any) -> Any:
    """JSON-like data with numbers printed as JavaScript prints them: an integral float
    below 1e21 becomes the int JavaScript shows (1e3 -> 1000, 2**64 -> 18446744073709552000)."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None  # JSON.stringify prints null
        if value.is_integer() and abs(value) < 1e21:
            return int(Decimal(repr(value)))
        return value
    if isinstance(value, list):
        return [js_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: js_numbers(v) for k, v in value.items()}
    return value


def _judge_prompt(
    test: V4Test, lm: PromptInputs, fs: FileSystem, messages: list[RuntimeMessage], keys: Keys
) -> Any:
    """The grader request (`formats.v4.judge`)."""
    try:
        return grader_prompt_for_test(test, lm, fs, messages=messages, keys=keys)
    except Exception as exc:  # the preview of the other parts stays useful
        messages.append(
            RuntimeMessage("error", f"agentv-lsp could not build the grader prompt: {exc}", "v4-internal")
        )
        return None
