"""The language server's side of AgentV 4.42.4 files (`*.eval.yaml`, `tests:`).

`EDITOR` (`editor.py`) is 4.x's `EditorFormat` (`lsp/editor.py`), which the features call when
the registry gives a document to 4.x. `model.V4Model` is one version of such a document; each
other module answers one LSP feature for it. The v2 side is `lsp/v2/`; the two never import
each other. Everything a request needs is computed once per version on the model (parse,
`load_suite`, check, per-test previews) and shared.
"""

from agentv_lsp.lsp.v4.editor import EDITOR

__all__ = ["EDITOR"]
