"""The language server's side of AgentV v2 files (`$schema: agentv-eval-v2`, `evalcases:`).

`EDITOR` (`editor.py`) is v2's `EditorFormat` (`lsp/editor.py`), which the features call when
the registry gives a document to v2. `model.FileModel` is one version of such a document,
checked and navigated case by case; each other module answers one LSP feature for it. The 4.x
side is `lsp/v4/`; the two never import each other.
"""

from agentv_lsp.lsp.v2.editor import EDITOR

__all__ = ["EDITOR"]
