"""`agentv-lsp check` exit codes: 0 clean (information does not count), 1 errors, 1 on warnings
with `--strict`, 2 for usage errors and paths that do not exist."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.conftest import cli_env

CLEAN = "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages: [{role: user, content: Q}]\n"
ERROR = CLEAN.replace("id: c", "id: 1")
WARNING = CLEAN.replace("    outcome: o\n", "    outcome: o\n    evaluator: code\n")  # runs the LLM judge
INFO = CLEAN.replace("content: Q", "content: 'see ```x```'")  # fenced block repeated


@pytest.mark.parametrize(
    ("text", "strict", "code"),
    [
        (CLEAN, False, 0),
        (CLEAN, True, 0),
        (ERROR, False, 1),
        (WARNING, False, 0),
        (WARNING, True, 1),
        (INFO, False, 0),
        (INFO, True, 0),
    ],
    ids=["clean", "clean-strict", "error", "warning", "warning-strict", "info", "info-strict"],
)
def test_exit_code(make_repo, cli, text, strict, code):
    repo = make_repo({"eval.yaml": text})
    result = cli("check", "eval.yaml", *(["--strict"] if strict else []), cwd=repo.root)
    assert result.code == code, result.out


def test_fixtures_have_the_severities_the_exit_codes_assume(make_repo, cli):
    summaries = {}
    declared = '{"devDependencies": {"agentv": "^2.0.0"}}'  # v2 by the project: no runtime note
    for name, text in (("clean", CLEAN), ("error", ERROR), ("warning", WARNING), ("info", INFO)):
        repo = make_repo({"eval.yaml": text, "package.json": declared})
        summaries[name] = cli("check", "eval.yaml", cwd=repo.root).out.splitlines()[-1]
    assert summaries == {
        "clean": "1 file checked: 0 errors, 0 warnings",
        "error": "1 file checked: 1 error, 0 warnings",
        "warning": "1 file checked: 0 errors, 1 warning",
        "info": "1 file checked: 0 errors, 0 warnings, 1 info",
    }


def test_missing_path_exits_2_even_when_the_rest_is_clean(make_repo, cli):
    repo = make_repo({"eval.yaml": CLEAN})
    result = cli("check", "eval.yaml", "missing.yaml", cwd=repo.root)
    assert result.code == 2
    assert "agentv-lsp: path not found: missing.yaml" in result.err


@pytest.mark.parametrize(
    "args", [("check", "--format", "xml"), ("check", "--bogus")], ids=["bad-format", "unknown-option"]
)
def test_usage_errors_exit_2(make_repo, cli, args):
    repo = make_repo({"eval.yaml": CLEAN})
    result = cli(*args, cwd=repo.root)
    assert result.code == 2
    assert "usage:" in result.err


def test_empty_folder_is_clean(make_repo, cli):
    repo = make_repo()
    result = cli("check", ".", cwd=repo.root)
    assert result.code == 0
    assert result.out == "0 files checked: 0 errors, 0 warnings\n"


def test_repo_root_defaults_to_the_git_root_of_the_working_directory(make_repo, cli):
    # Run from a subfolder: file references still resolve against the repository root.
    repo = make_repo(
        {
            "evals/eval.yaml": CLEAN.replace("content: Q}]", "content: [{type: file, value: shared.txt}]}]"),
            "shared.txt": "S\n",
        }
    )
    result = cli("check", "eval.yaml", cwd=repo.root / "evals")
    assert result.code == 0, result.out


def test_real_process_exit_codes(make_repo, run_cli):
    repo = make_repo({"ok.yaml": CLEAN, "bad.yaml": ERROR})
    assert run_cli("check", "ok.yaml", cwd=repo.root).returncode == 0
    assert run_cli("check", "bad.yaml", cwd=repo.root).returncode == 1
    assert run_cli("check", "nope.yaml", cwd=repo.root).returncode == 2
    assert run_cli("check", "--format", "xml", cwd=repo.root).returncode == 2


def _buffered_env() -> dict[str, str]:
    env = cli_env()
    env.pop("PYTHONUNBUFFERED", None)  # block-buffered stdout, as in a real pipe
    return env


@pytest.mark.parametrize("count", [1, 3000], ids=["small", "larger-than-a-pipe"])
def test_real_process_writes_its_whole_report_before_its_hard_exit(make_repo, count):
    # The console script leaves with os._exit (no interpreter teardown): a small report
    # still sitting in stdout's buffer and a large one beyond a pipe's capacity must both
    # arrive whole, with the exit code.
    cases = "".join(
        f"  - id: {n}\n    outcome: o\n    input_messages: [{{role: user, content: Q}}]\n"
        for n in range(count)
    )
    repo = make_repo({"eval.yaml": "$schema: agentv-eval-v2\nevalcases:\n" + cases})
    result = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "check", "eval.yaml", "--format", "json", "--max-diagnostics", "0"],
        cwd=repo.root,
        env=_buffered_env(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert len([d for d in report["diagnostics"] if d["code"] == "validate-id"]) == count
    assert report["summary"]["errors"] >= count


def test_real_process_stops_quietly_when_the_reader_goes_away(make_repo, tmp_path):
    cases = "".join(
        f"  - id: {n}\n    outcome: o\n    input_messages: [{{role: user, content: Q}}]\n"
        for n in range(2000)
    )
    repo = make_repo({"eval.yaml": "$schema: agentv-eval-v2\nevalcases:\n" + cases})
    checker = subprocess.Popen(
        [sys.executable, "-m", "agentv_lsp", "check", "eval.yaml"],
        cwd=repo.root,
        env=_buffered_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert checker.stdout is not None and checker.stderr is not None
    first = checker.stdout.read(100)  # then close the pipe, as `| head -c 100` does
    checker.stdout.close()
    err = checker.stderr.read().decode()
    assert checker.wait(timeout=120) == 1
    assert first.startswith(b"eval.yaml:")
    assert "Traceback" not in err and "BrokenPipe" not in err, err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (CLEAN.replace("outcome: o", "outcome: [o"), "eval.yaml:5:19: error yaml-syntax "),
        (
            '"$schema": agentv-eval-v2\n' + CLEAN.split("\n", 1)[1] + "  - [\n",
            "eval.yaml:7:1: error yaml-syntax ",
        ),
        ("title: x\nlist: [a\n", "eval.yaml:3:1: error unknown-file-type "),
        ("$schema: agentv-eval-v3\nx: [a\n", "eval.yaml:3:1: error unknown-file-type "),
    ],
    ids=["agentv-schema-line", "quoted-key", "no-schema-line", "unknown-schema-line"],
)
def test_a_file_that_does_not_parse_is_an_eval_file_by_its_schema_line(make_repo, cli, text, expected):
    """Its syntax error is then reported as such (and says what `agentv validate` prints);
    without an AgentV `$schema:` line it stays an unknown file, as for `agentv validate` (v2)."""
    repo = make_repo({"eval.yaml": text})
    result = cli("check", "eval.yaml", "--agentv", "2", cwd=repo.root)
    assert result.code == 1
    assert result.out.startswith(expected), result.out
