"""`micromatch.isMatch(subject, patterns)` exactly as micromatch 4.0.8 / picomatch 2.3.1 answer it.

AgentV decides which files are "guidelines" with that one call and no options, and several of
its call sites pass different spellings of the same file (repo-relative, raw YAML value, absolute
path). Telling users which files AgentV will treat as guidelines therefore means reproducing the
library's answers, quirks included, not the answers of a "reasonable" glob implementation:

* any-of over the list; an empty list never matches; a `!pat` entry matches everything `pat`
  does not match (it does not subtract from the other entries); a subject identical to a
  pattern always matches; the empty subject never matches; an empty pattern makes micromatch
  throw.
* `dot: false`: `*`, `?` and `**` never match a segment that starts with `.`, and `**` never
  matches `.` or `..` segments (so `../x.md` and `./x.md` never match `**/*.md`).
* picomatch translates a glob to a JavaScript regular expression by three different routes
  (fixed "fast path" shapes for patterns starting with `*` or `.`, an escaping fast path for
  single-segment patterns without brackets, braces, parentheses or quotes, and a full
  tokenizer), and the routes disagree at the edges: `a*` does not match `a/` but `*a*` does;
  `[!a]` is the class "`!` or `a`", not a negation; `{3..1}` is `[1-3]`; `**.md` matches
  `x/y.md`; an unbalanced `{` or `(` gives an invalid regex, which picomatch replaces by one
  that never matches.

So this module rebuilds, for each pattern, the regular-expression source picomatch would build
(`_picomatch_source`, a reimplementation written from the library's observable output), then
translates that JavaScript regex to an equivalent Python one (`engine.jsregex`, the one reader of
JavaScript regexes), keeping JavaScript's semantics: `.` excludes line terminators, `$` only
matches at the very end, the regex works on UTF-16 code units, and a source JavaScript rejects
never matches. Each pattern is compiled once
(`functools.lru_cache`).

tests/unit/test_globs.py checks every result in tests/unit/data/micromatch_cases.json, recorded
from the real libraries by tests/unit/data/gen_micromatch_cases.js. The behaviour is the one on
POSIX systems; on Windows picomatch also treats `\\` in subjects as a separator.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentv_lsp.engine.jsregex import js_regex_error, js_regex_to_python, utf16_units

__all__ = ["first_match", "is_match", "pattern_problem"]


def is_match(subject: str, patterns: Sequence[str]) -> bool:
    """What `micromatch.isMatch(subject, patterns)` returns (no options): true when any matches.

    Never raises. Where micromatch would throw (an empty pattern in the list) or never return,
    this answers False; `pattern_problem` explains such patterns.
    """
    return first_match(subject, patterns) is not None


def first_match(subject: str, patterns: Sequence[str]) -> str | None:
    """The first pattern, in list order, that matches `subject`; None when none does.

    micromatch compiles the whole list before testing anything, so a list holding a pattern it
    throws or hangs on (see `pattern_problem`) fails as a whole, whatever the other entries
    are; we answer None for such a list, as if nothing matched.
    """
    matchers = [_matcher(pattern) for pattern in patterns]
    if None in matchers:
        return None
    units = utf16_units(subject)
    for pattern, matcher in zip(patterns, matchers, strict=True):
        if matcher is not None and matcher(subject, units):
            return pattern
    return None


def pattern_problem(pattern: str) -> str | None:
    """Why micromatch cannot use `pattern` (a sentence for a diagnostic), or None when it can."""
    return _analyse(pattern)[1]


# -- matching ---------------------------------------------------------------------------------------

_Matcher = Callable[[str, str], bool]

_EMPTY = "micromatch throws on an empty pattern ('Expected pattern to be a non-empty string')"
_TOO_LONG = "micromatch throws on patterns longer than 65536 characters"
_HANGS = (
    "micromatch never returns on this pattern: picomatch's parser loops forever on a run of "
    "backslashes (or a POSIX class) that ends the pattern, so AgentV would hang"
)
_UNTRANSLATABLE = "this pattern could not be translated; it is treated as matching nothing"
_INVALID = (
    "picomatch turns this pattern into an invalid regular expression (an unbalanced '{' or "
    "'(', a trailing backslash, a reversed range...), so it matches no path except its own text"
)


_Search = Callable[[str], "re.Match[str] | None"]


@functools.lru_cache(maxsize=4096)
def _analyse(pattern: str) -> tuple[_Search | None, str | None]:
    """A search equivalent to picomatch's `regex.exec` for `pattern`, and what is wrong with it.

    The search is None when micromatch throws or hangs on the pattern, or when picomatch's regex
    source is one JavaScript rejects (picomatch then uses a regex that never matches).
    """
    if pattern == "":
        return None, _EMPTY
    units = utf16_units(pattern)
    if len(units) > _MAX_LENGTH:
        return None, _TOO_LONG
    try:
        compiled = js_regex_to_python(_picomatch_source(units))
    except _Hang:
        return None, _HANGS
    except Exception:  # untranslatable (or a translation bug, which must not take the checker down)
        return None, _UNTRANSLATABLE
    if compiled is None:
        return None, _INVALID
    regex, anchored = compiled
    return (regex.match if anchored else regex.search), None


@functools.lru_cache(maxsize=4096)
def _matcher(pattern: str) -> _Matcher | None:
    """The test micromatch runs for one pattern; None where micromatch throws or hangs."""
    search, problem = _analyse(pattern)
    if search is None:
        if problem == _INVALID:
            # picomatch still compares the text itself before using its never-matching regex
            return lambda subject, units: subject == pattern
        if problem == _UNTRANSLATABLE:
            return lambda subject, units: False
        return None
    match = search

    def matcher(subject: str, units: str) -> bool:
        # picomatch.test: never the empty string; the pattern text itself always matches
        if not subject:
            return False
        return subject == pattern or match(units) is not None

    return matcher


# -- picomatch's regex source -----------------------------------------------------------------------
#
# Everything below builds the JavaScript regex source `picomatch.makeRe(pattern)` returns for
# posix paths and no options. The fragments are the ones picomatch emits; names say what they do.

_MAX_LENGTH = 65536
_DOT = r"\."
_PLUS = r"\+"
_SLASH = r"\/"
_ONE_CHAR = "(?=.)"  # a star at the start of a segment must match at least one character
_QMARK = "[^/]"
_QMARK_NO_DOT = r"[^.\/]"
_NO_DOT = r"(?!\.)"
_NO_DOT_SLASH = r"(?!\.{0,1}(?:\/|$))"  # after a literal leading '.', still not '.' or '..'
_STAR = "[^/]*?"
_GLOBSTAR = r"(?:(?:(?!(?:^|\/)\.).)*?)"  # any depth, but no segment starting with '.'

# The whole pattern is replaced before anything else (picomatch's REPLACEMENTS).
_REPLACEMENTS = {"***": "*", "**/**": "**", "**/**/**": "**"}

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

_REGEX_SPECIAL = re.compile(r"[-*+?.^${}(|)[\]]")
# the characters a plain text token may swallow in one go
_TEXT_RUN = re.compile(r"[^@!\[\].,$*+?^{}()|\\/]+")


def _escape_regex(text: str) -> str:
    return _REGEX_SPECIAL.sub(r"\\\g<0>", text)


def _picomatch_source(pattern: str) -> str:
    """`picomatch.makeRe(pattern).source` (before JavaScript validates it)."""
    output: str | None = None
    negated = False
    if pattern[:1] in (".", "*"):
        output = _fast_shapes(pattern)
    if not output:
        output, negated = _parse(pattern)
    source = f"^(?:{output})$"
    return f"^(?!{source}).*$" if negated else source


# -- route 1: fixed shapes for patterns starting with '*' or '.' -----------------------------------

_EXTENSION = re.compile("([^\n\r\u2028\u2029]*?)\\.([A-Za-z0-9_]+)")


def _fast_shapes(pattern: str) -> str | None:
    text = _REPLACEMENTS.get(pattern, pattern)
    if text.startswith("./"):
        text = text[2:]
    source = _fast_shape(text)
    return None if source is None else source + _SLASH + "?"


def _fast_shape(text: str) -> str | None:
    if text == "*":
        return _NO_DOT + _ONE_CHAR + _STAR
    if text == ".*":
        return _DOT + _ONE_CHAR + _STAR
    if text == "*.*":
        return _NO_DOT + _STAR + _DOT + _ONE_CHAR + _STAR
    if text == "*/*":
        return _NO_DOT + _STAR + _SLASH + _ONE_CHAR + _NO_DOT + _STAR
    if text == "**":
        return _NO_DOT + _GLOBSTAR
    if text == "**/*":
        return f"(?:{_NO_DOT}{_GLOBSTAR}{_SLASH})?{_NO_DOT}{_ONE_CHAR}{_STAR}"
    if text == "**/*.*":
        return f"(?:{_NO_DOT}{_GLOBSTAR}{_SLASH})?{_NO_DOT}{_STAR}{_DOT}{_ONE_CHAR}{_STAR}"
    if text == "**/.*":
        return f"(?:{_NO_DOT}{_GLOBSTAR}{_SLASH})?{_DOT}{_ONE_CHAR}{_STAR}"
    # `<shape>.<word>`: the shape followed by a literal extension (so `**.md` is `**` + `.md`)
    match = _EXTENSION.fullmatch(text)
    if match is None:
        return None
    head = _fast_shape(match.group(1))
    return None if head is None else head + _DOT + match.group(2)


# -- route 2: single-segment patterns without brackets, braces, parentheses or quotes --------------

_NEEDS_TOKENIZER = re.compile(r'^[*!]|[/()\[\]{}"]')
_SPECIAL_RUN = re.compile(r"(\\?)(([^A-Za-z0-9_])(\3*))")
_BACKSLASH_RUN = re.compile(r"\\+")


def _escaping_fast_path(text: str) -> str:
    saw_backslash = False

    def replace(match: re.Match[str]) -> str:
        nonlocal saw_backslash
        escape, run, first, rest = match.group(1), match.group(2), match.group(3), match.group(4)
        if first == "\\":
            saw_backslash = True
            return match.group(0)
        if first == "?":
            if escape:
                return escape + first + _QMARK * len(rest)
            if match.start() == 0:
                return _QMARK_NO_DOT + _QMARK * len(rest)
            return _QMARK * len(run)
        if first == ".":
            return _DOT * len(run)
        if first == "*":
            if escape:
                return escape + first + (_STAR if rest else "")
            return _STAR
        return match.group(0) if escape else "\\" + match.group(0)

    output = _SPECIAL_RUN.sub(replace, text)
    if saw_backslash:
        # a run of backslashes collapses to an escaped backslash (even) or a lone one (odd)
        output = _BACKSLASH_RUN.sub(lambda m: "\\\\" if len(m.group()) % 2 == 0 else "\\", output)
    return f"^(?:{output})$"


# -- route 3: the tokenizer --------------------------------------------------------------------------


class _Hang(Exception):
    """picomatch's parser would loop forever on this pattern."""


