"""The JavaScript semantics of 4.x templates and `vars`, against what AgentV 4.42.4 recorded
(tests/oracle_v4/cases/js-*): names every JavaScript object has (`{{ toString }}`,
`{{ constructor }}`, `{{ __proto__ }}`), a whole value that is one (the field becomes a
function), and `__proto__` keys (the runtime's copy sets the prototype or drops the key).
Each behaviour: the runtime's record says it, our preview agrees, our check reports it where
it is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.oracle_v4.oracle import our_preview

from agentv_lsp.checks.model import Diagnostic, format_location
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions
from agentv_lsp.formats.v4.check import check_v4_document
from agentv_lsp.formats.v4.runtime import (
    MISSING,
    interpolate_env,
    interpolate_template_vars,
    is_object,
    js_get,
)

CASES = Path(__file__).resolve().parents[1] / "oracle_v4" / "cases"


def _staged(tmp: Path, case: str) -> Path:
    root = tmp / "a" / "b" / "case"
    shutil.copytree(CASES / case, root, ignore=shutil.ignore_patterns("expected"))
    (root / ".git").mkdir()
    return root


def _runtime(case: str, eval_file: str) -> dict[str, Any]:
    name = eval_file.replace("/", "__") + ".json"
    return json.loads((CASES / case / "expected" / name).read_text(encoding="utf-8"))


def _by_id(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in record["cases"]}


def _findings(root: Path, eval_file: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Diagnostic]]:
    monkeypatch.chdir(root)
    fs = FileSystem()
    path = str(root / eval_file)
    report = check_v4_document(
        path, fs.read_document(path), CheckOptions(str(root), str(root), fs, runtime="4")
    )
    found: dict[str, list[Diagnostic]] = {}
    for d in report.diagnostics:
        found.setdefault(format_location(d.yaml_path), []).append(d)
    return found


def _loss(found: dict[str, list[Diagnostic]], where: str, code: str) -> Diagnostic:
    """The finding with `code` at `where` (its own diagnostic or folded into one there)."""
    for d in found.get(where, []):
        if d.code == code or code in d.data.get("losses", []):
            return d
    raise AssertionError(f"no {code} at {where}: {[(d.code, d.message) for d in found.get(where, [])]}")


def test_prototype_names_render_undefined_and_paths_through_other_values_stay(tmp_path, monkeypatch):
    runtime = _by_id(_runtime("js-prototype-names", "evals/partial.eval.yaml"))
    criteria = runtime["partial"]["criteria"]
    # the runtime: functions print `undefined`, `__proto__` prints `{}`, a path into a string
    # or a missing variable or through a function stays as written
    assert criteria.startswith("c undefined undefined {} undefined {{ s.constructor }} {{ q.constructor }}")
    assert runtime["novars"]["criteria"] == "c {{ toString }}"  # no `vars`: no substitution at all
    ours = _by_id(our_preview(_staged(tmp_path, "js-prototype-names"), "evals/partial.eval.yaml"))
    assert ours["partial"]["criteria"] == criteria
    assert ours["partial"]["lm"]["question"] == runtime["partial"]["lm"]["question"]
    assert ours["novars"]["criteria"] == runtime["novars"]["criteria"]
    found = _findings(
        _staged(tmp_path / "check", "js-prototype-names"), "evals/partial.eval.yaml", monkeypatch
    )
    d = _loss(found, "tests[1].criteria", "v4-loss-prototype-name")
    assert d.severity == "warning" and "`undefined`" in d.message and "toString" in d.message
    assert (d.span.start_line, d.span.start_col) == (7, 14)
    assert "tests[0].criteria" not in found  # without `vars` the runtime leaves it alone


def test_a_whole_value_naming_a_prototype_member_becomes_a_function_and_is_dropped(tmp_path, monkeypatch):
    record = _runtime("js-prototype-names", "evals/partial.eval.yaml")
    runtime = _by_id(record)
    assert runtime["whole-expected"]["expected_output"] == []  # dropped
    assert runtime["whole-criteria-with-expected"]["criteria"] == ""
    skipped = [w for w in record["warnings"] if "Skipping incomplete test" in w]
    assert any("whole-criteria." in w for w in skipped) and any("whole-input." in w for w in skipped)
    ours = our_preview(_staged(tmp_path, "js-prototype-names"), "evals/partial.eval.yaml")
    assert [c["id"] for c in ours["cases"]] == [c["id"] for c in record["cases"]]
    assert [s["id"] for s in ours["skipped"]] == ["whole-criteria", "whole-input", "whole-input-msg"]
    found = _findings(
        _staged(tmp_path / "check", "js-prototype-names"), "evals/partial.eval.yaml", monkeypatch
    )
    d = _loss(found, "tests[2].expected_output", "v4-loss-prototype-name")
    assert "function" in d.message and "skipped" in d.message
    assert d.data["whole"] is True


def test_functions_fail_the_json_checks_where_numbers_pass(tmp_path):
    """`isJsonObject` is false for an object holding a function: a text segment with one
    makes the whole message invalid, an expected message becomes structured content."""
    runtime = _by_id(_runtime("js-prototype-names", "evals/whole-values.eval.yaml"))
    assert "content-part-fn" not in runtime
    assert runtime["expected-msg-fn"]["expected_output"] == [{"role": "assistant", "content": []}]
    assert runtime["expected-obj-fn2"]["expected_output"] == []
    assert [m["content"] for m in runtime["content-fn2"]["input"]] == ["sys", "ok"]
    ours = _by_id(our_preview(_staged(tmp_path, "js-prototype-names"), "evals/whole-values.eval.yaml"))
    assert set(ours) == set(runtime)
    for test_id in (
        "expected-msg-fn",
        "expected-obj-fn2",
        "expected-list-fn",
        "content-fn2",
        "input-files-fn",
    ):
        assert ours[test_id]["expected_output"] == runtime[test_id]["expected_output"], test_id
        assert ours[test_id]["reference_answer"] == runtime[test_id]["reference_answer"], test_id
        assert ours[test_id]["lm"]["question"] == runtime[test_id]["lm"]["question"], test_id

    rendered = interpolate_template_vars({"a": "{{ valueOf }}", "b": 2}, {"x": 1})
    assert isinstance(rendered, dict) and not is_object(rendered)
    assert is_object(interpolate_template_vars({"a": "{{ x }}", "b": 2}, {"x": 1}))


def test_proto_keys_set_the_prototype_or_vanish(tmp_path, monkeypatch):
    record = _runtime("js-proto-key", "evals/proto-keys.eval.yaml")
    runtime = _by_id(record)
    assert runtime["test-proto"]["criteria"] == "inherited"  # read through the prototype
    assert runtime["whole-proto-null-obj"]["criteria"] == "c 1 {{ toString }} {{ __proto__ }}"
    assert runtime["escaped"]["criteria"] == "c 5"  # `"\x5f_proto__"` is the same key
    ours = _by_id(our_preview(_staged(tmp_path, "js-proto-key"), "evals/proto-keys.eval.yaml"))
    for test_id, case in runtime.items():
        assert ours[test_id]["criteria"] == case["criteria"], test_id
        assert ours[test_id]["lm"]["question"] == case["lm"]["question"], test_id
    jsonl = _by_id(_runtime("js-proto-key", "evals/jsonl.eval.yaml"))
    ours_jsonl = _by_id(our_preview(_staged(tmp_path / "j", "js-proto-key"), "evals/jsonl.eval.yaml"))
    assert {k: v["criteria"] for k, v in ours_jsonl.items()} == {k: v["criteria"] for k, v in jsonl.items()}

    found = _findings(_staged(tmp_path / "check", "js-proto-key"), "evals/proto-keys.eval.yaml", monkeypatch)
    d = _loss(found, "tests[6].vars.__proto__", "v4-loss-proto-key")
    assert d.severity == "warning" and "prototype" in d.message
    assert (d.span.start_line, d.span.start_col) == (32, 11)  # the key
    assert "reads the fields" in _loss(found, "tests[3].__proto__", "v4-loss-proto-key").message
    assert _loss(found, "tests[2].criteria", "v4-loss-prototype-name").data["name"] == "e"


def test_proto_key_in_vars_with_a_scalar_or_null(tmp_path, monkeypatch):
    runtime = _by_id(_runtime("js-prototype-names", "evals/partial.eval.yaml"))
    assert runtime["proto-hello"]["criteria"] == "c {} 2 undefined"
    assert runtime["proto-null"]["criteria"] == "c {{ __proto__ }} 2 {{ toString }}"
    found = _findings(_staged(tmp_path, "js-prototype-names"), "evals/partial.eval.yaml", monkeypatch)
    assert "`{}`" in _loss(found, "tests[7].vars.__proto__", "v4-loss-proto-key").message
    assert "stay as written" in _loss(found, "tests[8].vars.__proto__", "v4-loss-proto-key").message


def test_interpolate_env_applies_proto_keys_like_the_runtimes_copy():
    copied = interpolate_env({"vars": {"__proto__": {"z": 3}, "b": "${{ B }}"}}, {"B": "2"})
    variables = copied["vars"]
    assert list(variables) == ["b"] and variables["b"] == 2  # own keys: the accessor is gone
    assert js_get(variables, "z") == 3 and variables.get("z") == 3
    assert interpolate_env({"__proto__": "x", "a": 1}, {}) == {"a": 1}
    nothing_inherited = interpolate_env({"__proto__": None, "a": 1}, {})
    assert js_get(nothing_inherited, "toString") is MISSING
    assert js_get({}, "toString") is not MISSING


def test_prototype_names_in_an_inline_grader_template(tmp_path, monkeypatch):
    """The grader fills `{{ name }}` with `variables[name] ?? match`: a member every object has
    prints its source (recorded in judge-inline-prompts), and the check says so at the prompt."""
    runtime = _by_id(_runtime("judge-inline-prompts", "evals/inline.eval.yaml"))
    question = runtime["full-template"]["judge_prompt"]["question"]
    assert "K=function Object() { [native code] } P=[object Object] T=function toString()" in question
    assert "U={{ unknown_var }}" in question  # an unknown name stays
    found = _findings(_staged(tmp_path, "judge-inline-prompts"), "evals/inline.eval.yaml", monkeypatch)
    d = _loss(found, "tests[1].assertions[0].prompt", "v4-loss-prototype-name")
    assert "function Object() { [native code] }" in d.message and d.data["grader"] is True


def test_rubric_operators_are_read_from_a_plain_object(tmp_path):
    """Unknown operators print nothing in the score-range prompt (`Array.join`) but `undefined`
    in the checklist (a template literal); `toString` / `__proto__` print the member."""
    runtime = _by_id(_runtime("js-rubric-operator", "evals/operators.eval.yaml"))
    ranges = runtime["turn-score-ranges"]["judge_prompt"]["question"]
    assert ranges.endswith(
        "\n\n\nfunction toString() { [native code] }\n[object Object]\n\n"
        "For each criterion, provide an integer score 0-10 that matches one of its defined score ranges."
    )
    checklist = runtime["turn-checklist"]["judge_prompt"]["question"]
    assert "Operator guidance:\n- undefined\n- function valueOf() { [native code] }\n" in checklist
    ours = _by_id(our_preview(_staged(tmp_path, "js-rubric-operator"), "evals/operators.eval.yaml"))
    for test_id in ("turn-score-ranges", "turn-checklist"):
        assert ours[test_id]["judge_prompt"] == runtime[test_id]["judge_prompt"], test_id


def test_turns_are_rendered_and_checked_like_the_tests_fields(tmp_path, monkeypatch):
    runtime = _by_id(_runtime("js-prototype-names", "evals/whole-values.eval.yaml"))
    question = runtime["turns-fn"]["judge_prompt"]["question"]
    assert "user: undefined" in question  # the turn's input became a function
    ours = _by_id(our_preview(_staged(tmp_path, "js-prototype-names"), "evals/whole-values.eval.yaml"))
    assert ours["turns-fn"]["judge_prompt"] == runtime["turns-fn"]["judge_prompt"]
    found = _findings(
        _staged(tmp_path / "check", "js-prototype-names"), "evals/whole-values.eval.yaml", monkeypatch
    )
    whole = _loss(found, "tests[12].turns[0].input", "v4-loss-prototype-name")
    assert whole.data["whole"] is True and "function" in whole.message
    partial = _loss(found, "tests[12].turns[0].expected_output", "v4-loss-prototype-name")
    assert partial.data["whole"] is False and "`undefined`" in partial.message


def test_placeholder_findings_use_javascripts_whitespace(tmp_path, monkeypatch):
    """`\\s` in the runtime's pattern is JavaScript's: U+FEFF is whitespace, U+0085 is not."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "evals").mkdir()
    text = (
        "description: d\ntests:\n  - id: t\n    vars: {a: 1}\n"
        '    criteria: "{{\\ufeffmissing_one\\ufeff}}"\n    input: "{{\\x85missing_two}}"\n'
    )
    (tmp_path / "evals" / "w.eval.yaml").write_text(text, encoding="utf-8")
    found = _findings(tmp_path, "evals/w.eval.yaml", monkeypatch)
    assert _loss(found, "tests[0].criteria", "v4-loss-unresolved-var").data["name"] == "missing_one"
    assert not [d for d in found.get("tests[0].input", []) if "unresolved-var" in d.code]
    assert interpolate_template_vars("{{\ufeffa\ufeff}} {{\x85a}}", {"a": 1}) == "1 {{\x85a}}"


