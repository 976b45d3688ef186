"""A 4.x hover on a reference to a folder lists the folder through the FileSystem, so an
untrusted workspace never shows the names in a folder outside it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.lsp.v4.hover import _file_head


def _model(fs: FileSystem) -> SimpleNamespace:
    return SimpleNamespace(opts=SimpleNamespace(fs=fs))


def test_a_folder_inside_the_workspace_is_listed(tmp_path: Path) -> None:
    (tmp_path / "judges").mkdir()
    for name in ("z.md", "a.md"):
        (tmp_path / "judges" / name).write_text("x")
    head = _file_head(_model(FileSystem(allowed_roots=(str(tmp_path),))), str(tmp_path / "judges"))  # type: ignore[arg-type]
    assert head == "Folder: `a.md`, `z.md`"


def test_a_folder_outside_an_untrusted_workspace_is_not_listed(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    outside.mkdir()
    (outside / ".ssh").mkdir()
    fs = FileSystem(allowed_roots=(str(workspace),))
    assert _file_head(_model(fs), str(outside)) is None  # type: ignore[arg-type]
    assert _file_head(_model(FileSystem()), str(outside)) == "Folder: `.ssh`"  # type: ignore[arg-type]
