"""What AgentV 4.42.4 does silently (`formats.v4.losses`), proved against the runtime.

Each folder of tests/v4_loss_cases was recorded from the published @agentv/core@4.42.4 and
agentv@4.42.4 by ../shared/golden-v4/driver.mjs (question / chatPrompt / systemMessage,
reference answer, loaded input, console messages, `agentv validate`) and by
tests/v4_loss_cases/record_assertions.mjs (the grader configs each loaded test gets). Every
test below checks two things: the recording shows the loss (the content is absent from what
the runtime built, or present twice) while the runtime printed nothing; and our check reports
it, with the code, at the place of the content concerned.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.checks.model import Diagnostic, format_location
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions
from agentv_lsp.formats.v4.check import check_v4_cases_file, check_v4_document
from agentv_lsp.formats.v4.losses import eval_file_losses
from agentv_lsp.yamlpos import parse_yaml

CASES = Path(__file__).resolve().parents[1] / "v4_loss_cases"
ALL_CASES = sorted(p.name for p in CASES.iterdir() if (p / "expected" / "_case.json").is_file())


class Recorded:
    """One case folder: the eval file's text and what the runtime made of it."""

    def __init__(self, name: str) -> None:
        self.folder = CASES / name
        meta = json.loads((self.folder / "expected" / "_case.json").read_text())
        (self.rel,) = meta["eval_files"]
        stem = self.rel.replace("/", "__")
        self.run: dict[str, Any] = json.loads((self.folder / "expected" / f"{stem}.json").read_text())
        self.graders: dict[str, list[list[dict[str, Any]]]] = json.loads(
            (self.folder / "expected" / f"{stem}.assertions.json").read_text()
        )
        self.suite: dict[str, Any] = parse_yaml((self.folder / self.rel).read_text()).value

    def case(self, test_id: str) -> dict[str, Any]:
        return next(c for c in self.run["cases"] if c["id"] == test_id)

    def prompts(self, test_id: str) -> str:
        """Everything the target can receive, in both modes."""
        case = self.case(test_id)
        return json.dumps([case["lm"], case["agent"]])

    def validate_locations(self) -> set[str]:
        return {i["location"] for i in self.run["validation"]["issues"] if i["location"]}


def _losses(name: str, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Diagnostic]:
    """Our check of the staged folder: `format_location(path)` -> diagnostic, for each silent
    behaviour reported (own diagnostic, or a sentence folded into another one)."""
    root = tmp / "a" / "b" / "case"
    shutil.copytree(CASES / name, root, ignore=shutil.ignore_patterns("expected"))
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    rel = Recorded(name).rel
    path = root / rel
    report = check_v4_document(str(path), path.read_text(), CheckOptions(str(root), str(root), FileSystem()))
    found: dict[str, Diagnostic] = {}
    for d in report.diagnostics:
        if d.code.startswith("v4-loss-") or d.data.get("losses"):
            found[format_location(d.yaml_path)] = d
    return found


def _codes(d: Diagnostic) -> list[str]:
    return [d.code, *d.data.get("losses", [])]


def _assert_silent(rec: Recorded) -> None:
    assert rec.run["load_error"] is None
    assert rec.run["warnings"] == [], "the runtime printed something: not a silent behaviour"


@pytest.mark.parametrize("name", ALL_CASES)
def test_runtime_was_silent_and_each_loss_sits_where_validate_said_nothing(name, tmp_path, monkeypatch):
    rec = Recorded(name)
    _assert_silent(rec)
    for where, d in _losses(name, tmp_path, monkeypatch).items():
        if d.code.startswith("v4-loss-"):
            assert where not in rec.validate_locations(), (
                f"{where}: validate reported this place, fold instead"
            )
        assert d.severity in ("warning", "information")
        assert "AgentV" in d.message


def test_clean_file_gets_no_loss(tmp_path, monkeypatch):
    rec = Recorded("clean")
    assert rec.run["validation"]["exit_code"] == 0
    assert len(rec.run["cases"]) == len(rec.suite["tests"])
    assert _losses("clean", tmp_path, monkeypatch) == {}


def test_suite_assertions_are_appended_after_the_tests_own(tmp_path, monkeypatch):
    rec = Recorded("suite-assertions-appended")
    own = rec.suite["tests"][0]["assertions"]
    (graders,) = rec.graders["own-and-suite"]
    assert [g["value"] for g in graders] == [a["value"] for a in own + rec.suite["assertions"]]
    d = _losses("suite-assertions-appended", tmp_path, monkeypatch)["tests[0].assertions"]
    assert d.code == "v4-loss-suite-assertions" and d.severity == "information"
    assert "skip_defaults" in d.message


