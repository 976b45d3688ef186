"""The one place the language-server layer tells the formats apart: each `lsp/features/X.py`
registers its LSP feature with pygls, then hands the request to the function of the same name
in the format's module (`lsp/v2/X.py` or `lsp/v4/X.py`; links and lenses are in
`navigation.py`, `agentv/status` in `commands.py`), chosen here by the document's model (which
`AgentVLanguageServer.build_model` built as `formats.runtime` chose: a v2 `FileModel` or a 4.x
`V4Model`). The two functions take the same arguments, so a feature has no `if v4:` of its own.
(`Callable[...]`: the two functions' model parameters differ, so mypy checks what they answer,
not the arguments a feature passes.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from agentv_lsp.lsp.v2.filemodel import FileModel
from agentv_lsp.lsp.v4.model import V4Model

if TYPE_CHECKING:
    from agentv_lsp.lsp.server import AgentVLanguageServer

Model = FileModel | V4Model
Answer = TypeVar("Answer")


def by_format(model: Model, *, v2: Callable[..., Answer], v4: Callable[..., Answer]) -> Callable[..., Answer]:
    """`v4` for a 4.x document's model, `v2` for a v2 one's."""
    return v4 if isinstance(model, V4Model) else v2


def by_runtime(
    ls: AgentVLanguageServer, uri: str, *, v2: Callable[..., Answer], v4: Callable[..., Answer]
) -> Callable[..., Answer]:
    """The same choice without a model, from the runtime choice for the open document `uri`
    (`judged_by_v4`), for the requests that must not wait for one (completion, code actions)."""
    return v4 if ls.judged_by_v4(uri) else v2
