"""`agentv-lsp diff` on real git repositories (both formats): statuses, fields, causes, renames,
load-state changes, migration between revisions, token counts, exit codes and safety."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from tests.conftest import GIT_ENV

from agentv_lsp.cli import main
from agentv_lsp.diff import diff_revisions
from agentv_lsp.diff.compare import DiffReport
from agentv_lsp.diff.render import render_json, render_text
from agentv_lsp.engine import tokens
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.preview import preview_v4


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=self.root, env=GIT_ENV, check=True, capture_output=True, text=True
        ).stdout

    def write(self, files: dict[str, str]) -> None:
        for relative, text in files.items():
            path = self.root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def commit(self, files: dict[str, str] | None = None, message: str = "change") -> str:
        if files:
            self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def diff(self, base: str = "HEAD", head: str | None = None, **kwargs: object) -> DiffReport:
        return diff_revisions(str(self.root), base, head, cwd=str(self.root), **kwargs)  # type: ignore[arg-type]


def run_cli(repo: GitRepo, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(repo.root)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["diff", *argv])
    finally:
        os.chdir(cwd)
    return status, out.getvalue(), err.getvalue()


def v4_suite(tests: list[str], suite_input: str | None = None, grader: str | None = None) -> str:
    head = ""
    if suite_input is not None:
        head += f"input:\n  - role: system\n    content: {json.dumps(suite_input)}\n"
    if grader is not None:
        head += f"assertions:\n  - name: rubric\n    type: llm-grader\n    prompt: file://{grader}\n"
    return head + "tests:\n" + "".join(tests)


def v4_test(test_id: str, question: str, criteria: str = "answers well", file: str | None = None) -> str:
    text = f"  - id: {test_id}\n    criteria: {json.dumps(criteria)}\n"
    if file is None:
        return text + f"    input: {json.dumps(question)}\n"
    return (
        text + "    input:\n      - role: user\n        content:\n"
        f"          - type: text\n            value: {json.dumps(question)}\n"
        f"          - type: file\n            value: {file}\n"
    )


def by_id(report: DiffReport) -> dict[str, object]:
    return {t.id: t for t in report.tests}


# ---- 4.x ----


def test_an_inlined_file_changed_under_many_tests_is_named_as_their_cause(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test(f"uses-{i}", f"Review part {i}", file="snippets/a.py") for i in range(40)]
    tests += [v4_test(f"plain-{i}", f"Say {i}") for i in range(5)]
    repo.commit({"evals/snippets/a.py": "def a():\n    return 1\n", "evals/x.eval.yaml": v4_suite(tests)})
    repo.write({"evals/snippets/a.py": "def a():\n    return 2\n"})

    report = repo.diff()

    statuses = {t.id: t.status for t in report.tests}
    assert [i for i, s in statuses.items() if s == "changed"] == [f"uses-{i}" for i in range(40)]
    assert all(statuses[f"plain-{i}"] == "unchanged" for i in range(5))
    assert report.causes == [("evals/snippets/a.py", 40)]
    first = next(t for t in report.tests if t.id == "uses-0")
    assert first.causes == ["evals/snippets/a.py"]
    question = next(f for f in first.fields if f.name == "lm.question")
    assert "-    return 1\n+    return 2\n" in question.diff
    assert question.before is not None and question.after is not None
    assert question.before.replace("return 1", "return 2") == question.after
    text = render_text(report)
    assert "evals/snippets/a.py changed: 40 tests' prompts changed" in text
    status, _, _ = run_cli(repo)
    assert status == 1


def test_nothing_changed_exits_0_and_counts_every_test_unchanged(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi"), v4_test("b", "Ho")])})
    status, out, _ = run_cli(repo)
    assert status == 0
    assert "1 more eval file read no changed file (not previewed" in out
    assert repo.diff().prompts_changed is False
    status, out, _ = run_cli(repo, "--full", "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["summary"]["tests"]["unchanged"] == 2
    assert all(t["tokens"]["before"] == t["tokens"]["after"] for t in data["tests"])


def test_a_renamed_eval_file_keeps_its_tests_matched_between_commits_and_against_the_work_tree(
    tmp_path: Path,
) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test(f"t{i}", f"Question number {i} about the cache layer") for i in range(12)]
    first = repo.commit({"evals/old.eval.yaml": v4_suite(tests)})
    repo.git("mv", "evals/old.eval.yaml", "evals/new.eval.yaml")
    edited = (repo.root / "evals/new.eval.yaml").read_text().replace("Question number 3 ", "Question no. 3 ")
    repo.write({"evals/new.eval.yaml": edited})

    for report in (repo.diff(first), repo.diff(first, repo.commit(message="rename"))):
        statuses = {t.id: t.status for t in report.tests}
        assert statuses.pop("t3") == "changed"
        assert set(statuses.values()) == {"unchanged"}
        assert {(f.file, f.base_file, f.status) for f in report.files} == {
            ("evals/new.eval.yaml", "evals/old.eval.yaml", "renamed")
        }


def test_a_test_that_becomes_skipped_is_named_first_with_the_runtime_reason(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi"), v4_test("b", "Ho"), v4_test("c", "Hu")])})
    text = (repo.root / "evals/x.eval.yaml").read_text()
    repo.write(
        {"evals/x.eval.yaml": text.replace('  - id: c\n    criteria: "answers well"\n', "  - id: c\n")}
    )
    (repo.root / "evals/x.eval.yaml").write_text(
        (repo.root / "evals/x.eval.yaml").read_text().replace('"Ho"', '"Ho ho"')
    )

    report = repo.diff()

    assert [(t.id, t.status) for t in report.tests] == [
        ("c", "now-skipped"),
        ("b", "changed"),
        ("a", "unchanged"),
    ]
    skipped = report.tests[0]
    # the reason is the runtime's own message, as `preview` reports it
    expected = preview_v4(str(repo.root / "evals/x.eval.yaml"), str(repo.root), str(repo.root), FileSystem())
    assert skipped.note == expected["skipped"][0]["reason"]
    assert skipped.tokens_after is None and skipped.tokens_before is not None
    assert render_text(report).splitlines()[1].startswith("now-skipped")


def test_suite_level_input_changed_reaches_every_test(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test(f"t{i}", f"Q{i}") for i in range(6)]
    repo.commit({"evals/x.eval.yaml": v4_suite(tests, suite_input="You are terse.")})
    repo.write({"evals/x.eval.yaml": v4_suite(tests, suite_input="You are verbose.")})

    report = repo.diff()

    assert {t.status for t in report.tests} == {"changed"}
    for t in report.tests:
        names = {f.name for f in t.fields}
        assert "lm.systemMessage" in names or "lm.chatPrompt" in names
        assert t.causes == ["evals/x.eval.yaml"]
        assert all("verbose" in (f.after or "") for f in t.fields if f.name == "lm.systemMessage")


def test_a_grader_template_change_shows_in_the_grader_prompt_only(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test(f"t{i}", f"Q{i}") for i in range(3)]
    rubric = "Grade the answer.\n{{ criteria }}\n{{ output }}\n"
    repo.commit(
        {"evals/judges/rubric.md": rubric, "evals/x.eval.yaml": v4_suite(tests, grader="judges/rubric.md")}
    )
    repo.write({"evals/judges/rubric.md": rubric.replace("Grade the answer.", "Grade the answer strictly.")})

    report = repo.diff()

    for t in report.tests:
        assert t.status == "changed"
        assert [f.name for f in t.fields] == ["grader_prompt"]
        assert "+Grade the answer strictly." in t.fields[0].diff
        assert t.causes == ["evals/judges/rubric.md"]
        before, after = t.tokens_before, t.tokens_after
        assert before is not None and after is not None
        assert before["candidate"] == after["candidate"]
        assert after["grader"] == before["grader"] + 1  # " strictly" is one o200k token


def test_a_removed_and_an_added_test_and_a_file_that_stops_loading(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit(
        {
            "evals/x.eval.yaml": v4_suite([v4_test("a", "Hi"), v4_test("b", "Ho")]),
            "evals/y.eval.yaml": v4_suite([v4_test("y1", "Yo")]),
        }
    )
    head = repo.commit(
        {
            "evals/x.eval.yaml": v4_suite([v4_test("a", "Hi"), v4_test("c", "New")]),
            "evals/y.eval.yaml": "tests: [\n",
        }
    )
    report = repo.diff(base, head)
    assert [(t.id, t.status) for t in report.tests] == [
        ("y1", "now-error"),
        ("c", "added"),
        ("b", "removed"),
        ("a", "unchanged"),
    ]
    assert report.tests[0].note  # the load error, named
    reverse = repo.diff(head, base)
    assert ("y1", "no-longer-error") in [(t.id, t.status) for t in reverse.tests]


# ---- v2 and the migration between revisions ----

V2_FILE = """$schema: agentv-eval-v2
evalcases:
  - id: review
    outcome: Finds the bug
    input_messages:
      - role: system
        content: You review code.
      - role: user
        content:
          - type: text
            value: Review this
          - type: file
            value: snippets/a.py
  - id: greet
    outcome: Greets
    input_messages:
      - role: user
        content: Say hello
