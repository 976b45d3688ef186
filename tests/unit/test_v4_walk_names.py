"""Which files `agentv-lsp check` takes under AgentV 4.42.4, on minimal trees of the shapes
found in real repositories (issue 26):

- eval files not named `*.eval.yaml` (`EVAL.yaml`, `eval.yaml`, `<name>.EVAL.yaml`): named to
  `check`, judged as the runtime's loader judges them (`agentv eval run EVAL.yaml` loads any
  file), with `agentv validate`'s own verdict ("File type not recognized") beside it; in a
  folder walk taken when 4.42.4 reads them from a folder (`eval.yaml`, the project's
  `eval_patterns`) or `--eval-glob` names them;
- unrelated YAML whose text merely mentions `agentv-` or `evalcases` (a docker-compose file,
  a lint config, a deploy script): left alone by a walk, as `agentv validate .` leaves it.
"""

from __future__ import annotations

import json

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.runtime import declares_v2
from agentv_lsp.formats.v4.discovery import project_eval_patterns, walk_takes_as_eval

GOOD_TEST = "tests:\n  - id: t1\n    input: hello\n    criteria: says hello\n"
NO_TESTS = "name: x\n"

UNRELATED = {
    # AgentV's own docker-compose.yml names its runner image
    "docker-compose.yml": "services:\n  runner:\n    image: ghcr.io/entityprocess/agentv-runner:latest\n",
    # a compliance-lint config whose comment mentions evalcases
    "lint/config.yaml": "# rules for evalcases and tests\nrules:\n  - no-secrets\n",
    # a deploy script whose block scalar holds an `$schema: agentv-` line
    "deploy/task.yaml": "run: |\n  $schema: agentv-eval-v2\n  evalcases: []\nsteps: [build]\n",
    # a nested `evalcases:` key is not a v2 file either
    "ci/matrix.yml": "jobs:\n  eval:\n    evalcases: 3\n",
}


def check_json(cli, cwd, *args: str):
    result = cli("check", "--format", "json", "--agentv", "4", *args, cwd=cwd)
    payload = json.loads(result.out)
    return result.code, payload


def by_file(payload) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for d in payload["diagnostics"]:
        found.setdefault(d["file"], []).append((d["severity"], d["code"]))
    return found


# -- item 2: a walk leaves unrelated YAML alone ---------------------------------------------------


@pytest.mark.parametrize("runtime", ["4", "auto"])
def test_walk_leaves_yaml_that_merely_mentions_agentv_alone(make_repo, cli, runtime):
    repo = make_repo({**UNRELATED, "evals/ok.eval.yaml": GOOD_TEST})
    result = cli("check", "--format", "json", "--strict", "--agentv", runtime, ".", cwd=repo.root)
    payload = json.loads(result.out)
    assert [f["file"] for f in payload["files"]] == ["evals/ok.eval.yaml"]
    assert not any(d["file"] in UNRELATED for d in payload["diagnostics"])
    assert result.code == (1 if payload["summary"]["warnings"] else 0)


def test_walk_still_reports_files_that_declare_v2_by_a_top_level_key(make_repo, cli):
    repo = make_repo(
        {
            **UNRELATED,
            "old/suite.yaml": "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: o\n",
            "old/keyonly.yaml": "evalcases:\n  - id: a\n",
            "old/broken.yaml": "evalcases:\n  - id: [a\n",
        }
    )
    code, payload = check_json(cli, repo.root, ".")
    files = {f["file"] for f in payload["files"]}
    assert files == {"old/suite.yaml", "old/keyonly.yaml", "old/broken.yaml"}
    assert code == 1  # 4.x cannot load them


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$schema: agentv-eval-v2\nevalcases: []\n", True),
        ('"evalcases":\n  - id: a\n', True),
        ("evalcases: [\n", True),  # does not parse: the line still declares it
        ("image: x/agentv-runner\n", False),
        ("# evalcases\nrules: []\n", False),
        ("run: |\n  evalcases: []\n", False),
        ("jobs:\n  evalcases: 1\n", False),
        ("- evalcases: 1\n", False),
    ],
)
def test_declares_v2_needs_a_top_level_key(text, expected):
    assert declares_v2(text) is expected


# -- item 1: eval files with other names ------------------------------------------------------------


