"""The seam between the formats, server half (issue 37): a third format registered from a
fixture package (`tests/third_format/toy`, its `EditorFormat` in `editor.py`) is served by an
unchanged server, started through a wrapper (`toy/serve.py`) that registers it: diagnostics
from its check, a hover from its preview, and the built-in formats' files still theirs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.formats import registry
from agentv_lsp.formats.runtime import choose_runtime
from agentv_lsp.lsp import editor
from agentv_lsp.lsp.base import DocumentModel
from agentv_lsp.yamlpos import parse_yaml
from tests.lsp.rawrpc import RawClient
from tests.third_format.toy.editor import TOY_EDITOR, ToyModel, register

REPO = Path(__file__).resolve().parents[2]

TOY = """\
$schema: toy-eval
cases:
  - id: greet
    input: Say hello to the user.
  - id: broken
    note: no input here
"""


@pytest.fixture
def toy_server(tmp_path: Path) -> Iterator[tuple[RawClient, Path]]:
    env = dict(os.environ)
    # the worktree's code, and `tests.` for the wrapper, whatever the caller's PYTHONPATH
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "server"), str(REPO), env.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.third_format.toy.serve"],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    client = RawClient(process.stdout, process.stdin)
    try:
        client.initialize(tmp_path.as_uri())
        yield client, tmp_path
    finally:
        process.kill()
        process.wait(timeout=30)


def _open(client: RawClient, path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    )
    return uri


def test_the_server_publishes_the_toy_formats_diagnostics(toy_server: tuple[RawClient, Path]) -> None:
    client, root = toy_server
    uri = _open(client, root / "greetings.toy.yaml", TOY)
    published: Any = client.notification(
        "textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p["diagnostics"]
    )
    codes = [(d["code"], d["range"]["start"]["line"]) for d in published["diagnostics"]]
    assert codes == [("toy-input", 4)]  # the second case (line 4: `- id: broken`) has no input


def test_the_server_hovers_a_toy_case_with_its_question(toy_server: tuple[RawClient, Path]) -> None:
    client, root = toy_server
    uri = _open(client, root / "greetings.toy.yaml", TOY)
    reply = client.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 6}}
    )
    value = reply["result"]["contents"]["value"]
    assert "**greet** asks" in value and "Say hello to the user." in value
    outside = client.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}
    )
    assert outside["result"] is None
    without_input = client.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 6}}
    )
    assert without_input["result"] is None


def test_a_4x_file_is_still_read_by_4x_beside_the_toy_format(toy_server: tuple[RawClient, Path]) -> None:
    client, root = toy_server
    uri = _open(client, root / "suite.eval.yaml", "tests:\n  - id: one\n    criteria: Greets.\n")
    published: Any = client.notification(
        "textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p["diagnostics"]
    )
    assert all(d["code"].startswith("v4-") for d in published["diagnostics"]), published


def test_the_registries_give_a_toy_text_to_the_toy_format_only_once_registered(tmp_path: Path) -> None:
    path = str(tmp_path / "a.yaml")  # a folder naming no AgentV: the file's declaration decides
    before = choose_runtime(path, TOY, str(tmp_path))
    assert before.name == "v4" and editor.format_for(before, path, TOY).name == "v4"
    register()
    try:
        choice = choose_runtime(path, TOY, str(tmp_path))
        assert choice.name == "toy" and editor.format_for(choice, path, TOY) is TOY_EDITOR
        four = choose_runtime(str(tmp_path / "a.eval.yaml"), "tests: []\n", str(tmp_path))
        assert editor.format_for(four, path, "tests: []\n").name == "v4"
        model: DocumentModel = ToyModel(path, TOY, parse_yaml(TOY))
        assert editor.format_of(model) is TOY_EDITOR
    finally:
        editor.unregister(TOY_EDITOR)
        registry.unregister("toy")
    after = choose_runtime(path, TOY, str(tmp_path))
    assert after.name == "v4" and editor.format_for(after, path, TOY).name == "v4"
