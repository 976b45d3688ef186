"""A `$/cancelRequest` for a request already answered is routine (VS Code cancels hovers and
lenses it no longer needs): the server must not write it to stderr, which VS Code shows as an
`[error]` line in the output channel (issue 27)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def test_a_late_cancel_leaves_stderr_quiet() -> None:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "processId": None},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 128}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}},  # answered already
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None},
        {"jsonrpc": "2.0", "method": "exit", "params": None},
    ]
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "serve"],
        input=b"".join(_frame(m) for m in messages),
        capture_output=True,
        timeout=60,
    )
    assert b'"id": 2' in done.stdout.replace(b'"id":2', b'"id": 2')  # the server answered throughout
    assert b"Cancel notification" not in done.stderr, done.stderr.decode()[-500:]
