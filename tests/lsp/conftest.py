"""A real `agentv-lsp serve` process driven by pytest-lsp with VS Code's client capabilities,
over a small eval repository written to a temporary folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

EVAL = """\
$schema: agentv-eval-v2
execution:
  target: default
evalcases:
  - id: two-turn
    outcome: The reviewer answers.
    input_messages:
      - role: system
        content: You are a reviewer.
      - role: user
        content:
          - type: text
            value: Review this
          - type: file
            value: code.py
          - type: file
            value: rules.instructions.md
  - id: flat-one
    outcome: Answer.
    input_messages:
      - role: usr
        content: Hi
"""

FILES = {
    ".agentv/config.yaml": "$schema: agentv-config-v2\nguideline_patterns:\n  - '**/*.instructions.md'\n",
    ".agentv/targets.yaml": "$schema: agentv-targets-v2.2\ntargets:\n  - name: default\n    provider: mock\n",
    "evals/code.py": "print(1)\n",
    "evals/rules.instructions.md": "Be terse.\n",
    "evals/review.eval.yaml": EVAL,
}


def write_repo(root: Path, files: dict[str, str] = FILES) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "ws")


def init_params(root: Path, settings: dict[str, Any] | None = None) -> lsp.InitializeParams:
    return lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"settings": settings or {}},
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"]))
async def client(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(repo))
    yield
    await lsp_client.shutdown_session()


def accept_registrations(client: LanguageClient) -> None:
    """Answer client/registerCapability as VS Code does (the test client has no handler)."""

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def _register(params: lsp.RegistrationParams) -> None:
        return None


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri, language_id="yaml", version=version, text=path.read_text() if text is None else text
            )
        )
    )
    return uri


async def diagnostics_of(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    while True:
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if uri in client.diagnostics:
            return client.diagnostics[uri]
