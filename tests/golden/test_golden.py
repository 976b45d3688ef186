"""Differential tests against the AgentV runtime's golden outputs.

1. With `../shared` present: `shared/golden/compare.py` runs our CLI
   (`<python> -m agentv_lsp preview|check`) over `shared/golden/cases` and over
   `shared/corpus`, and its last line must say that everything matches.
2. Always: `tests/golden/cases/` holds verbatim copies of the golden folders that are ours
   (never the `upstream-*` ones, never anything from the corpus); each is compared here
   with a small in-process version of compare.py's rules, so the comparison runs without
   `../shared` too.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.golden

HERE = Path(__file__).resolve().parent
VENDORED = HERE / "cases"
CASE_FIELDS = (
    "id",
    "conversation_id",
    "expected_outcome",
    "lm",
    "agent",
    "guideline_paths",
    "file_paths",
    "reference_answer",
    "judge_prompt",
)
SUMMARY = {
    "preview": re.compile(r"^preview: (\d+)/(\d+) eval cases match$"),
    "check": re.compile(r"^check: (\d+)/(\d+) eval files agree$"),
}


# -- 1. compare.py over ../shared ------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["preview", "check"])
@pytest.mark.parametrize("folder", ["golden/cases", "corpus"])
def test_compare_py_reports_everything_matches(shared_dir, subprocess_env, tmp_path, folder, what):
    compare = shared_dir / "golden" / "compare.py"
    cases = shared_dir / folder
    if not compare.is_file() or not cases.is_dir():
        pytest.skip(f"{compare} or {cases} is missing")
    cli = f"{sys.executable} -m agentv_lsp"
    proc = subprocess.run(
        [sys.executable, str(compare), "--cli", cli, "--what", what, str(cases)],
        capture_output=True,
        text=True,
        env=subprocess_env,
        cwd=tmp_path,
        timeout=300,
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, f"compare.py printed nothing; stderr: {proc.stderr[-2000:]}"
    match = SUMMARY[what].match(lines[-1])
    if match is None or match.group(1) != match.group(2) or proc.returncode != 0:
        pytest.fail(f"{folder} ({what}): {lines[-1]}\n" + "\n".join(lines[:-1][:60]), pytrace=False)
    assert int(match.group(2)) > 0


# -- 2. the vendored copies, compared in process ----------------------------------------------------------


def vendored_folders() -> list[Path]:
    return sorted(p for p in VENDORED.iterdir() if (p / "expected" / "_case.json").is_file())


def stage(case: Path, tmp: Path) -> Path:
    """As compare.py: a copy without expected/, three levels deep, with `.git/` unless told."""
    root = tmp / "a" / "b" / "c" / "case"
    shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected"))
    meta_path = case / "case.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    if meta.get("git_root", True):
        (root / ".git").mkdir(exist_ok=True)
    return root


def scrub(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        for old, new in (
            (str(root), "<ROOT>"),
            (str(root.parent), "<ROOT>/.."),
            (str(root.parent.parent), "<ROOT>/../.."),
            (str(root.parent.parent.parent), "<ROOT>/../../.."),
        ):
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [scrub(v, root) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v, root) for k, v in value.items()}
    return value


def preview_problems(golden: dict[str, Any], got: dict[str, Any]) -> list[str]:
    problems = []
    if (golden["load_error"] is None) != (got["load_error"] is None):
        problems.append(f"load_error: expected {golden['load_error']!r:.120} got {got['load_error']!r:.120}")
    want_cases, have_cases = golden["cases"], got["cases"]
    if len(want_cases) != len(have_cases):
        problems.append(f"expected {len(want_cases)} cases, got {len(have_cases)}")
    for want, have in zip(want_cases, have_cases, strict=False):
        for key in CASE_FIELDS:
            if want[key] != have.get(key, "<absent>"):
                problems.append(
                    f"case {want['id']}.{key}: expected {want[key]!r:.300} got {have.get(key)!r:.300}"
                )
    return problems


def check_problems(golden: dict[str, Any], diagnostics: list[Any]) -> list[str]:
    paths = {d.path for d in diagnostics}
    errors = [d for d in diagnostics if d.severity == "error"]
    problems = []
    validation = golden.get("validation") or {}
    for e in validation.get("errors", []):
        if e.get("location") and e["location"] not in paths:
            problems.append(f"no diagnostic at {e['location']} ({e['message'][:80]})")
    clean = golden["load_error"] is None and not golden["warnings"] and validation.get("valid", True)
    if clean and errors:
        problems.append(f"false error: {errors[0].path}: {errors[0].message[:100]}")
    if golden["load_error"] is not None and not errors:
        problems.append("the runtime cannot load this file, yet no error was reported")
    return problems


def test_vendored_copies_exist_and_exclude_upstream_and_corpus():
    names = [p.name for p in vendored_folders()]
    assert len(names) >= 40
    assert not [n for n in names if n.startswith("upstream-") or "@" in n]
    assert not [p.name for p in VENDORED.iterdir() if p.is_dir() and p not in vendored_folders()]


@pytest.mark.parametrize("case", vendored_folders(), ids=lambda p: p.name)
def test_vendored_golden_case(case, tmp_path):
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v2.check import CheckOptions, check_document
    from agentv_lsp.formats.v2.loader import open_eval_file
    from agentv_lsp.formats.v2.preview import preview_file

    meta = json.loads((case / "expected" / "_case.json").read_text())
    root = stage(case, tmp_path)
    problems = []
    for rel in meta["eval_files"]:
        golden = json.loads((case / "expected" / (rel.replace("/", "__") + ".json")).read_text())
        ef = open_eval_file(rel, repo_root=str(root), cwd=str(root), fs=FileSystem())
        got = scrub(preview_file(ef), root)
        problems += [f"[preview] {rel}: {p}" for p in preview_problems(golden, got)]
        path = root / rel
        text = path.read_bytes().decode("utf-8", errors="replace")
        opts = CheckOptions(repo_root=str(root), cwd=str(root))
        diagnostics = check_document(str(path), text, opts).diagnostics
        problems += [f"[check] {rel}: {p}" for p in check_problems(golden, diagnostics)]
    assert problems == []


def test_vendored_copies_match_shared(shared_dir):
    """The copies are verbatim: any drift from ../shared/golden/cases is a mistake."""
    source = shared_dir / "golden" / "cases"
    if not source.is_dir():
        pytest.skip("no shared/golden/cases")
    for case in vendored_folders():
        theirs = source / case.name
        assert theirs.is_dir(), f"{case.name} is not in {source}"
        ours_files = sorted(p.relative_to(case) for p in case.rglob("*") if p.is_file())
        their_files = sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file())
        assert ours_files == their_files, case.name
        for rel in ours_files:
            assert (case / rel).read_bytes() == (theirs / rel).read_bytes(), f"{case.name}/{rel}"
