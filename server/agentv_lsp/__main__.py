"""`python -m agentv_lsp` behaves exactly like the `agentv-lsp` console script."""

from agentv_lsp.cli import entry

entry()
