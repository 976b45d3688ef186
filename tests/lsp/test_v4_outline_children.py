"""The 4.x outline shows each test's messages and assertions inside it, as the v2 outline shows a
case's messages and evaluators (issue 27), each child within its test and on its own line."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import doc_id, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

SUITE = """\
description: Outline
tests:
  - id: with-messages
    criteria: Says Paris
    input:
      - role: system
        content: You are a tutor.
      - role: user
        content: What is the capital of France?
    expected_output: Paris.
    assertions:
      - name: says-paris
        type: contains
        value: Paris
  - id: plain
    criteria: Says hi
    input: Hello
"""


async def test_tests_have_their_messages_and_assertions_inside(client: LanguageClient, repo: Path) -> None:
    path = repo / "evals" / "outline.eval.yaml"
    path.write_text(SUITE)
    uri = open_doc(client, path)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=doc_id(uri))
    )
    tests = [s for s in symbols or [] if isinstance(s, lsp.DocumentSymbol)]
    assert [t.name for t in tests] == ["with-messages", "plain"]
    first, second = tests
    assert [c.name for c in first.children or []] == [
        "system: You are a tutor.",
        "user: What is the capital of France?",
        "assistant: Paris.",
        "says-paris (contains)",
    ]
    lines = SUITE.split("\n")
    starts = [
        lines.index("      - role: system"),
        lines.index("      - role: user"),
        lines.index("    expected_output: Paris."),
        lines.index("      - name: says-paris"),
    ]
    assert [c.range.start.line for c in first.children or []] == starts
    assert all(first.range.start.line <= line <= first.range.end.line for line in starts)
    assert [c.name for c in second.children or []] == ["user: Hello"]