def test_environment_references_find_what_process_env_inherits(tmp_path, monkeypatch):
    """`${{ NAME }}` reads `process.env[NAME] ?? ''`: `toString` prints a function, a whole value
    that is one makes the file fail `isJsonObject` ("Invalid test file format")."""
    partial = _by_id(_runtime("js-env-names", "evals/partial.eval.yaml"))["partial"]
    assert partial["criteria"].startswith("c function toString() { [native code] } |")
    assert "| [object Object] | function () { [native code] } |" in partial["criteria"]
    whole = _runtime("js-env-names", "evals/whole-function.eval.yaml")
    assert whole["load_error"].startswith("Invalid test file format")
    root = _staged(tmp_path, "js-env-names")
    assert _by_id(our_preview(root, "evals/partial.eval.yaml"))["partial"]["criteria"] == partial["criteria"]
    ours = our_preview(root, "evals/whole-function.eval.yaml")
    assert ours["load_error"] is not None and ours["load_error"].startswith("Invalid test file format")
    found = _findings(_staged(tmp_path / "check", "js-env-names"), "evals/partial.eval.yaml", monkeypatch)
    d = _loss(found, "tests[0].criteria", "v4-loss-prototype-name")
    assert "function toString() { [native code] }" in d.message and d.data["env"] is True


def test_a_bom_before_indentation_reads_at_column_0_with_positions_kept() -> None:
    """eemeli/yaml counts no indentation after a BOM opening the first content line: the
    mapping opened there sits at column 0. Positions stay where the text has them."""
    from agentv_lsp.formats.v4.yamlbom import parse_yaml_v4

    doc = parse_yaml_v4("# c\n\ufeff  a: 1\nb: [x]\n")
    assert doc.error is None and doc.value == {"a": 1, "b": ["x"]}
    assert (doc.span_of(("a",), key=True).start_line, doc.span_of(("a",), key=True).start_col) == (1, 2)
    assert (doc.span_of(("a",)).start_col, doc.span_of(("b",)).start_col) == (5, 3)
    refused = parse_yaml_v4("\ufeff  a: 1\n  b: 2\n")  # AgentV: "All mapping items must start at the same column"
    assert refused.error is not None and refused.error.span.start_line == 1
