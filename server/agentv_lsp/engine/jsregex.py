"""JavaScript regular expressions as V8 (Node 20) reads `new RegExp(source)`: no flags, so not
Unicode mode, with the web-compatibility grammar of Annex B.

The project asks two questions of such a source, and one reader answers both:

* `js_regex_error`: the SyntaxError message V8 gives (without its "Invalid regular expression:
  /.../: " prefix), or None. AgentV 4.x compiles a `regex` assertion's value this way.
* `js_regex_to_python`: an equivalent Python regex, for the regexes picomatch builds from globs
  (engine/globs.py). None exactly when JavaScript throws; `UntranslatableRegex` when JavaScript
  accepts the source but Python's `re` cannot say the same thing (a lookbehind of varying
  width, a backreference whose group a loop resets...).

The parser follows V8's (src/regexp/regexp-parser.cc): one pass, iterative like V8's (any
depth of nesting), raising the first error V8 finds with V8's message; the translation is built
on the way. Sources are read as UTF-16 code units, as JavaScript stores them (`utf16_units`),
and so must the subjects the translation is matched against be.

What the translation keeps from JavaScript: `.` excludes line terminators; `^` and `$` are the
ends of the input; `\\d\\w\\s\\b` are JavaScript's sets; legacy octal, `\\c`, identity escapes and
lone `{`, `}`, `]`; a backreference to a group that has not captured matches the empty string;
quantified lookaheads; groups are numbered as in JavaScript and never named in Python (a
JavaScript name may hold `$` or any identifier character).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from agentv_lsp.engine.jsregex_names import NAME_PART, NAME_START

__all__ = [
    "JS_WHITESPACE",
    "JsRegexSyntaxError",
    "UntranslatableRegex",
    "js_regex_error",
    "js_regex_to_python",
    "utf16_units",
]


class JsRegexSyntaxError(ValueError):
    """V8 rejects the source; the message is V8's."""


class UntranslatableRegex(ValueError):
    """JavaScript accepts the source, but no Python regex here means the same."""


def js_regex_error(source: str) -> str | None:
    """Why `new RegExp(source)` throws in Node 20 (V8's message), or None when it does not."""
    try:
        _Parser(utf16_units(source)).parse()
    except JsRegexSyntaxError as exc:
        return str(exc)
    return None


def js_regex_to_python(source: str) -> tuple[re.Pattern[str], bool] | None:
    """A Python regex that finds what `new RegExp(source).exec` finds, and whether every
    alternative of it is anchored at the start (so `match` can stand for `search`).

    None when JavaScript throws. Raises `UntranslatableRegex` when JavaScript accepts the source
    but Python cannot express it. Match it against `utf16_units(subject)`.
    """
    parser = _Parser(utf16_units(source))
    try:
        alternatives = parser.parse()
    except JsRegexSyntaxError:
        return None
    parser.check_translatable()
    try:
        regex = re.compile("|".join(alternatives), re.ASCII)
    except (re.error, RecursionError, OverflowError) as exc:
        raise UntranslatableRegex(str(exc)) from exc
    return regex, all(alternative.startswith(r"\A") for alternative in alternatives)


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_units(text: str) -> str:
    """`text` as JavaScript stores it: characters beyond U+FFFF become two surrogate code units.

    JavaScript regexes without the `u` flag match code units, so `.` matches half an emoji;
    matching the translation against the surrogate form keeps that behaviour.
    """
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(_surrogate_pair, text)


