"""What keeps a request answered while another document is checked (issue 34): stdin read by
the event loop itself (`lsp/stdio.py`), and each request known to the checks while it is
answered, so that checks of other documents give way to it (`engine.budget.answering`)."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine import budget as budget_module
from agentv_lsp.lsp.server import create_server
from agentv_lsp.lsp.stdio import MAX_HEADER_LINE, LoopReader, loop_can_read, serve_stdio
from tests.lsp.conftest import EVAL, write_repo
from tests.lsp.rawrpc import RawClient


def test_the_loop_reads_pipes_and_sockets_only(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        assert loop_can_read(pipe)
    (tmp_path / "input").write_bytes(b"")
    with open(tmp_path / "input", "rb") as regular, open(os.devnull, "rb") as null:
        assert not loop_can_read(regular)  # epoll refuses regular files and /dev/null
        assert not loop_can_read(null)
    assert not loop_can_read(io.BytesIO(b""))


async def test_the_loop_reader_gives_lines_bodies_and_the_end_of_input() -> None:
    read_end, write_end = os.pipe()
    reader = LoopReader(os.fdopen(read_end, "rb"))

    def write() -> None:  # more than a pipe holds: written while the reader reads
        with os.fdopen(write_end, "wb") as writer:
            writer.write(b"Content-Length: 2\r\n\r\n{}" + b"x" * (MAX_HEADER_LINE + 10) + b"\r\nlast\r\n12")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert await reader.readline() == b"Content-Length: 2\r\n"
    assert await reader.readline() == b"\r\n"
    assert await reader.readexactly(2) == b"{}"
    assert await reader.readline() == b"?"  # a line no header is that long: not one, dropped
    assert await reader.readline() == b"last\r\n"
    assert await reader.readexactly(5) == b""  # the input ended before the body did
    assert await reader.readline() == b""
    writer.join(timeout=10)


def test_a_request_is_known_to_the_checks_while_it_is_answered() -> None:
    server = create_server()
    seen: list[list[str | None]] = []

    def handler(params: Any) -> None:
        seen.append([document for document, _ in budget_module._requests.values()])

    answers: list[Any] = []
    params = lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri="file:///small.yaml"), position=lsp.Position(0, 0)
    )
    server.protocol._execute_handler(7, handler, answers.append, (params,))
    assert seen == [["file:///small.yaml"]]
    assert len(answers) == 1 and not budget_module._requests  # answered: forgotten


def test_the_server_answers_over_pipes_read_by_the_loop(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "ws")
    server = create_server()
    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    thread = threading.Thread(
        target=serve_stdio,
        args=(server, os.fdopen(to_server, "rb"), os.fdopen(from_server, "wb")),
        daemon=True,
    )
    thread.start()
    client = RawClient(os.fdopen(to_client, "rb"), os.fdopen(from_client, "wb"))
    try:
        client.initialize(root.as_uri())
        uri = (root / "evals" / "suite.yaml").as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": EVAL}},
        )
        answer = client.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 6}}
        )
        assert answer.get("result"), answer
        client.request("shutdown")
    finally:
        client.writer.close()  # the end of input ends the server's loop
    thread.join(timeout=30)
    assert not thread.is_alive()
