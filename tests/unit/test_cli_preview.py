"""`agentv-lsp preview`: the `--json` contract, exit codes (0 loads, 1 load error with the JSON
still printed, 2 bad arguments), `--case`, `--mode`, the human layout, and bad input that
must end in a clear `load_error`, never a traceback."""

from __future__ import annotations

import json

import pytest

EVAL = (
    "$schema: agentv-eval-v2\n"
    "evalcases:\n"
    "  - id: first\n"
    "    outcome: Says hi.\n"
    "    input_messages:\n"
    "      - role: user\n"
    "        content: Hello\n"
    "  - id: second\n"
    "    conversation_id: conv\n"
    "    outcome: Answers.\n"
    "    input_messages:\n"
    "      - role: system\n"
    "        content: Be brief.\n"
    "      - role: user\n"
    "        content:\n"
    "          - type: text\n"
    "            value: Read\n"
    "          - type: file\n"
    "            value: notes.txt\n"
    "    expected_messages:\n"
    "      - role: assistant\n"
    "        content: Done.\n"
)


@pytest.fixture
def sample(make_repo):
    return make_repo({"eval.yaml": EVAL, "notes.txt": "N\n"})


def test_json_shape(sample, cli):
    result = cli("preview", "eval.yaml", "--json", cwd=sample.root)
    assert result.code == 0
    payload = json.loads(result.out)
    assert set(payload) == {"file", "runtime", "runtime_reason", "load_error", "warnings", "cases"}
    assert (payload["file"], payload["load_error"], payload["warnings"]) == ("eval.yaml", None, [])
    assert payload["runtime"].startswith("2 ")  # the sample declares agentv-eval-v2
    assert "v2 format" in payload["runtime_reason"]
    first, second = payload["cases"]
    assert set(first) >= {
        "id",
        "conversation_id",
        "dataset",
        "expected_outcome",
        "evaluator",
        "lm",
        "agent",
        "guideline_paths",
        "file_paths",
        "reference_answer",
        "judge_prompt",
    }
    assert set(first["lm"]) == set(first["agent"]) == {"question", "guidelines", "chatPrompt"}
    assert set(first["judge_prompt"]) == {"question", "systemPrompt"}
    assert (first["id"], first["conversation_id"], first["lm"]["question"], first["lm"]["chatPrompt"]) == (
        "first",
        None,
        "Hello",
        None,
    )
    assert second["conversation_id"] == "conv"
    assert (
        second["lm"]["question"]
        == '@[System]:\nBe brief.\n\n@[User]:\nRead\n<file path="notes.txt">\nN\n</file>'
    )
    assert second["agent"]["question"] == '@[System]:\nBe brief.\n\n@[User]:\nRead\n<file: path="notes.txt">'
    assert second["lm"]["chatPrompt"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": 'Read\n<file path="notes.txt">\nN\n</file>'},
    ]
    assert second["file_paths"] == ["notes.txt"]
    assert second["reference_answer"] == "Done."


def test_case_filter(sample, cli):
    result = cli("preview", "eval.yaml", "--json", "--case", "second", cwd=sample.root)
    assert result.code == 0
    assert [c["id"] for c in json.loads(result.out)["cases"]] == ["second"]


def test_unknown_case_exits_1_and_lists_ids(sample, cli):
    result = cli("preview", "eval.yaml", "--json", "--case", "third", cwd=sample.root)
    assert result.code == 1
    assert json.loads(result.out)["cases"] == []
    assert "no loaded case has id 'third'" in result.err
    assert "first, second" in result.err


def test_load_error_exits_1_with_json_still_printed(make_repo, cli):
    repo = make_repo({"eval.yaml": "$schema: agentv-eval-v1\nevalcases: []\n"})
    result = cli("preview", "eval.yaml", "--json", cwd=repo.root)
    assert result.code == 1
    payload = json.loads(result.out)
    assert (
        payload["load_error"]
        == "Invalid $schema value 'agentv-eval-v1' in eval.yaml. Expected 'agentv-eval-v2'"
    )
    assert payload["cases"] == []


def test_warnings_are_in_the_json(make_repo, cli):
    repo = make_repo(
        {
            "eval.yaml": "$schema: agentv-eval-v2\nevalcases:\n  - id: 1\n    outcome: o\n    input_messages: []\n"
        }
    )
    result = cli("preview", "eval.yaml", "--json", cwd=repo.root)
    assert result.code == 0
    assert json.loads(result.out)["warnings"] == ["Warning: Skipping incomplete eval case: unknown"]


@pytest.mark.parametrize(
    "args",
    [
        ("preview",),
        ("preview", "eval.yaml", "--mode", "chat"),
        ("preview", "eval.yaml", "--bogus"),
        ("frobnicate",),
    ],
    ids=["no-file", "bad-mode", "unknown-option", "unknown-command"],
)
def test_bad_arguments_exit_2(sample, cli, args):
    result = cli(*args, cwd=sample.root)
    assert result.code == 2
    assert result.out == ""
    assert "usage:" in result.err


def test_no_command_prints_help_and_exits_2(sample, cli):
    result = cli(cwd=sample.root)
    assert result.code == 2
    assert "preview" in result.err and "check" in result.err


def test_human_output_without_colour_shows_both_modes(sample, cli):
    result = cli("preview", "eval.yaml", cwd=sample.root)
    assert result.code == 0
    assert "\x1b[" not in result.out
    out = result.out
    assert "── question [lm]" in out and "── question [agent]" in out
    assert '  @[User]:\n  Read\n  <file: path="notes.txt">' in out
    assert "── chatPrompt [lm]: none (flat question" in out
    assert "── judge prompt (user)" in out


