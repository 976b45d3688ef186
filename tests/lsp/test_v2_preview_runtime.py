"""A v2 preview names the runtime that judges it, as a 4.x one does (issue 27: the panel's badge),
and it is the runtime `agentv-lsp preview --json` names for the same file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_eval

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_v2_previews_name_their_runtime(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    path = uri.removeprefix("file://")
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "preview", path, "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    expected = json.loads(done.stdout)["runtime"]
    assert expected.startswith("2")
    for command, argument in (
        ("agentv.previewCase", {"uri": uri, "caseId": "two-turn"}),
        ("agentv.previewFile", {"uri": uri}),
    ):
        found = await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=command, arguments=[argument])
        )
        runtime = found["runtime"] if isinstance(found, dict) else found.runtime
        assert runtime == expected, (command, runtime)
