"""Diagnostics for AgentV 4.42.4 documents through the real protocol: every location
`agentv validate` 4.42.4 reported (golden-v4 recordings) gets a diagnostic from the unsaved
text; other YAML files in a 4.x workspace get nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import change_doc, diagnostics_until, open_doc
from tests.lsp.test_v4_preview import (
    GOLDEN,
    V4_CASES,
    eval_files,
    expected,
    golden_session_fixtures,
)

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not GOLDEN.is_dir(), reason="the golden-v4 folders are not on this machine"),
]


workspace, client = golden_session_fixtures()


def paths(diagnostics: list[lsp.Diagnostic]) -> set[str]:
    return {str(d.data.get("path")) for d in diagnostics if isinstance(d.data, dict)}


@pytest.mark.parametrize("case", V4_CASES)
async def test_every_validate_finding_is_published(
    client: LanguageClient, workspace: Path, case: str
) -> None:
    for eval_file in eval_files(case):
        golden = expected(workspace, case, eval_file)
        uri = open_doc(client, workspace / case / eval_file)
        diagnostics = await asyncio.wait_for(diagnostics_until(client, uri), 20)
        locations = {i["location"] for i in golden["validation"]["issues"] if i["location"]}
        assert locations <= paths(diagnostics), (case, eval_file)
        errors = [d for d in diagnostics if d.severity == lsp.DiagnosticSeverity.Error]
        if golden["load_error"] is not None:
            assert errors, f"{case}: the runtime cannot load {eval_file}: {golden['load_error']}"
        elif golden["validation"]["exit_code"] == 0 and not golden["warnings"]:
            assert not errors, f"{case}: clean for the runtime, got {[d.message for d in errors]}"


async def test_edits_are_checked_and_other_yaml_gets_nothing(client: LanguageClient, workspace: Path) -> None:
    root = workspace / "errors-types-duplicates"
    # Not eval files for 4.x: no diagnostics at all, not even "file type not recognized"
    quiet = [
        open_doc(client, root / "compose.yaml", "services:\n  web:\n    image: nginx\n"),
        open_doc(client, root / "evals" / "notes.yaml", "tests:\n  - id: x\n    input: 42\n"),
    ]
    path = root / eval_files("errors-types-duplicates")[0]
    text = path.read_text()
    uri = open_doc(client, path)
    role = "tests[2].input[0].role"  # `usr`: "Invalid role 'usr'" from agentv validate
    await asyncio.wait_for(diagnostics_until(client, uri, lambda d: role in paths(d)), 20)
    change_doc(client, uri, 2, text.replace("role: usr", "role: user"))
    await asyncio.wait_for(diagnostics_until(client, uri, lambda d: role not in paths(d)), 20)
    for other in quiet:
        assert not client.diagnostics.get(other)
