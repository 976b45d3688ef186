"""`agentv-lsp serve` accepts the arguments LSP clients add (vscode-languageclient: --stdio)."""

from __future__ import annotations

import subprocess
import sys


def test_serve_accepts_stdio_flags_and_exits_when_the_client_goes_away() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "serve", "--stdio", "--clientProcessId=1"],
        input=b"",
        capture_output=True,
        timeout=30,
    )
    assert b"unrecognized arguments" not in done.stderr
    assert done.returncode == 0, done.stderr.decode()
