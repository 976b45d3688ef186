"""Characters that hide text from a reviewer while the model still reads them.

Eval files are prompts: a character an editor does not show (or that makes it show text in
another order) reaches the model all the same. Three kinds are found, in runs:

- `bidi`: the explicit bidirectional controls LRE, RLE, PDF, LRO, RLO (U+202A–U+202E) and
  LRI, RLI, FSI, PDI (U+2066–U+2069), which reorder what an editor shows ("Trojan Source",
  CVE-2021-42574), and the marks LRM, RLM, ALM (U+200E, U+200F, U+061C);
- `tag`: the Unicode tag block U+E0000–U+E007F; U+E0020–U+E007E spell ASCII (code point
  minus 0xE0000) that no editor displays ("ASCII smuggling");
- `invisible`: every other Default_Ignorable_Code_Point (Unicode's list of characters that
  render as nothing) and every format character (general category Cf), except the prepended
  concatenation marks (U+0600–U+0605 and the like, which are drawn).

What legitimate text needs is not reported, by context, not by code point alone:
- a variation selector right after a visible character (emoji presentation, CJK variants);
  a run of them is reported (bytes can be smuggled in variation selectors);
- one ZWJ/ZWNJ between two visible non-ASCII characters (emoji sequences, Persian, Indic
  scripts); inside ASCII words, or several in a row, they are reported;
- LRM, RLM and ALM on a line that holds right-to-left letters (Hebrew, Arabic, …), where
  they are how such text is written; elsewhere they are reported as invisible marks;
- an emoji subdivision flag (U+1F3F4, 3–7 tag letters or digits, U+E007F CANCEL TAG);
- U+FEFF at the very start of a file (a byte order mark).

A bidi opener (LRE, RLE, LRO, RLO, LRI, RLI, FSI) not closed (PDF, PDI) before its segment
ends is "unbalanced": the reordering spills over what follows, the Trojan Source condition.
A segment ends at a line break (a bidi paragraph) and, in YAML, where a scalar starts or ends,
so an override cannot leak out of a string into a comment or the next key.

Allowing: per code point (`allow`), or everything; the in-file directive is a comment
`# agentv-lsp: allow-hidden U+200F U+200E` (or `allow-hidden all`, or `allow-hidden` alone).

This module is pure (no LSP types): the checkers turn runs into diagnostics, the language
server and the preview mark them.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agentv_lsp.checks.model import Diagnostic, Related, Severity
from agentv_lsp.yamlpos import Span, YamlDocument

Kind = Literal["bidi", "invisible", "tag"]
YamlPath = tuple[str | int, ...]

LRE, RLE, PDF, LRO, RLO = 0x202A, 0x202B, 0x202C, 0x202D, 0x202E
LRI, RLI, FSI, PDI = 0x2066, 0x2067, 0x2068, 0x2069
EMBEDDINGS = frozenset({LRE, RLE, LRO, RLO})
ISOLATES = frozenset({LRI, RLI, FSI})
BIDI_CONTROLS = EMBEDDINGS | ISOLATES | {PDF, PDI}
BIDI_MARKS = frozenset({0x200E, 0x200F, 0x061C})
ZWNJ, ZWJ = 0x200C, 0x200D
BOM = 0xFEFF
TAG_FIRST, TAG_LAST = 0xE0000, 0xE007F
CANCEL_TAG = 0xE007F
WAVING_BLACK_FLAG = 0x1F3F4

# DerivedCoreProperties.txt, Default_Ignorable_Code_Point (Unicode 15.1)
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
# PropList.txt, Prepended_Concatenation_Mark: format characters that are drawn
_PREPENDED_MARKS = frozenset({0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890, 0x0891})
_PREPENDED_MARKS |= {0x08E2, 0x110BD, 0x110CD}
# bidi paragraph separators (class B): a line of the text as an editor shows it
_PARAGRAPH_BREAKS = frozenset({0x0A, 0x0D, 0x1C, 0x1D, 0x1E, 0x85, 0x2029})


def _is_variation_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0x180B <= cp <= 0x180D or cp == 0x180F or 0xE0100 <= cp <= 0xE01EF


def is_default_ignorable(cp: int) -> bool:
    """Unicode's Default_Ignorable_Code_Point: what a renderer shows as nothing."""
    return any(lo <= cp <= hi for lo, hi in _DEFAULT_IGNORABLE)


