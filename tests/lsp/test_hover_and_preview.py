"""textDocument/hover, workspace/executeCommand agentv.previewCase|previewFile, agentv/status."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_of, open_doc

QUESTION = (
    '@[System]:\nYou are a reviewer.\n\n@[User]:\nReview this\n<file path="code.py">\nprint(1)\n</file>\n'
    "<Attached: rules.instructions.md>"
)


async def test_hover_on_a_case_id_shows_the_exact_question(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=4, character=10)
        )
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert QUESTION in hover.contents.value and "chatPrompt" in hover.contents.value


async def test_hover_on_a_file_reference_says_where_it_goes(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=16, character=20)
        )
    )
    assert hover is not None and "Guideline: extracted" in hover.contents.value  # type: ignore[union-attr]


async def test_preview_case_uses_the_unsaved_text(client: LanguageClient, repo: Path) -> None:
    path = repo / "evals/review.eval.yaml"
    uri = open_doc(client, path, path.read_text().replace("Review this", "Review THIS"))
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="agentv.previewCase", arguments=[{"uri": uri, "caseId": "two-turn"}])
    )
    assert result["lm"]["question"] == QUESTION.replace("Review this", "Review THIS")
    assert result["lm"]["chatPrompt"][0]["content"].startswith("[[ ## Guidelines ## ]]")
    assert result["guideline_paths"] == ["evals/rules.instructions.md"]
    assert result["judge_prompt"]["systemPrompt"].startswith("You must respond with a single JSON object")
    by_position = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(
            command="agentv.previewCase", arguments=[{"uri": uri, "position": {"line": 6, "character": 4}}]
        )
    )
    assert by_position["id"] == "two-turn"


async def test_preview_file_and_status(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    await diagnostics_of(client, uri)
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="agentv.previewFile", arguments=[{"uri": uri}])
    )
    assert [c["id"] for c in result["cases"]] == ["two-turn", "flat-one"]
    status = await client.protocol.send_request_async("agentv/status", {"uri": uri})
    assert status.schema == "agentv-eval-v2" and status.config.endswith(".agentv/config.yaml")
