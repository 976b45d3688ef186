"""Merge keys read once (issue 34): `cases/yaml-merge-keys`, recorded from AgentV 4.42.4, where
`agentv validate` passes every file and the runtime loads the merged tests. Our check must say
exactly what validate says there (nothing about `<<`, nothing missing that a merge supplies, no
duplicate `<<` key), and a finding on a merged value lands on the anchor's text where it was
written. test_recorded_v4.py compares the preview of the same folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.oracle_v4.oracle import our_check
from tests.oracle_v4.test_recorded_v4 import _stage

CASE = Path(__file__).resolve().parent / "cases" / "yaml-merge-keys"
EVAL_FILES: list[str] = json.loads((CASE / "expected" / "_case.json").read_text(encoding="utf-8"))[
    "eval_files"
]


def _record(eval_file: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(
        (CASE / "expected" / (eval_file.replace("/", "__") + ".json")).read_text(encoding="utf-8")
    )
    return record


LOADED = [f for f in EVAL_FILES if _record(f)["load_error"] is None]


@pytest.mark.parametrize("eval_file", LOADED)
def test_check_says_what_validate_says_of_merged_tests(tmp_path: Path, eval_file: str) -> None:
    root, record = _stage(tmp_path, CASE, eval_file, True)
    assert record["validation"]["exit_code"] == 0 and record["cases"]
    ours = sorted((d["path"], d["severity"]) for d in our_check(root, eval_file))
    validate = sorted((i["location"], i["severity"]) for i in record["validation"]["issues"])
    assert ours == validate


@pytest.mark.parametrize("eval_file", [f for f in EVAL_FILES if f not in LOADED])
def test_a_merge_the_runtime_refuses_is_the_one_error_as_in_validate(tmp_path: Path, eval_file: str) -> None:
    root, record = _stage(tmp_path, CASE, eval_file, True)
    (issue,) = record["validation"]["issues"]  # "Failed to parse YAML: Merge sources must be …"
    assert issue["severity"] == "error" and record["load_error"] in issue["message"]
    (found,) = our_check(root, eval_file)
    assert found["severity"] == "error" and record["load_error"] in found["message"]


def test_a_finding_on_a_merged_value_lands_where_the_anchor_wrote_it(tmp_path: Path) -> None:
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v2.check import CheckOptions
    from agentv_lsp.formats.v4.check import check_v4_document

    eval_file = "evals/merge-problem.eval.yaml"
    root, record = _stage(tmp_path, CASE, eval_file, True)
    (issue,) = [i for i in record["validation"]["issues"] if i["location"].startswith("tests[")]
    fs = FileSystem()
    path = str(root / eval_file)
    text = fs.read_document(path)
    report = check_v4_document(path, text, CheckOptions(str(root), str(root), fs, runtime="4"), as_eval=True)
    (found,) = [d for d in report.diagnostics if d.path == issue["location"]]
    written = text.split("\n")
    bad_type = issue["message"].split("'")[1]  # "Unknown assertion type 'no-such-grader'."
    line = next(n for n, content in enumerate(written) if f"type: {bad_type}" in content)
    assert line < next(n for n, content in enumerate(written) if content.startswith("tests:"))  # the anchor
    assert (found.span.start_line, found.span.start_col) == (line, written[line].index(bad_type))


def test_the_merged_document_holds_the_loaded_value_and_where_each_key_was_written() -> None:
    from agentv_lsp.formats.v4.yamlmerge import parse_yaml_value, read_yaml_v4

    text = (CASE / "evals" / "merge-corners.eval.yaml").read_text(encoding="utf-8")
    doc = read_yaml_v4(text)
    assert doc.value == parse_yaml_value(text, "f.yaml")
    lines = text.split("\n")
    for index, test in enumerate(doc.value["tests"]):
        for key, value in test.items():
            span = doc.span_of(("tests", index, key), key=True)
            assert lines[span.start_line][span.start_col :].startswith(f"{key}:")
            if isinstance(value, str):
                at = doc.span_of(("tests", index, key))
                assert lines[at.start_line][at.start_col :].startswith(value)
        keys = [k for k, _ in doc.iter_pairs(("tests", index))]
        assert [k.value for k in keys] == list(test)  # `<<` gone, the loaded order


def test_the_differential_refuses_findings_that_contradict_the_loaded_tests() -> None:
    """`loader_contradictions`, as test_differential_v4 applies it to every generated file."""
    from tests.oracle_v4.oracle import loader_contradictions

    record: dict[str, Any] = {"cases": [{"id": "t1"}], "warnings": []}
    unknown = {"path": "tests[0].<<", "severity": "warning", "message": "Unknown key '<<' in tests[0]"}
    skipped = {
        "path": "tests[0].id",
        "severity": "warning",
        "message": "Test 't1' has no 'input': AgentV skips it.",
    }
    text = "tests:\n  - id: t1\n    <<: *d\n"
    assert len(loader_contradictions(record, [unknown, skipped], text)) == 2
    assert loader_contradictions(record, [unknown], text.replace("<<", '"<<"')) == []  # a key indeed
    assert loader_contradictions({**record, "cases": []}, [skipped], text) == []
    said = {**record, "warnings": ["error: Error: Skipping incomplete test: t1."]}
    assert loader_contradictions(said, [skipped], text) == []
