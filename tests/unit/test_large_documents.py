"""The file being checked or previewed is read whole; the size cap is for referenced files."""

from __future__ import annotations

from pathlib import Path

from agentv_lsp.checks.runner import run_check
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions
from agentv_lsp.formats.v2.loader import open_eval_file

CASE = "  - id: c{0}\n    outcome: o\n    input_messages:\n      - role: user\n        content: Question {0}\n"


def test_an_eval_file_above_the_read_cap_is_checked_and_loaded_whole(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "big.yaml"
    path.write_text("$schema: agentv-eval-v2\nevalcases:\n" + "".join(CASE.format(i) for i in range(200)))
    fs = FileSystem(max_bytes=1000)  # far below the file's size
    run = run_check([str(path)], CheckOptions(str(tmp_path), str(tmp_path), fs))
    assert not [d for d in run.diagnostics if d.severity == "error"], run.diagnostics[:3]
    ef = open_eval_file(str(path), repo_root=str(tmp_path), cwd=str(tmp_path), fs=FileSystem(max_bytes=1000))
    assert ef.loaded and len(ef.raw_cases) == 200