def _surrogate_pair(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


# -- the grammar's constants ------------------------------------------------------------------------

_INFINITY = 2**31 - 1  # V8's kInfinity: larger quantifier bounds are clamped to it
_MAX_CAPTURES = 1 << 16
_DIGITS = frozenset("0123456789")
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTROL_ESCAPES = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
# ECMAScript WhiteSpace + LineTerminator: what `\\s` matches and `String.prototype.trim` removes
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_CLASS_ESCAPES: dict[str, list[tuple[int, int]]] = {
    "d": [(0x30, 0x39)],
    "w": [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    "s": [(ord(c), ord(c)) for c in JS_WHITESPACE],
}
_DOT = "[^\n\r\u2028\u2029]"
# Python's `\B` fails on the empty string, JavaScript's does not
_NOT_BOUNDARY = r"(?:(?<=\w)(?=\w)|(?<!\w)(?!\w))"
# the tables hold inclusive (first, last) pairs; with exclusive ends, a code point is in the
# table when `bisect_right` lands after an odd number of entries
_NAME_START = tuple(value + index % 2 for index, value in enumerate(NAME_START))
_NAME_PART = tuple(value + index % 2 for index, value in enumerate(NAME_PART))
_END = -1  # the code point read past the end


def _name_start(code: int) -> bool:
    return bisect_right(_NAME_START, code) % 2 == 1


def _name_part(code: int) -> bool:
    return bisect_right(_NAME_PART, code) % 2 == 1


# -- the parser -------------------------------------------------------------------------------------


class _Frame:
    """One open group (or the whole pattern): its alternatives so far, as Python source."""

    __slots__ = ("alternatives", "capture", "first_capture", "kind", "name", "nonzero", "terms")

    def __init__(self, kind: str, capture: int, first_capture: int, name: str | None) -> None:
        self.kind = kind  # "" (the pattern), "(" (capture), "(?:", "(?=", "(?!", "(?<=", "(?<!"
        self.capture = capture  # a capture's number
        self.first_capture = first_capture  # the first capture number opened inside (itself included)
        self.name = name
        self.alternatives: list[str] = []
        self.terms: list[str] = []
        self.nonzero = False  # some term can match a character (V8: max_match > 0)

    def body(self) -> str:
        return "|".join([*self.alternatives, "".join(self.terms)])


class _Parser:
    """V8's RegExpParserImpl for a pattern without flags, building Python source as it goes."""

    def __init__(self, source: str) -> None:
        self.s = source
        self.n = len(source)
        self.pos = 0
        self.captures_started = 0
        self.capture_count = 0  # after `scan`: all the captures
        self.scanned = False
        self.has_named = False
        self.names: dict[str, int] = {}  # closed named groups
        self.references: list[str] = []  # named references, resolved at the end
        self.closed: set[int] = set()
        self.repeated: set[int] = set()  # captures inside a loop (JavaScript resets them each turn)
        self.targets: list[int] = []  # the captures backreferences read
        self.backreference_in_lookbehind = False
        self.lookbehinds = 0  # lookbehinds open
        # the captures open (V8 walks its stack of groups; a hostile pattern makes that quadratic)
        self.open_captures: set[int] = set()
        self.open_names: dict[str, int] = {}

    # -- the pattern: V8's ParseDisjunction, with an explicit stack of open groups --

    def parse(self) -> list[str]:
        s, n = self.s, self.n
        frame = _Frame("", 0, 1, None)
        stack: list[_Frame] = []
        while True:
            if self.pos >= n:
                if stack:
                    raise JsRegexSyntaxError("Unterminated group")
                break
            c = s[self.pos]
            # each branch either continues (nothing to quantify) or leaves one atom: its Python
            # source, whether it matches only the empty string, its kind, the captures inside
            zero = False
            kind = ""
            captures = (0, -1)
            if c == ")":
                if not stack:
                    raise JsRegexSyntaxError("Unmatched ')'")
                self.pos += 1
                atom, zero, kind, captures = self.close(frame)
                frame = stack.pop()
            elif c == "|":
                self.pos += 1
                frame.alternatives.append("".join(frame.terms))
                frame.terms = []
                continue
            elif c in "*+?":
                raise JsRegexSyntaxError("Nothing to repeat")
            elif c == "^" or c == "$":
                self.pos += 1
                frame.terms.append(r"\A" if c == "^" else r"\Z")
                continue
            elif c == ".":
                self.pos += 1
                atom = _DOT
            elif c == "(":
                stack.append(frame)
                frame = self.open()
                continue
            elif c == "[":
                atom = self.character_class()
            elif c == "\\":
                escaped = self.atom_escape(frame)
                if escaped is None:
                    continue
                atom, zero = escaped
                if atom == "":  # a reference inside its own group: nothing, quantifier included
                    self.quantifier()
                    continue
            elif c == "{":
                if self.interval(self.pos) is not None:
                    raise JsRegexSyntaxError("Nothing to repeat")
                self.pos += 1
                atom = "\\{"
            else:
                self.pos += 1
                atom = re.escape(c)
            bounds = self.quantifier()
            if bounds is not None:
                low, high, lazy = bounds
                if kind in ("(?<=", "(?<!"):
                    raise JsRegexSyntaxError("Invalid quantifier")
                if zero:
                    # V8 drops a quantified atom that can only match empty when it may repeat
                    # zero times, and keeps it once otherwise; `{0}` keeps its group numbers
                    if low == 0:
                        atom = f"(?:{atom}){{0}}" if captures[1] >= captures[0] else ""
                else:
                    if high > 1:
                        # a group that is the loop's body takes part in every turn
                        first = captures[0] + 1 if kind == "(" else captures[0]
                        self.repeated.update(range(first, captures[1] + 1))
                    zero = high == 0
                    atom += _quantifier(low, high, lazy)
            frame.terms.append(atom)
            if not zero:
                frame.nonzero = True
        # V8's PatchNamedBackReferences, once the whole pattern is read
        if any(name not in self.names for name in self.references):
            raise JsRegexSyntaxError("Invalid named capture referenced")
        return [*frame.alternatives, "".join(frame.terms)]

    def open(self) -> _Frame:
        """`(` and what follows it (V8's ParseOpenParenthesis): the new group's frame."""
        s, n = self.s, self.n
        p = self.pos + 1
        named = False
        if p < n and s[p] == "?":
            follower = s[p + 1] if p + 1 < n else ""
            if follower in (":", "=", "!"):
                self.pos = p + 2
                return _Frame("(?" + follower, 0, self.captures_started + 1, None)
            if follower != "<":
                raise JsRegexSyntaxError("Invalid group")
            after = s[p + 2] if p + 2 < n else ""
            if after in ("=", "!"):
                self.pos = p + 3
                self.lookbehinds += 1
                return _Frame("(?<" + after, 0, self.captures_started + 1, None)
            self.has_named = named = True
            p += 2
        if self.captures_started >= _MAX_CAPTURES:
            raise JsRegexSyntaxError("Too many captures")
        self.captures_started += 1
        self.pos = p
        name = self.group_name() if named else None
        self.open_captures.add(self.captures_started)
        if name is not None:
            self.open_names[name] = self.open_names.get(name, 0) + 1
        return _Frame("(", self.captures_started, self.captures_started, name)

    def close(self, frame: _Frame) -> tuple[str, bool, str, tuple[int, int]]:
        """`)`: the group as one atom (source, matches only empty, kind, captures inside)."""
        body = frame.body()
        captures = (frame.first_capture, self.captures_started)
        if frame.kind == "(":
            self.open_captures.discard(frame.capture)
            if frame.name is not None:
                self.open_names[frame.name] -= 1
                if frame.name in self.names:
                    raise JsRegexSyntaxError("Duplicate capture group name")
                self.names[frame.name] = frame.capture
            self.closed.add(frame.capture)
            return f"({body})", not frame.nonzero, "(", captures
        if frame.kind == "(?:":
            return f"(?:{body})", not frame.nonzero, "(?:", captures
        if frame.kind.startswith("(?<"):
            self.lookbehinds -= 1
        return f"{frame.kind}{body})", True, frame.kind, captures

    def quantifier(self) -> tuple[int, int, bool] | None:
        s, n = self.s, self.n
        if self.pos >= n:
            return None
        c = s[self.pos]
        if c == "*":
            low, high = 0, _INFINITY
            self.pos += 1
        elif c == "+":
            low, high = 1, _INFINITY
            self.pos += 1
        elif c == "?":
            low, high = 0, 1
            self.pos += 1
        elif c == "{":
            interval = self.interval(self.pos)
            if interval is None:
                return None
            low, high, self.pos = interval
            if high < low:
                raise JsRegexSyntaxError("numbers out of order in {} quantifier")
        else:
            return None
        lazy = self.pos < n and s[self.pos] == "?"
        if lazy:
            self.pos += 1
        return low, high, lazy

    def interval(self, p: int) -> tuple[int, int, int] | None:
        """`{n}`, `{n,}` or `{n,m}` at p (ASCII digits, values clamped as V8 does): the bounds and
        where it ends; None when the `{` is not one (Annex B: then it is a literal)."""
        s, n = self.s, self.n
        p += 1
        if p >= n or s[p] not in _DIGITS:
            return None
        low = 0
        while p < n and s[p] in _DIGITS:
            low = min(low * 10 + ord(s[p]) - 48, _INFINITY)
            p += 1
        if p < n and s[p] == "}":
            return low, low, p + 1
        if p >= n or s[p] != ",":
            return None
        p += 1
        if p < n and s[p] == "}":
            return low, _INFINITY, p + 1
        high = 0
        while p < n and s[p] in _DIGITS:
            high = min(high * 10 + ord(s[p]) - 48, _INFINITY)
            p += 1
        if p >= n or s[p] != "}":
            return None
        return low, high, p + 1

    # -- escapes --

    def atom_escape(self, frame: _Frame) -> tuple[str, bool] | None:
        """`\\` outside a class: an atom and whether it matches only empty; None for `\\b`/`\\B`
        (assertions, added here, that nothing may quantify); "" for a reference that V8 reads
        as nothing (inside the group it refers to)."""
        s, n = self.s, self.n
        if self.pos + 1 >= n:
            raise JsRegexSyntaxError("\\ at end of pattern")
        c = s[self.pos + 1]
        if c in "123456789":
            number = self.backreference_number()
            if number is not None:
                return self.backreference(number), False
            if c in "89":
                self.pos += 2
                return c, False
            self.pos += 1
            return _char(self.octal()), False
        if c == "0":
            self.pos += 1
            return _char(self.octal()), False
        if c == "b" or c == "B":
            self.pos += 2
            frame.terms.append(r"\b" if c == "b" else _NOT_BOUNDARY)
            return None
        if c in "dDsSwW":
            self.pos += 2
            return _class_source(_CLASS_ESCAPES[c.lower()], c.isupper()), False
        if c == "k" and self.named_groups(self.pos, in_class=False):
            self.pos += 2
            if self.pos >= n or s[self.pos] != "<":
                raise JsRegexSyntaxError("Invalid named reference")
            self.pos += 1
            name = self.group_name()
            if self.open_names.get(name):
                return "", False
            self.references.append(name)
            number = self.names.get(name)
            return (self.backreference(number) if number is not None else "(?:)"), False
        return _char(self.character_escape(in_class=False)), False

    def backreference_number(self) -> int | None:
        """`\\N` at pos (V8's ParseBackReferenceIndex): N when there are N captures, else None."""
        s, n = self.s, self.n
        p = self.pos + 2
        value = ord(s[self.pos + 1]) - 48
        while p < n and s[p] in _DIGITS:
            value = value * 10 + ord(s[p]) - 48
            if value > _MAX_CAPTURES:
                return None
            p += 1
        if value > self.captures_started:
            if not self.scanned:
                self.scan(p, in_class=False)
            if value > self.capture_count:
                return None
        self.pos = p
        return value

    def backreference(self, number: int) -> str:
        if number in self.open_captures:
            return ""  # V8: inside the group it refers to, nothing can have been captured
        if self.lookbehinds:
            self.backreference_in_lookbehind = True
        if number not in self.closed:
            return "(?:)"  # a group later in the pattern: JavaScript matches the empty string
        self.targets.append(number)
        # JavaScript: a group that did not take part matches the empty string; Python fails
        return f"(?:(?({number})\\{number}|))"

    def octal(self) -> int:
        """A legacy octal escape at pos (V8's ParseOctalLiteral): up to \\377."""
        s, n = self.s, self.n
        value = ord(s[self.pos]) - 48
        self.pos += 1
        if self.pos < n and s[self.pos] in _OCTAL:
            value = value * 8 + ord(s[self.pos]) - 48
            self.pos += 1
            if value < 32 and self.pos < n and s[self.pos] in _OCTAL:
                value = value * 8 + ord(s[self.pos]) - 48
                self.pos += 1
        return value

    def character_escape(self, in_class: bool) -> int:
        """`\\` at pos starting a CharacterEscape (V8's ParseCharacterEscape): its code unit."""
        s, n = self.s, self.n
        c = s[self.pos + 1]
        code = _CONTROL_ESCAPES.get(c)
        if code is not None:
            self.pos += 2
            return code
        if c == "c":
            letter = s[self.pos + 2] if self.pos + 2 < n else ""
            control = "A" <= letter <= "Z" or "a" <= letter <= "z"
            if letter and (control or (in_class and (letter in _DIGITS or letter == "_"))):
                self.pos += 3
                return ord(letter) & 0x1F
            self.pos += 1  # Annex B: the backslash is a literal, and `c` is read next
            return 0x5C
        if c == "0" and not (self.pos + 2 < n and s[self.pos + 2] in _DIGITS):
            self.pos += 2
            return 0
        if c in _OCTAL:
            self.pos += 1
            return self.octal()
        if c == "x" or c == "u":
            width = 2 if c == "x" else 4
            digits = s[self.pos + 2 : self.pos + 2 + width]
            if len(digits) == width and all(d in _HEX for d in digits):
                self.pos += 2 + width
                return int(digits, 16)
            self.pos += 2
            return ord(c)
        self.pos += 2
        if c == "k" and self.named_groups(self.pos, in_class):
            raise JsRegexSyntaxError("Invalid escape")
        return ord(c)  # identity escape

    def named_groups(self, p: int, in_class: bool) -> bool:
        """Whether the pattern has named groups (V8's HasNamedCaptures): `\\k` depends on it."""
        if not (self.has_named or self.scanned):
            self.scan(p, in_class)
        return self.has_named

    def scan(self, p: int, in_class: bool) -> None:
        """V8's ScanForCaptures from p: the number of captures, and whether any is named."""
        s, n = self.s, self.n
        count = self.captures_started
        if in_class:
            p = self.skip_class(p)
        while p < n:
            c = s[p]
            p += 1
            if c == "\\":
                p += 1
            elif c == "[":
                p = self.skip_class(p)
            elif c == "(":
                if p < n and s[p] == "?":
                    p += 1
                    if p >= n or s[p] != "<":
                        continue
                    p += 1
                    if p < n and s[p] in "=!":
                        continue
                    self.has_named = True
                count += 1
        self.capture_count = count
        self.scanned = True

    def skip_class(self, p: int) -> int:
        s, n = self.s, self.n
        while p < n:
            c = s[p]
            p += 1
            if c == "\\":
                p += 1
            elif c == "]":
                break
        return p

    def group_name(self) -> str:
        """A group name at pos, through its `>` (V8's ParseCaptureGroupName, which reads it in
        Unicode mode: surrogate pairs, `\\u{...}` and escaped pairs make one code point)."""
        s = self.s
        p = self.pos
        name: list[str] = []
        while True:
            code, width = _code_point(s, p)
            if code == 0x5C and s[p + 1 : p + 2] == "u":
                escaped = _unicode_escape(s, p + 2)
                if escaped is None:
                    raise JsRegexSyntaxError("Invalid Unicode escape")
                code, end = escaped
                width = end - p
            if code == 0x5C:
                raise JsRegexSyntaxError("Invalid capture group name")
            if name and code == 0x3E:  # '>' (escaped or not)
                self.pos = p + width
                return "".join(name)
            if not (_name_part(code) if name else _name_start(code)):
                raise JsRegexSyntaxError("Invalid capture group name")
            name.append(chr(code))
            p += width

    # -- character classes --

    def character_class(self) -> str:
        """`[...]` (V8's ParseCharacterClass and ParseClassRanges) as a Python class."""
        s, n = self.s, self.n
        self.pos += 1
        negated = self.pos < n and s[self.pos] == "^"
        if negated:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        while self.pos < n and s[self.pos] != "]":
            low, low_set = self.class_atom()
            if self.pos < n and s[self.pos] == "-":
                self.pos += 1
                if self.pos >= n:
                    break
                if s[self.pos] == "]":
                    ranges += low
                    ranges.append((0x2D, 0x2D))
                    break
                high, high_set = self.class_atom()
                if low_set or high_set:
                    # Annex B: with a class escape at either end, the '-' is itself
                    ranges += low + high
                    ranges.append((0x2D, 0x2D))
                    continue
                if low[0][0] > high[0][0]:
                    raise JsRegexSyntaxError("Range out of order in character class")
                ranges.append((low[0][0], high[0][0]))
            else:
                ranges += low
        if self.pos >= n:
            raise JsRegexSyntaxError("Unterminated character class")
        self.pos += 1
        return _class_source(_normalize(ranges), negated)

    def class_atom(self) -> tuple[list[tuple[int, int]], bool]:
        """One class atom (V8's ParseClassEscape): its code ranges, and whether it is a class
        escape (`\\d`...) rather than one character."""
        s, n = self.s, self.n
        c = s[self.pos]
        if c != "\\":
            self.pos += 1
            return [(ord(c), ord(c))], False
        if self.pos + 1 >= n:
            raise JsRegexSyntaxError("\\ at end of pattern")
        following = s[self.pos + 1]
        if following == "b":
            self.pos += 2
            return [(8, 8)], False
        if following in "dDsSwW":
            self.pos += 2
            ranges = _CLASS_ESCAPES[following.lower()]
            return (_complement(ranges) if following.isupper() else ranges), True
        code = self.character_escape(in_class=True)
        return [(code, code)], False

    # -- what Python cannot say --

    def check_translatable(self) -> None:
        if self.backreference_in_lookbehind:
            # JavaScript matches lookbehinds right to left, captures included
            raise UntranslatableRegex("a backreference inside a lookbehind")
        if any(target in self.repeated for target in self.targets):
            # JavaScript forgets a loop's captures at each turn; Python keeps the last ones
            raise UntranslatableRegex("a backreference to a group inside a loop")


def _code_point(s: str, p: int) -> tuple[int, int]:
    """The code point at p read in Unicode mode (a surrogate pair is one), and its width."""
    if p >= len(s):
        return _END, 0
    code = ord(s[p])
    if 0xD800 <= code <= 0xDBFF and p + 1 < len(s) and 0xDC00 <= ord(s[p + 1]) <= 0xDFFF:
        return 0x10000 + ((code - 0xD800) << 10) + (ord(s[p + 1]) - 0xDC00), 2
    return code, 1


def _unicode_escape(s: str, p: int) -> tuple[int, int] | None:
    """`\\u` escape digits at p, in Unicode mode: `{hex}` or `XXXX` (a lead surrogate joined
    with an escaped trail surrogate): the code point and where it ends; None if invalid."""
    if s[p : p + 1] == "{":
        end = p + 1
        value = 0
        while end < len(s) and s[end] in _HEX:
            value = value * 16 + int(s[end], 16)
            if value > 0x10FFFF:
                return None
            end += 1
        if end == p + 1 or s[end : end + 1] != "}":
            return None
        return value, end + 1
    digits = s[p : p + 4]
    if len(digits) != 4 or not all(d in _HEX for d in digits):
        return None
    value = int(digits, 16)
    if 0xD800 <= value <= 0xDBFF and s[p + 4 : p + 6] == "\\u":
        trail = s[p + 6 : p + 10]
        if len(trail) == 4 and all(d in _HEX for d in trail) and 0xDC00 <= int(trail, 16) <= 0xDFFF:
            return 0x10000 + ((value - 0xD800) << 10) + (int(trail, 16) - 0xDC00), p + 10
    return value, p + 4


def _quantifier(low: int, high: int, lazy: bool) -> str:
    if high == _INFINITY:  # V8's kInfinity is "no upper bound"
        text = "*" if low == 0 else "+" if low == 1 else f"{{{low},}}"
    elif low == high:
        text = f"{{{low}}}"
    elif (low, high) == (0, 1):
        text = "?"
    else:
        text = f"{{{low},{high}}}"
    return text + "?" if lazy else text


def _char(code: int) -> str:
    return re.escape(chr(code))


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    result: list[tuple[int, int]] = []
    low = 0
    for start, end in sorted(ranges):
        if start > low:
            result.append((low, start - 1))
        low = max(low, end + 1)
    if low <= 0xFFFF:
        result.append((low, 0x10FFFF))
    return result


def _normalize(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _class_source(ranges: list[tuple[int, int]], negated: bool) -> str:
    if not ranges:
        return r"[\s\S]" if negated else r"[^\s\S]"
    body = "".join(_code_escape(a) if a == b else f"{_code_escape(a)}-{_code_escape(b)}" for a, b in ranges)
    return f"[{'^' if negated else ''}{body}]"


def _code_escape(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
