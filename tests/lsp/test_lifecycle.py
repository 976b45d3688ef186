"""The server's lifecycle through raw JSON-RPC over stdio (what pytest-lsp cannot express):
requests after `shutdown` are refused with InvalidRequest, `exit` ends the process with 0
after `shutdown` and 1 without it, a second `initialize` is refused, the client's processId
is watched, `exit` does not wait for a running check; and an in-process server driven over
pipes forgets every opened-and-closed document."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.lsp.lifecycle import PARENT_POLL_SECONDS, process_alive
from agentv_lsp.lsp.server import AgentVLanguageServer, create_server
from agentv_lsp.lsp.v2 import EDITOR as V2_EDITOR
from agentv_lsp.lsp.v4 import EDITOR as V4_EDITOR
from tests.lsp.conftest import EVAL, write_repo
from tests.lsp.rawrpc import RawClient, spawn
from tests.reliability.hostile_families import FAMILIES

INVALID_REQUEST = -32600
SERVER_NOT_INITIALIZED = -32002
HOVER = {"textDocument": {"uri": "file:///nowhere/x.yaml"}, "position": {"line": 0, "character": 0}}


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[bytes], RawClient]]:
    process, client = spawn()
    yield process, client
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def test_requests_after_shutdown_are_refused_with_invalid_request(served: Any) -> None:
    process, client = served
    client.initialize()
    assert "result" in client.request("textDocument/hover", HOVER)
    shutdown = client.request("shutdown")
    assert "error" not in shutdown and shutdown["result"] is None
    for method, params in (("textDocument/hover", HOVER), ("agentv/status", {"uri": "file:///x.yaml"})):
        reply = client.request(method, params)
        assert reply["error"]["code"] == INVALID_REQUEST, reply
        assert method in reply["error"]["message"] and "shutdown" in reply["error"]["message"]
    client.notify("exit")
    assert process.wait(timeout=30) == 0


def test_before_initialize_requests_are_refused_and_notifications_dropped(
    served: Any, tmp_path: Path
) -> None:
    process, client = served
    reply = client.request("textDocument/hover", HOVER)
    assert reply["error"]["code"] == SERVER_NOT_INITIALIZED, reply
    assert "textDocument/hover" in reply["error"]["message"] and "initialize" in reply["error"]["message"]
    # a document opened before `initialize` is not known afterwards: the notification was dropped
    uri = (tmp_path / "early.eval.yaml").as_uri()
    text = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n"
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    )
    client.initialize(tmp_path.as_uri())
    position = {"line": 1, "character": 8}
    assert (
        client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})["result"]
        is None
    )
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    )
    answered = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})
    assert answered["result"] is not None, answered
    client.request("shutdown")
    client.notify("exit")
    assert process.wait(timeout=30) == 0


def test_exit_without_shutdown_exits_with_1(served: Any) -> None:
    process, client = served
    client.initialize()
    client.notify("exit")
    assert process.wait(timeout=30) == 1


def test_exit_after_shutdown_exits_with_0(served: Any) -> None:
    process, client = served
    client.initialize()
    client.request("shutdown")
    client.notify("exit")
    assert process.wait(timeout=30) == 0


def test_a_second_initialize_is_refused_and_the_session_goes_on(served: Any) -> None:
    process, client = served
    first = client.initialize()
    assert first["result"]["serverInfo"]["name"] == "agentv-lsp"
    again = client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert again["error"]["code"] == INVALID_REQUEST and "initialize" in again["error"]["message"]
    assert "result" in client.request("textDocument/hover", HOVER)
    client.request("shutdown")
    client.notify("exit")
    assert process.wait(timeout=30) == 0


def test_the_server_exits_when_the_client_process_dies(served: Any) -> None:
    process, client = served
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        client.initialize(process_id=parent.pid)
        # a few polls of the watcher pass while the client lives: the server stays
        time.sleep(3 * PARENT_POLL_SECONDS)
        assert "result" in client.request("textDocument/hover", HOVER)
    finally:
        parent.kill()
        parent.wait(timeout=30)
    assert process.wait(timeout=30) == 1  # no shutdown came first
    assert process.stderr is not None and str(parent.pid) in process.stderr.read().decode()


def test_process_alive() -> None:
    assert process_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    assert not process_alive(child.pid)


def test_exit_during_a_long_check_does_not_wait_for_it(served: Any, tmp_path: Path) -> None:
    """The same check is timed once to its diagnostics; the second time `exit` comes while it
    runs, and the process ends in well under that time (it used to wait for the check)."""
    process, client = served
    root = write_repo(tmp_path / "ws", {})
    text = next(iter(FAMILIES["many-cases-with-errors"](6000).values()))
    client.initialize(root.as_uri())

    def open_and_wait_for_model(name: str) -> str:
        path = root / "evals" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        uri = path.as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        )
        # answered once the model is built; the check starts from that same model
        client.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
            timeout=120,
        )
        return uri

    first = open_and_wait_for_model("first.yaml")
    start = time.monotonic()
    client.notification(
        "textDocument/publishDiagnostics", lambda p: p["uri"] == first and p["diagnostics"], timeout=120
    )
    check_seconds = time.monotonic() - start
    open_and_wait_for_model("second.yaml")
    start = time.monotonic()
    client.request("shutdown")
    client.notify("exit")
    assert process.wait(timeout=120) == 0
    exit_seconds = time.monotonic() - start
    assert exit_seconds < check_seconds / 2, (exit_seconds, check_seconds)


# -- memory: nothing is kept for a document once it is closed ----------------------------


def per_document_entries(server: AgentVLanguageServer) -> dict[str, int]:
    """How many entries the server's per-document state holds (pygls' included)."""
    return {
        "documents": len(server.workspace.text_documents),
        "models": len(server._models),
        "v2 unit caches": len(V2_EDITOR.state.caches),
        "v2 diagnostics placements": len(V2_EDITOR.state.blocks),
        "lines": len(server._lines),
        "building": len(server._building),
        "runtimes": len(server._runtimes),
        "4.x histories": len(V4_EDITOR.state.histories),
        "pending checks": len(server.pending),
        "running checks": len(server.budgets),
        "published": len(server.published),
        "request futures": len(server.protocol._request_futures),
        "4.x migrations": len(V4_EDITOR.state.migrations),
        "4.x cases-file verdicts": len(V4_EDITOR.state.models.used_as_tests),
    }


def test_closed_documents_leave_nothing_behind(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "ws")
    server = create_server()
    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    thread = threading.Thread(
        target=server.start_io, args=(os.fdopen(to_server, "rb"), os.fdopen(from_server, "wb")), daemon=True
    )
    thread.start()
    client = RawClient(os.fdopen(to_client, "rb"), os.fdopen(from_client, "wb"))
    try:
        client.initialize(root.as_uri())
        # the formats' editor instances are the process's: what other servers of this test
        # process left there is no concern of this one's documents
        before = per_document_entries(server)
        v4 = "description: x\ntests:\n  - id: one\n    input: Hello\n    criteria: Greets.\n"
        for n in range(60):
            # a v2 eval file, a 4.x one, and YAML that may be a 4.x cases file
            name, text = [(f"d{n}.yaml", EVAL), (f"d{n}.eval.yaml", v4), (f"d{n}.cases.yaml", "- id: x\n")][
                n % 3
            ]
            uri = (root / "evals" / name).as_uri()
            client.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
            )
            client.request(
                "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 6}}
            )
            client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
            everything = {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}
            client.request(
                "textDocument/codeAction",
                {"textDocument": {"uri": uri}, "range": everything, "context": {"diagnostics": []}},
            )
            change = {
                "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                "text": "#\n",
            }
            client.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]},
            )
            client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            if n % 3 == 0:  # v2 documents with errors: their diagnostics come (and are cleared on close)
                client.notification(
                    "textDocument/publishDiagnostics", lambda p, uri=uri: p["uri"] == uri and p["diagnostics"]
                )
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        client.request("textDocument/hover", HOVER)  # answered after every notification above was handled
        assert per_document_entries(server) == before
        assert before["documents"] == before["models"] == 0  # (the server's own state starts empty)
        client.request("shutdown")
        client.notify("exit")
    finally:
        client.writer.close()  # end of input: the server's loop ends even if an assertion failed
    thread.join(timeout=30)
