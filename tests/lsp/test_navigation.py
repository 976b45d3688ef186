"""textDocument/codeLens, documentSymbol, documentLink, definition, workspace/symbol."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_doc


async def test_code_lens_previews_each_case_with_a_summary(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    lenses = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    titles = [lens.command.title for lens in lenses if lens.command]
    assert titles[0] == "▶ Preview" and list(lenses[0].command.arguments or []) == [
        {"uri": uri, "caseId": "two-turn"}
    ]
    assert "2 turns · 1 file · 1 guideline · role markers" in titles


async def test_document_symbols_name_cases_and_messages(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert [s.name for s in symbols] == ["two-turn", "flat-one"]
    assert symbols[0].children and symbols[0].children[0].name.startswith("system: You are a reviewer.")


async def test_links_and_definition_reach_files_and_targets(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    links = await client.text_document_document_link_async(
        lsp.DocumentLinkParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert {link.target for link in links} >= {(repo / "evals/code.py").as_uri()}
    target = await client.text_document_definition_async(
        lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=2, character=12)
        )
    )
    assert (
        target
        and target[0].uri == (repo / ".agentv/targets.yaml").as_uri()
        and target[0].range.start.line == 2
    )


async def test_workspace_symbols_find_case_ids_on_disk(client: LanguageClient, repo: Path) -> None:
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="flat"))
    assert [s.name for s in found] == ["flat-one"]
