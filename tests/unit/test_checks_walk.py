"""`agentv-lsp check DIR`: which files a folder walk checks.

Like `agentv validate`, the walk skips `node_modules` and dot-folders and takes `.yaml`/`.yml`
in any case. Unlike it, YAML that is not an AgentV file is left alone unless named on the
command line, while the `.agentv/config.yaml` and targets file that walked eval files use are
checked too (the walk itself never enters `.agentv/`). Files that are meant for AgentV but
that AgentV cannot load (syntax error, missing or wrong `$schema`) are never skipped.
"""

from __future__ import annotations

import json

import pytest

GOOD = "$schema: agentv-eval-v2\nevalcases:\n  - id: ok\n    outcome: o\n    input_messages: []\n"
BAD = "$schema: agentv-eval-v2\nevalcases:\n  - id: 1\n    outcome: o\n    input_messages: []\n"

# The project declares AgentV v2: the v2 files are judged as v2 by it, not by their format alone (which
# adds an information note, runtime-v2-undeclared; tests/unit/test_cli_runtime.py).
DECLARED_V2 = {"package.json": '{"devDependencies": {"agentv": "^2.0.0"}}'}

TREE = {
    **DECLARED_V2,
    "evals/a.eval.yaml": GOOD,
    "evals/B.YML": BAD,
    "node_modules/pkg/e.yaml": BAD,
    ".hidden/e.yaml": BAD,
    "evals/.drafts/e.yaml": BAD,
    "data/table.yaml": "rows:\n  - a\n  - b\n",
    "docs/readme.md": "# not yaml\n",
    "docs/eval.json": "{}",
    ".agentv/config.yaml": "$schema: agentv-config-v2\nguideline_patterns: ['**/*.md']\nextra: 1\n",
    ".agentv/targets.yaml": "$schema: agentv-targets-v2.2\ntargets:\n  - name: default\n    provider: mokc\n",
}


def check_json(cli, cwd, *paths: str):
    result = cli("check", "--format", "json", *paths, cwd=cwd)
    payload = json.loads(result.out)
    return result.code, payload["summary"]["files"], {d["file"] for d in payload["diagnostics"]}, payload


def test_walk_skips_node_modules_and_dot_folders_and_ignores_other_yaml(make_repo, cli):
    repo = make_repo(TREE)
    code, files, flagged, _ = check_json(cli, repo.root, ".")
    assert code == 1
    assert flagged == {"evals/B.YML", ".agentv/config.yaml", ".agentv/targets.yaml"}
    assert files == 4  # a.eval.yaml, B.YML, and the config and targets they use


def test_default_path_is_the_current_directory(make_repo, cli):
    repo = make_repo(TREE)
    assert check_json(cli, repo.root)[2] == check_json(cli, repo.root, ".")[2]


def test_named_non_agentv_yaml_is_reported(make_repo, cli):
    """As AgentV v2 judges it (AgentV 4's own verdict on such a file is in the v4 tests)."""
    repo = make_repo(TREE)
    code, files, flagged, payload = check_json(cli, repo.root, "data/table.yaml", "--agentv", "2")
    assert (code, files, flagged) == (1, 1, {"data/table.yaml"})
    assert [d["code"] for d in payload["diagnostics"]] == ["unknown-file-type"]


def test_named_file_inside_a_skipped_folder_is_checked(make_repo, cli):
    repo = make_repo(TREE)
    code, _files, flagged, _ = check_json(cli, repo.root, "node_modules/pkg/e.yaml")
    assert (code, flagged) == (1, {"node_modules/pkg/e.yaml"})


def test_named_eval_file_is_checked_alone(make_repo, cli):
    repo = make_repo(TREE)
    code, files, flagged, _ = check_json(cli, repo.root, "evals/a.eval.yaml")
    assert (code, files, flagged) == (0, 1, set())


def test_each_file_is_checked_once(make_repo, cli):
    repo = make_repo(TREE)
    _code, files, _flagged, payload = check_json(cli, repo.root, "evals", "evals/B.YML", ".")
    assert files == 4
    assert [d["file"] for d in payload["diagnostics"]].count("evals/B.YML") == 1


def test_walk_includes_a_skipped_invalid_config_too(make_repo, cli):
    repo = make_repo({"evals/e.yaml": GOOD, "evals/.agentv/config.yaml": "just: wrong\n"}, patterns=["*.md"])
    _code, files, flagged, _ = check_json(cli, repo.root, "evals")
    assert files == 3
    assert "evals/.agentv/config.yaml" in flagged  # reported as a file of unknown type


@pytest.mark.parametrize(
    "text",
    [
        '$schema: agentv-eval-v2\nevalcases:\n  - id: "unclosed\n    outcome: o\n',
        "evalcases:\n  - id: c\n    outcome: o\n    input_messages: []\n",
        "$schema: agentv-eval-v1\nevalcases: []\n",
        "$schema: agentv-eval-v2\nevalcases: []\nevalcases: []\n",
    ],
    ids=["syntax-error", "no-schema", "wrong-schema", "duplicate-key"],
)
def test_walked_eval_file_that_agentv_cannot_load_is_reported(make_repo, cli, text):
    repo = make_repo({**DECLARED_V2, "evals/broken.yaml": text, "evals/good.yaml": GOOD})
    code, files, flagged, payload = check_json(cli, repo.root, ".")
    assert code == 1
    assert files == 2
    assert flagged == {"evals/broken.yaml"}
    assert {d["severity"] for d in payload["diagnostics"]} == {"error"}


def test_missing_path_is_reported_and_exits_2(make_repo, cli):
    repo = make_repo({**DECLARED_V2, "e.yaml": GOOD})
    result = cli("check", "e.yaml", "nope", cwd=repo.root)
    assert result.code == 2
    assert "agentv-lsp: path not found: nope" in result.err
    assert result.out.splitlines()[-1] == "1 file checked: 0 errors, 0 warnings"