@pytest.mark.parametrize(("mode", "absent"), [("lm", "[agent]"), ("agent", "[lm]")])
def test_human_output_single_mode(sample, cli, mode, absent):
    result = cli("preview", "eval.yaml", "--mode", mode, cwd=sample.root)
    assert result.code == 0
    assert f"── question [{mode}]" in result.out
    assert absent not in result.out


def test_human_output_colour_on_request(sample, cli):
    result = cli("preview", "eval.yaml", "--color", "always", cwd=sample.root)
    assert "\x1b[" in result.out


def test_human_output_of_a_load_error(make_repo, cli):
    repo = make_repo({"eval.yaml": "evalcases: []\n"})
    result = cli("preview", "eval.yaml", cwd=repo.root)
    assert result.code == 1
    assert "error: Missing required field '$schema' in eval.yaml." in result.out


def test_repo_root_option_changes_the_search_roots(make_repo, cli):
    repo = make_repo({"sub/eval.yaml": EVAL.replace("notes.txt", "top.txt"), "top.txt": "T\n"}, git=False)
    inside = cli("preview", "eval.yaml", "--json", cwd=repo.root / "sub")
    assert json.loads(inside.out)["cases"][1]["file_paths"] == []
    rooted = cli("preview", "eval.yaml", "--json", "--repo-root", "..", cwd=repo.root / "sub")
    assert json.loads(rooted.out)["cases"][1]["file_paths"] == ["top.txt"]


# -- the real command line, and bad input ------------------------------------------------------------------


def test_module_help_lists_the_commands(run_cli, tmp_path):
    result = run_cli("--help", cwd=tmp_path)
    assert result.returncode == 0
    for command in ("preview", "check", "serve"):
        assert command in result.stdout


def bad_inputs(root):
    (root / "dir.yaml").mkdir()
    (root / "binary.yaml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    (root / "deep.yaml").write_text(
        "$schema: agentv-eval-v2\nevalcases: " + "[" * 30_000 + "]" * 30_000 + "\n"
    )
    (root / "deep-short.yaml").write_text(
        "$schema: agentv-eval-v2\nevalcases: " + "[" * 1_100 + "]" * 1_100 + "\n"
    )
    (root / "control.yaml").write_text("$schema: agentv-eval-v2\nevalcases: []\nx: \x07\n")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing.yaml", "ENOENT: no such file or directory, open '<ROOT>/missing.yaml'"),
        ("dir.yaml", "EISDIR: illegal operation on a directory, read"),
        ("binary.yaml", None),
        ("deep.yaml", "deeper than 1000 levels"),
        ("deep-short.yaml", "deeper than 1000 levels"),
    ],
)
def test_bad_input_gives_a_load_error_not_a_traceback(make_repo, run_cli, name, message):
    repo = make_repo()
    bad_inputs(repo.root)
    result = run_cli("preview", name, "--json", cwd=repo.root)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, result.stderr
    load_error = json.loads(result.stdout)["load_error"]
    assert isinstance(load_error, str) and load_error
    if message is not None:
        assert message in repo.scrub(load_error)


def test_control_character_loads_as_in_agentv(make_repo, run_cli):
    # eemeli/yaml keeps a raw BEL as an ordinary character: the file loads
    repo = make_repo()
    bad_inputs(repo.root)
    result = run_cli("preview", "control.yaml", "--json", cwd=repo.root)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0
    assert json.loads(result.stdout)["load_error"] is None


def test_invalid_utf8_is_read_like_node_with_replacement_characters(make_repo, run_cli):
    repo = make_repo()
    (repo.root / "latin1.yaml").write_bytes(
        b"$schema: agentv-eval-v2\nevalcases:\n  - id: caf\xe9\n    outcome: o\n    input_messages: []\n"
    )
    result = run_cli("preview", "latin1.yaml", "--json", cwd=repo.root)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0
    assert json.loads(result.stdout)["cases"][0]["id"] == "caf\ufffd"


def test_check_on_bad_input_never_gives_a_traceback(make_repo, run_cli):
    """As AgentV v2 judges them (AgentV 4 ignores YAML files not named `*.eval.yaml`: below)."""
    repo = make_repo()
    bad_inputs(repo.root)
    result = run_cli(
        "check",
        "binary.yaml",
        "deep.yaml",
        "deep-short.yaml",
        "--format",
        "json",
        "--agentv",
        "2",
        cwd=repo.root,
    )
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    files = {d["file"] for d in json.loads(result.stdout)["diagnostics"] if d["severity"] == "error"}
    assert files == {"binary.yaml", "deep.yaml", "deep-short.yaml"}


def test_check_as_agentv_4_on_bad_input_never_gives_a_traceback(make_repo, run_cli):
    repo = make_repo()
    bad_inputs(repo.root)
    for name in ("binary.yaml", "deep.yaml", "deep-short.yaml"):
        (repo.root / name).rename(repo.root / name.replace(".yaml", ".eval.yaml"))
    result = run_cli("check", ".", "--format", "json", "--agentv", "4", cwd=repo.root)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    files = {d["file"] for d in json.loads(result.stdout)["diagnostics"] if d["severity"] == "error"}
    assert {"binary.eval.yaml", "deep.eval.yaml", "deep-short.eval.yaml"} <= files