"""


def test_v2_files_an_inlined_file_changed(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit({"evals/snippets/a.py": "x = 1\n", "evals/suite.yaml": V2_FILE})
    repo.write({"evals/snippets/a.py": "x = 2\n"})
    report = repo.diff()
    assert {t.id: t.status for t in report.tests} == {"review": "changed", "greet": "unchanged"}
    review = by_id(report)["review"]
    assert review.causes == ["evals/snippets/a.py"]  # type: ignore[attr-defined]
    assert report.files[0].runtime_after == "2 (agentv-eval-v2)"


def test_a_v2_file_migrated_to_4x_between_revisions_carries_migrates_per_test_proof(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit({"evals/snippets/a.py": "x = 1\n", "evals/suite.yaml": V2_FILE})
    # migrate's own per-test proof, before the files are rewritten
    proof_out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(repo.root)
    try:
        with redirect_stdout(proof_out):
            main(["migrate", "evals", "--format", "json"])
        with redirect_stdout(io.StringIO()):
            main(["migrate", "evals", "--write"])
    finally:
        os.chdir(cwd)
    proofs = json.loads(proof_out.getvalue())
    cases = {c["id"]: c for m in proofs["files"] for c in m["cases"]}
    head = repo.commit(message="migrate")

    report = repo.diff(base, head)

    (file_change,) = report.files
    assert (file_change.base_file, file_change.file) == ("evals/suite.yaml", "evals/suite.eval.yaml")
    assert (file_change.runtime_before, file_change.runtime_after) == ("2 (agentv-eval-v2)", "4.42.4")
    for t in report.tests:
        if t.status == "unchanged":
            continue
        assert t.note is not None and f"LM question {cases[t.id]['verdict']}" in t.note
        assert any(c.startswith("runtime: AgentV 2 (agentv-eval-v2) -> 4.42.4") for c in t.causes)
    assert report.prompts_changed  # the grader prompt and assertions differ between the runtimes


# ---- output, tokens, exit codes, safety ----


def test_json_has_one_object_per_test_with_fields_causes_and_tokens(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi"), v4_test("b", "Ho")])})
    repo.write({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi there, how are you?"), v4_test("b", "Ho")])})
    status, out, _ = run_cli(repo, "--format", "json")
    assert status == 1
    data = json.loads(out)
    a = next(t for t in data["tests"] if t["id"] == "a")
    assert a["status"] == "changed" and a["file"] == "evals/x.eval.yaml"
    question = next(f for f in a["fields"] if f["field"] == "lm.question")
    assert (question["before"], question["after"]) == ("Hi", "Hi there, how are you?")
    assert a["causes"] == ["evals/x.eval.yaml"]
    head_preview = preview_v4(
        str(repo.root / "evals/x.eval.yaml"), str(repo.root), str(repo.root), FileSystem()
    )
    case_a = head_preview["cases"][0]
    expected = tokens.count(case_a["lm"]["question"]) + tokens.count(case_a["lm"].get("systemMessage") or "")
    assert a["tokens"]["after"]["candidate"] == expected
    assert a["tokens"]["after"]["candidate"] - a["tokens"]["before"]["candidate"] == len(
        tokens.encode("Hi there, how are you?")
    ) - len(tokens.encode("Hi"))
    assert data["summary"]["tests"]["changed"] == 1 and data["summary"]["tests"]["unchanged"] == 1
    assert data["summary"]["tokens"]["tokenizer"] == "o200k_base"


def test_revision_arguments_that_look_like_options_or_name_nothing_exit_2(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi")])})
    status, _, err = run_cli(repo, "--", "--output=/tmp/x")
    assert status == 2 and "looks like an option" in err
    status, _, err = run_cli(repo, "HEAD", "no-such-branch-or-path")
    assert status == 2 and "neither a revision nor a path" in err
    status, _, err = run_cli(repo, "HEAD~5")
    assert status == 2 and "'HEAD~5' is neither a revision nor a path" in err
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    status, _, err = run_cli(repo, "--repo-root", str(outside))
    assert status == 2 and "not inside a git repository" in err


def test_an_unreadable_revision_exits_2_with_its_name(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi")])})
    empty = GitRepo(tmp_path / "empty")  # no commit: HEAD names nothing
    empty.write({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi")])})
    status, _, err = run_cli(empty)
    assert status == 2 and "'HEAD' cannot be read" in err


def test_nothing_the_repository_configures_runs_and_nothing_is_written_to_it(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    marker = tmp_path / "ran"
    command = f"touch {marker}"
    repo.commit(
        {"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi")]), ".gitattributes": "* filter=evil diff=evil\n"}
    )
    for key, value in (
        ("filter.evil.clean", command),
        ("filter.evil.smudge", command),
        ("filter.evil.process", command),
        ("diff.evil.textconv", command),
        ("diff.external", command),
        ("core.fsmonitor", command),
        ("core.pager", command),
    ):
        repo.git("config", key, value)
    hooks = repo.root / ".git" / "hooks"
    for name in ("post-checkout", "post-index-change", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\n{command}\n")
        (hooks / name).chmod(0o755)
    marker.unlink(missing_ok=True)
    repo.write({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hello")])})
    index = (repo.root / ".git" / "index").read_bytes()
    listing = sorted(str(p.relative_to(repo.root)) for p in repo.root.rglob("*"))
    tempfile.tempdir = str(tmp_path / "tmp")
    os.mkdir(tempfile.tempdir)
    try:
        status, _, _ = run_cli(repo, "HEAD")
        report = repo.diff("HEAD", "HEAD")
    finally:
        leftovers = os.listdir(tempfile.tempdir)
        tempfile.tempdir = None
    assert status == 1 and not report.prompts_changed
    assert not marker.exists()
    assert (repo.root / ".git" / "index").read_bytes() == index
    assert sorted(str(p.relative_to(repo.root)) for p in repo.root.rglob("*")) == listing
    assert leftovers == []  # the revisions laid out in temporary folders are gone


def test_a_symbolic_link_in_a_revision_that_leads_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    repo = GitRepo(tmp_path / "r")
    (repo.root / "evals").mkdir()
    os.symlink(secret, repo.root / "evals" / "leak.txt")
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "See", file="leak.txt")])})
    repo.write({"evals/x.eval.yaml": v4_suite([v4_test("a", "See it", file="leak.txt")])})
    out = render_json(repo.diff())
    assert "TOP SECRET" not in out


def test_text_output_escapes_what_the_files_hold(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    evil_id = "x\x1b[31m\n::error file=a::forged\u202e"
    repo.commit(
        {
            "evals/x.eval.yaml": v4_suite([v4_test(json.loads(json.dumps(evil_id)), "Hi")]).replace(
                "id: " + evil_id, "id: " + json.dumps(evil_id)
            )
        }
    )
    repo.write(
        {
            "evals/x.eval.yaml": (repo.root / "evals/x.eval.yaml")
            .read_text()
            .replace('"Hi"', '"Hi\\u001b[2J\\n::warning::x"')
        }
    )
    status, out, _ = run_cli(repo)
    assert status == 1
    assert "\x1b" not in out and "\u202e" not in out
    assert not any(line.startswith("::") for line in out.splitlines())
    assert "\\x1b[31m" in out


def test_paths_limit_the_comparison(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit(
        {
            "a/x.eval.yaml": v4_suite([v4_test("a", "Hi")]),
            "b/y.eval.yaml": v4_suite([v4_test("b", "Ho")]),
        }
    )
    repo.write(
        {"a/x.eval.yaml": v4_suite([v4_test("a", "Hi!")]), "b/y.eval.yaml": v4_suite([v4_test("b", "Ho!")])}
    )
    status, out, _ = run_cli(repo, "HEAD", "b", "--format", "json")
    data = json.loads(out)
    assert status == 1 and [t["id"] for t in data["tests"]] == ["b"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_terminated_diff_leaves_no_temporary_folder(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test(f"t{i}", f"Q{i}") for i in range(3000)]
    base = repo.commit({"evals/x.eval.yaml": v4_suite(tests)})
    head = repo.commit({"evals/x.eval.yaml": v4_suite(tests[:-1])})
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "agentv_lsp", "diff", base, head],
        cwd=repo.root,
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import time

    deadline = time.monotonic() + 30
    while not os.listdir(scratch) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)
    process.terminate()
    process.wait(timeout=30)
    assert os.listdir(scratch) == []


def test_between_two_commits_agent_mode_paths_name_the_repository_not_a_temporary_folder(
    tmp_path: Path,
) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test("files", "Look", file="snippets/a.py"), v4_test("plain", "Hi")]
    base = repo.commit({"evals/snippets/a.py": "x = 1\n", "evals/x.eval.yaml": v4_suite(tests)})
    tests[1] = v4_test("plain", "Hi there")
    head = repo.commit({"evals/x.eval.yaml": v4_suite(tests)})
    report = repo.diff(base, head, full=True)
    assert {t.id: t.status for t in report.tests} == {"files": "unchanged", "plain": "changed"}
    tests[0] = v4_test("files", "Look again", file="snippets/a.py")
    repo.commit({"evals/x.eval.yaml": v4_suite(tests)})
    changed = by_id(repo.diff(head, "HEAD"))["files"]
    agent = next(f for f in changed.fields if f.name == "agent.question")  # type: ignore[attr-defined]
    where = str((repo.root / "evals" / "snippets" / "a.py").resolve())
    assert f'<file: path="{where}">' in (agent.before or "") and f'<file: path="{where}">' in (
        agent.after or ""
    )
    assert "agentv-diff-" not in agent.diff


def test_only_the_eval_files_a_change_can_reach_are_previewed(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit(
        {
            "evals/snippets/a.py": "a = 1\n",
            "evals/snippets/b.py": "b = 1\n",
            "evals/uses_a.eval.yaml": v4_suite([v4_test("ua", "A", file="snippets/a.py")]),
            "evals/uses_b.eval.yaml": v4_suite([v4_test("ub", "B", file="snippets/b.py")]),
            # a's use through a cases file: the eval file names the cases file, which names a.py
            "evals/via_cases.eval.yaml": "tests: ./cases/more.yaml\n",
            "evals/cases/more.yaml": "- id: vc\n  criteria: ok\n  input:\n    - role: user\n      content:\n"
            "        - type: file\n          value: snippets/a.py\n",
            "other/far.eval.yaml": v4_suite([v4_test("far", "F")]),
        }
    )
    repo.write({"evals/snippets/a.py": "a = 2\n"})
    report = repo.diff()
    assert {t.id: t.status for t in report.tests} == {"ua": "changed", "vc": "changed"}
    assert sorted(report.not_previewed) == ["evals/uses_b.eval.yaml", "other/far.eval.yaml"]
    full = repo.diff(full=True)
    assert {t.id: t.status for t in full.tests} == {
        "ua": "changed",
        "vc": "changed",
        "ub": "unchanged",
        "far": "unchanged",
    }
    # a settings file above an eval file reaches all of it
    repo.write({"evals/.agentv/config.yaml": "execution:\n  verbose: true\n"})
    assert sorted(repo.diff().not_previewed) == ["other/far.eval.yaml"]


def test_the_eval_file_is_a_cause_only_for_the_entries_its_edit_touched(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test("a", "Hi", file="snippets/a.py"), v4_test("b", "Ho"), v4_test("c", "Hu")]
    repo.commit({"evals/snippets/a.py": "x = 1\n", "evals/x.eval.yaml": v4_suite(tests)})
    edited = [tests[0], v4_test("b", "Ho ho"), tests[2]]
    repo.write({"evals/snippets/a.py": "x = 2\n", "evals/x.eval.yaml": v4_suite(edited)})
    causes = {t.id: t.causes for t in repo.diff().tests if t.status == "changed"}
    assert causes == {"a": ["evals/snippets/a.py"], "b": ["evals/x.eval.yaml"]}
    # a suite-level edit reaches every test through the eval file
    repo.write({"evals/x.eval.yaml": v4_suite(edited, suite_input="Be brief.")})
    causes = {t.id: t.causes for t in repo.diff().tests if t.status == "changed"}
    assert all("evals/x.eval.yaml" in c for c in causes.values()) and set(causes) == {"a", "b", "c"}
