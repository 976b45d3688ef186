"""textDocument/publishDiagnostics (push) and textDocument/diagnostic (pull): the CLI's
findings at their positions, from unsaved text, never for other YAML, cleared on close."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.runtime import choose_runtime, undeclared_v2_note
from agentv_lsp.formats.v2.check import CheckOptions, check_document
from tests.lsp.conftest import (
    EVAL,
    SERVER,
    accept_registrations,
    change_doc,
    diagnostics_of,
    diagnostics_until,
    doc_id,
    edit_doc,
    init_params,
    open_doc,
    open_eval,
    pos,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_open_publishes_the_checker_diagnostics_at_their_positions(
    client: LanguageClient, repo: Path
) -> None:
    uri = open_eval(client, repo)
    diagnostics = await diagnostics_of(client, uri)
    by_code = {d.code: d for d in diagnostics}
    role = by_code["validate-role"]
    assert role.severity == lsp.DiagnosticSeverity.Error
    assert role.range.start == pos(EVAL, "usr") and role.range.end == pos(EVAL, "usr", 3)
    assert "drops this whole message" in role.message and role.source == "agentv-lsp"
    assert role.data["suggestion"] == "user" and role.data["path"] == "evalcases[1].input_messages[0].role"
    extracted = by_code["guideline-extracted"]
    assert extracted.severity == lsp.DiagnosticSeverity.Information
    assert extracted.range.start == pos(EVAL, "rules.instructions.md")


async def test_unsaved_edits_are_checked_and_close_clears(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    await diagnostics_until(client, uri, lambda d: any(x.code == "validate-role" for x in d))
    change_doc(client, uri, 2, EVAL.replace("role: usr", "role: user"))
    await diagnostics_until(client, uri, lambda d: all(x.code != "validate-role" for x in d))
    # an incremental edit (as typed): the role is misspelt again, without saving
    start = pos(EVAL, "role: usr", 6)
    edit_doc(client, uri, 3, start, lsp.Position(line=start.line, character=start.character + 4), "asistant")
    diagnostics = await diagnostics_until(client, uri, lambda d: any(x.code == "validate-role" for x in d))
    assert next(d for d in diagnostics if d.code == "validate-role").data["suggestion"] == "assistant"
    assert Path(urlparse(uri).path).read_text() == EVAL  # nothing was written
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=doc_id(uri)))
    await diagnostics_until(client, uri, lambda d: d == [])


async def test_a_burst_of_edits_publishes_the_last_version(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)
    await diagnostics_of(client, uri)
    for version in range(2, 12):
        change_doc(client, uri, version, EVAL.replace("Answer.", f"Answer {version}."))
    change_doc(client, uri, 12, EVAL.replace("role: usr", "role: user"))
    await diagnostics_until(client, uri, lambda d: all(x.code != "validate-role" for x in d))


async def test_an_edit_that_breaks_the_yaml_shows_the_syntax_error(client: LanguageClient, repo: Path) -> None:
    """The file no longer parses, so `$schema` is read from its line: the author sees the
    syntax error where it is (not silence because the file stopped looking like AgentV's)."""
    uri = open_eval(client, repo)
    await diagnostics_until(client, uri, lambda d: any(x.code == "validate-role" for x in d))
    broken = EVAL.replace("role: usr", "role: [usr")
    change_doc(client, uri, 2, broken)
    diagnostics = await diagnostics_until(client, uri, lambda d: any(x.code == "yaml-syntax" for x in d))
    syntax = next(d for d in diagnostics if d.code == "yaml-syntax")
    assert syntax.severity == lsp.DiagnosticSeverity.Error
    assert syntax.range.start.line > pos(EVAL, "role: usr").line - 1
    assert "Missing or invalid $schema field" in syntax.message  # what `agentv validate` will say


async def test_other_yaml_files_get_nothing_at_all(client: LanguageClient, repo: Path) -> None:
    compose = repo / "docker-compose.yml"
    compose.write_text("services:\n  web: {image: nginx, ports: [80]\n")  # broken YAML, not ours
    no_schema = repo / "evals/noschema.yaml"
    no_schema.write_text("evalcases: []\n")
    other = open_doc(client, compose)
    missing = open_doc(client, no_schema)
    eval_uri = open_eval(client, repo)
    await diagnostics_of(client, eval_uri)
    for uri in (other, missing):
        hover = await client.text_document_hover_async(
            lsp.HoverParams(text_document=doc_id(uri), position=lsp.Position(line=0, character=1))
        )
        assert hover is None
    assert other not in client.diagnostics and missing not in client.diagnostics


async def test_agentv_config_and_targets_files_are_checked(client: LanguageClient, repo: Path) -> None:
    config = repo / ".agentv/config.yaml"
    uri = open_doc(client, config, "$schema: agentv-config-v2\nguideline_patterns: '*.md'\nextra: 1\n")
    diagnostics = await diagnostics_of(client, uri)
    assert {d.code for d in diagnostics} >= {"config-patterns-not-array"}
    targets = repo / ".agentv/targets.yaml"
    turi = open_doc(client, targets, "$schema: agentv-targets-v2.2\ntargets: {}\n")
    assert await diagnostics_of(client, turi)


async def test_a_large_file_checked_case_by_case_matches_the_cli(client: LanguageClient, repo: Path) -> None:
    head, cases = EVAL.split("evalcases:\n")
    big = (
        head
        + "evalcases:\n"
        + "".join(
            cases.replace("id: two-turn", f"id: two-turn-{i}")
            .replace("id: flat-one", f"id: flat-{i}")
            .replace("id: plain-two-turn", f"id: plain-{i}")
            for i in range(150)
        )
    )
    path = repo / "evals/big.eval.yaml"
    path.write_text(big)
    uri = open_doc(client, path)
    first = await diagnostics_of(client, uri)
    assert len([d for d in first if d.code == "validate-role"]) == 150
    # fix the role of case 100 and duplicate an id: only that case and the file rules change
    lines = big.split("\n")
    target = [i for i, line in enumerate(lines) if line.endswith("role: usr")][100]
    edit_doc(
        client,
        uri,
        2,
        lsp.Position(line=target, character=14),
        lsp.Position(line=target, character=17),
        "user",
    )
    first_id = lines.index("  - id: plain-3")
    edit_doc(
        client,
        uri,
        3,
        lsp.Position(line=first_id, character=8),
        lsp.Position(line=first_id, character=15),
        "plain-2",
    )
    edited = list(lines)
    edited[target] = edited[target].replace("usr", "user")
    edited[first_id] = "  - id: plain-2"
    text = "\n".join(edited)
    diagnostics = await diagnostics_until(
        client, uri, lambda d: any(x.code == "duplicate-case-id" for x in d)
    )
    expected = check_document(
        str(path), text, CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    )
    # and, as `agentv-lsp check` adds it, the note that only the file's format chose v2
    note = undeclared_v2_note(str(path), text, choose_runtime(str(path), text, str(repo)))
    shown = [*expected.diagnostics, *([note] if note is not None else [])]
    got = sorted((d.range.start.line, d.range.start.character, d.code, d.message) for d in diagnostics)
    want = sorted((d.span.start_line, d.span.start_col, d.code, d.message) for d in shown)
    assert got == want


@pytest_lsp.fixture(config=SERVER, scope="module")
async def pull_client(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.text_document is not None
    capabilities.text_document.diagnostic = lsp.DiagnosticClientCapabilities(related_document_support=True)
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(repo, capabilities=capabilities))
    yield
    await lsp_client.shutdown_session()


async def test_clients_that_pull_get_the_same_diagnostics_on_request(
    pull_client: LanguageClient, repo: Path
) -> None:
    uri = open_eval(pull_client, repo)
    report = await pull_client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=doc_id(uri))
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    assert "validate-role" in {d.code for d in report.items} and report.result_id
    again = await pull_client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=doc_id(uri), previous_result_id=report.result_id)
    )
    assert isinstance(again, lsp.RelatedUnchangedDocumentDiagnosticReport)
    change_doc(pull_client, uri, 2, EVAL.replace("role: usr", "role: user"))
    fresh = await pull_client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=doc_id(uri), previous_result_id=report.result_id)
    )
    assert isinstance(fresh, lsp.RelatedFullDocumentDiagnosticReport)
    assert "validate-role" not in {d.code for d in fresh.items}
    assert uri not in pull_client.diagnostics  # nothing pushed to a pulling client
