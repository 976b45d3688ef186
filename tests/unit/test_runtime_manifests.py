"""`auto` reads package.json files as untrusted input (issue 25, item 1): a device, a FIFO, the
process's own stdin, a huge version, invalid JSON or a link out of an untrusted workspace is
passed over with a warning naming the file, and the file's own content decides; never a
crash, a hang or a huge read. The engine function, `check` and `preview` are each tested."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.runtime import MANIFEST_MAX_BYTES, choose_runtime, forget_project_runtimes

V2 = "$schema: agentv-eval-v2\nevalcases:\n  - id: c1\n    outcome: ok\n    input_messages:\n      - role: user\n        content: hi\n"
V4 = "tests:\n  - id: t1\n    criteria: ok\n    input: hello there\n"


@pytest.fixture(autouse=True)
def _fresh_cache():
    forget_project_runtimes()
    yield
    forget_project_runtimes()


def _symlink(target: str):
    def make(path: Path) -> None:
        path.symlink_to(target)

    return make


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _text(text: str):
    def make(path: Path) -> None:
        path.write_text(text)

    return make


def _sparse(path: Path) -> None:
    with open(path, "wb") as handle:  # a hole: no data is written
        handle.truncate(MANIFEST_MAX_BYTES * 64)


HUGE_VERSION = json.dumps({"dependencies": {"agentv": "9" * 5000}})
# (shape, how to make it, words the warning must hold)
SHAPES = [
    ("dev-zero", _symlink("/dev/zero"), "not a regular file"),
    ("fifo", _fifo, "not a regular file"),
    ("dev-stdin", _symlink("/dev/stdin"), "not a regular file"),
    ("huge-version", _text(HUGE_VERSION), "not understood"),
    ("huge-number", _text('{"x": ' + "9" * 5000 + ', "dependencies": {"agentv": "^2.0.0"}}'), None),
    ("invalid-json", _text('{"dependencies": {"agentv": "^2.0.0"'), "not valid JSON"),
    ("deep-json", _text("[" * 100_000), "not valid JSON"),
    ("not-an-object", _text('["agentv"]'), "not a JSON object"),
    ("too-large", _sparse, "larger than"),
]
IDS = [s[0] for s in SHAPES]


def _repo(tmp_path: Path, make, where: str = "evals/package.json") -> tuple[Path, Path]:
    (tmp_path / ".git").mkdir(parents=True)
    (tmp_path / "evals").mkdir()
    eval_file = tmp_path / "evals" / "a.eval.yaml"
    eval_file.write_text(V2)
    target = tmp_path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    make(target)
    return tmp_path, eval_file


@pytest.mark.parametrize(("name", "make", "words"), SHAPES, ids=IDS)
def test_engine_passes_over_an_unusable_manifest(tmp_path, name, make, words):
    root, eval_file = _repo(tmp_path, make)
    choice = choose_runtime(str(eval_file), V2, str(root))
    if words is None:  # a valid manifest with a 5,000-digit number elsewhere still decides
        assert (choice.major, choice.problems) == (2, ())
        assert "package.json dependencies agentv ^2.0.0" in choice.reason
        return
    assert choice.major == 2 and "v2 format" in choice.reason  # the file's content decided
    (problem,) = choice.problems
    assert problem.startswith("evals/package.json: ") and words in problem
    assert len(problem) < 300


INSTALLED = [*SHAPES[:3], ("huge-version", _text(json.dumps({"version": "9" * 5000})), "not understood")]


@pytest.mark.parametrize(("name", "make", "words"), INSTALLED, ids=[s[0] for s in INSTALLED])
def test_engine_passes_over_an_unusable_installed_agentv(tmp_path, name, make, words):
    root, eval_file = _repo(tmp_path, make, "node_modules/agentv/package.json")
    (root / "package.json").write_text(json.dumps({"devDependencies": {"agentv": "^4.42.4"}}))
    choice = choose_runtime(str(eval_file), V2, str(root))
    assert choice.major == 4 and "devDependencies agentv ^4.42.4" in choice.reason  # the next manifest
    (problem,) = choice.problems
    assert problem.startswith("node_modules/agentv/package.json: ") and words in problem


def test_untrusted_reads_no_manifest_outside_the_workspace(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "package.json").write_text(json.dumps({"dependencies": {"agentv": "^4.0.0"}}))
    root, eval_file = _repo(tmp_path / "repo", _symlink(str(outside / "package.json")))
    untrusted = FileSystem(allowed_roots=(os.path.realpath(root),))
    choice = choose_runtime(str(eval_file), V2, str(root), fs=untrusted)
    assert choice.major == 2
    (problem,) = choice.problems
    assert "outside the workspace folders (untrusted workspace)" in problem
    forget_project_runtimes()
    trusted = choose_runtime(str(eval_file), V2, str(root))  # trusted: the link is followed
    assert (trusted.major, trusted.problems) == (4, ())


@pytest.mark.parametrize(("name", "make", "words"), SHAPES, ids=IDS)
def test_check_warns_and_goes_on(tmp_path, cli, name, make, words):
    root, _ = _repo(tmp_path, make)
    result = cli("check", "evals", "--format", "json", cwd=root)
    payload = json.loads(result.out)
    assert result.code in (0, 1), result.err
    assert payload["files"][0]["runtime"].startswith("2")
    found = [d for d in payload["diagnostics"] if d["code"] == "runtime-manifest-unusable"]
    if words is None:
        assert found == []
        return
    (diagnostic,) = found
    assert diagnostic["severity"] == "warning" and diagnostic["file"] == "evals/a.eval.yaml"
    assert "evals/package.json" in diagnostic["message"] and words in diagnostic["message"]


@pytest.mark.parametrize(("name", "make", "words"), SHAPES, ids=IDS)
def test_preview_warns_and_goes_on(tmp_path, cli, name, make, words):
    root, _ = _repo(tmp_path, make)
    result = cli("preview", "evals/a.eval.yaml", "--json", cwd=root)
    payload = json.loads(result.out)
    assert result.code == 0, result.err
    assert payload["runtime"].startswith("2") and [c["id"] for c in payload["cases"]] == ["c1"]
    found = [w for w in payload["warnings"] if "package.json" in w]
    if words is None:
        assert found == []
        return
    (warning,) = found
    assert warning.startswith("agentv-lsp: evals/package.json: ") and words in warning
    text = cli("preview", "evals/a.eval.yaml", "--color", "never", cwd=root)
    assert text.code == 0 and "evals/package.json" in text.out


def test_preview_of_a_fifo_eval_file_does_not_wait(tmp_path, run_cli):
    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / "a.eval.yaml")
    result = run_cli("preview", "a.eval.yaml", "--json", cwd=tmp_path, timeout=30)
    assert result.returncode == 1 and json.loads(result.stdout)["load_error"]


def test_the_server_stdin_is_not_read_through_a_manifest(tmp_path, run_cli):
    """`-> /dev/stdin` in a process whose stdin is a pipe nobody writes to: no hang."""
    root, _ = _repo(tmp_path, _symlink("/dev/stdin"))
    result = run_cli("check", "evals", "--format", "json", cwd=root, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "runtime-manifest-unusable" in result.stdout


# issue 33, finding 7: an `agentv` entry that is not a string is a version `auto` cannot read
NOT_STRINGS = [
    ("number", "4"),
    ("true", "true"),
    ("object", '{"v": "4"}'),
    ("array", '["^4.0.0"]'),
    ("null", "null"),
]
NOT_STRING_WORDS = {
    "number": "a number",
    "true": "true",
    "object": "an object",
    "array": "an array",
    "null": "null",
}


@pytest.mark.parametrize(("kind", "value"), NOT_STRINGS, ids=[k for k, _ in NOT_STRINGS])
def test_a_version_that_is_not_a_string_is_passed_over_with_a_warning(tmp_path, cli, kind, value):
    manifest = '{"devDependencies": {"agentv": ' + value + "}}"
    root, eval_file = _repo(tmp_path, _text(manifest))
    words = f"devDependencies agentv is {NOT_STRING_WORDS[kind]}, not a version string"
    choice = choose_runtime(str(eval_file), V2, str(root))
    (problem,) = choice.problems
    assert choice.major == 2 and problem.startswith("evals/package.json: ") and words in problem
    forget_project_runtimes()
    payload = json.loads(cli("check", "evals", "--format", "json", cwd=root).out)
    (diagnostic,) = [d for d in payload["diagnostics"] if d["code"] == "runtime-manifest-unusable"]
    assert words in diagnostic["message"] and diagnostic["severity"] == "warning"
    forget_project_runtimes()
    text = cli("check", "evals", "--color", "never", cwd=root).out
    (line,) = [line for line in text.splitlines() if "runtime-manifest-unusable" in line]
    assert "evals/package.json" in line and words in line


@pytest.mark.parametrize(("kind", "value"), NOT_STRINGS, ids=[k for k, _ in NOT_STRINGS])
def test_an_installed_version_that_is_not_a_string_is_passed_over(tmp_path, kind, value):
    installed = '{"version": ' + value + "}"
    root, eval_file = _repo(tmp_path, _text(installed), "node_modules/agentv/package.json")
    choice = choose_runtime(str(eval_file), V2, str(root))
    (problem,) = choice.problems
    assert choice.major == 2 and problem.startswith("node_modules/agentv/package.json: ")
    assert f"version is {NOT_STRING_WORDS[kind]}, not a version string" in problem