@pytest.mark.parametrize("name", ["EVAL.yaml", "eval.yaml", "suite.EVAL.yml", "my-eval.yaml"])
def test_named_file_is_judged_as_the_loader_judges_it(make_repo, cli, name):
    """`name: x` without `tests`: the runtime cannot load it ("missing 'tests' field"), so
    check says so as an error and exits 1, like `preview`; validate's skipping is shown too."""
    repo = make_repo({name: NO_TESTS})
    code, payload = check_json(cli, repo.root, name)
    assert code == 1
    preview = cli("preview", "--agentv", "4", name, cwd=repo.root)
    assert preview.code == 1 and "missing 'tests' field" in preview.out
    errors = [d for d in payload["diagnostics"] if d["severity"] == "error"]
    assert len(errors) == 1 and "missing 'tests' field" in errors[0]["message"]
    unknown = [d for d in payload["diagnostics"] if d["code"] == "v4-unknown-file-type"]
    if name.lower().endswith((".eval.yaml", ".eval.yml")):
        assert unknown == []  # validate reads `*.EVAL.yml` (it lower-cases the name)
    else:
        assert [d["severity"] for d in unknown] == ["information"]
        assert "File type not recognized" in unknown[0]["message"]


def test_named_file_that_loads_keeps_validate_findings_as_warnings(make_repo, cli):
    repo = make_repo({"EVAL.yaml": GOOD_TEST + "    input_files: 3\n"})
    code, payload = check_json(cli, repo.root, "EVAL.yaml")
    assert code == 0
    assert all(d["severity"] != "error" for d in payload["diagnostics"])
    assert ("information", "v4-unknown-file-type") in by_file(payload)["EVAL.yaml"]


def test_walk_takes_eval_yaml_like_agentv_eval_run_dir(make_repo, cli):
    """`agentv eval run DIR` expands a folder to `*.eval.yaml`, `eval.yaml` (case-sensitive);
    `EVAL.yaml` outside an `evals/` folder is taken only when `--eval-glob` names it."""
    tree = {"a/eval.yaml": NO_TESTS, "b/EVAL.yaml": NO_TESTS, "c/other.yaml": NO_TESTS}
    repo = make_repo(tree)
    code, payload = check_json(cli, repo.root, ".")
    assert {f["file"] for f in payload["files"]} == {"a/eval.yaml"}
    assert code == 1
    code, payload = check_json(cli, repo.root, ".", "--eval-glob", "**/EVAL.yaml")
    assert {f["file"] for f in payload["files"]} == {"a/eval.yaml", "b/EVAL.yaml"}
    errors = {d["file"] for d in payload["diagnostics"] if d["severity"] == "error"}
    assert errors == {"a/eval.yaml", "b/EVAL.yaml"}


def test_walk_takes_the_default_discovery_patterns(make_repo, cli):
    """`agentv eval` discovers `**/evals/**/eval.yaml` case-insensitively by default."""
    repo = make_repo({"evals/skill/EVAL.yaml": GOOD_TEST, "other/EVAL.yaml": GOOD_TEST})
    _code, payload = check_json(cli, repo.root, ".")
    assert {f["file"] for f in payload["files"]} == {"evals/skill/EVAL.yaml"}


def test_walk_takes_the_projects_eval_patterns(make_repo, cli):
    repo = make_repo(
        {
            ".agentv/config.yaml": "eval_patterns:\n  - 'suites/**/*.yaml'\n",
            "suites/x/EVAL.yaml": GOOD_TEST,
            "evals/skill/eval.yaml": GOOD_TEST,  # the defaults no longer apply, `eval.yaml` still does
            "evals/skill/EVAL.yaml": GOOD_TEST,
        }
    )
    _code, payload = check_json(cli, repo.root, ".")
    files = {f["file"] for f in payload["files"]}
    assert {"suites/x/EVAL.yaml", "evals/skill/eval.yaml"} <= files
    assert "evals/skill/EVAL.yaml" not in files


def test_invalid_config_is_skipped_like_load_config(make_repo):
    repo = make_repo(
        {
            ".agentv/config.yaml": "eval_patterns: ['a/*.yaml']\n",
            "sub/.agentv/config.yaml": "eval_patterns: 'b/*.yaml'\n",  # not a list: `loadConfig` skips it
            "sub/a/x.yaml": GOOD_TEST,
        }
    )
    fs = FileSystem()
    found = project_eval_patterns(str(repo.root / "sub" / "a"), str(repo.root), fs)
    assert found.patterns == ("a/*.yaml",) and found.base == str(repo.root)
    assert not walk_takes_as_eval(str(repo.root / "sub/a/x.yaml"), str(repo.root), str(repo.root), fs, ())
    assert walk_takes_as_eval(str(repo.root / "a/x.yaml"), str(repo.root), str(repo.root), fs, ())


def test_only_agentv_takes_named_files_like_a_walk(make_repo, cli):
    """pre-commit passes every staged YAML file: the unrelated ones stay quiet."""
    repo = make_repo({**UNRELATED, "eval.yaml": NO_TESTS})
    code, payload = check_json(cli, repo.root, "--only-agentv", *UNRELATED, "eval.yaml")
    assert [f["file"] for f in payload["files"]] == ["eval.yaml"]
    assert code == 1
