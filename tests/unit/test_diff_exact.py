"""`agentv-lsp diff` says exactly what changed: causes that made a difference, every changed test
listed in the markdown, a path that matches nothing refused, renames across a limited path kept,
and the small wording of the text report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.unit.test_diff import GitRepo, run_cli, v4_suite, v4_test

from agentv_lsp.diff.render import MARKDOWN_LIMIT, render_markdown, render_text


def test_a_path_that_matches_nothing_in_either_revision_exits_2_naming_it(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    first = repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi")])})
    second = repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi!")])})

    status, out, err = run_cli(repo, first, second, "evalz")

    assert status == 2 and out == ""
    assert "'evalz' matches no file" in err
    status, _, _ = run_cli(repo, first, second, "evals")
    assert status == 1
    # a file that exists on one side only still matches
    third = repo.commit({"other/y.eval.yaml": v4_suite([v4_test("b", "Ho")])})
    assert run_cli(repo, first, third, "other")[0] == 1
    assert run_cli(repo, third, first, "other")[0] == 1


def test_a_limited_path_keeps_renames_into_and_out_of_it(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test(f"t{i}", f"Question number {i}, long enough to be similar") for i in range(8)]
    first = repo.commit(
        {"evals/old/m.eval.yaml": v4_suite(tests), "evals/sub/out.eval.yaml": v4_suite(tests[:6])}
    )
    (repo.root / "evals/gone").mkdir()
    repo.git("mv", "evals/old/m.eval.yaml", "evals/sub/m.eval.yaml")
    repo.git("mv", "evals/sub/out.eval.yaml", "evals/gone/out.eval.yaml")
    edited = [v4_test("t0", "Question number 0, long enough to be similar!"), *tests[1:]]
    repo.write({"evals/sub/m.eval.yaml": v4_suite(edited)})
    second = repo.commit()

    for head in (second, None):
        args = [first, second] if head else [first]
        if head is None:
            repo.git("checkout", "-q", second)
        status, out, _ = run_cli(repo, *args, "evals/sub", "--format", "json")
        data = json.loads(out)
        statuses = {(t["file"], t["id"]): t["status"] for t in data["tests"]}
        assert status == 1
        assert statuses[("evals/sub/m.eval.yaml", "t0")] == "changed"
        assert all(s != "added" for s in statuses.values()), statuses
        moved_in = next(f for f in data["files"] if f["file"] == "evals/sub/m.eval.yaml")
        assert moved_in["base_file"] == "evals/old/m.eval.yaml"
        moved_out = next(f for f in data["files"] if f["base_file"] == "evals/sub/out.eval.yaml")
        assert moved_out["file"] == "evals/gone/out.eval.yaml" and moved_out["status"] == "renamed"


def test_the_files_block_shows_token_counts_only_where_counted_and_plurals_agree(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit(
        {
            "evals/snip.txt": "one\n",
            "evals/a.eval.yaml": v4_suite([v4_test("a", "Hi", file="snip.txt")]),
            "evals/b.eval.yaml": "# names snip.txt in a comment\n" + v4_suite([v4_test("b", "Ho")]),
        }
    )
    repo.write({"evals/snip.txt": "two\n"})

    text = render_text(repo.diff())

    lines = text.splitlines()
    a_line = next(line for line in lines if line.startswith("  evals/a.eval.yaml:"))
    b_line = next(line for line in lines if line.startswith("  evals/b.eval.yaml:"))
    assert "candidate tokens" in a_line
    assert "1 unchanged" in b_line and "tokens" not in b_line
    assert "(of 2 tests in 2 eval files previewed" in text

    repo.commit()
    repo.write({"evals/a.eval.yaml": v4_suite([v4_test("a", "Hi!", file="snip.txt")])})
    one = render_text(repo.diff())
    assert "(of 1 test in 1 eval file previewed" in one


# ---- causes: only the files whose change made a difference ----


def test_a_config_that_only_moved_or_changed_a_comment_is_no_cause(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    config = "required_version: '>=4.0.0'\n"
    tests = [v4_test("a", "Hi"), v4_test("b", "Ho")]
    first = repo.commit({".agentv/config.yaml": config, "evals/x.eval.yaml": v4_suite(tests)})
    repo.git("mv", ".agentv", "evals/.agentv")  # the same config, one folder down
    second = repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi!"), tests[1]])})
    third = repo.commit(
        {
            "evals/.agentv/config.yaml": "# pinned\n" + config,
            "evals/x.eval.yaml": v4_suite([v4_test("a", "Hi!"), v4_test("b", "Ho!")]),
        }
    )

    for base, head, ids in ((first, second, ["a"]), (second, third, ["b"])):
        report = repo.diff(base, head)
        changed = {t.id: t.causes for t in report.tests if t.status == "changed"}
        assert changed == {i: ["evals/x.eval.yaml"] for i in ids}
        assert report.causes == [("evals/x.eval.yaml", 1)]
        assert "config.yaml" not in render_text(report)


def test_each_of_two_changed_inputs_that_matter_is_named_and_a_third_that_does_not_is_not(
    tmp_path: Path,
) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit(
        {
            ".agentv/config.yaml": "required_version: '>=4.0.0'\n",
            "evals/snip.txt": "one\n",
            "evals/x.eval.yaml": v4_suite([v4_test("a", "Hi", file="snip.txt"), v4_test("b", "Ho")]),
        }
    )
    head = repo.commit(
        {
            ".agentv/config.yaml": "# a comment\nrequired_version: '>=4.0.0'\n",
            "evals/snip.txt": "two\n",
            "evals/x.eval.yaml": v4_suite([v4_test("a", "Hi!", file="snip.txt"), v4_test("b", "Ho")]),
        }
    )

    report = repo.diff(base, head)

    causes = {t.id: t.causes for t in report.tests if t.status != "unchanged"}
    assert causes == {"a": ["evals/x.eval.yaml", "evals/snip.txt"]}


@pytest.mark.parametrize("against", ["commit", "working tree"])
def test_an_edit_of_a_comment_beside_a_changed_snippet_is_no_cause(tmp_path: Path, against: str) -> None:
    """The eval file's edit is in the entries' lines but changes no prompt (a preview tells)."""
    repo = GitRepo(tmp_path / "r")
    text = v4_suite([v4_test("a", "Hi", file="snip.txt"), v4_test("b", "Ho")])
    base = repo.commit({"evals/snip.txt": "one\n", "evals/x.eval.yaml": text})
    commented = text.replace("  - id: a\n", "  - id: a\n    # reviewed\n")
    repo.write({"evals/snip.txt": "two\n", "evals/x.eval.yaml": commented})
    head = repo.commit() if against == "commit" else None

    report = repo.diff(base, head)

    assert {t.id: t.causes for t in report.tests if t.status != "unchanged"} == {"a": ["evals/snip.txt"]}


def test_a_deleted_input_is_named_removed_and_an_added_one_added(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    suite = v4_suite([v4_test("a", "Hi", file="snip.txt"), v4_test("b", "Ho")])
    base = repo.commit({"evals/snip.txt": "one\n", "evals/x.eval.yaml": suite})
    (repo.root / "evals/snip.txt").unlink()
    head = repo.commit()

    report = repo.diff(base, head)

    gone = next(t for t in report.tests if t.id == "a")
    assert gone.status != "unchanged" and gone.causes == ["evals/snip.txt"]
    assert report.summary()["causes"] == [{"file": "evals/snip.txt", "change": "removed", "tests": 1}]
    text = render_text(report)
    assert "evals/snip.txt removed: 1 test's prompts changed" in text
    assert "because: evals/snip.txt (removed)" in text
    back = repo.diff(head, base)
    assert back.summary()["causes"][0]["change"] == "added"
    assert "evals/snip.txt added: 1 test's prompts changed" in render_text(back)


# ---- markdown: every changed test listed first, details capped ----


def _listing(text: str) -> str:
    """The list of changed tests: after the summary and causes, before the first details."""
    return text.split("<details>", 1)[0].split("**Changed tests", 1)[1]


@pytest.mark.parametrize("count", [12, 45])
def test_the_markdown_lists_every_changed_test_before_the_details(tmp_path: Path, count: int) -> None:
    """A few very large diffs must not push the other changed tests out of the report."""
    repo = GitRepo(tmp_path / "r")
    huge = "\n".join(f"line {n} of a very long question that goes on" for n in range(800))
    tests = [v4_test(f"big-{i}", huge) for i in range(4)]
    tests += [v4_test(f"small-{i}", f"Say {i}") for i in range(count - 4)]
    repo.commit({"evals/a.eval.yaml": v4_suite(tests[:20]), "evals/b.eval.yaml": v4_suite(tests[20:])})
    edited = [t.replace("line ", "LINE ").replace("Say ", "Tell ") for t in tests]
    repo.write({"evals/a.eval.yaml": v4_suite(edited[:20]), "evals/b.eval.yaml": v4_suite(edited[20:])})
    report = repo.diff()
    assert sum(t.status == "changed" for t in report.tests) == count

    text = render_markdown(report)

    assert len(text) <= MARKDOWN_LIMIT
    listing = _listing(text)
    listed = re.findall(r"<b>([\w-]+)</b>", listing)
    assert sorted(listed) == sorted(t.id for t in report.tests)
    for t in report.tests:
        row = next(line for line in listing.splitlines() if f"<b>{t.id}</b>" in line)
        assert "question (LM)" in row and "candidate " in row
    if count > 30:  # grouped per eval file: each file named once, with its counts
        assert listing.count("<code>evals/b.eval.yaml</code>") == 1
    else:
        assert listing.count("<code>evals/a.eval.yaml</code>") == count
    # the details: one test's diffs are capped, so more than the four largest fit
    assert text.count("<details>") > 4
    sections = text.split("<details>")[1:]
    assert max(len(section) for section in sections) < 12_000


def test_the_markdown_lists_every_test_even_when_rows_do_not_fit(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tests = [v4_test(f"test-number-{i:04d}", f"Say {i}") for i in range(700)]
    repo.commit({"evals/x.eval.yaml": v4_suite(tests)})
    repo.write({"evals/x.eval.yaml": v4_suite([t.replace("Say ", "Tell ") for t in tests])})

    text = render_markdown(repo.diff())

    assert len(text) <= MARKDOWN_LIMIT
    assert set(re.findall(r"<b>(test-number-\d+)</b>", _listing(text))) == {
        f"test-number-{i:04d}" for i in range(700)
    }


def test_a_pipe_in_a_path_or_id_stays_in_its_table_cell_and_control_characters_are_escaped(
    tmp_path: Path,
) -> None:
    repo = GitRepo(tmp_path / "r")
    name = "evals/a|b.eval.yaml"
    odd_id = "x|y\u001b[31m"
    repo.commit({name: v4_suite([f"  - id: {json.dumps(odd_id)}\n    criteria: ok\n    input: hi\n"])})
    repo.write({name: v4_suite([f"  - id: {json.dumps(odd_id)}\n    criteria: ok\n    input: ho\n"])})

    text = render_markdown(repo.diff())

    assert "\x1b" not in text and "\\x1b" in text
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    # GFM drops a row's excess cells: a split shows as a cell holding half the name
    cells = re.findall(r"<td>(.*?)</td>", html, re.S)
    assert "<code>evals/a|b.eval.yaml</code>" in cells
    assert "<b>x|y\\x1b[31m</b>" in cells


def test_the_tests_of_an_added_eval_file_are_caused_by_it_not_by_a_config_added_beside(
    tmp_path: Path,
) -> None:
    repo = GitRepo(tmp_path / "r")
    base = repo.commit({"evals/old.eval.yaml": v4_suite([v4_test("a", "Hi")])})
    head = repo.commit(
        {
            ".agentv/config.yaml": "required_version: '>=4.0.0'\n",
            "evals/new.eval.yaml": v4_suite([v4_test("b", "Ho"), v4_test("c", "Hey")]),
        }
    )

    report = repo.diff(base, head)

    assert {t.id: t.causes for t in report.tests if t.status == "added"} == {
        "b": ["evals/new.eval.yaml"],
        "c": ["evals/new.eval.yaml"],
    }
    assert report.causes == [("evals/new.eval.yaml", 2)]
    assert report.summary()["causes"][0]["change"] == "added"
