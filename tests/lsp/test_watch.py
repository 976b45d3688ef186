"""workspace/didChangeWatchedFiles (registered dynamically) and didSave of setup files: open
eval files are checked again against what changed on disk."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    EVAL,
    SERVER,
    Registrations,
    accept_registrations,
    diagnostics_until,
    doc_id,
    init_params,
    open_doc,
    open_eval,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
REGISTRATIONS: list[Registrations] = []


@pytest_lsp.fixture(config=SERVER, scope="module")
async def watching(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    REGISTRATIONS.append(accept_registrations(lsp_client))
    await lsp_client.initialize_session(init_params(repo))
    yield
    await lsp_client.shutdown_session()


def changed(
    client: LanguageClient, path: Path, kind: lsp.FileChangeType = lsp.FileChangeType.Changed
) -> None:
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(uri=path.as_uri(), type=kind)])
    )


def codes(diagnostics: list[lsp.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diagnostics}


async def test_watchers_are_registered_for_setup_and_referenced_files(watching: LanguageClient) -> None:
    await asyncio.wait_for(REGISTRATIONS[0].arrived.wait(), 10)
    (registration,) = [r for r in REGISTRATIONS[0] if r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    patterns = {w["globPattern"] for w in registration.register_options["watchers"]}  # type: ignore[index]
    assert {"**/.agentv/*.yaml", "**/targets.yaml"} <= patterns


async def test_a_changed_config_rechecks_open_eval_files(watching: LanguageClient, repo: Path) -> None:
    uri = open_eval(watching, repo)
    await diagnostics_until(watching, uri, lambda d: "guideline-extracted" in codes(d))
    config = repo / ".agentv/config.yaml"
    before = config.read_text()
    config.write_text("$schema: agentv-config-v2\nguideline_patterns: []\n")
    changed(watching, config)
    await diagnostics_until(watching, uri, lambda d: "guideline-extracted" not in codes(d))
    config.write_text(before)
    changed(watching, config)
    await diagnostics_until(watching, uri, lambda d: "guideline-extracted" in codes(d))


async def test_a_created_reference_clears_file_not_found(watching: LanguageClient, repo: Path) -> None:
    uri = open_eval(watching, repo, EVAL.replace("value: code.py", "value: later.py"))
    await diagnostics_until(watching, uri, lambda d: "file-not-found" in codes(d))
    created = repo / "evals/later.py"
    created.write_text("x = 1\n")
    changed(watching, created, lsp.FileChangeType.Created)
    await diagnostics_until(watching, uri, lambda d: "file-not-found" not in codes(d))
    hover = await watching.text_document_hover_async(
        lsp.HoverParams(text_document=doc_id(uri), position=lsp.Position(line=19, character=22))
    )
    assert hover is not None and "x = 1" in str(hover.contents)


async def test_saving_the_targets_file_rechecks_eval_files(watching: LanguageClient, repo: Path) -> None:
    uri = open_eval(watching, repo, EVAL.replace("target: default", "target: azure-gpt"))
    await diagnostics_until(watching, uri, lambda d: "validate-role" in codes(d))
    targets = repo / ".agentv/targets.yaml"
    text = "$schema: agentv-targets-v2.2\ntargets:\n  - name: default\n    provider: mock\n"
    targets_uri = open_doc(watching, targets, text)
    targets.write_text(text)
    watching.text_document_did_save(lsp.DidSaveTextDocumentParams(text_document=doc_id(targets_uri)))
    diagnostics = await diagnostics_until(watching, uri, lambda d: "target-unknown" in codes(d))
    unknown = next(d for d in diagnostics if d.code == "target-unknown")
    assert unknown.data["expected"] == ["default"]
