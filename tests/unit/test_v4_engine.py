"""The AgentV 4.42.4 engine (formats/v4: loader, prompt, JSON.parse, merge keys) on facts
recorded from the real runtime or Node, and on inputs no runtime would give us (robustness).

The byte-for-byte preview comparison lives in tests/golden_v4 (folders recorded from
@agentv/core@4.42.4); here: the loader's data for the checks (message codes, YAML paths,
skipped tests), V8's JSON.parse messages, Node's path.extname, and bad input of every kind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.jsonparse import JsonParseError, parse_json
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.model import SuiteLoad
from agentv_lsp.formats.v4.preview import preview_suite, preview_v4
from agentv_lsp.formats.v4.prompt import build_prompt_inputs
from agentv_lsp.formats.v4.runtime import interpolate_env, node_extname
from agentv_lsp.yamlpos import parse_yaml

GOLDEN = Path(__file__).parent.parent / "golden_v4"


def _load(
    tmp_path: Path, text: str, name: str = "evals/t.eval.yaml", files: dict[str, str] | None = None
) -> SuiteLoad:
    (tmp_path / ".git").mkdir(exist_ok=True)
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    for rel, content in (files or {}).items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return load_suite(name, str(tmp_path), str(tmp_path), FileSystem(), env={})


# -- recorded from Node -------------------------------------------------------------------------


def test_json_parse_errors_match_v8() -> None:
    """Every message recorded from Node 20's JSON.parse (gen_v8_json_parse_errors.js)."""
    cases = json.loads((GOLDEN / "v8_json_parse_errors.json").read_text())
    assert len(cases) > 50
    for source, message in cases:
        if message is None:
            parse_json(source)
            continue
        with pytest.raises(JsonParseError) as caught:
            parse_json(source)
        assert str(caught.value) == message, source


def test_json_numbers_as_javascript_reads_them() -> None:
    value = parse_json('{"big": 12345678901234567890, "e": 1e3, "f": 1.5, "z": -0}')
    assert value == {"big": 12345678901234567000, "e": 1000, "f": 1.5, "z": 0}
    assert isinstance(value["e"], int)


# Node 20: path.extname(s) for each s.
NODE_EXTNAME = [
    ["a.yaml", ".yaml"], ["a.YAML", ".YAML"], [".yaml", ""], ["..", ""], ["...", "."], ["..x", ".x"],
    ["a.", "."], ["a.b.c", ".c"], [".a.b", ".b"], ["dir.d/file", ""], ["dir.d/", ".d"],
    ["/x/y.jsonl", ".jsonl"], ["a..", "."], [".", ""], ["", ""], ["x/.hidden", ""], ["x/..y", ".y"],
]  # fmt: skip


@pytest.mark.parametrize(("path", "ext"), NODE_EXTNAME)
def test_extname_matches_node(path: str, ext: str) -> None:
    assert node_extname(path) == ext


# -- the loader's data for diagnostics ------------------------------------------------------------


def test_messages_locate_their_cause(tmp_path: Path) -> None:
    suite = _load(
        tmp_path,
        "tests:\n"
        "  - id: a\n    criteria: c\n    input:\n      - role: user\n        content:\n"
        "          - type: file\n            value: nope.md\n"
        "  - id: b\n    input: no spec\n"
        "  - 42\n",
    )
    codes = [(m.stream, m.code, m.yaml_path) for m in suite.messages]
    assert codes == [
        ("warn", "v4-file-not-found", ("tests", 0, "input", 0, "content", 0, "value")),
        ("error", "v4-skipped-test", ("tests", 1)),
        ("warn", "v4-test-not-object", ("tests", 2)),
    ]
    doc = parse_yaml((tmp_path / "evals/t.eval.yaml").read_text())
    found = suite.messages[0]
    assert found.yaml_path is not None and doc.node_at(found.yaml_path) is not None
    assert found.text.startswith("Warning: File not found: nope.md\n  Tried:\n    ")
    assert found.data["attempted"][0] == str(tmp_path / "evals" / "nope.md")
    assert [(s.id, s.code, s.yaml_path) for s in suite.skipped] == [
        ("b", "v4-skipped-test", ("tests", 1)),
        (None, "v4-test-not-object", ("tests", 2)),
    ]
    assert [t.id for t in suite.tests] == ["a"] and suite.tests[0].yaml_path == ("tests", 0)


