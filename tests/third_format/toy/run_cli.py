"""`python -m tests.third_format.toy.run_cli ARGS...`: the command line with the toy format
registered, as a program embedding agentv-lsp with its own format would start it."""

from __future__ import annotations

import sys

from agentv_lsp.cli import main
from agentv_lsp.formats import registry
from tests.third_format.toy.engine import TOY

if __name__ == "__main__":
    registry.register(TOY)
    sys.exit(main(sys.argv[1:]))
