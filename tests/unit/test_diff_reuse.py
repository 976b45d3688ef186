"""The rule that lets `agentv-lsp diff` build a test in one revision or neither (between two
commits that add or remove no path): each scenario is diffed with the rule and without it
(`reuse=False` builds every previewed test in both revisions), the reports must be the same, and
the number of tests built shows whether the rule applied."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from test_diff import GitRepo, v4_suite, v4_test  # tests/unit is on sys.path (no package)

from agentv_lsp.diff import collect
from agentv_lsp.diff.render import render_json
from agentv_lsp.formats.v4 import preview as v4_preview

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the tests whose prompts were built, in call order."""
    calls: list[str] = []
    real = v4_preview.preview_test

    def counting(suite: Any, test: Any, fs: Any, messages: Any) -> dict[str, Any]:
        calls.append(str(test.id))
        return real(suite, test, fs, messages)

    monkeypatch.setattr(v4_preview, "preview_test", counting)
    return calls


def both_ways(repo: GitRepo, base: str, head: str, built: list[str], **kwargs: Any) -> tuple[Any, int, int]:
    """The JSON report with the rule, how many tests it built, and how many without the rule."""
    built.clear()
    fast = repo.diff(base, head, **kwargs)
    with_rule = len(built)
    built.clear()
    slow = repo.diff(base, head, reuse=False, **kwargs)
    without_rule = len(built)
    assert render_json(fast) == render_json(slow)
    return json.loads(render_json(fast)), with_rule, without_rule


def ten_tests(snippet_users: int = 2) -> list[str]:
    tests = [v4_test(f"uses-{i}", f"Review {i}", file="snippets/a.py") for i in range(snippet_users)]
    return tests + [v4_test(f"plain-{i}", f"Say {i}") for i in range(10 - snippet_users)]


def test_only_tests_whose_inputs_changed_are_built_and_the_report_is_the_same(
    tmp_path: Path, built: list[str]
) -> None:
    repo = GitRepo(tmp_path / "r")
    files = {"evals/snippets/a.py": "x = 1\n", "evals/x.eval.yaml": v4_suite(ten_tests())}
    base = repo.commit(files)
    edited = v4_suite(ten_tests()).replace('"Say 5"', '"Say five"')
    head = repo.commit({"evals/snippets/a.py": "x = 2\n", "evals/x.eval.yaml": edited})

    report, with_rule, without_rule = both_ways(repo, base, head, built)

    changed = sorted(t["id"] for t in report["tests"] if t["status"] == "changed")
    assert changed == ["plain-5", "uses-0", "uses-1"]
    assert without_rule == 20
    assert with_rule == 6  # the three changed tests, in each revision; the seven others nowhere
    full, with_rule, _ = both_ways(repo, base, head, built, full=True)
    assert with_rule == 13  # --full needs every prompt (its tokens): the seven once, in head
    assert all(t["tokens"]["before"] is not None for t in full["tests"])


def test_an_inlined_file_changed_under_an_unchanged_entry_is_still_built(
    tmp_path: Path, built: list[str]
) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit({"evals/snippets/a.py": "x = 1\n", "evals/x.eval.yaml": v4_suite(ten_tests(1))})
    head = repo.commit({"evals/snippets/a.py": "x = 2\n"})  # the eval file is the same bytes

    report, with_rule, _ = both_ways(repo, base, head, built)

    assert [t["id"] for t in report["tests"] if t["status"] == "changed"] == ["uses-0"]
    assert with_rule == 2


def test_suite_level_input_changed_builds_every_test(tmp_path: Path, built: list[str]) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit(
        {"evals/snippets/a.py": "x\n", "evals/x.eval.yaml": v4_suite(ten_tests(), "Be brief.")}
    )
    head = repo.commit({"evals/x.eval.yaml": v4_suite(ten_tests(), "Be thorough.")})

    report, with_rule, without_rule = both_ways(repo, base, head, built)

    assert report["summary"]["tests"]["changed"] == 10
    assert with_rule == without_rule == 20


