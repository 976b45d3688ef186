"""Our YAML layer against eemeli/yaml 2.9.1 on a grid of block-indentation texts
(`block_indentation.py`): the same texts load, with the same value, and the same fail. The
recording is checked against the live package too, when it is installed."""

from __future__ import annotations

import json

import pytest
from tests.yaml_suite.block_indentation import RECORDING, texts
from tests.yaml_suite.eemeli_live import live_unavailable, read_live

RECORDED = {r["name"]: r for r in map(json.loads, RECORDING.read_text().splitlines())}
CASES = texts()


def test_the_recording_covers_the_grid() -> None:
    assert sorted(RECORDED) == sorted(name for name, _ in CASES)
    # both outcomes are in the grid, each for every kind of value
    for value in ("double", "single", "flow-seq", "flow-map"):
        outcomes = {r["ok"] for name, r in RECORDED.items() if f"/{value}/" in name}
        assert outcomes == {True, False}, value


@pytest.mark.parametrize(("name", "text"), CASES, ids=[name for name, _ in CASES])
def test_loads_and_fails_where_the_runtime_does(name: str, text: str) -> None:
    from agentv_lsp.yamlpos import parse_yaml
    from agentv_lsp.yamlpos.scalars import js_json_stringify

    want = RECORDED[name]
    doc = parse_yaml(text)
    if not want["ok"]:
        assert doc.error is not None, f"eemeli/yaml fails ({want['error']}); we read {doc.value!r}"
        return
    assert doc.error is None, f"eemeli/yaml reads {want['json']}; we fail: {doc.error.message}"
    assert js_json_stringify(doc.value) == want["json"]


def test_the_recording_is_what_the_runtime_gives() -> None:
    why = live_unavailable()
    if why:
        pytest.skip(why)
    live = {r["name"]: r for r in read_live(CASES)}
    assert live == RECORDED
