"""The language server survives hostile clients and documents (pytest-lsp, a real
`agentv-lsp serve` process).

Every server here runs under `audited.py`: a Python audit hook records any process it
starts and any Python source holding MARKER it compiles, and each test ends by asserting
that nothing was recorded (protection: nothing from the repository is executed, also by
the editor features). The server's address space is capped, so a missing bound fails with
MemoryError instead of exhausting the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Awaitable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

HERE = Path(__file__).resolve().parent
MARKER = "AGENTV_RELIABILITY_MARKER"
AUDIT_LOG = Path(tempfile.gettempdir()) / f"agentv-lsp-audit-{os.getpid()}.jsonl"
SERVER_LIMIT_MB = 6144
SERVER = ClientServerConfig(
    server_command=[sys.executable, str(HERE / "audited.py"), str(AUDIT_LOG), "/", "-", MARKER, "cli", "serve"],
    server_env={**os.environ, "AGENTV_AUDIT_MEMORY_MB": str(SERVER_LIMIT_MB)},
)


def hostile_eval(marker_file: Path, cases: int = 3) -> str:
    """An eval file whose every string would do harm if evaluated: shell, Python, templates."""
    head = (
        "$schema: agentv-eval-v2\n"
        "execution:\n"
        "  evaluators:\n"
        "    - name: script\n"
        "      type: code\n"
        f"      script: touch {marker_file}; python -c \"open('{marker_file}', 'w')\" # {MARKER}\n"
        "      cwd: .\n"
        "evalcases:\n"
    )
    case = (
        "  - id: case-{i}\n"
        f"    outcome: \"{{{{ ''.__class__.__mro__[1].__subclasses__() }}}} __import__('os').system('touch {marker_file}') {MARKER}\"\n"
        "    input_messages:\n"
        "      - role: system\n"
        f"        content: $(touch {marker_file}) `touch {marker_file}` {MARKER}\n"
        "      - role: user\n"
        "        content:\n"
        "          - type: text\n"
        "            value: \"{{{{question}}}} {{% import os %}}{{{{ os.system('id') }}}} " + MARKER + "\"\n"
        "          - type: file\n"
        "            value: notes.md\n"
    )
    return head + "".join(case.replace("{i}", str(i)) for i in range(cases))


def write_workspace(root: Path, eval_text: str | None = None) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / "evals").mkdir(parents=True, exist_ok=True)
    (root / "evals" / "notes.md").write_text(f"$(touch pwned) {MARKER}\n")
    (root / "evals" / "hostile.eval.yaml").write_text(eval_text or hostile_eval(root / "pwned"))
    return root


def init_params(root: Path, *, pull: bool) -> lsp.InitializeParams:
    capabilities = client_capabilities("visual-studio-code")
    if not pull and capabilities.text_document is not None:
        capabilities.text_document.diagnostic = None  # the server then pushes diagnostics
    return lsp.InitializeParams(
        capabilities=capabilities,
        root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"settings": {}},
    )


def audit_violations(pid: int) -> list[dict[str, Any]]:
    if not AUDIT_LOG.exists():
        return []
    records = [json.loads(line) for line in AUDIT_LOG.read_text().splitlines() if line.strip()]
    return [r for r in records if r["pid"] == pid]


async def start(client: LanguageClient, root: Path, *, pull: bool) -> None:
    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def _register(params: lsp.RegistrationParams) -> None:
        return None

    await client.initialize_session(init_params(root, pull=pull))


async def stop(client: LanguageClient, root: Path) -> None:
    pid = server_pid(client)
    alive = client._server is not None and client._server.returncode is None
    if alive:
        await client.shutdown_session()
    assert audit_violations(pid) == [], "the server started a process or evaluated repository text"
    assert not (root / "pwned").exists()


@pytest_lsp.fixture(config=SERVER)
async def pushing(lsp_client: LanguageClient, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A server that pushes diagnostics (a client without pull diagnostics)."""
    root = write_workspace(tmp_path / "ws")
    await start(lsp_client, root, pull=False)
    yield
    await stop(lsp_client, root)