def test_external_cases_keep_their_own_file(tmp_path: Path) -> None:
    suite = _load(
        tmp_path,
        "tests: ./cases.jsonl\n",
        files={
            "evals/cases.jsonl": '{"id": "j1", "criteria": "c", "input": "x"}\n\n{"id": "j2", "input": "y"}\n'
        },
    )
    cases_file = str(tmp_path / "evals" / "cases.jsonl")
    assert suite.tests_source == cases_file
    assert [(t.id, t.source_file, t.yaml_path) for t in suite.tests] == [("j1", cases_file, (0,))]
    assert [(s.id, s.source_file, s.yaml_path) for s in suite.skipped] == [("j2", cases_file, (2,))]


def test_load_error_names_file_and_kind(tmp_path: Path) -> None:
    suite = _load(tmp_path, "tests: ./bad.jsonl\n", files={"evals/bad.jsonl": '{"id": 1}\n{oops}\n'})
    assert suite.load_error is not None and suite.load_error.startswith(
        "Malformed JSONL at line 2: Expected property name or '}' in JSON at position 1"
    )
    assert suite.load_error_code == "v4-jsonl-parse"
    assert suite.load_error_file == str(tmp_path / "evals" / "bad.jsonl")
    assert suite.load_error_path == (1,)
    assert suite.tests == []


def test_yaml_error_is_a_load_error(tmp_path: Path) -> None:
    suite = _load(tmp_path, 'tests:\n  - id: "open\n')
    assert suite.load_error is not None and suite.load_error_type == "YAMLParseError"


def test_env_interpolation_rules() -> None:
    env = {"N": "42", "T": "true", "S": "x", "F": "1.50", "H": "0x10"}
    assert interpolate_env("${{ N }}", env) == 42
    assert interpolate_env("${{T}}", env) is True
    assert interpolate_env("${{ F }}", env) == 1.5
    assert interpolate_env("${{ H }}", env) == "0x10"
    assert interpolate_env("a-${{ N }}-${{ MISSING }}", env) == "a-42-"
    assert interpolate_env({"k": ["${{ S }}"]}, env) == {"k": ["x"]}


def test_prompt_builder_agent_mode_uses_absolute_paths(tmp_path: Path) -> None:
    suite = _load(
        tmp_path,
        "tests:\n  - id: a\n    criteria: c\n    input_files: [/docs/x.md]\n    input: Read it.\n",
        files={"docs/x.md": "  body\r\n"},
    )
    test = suite.tests[0]
    lm, agent = build_prompt_inputs(test, "lm"), build_prompt_inputs(test, "agent")
    assert lm.question == '<file path="docs/x.md">\nbody\n</file>\n\nRead it.'
    assert agent.question == f'<file: path="{tmp_path}/docs/x.md">\n\nRead it.'
    assert lm.chat_prompt is None and lm.system_message is None


# -- nothing crashes ------------------------------------------------------------------------------

