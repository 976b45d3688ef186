"""`agentv-lsp serve` accepts the arguments LSP clients add (vscode-languageclient: --stdio)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time


def test_serve_accepts_stdio_flags_and_exits_when_the_client_goes_away() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "serve", "--stdio", "--clientProcessId=1"],
        input=b"",
        capture_output=True,
        timeout=30,
    )
    assert b"unrecognized arguments" not in done.stderr
    assert done.returncode == 0, done.stderr.decode()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _read_message(stream: socket.socket) -> dict[str, object]:
    header = b""
    while not header.endswith(b"\r\n\r\n"):
        chunk = stream.recv(1)
        assert chunk, "the server closed the connection"
        header += chunk
    length = int(
        next(line for line in header.split(b"\r\n") if line.lower().startswith(b"content-length")).split(
            b":"
        )[1]
    )
    body = b""
    while len(body) < length:
        body += stream.recv(length - len(body))
    return json.loads(body)  # type: ignore[no-any-return]


def _send(stream: socket.socket, message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    stream.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def test_serve_over_tcp_for_debugging() -> None:
    """`agentv-lsp serve --tcp HOST:PORT` answers LSP on a socket (for attaching a debugger)."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "agentv_lsp", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                stream = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.05)  # polling for the port to open: there is no notification to wait on
        with stream:
            _send(stream, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
            reply = _read_message(stream)
            while "id" not in reply:  # notifications (log messages) may come first
                reply = _read_message(stream)
            assert reply["id"] == 1
            result = reply["result"]
            assert isinstance(result, dict) and result["serverInfo"]["name"] == "agentv-lsp"
            _send(stream, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    finally:
        server.kill()
        server.wait(timeout=30)