@pytest_lsp.fixture(config=SERVER)
async def pulling(lsp_client: LanguageClient, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A server asked for diagnostics by the client (VS Code's capabilities)."""
    root = write_workspace(tmp_path / "ws")
    await start(lsp_client, root, pull=True)
    yield
    await stop(lsp_client, root)


# -- raw JSON-RPC: what a typed client cannot send ------------------------------------------

_ids = itertools.count(1)


def send_raw(client: LanguageClient, body: bytes) -> None:
    writer = client.protocol.writer
    assert writer is not None
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def raw_request(client: LanguageClient, method: str, params: Any = None, *, msg_id: str | None = None) -> Awaitable[Any]:
    """Send a request with arbitrary JSON params; the awaitable resolves with the response."""
    msg_id = msg_id or f"raw-{next(_ids)}"
    future: Future[Any] = Future()
    client.protocol._request_futures[msg_id] = future
    send_raw(client, json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode())
    return asyncio.wrap_future(future)


def raw_notify(client: LanguageClient, method: str, params: Any) -> None:
    send_raw(client, json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode())


async def answer(awaitable: Awaitable[Any], seconds: float = 10) -> tuple[str, Any]:
    """('result', value) or ('error', code), failing the test if no answer comes in time."""
    try:  # shielded: a late answer must still find its future (pygls fails on a cancelled one)
        return "result", await asyncio.wait_for(asyncio.shield(awaitable), seconds)
    except JsonRpcException as exc:
        return "error", exc.code
    except TimeoutError:
        pytest.fail(f"no answer within {seconds} s")


def server_pid(client: LanguageClient) -> int:
    assert client._server is not None
    return client._server.pid


def memory_mb(client: LanguageClient) -> tuple[float, float]:
    """(current RSS, peak RSS) of the server process, in MiB."""
    fields = {}
    for line in Path(f"/proc/{server_pid(client)}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def open_text(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=version, text=text)
        )
    )
    return uri


def replace_all(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def insert(client: LanguageClient, uri: str, version: int, line: int, character: int, text: str) -> None:
    position = lsp.Position(line=line, character=character)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                lsp.TextDocumentContentChangePartial(range=lsp.Range(start=position, end=position), text=text)
            ],
        )
    )


async def still_answers(client: LanguageClient, uri: str, seconds: float = 10) -> None:
    """A well-formed request on an open document is answered in time."""
    kind, _ = await answer(raw_request(client, "agentv/status", {"uri": uri}), seconds)
    assert kind == "result"
    assert client._server is not None and client._server.returncode is None


def record_published_versions(client: LanguageClient) -> list[int | None]:
    """The version of every publishDiagnostics, in order (pytest-lsp keeps only the last
    diagnostics per document)."""
    versions: list[int | None] = []
    features = client.protocol.fm.features
    default = features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def recording(params: lsp.PublishDiagnosticsParams) -> None:
        versions.append(params.version)
        default(params)

    features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording
    return versions


def many_cases(count: int) -> str:
    return "$schema: agentv-eval-v2\nevalcases:\n" + "".join(
        f"  - id: case-{i}\n    outcome: Answer {i}.\n    input_messages:\n      - role: system\n"
        "        content: You are helpful.\n      - role: user\n        content:\n"
        f"          - type: text\n            value: Question {i} about the code\n"
        for i in range(count)
    )


# -- malformed protocol traffic --------------------------------------------------------------


