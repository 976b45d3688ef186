"""Document sync through the protocol: incremental edits land where LSP's line rule puts
them (LF, CRLF, lone CR) in texts that also hold FF, NEL, U+2028 and the other characters
`str.splitlines` breaks at. Observed as a pulling client sees the document: its diagnostics
and symbols equal those of a document opened with the expected text (and differ from those
of the text pygls' line rule would have made, so the comparison can tell them apart)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp.conftest import SERVER, accept_registrations, doc_id, edit_doc, init_params, open_doc
from tests.lsp.test_document import NOT_LSP_BREAKS, apply_with_lsp_rule

pytestmark = pytest.mark.asyncio(loop_scope="module")

V4 = """\
description: Sync
tests:
  - id: first
    input: Hello
    criteria: Greets.
  - id: second
    input: Bye
    criteria: Leaves.
"""


@pytest_lsp.fixture(config=SERVER, scope="module")
async def pulling(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.text_document is not None
    capabilities.text_document.diagnostic = lsp.DiagnosticClientCapabilities(related_document_support=True)
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(repo, capabilities=capabilities))
    yield
    await lsp_client.shutdown_session()


_count = iter(range(1, 10_000))


def _open(client: LanguageClient, repo: Path, text: str) -> str:
    path = repo / "evals" / f"sync{next(_count)}.eval.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, newline="")
    return open_doc(client, path, text)


async def seen(client: LanguageClient, uri: str) -> Any:
    """What the client is told about a document, without its uri."""
    report = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=doc_id(uri))
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=doc_id(uri))
    )
    diagnostics = sorted(
        (
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            str(d.code),
            d.message,
        )
        for d in report.items
    )
    return diagnostics, [repr(s).replace(uri, "URI") for s in symbols or []]


def apply_with_splitlines(text: str, at: lsp.Position, new: str) -> str:
    """An insertion placed with `str.splitlines`' lines (the old, wrong rule)."""
    lines = text.splitlines(True)
    offset = sum(len(line) for line in lines[: at.line]) + at.character
    return text[:offset] + new + text[offset:]


async def test_an_insertion_after_a_lone_cr_and_a_form_feed_lands_on_the_lsp_line(
    pulling: LanguageClient, repo: Path
) -> None:
    """The issue's repro (`a\\rb\\x0cc\\nd`, insert at (2, 0)) inside a 4.x eval file."""
    text = "# a\r# b\x0cc\n" + V4.replace("  - id: second\n", "")
    at = lsp.Position(line=2, character=0)
    inserted = "x_unknown: 1\n"
    uri = _open(pulling, repo, text)
    edit_doc(pulling, uri, 2, at, at, inserted)
    expected = apply_with_lsp_rule(text, at, at, inserted)
    assert expected.startswith("# a\r# b\x0cc\nx_unknown")
    wrong = apply_with_splitlines(text, at, inserted)
    assert wrong != expected
    got = await seen(pulling, uri)
    assert got == await seen(pulling, _open(pulling, repo, expected))
    assert got != await seen(pulling, _open(pulling, repo, wrong))


@pytest.mark.parametrize("seed", range(3))
async def test_random_edits_keep_the_document_equal_to_the_lsp_rule(
    pulling: LanguageClient, repo: Path, seed: int
) -> None:
    rng = random.Random(seed)
    pieces = ["\r", "\n", "\r\n", "a", "# c", "😀", *NOT_LSP_BREAKS]
    text = "# " + "".join(rng.choice(pieces) for _ in range(30)) + "\n" + V4
    uri = _open(pulling, repo, text)
    for version in range(2, 42):
        lines = apply_with_lsp_rule(
            text, lsp.Position(line=0, character=0), lsp.Position(line=0, character=0), ""
        )
        count = len(lines.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
        start = lsp.Position(line=rng.randrange(count + 1), character=rng.randint(0, 6))
        end = lsp.Position(line=min(start.line + rng.choice([0, 0, 1]), count), character=rng.randint(0, 6))
        if (end.line, end.character) < (start.line, start.character):
            start, end = end, start
        new = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
        edit_doc(pulling, uri, version, start, end, new)
        text = apply_with_lsp_rule(text, start, end, new)
    assert await seen(pulling, uri) == await seen(pulling, _open(pulling, repo, text))
