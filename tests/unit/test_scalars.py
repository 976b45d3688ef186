"""`yamlpos.scalars` against yaml@2.8.1 `parse()` and Node 20's JSON.stringify / String(number).

data/yaml12_scalars.json was recorded by data/gen_yaml12_scalars.js from the real libraries: the
core schema's own test regexes, how hundreds of plain scalars resolve (in a block mapping and in
a flow sequence, which agree), String() and JSON.stringify() of thousands of doubles (given by
their IEEE-754 bits), JSON.stringify of strings with every ASCII character, lone surrogates and
line separators, and of nested values with several indents.
"""

from __future__ import annotations

import json
import math
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentv_lsp.yamlpos import scalars
from agentv_lsp.yamlpos.scalars import js_json_stringify, js_number, resolve_plain

TABLE = json.loads((Path(__file__).parent / "data" / "yaml12_scalars.json").read_text(encoding="utf-8"))


def _double(bits: str) -> float:
    value: float = struct.unpack(">d", bytes.fromhex(bits))[0]
    return value


def _build(encoded: Any) -> Any:
    """A value from the table's encoding (objects as key/value pairs, numbers as bits)."""
    if isinstance(encoded, list):
        return [_build(item) for item in encoded]
    if isinstance(encoded, dict):
        if "n" in encoded:
            return _double(encoded["n"])
        return {key: _build(value) for key, value in encoded["o"]}
    return encoded


def test_table_is_the_expected_recording() -> None:
    assert TABLE["versions"]["yaml"] == "2.8.1"
    assert len(TABLE["plains"]) > 500 and len(TABLE["numbers"]) > 5000 and len(TABLE["strings"]) > 400


# The core schema's tests as yaml@2.8.1 reports them, in the order it tries them, and ours.
OUR_REGEXES = [
    ("tag:yaml.org,2002:null", "", scalars._NULL),
    ("tag:yaml.org,2002:bool", "", scalars._BOOL),
    ("tag:yaml.org,2002:int", "OCT", scalars._OCT),
    ("tag:yaml.org,2002:int", "", scalars._INT),
    ("tag:yaml.org,2002:int", "HEX", scalars._HEX),
    ("tag:yaml.org,2002:float", "", scalars._NAN_INF),
    ("tag:yaml.org,2002:float", "EXP", scalars._EXP),
    ("tag:yaml.org,2002:float", "", scalars._FLOAT),
]


def test_our_regexes_are_the_core_schema_regexes_in_the_library_order() -> None:
    recorded = TABLE["schema"]
    assert [(tag, fmt) for tag, fmt, _ in recorded] == [(tag, fmt) for tag, fmt, _ in OUR_REGEXES]
    for (_, _, source), (_, _, ours) in zip(recorded, OUR_REGEXES, strict=True):
        # JavaScript's /^(?:...)$/ is a Python fullmatch of the inside
        inner = re.fullmatch(r"\^(.*)\$", source)
        assert inner is not None
        assert ours.pattern in (inner.group(1), inner.group(1).removeprefix("(?:").removesuffix(")"))


@pytest.mark.parametrize(
    ("text", "kind", "printed"), [(r[0], r[1], r[2] if len(r) > 2 else None) for r in TABLE["plains"]]
)
def test_plain_scalar_resolves_like_yaml_2_8_1(text: str, kind: str, printed: object) -> None:
    value = resolve_plain(text)
    if kind == "null":
        assert value is None
    elif kind == "bool":
        assert value is printed
    elif kind == "string":
        assert value == text and isinstance(value, str)
    else:
        assert isinstance(value, int | float) and not isinstance(value, bool)
        if printed == "-0":
            # JavaScript's negative zero: -0.0 where Python has one, the int 0 for integers
            assert value == 0 and (isinstance(value, int) or math.copysign(1.0, value) < 0)
        else:
            assert js_number(value) == printed


NUMBER_CHUNKS = [TABLE["numbers"][i : i + 250] for i in range(0, len(TABLE["numbers"]), 250)]