async def test_malformed_messages_and_unknown_methods_leave_the_server_answering(
    pulling: LanguageClient, tmp_path: Path
) -> None:
    """Protection: the server survives bad JSON-RPC (unknown methods get MethodNotFound,
    garbage is dropped, bad notifications are ignored) and keeps answering."""
    path = tmp_path / "ws" / "evals" / "hostile.eval.yaml"
    uri = open_text(pulling, path, path.read_text())
    assert await answer(raw_request(pulling, "agentv/noSuchMethod", {})) == ("error", -32601)
    assert await answer(raw_request(pulling, "$/noSuchRequest", None)) == ("error", -32601)
    for body in (
        b"{not json",
        b"[]",
        b"null",
        b'"text"',
        b'{"jsonrpc": "1.0", "id": 1, "method": "shutdown"}',
        b'{"jsonrpc": "2.0", "method": 42}',
        "{\"jsonrpc\": \"2.0\", \"method\": \"x\", \"params\": \"\u00e9\ud800\"}".encode("utf-8", "surrogatepass"),
    ):
        send_raw(pulling, body)
    for method, params in (
        ("unknown/notification", {"a": 1}),
        ("textDocument/didOpen", {"textDocument": {"uri": 7}}),
        ("textDocument/didOpen", None),
        ("textDocument/didChange", {"textDocument": {"uri": "file:///nope.yaml", "version": 2}, "contentChanges": [{"text": "x"}]}),
        ("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": 10**6, "character": 0}, "end": {"line": 10**6, "character": 5}}, "text": "x"}]}),
        ("textDocument/didClose", {"textDocument": {"uri": "file:///nope.yaml"}}),
        ("workspace/didChangeConfiguration", {"settings": {"agentv": {"maxFileSizeKb": -1, "trustedWorkspace": "yes"}}}),
        ("workspace/didChangeWatchedFiles", {"changes": [{"uri": "file:///etc/passwd", "type": 2}]}),
        ("$/cancelRequest", {"id": "never-sent"}),
        ("$/cancelRequest", {"id": None}),
        ("$/setTrace", {"value": "verbose"}),
    ):
        raw_notify(pulling, method, params)
    for method, params in (
        ("agentv/status", {"uri": 5}),
        ("agentv/status", [1, 2]),
        ("workspace/executeCommand", {"command": "agentv.previewCase", "arguments": [5, None, {"uri": 3}]}),
        ("workspace/executeCommand", {"command": "agentv.previewFile", "arguments": []}),
        ("workspace/executeCommand", {"command": "rm -rf /", "arguments": []}),
        ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 10**9, "character": 10**9}}),
    ):
        await answer(raw_request(pulling, method, params))
    await still_answers(pulling, uri)


@pytest.mark.parametrize(
    "params",
    [
        pytest.param({"textDocument": 5}, id="wrong-type"),
        pytest.param(None, id="null"),
        pytest.param({"textDocument": {"uri": "file:///x.yaml"}, "position": {"line": -1, "character": 0}}, id="negative"),
    ],
)
async def test_requests_with_invalid_params_are_answered_with_an_error(
    pulling: LanguageClient, params: Any
) -> None:
    """Protection: every request gets an answer (JSON-RPC): invalid params are an
    InvalidParams error, not silence that leaves the editor waiting."""
    assert await answer(raw_request(pulling, "textDocument/hover", params), 5) == ("error", -32602)


# -- documents the server does not know -----------------------------------------------------

UNKNOWN_DOCUMENT_REQUESTS: list[tuple[str, Any]] = [
    ("textDocument/hover", {"position": {"line": 0, "character": 0}}),
    ("textDocument/codeLens", {}),
    ("textDocument/documentSymbol", {}),
    ("textDocument/completion", {"position": {"line": 0, "character": 0}}),
    ("textDocument/documentLink", {}),
    ("textDocument/definition", {"position": {"line": 0, "character": 0}}),
    ("textDocument/diagnostic", {}),
    (
        "textDocument/codeAction",
        {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []},
        },
    ),
]


def unknown_document_requests(client: LanguageClient, uri: str) -> list[Awaitable[Any]]:
    out = [raw_request(client, m, {"textDocument": {"uri": uri}, **extra}) for m, extra in UNKNOWN_DOCUMENT_REQUESTS]
    out.append(raw_request(client, "agentv/status", {"uri": uri}))
    for command in ("agentv.previewFile", "agentv.previewCase"):
        arguments = [{"uri": uri, "position": {"line": 0, "character": 0}}]
        out.append(raw_request(client, "workspace/executeCommand", {"command": command, "arguments": arguments}))
    return out


async def test_requests_for_unknown_documents_are_answered(pulling: LanguageClient, tmp_path: Path) -> None:
    """Protection: requests for documents never opened (on disk, missing, untitled, other
    schemes) are answered (a result or an error) and the server goes on."""
    on_disk = tmp_path / "ws" / "evals" / "hostile.eval.yaml"
    for uri in (on_disk.as_uri(), (tmp_path / "missing.yaml").as_uri(), "untitled:Untitled-1", "https://example.com/e.yaml"):
        for request in unknown_document_requests(pulling, uri):
            await answer(request)
    await still_answers(pulling, open_text(pulling, on_disk, on_disk.read_text()))