def test_a_changed_config_builds_every_test(tmp_path: Path, built: list[str]) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit(
        {
            ".agentv/config.yaml": "required_version: '>=4.0.0'\n",
            "evals/snippets/a.py": "x\n",
            "evals/x.eval.yaml": v4_suite(ten_tests()),
        }
    )
    head = repo.commit({".agentv/config.yaml": "required_version: '>=4.1.0'\n"})

    _report, with_rule, without_rule = both_ways(repo, base, head, built, full=True)

    assert with_rule == without_rule == 20


def test_a_changed_grader_prompt_file_builds_the_tests_that_name_it(tmp_path: Path, built: list[str]) -> None:
    repo = GitRepo(tmp_path / "r")
    suite = v4_suite(ten_tests(), grader="judge.md")
    base = repo.commit(
        {
            "evals/snippets/a.py": "x\n",
            "evals/judge.md": "Grade it.\n{{ criteria }}\n{{ output }}\n",
            "evals/x.eval.yaml": suite,
        }
    )
    head = repo.commit({"evals/judge.md": "Grade it strictly.\n{{ criteria }}\n{{ output }}\n"})

    report, with_rule, without_rule = both_ways(repo, base, head, built)

    assert report["summary"]["tests"]["changed"] == 10
    assert all(f["field"] == "grader_prompt" for t in report["tests"] for f in t["fields"])
    assert with_rule == without_rule == 20


def test_an_entry_whose_id_is_not_its_first_key_builds_every_test(tmp_path: Path, built: list[str]) -> None:
    # `- criteria: ...` then `id:`: an edited line cannot be told to belong to this entry
    odd = '  - criteria: "answers well"\n    id: odd\n    input: "Old question"\n'
    repo = GitRepo(tmp_path / "r")
    base = repo.commit({"evals/snippets/a.py": "x\n", "evals/x.eval.yaml": v4_suite([*ten_tests(), odd])})
    head = repo.commit({"evals/x.eval.yaml": v4_suite([*ten_tests(), odd.replace("Old", "New")])})

    report, with_rule, without_rule = both_ways(repo, base, head, built)

    assert [t["id"] for t in report["tests"] if t["status"] == "changed"] == ["odd"]
    assert with_rule == without_rule == 22


def test_an_added_file_turns_the_rule_off(tmp_path: Path, built: list[str]) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit({"evals/snippets/a.py": "x\n", "evals/x.eval.yaml": v4_suite(ten_tests())})
    head = repo.commit({"evals/snippets/a.py": "y\n", "evals/notes.md": "new\n"})

    _report, with_rule, without_rule = both_ways(repo, base, head, built)

    assert with_rule == without_rule == 20


def _golden_v4_eval_files() -> list[Path]:
    shared = Path(os.environ.get("AGENTV_SHARED", REPO.parent / "shared"))
    found: list[Path] = []
    for folder in (REPO / "tests" / "golden_v4" / "cases", shared / "golden-v4" / "cases"):
        if folder.is_dir():
            found += sorted(folder.glob("*/**/*.eval.yaml"))
    return found


def test_building_a_4x_prompt_reads_only_the_grader_prompt_files_its_test_names() -> None:
    """What the rule assumes of `formats.v4`: once a suite is loaded, building a test's prompts
    reads no file but the `promptPath`s of its graders (checked on every recorded golden case)."""
    from agentv_lsp.formats.v4.loader import load_suite

    files = _golden_v4_eval_files()
    if not files:
        pytest.skip("no golden 4.x cases here")
    tests_seen = reads_seen = 0
    for path in files:
        root = next(str(p) for p in path.parents if (p / "expected").is_dir() or p == Path("/"))
        fs = collect.RecordingFileSystem(allowed_roots=(root,))
        suite = load_suite(str(path), root, root, fs)
        for test in suite.tests:
            fs.lately = set()
            v4_preview.preview_test(suite, test, fs, [])
            named = set(collect._prompt_paths(test.assertions))
            assert fs.lately <= named, (path, test.id, fs.lately - named)
            tests_seen += 1
            reads_seen += len(fs.lately)

    assert tests_seen > 50
    assert reads_seen > 0  # some golden test does read a grader prompt file


