"""`engine.walk.walk_yaml`: the one folder walk, under AgentV's rules (check, workspace
symbols) and under `migrate`'s (`MIGRATE_WALK`, what its `os.walk` did before it moved here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentv_lsp.engine.walk import AGENTV_WALK, MIGRATE_WALK, walk_yaml
from agentv_lsp.migrate.cli_glue import discover

V2 = "$schema: agentv-eval-v2\nevalcases: []\n"


def _tree(root: Path, files: list[str]) -> None:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(V2)


def _walked(root: Path, rules=AGENTV_WALK) -> list[str]:
    return [os.path.relpath(p, root) for p in walk_yaml(str(root), rules=rules)]


ORDER_TREE = ["b.yaml", "a/x.yaml", "c/y.yml", "d.YML", "notes.txt"]


def test_agentv_walk_takes_files_and_folders_in_one_name_order(tmp_path: Path) -> None:
    _tree(tmp_path, ORDER_TREE)
    assert _walked(tmp_path) == ["a/x.yaml", "b.yaml", "c/y.yml", "d.YML"]


def test_migrate_walk_takes_a_folders_files_before_its_subfolders(tmp_path: Path) -> None:
    _tree(tmp_path, ORDER_TREE)
    assert _walked(tmp_path, MIGRATE_WALK) == ["b.yaml", "d.YML", "a/x.yaml", "c/y.yml"]


SKIP_TREE = [
    "keep.yaml",
    ".github/dot.yaml",
    "node_modules/nm.yaml",
    "venv/venv.yaml",
    "__pycache__/cache.yaml",
    ".git/git.yaml",
]


def test_agentv_walk_skips_node_modules_and_every_dot_folder(tmp_path: Path) -> None:
    _tree(tmp_path, SKIP_TREE)
    assert _walked(tmp_path) == ["__pycache__/cache.yaml", "keep.yaml", "venv/venv.yaml"]


def test_migrate_walk_skips_its_own_folder_list_only(tmp_path: Path) -> None:
    _tree(tmp_path, SKIP_TREE)
    assert _walked(tmp_path, MIGRATE_WALK) == ["keep.yaml", ".github/dot.yaml"]


def test_only_agentv_walk_enters_a_linked_folder(tmp_path: Path) -> None:
    _tree(tmp_path, ["real/e.yaml"])
    (tmp_path / "via").symlink_to(tmp_path / "real")
    assert _walked(tmp_path) == ["real/e.yaml", "via/e.yaml"]
    assert _walked(tmp_path, MIGRATE_WALK) == ["real/e.yaml"]


def test_only_migrate_walk_finds_a_broken_link_for_the_caller_to_judge(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").symlink_to(tmp_path / "missing.yaml")
    assert _walked(tmp_path) == []
    assert _walked(tmp_path, MIGRATE_WALK) == ["broken.yaml"]


def test_unreadable_folder_is_said_only_under_agentv_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "gone"
    assert list(walk_yaml(str(missing))) == []
    assert "could not read directory" in capsys.readouterr().err
    assert list(walk_yaml(str(missing), rules=MIGRATE_WALK)) == []
    assert capsys.readouterr().err == ""


def test_migrate_discovery_keeps_its_order_and_symlink_rules(tmp_path: Path) -> None:
    _tree(tmp_path, ["z.yaml", "a/b.yaml", ".github/c.yaml", "venv/d.yaml"])
    (tmp_path / "a" / "plain.yaml").write_text("tests: []\n")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "z.yaml")  # the same file: migrated once, as itself
    (tmp_path / "linkdir").symlink_to(tmp_path / "a")  # not entered
    (tmp_path / "broken.yaml").symlink_to(tmp_path / "missing.yaml")  # cannot be read: not v2
    found = [os.path.relpath(p, tmp_path) for p in discover(["."], str(tmp_path))]
    assert found == ["z.yaml", ".github/c.yaml", "a/b.yaml"]


def test_a_link_back_to_a_folder_being_walked_is_not_entered_again(tmp_path: Path) -> None:
    # before: evals/self/e.yaml, evals/self/self/e.yaml, ... until ELOOP (2**40 paths with two links)
    _tree(tmp_path, ["evals/e.yaml"])
    (tmp_path / "evals" / "self").symlink_to(".")
    assert _walked(tmp_path) == ["evals/e.yaml"]


def test_a_link_to_a_folder_outside_the_walk_is_still_entered_once(tmp_path: Path) -> None:
    _tree(tmp_path, ["shared/s.yaml", "evals/e.yaml"])
    (tmp_path / "evals" / "shared").symlink_to(tmp_path / "shared")
    (tmp_path / "evals" / "again").symlink_to(tmp_path / "shared")
    assert _walked(tmp_path / "evals") == ["again/s.yaml", "e.yaml", "shared/s.yaml"]
