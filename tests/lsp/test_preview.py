"""workspace/executeCommand agentv.previewCase and agentv.previewFile, and the custom
request agentv/status: computed from the unsaved editor text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    EVAL,
    INIT_RESULTS,
    PLAIN_TWO_TURN_QUESTION,
    change_doc,
    diagnostics_of,
    open_doc,
    open_eval,
    pos,
)

QUESTION = (
    '@[System]:\nYou are a reviewer.\n\n@[User]:\nReview this\n<file path="code.py">\nprint(1)\n</file>\n'
    "<Attached: rules.instructions.md>"
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def preview(client: LanguageClient, target: dict[str, Any]) -> Any:
    return await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="agentv.previewCase", arguments=[target])
    )


async def test_the_server_advertises_its_commands(client: LanguageClient) -> None:
    provider = INIT_RESULTS[id(client)].capabilities.execute_command_provider
    assert provider is not None and {"agentv.previewCase", "agentv.previewFile"} <= set(provider.commands)


async def test_preview_case_gives_the_exact_question(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    result = await preview(client, {"uri": uri, "caseId": "plain-two-turn"})
    assert result["lm"]["question"] == PLAIN_TWO_TURN_QUESTION
    assert result["index"] == 2 and result["role_markers"] is True
    assert [turn["role"] for turn in result["lm"]["chatPrompt"]] == ["system", "user"]
    assert result["warnings"] == []


async def test_preview_case_uses_the_unsaved_text_and_finds_cases_by_position(
    client: LanguageClient, repo: Path
) -> None:
    uri = open_eval(client, repo)
    change_doc(client, uri, 2, EVAL.replace("Review this", "Review THIS"))
    result = await preview(client, {"uri": uri, "caseId": "two-turn"})
    assert result["lm"]["question"] == QUESTION.replace("Review this", "Review THIS")
    assert result["lm"]["chatPrompt"][0]["content"].startswith("[[ ## Guidelines ## ]]")
    assert result["guideline_paths"] == ["evals/rules.instructions.md"]
    assert result["judge_prompt"] is not None
    where = pos(EVAL, "content: You are a reviewer.")
    by_position = await preview(client, {"uri": uri, "position": {"line": where.line, "character": 3}})
    assert by_position["id"] == "two-turn" and by_position["index"] == 0


async def test_preview_of_a_case_agentv_skips_explains_why(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo, EVAL.replace("    outcome: Answer.\n", ""))
    result = await preview(client, {"uri": uri, "caseId": "flat-one"})
    assert "Skipping incomplete eval case: flat-one" in result["error"]
    assert await preview(client, {"uri": uri, "caseId": "no-such-case"}) is None
    assert await preview(client, {"uri": "file:///nowhere.yaml", "caseId": "x"}) is None


async def test_preview_file_and_status(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    await diagnostics_of(client, uri)
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="agentv.previewFile", arguments=[{"uri": uri}])
    )
    assert [c["id"] for c in result["cases"]] == ["two-turn", "flat-one", "plain-two-turn"]
    assert result["file"].startswith("evals/t") and result["file"].endswith(".eval.yaml")
    status = await client.protocol.send_request_async("agentv/status", {"uri": uri})
    assert status.schema == "agentv-eval-v2" and status.kind == "eval"
    assert status.config == str(repo / ".agentv/config.yaml")
    assert status.targets == str(repo / ".agentv/targets.yaml")
    plain = repo / "notes.yaml"
    plain.write_text("a: 1\n")
    other = await client.protocol.send_request_async("agentv/status", {"uri": open_doc(client, plain)})
    assert other.schema is None and other.kind is None
