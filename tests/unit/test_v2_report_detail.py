"""v2 keeps its loaded file and case outcomes in the report's format-owned `detail`
(`formats.v2.detail`), read back through `v2_detail`, which narrows it."""

from __future__ import annotations

from pathlib import Path

from agentv_lsp.checks.options import DocumentReport
from agentv_lsp.formats.v2.check import CheckOptions, check_document
from agentv_lsp.formats.v2.detail import V2Detail, eval_file_of, v2_detail

TWO_CASES = (
    "$schema: agentv-eval-v2\n"
    "evalcases:\n"
    "  - id: first\n    outcome: o\n    input_messages: [{role: user, content: hi}]\n"
    "  - id: second\n    outcome: o\n    input_messages: [{role: user, content: hi}]\n"
)


def _check(tmp_path: Path, text: str) -> DocumentReport:
    return check_document(str(tmp_path / "e.eval.yaml"), text, CheckOptions(str(tmp_path), str(tmp_path)))


def test_v2_eval_report_carries_the_loaded_file_and_each_case_outcome(tmp_path: Path) -> None:
    report = _check(tmp_path, TWO_CASES)
    detail = v2_detail(report)
    assert detail is not None and detail.eval_file.loaded
    assert [raw["id"] for raw in detail.eval_file.raw_cases] == ["first", "second"]
    assert detail.outcomes is not None and [o.index for o in detail.outcomes] == [0, 1]
    assert eval_file_of(report) is detail.eval_file


def test_a_file_that_does_not_parse_keeps_its_file_but_no_outcomes(tmp_path: Path) -> None:
    detail = v2_detail(_check(tmp_path, "$schema: agentv-eval-v2\nevalcases: [\n"))
    assert detail is not None and detail.outcomes is None


def test_reports_without_v2_detail_narrow_to_none(tmp_path: Path) -> None:
    bare = DocumentReport(str(tmp_path / "e.eval.yaml"), "eval", None, [])
    foreign = DocumentReport(str(tmp_path / "e.eval.yaml"), "eval", None, [], detail=object())
    assert v2_detail(bare) is None and eval_file_of(bare) is None
    assert v2_detail(foreign) is None


def test_config_report_has_no_eval_detail(tmp_path: Path) -> None:
    report = check_document(
        str(tmp_path / ".agentv" / "config.yaml"),
        "$schema: agentv-config-v2\n",
        CheckOptions(str(tmp_path), str(tmp_path)),
    )
    assert report.kind == "config" and not isinstance(report.detail, V2Detail)
