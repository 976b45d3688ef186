"""Two shapes from real repositories, against what AgentV 4.42.4 itself said (recorded by
driver.mjs into cases/workspace-external and cases/named-eval-files; no node needed):

- a workspace kept in another file (`workspace: ../workspace.yaml`) with problems: the check
  reports exactly validate's diagnostics (same count, same locations), the runtime's load
  failure folded into the one validate finding it repeats, as for inline workspaces;
- eval files not named `*.eval.yaml`, named to `check`: the runtime's load error is an error
  (exit 1 like `preview`), validate's own verdict ("File type not recognized") is shown beside
  it as information.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.oracle_v4.oracle import our_check

CASES = Path(__file__).resolve().parent / "cases"


def _stage(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "a" / "b" / "c" / "case"
    shutil.copytree(CASES / name, root, ignore=shutil.ignore_patterns("expected"))
    (root / ".git").mkdir(exist_ok=True)
    return root


def _record(name: str, eval_file: str) -> dict[str, Any]:
    path = CASES / name / "expected" / (eval_file.replace("/", "__") + ".json")
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


@pytest.mark.parametrize("eval_file", ["evals/suite.eval.yaml", "evals/per-test.eval.yaml"])
def test_external_workspace_errors_match_validate_in_count_and_place(tmp_path, eval_file):
    record = _record("workspace-external", eval_file)
    assert record["load_error"] is not None  # the runtime cannot load it
    root = _stage(tmp_path, "workspace-external")
    ours = our_check(root, eval_file)
    errors = [d for d in ours if d["severity"] in ("error", "warning")]
    wanted = Counter(i["location"] for i in record["validation"]["issues"])
    assert Counter(d["path"] for d in errors) == wanted
    assert all(d["severity"] == "error" for d in errors)
    load_error = record["load_error"].split("\n")[0]
    carrying = [d for d in errors if "cannot load this eval file" in d["message"]]
    assert len(carrying) == 1 and load_error in carrying[0]["message"]


def test_external_workspace_in_a_cli_walk(tmp_path, cli):
    root = _stage(tmp_path, "workspace-external")
    result = cli("check", "--format", "json", "--agentv", "4", ".", cwd=root)
    payload = json.loads(result.out)
    recorded = json.loads((CASES / "workspace-external" / "expected" / "_case.json").read_text())
    assert result.code == 1
    assert payload["summary"]["errors"] == len(recorded["validate_root"]["issues"])


@pytest.mark.parametrize("eval_file", ["EVAL.yaml", "evals/skill/eval.yaml", "suite.EVAL.yml"])
def test_named_eval_files_are_judged_as_the_runtime_loads_them(tmp_path, cli, eval_file):
    record = _record("named-eval-files", eval_file)
    root = _stage(tmp_path, "named-eval-files")
    result = cli("check", "--format", "json", "--agentv", "4", eval_file, cwd=root)
    diagnostics = json.loads(result.out)["diagnostics"]
    errors = [d for d in diagnostics if d["severity"] == "error"]
    if record["load_error"] is not None:
        assert result.code == 1 and len(errors) == 1
        assert record["load_error"].split(" - ")[-1] in errors[0]["message"]
    else:
        assert errors == [] and result.code == 0
    skipped_by_validate = any(
        i["message"].startswith("File type not recognized") for i in record["validation"]["issues"]
    )
    unknown = [d for d in diagnostics if d["code"] == "v4-unknown-file-type"]
    assert [d["severity"] for d in unknown] == (["information"] if skipped_by_validate else [])
    if record["warnings"]:  # what the runtime printed is at least a warning
        assert any(d["severity"] == "warning" and d["code"] == "v4-skipped-test" for d in diagnostics)


def test_validate_of_the_folder_reads_only_what_the_walk_judges_like_it(tmp_path, cli):
    """`agentv validate .` checked only `suite.EVAL.yml`; our walk takes it too (and
    `evals/skill/eval.yaml`, which `agentv eval run .` and `agentv eval`'s discovery read),
    never the `EVAL.yaml` at the root, which nothing in 4.42.4 reads from a folder."""
    recorded = json.loads((CASES / "named-eval-files" / "expected" / "_case.json").read_text())
    assert "suite.EVAL.yml" in recorded["validate_root"]["text"]
    assert "EVAL.yaml\n" not in recorded["validate_root"]["text"].replace("suite.EVAL.yml", "")
    root = _stage(tmp_path, "named-eval-files")
    result = cli("check", "--format", "json", "--agentv", "4", ".", cwd=root)
    files = {f["file"] for f in json.loads(result.out)["files"]}
    assert files == {"suite.EVAL.yml", "evals/skill/eval.yaml"}
