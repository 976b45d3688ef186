"""Every case of the YAML test suite, read as AgentV's YAML library reads it.

`data/` is the YAML test suite (github.com/yaml/yaml-test-suite, branch `data`, commit 6ad3d2c6,
MIT licence in LICENSE-yaml-test-suite). `eemeli-yaml-2.9.1.jsonl` is what eemeli/yaml 2.9.1
gives each case as AgentV 4.42.4 calls it (`parse(text, {merge: true})`), recorded from the npm
package by ../shared/yaml-test-suite/record.mjs: the value as JavaScript's JSON.stringify prints
it, or that it fails. Our YAML layer must load exactly where the runtime loads, with the same
value (key order included), and fail where it fails: one test per case id.

Each case runs twice: as `parse_yaml` reads it (libyaml first, the exact reader where libyaml
refuses or may misread), and through the exact reader alone (`eemeli`), which the pre-scan
may send any text to.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RECORDED = [json.loads(line) for line in (HERE / "eemeli-yaml-2.9.1.jsonl").read_text().splitlines()]


def _ordered(text: str) -> object:
    """JSON with objects as key/value lists, so that key order counts."""
    return json.loads(text, object_pairs_hook=lambda pairs: ("{}", pairs))


def _read(case_id: str, *, exact_only: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    import agentv_lsp.yamlpos.document as document
    from agentv_lsp.yamlpos import parse_yaml
    from agentv_lsp.yamlpos.scalars import js_json_stringify

    if exact_only:
        monkeypatch.setattr(document, "needs_eemeli_rules", lambda text: True)
    text = (HERE / "data" / case_id / "in.yaml").read_bytes().decode("utf-8")
    doc = parse_yaml(text)
    if doc.error is not None:
        return {"ok": False, "error": doc.error.describe()}
    return {"ok": True, "json": js_json_stringify(doc.value)}


def _check(want: dict[str, object], got: dict[str, object]) -> None:
    case_id = want["id"]
    if want["ok"]:
        assert got["ok"], f"{case_id}: the runtime loads {want['json']}, we fail: {got.get('error')}"
        assert _ordered(str(got["json"])) == _ordered(str(want["json"])), (
            f"{case_id}: runtime {want['json']}, we {got['json']}"
        )
    else:
        assert not got["ok"], f"{case_id}: the runtime fails ({want['error']}), we load {got.get('json')}"


def test_the_suite_is_complete() -> None:
    on_disk = {str(p.parent.relative_to(HERE / "data")) for p in (HERE / "data").rglob("in.yaml")}
    assert on_disk == {case["id"] for case in RECORDED}
    assert len(RECORDED) == 402


@pytest.mark.parametrize("want", RECORDED, ids=[case["id"] for case in RECORDED])
def test_case_reads_as_the_runtime_reads_it(want: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    _check(want, _read(str(want["id"]), exact_only=False, monkeypatch=monkeypatch))


@pytest.mark.parametrize("want", RECORDED, ids=[case["id"] for case in RECORDED])
def test_case_reads_right_through_the_exact_reader_alone(
    want: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(want, _read(str(want["id"]), exact_only=True, monkeypatch=monkeypatch))
