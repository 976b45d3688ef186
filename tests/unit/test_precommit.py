"""The pre-commit hook (`.pre-commit-hooks.yaml`), run the way a user's repository runs it:
`pre-commit try-repo` installs this repository into pre-commit's own environment and passes it
the staged files. Slow (a pip install): runs in CI, with AGENTV_SLOW=1, or `-m slow`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BAD_V4 = "tests:\n  - id: t1\n    criteria: ok\n    input:\n      - role: usr\n        content: hi\n"
GOOD_V4 = "tests:\n  - id: t1\n    criteria: ok\n    input: hi\n"
OTHER = "services:\n  web:\n    image: nginx\n"  # not AgentV: the hook must leave it alone

pytestmark = pytest.mark.skipif(
    not (os.environ.get("CI") or os.environ.get("AGENTV_SLOW")),
    reason="slow (pip install): CI or AGENTV_SLOW=1",
)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_precommit_hook_flags_agentv_files_and_leaves_other_yaml_alone(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if subprocess.run([sys.executable, "-m", "pre_commit", "--version"], capture_output=True).returncode:
        pytest.skip("pre-commit is not installed (pip install -e '.[dev]')")
    user = tmp_path / "user-repo"
    (user / "evals").mkdir(parents=True)
    (user / "evals" / "a.eval.yaml").write_text(BAD_V4)
    (user / "docker-compose.yaml").write_text(OTHER)
    _git(user, "init", "-q")
    _git(user, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1"}
    # pre-commit installs a hook repository from a commit: snapshot this working tree (what the
    # package build needs) so the test checks the code as it is, committed or not
    hook_src = tmp_path / "hook-src"
    for part in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "schema", "server"):
        source = REPO / part
        if source.is_dir():
            shutil.copytree(source, hook_src / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            hook_src.mkdir(exist_ok=True)
            shutil.copy2(source, hook_src / part)
    _git(hook_src, "init", "-q")
    _git(hook_src, "add", ".")
    _git(hook_src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "snapshot")

    def hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hook_src), "agentv-lsp-check", "--all-files"],
            cwd=user,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    failed = hook()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "evals/a.eval.yaml:5:" in failed.stdout and "usr" in failed.stdout
    assert "docker-compose.yaml" not in failed.stdout
    (user / "evals" / "a.eval.yaml").write_text(GOOD_V4)
    _git(user, "add", ".")
    passed = hook()
    assert passed.returncode == 0, passed.stdout + passed.stderr
