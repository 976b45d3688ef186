"""4.x's caches belong to its editor instance (`lsp/v4.EDITOR.state`, issue 37), not to module
globals: the models an editor builds share its state's caches, a closed document's entries
go with `forget`, and each cache keeps its bound in least-recently-used order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.formats.v2.check import CheckOptions
from agentv_lsp.lsp.convert import path_to_uri
from agentv_lsp.lsp.v4 import EDITOR, symbols
from agentv_lsp.lsp.v4.editor import V4Editor
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.state import V4State
from agentv_lsp.lsp.v4.units import unit_at
from tests.lsp.test_v4_incremental import write_big_repo

V4 = RuntimeChoice(4, "asked for AgentV 4")


def options(root: Path) -> CheckOptions:
    return CheckOptions(repo_root=str(root), cwd=str(root), fs=FileSystem())


def build(editor: V4Editor, path: Path, text: str, opts: CheckOptions) -> V4Model:
    server: Any = SimpleNamespace(generation=0)  # `build` reads only the server's generation
    model = editor.build(server, path_to_uri(str(path)), str(path), text, V4, opts, 1, None, None)
    assert isinstance(model, V4Model)
    return model


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_repo(tmp_path_factory.mktemp("big") / "repo")


def test_the_unit_models_of_a_large_file_live_in_their_editors_state(big: Path) -> None:
    opts = options(big.parent.parent)
    text = big.read_text()
    line = text.split("\n").index("  - id: case-7")
    mine, other = V4Editor(V4State()), V4Editor(V4State())

    model = build(mine, big, text, opts)
    found = unit_at(model, line)
    assert found is not None, "the large file was not cut into units"
    unit = found[0]

    assert model.caches is mine.state.models
    assert unit.caches is mine.state.models  # a unit's own units and verdicts go there too
    assert list(mine.state.models.units.values()) == [unit]
    assert not other.state.models.units
    # the next version's unit for the same test text is the remembered one
    again = unit_at(build(mine, big, text, opts), line)
    assert again is not None and again[0] is unit


def test_forget_drops_only_the_closed_documents_entries(tmp_path: Path) -> None:
    state = V4State()
    editor = V4Editor(state)
    closed, kept = tmp_path / "closed.cases.yaml", tmp_path / "kept.cases.yaml"
    for path in (closed, kept):
        path.write_text("- id: a\n")
        build(editor, path, path.read_text(), options(tmp_path))  # asks whether an eval file names it
        placeholder: Any = SimpleNamespace()  # only its presence is looked at
        state.migrations[path_to_uri(str(path))] = (1, path.read_text(), placeholder)
    assert {key[0] for key in state.models.used_as_tests} == {str(closed), str(kept)}

    editor.forget(path_to_uri(str(closed)))

    assert list(state.migrations) == [path_to_uri(str(kept))]
    assert {key[0] for key in state.models.used_as_tests} == {str(kept)}


def test_the_open_documents_tests_keep_the_newest_within_their_bound(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    opts = options(tmp_path)
    remembered = EDITOR.state.open_tests
    path = str(tmp_path / "one.eval.yaml")
    texts = [
        f"tests:\n  - id: t{i}\n    input: hi\n    criteria: ok\n" for i in range(symbols.MAX_REMEMBERED + 1)
    ]

    first = symbols.open_document_tests(path, texts[0], opts, 0)
    assert [t.id for t in first] == ["t0"]
    assert symbols.open_document_tests(path, texts[0], opts, 0) is first  # remembered
    for text in texts[1:]:
        symbols.open_document_tests(path, text, opts, 0)

    assert len(remembered) <= symbols.MAX_REMEMBERED
    mine = [key for key in remembered if key[0] == path]
    assert len(mine) == symbols.MAX_REMEMBERED  # the oldest went, the newest stayed
    assert (path, len(texts[0]), hash(texts[0]), opts.repo_root, 0) not in remembered
    assert (path, len(texts[-1]), hash(texts[-1]), opts.repo_root, 0) in remembered
