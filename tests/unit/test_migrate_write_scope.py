"""`migrate --write` writes only inside the paths given and the repo root (issue 25, items 3
and 9): grader prompts named by absolute or `../..` paths, and symlinks leading out, are
reported and left alone; symlinks stay symlinks; temporary files never outlive a run, and
those a killed run left are removed by the next one."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentv_lsp.migrate import run_migrate

JUDGE = "Q: {{question}}\nA: {{candidate_answer}}\n"
MIGRATED_JUDGE = "Q: {{input}}\nA: {{output}}\n"


def suite(prompt: str) -> str:
    return (
        "$schema: agentv-eval-v2\n"
        "evalcases:\n"
        "  - id: a\n"
        "    outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content: q\n"
        "    evaluators:\n"
        "      - name: j\n"
        "        type: llm_judge\n"
        f"        prompt: {prompt}\n"
    )


def repo_at(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(parents=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def migrate(root: Path, *paths: str, write: bool = True) -> tuple[int, dict]:
    out = io.StringIO()
    code = run_migrate(list(paths), write, "json", None, str(root), out)
    return code, json.loads(out.getvalue())


def findings(payload: dict) -> list[str]:
    return [f["message"] for file in payload["files"] for f in file["findings"]]


def test_an_absolute_prompt_path_outside_the_repo_is_reported_not_written(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "j.md"
    outside.parent.mkdir()
    outside.write_text(JUDGE)
    root = repo_at(tmp_path / "repo", {"evals/e.eval.yaml": suite(str(outside))})
    code, payload = migrate(root, "evals")
    assert code == 1
    assert outside.read_text() == JUDGE
    (message,) = [m for m in findings(payload) if "would change" in m]
    assert str(outside) in message and "outside the repo root; not written" in message
    # the eval file itself is inside: it is migrated
    assert "tests:" in (root / "evals" / "e.eval.yaml").read_text()


def test_a_dotdot_prompt_path_outside_the_repo_is_reported_not_written(tmp_path: Path) -> None:
    outside = tmp_path / "x" / "j.md"
    outside.parent.mkdir()
    outside.write_text(JUDGE)
    root = repo_at(tmp_path / "a" / "b" / "repo", {"evals/e.eval.yaml": suite("../../../../x/j.md")})
    code, payload = migrate(root, "evals")
    assert code == 1 and outside.read_text() == JUDGE
    assert any("x/j.md" in m and "outside the repo root; not written" in m for m in findings(payload))


def test_a_prompt_outside_the_paths_given_is_reported_unless_given(tmp_path: Path) -> None:
    files = {"evals/e.eval.yaml": suite("judges/j.md"), "judges/j.md": JUDGE}
    root = repo_at(tmp_path / "one", files)
    code, payload = migrate(root, "evals")
    assert code == 1 and (root / "judges" / "j.md").read_text() == JUDGE
    assert any(
        "would change judges/j.md, outside the paths given; not written" in m for m in findings(payload)
    )
    dry_root = repo_at(tmp_path / "dry", files)
    out = io.StringIO()
    assert run_migrate(["evals"], False, "text", None, str(dry_root), out) == 1  # said before writing
    assert "outside the paths given; not written" in out.getvalue()
    both = repo_at(tmp_path / "two", files)
    code, _ = migrate(both, "evals", "judges")
    assert code == 0 and (both / "judges" / "j.md").read_text() == MIGRATED_JUDGE


def test_a_symlinked_prompt_inside_stays_a_symlink_and_its_target_is_edited(tmp_path: Path) -> None:
    root = repo_at(
        tmp_path / "repo", {"evals/e.eval.yaml": suite("judges/j.md"), "evals/judges/real.md": JUDGE}
    )
    link = root / "evals" / "judges" / "j.md"
    link.symlink_to("real.md")
    code, payload = migrate(root, "evals")
    assert code == 0, findings(payload)
    assert link.is_symlink() and os.readlink(link) == "real.md"
    assert (root / "evals" / "judges" / "real.md").read_text() == MIGRATED_JUDGE


def test_a_symlinked_prompt_leading_out_of_the_paths_is_reported(tmp_path: Path) -> None:
    root = repo_at(tmp_path / "repo", {"evals/e.eval.yaml": suite("judges/j.md"), "shared/real.md": JUDGE})
    link = root / "evals" / "judges" / "j.md"
    link.parent.mkdir()
    link.symlink_to(root / "shared" / "real.md")
    code, payload = migrate(root, "evals")
    assert code == 1
    assert link.is_symlink() and (root / "shared" / "real.md").read_text() == JUDGE
    (message,) = [m for m in findings(payload) if "would change" in m]
    assert "shared/real.md (through the link evals/judges/j.md), outside the paths given" in message


def test_a_symlinked_eval_file_keeps_its_link(tmp_path: Path) -> None:
    root = repo_at(tmp_path / "repo", {"evals/real/smoke.yaml": suite("'Rate {{candidate_answer}}'")})
    link = root / "evals" / "current.yaml"
    link.symlink_to("real/smoke.yaml")
    (root / "evals" / "real" / "smoke.yaml").rename(root / "evals" / "real" / "smoke.eval.yaml")
    link.unlink()
    link.symlink_to("real/smoke.eval.yaml")
    code, payload = migrate(root, "evals")
    assert code == 0, findings(payload)
    assert [f["file"] for f in payload["files"]] == [str(root / "evals" / "real" / "smoke.eval.yaml")]
    assert link.is_symlink() and os.readlink(link) == "real/smoke.eval.yaml"  # migrated once, as itself
    assert "tests:" in link.read_text()


def test_a_symlinked_eval_file_is_renamed_as_a_link_and_its_target_edited(tmp_path: Path) -> None:
    root = repo_at(tmp_path / "repo", {"evals/v2/smoke.yaml": suite("'Rate {{candidate_answer}}'")})
    link = root / "evals" / "smoke.yaml"
    link.symlink_to("v2/smoke.yaml")
    code, payload = migrate(root, "evals/smoke.yaml")
    assert code == 0, findings(payload)
    renamed = root / "evals" / "smoke.eval.yaml"
    assert renamed.is_symlink() and os.readlink(renamed) == "v2/smoke.yaml" and not link.exists()
    assert "tests:" in (root / "evals" / "v2" / "smoke.yaml").read_text()


def test_a_symlinked_eval_file_leading_out_is_reported_and_nothing_written(tmp_path: Path) -> None:
    root = repo_at(
        tmp_path / "repo", {"archive/smoke.yaml": suite("judges/j.md"), "evals/judges/j.md": JUDGE}
    )
    link = root / "evals" / "smoke.yaml"
    link.symlink_to(root / "archive" / "smoke.yaml")
    before = (root / "archive" / "smoke.yaml").read_text()
    code, payload = migrate(root, "evals")
    assert code == 1
    assert link.is_symlink() and (root / "archive" / "smoke.yaml").read_text() == before
    assert (root / "evals" / "judges" / "j.md").read_text() == JUDGE  # its companions wait with it
    assert any("archive/smoke.yaml (through the link evals/smoke.yaml)" in m for m in findings(payload))


# -- links to a renamed file (issue 33, finding 6) ---------------------------------------------


@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_a_link_to_a_renamed_file_is_retargeted_and_named(tmp_path: Path, absolute: bool) -> None:
    root = repo_at(tmp_path / "repo", {"evals/v2/smoke.yaml": suite("'Rate {{candidate_answer}}'")})
    link = root / "evals" / "current.yaml"
    link.symlink_to(root / "evals" / "v2" / "smoke.yaml" if absolute else "v2/smoke.yaml")
    chained = root / "evals" / "latest.yaml"  # a link to the link: it keeps leading there
    chained.symlink_to("current.yaml")
    code, dry = migrate(root, "evals", write=False)
    expected = str(root / "evals" / "v2" / "smoke.eval.yaml") if absolute else "v2/smoke.eval.yaml"
    assert [f["links_retargeted"] for f in dry["files"]] == [[{"link": str(link), "target": expected}]]
    assert os.readlink(link).endswith("smoke.yaml")  # a dry run changes nothing
    code, payload = migrate(root, "evals")
    assert code == 0, findings(payload)
    assert (root / "evals" / "v2" / "smoke.eval.yaml").is_file() and not (
        root / "evals" / "v2" / "smoke.yaml"
    ).exists()
    assert link.is_symlink() and os.readlink(link) == expected and "tests:" in link.read_text()
    assert os.readlink(chained) == "current.yaml" and "tests:" in chained.read_text()
    assert any(
        m.startswith("the link evals/current.yaml leads to it: retargeted to") for m in findings(payload)
    )
    assert not list(root.rglob(".agentv-migrate-*"))


def test_a_link_outside_the_paths_given_keeps_the_file_from_being_renamed(tmp_path: Path) -> None:
    root = repo_at(tmp_path / "repo", {"evals/smoke.yaml": suite("'Rate {{candidate_answer}}'")})
    (root / "docs").mkdir()
    link = root / "docs" / "example.yaml"
    link.symlink_to("../evals/smoke.yaml")
    before = (root / "evals" / "smoke.yaml").read_text()
    code, payload = migrate(root, "evals")
    assert code == 1
    assert (root / "evals" / "smoke.yaml").read_text() == before and not (
        root / "evals" / "smoke.eval.yaml"
    ).exists()
    assert os.readlink(link) == "../evals/smoke.yaml" and link.read_text() == before  # not left dangling
    (message,) = [m for m in findings(payload) if "dangling" in m]
    assert "docs/example.yaml" in message and "outside the paths given" in message
    text = io.StringIO()
    assert run_migrate(["evals"], True, "text", None, str(root), text) == 1
    assert "docs/example.yaml" in text.getvalue() and "dangling" in text.getvalue()
    code, payload = migrate(root, "evals", "docs")  # named among the paths: mended
    assert code == 0, findings(payload)
    assert os.readlink(link) == "../evals/smoke.eval.yaml" and "tests:" in link.read_text()


# -- temporary files (item 9) ----------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_rerun_removes_the_temporary_files_a_killed_run_left(tmp_path: Path) -> None:
    root = repo_at(tmp_path / "repo", {"evals/e.yaml": suite("'Rate {{candidate_answer}}'")})
    folder = root / "evals"
    legacy = folder / ".agentv-migrate-k2x_9abc.tmp"  # named by versions without a process id
    dead = folder / f".agentv-migrate-{_dead_pid()}-abcd1234.tmp"
    live = folder / f".agentv-migrate-{os.getpid()}-abcd1234.tmp"  # a run still writing: not ours
    other = folder / ".agentv-migrate-notes.tmp"
    for path in (legacy, dead, live, other):
        path.write_text("")
    out = io.StringIO()
    assert run_migrate(["evals"], True, "text", None, str(root), out) == 0
    assert not legacy.exists() and not dead.exists() and live.exists() and other.exists()
    assert "removed evals/.agentv-migrate-k2x_9abc.tmp, left by an interrupted migrate" in out.getvalue()
    assert (folder / "e.eval.yaml").exists()


_SLOW_WRITER = textwrap.dedent(
    """
    import io, os, sys, time
    from agentv_lsp.migrate import run_migrate

    def slow_fsync(fd):
        print("writing", flush=True)
        time.sleep(60)

    os.fsync = slow_fsync
    sys.exit(run_migrate(["evals"], True, "text", None, sys.argv[1], io.StringIO()))
    """
)


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_during_the_write_leaves_no_temporary_file(tmp_path: Path, sig: str) -> None:
    root = repo_at(tmp_path / "repo", {"evals/e.yaml": suite("'Rate {{candidate_answer}}'")})
    before = (root / "evals" / "e.yaml").read_text()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "server")}
    number = getattr(signal, sig)
    child = subprocess.Popen(
        [sys.executable, "-c", _SLOW_WRITER, str(root)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        # as from a terminal: a runner started in the background (`cmd &`) ignores SIGINT, its
        # children inherit that, and Python then leaves Ctrl-C ignored too
        preexec_fn=lambda: signal.signal(number, signal.SIG_DFL),
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "writing\n"
        assert [p.name for p in (root / "evals").glob(".agentv-migrate-*.tmp")]  # the write is under way
        child.send_signal(number)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode != 0
    assert list((root / "evals").glob(".agentv-migrate-*")) == []
    assert (root / "evals" / "e.yaml").read_text() == before and not (root / "evals" / "e.eval.yaml").exists()