def test_an_assertion_written_twice_runs_twice(tmp_path, monkeypatch):
    rec = Recorded("duplicate-assertion")
    for test_id in ("twice", "twice-in-one-list"):
        (graders,) = rec.graders[test_id]
        assert len(graders) == 2 and graders[0] == graders[1]
    found = _losses("duplicate-assertion", tmp_path, monkeypatch)
    assert found["tests[0].assertions[0]"].code == "v4-loss-duplicate-assertion"
    assert found["tests[1].assertions[1]"].code == "v4-loss-duplicate-assertion"
    assert "tests[1].assertions[0]" not in found  # the first of the two is fine
    assert "tests[1].assertions" not in found  # skip_defaults: no suite assertions appended


def test_assert_beside_assertions_never_runs(tmp_path, monkeypatch):
    rec = Recorded("ignored-assert")
    (graders,) = rec.graders["both-lists"]
    assert "never-checked" not in json.dumps(graders)
    assert "tests[0].assert" in rec.validate_locations()  # it only says "deprecated"
    d = _losses("ignored-assert", tmp_path, monkeypatch)["tests[0].assert"]
    assert "v4-loss-ignored-assertions" in _codes(d)
    assert "deprecated" in d.message and "never run" in d.message  # folded into validate's finding


def test_skip_defaults_drops_the_suite_input_and_assertions(tmp_path, monkeypatch):
    rec = Recorded("skip-defaults")
    system = rec.suite["input"][0]["content"]
    assert system in rec.prompts("keeps-defaults")
    assert system not in rec.prompts("skips-defaults")
    assert rec.graders["skips-defaults"] == [[]]
    found = _losses("skip-defaults", tmp_path, monkeypatch)
    d = found["tests[1].execution.skip_defaults"]
    assert d.code == "v4-loss-skip-defaults" and d.severity == "information"
    assert "`input`" in d.message and "`assertions`" in d.message
    assert list(found) == ["tests[1].execution.skip_defaults"]


def test_a_tests_input_files_replace_the_suites(tmp_path, monkeypatch):
    rec = Recorded("input-files-override")
    guide = (rec.folder / "evals" / "style-guide.md").read_text().strip()
    assert guide in rec.prompts("suite-files")
    assert guide not in rec.prompts("own-files")
    found = _losses("input-files-override", tmp_path, monkeypatch)
    assert found["tests[1].input_files"].code == "v4-loss-input-files-override"
    assert list(found) == ["tests[1].input_files"]


def test_unknown_segment_type_is_kept_in_input_but_not_sent(tmp_path, monkeypatch):
    rec = Recorded("segment-type")
    assert "CONTEXT-THAT-IS-LOST" in json.dumps(rec.case("misspelt-type")["input"])
    assert "CONTEXT-THAT-IS-LOST" not in rec.prompts("misspelt-type")
    d = _losses("segment-type", tmp_path, monkeypatch)["tests[0].input[0].content[0].type"]
    assert d.code == "v4-loss-segment-type" and "type: text" in d.message
    assert (d.span.start_line, d.span.start_col) == (7, 18)  # the value `txt`


def test_image_segment_without_value_is_dropped(tmp_path, monkeypatch):
    rec = Recorded("segment-value")
    assert rec.run["validation"]["issues"] == []
    content = rec.case("path-instead-of-value")["input"][0]["content"]
    assert [s["type"] for s in content] == ["text"]
    d = _losses("segment-value", tmp_path, monkeypatch)["tests[0].input[0].content[0].value"]
    assert "v4-loss-segment-value" in _codes(d) and "'path'" in d.message


def test_unknown_message_keys_are_ignored(tmp_path, monkeypatch):
    rec = Recorded("message-key")
    assert "OF-FRANCE-LOST" not in rec.prompts("misspelt-content")
    assert "EXPECTED-KEY-LOST" not in json.dumps(rec.case("misspelt-content")["expected_output"])
    found = _losses("message-key", tmp_path, monkeypatch)
    typo = found["tests[0].input[0].contnet"]
    assert typo.code == "v4-loss-message-key" and "Did you mean 'content'?" in typo.message
    assert found["tests[0].expected_output[0].reasoning"].code == "v4-loss-message-key"