def test_v2_files_are_taken_whole_only_when_nothing_they_read_changed(
    tmp_path: Path, built: list[str]
) -> None:
    from test_diff import V2_FILE

    repo = GitRepo(tmp_path / "r")
    base = repo.commit(
        {
            "evals/snippets/a.py": "x = 1\n",
            "evals/suite.yaml": V2_FILE,
            "other/suite.yaml": V2_FILE.replace("snippets/a.py", "snippets/b.py"),
            "other/snippets/b.py": "y = 1\n",
        }
    )
    head = repo.commit({"evals/snippets/a.py": "x = 2\n"})

    report, _, _ = both_ways(repo, base, head, built, full=True)

    statuses = {(t["file"], t["id"]): t["status"] for t in report["tests"]}
    assert statuses == {
        ("evals/suite.yaml", "review"): "changed",
        ("evals/suite.yaml", "greet"): "unchanged",
        ("other/suite.yaml", "review"): "unchanged",
        ("other/suite.yaml", "greet"): "unchanged",
    }


def test_the_json_report_is_json_dumps_of_the_report_object(tmp_path: Path) -> None:
    """`render_json` joins texts written in the preview processes: byte for byte what
    `json.dumps(report.as_json(), ensure_ascii=False, indent=2)` prints, whether the tests'
    texts were written already (commits: compared in the jobs) or not (an empty report)."""
    repo = GitRepo(tmp_path / "r")
    odd = 'Line\n\ttab "quoted" \\ back \u00e9 \u202e \U0001f600'
    base = repo.commit({"evals/snippets/a.py": "x\n", "evals/x.eval.yaml": v4_suite(ten_tests())})
    head = repo.commit(
        {
            "evals/snippets/a.py": odd,
            "evals/x.eval.yaml": v4_suite([*ten_tests(), v4_test("new", odd)]).replace('"Say 3"', '"Say 4"'),
        }
    )
    for report in (repo.diff(base, head), repo.diff(base, head, full=True), repo.diff(head, head)):
        expected = json.dumps(report.as_json(), ensure_ascii=False, indent=2) + "\n"
        assert render_json(report) == expected
    assert any(t.json_text for t in repo.diff(base, head).tests)
    empty = repo.diff(base, head, paths=["evals/snippets"])  # files, none an eval file
    assert render_json(empty) == json.dumps(empty.as_json(), ensure_ascii=False, indent=2) + "\n"


def test_the_json_of_skipped_and_renamed_tests_is_json_dumps_too(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    suite = v4_suite([v4_test("a", "Hi"), v4_test("b", "Ho"), "  - id: skipped-\u00e9\n    input: x\n"])
    base = repo.commit({"evals/x.eval.yaml": suite, "evals/y.eval.yaml": suite})
    repo.git("mv", "evals/y.eval.yaml", "evals/z.eval.yaml")
    head = repo.commit({"evals/x.eval.yaml": suite.replace('"Ho"', '"Ho ho"')})
    report = repo.diff(base, head, full=True)
    statuses = {(t.file, t.base_file, t.status) for t in report.tests}
    assert ("evals/z.eval.yaml", "evals/y.eval.yaml", "unchanged") in statuses
    assert any(t.note and t.status == "unchanged" for t in report.tests)  # skipped on both sides
    for shown in (report, repo.diff(base, head)):
        assert render_json(shown) == json.dumps(shown.as_json(), ensure_ascii=False, indent=2) + "\n"
