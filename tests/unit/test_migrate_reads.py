"""migrate reads every file through the FileSystem it is given: its walk, the v2 test, the
eval file itself and the files that may mention a renamed one; nothing opens a file beside it."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.engine.files import DISK, FileSystem
from agentv_lsp.migrate import cli_glue
from agentv_lsp.migrate.cli_glue import discover, migrate_path, update_references

V2 = "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: ok\n    input_messages:\n      - role: user\n        content: hi\n"


class RecordingSource:
    """The disk, with every read of a file's bytes written down."""

    def __init__(self) -> None:
        self.reads: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(DISK, name)

    def read_regular(self, path: str, limit: int) -> tuple[bytes, int]:
        self.reads.append(path)
        return DISK.read_regular(path, limit)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "suite.yaml").write_text(V2, "utf-8")
    (tmp_path / "evals" / "other.yaml").write_text("tests: []\n", "utf-8")
    (tmp_path / "README.md").write_text("run evals/suite.yaml\n", "utf-8")
    return tmp_path


def _no_open_for_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = builtins.open

    def guarded(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "r" in mode and "+" not in mode:
            raise AssertionError(f"read beside the FileSystem: {file}")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)


def test_every_read_goes_through_the_file_system(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = RecordingSource()
    fs = FileSystem(source=source, cache=False)
    _no_open_for_reading(monkeypatch)
    found = list(discover(["evals"], str(repo), fs))
    assert found == [str(repo / "evals" / "suite.yaml")]  # other.yaml was read, and is not v2
    assert str(repo / "evals" / "other.yaml") in source.reads
    migration = migrate_path(found[0], str(repo), str(repo), fs)
    assert migration.status == "migrated" and migration.new_path.endswith("suite.eval.yaml")
    update_references([migration], str(repo), fs)
    assert [c.path for c in migration.companions] == [str(repo / "README.md")]
    assert str(repo / "README.md") in source.reads
    assert source.reads.count(found[0]) >= 2  # once to find it is v2, once to migrate it


def test_a_file_over_the_cap_is_reported_not_read_whole(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_glue, "_MAX_EVAL_BYTES", 32)
    path = str(repo / "evals" / "suite.yaml")
    assert list(discover(["evals"], str(repo), FileSystem())) == []  # too large to be judged v2
    migration = migrate_path(path, str(repo), str(repo), FileSystem())
    assert migration.status == "untouched" and migration.needs_attention
    assert "larger than" in migration.findings[0].message


def test_a_file_outside_the_allowed_roots_is_not_read(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "suite.yaml"
    outside.write_text(V2, "utf-8")
    (repo / "evals" / "linked.yaml").symlink_to(outside)
    source = RecordingSource()
    fs = FileSystem(source=source, allowed_roots=(str(repo.resolve()),))
    migration = migrate_path(str(repo / "evals" / "linked.yaml"), str(repo), str(repo), fs)
    assert migration.status == "untouched" and str(repo / "evals" / "linked.yaml") not in source.reads
