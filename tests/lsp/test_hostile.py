"""A hostile document in the editor (issue 15): its diagnostics are capped, other documents
stay answered while it is checked, a newer version stops the stale check, and a check over
its time budget publishes a diagnostic that says so."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

from agentv_lsp.checks.model import CHECK_INCOMPLETE, TOO_MANY_DIAGNOSTICS
from tests.lsp.conftest import (
    SERVER,
    accept_registrations,
    change_doc,
    diagnostics_until,
    init_params,
    open_doc,
    write_repo,
)
from tests.reliability.hostile_families import FAMILIES, nested_flow_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

CAP = 50


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_repo(tmp_path_factory.mktemp("hostile") / "ws", {})


@pytest_lsp.fixture(config=SERVER, scope="module")
async def capped_client(lsp_client: LanguageClient, hostile_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(hostile_repo, {"maxDiagnosticsPerFile": CAP}))
    yield
    await lsp_client.shutdown_session()


def put(repo: Path, name: str, text: str) -> Path:
    path = repo / "evals" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def test_a_document_with_thousands_of_diagnostics_is_capped(
    capped_client: LanguageClient, hostile_repo: Path
) -> None:
    for name, family in (("keys.yaml", "unknown-top-keys"), ("keys.eval.yaml", "unknown-top-keys-v4")):
        text = next(iter(FAMILIES[family](2000).values()))
        uri = open_doc(capped_client, put(hostile_repo, name, text), text)
        shown = await diagnostics_until(capped_client, uri, lambda d: len(d) > 0)
        summary = [d for d in shown if d.code == TOO_MANY_DIAGNOSTICS]
        assert len(shown) == CAP + 1 and len(summary) == 1, family
        assert summary[0].data["hidden"] >= 2000 - CAP
        assert "agentv.maxDiagnosticsPerFile" in summary[0].message


async def test_hover_on_another_document_answers_while_a_hostile_one_is_checked(
    capped_client: LanguageClient, hostile_repo: Path
) -> None:
    small_text = next(iter(FAMILIES["many-cases-with-errors"](2).values()))
    small = open_doc(capped_client, put(hostile_repo, "small.yaml", small_text), small_text)
    await diagnostics_until(capped_client, small, lambda d: len(d) > 0)
    big_text = next(iter(FAMILIES["int-string-key-collisions"](60_000).values()))  # ~1.2 MB
    big = open_doc(capped_client, put(hostile_repo, "big.yaml", big_text), big_text)
    start = time.perf_counter()
    hover = await capped_client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=small), position=lsp.Position(line=3, character=6)
        )
    )
    answered = time.perf_counter() - start
    assert hover is not None
    # answered before the hostile document's check finished (no timing bound: CI machines vary)
    assert big not in capped_client.diagnostics, f"hover took {answered:.3f} s"
    await diagnostics_until(capped_client, big, lambda d: len(d) > 0)
    print(f"hover answered in {answered * 1000:.0f} ms while a 1.2 MB hostile file was checked")


async def test_a_newer_version_replaces_the_stale_check(
    capped_client: LanguageClient, hostile_repo: Path
) -> None:
    big_text = next(iter(FAMILIES["many-cases-with-errors"](3000).values()))
    uri = open_doc(capped_client, put(hostile_repo, "edited.yaml", big_text), big_text)
    fixed = "$schema: agentv-eval-v2\nevalcases:\n  - id: c1\n    outcome: ok\n    input_messages:\n      - role: user\n        content: hi\n    oops: 1\n"
    change_doc(capped_client, uri, 2, fixed)
    shown = await diagnostics_until(
        capped_client, uri, lambda d: any(x.code == "schema-unknown-key" and "oops" in x.message for x in d)
    )
    # only the new version's few findings: the stale check's thousands never arrived after it
    assert len(shown) < 10
    await asyncio.sleep(0.5)
    assert len(capped_client.diagnostics[uri]) < 10


@pytest_lsp.fixture(config=SERVER, scope="module")
async def budget_client(lsp_client: LanguageClient, hostile_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(hostile_repo, {"checkTimeBudgetMs": 1}))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("name", ["slow.yaml", "slow.eval.yaml"])
async def test_a_check_over_its_budget_says_the_file_was_too_complex(
    budget_client: LanguageClient, hostile_repo: Path, name: str
) -> None:
    family = "many-tests-with-errors-v4" if name.endswith(".eval.yaml") else "many-cases-with-errors"
    text = next(iter(FAMILIES[family](1500).values()))
    uri = open_doc(budget_client, put(hostile_repo, name, text), text)
    shown = await diagnostics_until(budget_client, uri, lambda d: len(d) > 0)
    assert [d.code for d in shown] == [CHECK_INCOMPLETE]
    assert "too complex to check completely" in shown[0].message
    assert "agentv-lsp check" in shown[0].message


PARSE_BUDGET_MS = 1500


@pytest_lsp.fixture(config=SERVER, scope="module")
async def parse_budget_client(lsp_client: LanguageClient, hostile_repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(hostile_repo, {"checkTimeBudgetMs": PARSE_BUDGET_MS}))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize(
    ("name", "head"), [("deep.eval.yaml", ""), ("deep.yaml", "$schema: agentv-eval-v2\nevalcases: []\n")]
)
async def test_the_budget_stops_a_long_parse_and_other_documents_stay_answered(
    parse_budget_client: LanguageClient, hostile_repo: Path, name: str, head: str
) -> None:
    # 1 MB of flow sequences 200 deep under `%YAML 1.2`: the exact (pure-Python) reader takes
    # tens of seconds on it; the budget must stop the parse itself (issue 34)
    client = parse_budget_client
    small_text = next(iter(FAMILIES["many-cases-with-errors"](2).values()))
    small = open_doc(client, put(hostile_repo, f"small-{name}", small_text), small_text)
    await diagnostics_until(client, small, lambda d: len(d) > 0)
    big_text = nested_flow_text(1_000_000, 200).replace("---\n", "---\n" + head, 1)
    opened = time.perf_counter()
    big = open_doc(client, put(hostile_repo, name, big_text), big_text)
    waits = []
    while time.perf_counter() - opened < PARSE_BUDGET_MS / 1000 * 0.8:
        start = time.perf_counter()
        hover = await client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=small), position=lsp.Position(line=3, character=6)
            )
        )
        waits.append(time.perf_counter() - start)
        assert hover is not None
        await asyncio.sleep(0.02)
    shown = await diagnostics_until(client, big, lambda d: len(d) > 0, timeout=15)
    stopped_after = time.perf_counter() - opened
    assert [d.code for d in shown] == [CHECK_INCOMPLETE]
    # the budget plus a generous margin for a loaded machine (the whole parse takes 20 s and more)
    assert stopped_after < PARSE_BUDGET_MS / 1000 + 3.5, stopped_after
    waits.sort()
    median, p90 = waits[len(waits) // 2], waits[len(waits) * 9 // 10]
    print(f"{name}: check-incomplete after {stopped_after:.2f} s; hover elsewhere median "
          f"{median * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms, worst {waits[-1] * 1000:.0f} ms over {len(waits)}")  # fmt: skip
    # issue 34: answered within 100 ms. The 90th percentile, not the worst: on a loaded 2-core
    # machine one hover in a few dozen can lose its CPU to another process for longer
    assert len(waits) >= 10, len(waits)
    assert median < 0.05 and p90 <= 0.1, waits


@pytest_lsp.fixture(config=SERVER, scope="module")
async def pull_budget_client(lsp_client: LanguageClient, hostile_repo: Path):  # type: ignore[no-untyped-def]
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.text_document is not None
    capabilities.text_document.diagnostic = lsp.DiagnosticClientCapabilities(related_document_support=True)
    accept_registrations(lsp_client)
    settings = {"checkTimeBudgetMs": PARSE_BUDGET_MS}
    await lsp_client.initialize_session(init_params(hostile_repo, settings, capabilities))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize(
    ("name", "head"), [("pulled.eval.yaml", ""), ("pulled.yaml", "$schema: agentv-eval-v2\nevalcases: []\n")]
)
async def test_a_pulled_check_is_stopped_by_the_budget_too(
    pull_budget_client: LanguageClient, hostile_repo: Path, name: str, head: str
) -> None:
    client = pull_budget_client
    text = nested_flow_text(1_000_000, 200).replace("---\n", "---\n" + head, 1)
    uri = open_doc(client, put(hostile_repo, name, text), text)
    start = time.perf_counter()
    report = await asyncio.wait_for(
        client.text_document_diagnostic_async(
            lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        ),
        15,
    )
    answered = time.perf_counter() - start
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == [CHECK_INCOMPLETE]
    assert answered < PARSE_BUDGET_MS / 1000 + 3.5, answered
