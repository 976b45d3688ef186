"""`agentv/renderedPrompt` through the real protocol: a test's rendered prompt at HEAD against the
unsaved buffer (the two sides of VS Code's "Compare prompt with HEAD"), in a real git repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.conftest import GIT_ENV
from tests.lsp.conftest import accept_registrations, change_doc, open_doc

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"])
pytestmark = pytest.mark.asyncio(loop_scope="module")

SUITE = """\
tests:
  - id: review
    criteria: finds the bug
    input:
      - role: system
        content: You review code.
      - role: user
        content:
          - type: text
            value: Review this function
          - type: file
            value: snippets/a.py
  - id: greet
    criteria: greets
    input: Say hello
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diffrepo") / "ws"
    (root / "evals" / "snippets").mkdir(parents=True)
    (root / "evals" / "snippets" / "a.py").write_text("def a():\n    return 1\n")
    (root / "evals" / "suite.eval.yaml").write_text(SUITE)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)
    return root


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=repo.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=repo.as_uri(), name="ws")],
            initialization_options={"settings": {}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def rendered(client: LanguageClient, uri: str, test_id: str, side: str) -> dict[str, Any]:
    result = await client.protocol.send_request_async(
        "agentv/renderedPrompt", {"uri": uri, "testId": test_id, "side": side}
    )
    if isinstance(result, dict):
        return result
    # pygls hands back an object with the fields of the JSON answer
    return {name: getattr(result, name) for name in ("text", "label", "error") if hasattr(result, name)}


async def test_the_unsaved_buffer_against_head(client: LanguageClient, repo: Path) -> None:
    path = repo / "evals" / "suite.eval.yaml"
    uri = open_doc(client, path)
    change_doc(client, uri, 2, SUITE.replace("Review this function", "Review this function carefully"))

    head = await rendered(client, uri, "review", "head")
    buffer = await rendered(client, uri, "review", "buffer")

    assert "error" not in head and "error" not in buffer
    head_text, buffer_text = head["text"], buffer["text"]
    assert "## question (LM)\nYou review code." not in head_text  # the system text is its own field
    assert "Review this function\n" in head_text and "carefully" not in head_text
    assert "Review this function carefully" in buffer_text
    assert "def a():\n    return 1" in head_text and "def a():\n    return 1" in buffer_text
    assert "tokens (o200k_base):" in head_text
    # the two documents differ exactly in the edited line(s), the rest is the same prompt
    changed = set(head_text.splitlines()) ^ set(buffer_text.splitlines())
    assert changed and all(
        "Review this function" in line or "tokens (o200k_base)" in line for line in changed
    )
    assert path.read_text() == SUITE  # nothing written to the file
    unknown = await rendered(client, uri, "no-such-test", "head")
    assert unknown["text"] == "# no test loads with this id\n" and unknown["label"] == head["label"]
    bad = await rendered(client, uri, "review", "sideways")
    assert "error" in bad


async def test_each_test_has_a_compare_prompt_with_head_lens(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals" / "suite.eval.yaml")
    lenses = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    resolved = [await client.code_lens_resolve_async(lens) for lens in lenses or []]
    compare = [
        r.command for r in resolved if r.command and r.command.command == "agentv.comparePromptWithHead"
    ]
    assert [c.title for c in compare] == ["⇄ Compare prompt with HEAD"] * 2
    assert [list(c.arguments or []) for c in compare] == [
        [{"uri": uri, "caseId": "review"}],
        [{"uri": uri, "caseId": "greet"}],
    ]


async def test_the_text_is_the_prompt_alone_and_the_label_names_the_side(
    client: LanguageClient, repo: Path
) -> None:
    """Issue 36 item 2: an unchanged prompt is the same text on both sides (line 1 named the
    side, so the compare view showed it changed); the side's name is the `label`."""
    uri = open_doc(client, repo / "evals" / "suite.eval.yaml")
    commit = subprocess.run(
        ["git", "rev-parse", "--short=7", "HEAD"],
        cwd=repo,
        env=GIT_ENV,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    for test_id in ("review", "greet"):
        head = await rendered(client, uri, test_id, "head")
        buffer = await rendered(client, uri, test_id, "buffer")
        assert head["label"] == f"HEAD ({commit})" and buffer["label"] == "unsaved buffer"
        assert head["text"] == buffer["text"]
        assert head["text"].splitlines()[0] == f"# {test_id} (evals/suite.eval.yaml)"
        assert "HEAD" not in head["text"] and "unsaved buffer" not in buffer["text"]


async def test_a_field_a_test_does_not_have_is_left_out(client: LanguageClient, repo: Path) -> None:
    """'greet' has no expected_output and no assertions: no `[]` under their headings, no heading."""
    uri = open_doc(client, repo / "evals" / "suite.eval.yaml")
    text = (await rendered(client, uri, "greet", "head"))["text"]
    assert "## criteria\ngreets" in text
    assert "## expected_output" not in text and "## assertions" not in text
    assert "[]" not in text.splitlines()
