"""Settings: initializationOptions and workspace/configuration (section `agentv`), bad values,
untrusted workspaces, and logging that follows $/setTrace."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    EVAL,
    SERVER,
    accept_registrations,
    change_doc,
    diagnostics_of,
    doc_id,
    eventually,
    init_params,
    open_eval,
    pos,
    write_repo,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

OUTSIDE = EVAL.replace("value: code.py", "value: ../../secret.md")


@pytest.fixture(scope="module")
def untrusted_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("untrusted")
    (top / "secret.md").write_text("TOKEN=hunter2\n")
    return write_repo(top / "ws")


@pytest_lsp.fixture(config=SERVER, scope="module")
async def untrusted(lsp_client: LanguageClient, untrusted_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    settings = {"trustedWorkspace": False, "maxFileSizeKb": "big", "codeLens": {"enabled": "yes"}}
    await lsp_client.initialize_session(init_params(untrusted_repo, settings))
    yield
    await lsp_client.shutdown_session()


async def test_untrusted_workspace_reads_nothing_outside_its_folders(
    untrusted: LanguageClient, untrusted_repo: Path
) -> None:
    uri = open_eval(untrusted, untrusted_repo, OUTSIDE)
    diagnostics = await diagnostics_of(untrusted, uri)
    missing = next(d for d in diagnostics if d.code == "file-not-found")
    assert "this workspace is not trusted" in missing.message
    hover = await untrusted.text_document_hover_async(
        lsp.HoverParams(text_document=doc_id(uri), position=pos(OUTSIDE, "secret.md"))
    )
    assert (
        hover is not None and "hunter2" not in str(hover.contents) and "File not found" in str(hover.contents)
    )
    preview = await untrusted.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="agentv.previewCase", arguments=[{"uri": uri, "caseId": "two-turn"}])
    )
    assert "hunter2" not in str(preview)


async def test_bad_settings_warn_once_and_fall_back_to_defaults(
    untrusted: LanguageClient, untrusted_repo: Path
) -> None:
    warnings = [m.message for m in untrusted.messages if m.type == lsp.MessageType.Warning]
    assert "agentv-lsp: agentv.maxFileSizeKb must be a whole number, got 'big'; using 8192" in warnings
    assert any("agentv.codeLens.enabled must be true or false" in w for w in warnings)
    uri = open_eval(untrusted, untrusted_repo)
    lenses = await untrusted.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    assert lenses  # the bad value fell back to the default (enabled)


async def test_workspace_configuration_is_read_on_change(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    assert await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    client.set_configuration({"codeLens": {"enabled": False}}, section="agentv")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))

    # The server pulls section `agentv` again and applies it; nothing tells the client when, so
    # ask until the lenses are gone (a server that never re-reads fails on the timeout). Waiting
    # for a publication instead raced: the open's check and the re-check may merge into one.
    async def no_lenses() -> bool:
        return not await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))

    assert await eventually(no_lenses)
    client.set_configuration({}, section="agentv")


async def test_logs_follow_set_trace(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    await diagnostics_of(client, uri)
    assert not [m for m in client.log_messages if "diagnostics in" in m.message]
    client.protocol.notify(lsp.SET_TRACE, lsp.SetTraceParams(value=lsp.TraceValue.Verbose))
    change_doc(client, uri, 2, EVAL.replace("Answer.", "Answer!"))

    async def logged() -> bool:
        return any(f"{uri} v2:" in m.message and "diagnostics in" in m.message for m in client.log_messages)

    assert await eventually(logged)  # other log lines may come first
    client.protocol.notify(lsp.SET_TRACE, lsp.SetTraceParams(value=lsp.TraceValue.Off))
