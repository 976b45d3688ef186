"""Which `- id:` entries of an eval file's text an edit touched, read from the lines alone:
shared by `collect` (tests that need no building) and `compare` (the causes of a change)."""

from __future__ import annotations

import difflib
import functools
import re

# `- id: name` (or `- "id": 'name'`): where a test's entry starts in an eval or cases file
_ENTRY = re.compile(r"""^(\s*)-\s+["']?id["']?\s*:\s*["']?([^"'#\n]*?)["']?\s*(?:#.*)?$""")


def _entries(lines: list[str]) -> list[tuple[int, int, str]] | None:
    """(first line, end line, test id) of each `- id:` entry; None when there is none."""
    starts = []
    for number, line in enumerate(lines):
        match = _ENTRY.match(line)
        if match:
            starts.append((number, len(match.group(1)), match.group(2)))
    if not starts:
        return None
    out = []
    for i, (first, indent, test_id) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(lines)
        for number in range(first + 1, end):
            text = lines[number]
            body = text.lstrip()
            if not body or body.startswith("#"):
                continue
            depth = len(text) - len(body)
            if depth < indent or (depth == indent and not body.startswith("-")):
                end = number  # back at the list's level or above: a suite-level key
                break
        out.append((first, end, test_id))
    return out


def entry_ids(text: str) -> list[str] | None:
    """The ids of the `- id:` entries of an eval file's text, in order (None when there is none)."""
    found = _entries(text.splitlines())
    return None if found is None else [test_id for _first, _end, test_id in found]


@functools.lru_cache(maxsize=8)  # asked by the rule of `collect` and by the causes, per file
def touched_entries(before: str, after: str) -> tuple[frozenset[str] | None, bool]:
    """The ids of the entries an edit touched, and whether it touched lines outside every entry."""
    old_lines, new_lines = before.splitlines(), after.splitlines()
    old_entries, new_entries = _entries(old_lines), _entries(new_lines)
    if old_entries is None or new_entries is None:
        return None, True
    touched: set[str] = set()
    suite_level = False

    def mark(entries: list[tuple[int, int, str]], first: int, last: int) -> None:
        nonlocal suite_level
        for line in range(first, max(last, first + 1)):
            owner = next((test_id for a, b, test_id in entries if a <= line < b), None)
            if owner is None:
                suite_level = True
            else:
                touched.add(owner)

    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            mark(old_entries, i1, i2)
            mark(new_entries, j1, j2)
    return frozenset(touched), suite_level
