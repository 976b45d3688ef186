"""The language server meeting a hostile package.json (issue 25, item 1): a link to /dev/zero
or to /dev/stdin (the server's own LSP input) or a FIFO beside an eval file, in an untrusted
workspace. `auto` runtime detection passes over each (bounded, non-blocking, regular files
only): the document gets its diagnostics, the server answers and shuts down."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    SERVER,
    accept_registrations,
    diagnostics_until,
    init_params,
    open_doc,
    write_repo,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

V2 = (
    "$schema: agentv-eval-v2\nevalcases:\n  - id: c1\n    outcome: ok\n    input_messages:\n"
    "      - role: usr\n        content: hi\n"
)
SHAPES = ("dev-zero", "dev-stdin", "fifo")


@pytest.fixture(scope="module")
def manifest_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_repo(tmp_path_factory.mktemp("manifests") / "ws", {})
    for shape in SHAPES:
        folder = root / shape
        folder.mkdir()
        (folder / "a.yaml").write_text(V2)
        manifest = folder / "package.json"
        if shape == "fifo":
            os.mkfifo(manifest)
        else:
            manifest.symlink_to("/dev/zero" if shape == "dev-zero" else "/dev/stdin")
    return root


@pytest_lsp.fixture(config=SERVER, scope="module")
async def untrusted_client(lsp_client: LanguageClient, manifest_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(manifest_repo, {"trustedWorkspace": False}))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("shape", SHAPES)
async def test_a_hostile_package_json_does_not_stop_the_server(
    untrusted_client: LanguageClient, manifest_repo: Path, shape: str
) -> None:
    uri = open_doc(untrusted_client, manifest_repo / shape / "a.yaml")
    shown = await asyncio.wait_for(diagnostics_until(untrusted_client, uri, lambda d: len(d) > 0), 30)
    # the file's own content chose v2: the misspelt role is v2's finding
    assert any("usr" in d.message for d in shown)
    hover = await asyncio.wait_for(
        untrusted_client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=2, character=9)
            )
        ),
        30,
    )
    assert hover is None or hover.contents is not None


@pytest.fixture(scope="module")
def linked_manifest_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package.json that a symlink leads out of the workspace, declaring AgentV 4."""
    base = tmp_path_factory.mktemp("linked-manifest")
    outside = base / "outside"
    outside.mkdir()
    (outside / "package.json").write_text('{"devDependencies": {"agentv": "4.42.4"}}')
    root = write_repo(base / "ws", {"evals/a.yaml": V2})
    (root / "evals" / "package.json").symlink_to(outside / "package.json")
    return root


@pytest_lsp.fixture(config=SERVER, scope="module")
async def untrusted_linked_client(lsp_client: LanguageClient, linked_manifest_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(linked_manifest_repo, {"trustedWorkspace": False}))
    yield
    await lsp_client.shutdown_session()


async def test_untrusted_server_does_not_follow_a_manifest_link_out_of_the_workspace(
    untrusted_linked_client: LanguageClient, linked_manifest_repo: Path
) -> None:
    client = untrusted_linked_client
    uri = open_doc(client, linked_manifest_repo / "evals" / "a.yaml")
    status = await asyncio.wait_for(client.protocol.send_request_async("agentv/status", {"uri": uri}), 30)
    # the linked manifest (AgentV 4) is passed over: the file's own v2 content decides
    assert status.runtime.major == 2, status
    for _ in range(100):
        if any("package.json" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.05)
    warned = [m.message for m in client.messages if "package.json" in m.message]
    assert warned and all("\n" not in m for m in warned), client.messages


# issue 33, finding 7: an `agentv` version that is not a string (one folder per kind)
NOT_STRINGS = {"number": "4", "true": "true", "object": '{"v": "4"}', "array": '["^4.0.0"]', "null": "null"}
NOT_STRING_WORDS = {
    "number": "a number",
    "true": "true",
    "object": "an object",
    "array": "an array",
    "null": "null",
}


@pytest.fixture(scope="module")
def odd_version_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = {f"{kind}/a.yaml": V2 for kind in NOT_STRINGS}
    files.update(
        {f"{kind}/package.json": '{"dependencies": {"agentv": ' + v + "}}" for kind, v in NOT_STRINGS.items()}
    )
    return write_repo(tmp_path_factory.mktemp("odd-version") / "ws", files)


@pytest_lsp.fixture(config=SERVER, scope="module")
async def odd_version_client(lsp_client: LanguageClient, odd_version_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(odd_version_repo))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("kind", list(NOT_STRINGS))
async def test_the_server_warns_of_a_version_that_is_not_a_string(
    odd_version_client: LanguageClient, odd_version_repo: Path, kind: str
) -> None:
    client = odd_version_client
    uri = open_doc(client, odd_version_repo / kind / "a.yaml")
    status = await asyncio.wait_for(client.protocol.send_request_async("agentv/status", {"uri": uri}), 30)
    assert status.runtime.major == 2, status  # passed over: the file's own v2 content decides
    words = f"{kind}/package.json: dependencies agentv is {NOT_STRING_WORDS[kind]}, not a version string"
    for _ in range(100):
        if any(words in m.message for m in client.messages):
            break
        await asyncio.sleep(0.05)
    assert [m.type for m in client.messages if words in m.message] == [lsp.MessageType.Warning], (
        client.messages
    )
