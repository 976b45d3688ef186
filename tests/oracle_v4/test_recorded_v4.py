"""The recorded folders (tests/oracle_v4/cases, recorded by driver.mjs from AgentV 4.42.4) against
our whole pipeline: the preview (loader, prompt builder and grader prompt together, every field
golden-v4/compare.py compares plus `judge_prompt`) and the check (compare.py's check rules against
what `agentv validate` printed). Needs no node: the runtime's answers are on disk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.oracle_v4.oracle import compare_check, compare_with_runtime, our_check, our_preview

CASES = Path(__file__).resolve().parent / "cases"


def _recorded_files() -> list[Any]:
    params = []
    for case in sorted(p for p in CASES.iterdir() if (p / "expected" / "_case.json").is_file()):
        meta = json.loads((case / "expected" / "_case.json").read_text(encoding="utf-8"))
        for eval_file in meta["eval_files"]:
            params.append(
                pytest.param(case, eval_file, meta.get("git_root", True), id=f"{case.name}/{eval_file}")
            )
    return params


@pytest.mark.parametrize(("case", "eval_file", "git_root"), _recorded_files())
def test_preview_of_recorded_folders_matches_runtime(
    tmp_path: Path, case: Path, eval_file: str, git_root: bool
) -> None:
    root, record = _stage(tmp_path, case, eval_file, git_root)
    ours = our_preview(root, eval_file)
    differences = compare_with_runtime(record, ours, root)
    assert not differences, "\n".join(f"{d.where}: {d.detail}" for d in differences)
    for have in ours.get("cases", []):
        assert "judge_prompt" in have, "the preview reports each test's grader request"


@pytest.mark.parametrize(("case", "eval_file", "git_root"), _recorded_files())
def test_check_of_recorded_folders_agrees_with_validate(
    tmp_path: Path, case: Path, eval_file: str, git_root: bool
) -> None:
    root, record = _stage(tmp_path, case, eval_file, git_root)
    problems = compare_check(record, our_check(root, eval_file))
    assert not problems, "\n".join(problems)


def _stage(tmp_path: Path, case: Path, eval_file: str, git_root: bool) -> tuple[Path, dict[str, Any]]:
    """The folder copied three levels deep (as compare.py does), with its recorded answer."""
    root = tmp_path / "a" / "b" / "c" / "case"
    shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected"))
    if git_root:
        (root / ".git").mkdir(exist_ok=True)
    record = json.loads(
        (case / "expected" / (eval_file.replace("/", "__") + ".json")).read_text(encoding="utf-8")
    )
    return root, record


def test_the_check_rule_refuses_an_error_on_a_file_the_runtime_runs() -> None:
    """README's severity rule, as the comparison applies it: a file that loads and that validate
    passes (exit 0) may get warnings, never an error, even when the runtime printed something."""
    record = {
        "load_error": None,
        "warnings": ["warn: Warning: something the runtime printed"],
        "validation": {"exit_code": 0, "issues": []},
    }
    warning = {"path": "tests[0].input", "severity": "warning", "message": "m"}
    assert compare_check(record, [warning]) == []
    (problem,) = compare_check(record, [warning, {**warning, "severity": "error"}])
    assert "loads and validate passes" in problem
    failing = {**record, "validation": {"exit_code": 1, "issues": []}}
    assert compare_check(failing, [{**warning, "severity": "error"}]) == []