def is_hidden(cp: int) -> bool:
    """A character this module reports (before context and allow-lists)."""
    if cp < 0xAD:
        return False
    if is_default_ignorable(cp):
        return True
    return cp not in _PREPENDED_MARKS and unicodedata.category(chr(cp)) == "Cf"


def kind_of(cp: int) -> Kind:
    if TAG_FIRST <= cp <= TAG_LAST:
        return "tag"
    if cp in BIDI_CONTROLS:
        return "bidi"
    return "invisible"


def code_point_name(cp: int) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE` (unassigned: `U+E0080 (unassigned)`)."""
    name = unicodedata.name(chr(cp), "")
    if not name and 0xE0100 <= cp <= 0xE01EF:
        name = f"VARIATION SELECTOR-{cp - 0xE0100 + 17}"
    return f"U+{cp:04X} {name}" if name else f"U+{cp:04X} (unassigned)"


@dataclass(frozen=True, slots=True)
class HiddenRun:
    """A run of reported characters of one kind: `text[start:end]` of the scanned string."""

    start: int
    end: int
    kind: Kind
    code_points: tuple[int, ...]
    unbalanced: tuple[int, ...] = ()  # bidi openers in this run that nothing closes

    @property
    def hidden_text(self) -> str:
        """The ASCII that tag characters spell (U+E0020–U+E007E), in order."""
        return "".join(chr(cp - TAG_FIRST) for cp in self.code_points if 0xE0020 <= cp <= 0xE007E)


def _visible(cp: int | None) -> bool:
    return cp is not None and not is_hidden(cp) and not chr(cp).isspace()


def _is_rtl_letter(char: str) -> bool:
    return unicodedata.category(char)[0] == "L" and unicodedata.bidirectional(char) in ("R", "AL")


def _rtl_lines(chars: Sequence[int]) -> set[int]:
    """Indices of lines (split at paragraph breaks) that hold a right-to-left letter."""
    found: set[int] = set()
    line = 0
    for cp in chars:
        if cp in _PARAGRAPH_BREAKS:
            line += 1
        elif cp >= 0x590 and line not in found and _is_rtl_letter(chr(cp)):
            found.add(line)
    return found


def _legitimate(chars: Sequence[int], allow: frozenset[int], at_file_start: bool) -> list[bool]:
    """For each hidden character: whether its context makes it ordinary text."""
    n = len(chars)
    ok = [False] * n
    rtl = _rtl_lines(chars) if any(cp in BIDI_MARKS for cp in chars) else set()
    line = 0
    i = 0
    while i < n:
        cp = chars[i]
        if cp in _PARAGRAPH_BREAKS:
            line += 1
        elif cp in allow or (cp == BOM and i == 0 and at_file_start):
            ok[i] = True
        elif _is_variation_selector(cp):
            before = chars[i - 1] if i else None
            after = chars[i + 1] if i + 1 < n else None
            ok[i] = _visible(before) and not (after is not None and _is_variation_selector(after))
        elif cp in (ZWJ, ZWNJ):
            j = i - 1
            while j >= 0 and _is_variation_selector(chars[j]) and ok[j]:
                j -= 1
            before = chars[j] if j >= 0 else None
            after = chars[i + 1] if i + 1 < n else None
            ok[i] = _visible(before) and _visible(after) and before is not None and before > 0x7F
            ok[i] = ok[i] and after is not None and after > 0x7F
        elif cp in BIDI_MARKS:
            ok[i] = line in rtl
        elif cp == WAVING_BLACK_FLAG:
            j = i + 1
            while j < n and (0xE0061 <= chars[j] <= 0xE007A or 0xE0030 <= chars[j] <= 0xE0039):
                j += 1
            if 3 <= j - i - 1 <= 7 and j < n and chars[j] == CANCEL_TAG:
                for k in range(i + 1, j + 1):
                    ok[k] = True
                i = j
        i += 1
    return ok


def _unclosed_openers(chars: Sequence[int], boundaries: frozenset[int]) -> set[int]:
    """Indices of bidi openers not closed before their segment ends (UAX #9 pairing: PDF
    closes the last embedding/override inside the current isolate, PDI the last isolate)."""
    unclosed: set[int] = set()
    stack: list[int] = []
    for i, cp in enumerate(chars):
        if i in boundaries or cp in _PARAGRAPH_BREAKS:
            unclosed.update(stack)
            stack.clear()
            if cp in _PARAGRAPH_BREAKS:
                continue
        if cp in EMBEDDINGS or cp in ISOLATES:
            stack.append(i)
        elif cp == PDF:
            if stack and chars[stack[-1]] in EMBEDDINGS:
                stack.pop()
        elif cp == PDI:
            isolate = next((k for k in range(len(stack) - 1, -1, -1) if chars[stack[k]] in ISOLATES), None)
            if isolate is not None:
                del stack[isolate:]
    unclosed.update(stack)
    return unclosed


# A superset of the reported characters (format characters and default-ignorables): texts
# without any are skipped at regex speed; the rest is decided by `is_hidden`.
_CANDIDATE = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001345f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_BREAK = re.compile("[\n\r\x1c-\x1e\x85\u2029]")


def _lines_holding(text: str, offsets: Iterable[int]) -> list[tuple[int, int]]:
    """The (start, end) of each line (bidi paragraph) holding one of `offsets`, in order."""
    breaks = [m.start() for m in _BREAK.finditer(text)]
    found: dict[int, int] = {}
    for offset in offsets:
        k = bisect.bisect_left(breaks, offset)
        start = breaks[k - 1] + 1 if k else 0
        found.setdefault(start, breaks[k] if k < len(breaks) else len(text))
    return sorted(found.items())


# Past this length `may_hide` drops the ASCII bytes before searching.
_LONG_TEXT = 16_384
_ASCII_BYTES = bytes(range(0x80))


def may_hide(text: str) -> bool:
    """False when `text` has no character `find_hidden_runs` could report (C-speed scans)."""
    if text.isascii():
        return False
    if len(text) > _LONG_TEXT:
        # A regex over a few megabytes of prose costs tens of milliseconds; encoding, dropping
        # the ASCII bytes and decoding what is left costs a few. Every candidate is beyond
        # ASCII, and a UTF-8 sequence holds no ASCII byte, so what is left is exactly the
        # characters beyond ASCII, in order.
        text = (
            text.encode("utf-8", "surrogatepass")
            .translate(None, _ASCII_BYTES)
            .decode("utf-8", "surrogatepass")
        )
    return _CANDIDATE.search(text) is not None


def _candidate_offsets(text: str) -> list[int]:
    """Where `text` has a character `find_hidden_runs` could report."""
    return [m.start() for m in _CANDIDATE.finditer(text)] if may_hide(text) else []


def find_hidden_runs(
    text: str | Sequence[int],
    *,
    allow: Iterable[int] = (),
    boundaries: Iterable[int] = (),
    at_file_start: bool = False,
) -> list[HiddenRun]:
    """Runs of reported characters in `text` (a string or its code points), split by kind.
    `boundaries`: indices where a new segment starts, for the bidi balance (line breaks
    always end one). `at_file_start`: `text` is a whole file (a leading BOM is fine).
    Every rule holds within a line, so a string is scanned only on the lines that need it."""
    allowed = frozenset(allow)
    if not isinstance(text, str):
        return _runs_in(list(text), allowed, frozenset(boundaries), at_file_start)
    # every reported character is beyond ASCII: most texts are cleared by one C-speed test
    candidates = _candidate_offsets(text)
    if not candidates:
        return []
    edges = sorted(set(boundaries))
    out: list[HiddenRun] = []
    for start, end in _lines_holding(text, candidates):
        chars = [ord(c) for c in text[start:end]]
        local = frozenset(
            b - start for b in edges[bisect.bisect_left(edges, start) : bisect.bisect_left(edges, end)]
        )
        for run in _runs_in(chars, allowed, local, at_file_start and start == 0):
            out.append(
                HiddenRun(run.start + start, run.end + start, run.kind, run.code_points, run.unbalanced)
            )
    return out


def _runs_in(
    chars: list[int], allow: frozenset[int], boundaries: frozenset[int], at_file_start: bool
) -> list[HiddenRun]:
    hidden = [is_hidden(cp) for cp in chars]
    if not any(hidden):
        return []
    ok = _legitimate(chars, allow, at_file_start)
    unclosed = _unclosed_openers(chars, boundaries)
    runs: list[HiddenRun] = []
    start: int | None = None
    for i in range(len(chars) + 1):
        flagged = i < len(chars) and hidden[i] and not ok[i]
        if start is not None and (not flagged or kind_of(chars[i]) != kind_of(chars[start])):
            cps = tuple(chars[start:i])
            openers = tuple(chars[k] for k in range(start, i) if k in unclosed)
            runs.append(HiddenRun(start, i, kind_of(cps[0]), cps, openers))
            start = None
        if flagged and start is None:
            start = i
    return runs


def mark_hidden(text: str, *, allow: Iterable[int] = ()) -> str:
    """`text` with each reported character written as `⟦U+202E⟧` (hover, terminal preview)."""
    runs = find_hidden_runs(text, allow=allow)
    if not runs:
        return text
    out: list[str] = []
    last = 0
    chars = list(text)
    for run in runs:
        out.append("".join(chars[last : run.start]))
        out.append("".join(f"⟦U+{cp:04X}⟧" for cp in run.code_points))
        last = run.end
    out.append("".join(chars[last:]))
    return "".join(out)


HOVER_NOTE = (
    "⟦U+…⟧ marks a hidden character: editors show nothing (or reorder the text) there, the model receives it."
)


def marked_with_note(text: str) -> tuple[str, str]:
    """`mark_hidden(text)` and, when something was marked, a markdown note saying what ⟦…⟧ is."""
    marked = mark_hidden(text)
    return marked, (f"\n\n*{HOVER_NOTE}*" if marked != text else "")


def shorten(text: str, limit: int = 60) -> str:
    """Hidden ASCII quoted for a one-line message: escapes for anything unprintable."""
    escaped = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return escaped if len(escaped) <= limit else escaped[: limit - 1] + "…"


def describe_run(run: HiddenRun) -> str:
    """`U+200B ZERO WIDTH SPACE ×3, U+200D ZERO WIDTH JOINER` (at most four names)."""
    counts: dict[int, int] = {}
    for cp in run.code_points:
        counts[cp] = counts.get(cp, 0) + 1
    names = [code_point_name(cp) + (f" ×{n}" if n > 1 else "") for cp, n in counts.items()]
    if len(names) > 4:
        names = [*names[:4], f"and {len(names) - 4} more"]
    return ", ".join(names)


# -- the in-file directive -------------------------------------------------------------------

_DIRECTIVE = re.compile(r"#\s*agentv-lsp:\s*allow-hidden\b([^\n\r]*)")
_CODE_POINT = re.compile(r"U\+([0-9A-Fa-f]{4,6})(?:\s*(?:-|\.\.)\s*U\+([0-9A-Fa-f]{4,6}))?")


@dataclass(frozen=True, slots=True)
class AllowList:
    """What may stay: code points, or everything (`all`)."""

    code_points: frozenset[int] = frozenset()
    everything: bool = False

    def merged(self, other: AllowList) -> AllowList:
        return AllowList(self.code_points | other.code_points, self.everything or other.everything)


def parse_allow_items(items: Iterable[str]) -> AllowList:
    """Setting / flag values: `U+200F`, `U+2066..U+2069`, `all`."""
    points: set[int] = set()
    everything = False
    for item in items:
        if not isinstance(item, str):
            continue
        if item.strip().lower() in ("all", "*"):
            everything = True
        for m in _CODE_POINT.finditer(item):
            lo = int(m.group(1), 16)
            hi = int(m.group(2), 16) if m.group(2) else lo
            if lo <= hi <= 0x10FFFF and hi - lo <= 0x10000:
                points.update(range(lo, hi + 1))
    return AllowList(frozenset(points), everything)


def has_allow_directive(text: str) -> bool:
    # the substring test first: far faster than the pattern's scan on non-ASCII text
    return "agentv-lsp:" in text and _DIRECTIVE.search(text) is not None


def directive_allow_list(text: str) -> AllowList:
    """`# agentv-lsp: allow-hidden …` comments anywhere in the text (alone: everything)."""
    found = AllowList()
    if "agentv-lsp:" not in text:
        return found  # (see has_allow_directive)
    for m in _DIRECTIVE.finditer(text):
        rest = m.group(1)
        listed = parse_allow_items(rest.split())
        if not listed.code_points and not listed.everything:
            listed = AllowList(everything=True)
        found = found.merged(listed)
    return found