def test_tool_calls_in_input_are_not_sent(tmp_path, monkeypatch):
    rec = Recorded("input-tool-calls")
    case = rec.case("tool-call-history")
    assert "WEATHER-TOOL-LOST" not in rec.prompts("tool-call-history")
    assert len(case["input"]) == len(rec.suite["tests"][0]["input"]) - 1  # the message is gone
    d = _losses("input-tool-calls", tmp_path, monkeypatch)["tests[0].input[1].tool_calls"]
    assert d.code == "v4-loss-input-tool-calls" and "dropped" in d.message


def test_a_late_system_message_becomes_an_assistant_turn(tmp_path, monkeypatch):
    rec = Recorded("late-system")
    case = rec.case("late-system")
    assert case["lm"]["systemMessage"] is None
    assert case["lm"]["chatPrompt"][-1] == {
        "role": "assistant",
        "content": "@[System]:\nAnswer in one sentence.",
    }
    found = _losses("late-system", tmp_path, monkeypatch)
    assert found["tests[0].input[1].role"].code == "v4-loss-late-system"
    assert list(found) == ["tests[0].input[1].role"]


def test_input_images_never_reach_the_target(tmp_path, monkeypatch):
    rec = Recorded("input-image")
    assert rec.case("describe-image")["input"][0]["content"][0]["type"] == "image"
    prompts = rec.prompts("describe-image")
    assert "base64" not in prompts and "pixel.png" not in prompts
    d = _losses("input-image", tmp_path, monkeypatch)["tests[0].input[0].content[0]"]
    assert d.code == "v4-loss-input-image"


def test_only_the_last_expected_message_is_the_reference_answer(tmp_path, monkeypatch):
    rec = Recorded("expected-earlier")
    case = rec.case("two-expected")
    assert len(case["expected_output"]) == 2
    assert "FIRST-PART-LOST" not in case["reference_answer"]
    d = _losses("expected-earlier", tmp_path, monkeypatch)["tests[0].expected_output[0]"]
    assert d.code == "v4-loss-expected-earlier"
    assert (d.span.start_line, d.span.end_line) == (5, 6)  # the earlier message, whole


def test_an_expected_content_list_becomes_json(tmp_path, monkeypatch):
    rec = Recorded("expected-json")
    from_file = json.loads(rec.case("expected-file")["reference_answer"])
    assert from_file[0]["resolvedPath"].startswith("<ROOT>/")  # an absolute path of this machine
    assert json.loads(rec.case("expected-text-segments")["reference_answer"]) == [
        {"type": "text", "value": "Hello!"}
    ]
    found = _losses("expected-json", tmp_path, monkeypatch)
    assert "resolvedPath" in found["tests[0].expected_output[0].content"].message
    assert found["tests[1].expected_output[0].content"].code == "v4-loss-expected-json"


def test_unknown_template_variable_stays_as_written(tmp_path, monkeypatch):
    rec = Recorded("unresolved-var")
    question = rec.case("greeting")["lm"]["question"]
    assert "{{ order_id }}" in question and "Ada" in question
    found = _losses("unresolved-var", tmp_path, monkeypatch)
    assert (
        found["tests[0].input"].code == "v4-loss-unresolved-var"
        and "order_id" in found["tests[0].input"].message
    )
    assert "tests[0].criteria" not in found  # `name` is defined


def test_vars_are_not_substituted_in_assertions(tmp_path, monkeypatch):
    rec = Recorded("vars-in-assertions")
    assert "the Eiffel Tower" in rec.case("city")["lm"]["question"]
    (graders,) = rec.graders["city"]
    assert graders[0]["value"] == "{{ city }}"
    d = _losses("vars-in-assertions", tmp_path, monkeypatch)["tests[0].assertions[0].value"]
    assert d.code == "v4-loss-vars-in-assertions"


