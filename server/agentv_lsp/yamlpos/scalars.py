"""Plain YAML scalars and `JSON.stringify` as AgentV's JavaScript sees them.

AgentV reads eval files with eemeli/yaml 2.8 `parse()` and default options, i.e. the YAML 1.2
*core* schema, not the YAML 1.1 rules PyYAML applies: `yes`, `on`, `y` and dates stay strings,
`001` is the number 1, `0o17` and `0x1F` are numbers, `1_000` and `0b101` are strings. Values are
then JavaScript values, and what AgentV shows or compares is often their `JSON.stringify` text.
This module reproduces both, so that our checker reads and prints values exactly as AgentV does:

* `resolve_plain(text)`: the value yaml@2.8.1 gives an untagged plain scalar. The regular
  expressions are the core schema's, in the order the library tries them (they were read from
  the library's own schema object, see tests/unit/data/gen_yaml12_scalars.js).
* `js_number(value)`: ECMAScript `Number::toString`, what `String(n)` and `JSON.stringify` print.
* `js_json_stringify(value, indent)`: `JSON.stringify(value, null, indent)` byte for byte.

Numbers. JavaScript has only doubles, and yaml parses integers with `parseInt`, so an integer
beyond 2**53 is silently rounded (`12345678901234567890` becomes 12345678901234567000 when
printed). We return such integers as the same rounded Python float, so that printing, comparing
and re-serialising them behaves as in AgentV; integers up to 2**53 in magnitude stay Python
ints, which is exact. `-0` is the one value we do not mirror bit for bit: yaml gives JavaScript's
negative zero, we give the int 0; no output AgentV produces can tell them apart (`String(-0)`
and `JSON.stringify(-0)` are both "0", and `-0 === 0`). `-0.0` and other float spellings do
give Python's -0.0.

tests/unit/test_scalars.py checks all of this against tests/unit/data/yaml12_scalars.json,
recorded from yaml@2.8.1 on Node 20.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TypeAlias

__all__ = ["PlainValue", "js_json_stringify", "js_number", "js_string_literal", "resolve_plain"]

PlainValue: TypeAlias = bool | int | float | str | None
"""What a plain scalar can resolve to."""

# The core schema's tests, in yaml@2.8.1's order (null, bool, int oct, int, int hex, float
# nan/inf, float exp, float); the first that matches the whole text decides. `[0-9]`, not `\d`,
# because JavaScript's `\d` is ASCII-only and Python's is not.
_NULL = re.compile(r"(?:~|[Nn]ull|NULL)?")
_BOOL = re.compile(r"[Tt]rue|TRUE|[Ff]alse|FALSE")
_OCT = re.compile(r"0o[0-7]+")
_INT = re.compile(r"[-+]?[0-9]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_NAN_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN")
_EXP = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)")

# Only these first characters can start a non-string (besides the keyword spellings).
_NUMERIC_START = frozenset("0123456789+-.")
_KEYWORDS: dict[str, PlainValue] = {
    "~": None,
    "null": None,
    "Null": None,
    "NULL": None,
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
_MAX_SAFE_INTEGER = 2**53


def resolve_plain(text: str) -> PlainValue:
    """The value yaml@2.8.1 `parse()` gives the plain (unquoted, untagged) scalar `text`.

    None for `~`, `null`, `Null`, `NULL` and the empty scalar; a bool for the six spellings of
    true and false; an int or float for the core schema's numbers (see the module docstring for
    integers beyond 2**53); the text itself for everything else.
    """
    if not text:
        return None
    if text[0] not in _NUMERIC_START:
        return _KEYWORDS.get(text, text)
    if _OCT.fullmatch(text):
        return _js_integer(int(text[2:], 8))
    if _INT.fullmatch(text):
        return _js_integer(_decimal_integer(text))
    if _HEX.fullmatch(text):
        return _js_integer(int(text[2:], 16))
    if _NAN_INF.fullmatch(text):
        if text[-3:].lower() == "nan":
            return math.nan
        return -math.inf if text[0] == "-" else math.inf
    if _EXP.fullmatch(text) or _FLOAT.fullmatch(text):
        return float(text)  # like parseFloat: correctly rounded, overflow gives +-inf
    return text


# Beyond this many significant digits a decimal integer is past the largest double, so it is
# +/-Infinity in JavaScript; Python's int() refuses such strings (over 4,300 digits) anyway.
_MAX_FINITE_DIGITS = 400


def _decimal_integer(text: str) -> int | float:
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > _MAX_FINITE_DIGITS:
        return -math.inf if text[0] == "-" else math.inf
    return int((text[0] if text[0] in "+-" else "") + (digits or "0"))


def _js_integer(value: int | float) -> int | float:
    """The integer as a JavaScript number: exact up to 2**53, else the nearest double."""
    if isinstance(value, float) or -_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER:
        return value
    try:
        return float(value)  # round half to even, as parseInt does
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# -- printing --------------------------------------------------------------------------------------


def js_number(value: float) -> str:
    """ECMAScript `Number::toString(value)`: what `String(n)` prints for a JavaScript number.

    Python ints are first turned into the double JavaScript would hold. NaN and the infinities
    print as `NaN`, `Infinity`, `-Infinity` (JSON.stringify prints those as `null`).
    """
    if isinstance(value, bool):
        raise TypeError("js_number expects a number, not a bool")
    if isinstance(value, int):
        if -_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER:
            return str(value)
        value = _js_integer(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"  # negative zero too
    sign = "-" if value < 0 else ""
    # repr gives the shortest digit string that reads back as the same double, which is also
    # the digit string ECMAScript asks for; only the layout differs.
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + int(exponent or 0)  # value = 0.<digits> * 10**point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    exponent_text = ("e+" if e >= 0 else "e-") + str(abs(e))
    if k == 1:
        return sign + digits + exponent_text
    return sign + digits[0] + "." + digits[1:] + exponent_text


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# What JSON.stringify escapes (ES2019 "well-formed JSON.stringify"): quote, backslash, control
# characters, and surrogates that are not part of a pair. U+2028/U+2029 and U+007F stay raw.
_TO_ESCAPE = re.compile('[\\ud800-\\udbff][\\udc00-\\udfff]|["\\\\\\x00-\\x1f\\ud800-\\udfff]')


def _escape(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) == 2:
        # a pair of surrogate code points in a Python string is one character to JavaScript
        return chr(0x10000 + ((ord(text[0]) - 0xD800) << 10) + (ord(text[1]) - 0xDC00))
    return _SHORT_ESCAPES.get(text) or f"\\u{ord(text):04x}"


def js_string_literal(text: str) -> str:
    """The JSON string JSON.stringify writes for `text` (lone surrogates as `\\udxxx`)."""
    return '"' + _TO_ESCAPE.sub(_escape, text) + '"'


_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")
_MAX_ARRAY_INDEX = 2**32 - 2


def _is_array_index(key: str) -> bool:
    return bool(_ARRAY_INDEX.fullmatch(key)) and int(key) <= _MAX_ARRAY_INDEX


def _js_key_order(keys: Sequence[str]) -> list[str]:
    """Keys in the order a JavaScript object built by inserting them in turn enumerates them.

    Array-index keys ("0", "7", ...) come first in numeric order, then the others in insertion
    order; JSON.stringify follows that order, whatever the YAML file said.
    """
    indices = [k for k in keys if _is_array_index(k)]
    if not indices:
        return list(keys)
    indices.sort(key=int)
    return indices + [k for k in keys if not _is_array_index(k)]


def js_json_stringify(value: object, indent: int | None = None) -> str:
    """`JSON.stringify(value, null, indent)` for a JSON-like Python value, byte for byte.

    `value` may hold None, bool, int, float, str, lists/tuples and dicts with str keys. Dicts are
    read as the JavaScript object built by inserting their keys in order (so array-index keys
    print first). `indent` is clamped to 0..10 like JavaScript's; 0 or None means compact.
    Raises TypeError for other values, which have no JSON.stringify counterpart here.
    """
    gap = " " * max(0, min(10, indent)) if indent is not None else ""
    return _encode(value, gap, "")


def _encode(value: object, gap: str, current: str) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return js_string_literal(value)
    if isinstance(value, int | float):
        text = js_number(value)
        return "null" if text in ("NaN", "Infinity", "-Infinity") else text
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        inner = current + gap
        separator = ": " if gap else ":"
        keys = list(value)
        for key in keys:
            if not isinstance(key, str):
                raise TypeError(f"js_json_stringify: object keys must be str, not {type(key).__name__}")
        items = []
        for key in _js_key_order(keys):
            items.append(js_string_literal(key) + separator + _encode(value[key], gap, inner))
        return _wrap("{", "}", items, gap, current, inner)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = current + gap
        return _wrap("[", "]", [_encode(item, gap, inner) for item in value], gap, current, inner)
    raise TypeError(f"js_json_stringify: {type(value).__name__} is not a JSON-like value")


def _wrap(open_: str, close: str, items: list[str], gap: str, current: str, inner: str) -> str:
    if not gap:
        return open_ + ",".join(items) + close
    return f"{open_}\n{inner}" + f",\n{inner}".join(items) + f"\n{current}{close}"


# -- YAML 1.1 (`%YAML 1.1`) and explicit tags ---------------------------------------------------------
# A document that starts with `%YAML 1.1` is read by eemeli/yaml with its yaml-1.1 schema: these
# tests, in that schema's order (null, true, false, binary/octal/decimal/hex integers, NaN/Inf,
# exponent and plain floats, sexagesimal integers and floats, timestamps).
_NULL_11 = _NULL
_TRUE_11 = re.compile(r"Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON")
_FALSE_11 = re.compile(r"N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF")
_BIN_11 = re.compile(r"[-+]?0b[0-1_]+")
_OCT_11 = re.compile(r"[-+]?0[0-7_]+")
_INT_11 = re.compile(r"[-+]?[0-9][0-9_]*")
_HEX_11 = re.compile(r"[-+]?0x[0-9a-fA-F_]+")
_EXP_11 = re.compile(r"[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+")
_FLOAT_11 = re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*")
_SEXAGESIMAL_INT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+")
_SEXAGESIMAL_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*")
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)"
    r"(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?"
)


def _int_11(text: str, offset: int, radix: int) -> int | float:
    sign = text[0]
    if sign in "+-":
        offset += 1
    digits = text[offset:].replace("_", "")
    # parseInt reads the longest valid prefix; an empty one is NaN
    valid = re.match(
        "[0-1]*" if radix == 2 else "[0-7]*" if radix == 8 else "[0-9a-fA-F]*" if radix == 16 else "[0-9]*",
        digits,
    )
    head = valid.group() if valid else ""
    if not head:
        return math.nan
    value = _js_integer(int(head, radix))
    return -value if sign == "-" else value


def _float_11(text: str) -> float:
    try:
        return float(re.match(r"[-+]?(?:[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?)", text.replace("_", "")).group())  # type: ignore[union-attr]
    except ValueError:
        return math.nan


def _sexagesimal(text: str) -> float:
    sign = text[0]
    parts = text[1:] if sign in "+-" else text
    total = 0.0
    for part in parts.replace("_", "").split(":"):
        total = total * 60 + float(part)
    total = -total if sign == "-" else total
    return int(total) if total.is_integer() and "." not in parts else total


def _timestamp_11(match: re.Match[str]) -> str:
    """The ISO text of the JavaScript Date eemeli/yaml builds (what JSON.stringify prints)."""
    import datetime

    year, month, day = (int(match.group(i)) for i in (1, 2, 3))
    hour, minute = int(match.group(4) or 0), int(match.group(5) or 0)
    second = int(float(match.group(6) or 0))
    millis = int((match.group(7) + "00")[1:4]) if match.group(7) else 0
    try:  # Date.UTC: months, days and times past their range carry over
        year += (month - 1) // 12
        first = datetime.datetime(year, (month - 1) % 12 + 1, 1, tzinfo=datetime.UTC)
        moment = first + datetime.timedelta(
            days=day - 1, hours=hour, minutes=minute, seconds=second, milliseconds=millis
        )
        zone = match.group(8)
        if zone and zone != "Z":
            offset = _sexagesimal(zone)
            if abs(offset) < 30:
                offset *= 60
            moment -= datetime.timedelta(minutes=offset)
    except (OverflowError, ValueError):
        return "Invalid Date"
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def resolve_plain_11(text: str) -> PlainValue:
    """The value eemeli/yaml's yaml-1.1 schema gives an untagged plain scalar (`%YAML 1.1`)."""
    if _NULL_11.fullmatch(text):
        return None
    if _TRUE_11.fullmatch(text):
        return True
    if _FALSE_11.fullmatch(text):
        return False
    if _BIN_11.fullmatch(text):
        return _int_11(text, 2, 2)
    if _OCT_11.fullmatch(text):
        return _int_11(text, 1, 8)
    if _INT_11.fullmatch(text):
        return _int_11(text, 0, 10)
    if _HEX_11.fullmatch(text):
        return _int_11(text, 2, 16)
    if _NAN_INF.fullmatch(text):
        if text[-3:].lower() == "nan":
            return math.nan
        return -math.inf if text[0] == "-" else math.inf
    if _EXP_11.fullmatch(text) or _FLOAT_11.fullmatch(text):
        return _float_11(text)
    if _SEXAGESIMAL_INT.fullmatch(text) or _SEXAGESIMAL_FLOAT.fullmatch(text):
        return _sexagesimal(text)
    match = _TIMESTAMP.fullmatch(text)
    if match:
        return _timestamp_11(match)
    return text


