"""Each test's last AgentV run in the editor: the verdict beside the summary lens, a "Last run"
section in the hover, "stale" once the prompt changes, and a new run picked up when the client
reports its index (runs recorded by the real runtime: tests/results_runs)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from agentv_lsp.lsp.features.watch import RESULTS_POLL_SECONDS
from agentv_lsp.lsp.listing import SUMMARY
from tests.lsp.conftest import (
    SERVER,
    WAIT_SECONDS,
    accept_registrations,
    change_doc,
    doc_id,
    init_params,
    open_doc,
    pos,
)
from tests.results_runs.project import RECORDED

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs") / "project"
    shutil.copytree(RECORDED, root)
    (root / ".git").mkdir()
    return root


LENS_REFRESHES: list[asyncio.Event] = []


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, project: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    refreshed = asyncio.Event()
    LENS_REFRESHES.append(refreshed)

    @lsp_client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(params: None) -> None:
        refreshed.set()

    await lsp_client.initialize_session(init_params(project))
    yield
    await lsp_client.shutdown_session()


async def summaries(client: LanguageClient, uri: str) -> list[str]:
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    titles = []
    for lens in lenses or []:
        if isinstance(lens.data, list) and lens.data[2] == SUMMARY:
            resolved = await client.code_lens_resolve_async(lens)
            titles.append(resolved.command.title if resolved.command else "")
    return titles


async def hover_text(client: LanguageClient, uri: str, at: lsp.Position) -> str:
    hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc_id(uri), position=at))
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    return hover.contents.value


async def test_lenses_and_hover_show_each_tests_last_verdict(client: LanguageClient, project: Path) -> None:
    path = project / "evals" / "geo.eval.yaml"
    uri = open_doc(client, path)
    capital, failing, never = await summaries(client, uri)
    assert "✓ 1.00 · default ·" in capital and "stale" not in capital
    assert "✗ 0.00 · default ·" in failing
    assert "✓" not in never and "✗" not in never
    text = path.read_text(encoding="utf-8")
    shown = await hover_text(client, uri, pos(text, "capital of France"))
    assert "· last run ✓ 1.00 · default" in shown.splitlines()[0]  # the glance line first
    assert "**Last run** ✓ 1.00 · default" in shown
    assert "- contains-Paris: pass 1.00" in shown and "Paris" in shown.split("Answer:", 1)[1]
    missing = await hover_text(client, uri, pos(text, "Say hi"))
    assert "Last run" not in missing


async def test_an_edited_input_makes_that_test_stale(client: LanguageClient, project: Path) -> None:
    path = project / "evals" / "geo.eval.yaml"
    text = path.read_text(encoding="utf-8")
    uri = open_doc(client, path)
    change_doc(client, uri, 2, text.replace("capital of Spain?", "capital of Spain, in one word?"))
    capital, failing, _ = await summaries(client, uri)
    assert failing.endswith("· stale") and not capital.endswith("· stale")
    shown = await hover_text(client, uri, pos(text, "capital of Spain"))
    assert "*stale: the prompt changed since this run*" in shown
    assert "-What is the capital of Spain?\n+What is the capital of Spain, in one word?" in shown


async def test_the_testing_view_lists_plans_and_reads_results(client: LanguageClient, project: Path) -> None:
    """`agentv/tests`, `agentv/testRunPlan`, `agentv/testResults` (what vscode-client/src/testing
    asks): every 4.x eval file with its tests where written, a run's prompt size and targets,
    each test's last result."""
    listed = await client.protocol.send_request_async("agentv/tests", {})
    files = {f.uri.rsplit("/", 1)[1]: f for f in listed.files}
    assert sorted(files) == ["files.eval.yaml", "geo.eval.yaml"]
    geo = files["geo.eval.yaml"]
    text = (project / "evals" / "geo.eval.yaml").read_text(encoding="utf-8")
    assert [(t.id, t.line) for t in geo.tests] == [
        ("capital", pos(text, "- id: capital").line),
        ("failing", pos(text, "- id: failing").line),
        ("never-run", pos(text, "- id: never-run").line),
    ]
    assert geo.folder == project.as_uri()
    plan = await client.protocol.send_request_async(
        "agentv/testRunPlan", {"uri": geo.uri, "testIds": ["capital", "never-run"]}
    )
    assert [t.id for t in plan.tests] == ["capital", "never-run"]
    assert all(t.tokens > 0 for t in plan.tests) and plan.total_tokens == sum(t.tokens for t in plan.tests)
    assert plan.targets == ["default"]
    results = await client.protocol.send_request_async("agentv/testResults", {"uri": geo.uri})
    statuses = {t.id: t.last_run.status if t.last_run else None for t in results.tests}
    assert statuses == {"capital": "passed", "failing": "failed", "never-run": None}
    refused = await client.protocol.send_request_async("agentv/testResults", {"uri": "file:///etc/passwd"})
    assert refused.error


async def test_a_new_run_reported_by_the_client_shows_at_once(client: LanguageClient, project: Path) -> None:
    runs = project / ".agentv" / "results" / "runs" / "default"
    old = next(p for p in sorted(runs.iterdir()) if (p / "geo").is_dir())
    new = runs / "9999-12-31T00-00-00-000Z"
    shutil.copytree(old, new)
    rows = [json.loads(line) for line in (new / "index.jsonl").read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.update(timestamp="9999-12-31T00:00:00.000Z", score=0.5, execution_status="quality_failure")
    (new / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=(new / "index.jsonl").as_uri(), type=lsp.FileChangeType.Created)]
        )
    )
    async with asyncio.timeout(WAIT_SECONDS):
        await LENS_REFRESHES[-1].wait()  # the client is asked to resolve its lenses again
    uri = open_doc(client, project / "evals" / "geo.eval.yaml")
    capital, _, _ = await summaries(client, uri)
    assert "✗ 0.50 · default · just now" in capital


async def test_a_run_no_client_reported_shows_within_seconds(client: LanguageClient, project: Path) -> None:
    """Without a watched-file event (a client that watches nothing, or missed the new folder) the
    server finds the run itself and asks for the lenses again."""
    uri = open_doc(client, project / "evals" / "files.eval.yaml")
    before, _ = await summaries(client, uri)
    assert "✓ 1.00" in before
    await asyncio.sleep(RESULTS_POLL_SECONDS * 1.5)  # the server has looked once since the open
    LENS_REFRESHES[-1].clear()
    runs = project / ".agentv" / "results" / "runs" / "default"
    old = next(p for p in sorted(runs.iterdir()) if (p / "files").is_dir())
    new = runs / "9999-12-31T00-00-01-000Z"
    shutil.copytree(old, new)
    rows = [json.loads(line) for line in (new / "index.jsonl").read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row.update(timestamp="9999-12-31T00:00:01.000Z", score=0.25, execution_status="quality_failure")
    (new / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    async with asyncio.timeout(WAIT_SECONDS):
        await LENS_REFRESHES[-1].wait()
    after, _ = await summaries(client, uri)
    assert "✗ 0.25" in after