@pytest.mark.parametrize("chunk", NUMBER_CHUNKS, ids=lambda c: f"from-{c[0][1]}")
def test_number_printing_matches_node(chunk: list[list[str]]) -> None:
    wrong = [
        (bits, printed, json_text, js_number(_double(bits)), js_json_stringify(_double(bits)))
        for bits, printed, json_text in chunk
        if (js_number(_double(bits)), js_json_stringify(_double(bits))) != (printed, json_text)
    ]
    assert not wrong, f"{len(wrong)} of {len(chunk)} print differently, e.g. {wrong[:3]}"


@pytest.mark.parametrize(("text", "json_text"), TABLE["strings"], ids=lambda v: ascii(v)[:24])
def test_string_escaping_matches_json_stringify(text: str, json_text: str) -> None:
    assert js_json_stringify(text) == json_text


@pytest.mark.parametrize(
    ("encoded", "indent", "json_text"), TABLE["values"], ids=lambda v: json.dumps(v)[:30]
)
def test_values_and_indentation_match_json_stringify(
    encoded: Any, indent: int | None, json_text: str
) -> None:
    assert js_json_stringify(_build(encoded), indent) == json_text


# -- named behaviours ----------------------------------------------------------------------------------


def test_yes_stays_string() -> None:
    for text in ("yes", "Yes", "YES", "no", "on", "off", "y", "n", "Y", "N"):
        assert resolve_plain(text) == text


def test_only_six_spellings_are_booleans() -> None:
    assert [resolve_plain(t) for t in ("true", "True", "TRUE", "false", "False", "FALSE")] == [True] * 3 + [
        False
    ] * 3
    assert resolve_plain("tRUE") == "tRUE"


def test_null_spellings_and_the_empty_scalar_are_none() -> None:
    for text in ("", "~", "null", "Null", "NULL"):
        assert resolve_plain(text) is None
    assert resolve_plain("nULL") == "nULL" and resolve_plain("~~") == "~~"


def test_leading_zero_is_int() -> None:
    assert resolve_plain("001") == 1 and resolve_plain("-001") == -1 and resolve_plain("08") == 8
    assert type(resolve_plain("001")) is int


def test_octal_and_hex_need_lowercase_prefix_and_no_sign() -> None:
    assert resolve_plain("0o17") == 15 and resolve_plain("0x1F") == 31 and resolve_plain("0x1f") == 31
    for text in ("0O17", "0X1F", "-0x1F", "+0o17", "0b101", "0o8", "0x"):
        assert resolve_plain(text) == text


def test_date_stays_string() -> None:
    assert resolve_plain("2025-01-01") == "2025-01-01"
    assert resolve_plain("2025-01-01T10:00:00Z") == "2025-01-01T10:00:00Z"


def test_sexagesimal_and_underscores_stay_strings() -> None:
    # YAML 1.1 (PyYAML) reads these as numbers; the 1.2 core schema does not
    for text in ("1:20", "12:30:00", "1_000", "1,000"):
        assert resolve_plain(text) == text


def test_float_spellings() -> None:
    assert resolve_plain("1.5") == 1.5 and resolve_plain("1e3") == 1000.0 and resolve_plain(".5") == 0.5
    assert resolve_plain("5.") == 5.0 and resolve_plain("+.5") == 0.5 and resolve_plain("-.5e1") == -5.0
    assert isinstance(resolve_plain("1.0"), float) and js_number(resolve_plain("1.0")) == "1"  # type: ignore[arg-type]
    for text in ("1e", "e3", ".", "1.2.3", "1e3.5", "0x1.8"):
        assert resolve_plain(text) == text


def test_infinity_and_nan_spellings() -> None:
    assert (
        resolve_plain(".inf") == math.inf
        and resolve_plain("-.Inf") == -math.inf
        and resolve_plain("+.INF") == math.inf
    )
    assert math.isnan(resolve_plain(".NaN"))  # type: ignore[arg-type]
    # a sign before .nan, or mixed case, is not the core schema's NaN
    for text in ("-.nan", "+.nan", ".nAn", ".iNF", "inf", "nan", "Infinity", "NaN"):
        assert resolve_plain(text) == text


