"""A 4.x test whose own text is larger than the split threshold (a pasted log): hover and
code lenses answer from the whole test, through the protocol (issue 25, item 2: the single
test's unit used to be cut again until RecursionError, and the hover answered null)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from agentv_lsp.lsp.v4.units import SPLIT_MIN_BYTES
from tests.lsp.conftest import doc_id, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

LOG_LINES = 1800  # over 100 KB of log inside one test


def large_test_text() -> str:
    log = "".join(f"      {n:05d} pasted log line, kept as written by the author\n" for n in range(LOG_LINES))
    return (
        "description: one large test\n"
        "tests:\n"
        "  - id: with-log\n"
        "    criteria: Finds the failing step\n"
        "    input: |\n"
        "      Which step fails in this log?\n" + log + "  - id: short\n"
        "    criteria: Greets\n"
        "    input: Hello\n"
    )


@pytest.mark.parametrize("tests", ["two", "one"])
async def test_hover_on_a_100_kb_test_shows_its_prompt(
    client: LanguageClient, repo: Path, tests: str
) -> None:
    text = large_test_text()
    if tests == "one":  # the large test alone: the file is its own single unit
        text = text[: text.index("  - id: short")]
    big = text.index("  - id: short") if tests == "two" else len(text)
    assert big >= 100 * 1024 > SPLIT_MIN_BYTES
    path = repo / "evals" / f"large-test-{tests}.eval.yaml"
    path.write_text(text)
    uri = open_doc(client, path)
    for line in (2, 4 + LOG_LINES // 2):  # the id, and a line in the middle of the log
        hover = await client.text_document_hover_async(
            lsp.HoverParams(text_document=doc_id(uri), position=lsp.Position(line=line, character=8))
        )
        assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
        value = hover.contents.value
        assert value.startswith("**`with-log`** · runs in AgentV 4.42.4 · ") and "**Question** (LM mode" in value
        assert "Which step fails in this log?\n00000 pasted log line" in value
        assert f"{LOG_LINES - 1:05d} pasted log line" in value
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    assert lenses and lenses[0].range.start.line == 2
    resolved = await client.code_lens_resolve_async(lenses[0])
    assert resolved.command is not None and list(resolved.command.arguments or ()) == [
        {"uri": uri, "caseId": "with-log"}
    ]
