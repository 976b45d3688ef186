"""Eval files with other names through the real protocol (issue 26): `agentv.evalFilePatterns`
names them (as `check --eval-glob`), `eval.yaml` and the project's `eval_patterns` are eval
files without it; YAML that merely mentions AgentV gets nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    SERVER,
    accept_registrations,
    diagnostics_until,
    init_params,
    open_doc,
    write_repo,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

NO_TESTS = "name: x\n"
FILES = {
    "skills/review/EVAL.yaml": NO_TESTS,  # named by the setting
    "skills/other/EVAL.yml": NO_TESTS,  # not named: nothing
    "suites/eval.yaml": NO_TESTS,  # `agentv eval run suites` runs it
    "deploy/docker-compose.yml": "services:\n  runner:\n    image: ghcr.io/x/agentv-runner\n",
}


@pytest.fixture(scope="module")
def named_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_repo(tmp_path_factory.mktemp("names") / "ws", FILES)


@pytest_lsp.fixture(config=SERVER, scope="module")
async def named(lsp_client: LanguageClient, named_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    settings = {"runtime": "4", "evalFilePatterns": ["**/EVAL.yaml"]}
    await lsp_client.initialize_session(init_params(named_repo, settings))
    yield
    await lsp_client.shutdown_session()


def errors(diagnostics: list[lsp.Diagnostic]) -> list[lsp.Diagnostic]:
    return [d for d in diagnostics if d.severity == lsp.DiagnosticSeverity.Error]


@pytest.mark.parametrize("name", ["skills/review/EVAL.yaml", "suites/eval.yaml"])
async def test_eval_files_with_other_names_get_the_load_error(
    named: LanguageClient, named_repo: Path, name: str
) -> None:
    uri = open_doc(named, named_repo / name)
    diagnostics = await asyncio.wait_for(diagnostics_until(named, uri, lambda d: bool(errors(d))), 20)
    assert any("missing 'tests' field" in d.message for d in errors(diagnostics))
    unknown = [d for d in diagnostics if d.code == "v4-unknown-file-type"]
    assert [d.severity for d in unknown] == [lsp.DiagnosticSeverity.Information]


async def test_other_yaml_gets_nothing(named: LanguageClient, named_repo: Path) -> None:
    quiet = [open_doc(named, named_repo / n) for n in ("skills/other/EVAL.yml", "deploy/docker-compose.yml")]
    # a file that does get diagnostics, opened after them, tells when they have been handled
    uri = open_doc(named, named_repo / "suites/eval.yaml", version=2)
    await asyncio.wait_for(diagnostics_until(named, uri, lambda d: bool(errors(d))), 20)
    for other in quiet:
        assert not named.diagnostics.get(other)
