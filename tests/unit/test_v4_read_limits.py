"""What the 4.x path reads past its limits, it says (issue 25, items 4 and 6): a referenced file
cut at the read cap gets `file-truncated` (as v2 does) in the preview's warnings and a check
diagnostic at the reference; a `file://` glob whose walk stops at its cap gets `glob-capped`,
and the walk is sorted, so which files are left out does not depend on the file system."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4 import fastglob
from agentv_lsp.formats.v4.check import check_v4_document
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.preview import preview_v4

HUGE = 133 * 1024 * 1024  # a sparse file: `truncate -s 133M`, no data written

SEGMENT_SUITE = """\
description: a suite with a large file
tests:
  - id: big
    criteria: reads the log
    input:
      - role: user
        content:
          - type: text
            value: Summarise this log
          - type: file
            value: logs/big.log
"""

GRADER_SUITE = """\
description: a suite with a large grader prompt
tests:
  - id: t
    criteria: ok
    input: hi
    assertions:
      - name: judge
        type: llm-grader
        prompt: file://judge.md
"""


def _repo(tmp_path: Path, suite: str, big: str, head: bytes) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.eval.yaml").write_text(suite)
    path = tmp_path / big
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(HUGE)
    return tmp_path


def test_a_cut_file_segment_is_named_in_the_preview(tmp_path: Path) -> None:
    root = _repo(tmp_path, SEGMENT_SUITE, "logs/big.log", b"line one\n")
    fs = FileSystem(max_bytes=4096)
    result = preview_v4(str(root / "a.eval.yaml"), str(root), str(root), fs)
    (warning,) = [w for w in result["warnings"] if "big.log" in w]
    assert warning.startswith("agentv-lsp read only the first 4,096 bytes of ")
    assert f"({HUGE:,} bytes)" in warning
    (case,) = result["cases"]
    assert "line one" in case["lm"]["question"]


def test_a_cut_file_segment_is_a_check_diagnostic_at_the_reference(tmp_path: Path) -> None:
    root = _repo(tmp_path, SEGMENT_SUITE, "logs/big.log", b"line one\n")
    path = str(root / "a.eval.yaml")
    opts = CheckOptions(repo_root=str(root), cwd=str(root), fs=FileSystem(max_bytes=4096))
    report = check_v4_document(path, (root / "a.eval.yaml").read_text(), opts)
    (found,) = [d for d in report.diagnostics if d.code == "file-truncated"]
    assert found.severity == "warning" and "big.log" in found.message and "4,096 bytes" in found.message
    assert found.span.start_line == SEGMENT_SUITE.splitlines().index("            value: logs/big.log")
    assert not found.message.startswith("AgentV runtime")  # ours, not the runtime's


def test_a_cut_grader_prompt_is_named_once(tmp_path: Path) -> None:
    root = _repo(tmp_path, GRADER_SUITE, "judge.md", b"Rate {{ output }}\n")
    suite = load_suite(str(root / "a.eval.yaml"), str(root), str(root), FileSystem(max_bytes=4096), env={})
    notices = [m for m in suite.messages if m.code == "file-truncated"]
    assert len(notices) == 1 and notices[0].yaml_path == ("tests", 0, "assertions", 0, "prompt")


def test_check_names_a_cut_file_at_the_default_cap(tmp_path: Path, cli) -> None:
    root = _repo(tmp_path, SEGMENT_SUITE, "logs/big.log", b"line one\n")
    result = cli("check", "a.eval.yaml", "--format", "json", cwd=root)
    payload = json.loads(result.out)
    (found,) = [d for d in payload["diagnostics"] if d["code"] == "file-truncated"]
    assert "8,388,608 bytes" in found["message"] and found["range"]["start"]["line"] == 10


GLOB_SUITE = "description: many cases\ntests:\n  - file://cases/*.yaml\n"


def _cases(root: Path, count: int) -> None:
    (root / ".git").mkdir()
    (root / "a.eval.yaml").write_text(GLOB_SUITE)
    (root / "cases").mkdir()
    # created in reverse order: a walk in creation order would keep the last ones
    for i in reversed(range(count)):
        (root / "cases" / f"c{i:02}.yaml").write_text(f"- id: t{i:02}\n  criteria: ok\n  input: hi\n")


def test_a_glob_walk_stopped_at_its_cap_says_so_and_keeps_the_first_files_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cases(tmp_path, 12)
    monkeypatch.setattr(fastglob, "MAX_ENTRIES", 5)
    suite = load_suite(str(tmp_path / "a.eval.yaml"), str(tmp_path), str(tmp_path), FileSystem(), env={})
    assert [t.id for t in suite.tests] == ["t00", "t01", "t02", "t03", "t04"]
    (notice,) = [m for m in suite.messages if m.code == "glob-capped"]
    assert "file://cases/*.yaml" in notice.text and "5 files and folders" in notice.text
    assert notice.yaml_path == ("tests", 0) and notice.stream == "notice"
    monkeypatch.setattr(fastglob, "MAX_ENTRIES", 50)
    whole = load_suite(str(tmp_path / "a.eval.yaml"), str(tmp_path), str(tmp_path), FileSystem(), env={})
    assert len(whole.tests) == 12 and not [m for m in whole.messages if m.code == "glob-capped"]


def test_the_cap_counts_folders_and_stops_before_entering_more(tmp_path: Path) -> None:
    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
        for i in range(3):
            (tmp_path / folder / f"{i}.yaml").write_text("")
    walked = fastglob.glob_files(FileSystem(), f"{tmp_path}/**/*.yaml", max_entries=6)
    # a, b, c (3 entries), then a/0..a/2 (3 more): b and c are never looked into
    assert walked.capped and [os.path.relpath(f, tmp_path) for f in walked.files] == [
        "a/0.yaml",
        "a/1.yaml",
        "a/2.yaml",
    ]
    whole = fastglob.glob_files(FileSystem(), f"{tmp_path}/**/*.yaml", max_entries=12)
    assert not whole.capped and len(whole.files) == 9


def test_check_and_preview_name_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    _cases(tmp_path, 12)
    monkeypatch.setattr(fastglob, "MAX_ENTRIES", 5)
    checked = json.loads(cli("check", "a.eval.yaml", "--format", "json", cwd=tmp_path).out)
    (found,) = [d for d in checked["diagnostics"] if d["code"] == "glob-capped"]
    assert found["severity"] == "warning" and found["range"]["start"]["line"] == 2
    previewed = json.loads(cli("preview", "a.eval.yaml", "--json", cwd=tmp_path).out)
    assert any("agentv-lsp stopped looking for file://cases/*.yaml" in w for w in previewed["warnings"])
    assert len(previewed["cases"]) == 5
