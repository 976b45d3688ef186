"""Which AgentV runtime judges a file (`formats.runtime`): the project's installed or declared
agentv first, then the file's own format; `--agentv 2|4` overrides both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentv_lsp.formats.runtime import choose_runtime, forget_project_runtimes, parse_requested

V2 = "$schema: agentv-eval-v2\nevalcases: []\n"
V4 = "tests:\n  - id: a\n    input: hi\n    criteria: ok\n"


@pytest.fixture(autouse=True)
def _fresh_cache():
    forget_project_runtimes()
    yield
    forget_project_runtimes()


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "major"),
    [
        (V2, 2),
        ("evalcases:\n  - id: a\n", 2),
        ('"$schema": "agentv-eval-v2"\ntests: []\n', 2),
        ("$schema: agentv-targets-v2.2\ntargets: []\n", 2),
        ("guideline_patterns: ['**/*.md']\n", 2),
        ("execution:\n  guideline_patterns: x\n", 4),
        (V4, 4),
        ("description: x\n", 4),
        ("", 4),
    ],
)
def test_without_a_project_the_file_decides(tmp_path, text, major):
    path = write(tmp_path, "evals/x.eval.yaml", text)
    assert choose_runtime(str(path), text, str(tmp_path)).major == major


@pytest.mark.parametrize(("version", "major"), [("4.42.4", 4), ("2.11.0", 2), ("3.14.6", 4), ("0.9.0", 2)])
def test_installed_agentv_decides_over_the_file(tmp_path, version, major):
    write(tmp_path, "node_modules/agentv/package.json", json.dumps({"name": "agentv", "version": version}))
    path = write(tmp_path, "evals/deep/x.eval.yaml", V2 if major == 4 else V4)
    choice = choose_runtime(str(path), path.read_text(), str(tmp_path))
    assert choice.major == major
    assert version in choice.reason and "node_modules" in choice.reason


@pytest.mark.parametrize(
    ("spec", "major"),
    [("^4.42.4", 4), ("~2.5.0", 2), (">=4.0.0 <5", 4), ("4.x", 4), ("npm:agentv@2.1.0", 2)],
)
def test_declared_dependency_decides(tmp_path, spec, major):
    write(tmp_path, "package.json", json.dumps({"devDependencies": {"agentv": spec}}))
    path = write(tmp_path, "evals/x.yaml", V2 if major == 4 else V4)
    choice = choose_runtime(str(path), path.read_text(), str(tmp_path))
    assert (choice.major, spec in choice.reason) == (major, True)


def test_nearest_project_wins_and_nothing_above_the_repo_root_counts(tmp_path):
    write(tmp_path, "package.json", json.dumps({"dependencies": {"agentv": "^2.0.0"}}))
    repo = tmp_path / "repo"
    write(repo, "package.json", json.dumps({"dependencies": {"agentv": "^4.42.4"}}))
    inner = write(repo, "pkg/evals/x.yaml", V2)
    assert choose_runtime(str(inner), V2, str(repo)).major == 4
    forget_project_runtimes()
    other = tmp_path / "other"
    lone = write(other, "x.yaml", V4)
    # ../package.json above the repo root is not this project's
    assert choose_runtime(str(lone), V4, str(other)).major == 4
    assert "no AgentV installed" in choose_runtime(str(lone), V4, str(other)).reason


def test_unreadable_or_odd_manifests_are_ignored(tmp_path):
    write(tmp_path, "package.json", "{not json")
    write(tmp_path, "node_modules/agentv/package.json", json.dumps(["not", "an", "object"]))
    path = write(tmp_path, "x.yaml", V2)
    assert choose_runtime(str(path), V2, str(tmp_path)).major == 2


@pytest.mark.parametrize("requested", ["2", "4"])
def test_asking_overrides_project_and_file(tmp_path, requested):
    write(tmp_path, "node_modules/agentv/package.json", json.dumps({"version": "4.42.4"}))
    path = write(tmp_path, "x.yaml", V2)
    assert choose_runtime(str(path), V2, str(tmp_path), parse_requested(requested)).major == int(requested)


@pytest.mark.parametrize(
    ("raw", "parsed"), [("auto", "auto"), (4, "4"), ("v2", "2"), ("4.42", "4"), (None, "auto"), ("x", "auto")]
)
def test_parse_requested(raw, parsed):
    assert parse_requested(raw) == parsed