@dataclass(eq=False)
class _Token:
    type: str
    value: str
    output: str | None = None
    prev: _Token | None = None
    # brace bookkeeping
    comma: bool = False
    dots: bool = False
    output_index: int = 0
    tokens_index: int = 0
    # star / bracket flags
    star: bool = False
    posix: bool = False
    extglob: bool = False


@dataclass(eq=False)
class _Extglob:
    type: str
    open: str
    close: str
    prev: _Token
    parens: int
    inner: str = ""


_EXTGLOB_PARTS = {
    "!": ("negate", "(?:(?!(?:", f")){_STAR})"),
    "?": ("qmark", "(?:", ")?"),
    "+": ("plus", "(?:", ")+"),
    "*": ("star", "(?:", ")*"),
}


@dataclass(eq=False)
class _State:
    text: str
    index: int = -1
    start: int = 0
    output: str = ""
    negated: bool = False
    brackets: int = 0
    braces: int = 0
    parens: int = 0
    quotes: int = 0
    backtrack: bool = False
    tokens: list[_Token] = field(default_factory=list)


def _parse(pattern: str) -> tuple[str, bool]:
    """picomatch's `parse`: the regex body and whether the pattern is negated."""
    return _Tokenizer(pattern).run()


class _Tokenizer:
    """One pass over the pattern, emitting regex fragments as picomatch's tokenizer does.

    The quirks are deliberate: tokens rewrite their predecessors (a second `*` turns the
    first into a globstar, a following character turns it back), consecutive text tokens are
    merged in a way that can drop part of their output, and some constructs ("backtracking")
    rebuild the whole output from the tokens at the end, which makes those losses visible.
    """

    def __init__(self, pattern: str) -> None:
        text = _REPLACEMENTS.get(pattern, pattern)
        if text.startswith("./"):
            text = text[2:]
        self.bos = _Token("bos", "", "")
        self.state = _State(text, tokens=[self.bos])
        self.prev: _Token = self.bos
        self.extglobs: list[_Extglob] = []
        self.braces: list[_Token] = []
        self.stack: list[str] = []

    # -- cursor helpers (indices are UTF-16 code units, like JavaScript's) --
    def peek(self, n: int = 1) -> str:
        i = self.state.index + n
        return self.state.text[i] if 0 <= i < len(self.state.text) else ""

    def advance(self) -> str:
        self.state.index += 1
        i = self.state.index
        return self.state.text[i] if i < len(self.state.text) else ""

    def remaining(self) -> str:
        return self.state.text[self.state.index + 1 :]

    def eos(self) -> bool:
        return self.state.index == len(self.state.text) - 1

    def increment(self, kind: str) -> None:
        setattr(self.state, kind, getattr(self.state, kind) + 1)
        self.stack.append(kind)

    def decrement(self, kind: str) -> None:
        setattr(self.state, kind, getattr(self.state, kind) - 1)
        if self.stack:
            self.stack.pop()

    def append(self, token: _Token) -> None:
        self.state.output += token.output if token.output is not None else token.value

    def push(self, token: _Token) -> None:
        prev = self.prev
        if prev.type == "globstar":
            in_brace = self.state.braces > 0 and token.type in ("comma", "brace")
            in_extglob = token.extglob or (bool(self.extglobs) and token.type in ("pipe", "paren"))
            if token.type not in ("slash", "paren") and not in_brace and not in_extglob:
                # `**` followed by anything but a separator is just a star
                self.state.output = self.state.output[: len(self.state.output) - len(prev.output or "")]
                prev.type, prev.value, prev.output = "star", "*", _STAR
                self.state.output += _STAR
        if self.extglobs and token.type != "paren":
            self.extglobs[-1].inner += token.value
        if token.value or token.output:
            self.append(token)
        if prev.type == "text" and token.type == "text":
            # merged text keeps only the new token's raw value in its output (a picomatch quirk
            # that only shows when the output is rebuilt from tokens)
            prev.value += token.value
            prev.output = (prev.output or "") + token.value
            return
        token.prev = prev
        self.state.tokens.append(token)
        self.prev = token

    def negate(self) -> None:
        count = 1
        while self.peek() == "!" and (self.peek(2) != "(" or self.peek(3) == "?"):
            self.advance()
            self.state.start += 1
            count += 1
        if count % 2 == 0:
            return
        self.state.negated = True
        self.state.start += 1

    def extglob_open(self, value: str) -> None:
        kind, open_, close = _EXTGLOB_PARTS[value]
        record = _Extglob(kind, open_, close, self.prev, self.state.parens)
        self.increment("parens")
        self.push(_Token(kind, value, "" if self.state.output else _ONE_CHAR))
        self.push(_Token("paren", self.advance(), open_, extglob=True))
        self.extglobs.append(record)

    def extglob_close(self, record: _Extglob) -> None:
        output = record.close
        if record.type == "negate":
            tail = _STAR
            if len(record.inner) > 1 and "/" in record.inner:
                tail = _GLOBSTAR
            rest = self.remaining()
            if tail != _STAR or self.eos() or re.fullmatch(r"\)+", rest):
                output = record.close = f")$)){tail}"
            if "*" in record.inner and rest and re.fullmatch(r"\.[^\\/.]+", rest):
                expression, _ = _Tokenizer(rest).run(fast=False)
                output = record.close = f"){expression}){tail})"
        self.push(_Token("paren", ")", output, extglob=True))
        self.decrement("parens")

    def run(self, fast: bool = True) -> tuple[str, bool]:
        state = self.state
        if fast and not _NEEDS_TOKENIZER.search(state.text):
            return _escaping_fast_path(state.text), False
        while not self.eos():
            if state.index >= len(state.text):
                # picomatch stepped past the end (it skips a run of backslashes, or the ']'
                # after a POSIX class, without checking): its loop never ends
                raise _Hang
            value = self.advance()
            if value == "\0":
                continue  # NUL characters are ignored
            self.step(value)
        self.finish()
        return state.output, state.negated

    def step(self, value: str) -> None:
        """Handle one character, in picomatch's order of cases."""
        state = self.state
        prev = self.prev

        if value == "\\":
            following = self.peek()
            if following in ("/", ".", ";"):
                return  # the backslash is dropped
            if not following:
                self.push(_Token("text", value + "\\"))
                return
            run = re.match(r"\\+", self.remaining())
            if run and len(run.group()) > 2:
                slashes = len(run.group())
                state.index += slashes
                if slashes % 2:
                    value += "\\"
            value += self.advance()
            if state.brackets == 0:
                self.push(_Token("text", value))
                return

        if state.brackets > 0 and (value != "]" or prev.value in ("[", "[^")):
            if value == ":":
                inner = prev.value[1:]
                if "[" in inner:
                    prev.posix = True
                    if ":" in inner:
                        at = prev.value.rfind("[")
                        before, name = prev.value[:at], prev.value[at + 2 :]
                        posix = _POSIX_CLASSES.get(name)
                        if posix:
                            prev.value = before + posix
                            state.backtrack = True
                            self.advance()
                            if not self.bos.output and len(state.tokens) > 1 and state.tokens[1] is prev:
                                self.bos.output = _ONE_CHAR
                            return
            if (value == "[" and self.peek() != ":") or (value == "-" and self.peek() == "]"):
                value = "\\" + value
            if value == "]" and prev.value in ("[", "[^"):
                value = "\\" + value
            prev.value += value
            state.output += value
            return

        if state.quotes == 1 and value != '"':
            value = _escape_regex(value)
            prev.value += value
            state.output += value
            return

        if value == '"':
            state.quotes = 0 if state.quotes == 1 else 1
            return

        if value == "(":
            self.increment("parens")
            self.push(_Token("paren", value))
            return

        if value == ")":
            if self.extglobs and state.parens == self.extglobs[-1].parens + 1:
                self.extglob_close(self.extglobs.pop())
                return
            self.push(_Token("paren", value, ")" if state.parens else "\\)"))
            self.decrement("parens")
            return

        if value == "[":
            if "]" not in self.remaining():
                value = "\\" + value
            else:
                self.increment("brackets")
            self.push(_Token("bracket", value))
            return

        if value == "]":
            if prev.type == "bracket" and len(prev.value) == 1:
                self.push(_Token("text", value, "\\" + value))
                return
            if state.brackets == 0:
                self.push(_Token("text", value, "\\" + value))
                return
            self.decrement("brackets")
            body = prev.value[1:]
            if not prev.posix and body[:1] == "^" and "/" not in body:
                value = "/" + value  # a negated class never matches the separator
            prev.value += value
            state.output += value
            if _REGEX_SPECIAL.search(body):
                return
            # a class without regex characters may also match its own text literally
            escaped = _escape_regex(prev.value)
            state.output = state.output[: len(state.output) - len(prev.value)]
            prev.value = f"(?:{escaped}|{prev.value})"
            state.output += prev.value
            return

        if value == "{":
            self.increment("braces")
            brace = _Token(
                "brace", value, "(", output_index=len(state.output), tokens_index=len(state.tokens)
            )
            self.braces.append(brace)
            self.push(brace)
            return

        if value == "}":
            opening = self.braces[-1] if self.braces else None
            if opening is None:
                self.push(_Token("text", value, value))
                return
            output = ")"
            if opening.dots:
                values: list[str] = []
                for token in reversed(state.tokens[:]):
                    state.tokens.pop()
                    if token.type == "brace":
                        break
                    if token.type != "dots":
                        values.insert(0, token.value)
                output = _expand_range(values)
                state.backtrack = True
            if not opening.comma and not opening.dots:
                # not a set or a range after all: the braces are literal
                kept = state.output[: opening.output_index]
                later = state.tokens[opening.tokens_index :]
                opening.value = opening.output = "\\{"
                value = output = "\\}"
                state.output = kept
                for token in later:
                    state.output += token.output or token.value
            self.push(_Token("brace", value, output))
            self.decrement("braces")
            self.braces.pop()
            return

        if value == "|":
            self.push(_Token("text", value))  # left raw: it splits the regex it lands in
            return

        if value == ",":
            output = value
            if self.braces and self.stack and self.stack[-1] == "braces":
                self.braces[-1].comma = True
                output = "|"
            self.push(_Token("comma", value, output))
            return

        if value == "/":
            if prev.type == "dot" and state.index == state.start + 1:
                # a leading './' (after a negation too) is dropped
                state.start = state.index + 1
                state.output = ""
                state.tokens.pop()
                self.prev = self.bos
                return
            self.push(_Token("slash", value, _SLASH))
            return

        if value == ".":
            if state.braces > 0 and prev.type == "dot":
                if prev.value == ".":
                    prev.output = _DOT
                prev.type = "dots"
                prev.output = (prev.output or "") + value
                prev.value += value
                self.braces[-1].dots = True
                return
            if state.braces + state.parens == 0 and prev.type not in ("bos", "slash"):
                self.push(_Token("text", value, _DOT))
                return
            self.push(_Token("dot", value, _DOT))
            return

        if value == "?":
            if prev.value != "(" and self.peek() == "(" and self.peek(2) != "?":
                self.extglob_open(value)
                return
            if prev.type == "paren":
                following = self.peek()
                output = value
                if (prev.value == "(" and not re.match(r"[!=<:]", following)) or (
                    following == "<" and not re.search(r"<([!=]|\w+>)", self.remaining(), re.ASCII)
                ):
                    output = "\\" + value
                self.push(_Token("text", value, output))
                return
            if prev.type in ("slash", "bos"):
                self.push(_Token("qmark", value, _QMARK_NO_DOT))
                return
            self.push(_Token("qmark", value, _QMARK))
            return

        if value == "!":
            if self.peek() == "(" and (self.peek(2) != "?" or not re.match(r"[!=<:]", self.peek(3))):
                self.extglob_open(value)
                return
            if state.index == 0:
                self.negate()
                return

        if value == "+":
            if self.peek() == "(" and self.peek(2) != "?":
                self.extglob_open(value)
                return
            if prev.value == "(":
                self.push(_Token("plus", value, _PLUS))
                return
            if prev.type in ("bracket", "paren", "brace") or state.parens > 0:
                self.push(_Token("plus", value))
                return
            self.push(_Token("plus", _PLUS))
            return

        if value == "@":
            if self.peek() == "(" and self.peek(2) != "?":
                self.push(_Token("at", value, "", extglob=True))
                return
            self.push(_Token("text", value))
            return

        if value != "*":
            if value in ("$", "^"):
                value = "\\" + value
            run = _TEXT_RUN.match(self.remaining())
            if run:
                value += run.group()
                state.index += len(run.group())
            self.push(_Token("text", value))
            return

        self.star(value)

    def star(self, value: str) -> None:
        state = self.state
        prev = self.prev
        if prev.type == "globstar" or prev.star:
            # a third star: the run is a plain star again, and the output is rebuilt at the end
            prev.type = "star"
            prev.star = True
            prev.value += value
            prev.output = _STAR
            state.backtrack = True
            return
        rest = self.remaining()
        if re.match(r"\([^?]", rest):
            self.extglob_open(value)
            return
        if prev.type == "star":
            # the second star of `**`: a globstar only where it fills a whole segment
            prior = prev.prev
            assert prior is not None
            before = prior.prev
            at_segment_start = prior.type in ("slash", "bos")
            after_star = before is not None and before.type in ("star", "globstar")
            in_brace = state.braces > 0 and prior.type in ("comma", "brace")
            in_extglob = bool(self.extglobs) and prior.type in ("pipe", "paren")
            if not at_segment_start and prior.type != "paren" and not in_brace and not in_extglob:
                # `a**` is just `a*`
                self.push(_Token("star", value, ""))
                return
            # `**/**/...` collapses to one globstar
            while rest[:3] == "/**":
                after = state.text[state.index + 4] if state.index + 4 < len(state.text) else ""
                if after and after != "/":
                    break
                rest = rest[3:]
                state.index += 3
            prior_prev = prior.prev
            if prior.type == "bos" and self.eos():
                # the whole pattern is `**`
                prev.type = "globstar"
                prev.value += value
                prev.output = _GLOBSTAR
                state.output = _GLOBSTAR
                return
            if prior.type == "slash" and prior_prev is not None and prior_prev.type != "bos":
                if not after_star and self.eos():
                    # `a/**`: also matches `a` itself
                    cut = len(prior.output or "") + len(prev.output or "")
                    state.output = state.output[: len(state.output) - cut]
                    prior.output = "(?:" + (prior.output or "")
                    prev.type = "globstar"
                    prev.output = _GLOBSTAR + "|$)"
                    prev.value += value
                    state.output += prior.output + prev.output
                    return
                if rest[:1] == "/":
                    # `a/**/b`: zero or more segments between
                    end = "|$" if len(rest) > 1 else ""
                    cut = len(prior.output or "") + len(prev.output or "")
                    state.output = state.output[: len(state.output) - cut]
                    prior.output = "(?:" + (prior.output or "")
                    prev.type = "globstar"
                    prev.output = f"{_GLOBSTAR}{_SLASH}|{_SLASH}{end})"
                    prev.value += value
                    state.output += prior.output + prev.output
                    self.advance()
                    self.push(_Token("slash", "/", ""))
                    return
            if prior.type == "bos" and rest[:1] == "/":
                # `**/b`: b at any depth, including the top
                prev.type = "globstar"
                prev.value += value
                prev.output = f"(?:^|{_SLASH}|{_GLOBSTAR}{_SLASH})"
                state.output = prev.output
                self.advance()
                self.push(_Token("slash", "/", ""))
                return
            # otherwise a globstar for now; a following character turns it back (see push)
            state.output = state.output[: len(state.output) - len(prev.output or "")]
            prev.type = "globstar"
            prev.output = _GLOBSTAR
            prev.value += value
            state.output += _GLOBSTAR
            return

        token = _Token("star", value, _STAR)
        if state.index == state.start or prev.type in ("slash", "dot"):
            # a star starting a segment: no leading dot (dot: false), and at least one character
            guard = _NO_DOT_SLASH if prev.type == "dot" else _NO_DOT
            state.output += guard
            prev.output = (prev.output or "") + guard
            if self.peek() != "*":
                state.output += _ONE_CHAR
                prev.output += _ONE_CHAR
        self.push(token)

    def finish(self) -> None:
        state = self.state
        # unclosed brackets, parentheses and braces: escape the last opener in the output
        while state.brackets > 0:
            state.output = _escape_last(state.output, "[")
            self.decrement("brackets")
        while state.parens > 0:
            state.output = _escape_last(state.output, "(")
            self.decrement("parens")
        while state.braces > 0:
            state.output = _escape_last(state.output, "{")
            self.decrement("braces")
        if self.prev.type in ("star", "bracket"):
            self.push(_Token("maybe_slash", "", _SLASH + "?"))
        if state.backtrack:
            state.output = "".join(
                token.output if token.output is not None else token.value for token in state.tokens
            )


def _escape_last(text: str, char: str) -> str:
    at = text.rfind(char)
    while at > 0 and text[at - 1] == "\\":
        at = text.rfind(char, 0, at - 1)
    if at == -1:
        return text
    return text[:at] + "\\" + text[at:]


def _expand_range(values: list[str]) -> str:
    """A `{a..b}` brace: a character class of the sorted ends, if JavaScript accepts it."""
    ordered = sorted(values, key=lambda v: [ord(c) for c in v])
    source = "[" + "-".join(ordered) + "]"
    if js_regex_error(source) is not None:
        return "..".join(_escape_regex(v) for v in ordered)
    return source
