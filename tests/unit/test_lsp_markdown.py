"""`lsp/markdown.py`: the fenced blocks and file heads both formats' hovers show."""

from __future__ import annotations

from pathlib import Path

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.lsp.markdown import HEAD_LINES, fence, file_head


def test_a_fence_is_longer_than_any_backticks_inside() -> None:
    block = fence("a ```` b", "yaml")
    assert block.startswith("`````yaml\n")
    assert block.endswith("\n`````")


def test_a_fence_shows_hidden_characters_and_says_so() -> None:
    block = fence("x\u202ey")
    assert "\u202e" not in block
    assert "U+202E" in block


def test_a_file_head_shows_its_first_lines_and_counts_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "prompt.md"
    path.write_text("\n".join(f"line {n}" for n in range(HEAD_LINES + 3)))
    head = file_head(FileSystem(), str(path))
    assert head is not None
    assert f"line {HEAD_LINES - 1}\n" in head
    assert f"line {HEAD_LINES}" not in head
    assert head.endswith("*… 3 more lines*")


def test_a_short_file_head_has_no_count(tmp_path: Path) -> None:
    path = tmp_path / "short.md"
    path.write_text("one\ntwo")
    assert file_head(FileSystem(), str(path)) == "```text\none\ntwo\n```"


def test_a_file_head_of_a_binary_a_missing_or_a_forbidden_file(tmp_path: Path) -> None:
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\x00\x01\x02")
    assert file_head(FileSystem(), str(binary)) == "*Binary file.*"
    assert file_head(FileSystem(), str(tmp_path / "missing.md")) is None
    assert file_head(FileSystem(), str(tmp_path)) is None  # a folder is not a file
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    head = file_head(FileSystem(allowed_roots=(str(tmp_path / "workspace"),)), str(outside))
    assert head is not None and head.startswith("Cannot read: EACCES: outside the workspace folders")
    assert "secret" not in head
