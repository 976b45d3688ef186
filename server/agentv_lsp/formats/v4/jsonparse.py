"""`JSON.parse` as Node 20 (V8 11) runs it: values via Python's json module, and on failure
the exact V8 error message ("Expected ',' or '}' after property value in JSON at position 6",
"Unexpected token 'x', \"xyz\" is not valid JSON", …), which AgentV prints for a bad JSONL line.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

_CONTEXT = 10  # V8's kMaxContextCharacters
_SPECIAL = frozenset(("NaN", "Infinity", "undefined", "[object Object]"))
_WS = " \t\n\r"


class JsonParseError(ValueError):
    """A SyntaxError from JSON.parse; `str(exc)` is V8's message."""


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def _js_double(value: float) -> int | float:
    """A JavaScript number: integral values below 1e21 (printed without an exponent) become
    the int JavaScript prints (shortest round-trip digits), others stay floats."""
    if value.is_integer() and abs(value) < 1e21:
        return int(Decimal(repr(value)))
    return value


def _parse_int(text: str) -> int | float:
    return int(text) if len(text) < 16 else _js_double(float(text))


def _parse_float(text: str) -> int | float:
    return _js_double(float(text))


def parse_json(text: str) -> Any:
    """The value of `text`, or JsonParseError with V8's message."""
    try:
        return json.loads(
            text, parse_constant=_reject_constant, parse_int=_parse_int, parse_float=_parse_float
        )
    except (ValueError, RecursionError):
        pass
    message = _V8Scanner(text).error()
    raise JsonParseError(message or "Unexpected end of JSON input")


