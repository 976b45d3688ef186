"""Red Hat's YAML extension beside ours (issue 27): yaml-language-server, the engine of
vscode-yaml, run over stdio with the schema associations our extension contributes (its
`yamlValidation`, sent as vscode-yaml sends them), must show nothing on valid 4.x eval files
and on plain YAML under `evals/`; on a v2 file it reads `$schema: agentv-eval-v2` as a schema
URL (ahead of anything an extension can contribute), and our server's quick fix for that
warning (a `$schema=none` modeline) leaves the file clean.

Needs Node and yaml-language-server: `npm install yaml-language-server@1.25.0` in
`$AGENTV_E2E_CACHE/yls` (default `~/.cache/agentv-lsp-e2e/yls`) or `$AGENTV_YLS_MODULES`
pointing at a node_modules folder; skipped without them."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

REPO = Path(__file__).resolve().parents[2]
PACKAGE_JSON = REPO / "vscode-client" / "package.json"

V4_EVAL = (REPO / "examples" / "agentv4" / "evals" / "code-review.eval.yaml").read_text()
V2_EVAL = (REPO / "examples" / "evals" / "code-review.eval.yaml").read_text()
PLAIN = "users:\n  - name: ada\n    role: admin\n  - name: bob\n"


def _yls_bin() -> Path | None:
    modules = os.environ.get("AGENTV_YLS_MODULES")
    cache = Path(os.environ.get("AGENTV_E2E_CACHE", Path.home() / ".cache" / "agentv-lsp-e2e"))
    folder = Path(modules) if modules else cache / "yls" / "node_modules"
    found = folder / "yaml-language-server" / "bin" / "yaml-language-server"
    return found if found.is_file() and shutil.which("node") else None


def _associations() -> list[dict[str, Any]]:
    """What vscode-yaml's `getSchemaAssociations` sends for our package.json (`yamlValidation`)."""
    package = json.loads(PACKAGE_JSON.read_text())
    out = []
    for entry in package["contributes"].get("yamlValidation", []):
        matches = entry["fileMatch"] if isinstance(entry["fileMatch"], list) else [entry["fileMatch"]]
        url = (PACKAGE_JSON.parent / entry["url"]).resolve().as_uri()
        out.append({"fileMatch": [m if m.startswith("/") else f"/{m}" for m in matches], "uri": url})
    return out


async def _client(command: list[str], root: Path, options: Any = None) -> LanguageClient:
    client = make_test_lsp_client()
    await client.start_io(*command)
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options=options,
        )
    )
    return client


async def _diagnostics(client: LanguageClient, uri: str, text: str, version: int = 1) -> list[lsp.Diagnostic]:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=version, text=text)
        )
    )
    while uri not in client.diagnostics:
        await asyncio.wait_for(client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 60)
    found = list(client.diagnostics.pop(uri))
    client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    return found


def _check(root: Path, name: str) -> list[tuple[str, str]]:
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "check", "--format", "json", name],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = json.loads(done.stdout)["diagnostics"]
    return [(d["code"], d["message"]) for d in found]


def _workspace(root: Path) -> dict[str, str]:
    files = {
        "package.json": '{"devDependencies": {"agentv": "4.42.4"}}\n',
        "evals/review.eval.yaml": V4_EVAL,
        "evals/fixtures/data.yaml": PLAIN,
        "legacy/evals/code-review.yaml": V2_EVAL,
    }
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return files


@pytest.mark.asyncio
async def test_yaml_language_server_beside_our_extension(tmp_path: Path) -> None:
    yls = _yls_bin()
    if yls is None:
        if os.environ.get("CI"):
            pytest.fail("yaml-language-server is not installed (see this module's docstring)")
        pytest.skip("yaml-language-server is not installed (npm install yaml-language-server@1.25.0)")
    root = tmp_path / "ws"
    files = _workspace(root)
    for name in ("snippets", "judges"):  # what the examples refer to
        for source in (REPO / "examples" / "agentv4" / "evals" / name, REPO / "examples" / "evals" / name):
            if source.is_dir():
                target = root / ("evals" if "agentv4" in source.parts else "legacy/evals") / name
                shutil.copytree(source, target, dirs_exist_ok=True)
    red_hat = await _client(["node", str(yls), "--stdio"], root)
    ours = await _client([sys.executable, "-m", "agentv_lsp", "serve"], root, {"settings": {}})
    try:
        settings = {
            "yaml": {"validate": True, "hover": True, "completion": True, "schemaStore": {"enable": False}}
        }
        red_hat.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=settings))
        associations = _associations()
        # (the same meaning as vscode-yaml's empty list; an empty list would reach the server as no argument)
        red_hat.protocol.notify("json/schemaAssociations", associations or {})

        for name in ("evals/review.eval.yaml", "evals/fixtures/data.yaml"):
            shown = await _diagnostics(red_hat, (root / name).as_uri(), files[name])
            assert shown == [], (name, [d.message for d in shown])

        # a v2 file: the YAML extension takes `$schema: agentv-eval-v2` for a file next to it
        name = "legacy/evals/code-review.yaml"
        uri = (root / name).as_uri()
        (failure,) = await _diagnostics(red_hat, uri, files[name])
        assert (
            failure.message.startswith("Unable to load schema from") and "agentv-eval-v2" in failure.message
        )

        # our server offers the fix for that warning, and with it applied the file is clean
        ours.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=files[name])
            )
        )
        actions = await ours.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                range=failure.range,
                context=lsp.CodeActionContext(diagnostics=[failure]),
            )
        )
        fixes = [
            a
            for a in actions or []
            if isinstance(a, lsp.CodeAction) and [d.message for d in a.diagnostics or []] == [failure.message]
        ]
        assert len(fixes) == 1, [(a.title, failure.message) for a in actions or []]
        assert fixes[0].edit is not None and fixes[0].edit.changes is not None
        (edit,) = fixes[0].edit.changes[uri]
        assert edit.range.start == edit.range.end == lsp.Position(line=0, character=0)
        fixed = edit.new_text + files[name]
        shown = await _diagnostics(red_hat, uri, fixed, version=2)
        assert shown == [], [d.message for d in shown]
        # and AgentV reads the file as before: the modeline is a comment
        before = _check(root, name)
        (root / name).write_text(fixed)
        assert _check(root, name) == before
    finally:
        await red_hat.shutdown_session()
        await ours.shutdown_session()
