"""Each test's last result (`agentv_lsp.results`, `preview --json`'s `last_run`), read from runs
the AgentV 4.42.4 runtime itself recorded (tests/results_runs: a mock target, offline), and,
where the runtime is installed, from fresh runs made the same way."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.oracle_v4.oracle import oracle_unavailable
from tests.results_runs.project import RECORDED, make_runs, run_eval

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.results import find_results, read_runs, recorded_input


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(RECORDED, root)
    return root


def preview(root: Path, eval_file: str, *extra: str) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentv_lsp",
            "preview",
            eval_file,
            "--json",
            "--repo-root",
            str(root),
            *extra,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def by_id(result: dict[str, Any]) -> dict[str, Any]:
    return {case["id"]: case["last_run"] for case in result["cases"]}


def test_each_test_gets_its_recorded_verdict_or_null(project: Path) -> None:
    runs = by_id(preview(project, "evals/geo.eval.yaml"))
    assert runs["never-run"] is None
    passed, failed = runs["capital"], runs["failing"]
    assert (passed["status"], passed["score"], passed["target"]) == ("passed", 1, "default")
    assert (failed["status"], failed["score"], failed["target"]) == ("failed", 0, "default")
    assert [(g["type"], g["verdict"]) for g in passed["graders"]] == [("contains", "pass")]
    assert [(g["type"], g["verdict"]) for g in failed["graders"]] == [("contains", "fail")]
    assert passed["answer"] == failed["answer"] == "Paris"  # the mock target's response
    assert passed["run"].startswith(".agentv/results/runs/default/")
    assert not passed["stale"] and not failed["stale"]


def test_every_recorded_input_is_what_our_preview_renders(project: Path) -> None:
    """input.md is `buildResultInput` printed by `formatOutputMarkdown`: flat questions, files
    inlined, system turns and conversations alike."""
    fs = FileSystem()
    results = find_results([str(project)], fs)
    checked = 0
    for eval_file in ("evals/geo.eval.yaml", "evals/files.eval.yaml"):
        for case in preview(project, eval_file)["cases"]:
            record = results.latest(eval_file, case["id"])
            if record is None:
                continue
            assert record.input_file is not None
            assert recorded_input(case["lm"]) == Path(record.input_file).read_text(encoding="utf-8")
            checked += 1
    assert checked == 4


def test_editing_one_input_makes_only_that_test_stale(project: Path) -> None:
    eval_file = project / "evals" / "geo.eval.yaml"
    text = eval_file.read_text(encoding="utf-8")
    eval_file.write_text(text.replace("capital of France?", "capital of France? One word."), encoding="utf-8")
    runs = by_id(preview(project, "evals/geo.eval.yaml"))
    assert runs["capital"]["stale"] is True
    assert runs["failing"]["stale"] is False


def test_bytes_outside_the_prompt_do_not_make_a_result_stale(project: Path) -> None:
    eval_file = project / "evals" / "geo.eval.yaml"
    text = eval_file.read_text(encoding="utf-8")
    eval_file.write_text(
        "# a comment\n" + text.replace("criteria: names Paris", "criteria: names Paris, politely"),
        encoding="utf-8",
    )
    runs = by_id(preview(project, "evals/geo.eval.yaml"))
    assert runs["capital"]["stale"] is False


def test_a_changed_inlined_file_makes_its_test_stale(project: Path) -> None:
    (project / "evals" / "snip.py").write_text("def answer():\n    return 43\n", encoding="utf-8")
    runs = by_id(preview(project, "evals/files.eval.yaml"))
    assert runs["with-file"]["stale"] is True
    assert runs["conversation"]["stale"] is False


def test_the_newest_run_wins_and_each_target_keeps_its_own(project: Path) -> None:
    fs = FileSystem()
    results = find_results([str(project)], fs)
    (record,) = results.rows[("evals/geo.eval.yaml", "capital")]
    newer_dir = project / ".agentv" / "results" / "runs" / "default" / "9999-newer"
    shutil.copytree(record.run_dir, newer_dir)
    rows = (newer_dir / "index.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(rows[0])
    first.update(timestamp="9999-01-01T00:00:00.000Z", target="other", execution_status="execution_error")
    (newer_dir / "index.jsonl").write_text(json.dumps(first) + "\n", encoding="utf-8")
    again = find_results([str(project)], fs)
    assert again.latest("evals/geo.eval.yaml", "capital") is not None
    assert again.latest("evals/geo.eval.yaml", "capital").status == "error"  # type: ignore[union-attr]
    per_target = again.latest_per_target("evals/geo.eval.yaml", "capital")
    assert {t: r.status for t, r in per_target.items()} == {"default": "passed", "other": "error"}


def test_malformed_rows_are_named_and_skipped(project: Path) -> None:
    run_dir = project / ".agentv" / "results" / "runs" / "default" / "broken"
    run_dir.mkdir(parents=True)
    rows = [
        "{not json",
        "[1, 2]",
        json.dumps({"score": 1}),
        json.dumps({"test_id": "x"}),
        json.dumps(
            {"test_id": "x", "projection_identity": {"dimensions": {"eval_path": "e.yaml"}}, "score": "1"}
        ),
        "[" * 100_000,
    ]
    (run_dir / "index.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    results = read_runs([str(run_dir)], FileSystem())
    named = [p.split(": ", 1)[0].rsplit(":", 1)[1] for p in results.problems]
    assert named == ["1", "2", "3", "4", "6"]
    (row,) = results.rows[("e.yaml", "x")]
    assert (row.score, row.status) == (None, "error")


def test_paths_a_row_names_are_read_only_inside_its_run(project: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not show", encoding="utf-8")
    run_dir = project / ".agentv" / "results" / "runs" / "default" / "hostile"
    run_dir.mkdir(parents=True)
    row = {
        "test_id": "capital",
        "timestamp": "9999-01-01T00:00:00.000Z",
        "score": 1,
        "execution_status": "ok",
        "projection_identity": {"dimensions": {"eval_path": "evals/geo.eval.yaml"}},
        "answer_path": "../../../../../secret.txt",
        "input_path": str(secret),
        "grading_path": "/dev/zero",
    }
    (run_dir / "index.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    last = by_id(preview(project, "evals/geo.eval.yaml"))["capital"]
    assert last["run"].endswith("/hostile")
    assert last["answer"] is None
    assert "do not show" not in json.dumps(last)


def test_an_untrusted_preview_reads_no_run_outside_the_repo_root(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    shutil.copytree(project / ".agentv" / "results" / "runs" / "default", outside)
    run = next(p for p in outside.iterdir() if (p / "geo").is_dir())
    shutil.rmtree(project / ".agentv" / "results")
    trusted = by_id(preview(project, "evals/geo.eval.yaml", "--run", str(run)))
    assert trusted["capital"]["status"] == "passed"
    untrusted = preview(project, "evals/geo.eval.yaml", "--run", str(run), "--untrusted")
    assert by_id(untrusted)["capital"] is None
    assert any("results:" in w and "cannot be read" in w for w in untrusted["warnings"])


def test_the_text_form_has_one_line_per_run_test(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "preview", "evals/geo.eval.yaml", "--repo-root", str(project)],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line for line in done.stdout.splitlines() if "last run:" in line]
    assert len(lines) == 2
    assert "✓ passed 1.00 · default" in lines[0]
    assert "✗ failed 0.00 · default" in lines[1]


@pytest.mark.skipif(oracle_unavailable() is not None, reason=str(oracle_unavailable()))
def test_fresh_runs_of_the_live_runtime_read_the_same_way(tmp_path: Path) -> None:
    """The runtime as installed: run the project, edit one test, run again only the other."""
    root = tmp_path / "live"
    modules = os.environ["AGENTV4_MODULES"]
    make_runs(root, modules)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    first = by_id(preview(root, "evals/geo.eval.yaml"))
    assert (first["capital"]["status"], first["failing"]["status"], first["never-run"]) == (
        "passed",
        "failed",
        None,
    )
    eval_file = root / "evals" / "geo.eval.yaml"
    eval_file.write_text(
        eval_file.read_text(encoding="utf-8").replace("capital of Spain?", "capital of Spain, please?"),
        encoding="utf-8",
    )
    assert by_id(preview(root, "evals/geo.eval.yaml"))["failing"]["stale"] is True
    run_eval(root, modules, "evals/geo.eval.yaml", ("failing",))
    after = by_id(preview(root, "evals/geo.eval.yaml"))
    assert after["failing"]["stale"] is False
    assert after["failing"]["run"] != first["failing"]["run"]
    assert after["capital"]["run"] == first["capital"]["run"]
