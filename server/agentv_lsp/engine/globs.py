"""`micromatch.isMatch(path, patterns)` with no options (micromatch 4.0.8 / picomatch 2.3.1).

AgentV decides which files are guidelines with exactly that call, so this module is the one
place that knows picomatch's rules: case-sensitive; `dot: false` (no `*`, `?` or `**` matches
a segment that starts with '.', and `**` never matches '..' or '.'); `**` is a globstar only
as a whole segment; braces, ranges, POSIX classes and extglobs work; a `!pattern` entry
matches everything the pattern does not (it does not subtract from the other entries); a
subject equal to the pattern always matches. Patterns are translated to Python regular
expressions of the same shape picomatch builds (its "fast paths" for patterns that start
with `*` or `.`, and its full parser otherwise). tests/unit/test_globs.py checks thousands
of (pattern, path) pairs recorded from the real library.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

# picomatch's building blocks for dot: false (POSIX)
_NODOT = r"(?!\.)"
_ONE_CHAR = r"(?=.)"
_STAR = r"[^/]*?"
_QMARK = r"[^/]"
_GLOBSTAR = r"(?:(?:(?!(?:^|\/)\.).)*?)"
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "ascii": "\\x00-\\x7F",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "\\x21-\\x7E",
    "lower": "a-z",
    "print": "\\x20-\\x7E ",
    "punct": "\\-!\"#$%&'()\\*+,./:;<=>?@[\\]^_`{|}~",
    "space": " \\t\\r\\n\\v\\f",
    "upper": "A-Z",
    "word": "A-Za-z0-9_",
    "xdigit": "A-Fa-f0-9",
}


class GlobError(ValueError):
    """A pattern micromatch itself rejects (it throws, so AgentV fails to load the eval)."""


def is_match(subject: str, patterns: Sequence[str]) -> bool:
    """`micromatch.isMatch(subject, patterns)`: true when any pattern matches."""
    return first_match(subject, patterns) is not None


def first_match(subject: str, patterns: Sequence[str]) -> str | None:
    """The first pattern (in list order) that matches `subject`, or None."""
    for pattern in patterns:
        if _matcher(pattern)(subject):
            return pattern
    return None


def pattern_problem(pattern: str) -> str | None:
    """Why a pattern matches nothing useful, for diagnostics (None when it is fine)."""
    if not pattern:
        return "an empty pattern makes micromatch throw 'Expected a non-empty string'"
    if _compile(pattern) is None:
        return f"micromatch cannot build a matcher for {pattern!r}; it matches nothing"
    return None


@functools.lru_cache(maxsize=1024)
def _matcher(pattern: str) -> functools.partial[bool]:
    if not pattern:
        raise GlobError("Expected a non-empty string")
    negated = pattern.startswith("!") and not pattern.startswith("!(")
    body = pattern[1:] if negated else pattern
    regex = _compile(body) if body else None
    return functools.partial(_test, pattern, negated, regex)


def _test(pattern: str, negated: bool, regex: re.Pattern[str] | None, subject: str) -> bool:
    if not subject:
        return False  # micromatch never matches an empty path, negated patterns included
    if not negated and subject == pattern:
        return True  # picomatch: an input identical to the glob always matches
    matched = bool(regex is not None and regex.fullmatch(subject))
    return not matched if negated else matched


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str] | None:
    source = None
    if pattern[:1] in ("*", "."):
        source = _fast_path(pattern)
        if source is not None:
            source += r"\/?"
    if source is None:
        if pattern.startswith("./"):
            pattern = pattern[2:]
        source = _Parser(pattern).parse()
    if source is None:
        return None
    try:
        return re.compile(source, re.DOTALL)
    except re.error:
        return None


_EXTENSION = re.compile(r"^(.*?)\.(\w+)$", re.ASCII)


def _fast_path(pattern: str) -> str | None:
    """picomatch's `parse.fastpaths`: fixed translations for a few common shapes."""
    star = _STAR
    if pattern == "*":
        return _NODOT + _ONE_CHAR + star
    if pattern == ".*":
        return r"\." + _ONE_CHAR + star
    if pattern == "*.*":
        return _NODOT + star + r"\." + _ONE_CHAR + star
    if pattern == "*/*":
        return _NODOT + star + r"\/" + _NODOT + _ONE_CHAR + star
    if pattern == "**":
        return _NODOT + _GLOBSTAR
    if pattern == "**/*":
        return rf"(?:{_NODOT}{_GLOBSTAR}\/)?{_NODOT}{_ONE_CHAR}{star}"
    if pattern == "**/*.*":
        return rf"(?:{_NODOT}{_GLOBSTAR}\/)?{_NODOT}{star}\.{_ONE_CHAR}{star}"
    if pattern == "**/.*":
        return rf"(?:{_NODOT}{_GLOBSTAR}\/)?\.{_ONE_CHAR}{star}"
    match = _EXTENSION.match(pattern)
    if not match:
        return None
    prefix = _fast_path(match.group(1))
    return None if prefix is None else prefix + r"\." + match.group(2)