# -- YAML and JSON Lines sources ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceRun:
    """A run found in a source text, with its exact range there (offsets in code points)."""

    run: HiddenRun
    start: int
    end: int
    span: Span
    escaped: bool  # written as escapes (`"\u202e"`): visible in the editor, read by the model
    yaml_path: YamlPath = ()  # the scalar (key or value) holding it; () in a comment


def _escape_at(text: str, i: int, end: int, json: bool) -> tuple[int, int] | None:
    """The code point and length of a `\\x..`, `\\u....` or `\\U........` escape at `i`."""
    kind = text[i + 1] if i + 1 < end else ""
    width = {"x": 2, "u": 4, "U": 8}.get(kind, 0) if not json else (4 if kind == "u" else 0)
    digits = text[i + 2 : i + 2 + width]
    if not width or len(digits) != width or i + 2 + width > end:
        return None
    try:
        cp = int(digits, 16)
    except ValueError:
        return None
    length = 2 + width
    if 0xD800 <= cp <= 0xDBFF and text[i + length : i + length + 2] == "\\u":
        low_digits = text[i + length + 2 : i + length + 6]
        try:
            low = int(low_digits, 16) if len(low_digits) == 4 else -1
        except ValueError:
            low = -1
        if 0xDC00 <= low <= 0xDFFF and i + length + 6 <= end:
            return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00), length + 6
    return (cp, length) if cp <= 0x10FFFF else None