def test_unset_environment_variable_becomes_empty(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTV_LSP_SURELY_UNSET_TOKEN", raising=False)
    rec = Recorded("env-unset")
    assert rec.case("env-token")["lm"]["question"] == "Use token  to log in."
    d = _losses("env-unset", tmp_path, monkeypatch)["tests[0].input"]
    assert d.code == "v4-loss-env-unset" and "AGENTV_LSP_SURELY_UNSET_TOKEN" in d.message
    monkeypatch.setenv("AGENTV_LSP_SURELY_UNSET_TOKEN", "x")
    assert "tests[0].input" not in _losses("env-unset", tmp_path / "set", monkeypatch)


def test_a_file_named_twice_loads_its_tests_twice(tmp_path, monkeypatch):
    rec = Recorded("tests-loaded-twice")
    assert [c["id"] for c in rec.run["cases"]] == ["basic", "basic", "extra"]
    found = _losses("tests-loaded-twice", tmp_path, monkeypatch)
    assert (
        found["tests[1]"].code == "v4-loss-tests-loaded-twice" and "basic.yaml" in found["tests[1]"].message
    )
    assert "tests[0]" not in found


def test_files_directly_in_a_tests_folder_are_ignored(tmp_path, monkeypatch):
    rec = Recorded("tests-folder-file")
    assert [c["id"] for c in rec.run["cases"]] == ["first"]
    d = _losses("tests-folder-file", tmp_path, monkeypatch)["tests"]
    assert d.code == "v4-loss-tests-folder-file" and "loose.yaml" in d.message


def test_cases_file_is_judged_with_its_suite(tmp_path, monkeypatch):
    """The late-system behaviour (recorded above) in a cases file, after the suite's input."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "s.eval.yaml").write_text("input: Shared context.\ntests: ./cases.yaml\n")
    cases = root / "cases.yaml"
    cases.write_text("- id: t\n  criteria: c\n  input:\n    - role: system\n      content: Late.\n")
    monkeypatch.chdir(root)
    report = check_v4_cases_file(
        str(cases), cases.read_text(), CheckOptions(str(root), str(root), FileSystem())
    )
    late = [d for d in report.diagnostics if d.code == "v4-loss-late-system"]
    assert [format_location(d.yaml_path) for d in late] == ["[0].input[0].role"]


def test_garbage_never_crashes(tmp_path):
    for value in (
        None,
        3,
        "x",
        [],
        {"tests": 5},
        {"tests": [None, 1, {"input": {"role": 7}}]},
        {"tests": [{"input": [{"role": "user", "content": [None, {"type": 5}]}], "vars": {}}]},
        {"assertions": "x", "assert": [1], "tests": [{"execution": {"skip_defaults": True}}]},
    ):
        eval_file_losses(
            str(tmp_path / "x.eval.yaml"), value, lambda w, k: parse_yaml("a: 1").span_of(()), FileSystem()
        )


def test_self_containing_values_from_yaml_aliases_are_walked_once(tmp_path):
    loop: list[Any] = []
    loop.append(loop)
    first: dict[str, Any] = {"type": "contains"}
    first["value"] = first
    second: dict[str, Any] = {"type": "contains"}
    second["value"] = second
    suite = {
        "description": loop,
        "tests": [{"id": "t", "input": "${{ X }}", "vars": {"v": loop}, "assertions": [first, second]}],
    }
    found = eval_file_losses(
        str(tmp_path / "x.eval.yaml"),
        suite,
        lambda w, k: parse_yaml("a: 1").span_of(()),
        FileSystem(),
        env={},
    )
    assert [d.code for d in found] == ["v4-loss-env-unset"]
    doc = parse_yaml("tests: &x [*x]\n")
    eval_file_losses(
        str(tmp_path / "y.eval.yaml"), doc.value, lambda w, k: doc.span_of(w, key=k), FileSystem()
    )


def test_one_pass_over_the_tests(tmp_path):
    """Work grows with the tests, not with their square: the number of position lookups is
    counted (a timed assertion would be flaky on a loaded CI machine; bench_v4.py prints times)."""

    def run(count: int) -> int:
        test = (
            "  - id: t{i}\n    criteria: c {{{{ x }}}}\n    vars: {{x: 1}}\n    input:\n      - role: user\n"
            "        content:\n          - type: txt\n            value: v\n"
        )
        text = "assertions:\n  - type: contains\n    value: a\ntests:\n" + "".join(
            test.format(i=i) for i in range(count)
        )
        doc = parse_yaml(text)
        lookups = [0]

        def span(where, key):
            lookups[0] += 1
            return doc.span_of(where, key=key)

        found = eval_file_losses(str(tmp_path / "x.eval.yaml"), doc.value, span, FileSystem())
        assert len(found) == count
        return lookups[0]

    small, large = run(300), run(1200)
    assert large <= 4 * small + 10