class _Parser:
    """picomatch's full parser, reduced to what dot: false, posix and no other options need."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def parse(self) -> str | None:
        expanded = _expand_braces(self.pattern)
        if expanded is None:
            return None
        alternatives = [self._translate(p) for p in expanded]
        if any(a is None for a in alternatives):
            return None
        return (
            alternatives[0]
            if len(alternatives) == 1
            else "(?:" + "|".join(a or "" for a in alternatives) + ")"
        )

    def _translate(self, pattern: str) -> str | None:
        segments: list[str] = []
        for segment in pattern.split("/"):
            if segment == "**" and segments and segments[-1] == "**":
                continue  # consecutive globstars act as one
            segments.append(segment)
        out: list[str] = []
        n = len(segments)
        ends_with_star = False
        out_kind = ""
        for i, segment in enumerate(segments):
            last = i == n - 1
            if segment == "**":
                if n == 1:
                    out.append(_NODOT + _GLOBSTAR)
                    ends_with_star = True
                elif i == 0:
                    out.append(rf"(?:^|\/|{_GLOBSTAR}\/)")
                elif last:
                    # after a segment ending in a star picomatch drops the "or nothing" branch
                    optional = "" if ends_with_star and out_kind == "star" else "|$"
                    out.append(
                        rf"(?:\/{_NODOT}{_GLOBSTAR}{optional})" if optional else rf"\/{_NODOT}{_GLOBSTAR}"
                    )
                elif i == n - 2 and segments[-1] == "":
                    out.append(rf"(?:\/{_NODOT}{_GLOBSTAR}\/|\/)")
                    break
                else:
                    out.append(rf"(?:\/{_NODOT}{_GLOBSTAR}\/|\/|$)")
                ends_with_star = False
                continue
            prefix = "" if i == 0 or segments[i - 1] == "**" else r"\/"
            translated = self._segment(segment)
            if translated is None:
                return None
            text, out_kind = translated
            ends_with_star = out_kind in ("star", "bracket")
            out.append(prefix + text)
        source = "".join(out)
        if ends_with_star:
            source += r"\/?"
        return source

    def _segment(self, segment: str) -> tuple[str, str] | None:
        """One path segment; returns its regex and the kind of its last token."""
        out: list[str] = []
        i = 0
        last_kind = ""
        while i < len(segment):
            char = segment[i]
            at_start = i == 0
            if char == "\\" and i + 1 < len(segment):
                out.append(re.escape(segment[i + 1]))
                i += 2
                last_kind = "literal"
                continue
            if char in "@!+*?" and i + 1 < len(segment) and segment[i + 1] == "(":
                close = _matching_paren(segment, i + 1)
                if close is not None:
                    inner = segment[i + 2 : close]
                    alternation = self._extglob_body(inner)
                    if alternation is None:
                        return None
                    rest_empty = close == len(segment) - 1
                    if char == "@":
                        out.append(f"({alternation})")
                    elif char == "*":
                        out.append(f"(?:{alternation})*")
                    elif char == "+":
                        out.append(f"(?:{alternation})+")
                    elif char == "?":
                        out.append(f"(?:{alternation})?")
                    else:
                        end = "$" if rest_empty else ""
                        out.append(f"(?:(?!(?:{alternation}){end}){_STAR})")
                    i = close + 1
                    last_kind = "extglob"
                    continue
            if char == "*":
                while i + 1 < len(segment) and segment[i + 1] == "*":
                    i += 1
                after_leading_dot = i > 0 and segment[:1] == "." and out and out[-1].startswith(r"\.(?!")
                out.append(
                    (_NODOT + _ONE_CHAR if at_start else _ONE_CHAR if after_leading_dot else "") + _STAR
                )
                i += 1
                last_kind = "star"
                continue
            if char == "?":
                out.append(r"[^.\/]" if at_start else _QMARK)
                i += 1
                last_kind = "qmark"
                continue
            if char == "[":
                bracket = _bracket(segment, i)
                if bracket is not None:
                    text, i = bracket
                    out.append(text)
                    last_kind = "bracket"
                    continue
                out.append(r"\[")
                i += 1
                last_kind = "bracket"
                continue
            if char == "." and at_start and i + 1 < len(segment) and segment[i + 1] == "*":
                # an explicit leading dot still never matches the '.' and '..' segments
                out.append(r"\.(?!\.{0,1}(?:\/|$))")
            elif char == "|":
                out.append("|")  # picomatch leaves '|' unescaped: it splits the whole regex
            else:
                out.append(re.escape(char))
            i += 1
            last_kind = "literal"
        return "".join(out), last_kind

    def _extglob_body(self, inner: str) -> str | None:
        parts = _split_top(inner, "|")
        translated = []
        for part in parts:
            seg = self._segment(part) if part else ("", "")
            if seg is None:
                return None
            text = seg[0].replace(_NODOT + _ONE_CHAR, "")
            translated.append(text)
        return "|".join(translated)


def _matching_paren(text: str, open_index: int) -> int | None:
    depth = 0
    i = open_index
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _split_top(text: str, separator: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        if char == separator and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _bracket(segment: str, start: int) -> tuple[str, int] | None:
    """A `[...]` class: POSIX classes expanded, `[!x]` kept as picomatch keeps it."""
    i = start + 1
    if i < len(segment) and segment[i] in "!^":
        i += 1
    if i < len(segment) and segment[i] == "]":
        i += 1
    body = ""
    while i < len(segment) and segment[i] != "]":
        if segment.startswith("[:", i):
            end = segment.find(":]", i + 2)
            name = segment[i + 2 : end] if end != -1 else ""
            if name in _POSIX_CLASSES:
                body += _POSIX_CLASSES[name]
                i = end + 2
                continue
        body += "\\\\" if segment[i] == "\\" else segment[i]
        i += 1
    if i >= len(segment):
        return None
    raw = segment[start : i + 1]
    inner = raw[1:-1]
    has_posix = "[:" in inner
    if not has_posix and not _REGEX_CHARS.search(inner):
        # picomatch, given no option, lets a plain class also match itself literally
        return f"(?:{re.escape(raw)}|[{body}])", i + 1
    return f"[{body}]", i + 1


_REGEX_CHARS = re.compile(r"[-*+?.^${}(|)[\]]")


_RANGE = re.compile(r"^(-?\w)\.\.(-?\w)$")


def _expand_braces(pattern: str) -> list[str] | None:
    """Brace sets become alternatives, numeric and letter ranges become character classes."""
    start = pattern.find("{")
    while start != -1 and start > 0 and pattern[start - 1] == "\\":
        start = pattern.find("{", start + 1)
    if start == -1:
        return [pattern]
    depth = 0
    for end in range(start, len(pattern)):
        if pattern[end] == "{":
            depth += 1
        elif pattern[end] == "}":
            depth -= 1
            if depth == 0:
                break
    else:
        return None  # an unbalanced '{': picomatch builds a regex that never matches
    inner = pattern[start + 1 : end]
    head, tail = pattern[:start], pattern[end + 1 :]
    ranged = _RANGE.match(inner)
    if ranged:
        low, high = ranged.groups()
        return _expand_braces(f"{head}[{low}-{high}]{tail}")
    options = _split_top(inner, ",")
    if len(options) == 1:
        return _expand_braces(head + "\\{" + inner + "\\}" + tail)
    results: list[str] = []
    for option in options:
        expanded = _expand_braces(head + option + tail)
        if expanded is None:
            return None
        results.extend(expanded)
    return results