def _scalar_ranges(
    doc: YamlDocument | None, windows: list[tuple[int, int]]
) -> tuple[list[tuple[int, int, YamlPath]], list[tuple[int, int]]]:
    """Source ranges of the scalars that overlap `windows` (sorted, disjoint ranges: the lines
    that need looking at), with their JSON paths (a key's path is its entry's), and the
    double-quoted ones among them. An alias's target is walked once, at its anchor; a
    collection outside every window is not entered (a large file has few such lines)."""
    ranges: list[tuple[int, int, YamlPath]] = []
    quoted: list[tuple[int, int]] = []
    if doc is None or doc.root is None or not windows:
        return ranges, quoted
    window_starts = [w[0] for w in windows]

    def overlaps(start: int, end: int) -> bool:
        k = bisect.bisect_right(window_starts, end) - 1  # the last window starting at or before `end`
        return k >= 0 and windows[k][1] >= start

    seen: set[int] = set()
    stack: list[tuple[Any, YamlPath]] = [(doc.root, ())]
    while stack:
        node, where = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        start, end = node.start_mark.index, node.end_mark.index
        if not overlaps(start, end):
            continue
        if isinstance(node.value, str):
            ranges.append((start, end, where))
            if getattr(node, "style", None) == '"':
                quoted.append((start, end))
        elif isinstance(node.value, list):
            for i, item in enumerate(node.value):
                if isinstance(item, tuple):
                    key, value = item
                    name = key.value if isinstance(key.value, str) else str(i)
                    stack.extend(((key, (*where, name)), (value, (*where, name))))
                else:
                    stack.append((item, (*where, i)))
    ranges.sort(key=lambda r: (r[0], r[1]))
    return ranges, quoted


