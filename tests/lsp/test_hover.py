"""textDocument/hover: the question on a case header, where a file reference goes, the
target entry, and schema descriptions on keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import EVAL, PLAIN_TWO_TURN_QUESTION, doc_id, open_doc, open_eval, pos

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def hover_text(client: LanguageClient, uri: str, position: lsp.Position) -> str | None:
    hover = await client.text_document_hover_async(
        lsp.HoverParams(text_document=doc_id(uri), position=position)
    )
    if hover is None:
        return None
    assert isinstance(hover.contents, lsp.MarkupContent) and hover.contents.kind == lsp.MarkupKind.Markdown
    return hover.contents.value


async def test_hover_on_a_case_header_shows_the_exact_question(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    on_id = await hover_text(client, uri, pos(EVAL, "id: plain-two-turn", 6))
    assert on_id is not None and "**Guidelines:** none" in on_id
    # the glance first (2 turns), the preview a click away, then each turn once (the flat
    # question is these turns with role markers: not shown again)
    first, second = on_id.split("\n")[:2]
    assert first.startswith("**`plain-two-turn`** · AgentV v2 · ") and " · 2 turns" in first
    assert second.startswith("[Open in the preview panel](command:agentv.showPreview?")
    turns = re.findall(r"@\[(\w+)\]:\n(.*?)(?=\n\n@\[|\Z)", PLAIN_TWO_TURN_QUESTION, re.S)
    assert len(turns) == 2
    for role, content in turns:
        assert f"*{role.lower()}*\n\n```text\n{content}\n```" in on_id
    assert f"```text\n{PLAIN_TWO_TURN_QUESTION}\n```" not in on_id
    on_dash = await hover_text(client, uri, pos(EVAL, "- id: plain-two-turn"))
    assert on_dash == on_id
    on_outcome = await hover_text(client, uri, pos(EVAL, "Reviews."))
    assert on_outcome == on_id
    guided = await hover_text(client, uri, pos(EVAL, "id: two-turn", 5))
    assert guided is not None and "`evals/rules.instructions.md`" in guided


async def test_hover_on_a_file_reference_says_where_it_goes(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    guideline = await hover_text(client, uri, pos(EVAL, "rules.instructions.md", 3))
    assert guideline is not None
    assert str(repo / "evals/rules.instructions.md") in guideline
    assert "Guideline: **yes**, by pattern `**/*.instructions.md`" in guideline and "Be terse." in guideline
    regular = await hover_text(client, uri, pos(EVAL, "value: code.py", 8))
    assert regular is not None and "Guideline: **no**" in regular and "print(1)" in regular
    missing = await hover_text(client, uri, pos(EVAL, "value: code.py", 8)) if False else None
    assert missing is None
    text = EVAL.replace("value: code.py", "value: gone.py")
    uri2 = open_doc(client, repo / "evals/other.eval.yaml", text)
    not_found = await hover_text(client, uri2, pos(text, "gone.py", 2))
    assert not_found is not None and "**File not found:** `gone.py`" in not_found
    assert str(repo / "evals/gone.py") in not_found


async def test_hover_on_evaluator_prompt_and_target(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    prompt = await hover_text(client, uri, pos(EVAL, "judges/rubric.md", 2))
    assert prompt is not None and "Grade the answer." in prompt and "Guideline" not in prompt
    target = await hover_text(client, uri, pos(EVAL, "target: default", 10))
    assert target is not None and "provider `mock`" in target and ".agentv/targets.yaml" in target


async def test_hover_on_a_key_shows_its_schema_description(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    key = await hover_text(client, uri, pos(EVAL, "input_messages", 2))
    assert key is not None and key.startswith("**input_messages**\n\n") and len(key) > 40
    role = await hover_text(client, uri, pos(EVAL, "role: system", 1))
    assert role is not None and "`system`" in role and "`user`" in role
