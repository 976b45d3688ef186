"""textDocument/completion on half-typed lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import EVAL, doc_id, open_eval

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def complete(
    client: LanguageClient, repo: Path, text: str, marker: str = "‸"
) -> dict[str, lsp.CompletionItem]:
    """Completion at `marker` (removed from the text before opening)."""
    index = text.index(marker)
    line = text.count("\n", 0, index)
    character = index - (text.rfind("\n", 0, index) + 1)
    uri = open_eval(client, repo, text.replace(marker, ""))
    result = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=doc_id(uri), position=lsp.Position(line=line, character=character))
    )
    items = result.items if isinstance(result, lsp.CompletionList) else result or []
    return {item.label: item for item in items}


async def test_roles_segment_types_and_evaluator_types_come_from_the_schema(
    client: LanguageClient, repo: Path
) -> None:
    roles = await complete(client, repo, EVAL.replace("      - role: usr\n", "      - role: ‸\n"))
    assert set(roles) == {"system", "user", "assistant", "tool"}
    types = await complete(
        client,
        repo,
        EVAL.replace("          - type: file\n            value: code.py", "          - type: ‸"),
    )
    assert {"text", "file"} <= set(types)
    kinds = await complete(client, repo, EVAL.replace("      type: llm_judge", "      type: ‸"))
    assert {"llm_judge", "code"} <= set(kinds)


async def test_keys_of_the_mapping_under_the_cursor(client: LanguageClient, repo: Path) -> None:
    keys = await complete(
        client, repo, EVAL.replace("    outcome: Answer.\n", "    outcome: Answer.\n    ‸\n")
    )
    assert {"expected_messages", "evaluators", "conversation_id"} <= set(keys)
    assert "input_messages" not in keys  # the case has it already
    assert "targets" not in keys and keys["expected_messages"].insert_text == "expected_messages: "
    top = await complete(
        client, repo, EVAL.replace("description: Review suite\n", "description: Review suite\n‸\n")
    )
    assert "dataset" in top and not {"evalcases", "execution", "description"} & set(top)  # written already


async def test_targets_files_and_a_new_case_snippet(client: LanguageClient, repo: Path) -> None:
    targets = await complete(client, repo, EVAL.replace("  target: default", "  target: ‸"))
    assert list(targets) == ["default", "azure-gpt"] and targets["azure-gpt"].detail == "azure"
    files = await complete(client, repo, EVAL.replace("            value: code.py", "            value: ‸"))
    assert {"code.py", "rules.instructions.md", "judges/"} <= set(files)
    assert files["judges/"].kind == lsp.CompletionItemKind.Folder
    inside = await complete(
        client, repo, EVAL.replace("            value: code.py", "            value: judges/‸")
    )
    assert set(inside) >= {"judges/rubric.md"}
    snippet = await complete(client, repo, EVAL + "  ‸\n")
    item = snippet["New eval case"]
    assert item.insert_text_format == lsp.InsertTextFormat.Snippet
    assert item.insert_text is not None and item.insert_text.startswith("- id: ${1:case-id}\n    outcome:")