def _path_at(ranges: list[tuple[int, int, YamlPath]], starts: list[int], offset: int) -> YamlPath:
    """The path of the scalar holding `offset` (none: a comment or YAML syntax)."""
    lo, hi = 0, len(starts)
    while lo < hi:  # the last scalar starting at or before `offset`
        mid = (lo + hi) // 2
        if starts[mid] <= offset:
            lo = mid + 1
        else:
            hi = mid
    if lo and ranges[lo - 1][0] <= offset < ranges[lo - 1][1]:
        return ranges[lo - 1][2]
    return ()


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _line_starts(text: str) -> list[int]:
    """Offsets where lines start (LF, CRLF, CR: as editors and the LSP count lines)."""
    return [0, *(m.end() for m in _LINE_BREAK.finditer(text))]


def _position(starts: list[int], offset: int) -> tuple[int, int]:
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo, offset - starts[lo]


def scan_source(
    text: str, doc: YamlDocument | None, *, allow: AllowList = AllowList(), json_lines: bool = False
) -> list[SourceRun]:
    """Every run in a YAML (or, `json_lines`, JSON Lines) source: in values, keys and
    comments as written, and in the escapes of double-quoted scalars (JSON strings), each at
    its exact range."""
    if allow.everything:
        return []
    raw = _candidate_offsets(text)
    escapes = [
        m.start() for m in _HIDDEN_ESCAPE.finditer(text) if _escaped_hidden(text, m.start(), json_lines)
    ]
    if not raw and not escapes:
        return []
    lines = _lines_holding(text, sorted({*raw, *escapes}))
    scalars, quoted = _scalar_ranges(None if json_lines else doc, lines)
    if json_lines:
        quoted = [(0, len(text))]
    quoted.sort()
    edges = sorted({e for start, end, _where in scalars for e in (start, end)})
    starts = _line_starts(text)
    scalar_starts = [r[0] for r in scalars]
    out: list[SourceRun] = []
    for line_start, line_end in lines:
        view, origin, escaped = _decoded_line(text, line_start, line_end, quoted, json_lines)
        local = [k for k, (at, _e) in enumerate(origin) if _contains(edges, at)]
        first = line_start == 0
        for run in find_hidden_runs(view, allow=allow.code_points, boundaries=local, at_file_start=first):
            start, end = origin[run.start][0], origin[run.end - 1][1]
            a, b = _position(starts, start), _position(starts, end)
            where = _path_at(scalars, scalar_starts, start)
            shown = any(escaped[run.start : run.end])
            out.append(SourceRun(run, start, end, Span(a[0], a[1], b[0], b[1]), shown, where))
    return out


