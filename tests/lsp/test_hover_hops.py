"""Issue 37: a hover reaches the format's engine in at most 4 files: the handler
(`features/hover.py`), the registry (`editor.py`), the format's editor side (`lsp/v4/hover.py`),
the format's engine (`formats/v4/preview.py`). Measured on the call stack when the engine's
`preview_test` runs under a hover request's handler: the handler asks the registry for the
format and hands the format's `hover` to a worker thread, whose stack holds the rest."""

from __future__ import annotations

import asyncio
import traceback
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.formats.v4 import preview as v4_preview
from agentv_lsp.lsp.base import DocumentModel
from agentv_lsp.lsp.server import create_server
from agentv_lsp.lsp.v4 import EDITOR as V4_EDITOR
from tests.unit.test_layout_boundaries import imports_of

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "agentv_lsp"
EVAL = "description: hops\ntests:\n  - id: one\n    input: Hello there\n    criteria: Greets back.\n"


class ModelOnly:
    """What the hover handler asks of the server: the document's model, the encoding, `log`."""

    encoding = "utf-16"
    generation = 0

    def __init__(self, model: DocumentModel) -> None:
        self._model = model
        self.logged: list[str] = []

    async def model(self, uri: str) -> DocumentModel:
        return self._model

    def log(self, message: str, kind: Any = None) -> None:
        self.logged.append(message)


def test_a_hover_crosses_four_files_from_handler_to_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hops.eval.yaml"
    path.write_text(EVAL, encoding="utf-8")
    opts = CheckOptions(repo_root=str(tmp_path), cwd=str(tmp_path))
    choice = RuntimeChoice(4, "the test's choice")
    model = V4_EDITOR.build(
        ModelOnly(None), "file://" + str(path), str(path), EVAL, choice, opts, 1, None, None
    )  # type: ignore[arg-type]
    stacks: list[list[str]] = []
    real = v4_preview.preview_test

    def recording(*args: Any, **kwargs: Any) -> Any:
        stacks.append([frame.filename for frame in traceback.extract_stack()])
        return real(*args, **kwargs)

    monkeypatch.setattr(v4_preview, "preview_test", recording)
    # (pygls binds the server as the first argument; `func` is the handler as registered)
    handler = create_server().protocol.fm.features[lsp.TEXT_DOCUMENT_HOVER].func
    params = lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
        position=lsp.Position(line=3, character=6),
    )
    ls = ModelOnly(model)
    answer = asyncio.run(handler(ls, params))
    assert ls.logged == [] and answer is not None and "Hello there" in answer.contents.value
    (stack,) = stacks
    ours = [str(Path(f).relative_to(PACKAGE)) for f in stack if Path(f).is_relative_to(PACKAGE)]
    # each file once, in the order first entered; the model's per-version cache (`memoized`,
    # which calls back into hover.py to compute what it keeps) holds the answer, it is no hop
    in_thread = [f for f in dict.fromkeys(ours) if f != "lsp/v4/model.py"]
    in_thread.append("formats/v4/preview.py")  # (`recording` stands in front of the real one)
    # the worker thread starts in the format's editor side and goes straight to its engine
    assert in_thread == ["lsp/v4/hover.py", "formats/v4/preview.py"], in_thread
    # before it: the handler, and the registry that gave it the format (nothing else of ours)
    handler_imports = {
        name
        for name in imports_of(PACKAGE / "lsp" / "features" / "hover.py", annotations=True)
        if name.startswith("agentv_lsp.")
    }
    assert handler_imports == {
        "agentv_lsp.lsp.base",
        "agentv_lsp.lsp.base.ServerBase",
        "agentv_lsp.lsp.base.guard",
        "agentv_lsp.lsp.editor",
        "agentv_lsp.lsp.editor.format_of",
    }
    crossed = ["lsp/features/hover.py", "lsp/editor.py", *in_thread]
    assert len(crossed) == 4, crossed