class _Fail(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _V8Scanner:
    """Walks the text like V8's JsonParser, only to find its first error."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        # UTF-16 positions: V8 counts code units
        self._units = [0]
        if any(ord(c) > 0xFFFF for c in text):
            total = 0
            self._units = []
            for c in text:
                self._units.append(total)
                total += 2 if ord(c) > 0xFFFF else 1
            self._units.append(total)

    def error(self) -> str | None:
        try:
            self._skip_ws()
            self._value()
            self._skip_ws()
            if self.pos < len(self.text):
                raise _Fail(f"Unexpected non-whitespace character after JSON at position {self._position()}")
        except _Fail as failure:
            return failure.message
        except RecursionError:
            return "Maximum call stack size exceeded"
        return None

    # -- reporting -------------------------------------------------------------------------
    def _position(self, pos: int | None = None) -> int:
        at = self.pos if pos is None else pos
        return self._units[at] if len(self._units) > 1 else at

    def _fail_at(self, message: str, pos: int | None = None) -> None:
        raise _Fail(f"{message} in JSON at position {self._position(pos)}")

    def _unexpected(self, expected: str | None = None) -> None:
        """ReportUnexpectedToken: the caller's message wins; else by token kind."""
        if expected is not None:
            self._fail_at(expected)
        if self.pos >= len(self.text):
            raise _Fail("Unexpected end of JSON input")
        char = self.text[self.pos]
        if char == '"':
            self._fail_at("Unexpected string")
        if char == "-" or (char.isdigit() and char.isascii()):
            self._fail_at("Unexpected number")
        self._unexpected_token(char)

    def _unexpected_token(self, char: str) -> None:
        if ord(char) > 0xFFFF:  # V8 shows the first UTF-16 code unit
            char = char.encode("utf-16-le", "surrogatepass")[:2].decode("utf-16-le", "surrogatepass")
        source = self.text
        if source in _SPECIAL:
            raise _Fail(f'"{source}" is not valid JSON')
        units = source.encode("utf-16-le", "surrogatepass")
        length = len(units) // 2
        pos = self._position()
        if length < 2 * _CONTEXT + 1:
            raise _Fail(f"Unexpected token '{char}', \"{source}\" is not valid JSON")

        def cut(start: int, end: int) -> str:
            return units[start * 2 : end * 2].decode("utf-16-le", "surrogatepass")

        if pos < _CONTEXT:
            raise _Fail(f"Unexpected token '{char}', \"{cut(0, pos + _CONTEXT)}\"... is not valid JSON")
        if pos < length - _CONTEXT:
            raise _Fail(
                f"Unexpected token '{char}', ...\"{cut(pos - _CONTEXT, pos + _CONTEXT)}\"... is not valid JSON"
            )
        raise _Fail(f"Unexpected token '{char}', ...\"{cut(pos - _CONTEXT, length)}\" is not valid JSON")

    # -- scanning --------------------------------------------------------------------------
    def _skip_ws(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in _WS:
            pos += 1
        self.pos = pos

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _value(self, expected: str | None = None) -> None:
        char = self._peek()
        if char == "{":
            self._object()
        elif char == "[":
            self._array()
        elif char == '"':
            self._string()
        elif char == "-" or ("0" <= char <= "9" and char != ""):
            self._number()
        elif char in ("t", "f", "n"):
            self._literal({"t": "true", "f": "false", "n": "null"}[char])
        else:
            self._unexpected(expected)

    def _literal(self, word: str) -> None:
        for expected_char in word:
            if self.pos >= len(self.text):
                raise _Fail("Unexpected end of JSON input")
            if self.text[self.pos] != expected_char:
                self._unexpected_token(self.text[self.pos])
            self.pos += 1

    def _object(self) -> None:
        self.pos += 1
        self._skip_ws()
        if self._peek() == "}":
            self.pos += 1
            return
        first = True
        while True:
            if self._peek() != '"':
                self._unexpected(
                    "Expected property name or '}'" if first else "Expected double-quoted property name"
                )
            self._string()
            self._skip_ws()
            if self._peek() != ":":
                self._unexpected("Expected ':' after property name")
            self.pos += 1
            self._skip_ws()
            self._value()
            self._skip_ws()
            char = self._peek()
            if char == "}":
                self.pos += 1
                return
            if char != ",":
                self._unexpected("Expected ',' or '}' after property value")
            self.pos += 1
            self._skip_ws()
            first = False

    def _array(self) -> None:
        self.pos += 1
        self._skip_ws()
        if self._peek() == "]":
            self.pos += 1
            return
        while True:
            self._value()
            self._skip_ws()
            char = self._peek()
            if char == "]":
                self.pos += 1
                return
            if char != ",":
                self._unexpected("Expected ',' or ']' after array element")
            self.pos += 1
            self._skip_ws()

    def _string(self) -> None:
        text = self.text
        self.pos += 1
        while True:
            if self.pos >= len(text):
                self._fail_at("Unterminated string")
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return
            if char == "\\":
                self.pos += 1
                if self.pos >= len(text):
                    raise _Fail("Unexpected end of JSON input")
                escape = text[self.pos]
                if escape == "u":
                    for _ in range(4):
                        self.pos += 1
                        if self.pos >= len(text):
                            raise _Fail("Unexpected end of JSON input")
                        if text[self.pos] not in "0123456789abcdefABCDEF":
                            self._fail_at("Bad Unicode escape")
                elif escape not in '"\\/bfnrt':
                    self._fail_at("Bad escaped character")
                self.pos += 1
                continue
            if ord(char) < 0x20:
                self._fail_at("Bad control character in string literal")
            self.pos += 1

    def _digits(self) -> int:
        start = self.pos
        while self.pos < len(self.text) and "0" <= self.text[self.pos] <= "9":
            self.pos += 1
        return self.pos - start

    def _number(self) -> None:
        if self._peek() == "-":
            self.pos += 1
            if not ("0" <= self._peek() <= "9" and self._peek() != ""):
                self._fail_at("No number after minus sign")
        if self._peek() == "0":
            self.pos += 1
            if "0" <= self._peek() <= "9" and self._peek() != "":
                self._fail_at("Unexpected number")
        else:
            self._digits()
        if self._peek() == ".":
            self.pos += 1
            if self._digits() == 0:
                self._fail_at("Unterminated fractional number")
        if self._peek() in ("e", "E"):
            self.pos += 1
            if self._peek() in ("+", "-"):
                self.pos += 1
            if self._digits() == 0:
                self._fail_at("Exponent part is missing a number")