HOSTILE = [
    "",
    "null",
    "- 1\n- 2\n",
    "tests: {a: 1}\n",
    "tests: [null, [], 1, 'file://nowhere.yaml', 'file://*.none']\n",
    "tests:\n  - {id: [1], input: {role: 5}, criteria: {}}\n",
    "tests:\n  - {id: a, input: [{role: user, content: [null, 1, {type: file, value: []}]}], criteria: c}\n",
    "tests:\n  - {id: a, input: x, assertions: [{type: composite, assertions: 3, aggregator: {}}]}\n",
    "tests:\n  - {id: a, input: x, assertions: [{include: ../../../../etc/passwd}]}\n",
    "tests:\n  - {id: a, input: x, criteria: c, workspace: 7, turns: [1, 'a']}\n",
    "tests:\n  - {id: a, input: x, criteria: c, workspace: {static: 1}}\n",
    "tests:\n  - {id: a, input: x, criteria: c, vars: {v: {w: 1}}, expected_output: '{{ v }}'}\n",
    "input_files: 5\ninput: [1, 2]\ntests:\n  - {id: a, input: x, criteria: c}\n",
    "evaluator: 5\npreprocessors: 3\ntests: []\n",
    "tests: .\n",
    "tests: ../../../..\n",
    "tests:\n  - {id: a, input: x, assertions: [{type: rubrics, criteria: [{score_ranges: {1: a}}]}]}\n",
    "tests:\n  - {id: a, input: x, rubrics: [{score_ranges: {3: a}}]}\n",
    "a: &a [*a]\n",
    "x: " + "[" * 3000 + "]" * 3000 + "\n",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_never_raises(tmp_path: Path, text: str) -> None:
    suite = _load(tmp_path, text)
    result = preview_suite(suite, FileSystem())
    json.dumps(result)
    assert isinstance(result["warnings"], list)


def test_special_files_do_not_block(tmp_path: Path) -> None:
    """A FIFO or a directory named as a file segment is refused, not waited on."""
    fifo = tmp_path / "evals" / "pipe.md"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    suite = _load(
        tmp_path,
        "tests:\n  - id: a\n    criteria: c\n    input:\n      - role: user\n        content:\n"
        "          - {type: file, value: pipe.md}\n          - {type: image, value: pipe.md}\n"
        "          - {type: file, value: .}\n          - {type: text, value: ok}\n",
    )
    assert [m.code for m in suite.messages] == [
        "v4-file-unreadable",
        "v4-image-extension",
        "v4-file-unreadable",
    ]
    assert suite.tests[0].file_paths == []


def test_unknown_formats_are_load_errors(tmp_path: Path) -> None:
    for name in ("evals/x.txt", "evals/x.json", "evals/x.eval.ts"):
        result = preview_v4(name, str(tmp_path), str(tmp_path), FileSystem())
        assert result["load_error"] is not None and result["cases"] == []


# -- speed ------------------------------------------------------------------------------------------


def _big_suite(count: int) -> str:
    lines = ["description: big", "tests:"]
    for i in range(count):
        lines += [
            f"  - id: t{i}",
            f"    criteria: Meets goal {i}",
            "    input:",
            "      - role: user",
            f"        content: Question {i}?",
            f"    expected_output: Answer {i}",
            "    assertions:",
            "      - type: contains",
            f"        value: a{i}",
        ]
    return "\n".join(lines) + "\n"


def test_loading_5000_tests(tmp_path: Path) -> None:
    """5,000 tests all load (the cost is measured by benchmarks/bench_v4.py, not asserted: a
    timed test flakes on a loaded CI machine)."""
    text = _big_suite(5_000)
    result: Any = _load(tmp_path, text)
    assert len(result.tests) == 5_000


def test_file_messages_point_at_the_value_written(tmp_path: Path) -> None:
    """input_files entries, the suite's input, skipped invalid messages and expected_output
    lists: each message names the YAML node holding the missing path."""
    suite = _load(
        tmp_path,
        "input_files: [a.md, 3, b.md]\n"
        "input:\n  - {role: system, content: [{type: file, value: s.md}]}\n"
        "tests:\n"
        "  - id: t0\n    criteria: c\n    input: Hi\n"
        "  - id: t1\n    criteria: c\n    input_files: [x.md]\n    input: Hi\n"
        "  - id: t2\n    criteria: c\n    execution: {skip_defaults: true}\n    input:\n"
        "      - {role: robot, content: x}\n      - {role: user, content: [{type: image, value: i.png}]}\n"
        "    expected_output: [{type: file, value: e.md}]\n",
    )
    located = [(m.file, m.yaml_path) for m in suite.messages]
    eval_file = str(tmp_path / "evals" / "t.eval.yaml")
    assert located == [
        (eval_file, ("input", 0, "content", 0, "value")),
        (eval_file, ("input_files", 0)),
        (eval_file, ("input_files", 2)),
        (eval_file, ("input", 0, "content", 0, "value")),
        (eval_file, ("tests", 1, "input_files", 0)),
        (eval_file, ("tests", 2, "input", 1, "content", 0, "value")),
        (eval_file, ("tests", 2, "expected_output", 0, "value")),
    ]
    doc = parse_yaml((tmp_path / "evals" / "t.eval.yaml").read_text())
    for _file, where in located:
        assert where is not None and doc.node_at(where) is not None, where


# yaml 2.9.1 (the runtime's) `parse(text, {merge: true})`, recorded with Node; None: it throws.
MERGE_CASES = [
    ("a: &x {p: 1, q: 2}\nb:\n  q: 9\n  <<: *x\n  p: 7\n", '{"a":{"p":1,"q":2},"b":{"q":9,"p":7}}'),
    (
        "a: &x {p: 1}\nc: &y {p: 2, r: 3}\nb:\n  <<: [*x, *y]\n",
        '{"a":{"p":1},"c":{"p":2,"r":3},"b":{"p":1,"r":3}}',
    ),
    (
        "a: &x {p: 1}\nb:\n  <<: *x\n  <<: {z: 1}\n  <<: {p: 5, w: 2}\n  q: 3\n",
        '{"a":{"p":1},"b":{"p":1,"z":1,"w":2,"q":3}}',
    ),
    ('b:\n  "<<": {a: 1}\n', '{"b":{"<<":{"a":1}}}'),
    ("<<: {a: 1}\nb: 2\n", '{"a":1,"b":2}'),
    ("b:\n  <<: 5\n", None),
    ("b:\n  x: 1\n  x: 2\n", None),
]


@pytest.mark.parametrize(("text", "expected"), MERGE_CASES)
def test_merge_keys_as_the_runtime_reads_them(text: str, expected: str | None) -> None:
    from agentv_lsp.formats.v4.runtime import LoadFailure
    from agentv_lsp.formats.v4.yamlmerge import parse_yaml_value
    from agentv_lsp.yamlpos.scalars import js_json_stringify

    if expected is None:
        with pytest.raises(LoadFailure):
            parse_yaml_value(text, "f.yaml")
    else:
        assert js_json_stringify(parse_yaml_value(text, "f.yaml")) == expected


def test_a_merge_tagged_document_is_a_symbol_as_in_the_runtime() -> None:
    """eemeli/yaml gives `!!merge` alone the merge Symbol, not null: `typeof` says "symbol"
    (the loader's "got symbol"), and `?? {}` would keep it."""
    from agentv_lsp.formats.v4.runtime import js_typeof
    from agentv_lsp.formats.v4.yamlmerge import parse_yaml_value

    assert js_typeof(parse_yaml_value("!!merge\n", "f.yaml")) == "symbol"
    assert js_typeof(parse_yaml_value("--- !!merge x\n", "f.yaml")) == "symbol"
    assert parse_yaml_value("%YAML 1.1\n--- !!merge x\n", "f.yaml") == "x"  # no such tag in 1.1
    assert parse_yaml_value("~\n", "f.yaml") is None


def test_a_conversation_graded_by_its_turns_is_not_said_to_be_skipped() -> None:
    """The shipped linter asks for criteria either way; the runtime's `hasSpec` counts non-empty
    `turns` (the differential's conversation tests load), so only the ungraded test is called
    skipped."""
    from agentv_lsp.formats.v4.lint import lint_v4
    from agentv_lsp.yamlpos import parse_yaml

    text = (
        "tests:\n"
        "  - id: talk\n    input: hi\n    mode: conversation\n    turns:\n      - input: hi\n"
        "  - id: bare\n    input: hi\n    turns: []\n"
    )
    found = {
        d.yaml_path[1]: d.message for d in lint_v4("x.eval.yaml", parse_yaml(text)) if "graded" in d.message
    }
    assert set(found) == {0, 1}
    assert "skips it" not in found[0] and "turns" in found[0]
    assert "skips it" in found[1]
