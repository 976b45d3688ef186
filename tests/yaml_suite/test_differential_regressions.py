"""Our YAML layer against eemeli/yaml 2.9.1 on the texts the differential fuzzer found us reading
otherwise (`differential_regressions.py`): the same texts load, with the same value, and the same
fail. The recording is checked against the live package too, when it is installed."""

from __future__ import annotations

import json

import pytest
from tests.reliability.yaml_differential import ours
from tests.yaml_suite.differential_regressions import RECORDING, texts
from tests.yaml_suite.eemeli_live import live_unavailable, read_live

RECORDED = {r["name"]: r for r in map(json.loads, RECORDING.read_text().splitlines())}
CASES = texts()


def test_the_recording_covers_every_text() -> None:
    assert sorted(RECORDED) == sorted(name for name, _ in CASES)
    # each class holds texts that load and texts that fail
    for group in {name.split("/")[0] for name, _ in CASES if not name.startswith("left-")}:
        outcomes = {r["ok"] for name, r in RECORDED.items() if name.startswith(f"{group}/")}
        assert outcomes == {True, False}, group


def _marked(name: str, text: str) -> object:
    if name.startswith("left-"):
        return pytest.param(
            name, text, marks=pytest.mark.xfail(strict=True, reason="a known disagreement, left")
        )
    return (name, text)


@pytest.mark.parametrize(
    ("name", "text"), [_marked(*case) for case in CASES], ids=[name for name, _ in CASES]
)
def test_loads_and_fails_where_the_runtime_does(name: str, text: str) -> None:
    want = RECORDED[name]
    mine = ours(text)  # yamlpos under formats/v4's merge-key pass, as the fuzzer compares
    if not want["ok"]:
        assert not mine["ok"], f"eemeli/yaml fails ({want['error']}); we read {mine['json']}"
        return
    assert mine["ok"], f"eemeli/yaml reads {want['json']}; we fail: {mine['error']}"
    assert mine["json"] == want["json"]


def test_the_recording_is_what_the_runtime_gives() -> None:
    why = live_unavailable()
    if why:
        pytest.skip(why)
    live = {r["name"]: r for r in read_live(CASES)}
    assert live == RECORDED
