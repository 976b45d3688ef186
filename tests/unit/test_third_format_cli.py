"""The seam between the formats, from the command line: a third format (`tests/third_format/toy`,
a fixture package) registered in `formats.registry` is chosen for the files that declare it,
checked and previewed by `agentv-lsp check` and `preview`, with nothing changed outside that
package and the registries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.conftest import GIT_ENV, CliResult, write_tree
from tests.third_format.toy.engine import TOY

from agentv_lsp.formats import registry
from agentv_lsp.formats.protocol import Format

ROOT = Path(__file__).resolve().parents[2]

TOY_FILE = """$schema: toy-eval
cases:
  - id: greets
    input: Say hello to the reviewer.
  - id: forgets-its-input
    prompt: this key is not the toy format's
"""
AGENTV4_FILE = """tests:
  - id: plain
    input: A 4.x test beside the toy file.
    criteria: It answers.
"""


@pytest.fixture
def toy_registered() -> Iterator[Format]:
    fmt: Format = TOY  # the fixture's class satisfies the protocol (mypy checks this line)
    registry.register(fmt)
    try:
        yield fmt
    finally:
        registry.unregister(fmt.name)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path, {".git/": "", "evals/greet.yaml": TOY_FILE, "evals/plain.eval.yaml": AGENTV4_FILE})
    return tmp_path


def test_check_finds_and_judges_the_toy_file_by_its_format(
    toy_registered: Format, repo: Path, cli: Callable[..., CliResult]
) -> None:
    result = cli("check", "evals", "--format", "json", "--repo-root", str(repo), cwd=repo)
    report = json.loads(result.out)
    judged = {entry["file"]: entry["runtime"] for entry in report["files"]}
    assert judged == {"evals/greet.yaml": "toy 1", "evals/plain.eval.yaml": "4.42.4"}
    toy_codes = [
        (d["code"], d["range"]["start"]["line"])
        for d in report["diagnostics"]
        if d["file"] == "evals/greet.yaml"
    ]
    assert toy_codes == [("toy-input", 4)]  # the second case, which has no `input`
    assert result.code == 1


def test_without_the_registration_a_walk_leaves_the_toy_file_alone(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    result = cli("check", "evals", "--format", "json", "--repo-root", str(repo), cwd=repo)
    report = json.loads(result.out)
    assert [entry["file"] for entry in report["files"]] == ["evals/plain.eval.yaml"]
    assert result.code == 0


def test_preview_of_a_toy_file_is_the_toy_formats_own(
    toy_registered: Format, repo: Path, cli: Callable[..., CliResult]
) -> None:
    shown = cli("preview", "evals/greet.yaml", "--json", "--repo-root", str(repo), cwd=repo)
    result = json.loads(shown.out)
    assert (result["runtime"], result["runtime_reason"]) == ("toy 1", "the file declares $schema toy-eval")
    assert [(c["id"], c["lm"]["question"]) for c in result["cases"]] == [
        ("greets", "Say hello to the reviewer.")
    ]
    assert shown.code == 0
    text = cli("preview", "evals/greet.yaml", "--repo-root", str(repo), cwd=repo)
    assert "judged as AgentV toy 1 (the file declares $schema toy-eval)" in text.out
    assert "Say hello to the reviewer." in text.out
    missing = cli("preview", "evals/greet.yaml", "--case", "nope", "--repo-root", str(repo), cwd=repo)
    assert (missing.code, missing.err.strip()) == (1, "agentv-lsp: no toy case has id 'nope'")


def test_a_program_that_registers_the_toy_format_runs_the_cli_with_it(repo: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.third_format.toy.run_cli",
            "check",
            "evals/greet.yaml",
            "--repo-root",
            str(repo),
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "toy-input" in done.stdout and "A toy case needs an `input` text." in done.stdout


def test_diff_compares_the_toy_formats_prompts_between_revisions(
    toy_registered: Format, tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, env=GIT_ENV, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    write_tree(tmp_path, {"evals/greet.yaml": TOY_FILE})
    git("add", "-A")
    git("commit", "-q", "-m", "toy")
    write_tree(tmp_path, {"evals/greet.yaml": TOY_FILE.replace("hello to", "goodbye to")})
    result = cli("diff", "--format", "json", cwd=tmp_path)
    report = json.loads(result.out)
    statuses = {t["id"]: (t["status"], [f["field"] for f in t["fields"]]) for t in report["tests"]}
    assert statuses == {
        "greets": ("changed", ["lm.question", "agent.question"]),
        "forgets-its-input": ("unchanged", []),  # skipped by the toy runtime in both revisions
    }
    assert report["files"][0]["runtime"] == {"before": "toy 1", "after": "toy 1"}
    assert result.code == 1
