"""Protection: coverage-guided fuzzing finds no input that makes the parser or the checker
raise. Runs `fuzz_atheris.py` for a bounded time, seeded with our golden eval files;
skipped where atheris does not install (it has wheels for Linux x86_64 only)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden" / "cases"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("atheris") is None, reason="atheris is not installed"
)


def test_coverage_guided_fuzzing_finds_no_crash(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds = sorted(GOLDEN.rglob("*.yaml"))[:40]
    for i, seed in enumerate(seeds):
        shutil.copy(seed, corpus / f"seed-{i:03}")
    done = subprocess.run(
        [
            sys.executable,
            str(HERE / "fuzz_atheris.py"),
            str(corpus),
            "-max_total_time=15",
            "-timeout=10",
            "-rss_limit_mb=2048",
            f"-artifact_prefix={tmp_path}/",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    report = done.stderr[-4000:]
    assert done.returncode == 0, f"atheris found a crash:\n{report}"
    assert "Done" in report and "runs in" in report, report  # it really ran
    assert seeds, "no seeds: the golden copies are missing"
    assert not list(tmp_path.glob("crash-*")), report
