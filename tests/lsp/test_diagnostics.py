"""textDocument/publishDiagnostics on open, unsaved edits, watched-file changes and close."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_of, open_doc


async def test_open_publishes_the_checker_diagnostics_at_their_positions(
    client: LanguageClient, repo: Path
) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    diagnostics = await diagnostics_of(client, uri)
    by_code = {d.code: d for d in diagnostics}
    role = by_code["validate-role"]
    assert role.severity == lsp.DiagnosticSeverity.Error and role.range.start.line == 20
    assert "drops this whole message" in role.message
    assert by_code["guideline-extracted"].severity == lsp.DiagnosticSeverity.Information


async def test_unsaved_edits_are_checked_and_close_clears(client: LanguageClient, repo: Path) -> None:
    path = repo / "evals/review.eval.yaml"
    uri = open_doc(client, path)
    await diagnostics_of(client, uri)
    fixed = path.read_text().replace("role: usr", "role: user")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    while True:
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if all(d.code != "validate-role" for d in client.diagnostics[uri]):
            break
    client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


async def test_a_changed_config_rechecks_open_eval_files(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    assert any(d.code == "guideline-extracted" for d in await diagnostics_of(client, uri))
    config = repo / ".agentv/config.yaml"
    config.write_text("$schema: agentv-config-v2\nguideline_patterns: []\n")
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=config.as_uri(), type=lsp.FileChangeType.Changed)]
        )
    )
    while True:
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if all(d.code != "guideline-extracted" for d in client.diagnostics[uri]):
            break


async def test_plain_yaml_files_get_no_diagnostics(client: LanguageClient, repo: Path) -> None:
    other = repo / "docker-compose.yml"
    other.write_text("services: {a: 1}\n")
    uri = open_doc(client, other)
    assert list(await diagnostics_of(client, uri)) == []
