"""`python -m tests.third_format.toy.serve`: the language server with the toy format
registered, as a program embedding agentv-lsp with its own format would start it."""

from __future__ import annotations

import sys

from agentv_lsp.lsp.server import run_server
from tests.third_format.toy.editor import register

if __name__ == "__main__":
    register()
    sys.exit(run_server())
