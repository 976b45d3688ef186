"""The language server's side of AgentV v2 files (`$schema: agentv-eval-v2`, `evalcases:`).

`filemodel.FileModel` is one version of a document the runtime choice (`formats.runtime`) gave
to v2, checked and navigated case by case; each other module answers one LSP feature for it,
called from `lsp/features/<feature>.py` (through `lsp/dispatch.py`) when the document's model
is a `FileModel`. The 4.x side is `lsp/v4/`; the two never import each other.
"""
