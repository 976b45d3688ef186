"""A real `agentv-lsp serve` process driven by pytest-lsp with VS Code's client capabilities,
over a small eval repository written to a temporary folder."""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"])

EVAL = """\
$schema: agentv-eval-v2
description: Review suite
execution:
  target: default
  evaluators:
    - name: rubric
      type: llm_judge
      prompt: judges/rubric.md
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
  - id: plain-two-turn
    outcome: Reviews.
    input_messages:
      - role: system
        content: You are a reviewer.
      - role: user
        content: Review this
"""

FILES = {
    ".agentv/config.yaml": "$schema: agentv-config-v2\nguideline_patterns:\n  - '**/*.instructions.md'\n",
    ".agentv/targets.yaml": (
        "$schema: agentv-targets-v2.2\ntargets:\n  - name: default\n    provider: mock\n"
        "  - name: azure-gpt\n    provider: azure\n"
    ),
    "evals/code.py": "print(1)\n",
    "evals/rules.instructions.md": "Be terse.\n",
    "evals/judges/rubric.md": "Grade the answer.\n{{ candidate_answer }}\n",
    "evals/review.eval.yaml": EVAL,
}

# The exact LM question of `plain-two-turn` (two visible turns: role markers).
PLAIN_TWO_TURN_QUESTION = "@[System]:\nYou are a reviewer.\n\n@[User]:\nReview this"


INIT_RESULTS: dict[int, lsp.InitializeResult] = {}


def write_repo(root: Path, files: dict[str, str] = FILES) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository per test module (shared by its tests: each opens its own files)."""
    return write_repo(tmp_path_factory.mktemp("repo") / "ws")


def init_params(
    root: Path, settings: Any = None, capabilities: lsp.ClientCapabilities | None = None
) -> lsp.InitializeParams:
    return lsp.InitializeParams(
        capabilities=capabilities or client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"settings": {} if settings is None else settings},
    )


class Registrations(list[lsp.Registration]):
    """What the server registered, and an event set on the first registration."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = asyncio.Event()


def accept_registrations(client: LanguageClient) -> Registrations:
    """Answer client/registerCapability as VS Code does (the test client has no handler)."""
    seen = Registrations()

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def _register(params: lsp.RegistrationParams) -> None:
        seen.extend(params.registrations)
        seen.arrived.set()

    return seen


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    result = await lsp_client.initialize_session(init_params(repo))
    INIT_RESULTS[id(lsp_client)] = result
    yield
    await lsp_client.shutdown_session()


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


_names = itertools.count(1)


def open_eval(client: LanguageClient, repo: Path, text: str = EVAL, folder: str = "evals") -> str:
    """Write `text` to a fresh eval file of the shared repository and open it."""
    path = repo / folder / f"t{next(_names)}.eval.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return open_doc(client, path)


def change_doc(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def edit_doc(
    client: LanguageClient, uri: str, version: int, start: lsp.Position, end: lsp.Position, text: str
) -> None:
    """An incremental change, as VS Code sends while typing."""
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                lsp.TextDocumentContentChangePartial(range=lsp.Range(start=start, end=end), text=text)
            ],
        )
    )


def pos(text: str, needle: str, offset: int = 0) -> lsp.Position:
    """The position of `needle` (plus `offset` characters) in `text` (ASCII texts)."""
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return lsp.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


# How long a test waits for the server before it fails (a lost notification must fail the test,
# never hang the run).
WAIT_SECONDS = 60.0


async def diagnostics_until(
    client: LanguageClient,
    uri: str,
    ready: Callable[[list[lsp.Diagnostic]], bool] = lambda d: True,
    timeout: float = WAIT_SECONDS,
) -> list[lsp.Diagnostic]:
    """The diagnostics published for `uri` once `ready` holds (waits for notifications)."""
    async with asyncio.timeout(timeout):
        while not (uri in client.diagnostics and ready(list(client.diagnostics[uri]))):
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


async def eventually(probe: Callable[[], Any], timeout: float = WAIT_SECONDS, interval: float = 0.02) -> Any:
    """Await `probe()` (a coroutine function) until its answer is truthy; TimeoutError past
    `timeout`. For an effect the server applies asynchronously with nothing published to wait on
    (settings pulled after didChangeConfiguration, a log line among others)."""
    async with asyncio.timeout(timeout):
        while not (answer := await probe()):
            await asyncio.sleep(interval)
    return answer


async def diagnostics_of(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    return await diagnostics_until(client, uri)


def doc_id(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)