async def test_unknown_documents_that_are_special_files_are_never_read(
    pulling: LanguageClient, tmp_path: Path
) -> None:
    """Protection: a request for a document that is not open does not read it from disk
    unbounded: a FIFO without a writer must not hang a request, a huge file must not be
    loaded whole."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB, sparse
    before, _ = memory_mb(pulling)
    try:
        for uri in (fifo.as_uri(), huge.as_uri()):
            for request in unknown_document_requests(pulling, uri):
                await answer(request, 5)
        _, peak = memory_mb(pulling)
        assert peak - before < 256, f"the server grew by {peak - before:.0f} MiB"
    finally:
        with contextlib.suppress(OSError):  # release a reader blocked on the FIFO, so the server can exit
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


# -- long work, storms, size ------------------------------------------------------------------


async def test_cancel_request_answers_at_once_during_long_work(pulling: LanguageClient, tmp_path: Path) -> None:
    """Protection: `$/cancelRequest` is honoured: a request waiting on a long analysis is
    answered RequestCancelled at once, and the server goes on answering."""
    path = tmp_path / "ws" / "evals" / "big.eval.yaml"
    text = many_cases(5000)
    path.write_text(text)
    uri = open_text(pulling, path, text)
    started = time.perf_counter()
    pending = raw_request(
        pulling, "workspace/executeCommand", {"command": "agentv.previewFile", "arguments": [{"uri": uri}]}, msg_id="long-preview"
    )
    await asyncio.sleep(0.2)
    raw_notify(pulling, "$/cancelRequest", {"id": "long-preview"})
    kind, value = await answer(pending, 60)
    waited = time.perf_counter() - started
    assert (kind, value) == ("error", -32800), f"not cancelled: {kind} after {waited:.1f} s"
    assert waited < 1.5, f"the cancellation took {waited:.1f} s"
    await still_answers(pulling, uri, 60)


async def test_edit_storm_is_debounced_and_memory_stays_bounded(pushing: LanguageClient, tmp_path: Path) -> None:
    """Protection: hundreds of didChange per second neither queue unbounded work nor grow
    memory: superseded versions are not checked to the end, and the last version's diagnostics
    come soon after the storm."""
    published = record_published_versions(pushing)

    path = tmp_path / "ws" / "evals" / "storm.eval.yaml"
    text = many_cases(300)
    path.write_text(text)
    uri = open_text(pushing, path, text)
    await still_answers(pushing, uri)
    before, _ = memory_mb(pushing)
    published.clear()
    edits = 2000
    started = time.perf_counter()
    for version in range(2, edits + 2):
        insert(pushing, uri, version, 2 + (version % 200), 4, "x" if version % 2 else "")
        if version % 100 == 0:
            await asyncio.sleep(0)  # let the transport drain
    rate = edits / (time.perf_counter() - started)
    assert rate > 200, f"only {rate:.0f} edits/s could be sent"
    deadline = time.perf_counter() + 60
    while edits + 1 not in published and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    assert edits + 1 in published, "no diagnostics for the last version"
    # cheap checks run without a debounce (issue 29: the delay follows the measured cost) and a
    # newer edit stops a running check, so a storm publishes only the versions whose check
    # finished before the next edit came: a small share of the edits, never one per edit
    assert len(published) <= edits // 20, f"{len(published)} publications for {edits} edits: work queued per edit"
    await still_answers(pushing, uri, 5)
    after, _ = memory_mb(pushing)
    assert after - before < 150, f"memory grew by {after - before:.0f} MiB during the storm"


def fifty_megabytes() -> str:
    line = "          The quick brown fox jumps over the lazy dog, again and again and again.\n"
    head = "$schema: agentv-eval-v2\nevalcases:\n"
    big = "  - id: huge\n    outcome: o\n    input_messages:\n      - role: user\n        content: |\n"
    body = line * (50_000_000 // len(line))
    tail = "  - id: small\n    outcome: o\n    input_messages:\n      - role: user\n        content: hi\n"
    return head + big + body + tail


@pytest.mark.slow
async def test_a_50_mb_document_is_checked_without_running_out_of_memory(
    pushing: LanguageClient, tmp_path: Path
) -> None:
    """Protection: a 50 MB document is checked, previewed and closed within a bounded
    peak memory, and the server goes on answering."""
    path = tmp_path / "ws" / "evals" / "huge.eval.yaml"
    text = fifty_megabytes()
    uri = open_text(pushing, path, text)
    await pushing.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    kind, _ = await answer(
        raw_request(pushing, "workspace/executeCommand", {"command": "agentv.previewFile", "arguments": [{"uri": uri}]}),
        120,
    )
    assert kind == "result"
    _, peak = memory_mb(pushing)
    assert peak < 2500, f"peak {peak:.0f} MiB for a 50 MB document"
    pushing.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    small = tmp_path / "ws" / "evals" / "hostile.eval.yaml"
    await still_answers(pushing, open_text(pushing, small, small.read_text()), 60)


async def soak(client: LanguageClient, root: Path, seconds: float) -> tuple[int, float, float]:
    """Open, edit (incrementally and whole), query and close documents for `seconds`:
    (cycles, RSS after the first quarter, RSS at the end) in MiB."""
    texts = [many_cases(40), hostile_eval(root / "pwned", 10), "not: [an, eval\n", "$schema: agentv-eval-v2\n"]
    cycles = 0
    baseline = 0.0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        path = root / "evals" / f"soak-{cycles}.eval.yaml"  # a new document each time
        text = texts[cycles % len(texts)]
        uri = open_text(client, path, text)
        for version in range(2, 12):
            insert(client, uri, version, 1, 0, "#")
        replace_all(client, uri, 12, texts[(cycles + 1) % len(texts)])
        await answer(raw_request(client, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}))
        await answer(raw_request(client, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 6}}))
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
        cycles += 1
        if not baseline and elapsed > seconds / 4:
            await asyncio.sleep(0.3)  # let the debounced checks of the last cycle finish
            baseline = memory_mb(client)[0]
    await asyncio.sleep(0.3)
    return cycles, baseline, memory_mb(client)[0]


@pytest.mark.parametrize(
    "seconds", [pytest.param(6, id="6s"), pytest.param(20, marks=pytest.mark.slow, id="20s")]
)
async def test_soak_open_edit_close_keeps_memory_flat(pushing: LanguageClient, tmp_path: Path, seconds: float) -> None:
    """Protection: nothing is kept per closed document or per version (analyses, pending
    tasks, caches): memory stays flat over many open/edit/close cycles."""
    cycles, baseline, end = await soak(pushing, tmp_path / "ws", seconds)
    assert cycles > 10
    assert end - baseline < 40, f"RSS grew from {baseline:.0f} to {end:.0f} MiB over {cycles} cycles"


# -- fuzz -----------------------------------------------------------------------------------

FUZZ_METHODS = [
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/codeLens",
    "textDocument/documentSymbol",
    "textDocument/documentLink",
    "textDocument/definition",
    "textDocument/codeAction",
    "textDocument/diagnostic",
    "workspace/executeCommand",
    "workspace/symbol",
    "agentv/status",
]
FUZZ_NOTIFICATIONS = [
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didSave",
    "textDocument/didClose",
    "workspace/didChangeConfiguration",
    "workspace/didChangeWatchedFiles",
]


def random_json(rng: random.Random, uri: str, depth: int = 0) -> Any:
    choice = rng.randrange(10 if depth < 3 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False, 0, -1, 2**31, 2**63, 1.5, float("1e308")])
    if choice == 2:
        return rng.choice(["", uri, "file:///", "x" * 1000, "\u0000", "../../etc/passwd", "agentv.previewCase"])
    if choice == 3:
        return {"line": rng.randint(-2, 50), "character": rng.randint(-2, 200)}
    if choice == 4:
        return {"uri": rng.choice([uri, "untitled:x", "file:///nope.yaml"])}
    if choice == 5:
        return rng.randint(-5, 5)
    if choice in (6, 7):
        keys = ["textDocument", "position", "range", "context", "command", "arguments", "uri", "text", "version",
                "contentChanges", "settings", "changes", "query", "start", "end", "diagnostics"]
        return {k: random_json(rng, uri, depth + 1) for k in rng.sample(keys, rng.randint(0, 5))}
    return [random_json(rng, uri, depth + 1) for _ in range(rng.randint(0, 4))]


def plausible_params(rng: random.Random, method: str, uri: str) -> Any:
    """Well-typed params with random values (garbage where the protocol allows any JSON:
    command arguments, our own `agentv/status`). Params pygls cannot parse at all are
    the subject of test_requests_with_invalid_params_are_answered_with_an_error."""
    position = {"line": rng.randint(0, 40), "character": rng.randint(0, 30)}
    document = {"uri": uri}
    if method == "workspace/executeCommand":
        command = rng.choice(["agentv.previewCase", "agentv.previewFile"])
        return {"command": command, "arguments": [random_json(rng, uri) if rng.random() < 0.3 else {"uri": uri, "position": position}]}
    if method == "workspace/symbol":
        return {"query": rng.choice(["", "case", "\u0000"])}
    if method == "agentv/status":
        return {"uri": uri} if rng.random() < 0.7 else random_json(rng, uri)
    if method == "textDocument/codeAction":
        return {"textDocument": document, "range": {"start": position, "end": position}, "context": {"diagnostics": []}}
    return {"textDocument": document, "position": position}


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_protocol_traffic_never_stops_the_server(pulling: LanguageClient, tmp_path: Path, seed: int) -> None:
    """Protection: the server survives random requests and notifications (plausible and
    garbage params, edits of random text) and still answers a well-formed request."""
    rng = random.Random(seed)
    path = tmp_path / "ws" / "evals" / "hostile.eval.yaml"
    base = path.read_text()
    uri = open_text(pulling, path, base)
    version = 1
    pending: list[Awaitable[Any]] = []
    for _ in range(150):
        if rng.random() < 0.4:
            version += 1
            cut = rng.randint(0, len(base))
            noise = "".join(rng.choice(["[", "{", ": ", "- ", "\n", "&a ", "*a", "'", "\t", "é", "\u2028"]) for _ in range(4))
            replace_all(pulling, uri, version, base[:cut] + noise + base[cut:])
        elif rng.random() < 0.2:
            method = rng.choice(FUZZ_NOTIFICATIONS)
            if method != "textDocument/didClose":
                raw_notify(pulling, method, random_json(rng, uri))
        else:
            method = rng.choice(FUZZ_METHODS)
            pending.append(raw_request(pulling, method, plausible_params(rng, method, uri)))
    futures = [asyncio.ensure_future(request) for request in pending]
    _, unanswered = await asyncio.wait(futures, timeout=30)
    assert not unanswered, f"{len(unanswered)} of {len(futures)} requests were never answered"
    for future in futures:
        if future.exception() is not None:  # an error response is fine; a dead server is not
            assert isinstance(future.exception(), JsonRpcException), future.exception()
    replace_all(pulling, uri, version + 1, base)
    await still_answers(pulling, uri, 30)


# -- nothing is executed by the editor features -------------------------------------------


async def test_editor_features_never_execute_the_repository(pushing: LanguageClient, tmp_path: Path) -> None:
    """Protection: no process and no evaluation of repository text while the server
    checks, hovers, previews, completes, links and fixes a hostile eval file (the audit
    hook in `audited.py` records any; `stop` asserts none)."""
    root = tmp_path / "ws"
    path = root / "evals" / "hostile.eval.yaml"
    text = path.read_text()
    uri = open_text(pushing, path, text)
    await pushing.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    document = {"uri": uri}
    lines = text.split("\n")
    for line_number, line in enumerate(lines):
        position = {"line": line_number, "character": max(0, len(line) - len(line.lstrip()) + 2)}
        await answer(raw_request(pushing, "textDocument/hover", {"textDocument": document, "position": position}))
        await answer(raw_request(pushing, "textDocument/completion", {"textDocument": document, "position": position}))
        await answer(raw_request(pushing, "textDocument/definition", {"textDocument": document, "position": position}))
        await answer(
            raw_request(
                pushing,
                "workspace/executeCommand",
                {"command": "agentv.previewCase", "arguments": [{"uri": uri, "position": position}]},
            )
        )
    for method in ("textDocument/codeLens", "textDocument/documentSymbol", "textDocument/documentLink", "textDocument/diagnostic"):
        await answer(raw_request(pushing, method, {"textDocument": document}))
    await answer(raw_request(pushing, "workspace/executeCommand", {"command": "agentv.previewFile", "arguments": [{"uri": uri}]}))
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}
    diagnostics = [
        json.loads(json.dumps(pushing.protocol._converter.unstructure(d))) for d in pushing.diagnostics.get(uri, [])
    ]
    await answer(
        raw_request(
            pushing,
            "textDocument/codeAction",
            {"textDocument": document, "range": everything, "context": {"diagnostics": diagnostics}},
        )
    )
    assert not (root / "pwned").exists()
