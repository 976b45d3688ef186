"""The server takes in its own migration edit (`features/workspace_edits.py`), through the real
protocol, with the client doing what VS Code does when the action is applied: the document's
text replaced, the file renamed (close the old uri, open the new one), the grader prompt edited
in a buffer the server never sees (not saved yet).

Ground truth is `agentv-lsp check` / `preview --json` on the files as the edit leaves them on
disk once saved, and v2's own case ids for the original file."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.conftest import accept_registrations, change_doc, diagnostics_until, doc_id, open_doc
from tests.lsp.test_v4_actions import V2_EVAL, V4_PROJECT, apply_edits, migrate, text_edits, v2_case_ids

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"])

pytestmark = pytest.mark.asyncio(loop_scope="module")

LENS_REFRESHES: list[None] = []
MIGRATED: list[Any] = []


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("edits") / "ws"
    (root / ".git").mkdir(parents=True)
    for name, text in V4_PROJECT.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)

    @lsp_client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(params: Any) -> None:
        LENS_REFRESHES.append(None)

    @lsp_client.feature("agentv/migrated")
    def _migrated(params: Any) -> None:
        MIGRATED.append(params)

    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"settings": {}},
        )
    )
    yield
    await lsp_client.shutdown_session()


def cli(root: Path, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", *args], cwd=root, capture_output=True, text=True, timeout=120
    )
    return json.loads(done.stdout)


async def command(client: LanguageClient, name: str, argument: dict[str, Any]) -> Any:
    return await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=name, arguments=[argument])
    )


async def _until(client: LanguageClient, ready: Any, method: str) -> None:
    while not ready():
        await client.wait_for_notification(method)


def plain(value: Any) -> Any:
    """A custom notification's params as JSON values (pygls gives named tuples)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def skipped_lenses(lenses: list[lsp.CodeLens] | None) -> list[str]:
    return [
        lens.command.title for lens in lenses or [] if lens.command and "skip" in lens.command.title.lower()
    ]


async def test_the_migrate_command_takes_in_the_rename_and_the_rewritten_grader_prompt(
    client: LanguageClient, workspace: Path
) -> None:
    old = workspace / "evals" / "legacy.yaml"  # 4.x would not find it: the edit renames it
    old.write_text(V2_EVAL)
    old_uri = open_doc(client, old)
    expected_ids = v2_case_ids(old)
    action = await migrate(client, old_uri, [])
    assert action.edit is not None
    renames = [c for c in action.edit.document_changes or [] if isinstance(c, lsp.RenameFile)]
    (rename,) = renames
    new = Path(rename.new_uri.removeprefix("file://"))
    new_text = apply_edits(V2_EVAL, text_edits(action.edit, old_uri))
    others = {
        Path(c.text_document.uri.removeprefix("file://")): c
        for c in action.edit.document_changes or []
        if isinstance(c, lsp.TextDocumentEdit) and c.text_document.uri != old_uri
    }
    grader = workspace / "evals" / "judges" / "strict.md"
    assert list(others) == [grader]

    # what VS Code does: the text replaced, the file renamed on disk (closed, opened under the
    # new name), the grader prompt edited in a buffer the server does not see and not saved
    # 4.x judges the file; the grader prompt on disk (v2 variables) would make it skip every test
    refreshes = len(LENS_REFRESHES)
    change_doc(client, old_uri, 2, new_text)
    old.rename(new)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=doc_id(old_uri)))
    new_uri = open_doc(client, new, new_text)
    await asyncio.wait_for(_until(client, lambda: bool(MIGRATED), "agentv/migrated"), 60)
    (result,) = [
        plain(m) for m in MIGRATED
    ]  # once, though the text arrived twice (changed, then opened renamed)
    assert result["file"] == "evals/" + new.name and result["renamedFrom"] == "evals/legacy.yaml"
    assert result["uri"] == new_uri and result["oldUri"] == old_uri
    assert [o["file"] for o in result["otherFiles"]] == ["evals/judges/strict.md"]
    assert grader.read_text() == V4_PROJECT["evals/judges/strict.md"]  # still the v2 text on disk
    new.write_text(new_text)  # the eval file saved; the grader prompt not yet
    premise = cli(workspace, "check", "--format", "json", str(new.relative_to(workspace)))
    assert any(d["code"] == "v4-skipped-test-graders" for d in premise["diagnostics"])

    after = await asyncio.wait_for(
        diagnostics_until(
            client, new_uri, lambda ds: not any(d.code == "v4-skipped-test-graders" for d in ds)
        ),
        60,
    )
    assert len(LENS_REFRESHES) > refreshes  # code lenses asked for again
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(new_uri)))
    assert not skipped_lenses(lenses)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=doc_id(new_uri))
    )
    assert symbols and not any("skip" in (getattr(s, "detail", "") or "").lower() for s in symbols)
    preview = await command(client, "agentv.previewFile", {"uri": new_uri})
    assert [c["id"] for c in preview["cases"]] == expected_ids
    status = plain(await client.protocol.send_request_async("agentv/status", {"uri": new_uri}))
    assert status["runtime"]["version"].startswith("4.")

    # the ground truth: the CLI on the files as the edit leaves them once saved
    grader.write_text(apply_edits(grader.read_text(), list(others[grader].edits)))  # type: ignore[arg-type]
    checked = cli(workspace, "check", "--format", "json", str(new.relative_to(workspace)))
    assert sorted((d["code"], d["range"]["start"]["line"]) for d in checked["diagnostics"]) == sorted(
        (str(d.code), d.range.start.line) for d in after
    )
    assert [c["id"] for c in cli(workspace, "preview", "--json", str(new))["cases"]] == expected_ids

    # the per-test proof, as `agentv-lsp migrate` gives it
    proof = plain(await command(client, "agentv.migrationProof", {"uri": new_uri}))
    assert proof["title"].endswith(new.name)
    for test_id in expected_ids:
        assert (
            f"`{test_id}`: **unchanged**" in proof["markdown"]
            or f"`{test_id}`: **changed**" in proof["markdown"]
        )


async def test_other_texts_are_not_taken_for_a_migration(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "evals" / "kept.eval.yaml"
    path.write_text(V2_EVAL)
    uri = open_doc(client, path)
    action = await migrate(client, uri, [])
    assert action.edit is not None
    count = len(MIGRATED)
    almost = apply_edits(V2_EVAL, text_edits(action.edit, uri)) + "\n"  # not the migrated text
    change_doc(client, uri, 2, almost)
    await diagnostics_until(client, uri)
    assert len(MIGRATED) == count
    assert await command(client, "agentv.migrationProof", {"uri": uri}) is None
