"""YAML 1.2 core-schema scalars and JSON.stringify, against yaml@2.8.1 and V8.

The table in data/yaml12_scalars.json was produced by data/gen_yaml12_scalars.js with the
real yaml@2.8.1 package and Node's own number and string printing.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentv_lsp.yamlpos.scalars import js_json_stringify, js_number, resolve_plain

TABLE = json.loads((Path(__file__).parent / "data" / "yaml12_scalars.json").read_text())


def _utf16(codes: list[int]) -> str:
    return b"".join(c.to_bytes(2, "little") for c in codes).decode("utf-16-le", errors="surrogatepass")


@pytest.mark.parametrize(("text", "parsed"), [row for row in TABLE["plains"] if row[1] != "ERROR"])
def test_plain_scalar_matches_yaml_2_8_1(text: str, parsed: dict[str, object]) -> None:
    value = resolve_plain(text)
    # compare the JavaScript renderings: that is what AgentV prints and compares
    assert js_json_stringify(value) == js_json_stringify(parsed["v"])
    assert type(value) is type(parsed["v"]) or isinstance(value, float) or parsed["v"] is None


@pytest.mark.parametrize(("source", "printed", "json_text"), TABLE["numbers"])
def test_number_printing_matches_v8(source: str, printed: str, json_text: str) -> None:
    number = float(source)
    assert js_number(number) == printed
    assert js_json_stringify(number) == json_text


@pytest.mark.parametrize(("codes", "json_text"), TABLE["strings"])
def test_string_escaping_matches_json_stringify(codes: list[int], json_text: str) -> None:
    assert js_json_stringify(_utf16(codes)) == json_text


def test_indented_output_matches_json_stringify() -> None:
    assert js_json_stringify({"a": 1, "b": [1, {"c": []}, {}], "d": "x"}, 2) == TABLE["indented"]


def test_yes_on_and_dates_stay_strings() -> None:
    assert [resolve_plain(t) for t in ("yes", "on", "y", "2025-01-01")] == ["yes", "on", "y", "2025-01-01"]


def test_leading_zero_is_a_decimal_int() -> None:
    assert resolve_plain("001") == 1 and resolve_plain("0o17") == 15 and resolve_plain("0x1F") == 31


def test_integers_beyond_2_53_print_like_javascript() -> None:
    assert js_json_stringify(resolve_plain("12345678901234567890")) == "12345678901234567000"


def test_infinity_and_nan_are_floats_printed_as_null() -> None:
    assert math.isinf(resolve_plain("-.inf")) and math.isnan(resolve_plain(".NaN"))
    assert js_json_stringify([resolve_plain(".inf"), resolve_plain(".nan")]) == "[null,null]"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_js_json_stringify_is_valid_json_that_re_encodes_identically(value: object) -> None:
    for indent in (None, 2):
        text = js_json_stringify(value, indent)
        assert js_json_stringify(json.loads(text), indent) == text
