"""textDocument/codeLens and codeLens/resolve: "▶ Preview" and a summary above each case."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from agentv_lsp.lsp.listing import COMPARE
from tests.lsp.conftest import (
    EVAL,
    SERVER,
    accept_registrations,
    doc_id,
    init_params,
    open_eval,
    pos,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def resolved_lenses(client: LanguageClient, uri: str) -> list[lsp.CodeLens]:
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    # "Compare prompt with HEAD" lenses: tests/lsp/test_diff_prompt.py
    shown = [
        lens
        for lens in lenses or []
        if not (isinstance(lens.data, list) and lens.data[2] == COMPARE)
    ]
    return [await client.code_lens_resolve_async(lens) for lens in shown]


async def test_code_lens_previews_each_case_with_a_summary(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    lenses = await resolved_lenses(client, uri)
    assert [lens.range.start.line for lens in lenses[::2]] == [
        pos(EVAL, "- id: two-turn").line,
        pos(EVAL, "- id: flat-one").line,
        pos(EVAL, "- id: plain-two-turn").line,
    ]
    preview, summary = lenses[0].command, lenses[1].command
    assert preview is not None and summary is not None
    assert preview.title == "▶ Preview" and preview.command == "agentv.previewCase"
    assert list(preview.arguments or []) == [{"uri": uri, "caseId": "two-turn"}]
    assert summary.title == "2 turns · 1 file · 1 guideline · role markers"
    flat = lenses[3].command
    assert flat is not None and flat.title == "0 turns · 0 files · 0 guidelines · flat"
    plain = lenses[5].command
    assert plain is not None and plain.title == "2 turns · 0 files · 0 guidelines · role markers"


async def test_a_skipped_case_says_why_instead_of_previewing(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo, EVAL.replace("    outcome: Answer.\n", ""))
    lenses = await resolved_lenses(client, uri)
    skipped = lenses[2].command
    assert skipped is not None and skipped.title.startswith("⚠ Skipping incomplete eval case: flat-one")


@pytest_lsp.fixture(config=SERVER, scope="module")
async def no_lens_client(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(repo, {"codeLens": {"enabled": False}}))
    yield
    await lsp_client.shutdown_session()


async def test_code_lenses_can_be_turned_off(no_lens_client: LanguageClient, repo: Path) -> None:
    uri = open_eval(no_lens_client, repo)
    assert not await no_lens_client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=doc_id(uri))
    )
