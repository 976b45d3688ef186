"""`agentv_lsp.migrate`: v2 eval files -> AgentV 4.42.4, checked on every v2 golden.

Facts checked here do not come from our own output: the v2 source's strings and comments,
the v2 engine's questions (themselves pinned to the v2 runtime's goldens), the 4.42.4
reading of the migrated text by our v4 engine, and idempotence. The live runtime is the
judge in test_migrate_oracle.py.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.migrate import migrate_text, migrated_name, run_migrate
from agentv_lsp.migrate.cli_glue import discover
from agentv_lsp.yamlpos import parse_yaml

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden" / "cases"
SHARED_GOLDEN = Path(os.environ.get("AGENTV_SHARED", HERE.parents[2] / "shared")) / "golden" / "cases"


def golden_dirs() -> list[Path]:
    found = sorted(p for p in GOLDEN.iterdir() if p.is_dir())
    if SHARED_GOLDEN.is_dir():
        mine = {p.name for p in found}
        found += sorted(p for p in SHARED_GOLDEN.iterdir() if p.is_dir() and p.name not in mine)
    return found


def v2_files(case: Path) -> list[Path]:
    return [
        p
        for p in sorted(case.rglob("*.y*ml"))
        if "expected" not in p.relative_to(case).parts and "agentv-eval-v2" in p.read_text("utf-8", "replace")
    ]


def strings_of(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_of(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_of(v)]
    return []


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


GOLDEN_FILES = [(case, f) for case in golden_dirs() for f in v2_files(case)]


@pytest.mark.parametrize(
    ("case", "path"), GOLDEN_FILES, ids=[f"{c.name}/{p.relative_to(c)}" for c, p in GOLDEN_FILES]
)
def test_golden_migrates_without_losing_anything(case: Path, path: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(case, repo, ignore=shutil.ignore_patterns("expected"))
    (repo / ".git").mkdir(exist_ok=True)
    eval_path = repo / path.relative_to(case)
    text = read(eval_path)
    m = migrate_text(str(eval_path), text, repo_root=str(repo), cwd=str(repo))
    if m.status == "untouched":  # a file v2 cannot load (or skips cases in) stays as it is
        assert m.new_text == text and m.new_path == str(eval_path) and m.needs_attention
        assert any("not migrated" in f.message for f in m.findings)
        return
    assert m.status == "migrated"
    source = parse_yaml(text)
    result = parse_yaml(m.new_text)
    assert result.ok, result.error
    assert isinstance(result.value, dict) and "tests" in result.value and "$schema" not in result.value
    assert "evalcases" not in result.value
    # nothing lost: every string of the v2 file is in the new file (as a value or in a
    # comment) or named in the report
    report = json.dumps(m.as_json(), ensure_ascii=False)
    kept = set(strings_of(result.value))
    for s in strings_of(source.value):
        if s == "agentv-eval-v2":
            continue
        assert s in kept or s in m.new_text or s in report, f"lost {s!r}"
    # comments survive
    for line in text.splitlines():
        if line.strip().startswith("#"):
            assert line.strip() in m.new_text
    # every case the v2 engine loaded is a 4.42.4 test (or the report says why not)
    for proof in m.cases:
        if proof.verdict == "missing":
            assert m.needs_attention
        elif proof.verdict == "changed":
            assert proof.causes and proof.diff
    # idempotent: the migrated text is not v2 any more, and migrating it changes nothing
    again = migrate_text(m.new_path, m.new_text, repo_root=str(repo), cwd=str(repo))
    assert again.status == "not-v2" and again.new_text == m.new_text and not again.changed
    assert m.new_path.endswith((".eval.yaml", ".eval.yml"))


def test_v2_questions_are_the_v2_goldens() -> None:
    """The proof's v2 side is the recorded v2 runtime's LM question."""
    case = GOLDEN / "spec-multiturn-files-guidelines"
    expected = json.loads(read(case / "expected" / "eval.yaml.json"))
    m = migrate_text(str(case / "eval.yaml"), read(case / "eval.yaml"), repo_root=str(case), cwd=str(case))
    want = {c["id"]: c["lm"]["question"] for c in expected["cases"]}
    assert {p.id: p.v2_question for p in m.cases} == want
    (proof,) = m.cases
    assert proof.verdict == "changed"
    assert proof.causes[0].startswith("guidelines moved")
    assert "Always validate input." in (proof.v4_question or "")  # the guideline is now inline


def test_mapping_on_a_commented_file(make_repo: Any) -> None:
    text = (
        "# Suite header comment\n"
        "$schema: agentv-eval-v2  # the v2 marker\n"
        "description: Demo   # kept\n"
        "\n"
        "evalcases:\n"
        "  # first case\n"
        "  - id: one\n"
        "    outcome: Says hello  # outcome comment\n"
        "    note: remember this\n"
        "    conversation_id: conv-1\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content: Hello there\n"
        "    expected_messages:\n"
        "      - role: assistant\n"
        "        content: Hi\n"
    )
    repo = make_repo({"evals/demo.yaml": text}).root
    path = repo / "evals" / "demo.yaml"
    m = migrate_text(str(path), text, repo_root=str(repo), cwd=str(repo))
    assert m.status == "migrated" and not m.needs_attention, m.findings
    assert m.new_path == str(repo / "evals" / "demo.eval.yaml")
    doc = parse_yaml(m.new_text).value
    (test,) = doc["tests"]
    assert test == {
        "id": "one",
        "criteria": "Says hello",
        "metadata": {"note": "remember this"},
        "conversation_id": "conv-1",
        "input": [{"role": "user", "content": "Hello there"}],
        "expected_output": [{"role": "assistant", "content": "Hi"}],
    }
    for comment in (
        "# Suite header comment",
        "# the v2 marker",
        "# kept",
        "# first case",
        "# outcome comment",
    ):
        assert comment in m.new_text
    assert "\n\ntests:" in m.new_text  # the blank line stays
    (proof,) = m.cases
    assert proof.verdict == "unchanged" and proof.v2_question == "Hello there"


def test_crlf_text_keeps_crlf(make_repo: Any) -> None:
    text = "$schema: agentv-eval-v2\r\nevalcases:\r\n  - id: a\r\n    outcome: o\r\n    input_messages:\r\n      - role: user\r\n        content: q\r\n"
    repo = make_repo({"e.yaml": text}).root
    m = migrate_text(str(repo / "e.yaml"), text, repo_root=str(repo), cwd=str(repo))
    assert m.status == "migrated"
    assert "\n" not in m.new_text.replace("\r\n", "")
    assert parse_yaml(m.new_text).value["tests"][0]["criteria"] == "o"


def test_grader_prompt_file_and_inheritance(make_repo: Any) -> None:
    text = (
        "$schema: agentv-eval-v2\n"
        "execution:\n"
        "  evaluators:\n"
        "    - name: suite_judge\n"
        "      type: llm_judge\n"
        "evalcases:\n"
        "  - id: own\n"
        "    outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content: q\n"
        "    evaluators:\n"
        "      - name: strict\n"
        "        type: llm_judge\n"
        "        prompt: judges/strict.md\n"
        "  - id: inherits\n"
        "    outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content: q\n"
    )
    judge = "Q: {{question}}\nA: {{candidate_answer}}\nWant: {{expected_outcome}} / {{reference_answer}}\n"
    repo = make_repo({"e.eval.yaml": text, "judges/strict.md": judge}).root
    m = migrate_text(str(repo / "e.eval.yaml"), text, repo_root=str(repo), cwd=str(repo))
    assert m.status == "migrated" and m.new_path == str(repo / "e.eval.yaml")
    doc = parse_yaml(m.new_text).value
    assert doc["execution"] == {"assertions": [{"name": "suite_judge", "type": "llm-grader"}]}
    own, inherits = doc["tests"]
    assert own["assertions"] == [
        {"name": "strict", "type": "llm-grader", "prompt": "file://judges/strict.md"}
    ]
    assert own["execution"] == {"skip_defaults": True}  # v2 did not inherit the suite's list here
    assert "execution" not in inherits and "assertions" not in inherits
    (companion,) = m.companions
    assert companion.new_text == "Q: {{input}}\nA: {{output}}\nWant: {{criteria}} / {{expected_output}}\n"
    assert m.v4_load_error is None and not any("skip" in w.lower() for w in m.v4_warnings)


def test_skipped_case_leaves_file_untouched(make_repo: Any) -> None:
    text = "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    input_messages: []\n"
    repo = make_repo({"e.yaml": text}).root
    m = migrate_text(str(repo / "e.yaml"), text, repo_root=str(repo), cwd=str(repo))
    assert m.status == "untouched" and m.needs_attention and m.new_text == text


def test_migrated_name() -> None:
    assert migrated_name("/a/b.yaml") == "/a/b.eval.yaml"
    assert migrated_name("/a/b.yml") == "/a/b.eval.yml"
    assert migrated_name("/a/b.eval.yaml") == "/a/b.eval.yaml"
    assert migrated_name("/a/B.EVAL.YML") == "/a/B.EVAL.YML"


def test_run_migrate_dry_run_then_write(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(GOLDEN / "spec-system-text-user", repo, ignore=shutil.ignore_patterns("expected"))
    (repo / ".git").mkdir()
    original = read(repo / "eval.yaml")
    out = io.StringIO()
    assert run_migrate(["."], False, "text", None, str(repo), out) == 0
    shown = out.getvalue()
    assert (
        "--- a/eval.yaml" in shown and "+++ b/eval.eval.yaml" in shown and "-$schema: agentv-eval-v2" in shown
    )
    assert read(repo / "eval.yaml") == original and not (repo / "eval.eval.yaml").exists()
    out = io.StringIO()
    assert run_migrate(["."], True, "json", None, str(repo), out) == 0
    payload = json.loads(out.getvalue())
    assert payload["written"] and payload["files"][0]["status"] == "migrated"
    assert not (repo / "eval.yaml").exists()
    migrated = read(repo / "eval.eval.yaml")
    assert [p.name for p in repo.iterdir() if p.name.startswith(".agentv-migrate")] == []
    # a second run finds nothing to do and changes nothing
    out = io.StringIO()
    assert run_migrate(["."], True, "text", None, str(repo), out) == 0
    assert read(repo / "eval.eval.yaml") == migrated
    assert "no agentv-eval-v2 file found" in out.getvalue()


def test_run_migrate_exit_codes(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_migrate([], False, "text", None, str(tmp_path), out) == 2
    assert run_migrate(["missing.yaml"], False, "text", None, str(tmp_path), out) == 2
    assert run_migrate(["."], False, "xml", None, str(tmp_path), out) == 2
    (tmp_path / "bad.yaml").write_text("$schema: agentv-eval-v2\nevalcases: [\n")
    out = io.StringIO()
    assert run_migrate(["bad.yaml"], True, "text", None, str(tmp_path), out) == 1
    assert "bad.yaml" in out.getvalue() and "not migrated" in out.getvalue()
    assert (tmp_path / "bad.yaml").read_text() == "$schema: agentv-eval-v2\nevalcases: [\n"
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe agentv-eval-v2")
    assert run_migrate(["bin.yaml"], False, "text", None, str(tmp_path), io.StringIO()) == 1


def test_discover_skips_non_v2_and_hidden_folders(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("$schema: agentv-eval-v2\nevalcases: []\n")
    (tmp_path / "b.eval.yaml").write_text("tests: []\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "c.yaml").write_text("$schema: agentv-eval-v2\nevalcases: []\n")
    assert [os.path.basename(p) for p in discover(["."], str(tmp_path))] == ["a.yaml"]


FLOW_SUITE = (
    "$schema: agentv-eval-v2\n"
    "execution:\n"
    "  evaluators: [{name: suite, type: llm_judge}]\n"
    "evalcases:\n"
    "  - {id: flow, outcome: o, input_messages: [{role: user, content: q}],"
    " evaluators: [{name: j, type: llm_judge, prompt: 'Rate {{candidate_answer}}'}]}\n"
    "  - id: parts\n"
    "    outcome: o\n"
    "    input_messages:\n"
    "      - role: user\n"
    "        content:\n"
    "          - type: text\n"
    "            value: Hello\n"
    "          - type: text\n"
    "            text: v2 never showed this\n"
)


def test_flow_case_and_valueless_text_part(make_repo: Any) -> None:
    repo = make_repo({"s.eval.yaml": FLOW_SUITE}).root
    m = migrate_text(str(repo / "s.eval.yaml"), FLOW_SUITE, repo_root=str(repo), cwd=str(repo))
    assert m.status == "migrated", m.findings
    flow, parts = parse_yaml(m.new_text).value["tests"]
    assert flow == {
        "execution": {"skip_defaults": True},
        "id": "flow",
        "criteria": "o",
        "input": [{"role": "user", "content": "q"}],
        "assertions": [{"name": "j", "type": "llm-grader", "prompt": "Rate {{output}}"}],
    }
    assert parts["input"] == [{"role": "user", "content": [{"type": "text", "value": "Hello"}]}]
    assert "# - type: text" in m.new_text and "v2 never showed this" in m.new_text
    assert [p.verdict for p in m.cases] == ["unchanged", "unchanged"]


def _tree_with_mentions(root: Path) -> tuple[Path, Path]:
    (root / ".git").mkdir(parents=True)
    (root / "evals").mkdir()
    (root / "evals" / "smoke.yaml").write_text(
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: o\n    input_messages:\n"
        "      - role: user\n        content: q\n"
    )
    ci = root / "ci.sh"
    ci.write_text("agentv eval evals/smoke.yaml ./evals/smoke.yaml\ncp evals/smoke.yaml.bak x\n")
    notes = root / "evals" / "NOTES.md"
    notes.write_text("Edit smoke.yaml, not other/evals/smoke.yaml.\n")
    return ci, notes


def test_references_to_a_renamed_file_are_updated(tmp_path: Path) -> None:
    ci, notes = _tree_with_mentions(tmp_path)
    out = io.StringIO()
    assert run_migrate(["evals", "ci.sh"], False, "text", None, str(tmp_path), out) == 0
    assert "+agentv eval evals/smoke.eval.yaml ./evals/smoke.eval.yaml" in out.getvalue()
    assert ci.read_text().startswith("agentv eval evals/smoke.yaml ")  # dry run: nothing written
    assert run_migrate(["evals", "ci.sh"], True, "text", None, str(tmp_path), io.StringIO()) == 0
    assert (
        ci.read_text()
        == "agentv eval evals/smoke.eval.yaml ./evals/smoke.eval.yaml\ncp evals/smoke.yaml.bak x\n"
    )
    assert notes.read_text() == "Edit smoke.eval.yaml, not other/evals/smoke.yaml.\n"
    assert (tmp_path / "evals" / "smoke.eval.yaml").exists() and not (
        tmp_path / "evals" / "smoke.yaml"
    ).exists()


def test_a_mention_outside_the_paths_given_is_reported_not_written(tmp_path: Path) -> None:
    ci, notes = _tree_with_mentions(tmp_path)
    before = ci.read_text()
    out = io.StringIO()
    assert run_migrate(["evals"], True, "text", None, str(tmp_path), out) == 1
    assert ci.read_text() == before
    assert "would change ci.sh, outside the paths given; not written" in out.getvalue()
    assert "ci.sh: not written" in out.getvalue()
    assert notes.read_text() == "Edit smoke.eval.yaml, not other/evals/smoke.yaml.\n"  # inside: written


def test_write_never_leaves_a_half_written_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    source = "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: o\n    input_messages: []\n"
    (tmp_path / "e.eval.yaml").write_text(source)

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    out = io.StringIO()
    assert run_migrate(["."], True, "text", None, str(tmp_path), out) == 1
    assert "could not write the migration: disk full" in out.getvalue()
    assert (tmp_path / "e.eval.yaml").read_text() == source
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", "e.eval.yaml"]


def test_flow_entries_v2_ignored_are_removed_and_named(make_repo: Any) -> None:
    text = (
        "$schema: agentv-eval-v2\n"
        "dataset: '  my-set '\n"
        "evalcases:\n"
        "  - {evaluator: code, id: a, outcome: o, input_messages: [{role: user, content: q}, {role: robot, content: x}],"
        " evaluators: [not-an-object, {name: j, type: llm_judge}]}\n"
    )
    repo = make_repo({"e.yaml": text}).root
    m = migrate_text(str(repo / "e.yaml"), text, repo_root=str(repo), cwd=str(repo))
    assert m.status == "migrated"
    doc = parse_yaml(m.new_text).value
    assert doc == {
        "name": "my-set",
        "tests": [
            {
                "id": "a",
                "criteria": "o",
                "input": [{"role": "user", "content": "q"}],
                "assertions": [{"name": "j", "type": "llm-grader"}],
            }
        ],
    }
    report = json.dumps(m.as_json())
    for removed in ("evaluator: code", "{role: robot, content: x}", "not-an-object", "  my-set "):
        assert removed in report
