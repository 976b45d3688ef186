"""agentv-lsp: language server, checker and previewer for AgentV eval files."""

__version__ = "0.1.0"
