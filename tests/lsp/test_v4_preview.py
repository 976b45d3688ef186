"""AgentV 4.42.4 documents through the real protocol: `agentv.previewCase` /
`agentv.previewFile` and `agentv/status`, compared with what the runtime itself produced
(the recorded golden folders of /work/shared/golden-v4, each opened as its own workspace
folder with its own `.git`, as `compare.py` runs them).

The other `test_v4_*` modules reuse this module's fixtures and helpers."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.conftest import accept_registrations, change_doc, open_doc

GOLDEN = Path("/work/shared/golden-v4/cases")
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"])

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not GOLDEN.is_dir(), reason="the golden-v4 folders are not on this machine"),
]


def golden_cases() -> list[str]:
    return sorted(p.name for p in GOLDEN.iterdir() if (p / "expected").is_dir()) if GOLDEN.is_dir() else []


def eval_files(case: str) -> list[str]:
    """The eval files the runtime was run on (repo-relative), from the recording."""
    found: list[str] = json.loads((GOLDEN / case / "expected" / "_case.json").read_text())["eval_files"]
    return found


def expected(workspace: Path, case: str, eval_file: str) -> dict[str, Any]:
    """The runtime's recording for one eval file, `<ROOT>` replaced by the copy's path."""
    text = (GOLDEN / case / "expected" / (eval_file.replace("/", "__") + ".json")).read_text()
    root = json.dumps(str(workspace / case))[1:-1]
    found: dict[str, Any] = json.loads(text.replace("<ROOT>", root))
    return found


def golden_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every golden folder copied (without `expected/`), each with its own `.git`."""
    root = tmp_path_factory.mktemp("v4") / "ws"
    for case in golden_cases():
        shutil.copytree(GOLDEN / case, root / case, ignore=shutil.ignore_patterns("expected"))
        (root / case / ".git").mkdir(exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    return root


async def start_session(lsp_client: LanguageClient, workspace: Path) -> None:
    """`initialize` with one workspace folder per golden folder (each its own repository)."""
    accept_registrations(lsp_client)
    folders = [lsp.WorkspaceFolder(uri=(workspace / c).as_uri(), name=c) for c in golden_cases()]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=folders,
            initialization_options={"settings": {"preview": {"debounceMs": 0}}},
        )
    )


def golden_session_fixtures() -> tuple[Any, Any]:
    """The module-scoped `workspace` and `client` fixtures over every golden folder; each
    `test_v4_*` module binds them under those names (`workspace, client = ...`)."""

    @pytest.fixture(scope="module")
    def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return golden_workspace(tmp_path_factory)

    @pytest_lsp.fixture(config=SERVER, scope="module")
    async def client(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
        await start_session(lsp_client, workspace)
        yield
        await lsp_client.shutdown_session()

    return workspace, client


workspace, client = golden_session_fixtures()


async def command(client: LanguageClient, name: str, target: dict[str, Any]) -> Any:
    return await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=name, arguments=[target])
    )


COMPARED = (
    "id",
    "conversation_id",
    "criteria",
    "expected_output",
    "reference_answer",
    "file_paths",
    "lm",
    "agent",
)
V4_CASES = [c for c in golden_cases() if c != "v2-file"]


@pytest.mark.parametrize("case", V4_CASES)
async def test_preview_case_matches_the_runtime(client: LanguageClient, workspace: Path, case: str) -> None:
    for eval_file in eval_files(case):
        golden = expected(workspace, case, eval_file)
        uri = open_doc(client, workspace / case / eval_file)
        first_by_id: dict[str, dict[str, Any]] = {}
        for test in golden["cases"]:
            first_by_id.setdefault(test["id"], test)
        for test_id, test in first_by_id.items():
            result = await command(client, "agentv.previewCase", {"uri": uri, "caseId": test_id})
            assert result is not None, f"{case}/{eval_file}: no preview for {test_id}"
            assert {k: result[k] for k in COMPARED} == {k: test[k] for k in COMPARED}, f"{case}/{test_id}"
            assert result["systemMessage"] == test["lm"]["systemMessage"]
            assert result["runtime"] == "4.42.4"


@pytest.mark.parametrize("case", V4_CASES)
async def test_preview_file_matches_the_runtime(client: LanguageClient, workspace: Path, case: str) -> None:
    for eval_file in eval_files(case):
        golden = expected(workspace, case, eval_file)
        uri = open_doc(client, workspace / case / eval_file)
        result = await command(client, "agentv.previewFile", {"uri": uri})
        assert result is not None
        assert (result["load_error"] is None) == (golden["load_error"] is None), result["load_error"]
        got = [{k: c[k] for k in COMPARED} for c in result["cases"]]
        assert got == [{k: c[k] for k in COMPARED} for c in golden["cases"]]


async def test_preview_by_position_and_from_unsaved_text(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "message-list-system-user" / "evals" / "conv.eval.yaml"
    text = path.read_text()
    golden = expected(workspace, "message-list-system-user", "evals/conv.eval.yaml")["cases"][0]
    uri = open_doc(client, path)
    line = text.split("\n").index("      - role: user")  # inside the first test, not on its id
    at = await command(client, "agentv.previewCase", {"uri": uri, "position": {"line": line, "character": 4}})
    assert at["id"] == golden["id"] and at["lm"] == golden["lm"]
    change_doc(client, uri, 2, text.replace("Name a prime number.", "Name an even prime."))
    edited = await command(client, "agentv.previewCase", {"uri": uri, "caseId": golden["id"]})
    assert edited["lm"]["question"] == golden["lm"]["question"].replace(
        "Name a prime number.", "Name an even prime."
    )
    skipped = await command(client, "agentv.previewCase", {"uri": uri, "caseId": "user-only-list"})
    # the runtime printed "Skipping incomplete test: user-only-list …" and did not load it
    assert skipped["error"].startswith("AgentV skips this test")
    assert all(
        c["id"] != "user-only-list"
        for c in expected(workspace, "message-list-system-user", "evals/conv.eval.yaml")["cases"]
    )


async def test_status_says_which_runtime_judged_the_document(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "string-input" / eval_files("string-input")[0])
    status = await client.protocol.send_request_async("agentv/status", {"uri": uri})
    assert status.kind == "eval" and status.runtime.major == 4 and status.runtime.version == "4.42.4"
    assert "not in the v2 format" in status.runtime.reason
    assert status.cases == len(expected(workspace, "string-input", eval_files("string-input")[0])["cases"])
    v2 = open_doc(client, workspace / "v2-file" / eval_files("v2-file")[0])
    v2_status = await client.protocol.send_request_async("agentv/status", {"uri": v2})
    assert v2_status.runtime.major == 2 and "v2 format" in v2_status.runtime.reason


async def test_the_runtime_setting_switches_open_documents(client: LanguageClient, workspace: Path) -> None:
    uri = open_doc(client, workspace / "string-input" / eval_files("string-input")[0])
    assert (await client.protocol.send_request_async("agentv/status", {"uri": uri})).runtime.major == 4
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"agentv": {"runtime": "2"}})
    )
    status = await client.protocol.send_request_async("agentv/status", {"uri": uri})
    assert status.runtime.major == 2 and status.runtime.reason == "asked for AgentV 2"
    assert (
        await command(client, "agentv.previewCase", {"uri": uri, "caseId": "add"}) is None
    )  # v2 loads no test
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"agentv": {"runtime": "auto"}})
    )
    status = await client.protocol.send_request_async("agentv/status", {"uri": uri})
    assert status.runtime.major == 4
