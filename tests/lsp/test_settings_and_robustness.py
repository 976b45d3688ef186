"""Settings (bad values, untrusted workspaces) and a bounded fuzz run: the server keeps answering."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import EVAL, accept_registrations, diagnostics_of, init_params, open_doc, write_repo


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"]))
async def untrusted(lsp_client: LanguageClient, tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "secret.md").write_text("TOKEN")
    root = write_repo(
        tmp_path / "ws", {"evals/e.yaml": EVAL.replace("value: code.py", "value: ../../secret.md")}
    )
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(
        init_params(root, {"trustedWorkspace": False, "maxFileSizeKb": "big"})
    )
    yield
    await lsp_client.shutdown_session()


async def test_untrusted_workspace_reads_nothing_outside_and_bad_settings_warn(
    untrusted: LanguageClient, tmp_path: Path
) -> None:
    uri = open_doc(untrusted, tmp_path / "ws" / "evals" / "e.yaml")
    diagnostics = await diagnostics_of(untrusted, uri)
    assert any("not trusted" in d.message for d in diagnostics), [d.message for d in diagnostics]
    assert any("maxFileSizeKb must be a int" in m.message for m in untrusted.messages)


@pytest.mark.parametrize("seed", [1, 2])
async def test_random_and_truncated_yaml_never_stops_the_server(
    client: LanguageClient, repo: Path, seed: int
) -> None:
    rng = random.Random(seed)
    path = repo / "evals/review.eval.yaml"
    full = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_of(client, uri)
    for version in range(2, 40):
        cut = rng.randint(0, len(full))
        text = full[:cut] + "".join(
            rng.choice(["[", "{", ": ", "- ", "\n", "&a ", "*a", "'", "\t"]) for _ in range(5)
        )
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        lines = text.split("\n")
        line = rng.randrange(len(lines))
        position = lsp.Position(line=line, character=rng.randint(0, len(lines[line])))
        await client.text_document_hover_async(
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=position)
        )
        await client.text_document_completion_async(
            lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=position)
        )
        await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(
                command="agentv.previewCase",
                arguments=[{"uri": uri, "position": {"line": line, "character": 0}}],
            )
        )
    # still alive and correct after the storm
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=100),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=full)],
        )
    )
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="agentv.previewCase", arguments=[{"uri": uri, "caseId": "two-turn"}])
    )
    assert result["id"] == "two-turn"
    assert not [m for m in client.log_messages if "Traceback" in m.message or m.type == lsp.MessageType.Error]