_CORE_TAG_TESTS: dict[str, tuple[re.Pattern[str], ...]] = {
    "tag:yaml.org,2002:null": (_NULL,),
    "tag:yaml.org,2002:bool": (_BOOL,),
    "tag:yaml.org,2002:int": (_OCT, _INT, _HEX),
    "tag:yaml.org,2002:float": (_NAN_INF, _EXP, _FLOAT),
}


def resolve_tagged(tag: str, text: str) -> object:
    """The value eemeli/yaml gives a scalar with an explicit tag (`!!int "12"`, `!!binary ...`):
    a core tag applies when its own tests match the text, else the text stays a string, as it
    does for unknown tags. `!!binary` is a Node Buffer (what JSON.stringify prints of one) and
    `!!timestamp` a Date (its ISO text)."""
    tests = _CORE_TAG_TESTS.get(tag)
    if tests is not None:
        if any(t.fullmatch(text) for t in tests):
            return resolve_plain(text)
        return text
    if tag == "tag:yaml.org,2002:binary":
        import base64
        import binascii

        # Node's Buffer.from(text, "base64"): other characters skipped, decoding stops at `=`,
        # a last lone character ignored; a string holding a character past U+00FF is read a
        # UTF-16 unit at a time by its low byte (`\u2665` is an `e`)
        if any(ord(char) > 0xFF for char in text):
            text = "".join(map(chr, text.encode("utf-16-le", "surrogatepass")[::2]))
        cleaned = re.sub(r"[^A-Za-z0-9+/=_-]", "", text).split("=")[0]
        cleaned = cleaned.replace("-", "+").replace("_", "/")
        if len(cleaned) % 4 == 1:
            cleaned = cleaned[:-1]
        try:
            data = base64.b64decode(cleaned + "=" * (-len(cleaned) % 4))
        except (binascii.Error, ValueError):
            data = b""
        return {"type": "Buffer", "data": list(data)}
    if tag == "tag:yaml.org,2002:timestamp":
        match = _TIMESTAMP.fullmatch(text)
        if match is None:  # eemeli/yaml's timestamp tag throws: the document fails to load
            raise TagResolveError(TIMESTAMP_EXPECTS_A_DATE)
        return _timestamp_11(match)
    return text


def is_timestamp(text: str) -> bool:
    """Whether `!!timestamp` reads `text` as a date (under `%YAML 1.1` another text stays a string)."""
    return _TIMESTAMP.fullmatch(text) is not None


TIMESTAMP_EXPECTS_A_DATE = "!!timestamp expects a date, starting with yyyy-mm-dd"


class TagResolveError(ValueError):
    """A scalar its explicit tag cannot resolve (eemeli/yaml's TAG_RESOLVE_FAILED)."""
