"""`--untrusted` on `preview`, `check` and `migrate` (issue 25, item 5): the language server's
rules for an untrusted workspace, with the repo root as the workspace folder. A file outside it
is not read, whether an eval file names it by an absolute path, `../` or a symlink; the
reference is reported with the reason. Without the flag the CLI reads them as AgentV does."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from agentv_lsp.formats.runtime import forget_project_runtimes
from agentv_lsp.migrate import run_migrate

SECRET = "SECRET-FROM-OUTSIDE"


@pytest.fixture(autouse=True)
def _fresh_cache():
    forget_project_runtimes()
    yield
    forget_project_runtimes()


def _tree(tmp_path: Path, v2: bool = False) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "evals").mkdir()
    (root / "evals" / "link.txt").symlink_to(outside / "secret.txt")
    values = [str(outside / "secret.txt"), "../../outside/secret.txt", "link.txt"]
    if v2:
        parts = "".join(f"          - type: file\n            value: {v}\n" for v in values)
        text = (
            "$schema: agentv-eval-v2\nevalcases:\n  - id: t\n    outcome: ok\n    input_messages:\n"
            f"      - role: user\n        content:\n{parts}"
        )
    else:
        parts = "".join(f"          - type: file\n            value: {v}\n" for v in values)
        text = f"description: d\ntests:\n  - id: t\n    criteria: ok\n    input:\n      - role: user\n        content:\n{parts}"
    (root / "evals" / "a.eval.yaml").write_text(text)
    return root


@pytest.mark.parametrize("v2", [False, True], ids=["4.x", "v2"])
def test_preview_reads_outside_only_when_trusted(tmp_path: Path, cli, v2: bool) -> None:
    root = _tree(tmp_path, v2)
    trusted = cli("preview", "evals/a.eval.yaml", "--json", cwd=root)
    assert SECRET in trusted.out  # what AgentV itself would inline
    untrusted = cli("preview", "evals/a.eval.yaml", "--json", "--untrusted", cwd=root)
    assert SECRET not in untrusted.out
    payload = json.loads(untrusted.out)
    assert len(payload["cases"]) == 1 and payload["warnings"]


@pytest.mark.parametrize("v2", [False, True], ids=["4.x", "v2"])
def test_check_reports_each_reference_out_of_the_repo_with_the_reason(tmp_path: Path, cli, v2: bool) -> None:
    root = _tree(tmp_path, v2)
    trusted = json.loads(cli("check", "evals", "--format", "json", cwd=root).out)
    assert not [d for d in trusted["diagnostics"] if "not trusted" in d["message"]]
    payload = json.loads(cli("check", "evals", "--format", "json", "--untrusted", cwd=root).out)
    reasons = [d for d in payload["diagnostics"] if "not trusted" in d["message"]]
    assert sorted(d["range"]["start"]["line"] for d in reasons) == [8, 10, 12]


def test_check_untrusted_reads_no_package_json_outside(tmp_path: Path, cli) -> None:
    root = _tree(tmp_path, v2=True)
    (tmp_path / "outside" / "package.json").write_text('{"dependencies": {"agentv": "^4.0.0"}}')
    (root / "evals" / "package.json").symlink_to(tmp_path / "outside" / "package.json")
    trusted = json.loads(cli("check", "evals", "--format", "json", cwd=root).out)
    assert trusted["files"][0]["runtime"] == "4.42.4"
    forget_project_runtimes()
    payload = json.loads(cli("check", "evals", "--format", "json", "--untrusted", cwd=root).out)
    assert payload["files"][0]["runtime"].startswith("2")
    (found,) = [d for d in payload["diagnostics"] if d["code"] == "runtime-manifest-unusable"]
    assert "untrusted" in found["message"] and "evals/package.json" in found["message"]


def test_check_untrusted_refuses_an_eval_file_outside(tmp_path: Path, cli) -> None:
    root = _tree(tmp_path)
    (tmp_path / "outside" / "b.eval.yaml").write_text("tests:\n  - id: x\n    criteria: ok\n    input: hi\n")
    (root / "evals" / "b.eval.yaml").symlink_to(tmp_path / "outside" / "b.eval.yaml")
    result = cli("check", "evals/b.eval.yaml", "--format", "json", "--untrusted", cwd=root)
    (found,) = json.loads(result.out)["diagnostics"]
    assert result.code == 1 and found["code"] == "file-unreadable" and "untrusted" in found["message"]


def test_migrate_untrusted_neither_reads_nor_writes_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    v2 = "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: o\n    input_messages:\n      - role: user\n        content: q\n"
    (outside / "s.yaml").write_text(v2)
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "evals").mkdir()
    (root / "evals" / "s.yaml").symlink_to(outside / "s.yaml")
    out = io.StringIO()
    assert run_migrate(["evals"], True, "json", None, str(root), out, untrusted=True) == 1
    (file,) = json.loads(out.getvalue())["files"]
    assert file["status"] == "untouched" and "outside the repo root" in file["findings"][0]["message"]
    assert (outside / "s.yaml").read_text() == v2 and os.path.islink(root / "evals" / "s.yaml")
