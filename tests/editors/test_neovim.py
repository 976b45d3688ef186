"""Neovim's built-in LSP client against `agentv-lsp serve` (issue: editors beyond VS Code): the
diagnostics and the hover it gets agree with what `agentv-lsp check` and `agentv-lsp preview`
report for the same file. Needs Debian's `neovim` (`.ci/run` installs it): skipped without it
locally, a failure in CI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SUITE = (
    "tests:\n"
    "  - id: greet\n"
    "    criteria: ok\n"
    "    input:\n"
    "      - role: usr\n"  # line 4: the runtime drops this message, validate rejects the role
    "        content: hi\n"
    "  - id: capital\n"  # line 6
    "    criteria: Paris\n"
    "    input: What is the capital of France?\n"
)


def _nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is not installed (apt-get install neovim)")
        pytest.skip("nvim is not installed (apt-get install neovim)")
    return found


def _cli(root: Path, *args: str) -> object:
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", *args], cwd=root, capture_output=True, text=True, timeout=120
    )
    return json.loads(done.stdout)


def test_neovim_gets_the_diagnostics_and_hover_the_cli_reports(tmp_path: Path) -> None:
    nvim = _nvim()
    (tmp_path / ".git").mkdir()
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "a.eval.yaml").write_text(SUITE)
    out = tmp_path / "nvim-out.json"
    env = {
        **os.environ,
        "AGENTV_ROOT": str(tmp_path),
        "AGENTV_PYTHON": sys.executable,
        "AGENTV_HOVER_LINE": "7",  # 1-based: the `- id: capital` line
        "AGENTV_HOVER_COL": "10",
        "AGENTV_NVIM_OUT": str(out),
    }
    subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {HERE / 'neovim_drive.lua'}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=120,
    )
    got = json.loads(out.read_text())
    checked = _cli(tmp_path, "check", "evals/a.eval.yaml", "--format", "json")
    expected = {
        (d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"])
        for d in checked["diagnostics"]
    }
    seen = {(d["lnum"], d["col"], d["code"]) for d in got["diagnostics"]}
    assert expected and seen == expected
    assert any(line == 4 for line, _, _ in seen)
    preview = _cli(tmp_path, "preview", "evals/a.eval.yaml", "--json", "--case", "capital")
    (case,) = preview["cases"]
    assert case["lm"]["question"] in got["hover"]["value"]