def test_integers_beyond_2_53_lose_precision_like_javascript() -> None:
    big = resolve_plain("12345678901234567890")
    assert isinstance(big, float) and js_json_stringify(big) == "12345678901234567000"
    assert resolve_plain("9007199254740993") == 9007199254740992  # rounds to even, as parseInt
    assert type(resolve_plain("9007199254740992")) is int  # 2**53 itself is still exact
    assert resolve_plain("1" + "0" * 400) == math.inf  # parseInt overflows to Infinity


def test_minus_zero_is_zero() -> None:
    assert resolve_plain("-0") == 0 and js_json_stringify(resolve_plain("-0")) == "0"
    assert math.copysign(1.0, resolve_plain("-0.0")) < 0 and js_json_stringify(resolve_plain("-0.0")) == "0"  # type: ignore[arg-type]


def test_js_number_formatting() -> None:
    cases = {
        1.0: "1",
        1e21: "1e+21",
        1e20: "100000000000000000000",
        1e-7: "1e-7",
        1e-6: "0.000001",
        0.1: "0.1",
    }
    for value, text in cases.items():
        assert js_number(value) == text
    assert js_number(-0.0) == "0" and js_number(math.nan) == "NaN" and js_number(-math.inf) == "-Infinity"
    assert js_json_stringify([math.nan, math.inf, -0.0]) == "[null,null,0]"


def test_json_stringify_escapes_lone_surrogates_but_not_line_separators() -> None:
    assert js_json_stringify("\ud800x") == '"\\ud800x"'
    assert js_json_stringify("\u2028\u2029\x7f") == '"\u2028\u2029\x7f"'
    assert js_json_stringify("😀") == '"😀"'
    assert js_json_stringify("\ud83d\ude00") == '"😀"'  # a surrogate pair spelled out is one character
    assert js_json_stringify("\x00\x1f") == '"\\u0000\\u001f"'


def test_json_stringify_indentation_and_empty_containers() -> None:
    value = {"a": 1, "b": [1, {"c": []}, {}], "d": "x"}
    assert js_json_stringify(value) == '{"a":1,"b":[1,{"c":[]},{}],"d":"x"}'
    assert js_json_stringify(value, 2) == (
        '{\n  "a": 1,\n  "b": [\n    1,\n    {\n      "c": []\n    },\n    {}\n  ],\n  "d": "x"\n}'
    )
    assert js_json_stringify([1], 0) == "[1]" and js_json_stringify([1], 20) == "[\n" + " " * 10 + "1\n]"


def test_json_stringify_puts_array_index_keys_first_like_a_javascript_object() -> None:
    assert js_json_stringify({"b": 1, "2": 2, "1": 3, "01": 4}) == '{"1":3,"2":2,"b":1,"01":4}'


def test_json_stringify_rejects_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        js_json_stringify({1: "a"})
    with pytest.raises(TypeError):
        js_json_stringify(object())


def _js_parse_int(value: int) -> int | float:
    return value if abs(value) <= 2**53 else float(value)


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


@given(json_values, st.sampled_from([None, 0, 2, 4]))
def test_js_json_stringify_round_trips_through_json_loads(value: object, indent: int | None) -> None:
    text = js_json_stringify(value, indent)
    # read numbers back as JavaScript's JSON.parse does: big integers are doubles
    parsed = json.loads(text, parse_int=lambda digits: _js_parse_int(int(digits)))
    assert parsed == value  # numbers print as the same double, strings and keys unchanged
    assert js_json_stringify(parsed, indent) == text
    if indent:
        # same layout as Python's own indented JSON, numbers and escapes aside
        assert text.count("\n") == json.dumps(value, indent=indent).count("\n")