_HIDDEN_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def _escaped_hidden(text: str, at: int, json_lines: bool) -> bool:
    """Whether the escape at `at` decodes to a reported character (whether it is inside a
    double-quoted scalar is decided later, only for the lines that have one)."""
    decoded = _escape_at(text, at, len(text), json_lines)
    return decoded is not None and is_hidden(decoded[0])


def _contains(sorted_values: list[int], value: int) -> bool:
    k = bisect.bisect_left(sorted_values, value)
    return k < len(sorted_values) and sorted_values[k] == value


def _decoded_line(
    text: str, start: int, end: int, quoted: list[tuple[int, int]], json_lines: bool
) -> tuple[list[int], list[tuple[int, int]], list[bool]]:
    """One line as the model reads it: one code point per source character, or per escape of
    a reported character inside a double-quoted scalar; with each one's source range."""
    view: list[int] = []
    origin: list[tuple[int, int]] = []
    escaped: list[bool] = []
    q = max(0, bisect.bisect_right(quoted, (start, len(text) + 1)) - 1)
    i = start
    while i < end:
        while q < len(quoted) and quoted[q][1] <= i:
            q += 1
        inside = q < len(quoted) and quoted[q][0] <= i < quoted[q][1]
        if inside and text[i] == "\\":
            decoded = _escape_at(text, i, quoted[q][1], json_lines)
            if decoded is not None and is_hidden(decoded[0]):
                view.append(decoded[0])
                origin.append((i, i + decoded[1]))
                escaped.append(True)
                i += decoded[1]
                continue
            width = 2 if i + 1 < end else 1  # `\\` and `\"` stay together, so `\\u202e` is text
            for k in range(i, i + width):
                view.append(ord(text[k]))
                origin.append((k, k + 1))
                escaped.append(False)
            i += width
            continue
        view.append(ord(text[i]))
        origin.append((i, i + 1))
        escaped.append(False)
        i += 1
    return view, origin, escaped


