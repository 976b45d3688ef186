"""Merge keys through the real protocol (issue 34): the server's diagnostics on a merge-key file
are the check's (one engine, one reading of the text), and the preview shows the merged test the
runtime loaded (tests/oracle_v4/cases/yaml-merge-keys, recorded from AgentV 4.42.4)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.conftest import accept_registrations, diagnostics_until, open_doc

CASE = Path(__file__).resolve().parents[1] / "oracle_v4" / "cases" / "yaml-merge-keys"
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"])
_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("merge") / "case"
    shutil.copytree(CASE, root, ignore=shutil.ignore_patterns("expected"))
    (root / ".git").mkdir()
    return root


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=workspace.as_uri(), name="case")],
            initialization_options={"settings": {"preview": {"debounceMs": 0}}},
        )
    )
    yield
    await lsp_client.shutdown_session()


def _check(workspace: Path, eval_file: str) -> set[tuple[Any, ...]]:
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v2.check import CheckOptions
    from agentv_lsp.formats.v4.check import check_v4_document

    fs = FileSystem()
    path = str(workspace / eval_file)
    opts = CheckOptions(str(workspace), str(workspace), fs, runtime="4")
    report = check_v4_document(path, fs.read_document(path), opts, as_eval=True)
    return {
        (
            d.span.start_line,
            d.span.start_col,
            d.span.end_line,
            d.span.end_col,
            _SEVERITY[d.severity],
            d.message,
        )
        for d in report.diagnostics
    }


@pytest.mark.parametrize("eval_file", ["evals/merge-problem.eval.yaml", "evals/merge-repeated.eval.yaml"])
async def test_the_server_publishes_what_check_finds(
    client: LanguageClient, workspace: Path, eval_file: str
) -> None:
    uri = open_doc(client, workspace / eval_file)
    published = await asyncio.wait_for(diagnostics_until(client, uri), 20)
    served = {
        (
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            d.severity,
            d.message,
        )
        for d in published
    }
    record = json.loads(
        (CASE / "expected" / (eval_file.replace("/", "__") + ".json")).read_text(encoding="utf-8")
    )
    assert len(served) == len(record["validation"]["issues"])  # validate's findings, nothing about `<<`
    assert served == _check(workspace, eval_file)


async def test_the_preview_shows_the_merged_test(client: LanguageClient, workspace: Path) -> None:
    eval_file = "evals/merge-list.eval.yaml"
    uri = open_doc(client, workspace / eval_file)
    record = json.loads(
        (CASE / "expected" / (eval_file.replace("/", "__") + ".json")).read_text(encoding="utf-8")
    )
    (test,) = record["cases"]
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="agentv.previewCase", arguments=[{"uri": uri, "caseId": test["id"]}])
    )
    assert result is not None
    compared = ("id", "criteria", "expected_output", "lm", "agent")
    assert {k: result[k] for k in compared} == {k: test[k] for k in compared}
