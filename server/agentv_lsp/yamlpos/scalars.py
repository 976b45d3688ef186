"""YAML 1.2 core-schema plain scalars and `JSON.stringify`, as AgentV's JavaScript sees them.

AgentV parses YAML with eemeli/yaml 2.8 (`parse()`, core schema): `yes`/`on`/`y` and dates
stay strings, `001` is the integer 1, `0o17` and `0x1F` are integers, `.inf`/`.nan` floats.
Numbers are JavaScript doubles, so integers beyond 2**53 lose precision; we return those as
floats so that printing them gives what JavaScript prints. The regular expressions below are
the core schema's (checked against yaml@2.8.1 by tests/unit/test_scalars.py).
"""

from __future__ import annotations

import math
import re
from typing import Any

_NULL = re.compile(r"(?:~|[Nn]ull|NULL)?")
_BOOL = re.compile(r"(?:[Tt]rue|TRUE|[Ff]alse|FALSE)")
_OCT = re.compile(r"0o[0-7]+")
_INT = re.compile(r"[-+]?[0-9]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_NAN_INF = re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)")
_EXP = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)")
_MAX_SAFE = 2**53


def _js_int(value: int) -> int | float:
    """A JavaScript number holding an integer: beyond 2**53 it is the nearest double."""
    return value if -_MAX_SAFE <= value <= _MAX_SAFE else float(value)


def resolve_plain(text: str) -> Any:
    """The value of an untagged plain scalar under the YAML 1.2 core schema."""
    if _NULL.fullmatch(text):
        return None
    if _BOOL.fullmatch(text):
        return text[0] in "tT"
    if _OCT.fullmatch(text):
        return _js_int(int(text[2:], 8))
    if _INT.fullmatch(text):
        return _js_int(int(text))
    if _HEX.fullmatch(text):
        return _js_int(int(text[2:], 16))
    if _NAN_INF.fullmatch(text):
        if text.lower().endswith("nan"):
            return math.nan
        return -math.inf if text.startswith("-") else math.inf
    if _EXP.fullmatch(text) or _FLOAT.fullmatch(text):
        return float(text)
    return text


def js_number(value: float | int) -> str:
    """ECMAScript Number::toString (what JSON.stringify and String() print)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"  # also -0
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # decimal point position n: value = 0.digits * 10**n
    point = len(whole) + (int(exponent) if exponent else 0)
    if whole == "0":
        stripped = fraction.lstrip("0")
        point = -(len(fraction) - len(stripped)) + (int(exponent) if exponent else 0)
        digits = stripped
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    e = point - 1
    exp_text = f"e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + (digits if k == 1 else digits[0] + "." + digits[1:]) + exp_text


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')


def _escape_char(match: re.Match[str]) -> str:
    char = match.group(0)
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


def js_string_literal(text: str) -> str:
    """A JSON string as JSON.stringify writes it (lone surrogates escaped, U+2028 kept)."""
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, text) + '"'


def js_json_stringify(value: Any, indent: int | None = None) -> str:
    """`JSON.stringify(value, null, indent)` for JSON-like Python values."""
    return _encode(value, indent or 0, "")


def _encode(value: Any, indent: int, current: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = js_number(value)
        return "null" if text in ("NaN", "Infinity", "-Infinity") else text
    if isinstance(value, str):
        return js_string_literal(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = current + " " * indent
        items = [
            f"{js_string_literal(str(k))}:{' ' if indent else ''}{_encode(v, indent, inner)}"
            for k, v in value.items()
        ]
        return _wrap("{", "}", items, indent, current, inner)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = current + " " * indent
        return _wrap("[", "]", [_encode(v, indent, inner) for v in value], indent, current, inner)
    return "null"


def _wrap(open_: str, close: str, items: list[str], indent: int, current: str, inner: str) -> str:
    if not indent:
        return open_ + ",".join(items) + close
    return f"{open_}\n{inner}" + f",\n{inner}".join(items) + f"\n{current}{close}"
