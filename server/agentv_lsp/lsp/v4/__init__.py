"""The language server's side of AgentV 4.42.4 files (`*.eval.yaml`, `tests:`).

`model.V4Model` is one version of a document the runtime choice (`formats.runtime`) gave to
4.x; each other module answers one LSP feature for it, called from `lsp/features/<feature>.py`
(through `lsp/dispatch.py`) when the document's model is a `V4Model`. The v2 side is `lsp/v2/`;
the two never import each other. Everything a request needs is computed once per
version on the model (parse, `load_suite`, check, per-test previews) and shared.
"""