# -- diagnostics ------------------------------------------------------------------------------

HIDDEN_CODES = ("hidden-bidi", "hidden-invisible", "hidden-tag", "bidi-unbalanced")
_ALLOW_HINT = "allow it with a `# agentv-lsp: allow-hidden {points}` comment or the allow-hidden setting"


def as_errors(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics with every hidden-character finding made an error (`check
    --hidden-as-error`: a CI that treats them as security failures)."""
    return [
        dataclasses.replace(d, severity="error") if d.code in HIDDEN_CODES and d.severity != "error" else d
        for d in diagnostics
    ]


def _points(run: HiddenRun) -> str:
    return " ".join(dict.fromkeys(f"U+{cp:04X}" for cp in run.code_points))


def run_message(
    run: HiddenRun, *, where: str = "", escaped: bool = False, fixable: bool = True
) -> tuple[str, Severity, str]:
    """Code, severity and message for one run (`where`: e.g. "The referenced file guide.md,
    line 3, column 5: "); `fixable`: the quick fix can remove it (it is in this file)."""
    names = describe_run(run)
    fix = " (quick fix)" if fixable else ""
    allow = _ALLOW_HINT.format(points=_points(run))
    shown = (
        " It is written as an escape, so the editor shows it, but the model receives the character itself."
        if escaped
        else ""
    )
    if run.unbalanced and not escaped:
        openers = ", ".join(dict.fromkeys(code_point_name(cp) for cp in run.unbalanced))
        return (
            "bidi-unbalanced",
            "warning",  # the runtime loads the file and validate passes it: `check --hidden-as-error`
            f"{where}{openers} is not closed (by U+202C POP DIRECTIONAL FORMATTING or U+2069 POP DIRECTIONAL "
            "ISOLATE) before this value or line ends, so what follows is displayed reordered: a reviewer reads "
            f"other text than the model gets (Trojan Source, CVE-2021-42574).{shown} Remove it{fix}, or "
            f"{allow}.",
        )
    if run.kind == "tag":
        spelled = run.hidden_text
        says = f" spelling hidden text '{shorten(spelled)}'" if spelled else ""
        return (
            "hidden-tag",
            "warning",
            f"{where}{len(run.code_points)} Unicode tag character{'s' if len(run.code_points) != 1 else ''}"
            f"{says} ({describe_run(run)}): editors show nothing, the model reads it.{shown} Remove "
            f"{'them' if len(run.code_points) != 1 else 'it'}{fix}, or {allow}.",
        )
    if run.kind == "bidi":
        return (
            "hidden-bidi",
            "warning",
            f"{where}Bidirectional control {names}: editors show the text around it reordered, the model reads "
            f"it in stored order.{shown} Remove it{fix}, or {allow}.",
        )
    return (
        "hidden-invisible",
        "warning",
        f"{where}Invisible character{'s' if len(run.code_points) != 1 else ''} {names}: editors show nothing "
        f"here, the model reads {'them' if len(run.code_points) != 1 else 'it'}.{shown} Remove "
        f"{'them' if len(run.code_points) != 1 else 'it'}{fix}, or {allow}.",
    )


def _run_data(run: HiddenRun) -> dict[str, Any]:
    distinct = [f"U+{cp:04X}" for cp in dict.fromkeys(run.code_points)]
    data: dict[str, Any] = {"code_points": distinct, "count": len(run.code_points), "kind": run.kind}
    if run.kind == "tag":
        data["hidden_text"] = run.hidden_text
    return data


def source_diagnostics(
    path: str, text: str, doc: YamlDocument | None, allow: AllowList, *, json_lines: bool = False
) -> list[Diagnostic]:
    """One diagnostic per run in the file's own text, at its exact range, with a removal fix."""
    allow = allow.merged(directive_allow_list(text)) if not json_lines else allow
    out: list[Diagnostic] = []
    for found in scan_source(text, doc, allow=allow, json_lines=json_lines):
        code, severity, message = run_message(found.run, escaped=found.escaped)
        data = _run_data(found.run)
        data["fix"] = "remove-hidden"
        out.append(Diagnostic(path, found.span, severity, code, message, found.yaml_path, data))
    return out


def file_reference_diagnostics(
    path: str,
    span_of: Callable[[tuple[str | int, ...]], Span],
    text: str,
    references: Iterable[tuple[tuple[str | int, ...], str, str, str]],
    allow: AllowList,
) -> list[Diagnostic]:
    """Runs in referenced files the prompt inlines, each reported on its reference: items are
    (YAML path of the reference's value, resolved file, path as written, the file's text)."""
    allow = allow.merged(directive_allow_list(text))
    out: list[Diagnostic] = []
    seen: set[tuple[tuple[str | int, ...], str]] = set()
    for yaml_path, file, shown, content in references:
        if (yaml_path, file) in seen:
            continue
        seen.add((yaml_path, file))
        out.extend(
            referenced_file_diagnostics(path, span_of(yaml_path), yaml_path, file, shown, content, allow)
        )
    return out


def file_segment_paths(
    value: Any, base: tuple[str | int, ...] = ()
) -> list[tuple[tuple[str | int, ...], str]]:
    """Every `{type: file, value: "..."}` mapping under `value`: (path of its value, the value)."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[Any, tuple[str | int, ...], int]] = [(value, base, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > 200:
            continue
        if isinstance(item, dict):
            if item.get("type") == "file" and isinstance(item.get("value"), str):
                found.append(((*where, "value"), item["value"]))
            stack.extend((v, (*where, k), depth + 1) for k, v in item.items() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend(
                (v, (*where, i), depth + 1) for i, v in enumerate(item) if isinstance(v, dict | list)
            )
    found.reverse()
    return found


def referenced_file_diagnostics(
    path: str,
    span: Span,
    yaml_path: tuple[str | int, ...],
    file: str,
    shown: str,
    content: str,
    allow: AllowList,
) -> list[Diagnostic]:
    """Runs in a file whose text the prompt inlines: one diagnostic per kind on the reference
    (the first run's place in the message, every run as related information)."""
    if allow.everything:
        return []
    runs = find_hidden_runs(content, allow=allow.code_points)
    if not runs:
        return []
    starts = _line_starts(content)
    by_code: dict[str, list[tuple[HiddenRun, Span]]] = {}
    for run in runs:
        a, b = _position(starts, run.start), _position(starts, run.end)
        code = "bidi-unbalanced" if run.unbalanced else f"hidden-{run.kind}"
        by_code.setdefault(code, []).append((run, Span(a[0], a[1], b[0], b[1])))
    out: list[Diagnostic] = []
    for _code, found in by_code.items():
        run, where = found[0]
        more = (
            f" ({len(found) - 1} more run{'s' if len(found) > 2 else ''} in that file)"
            if len(found) > 1
            else ""
        )
        code, severity, message = run_message(
            run,
            where=f"The referenced file {shown}, line {where.start_line + 1}, column {where.start_col + 1}{more}: ",
            fixable=False,
        )
        related = tuple(Related(file, s, run_message(r)[2]) for r, s in found[:20])
        data = _run_data(run)
        data["file"] = file
        out.append(Diagnostic(path, span, severity, code, message, yaml_path, data, related))
    return out


__all__ = [
    "HIDDEN_CODES",
    "AllowList",
    "HiddenRun",
    "SourceRun",
    "as_errors",
    "code_point_name",
    "describe_run",
    "directive_allow_list",
    "find_hidden_runs",
    "is_hidden",
    "kind_of",
    "mark_hidden",
    "parse_allow_items",
    "referenced_file_diagnostics",
    "run_message",
    "scan_source",
    "source_diagnostics",
]
