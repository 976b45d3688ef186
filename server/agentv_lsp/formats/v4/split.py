"""One large AgentV 4.x eval file checked in several processes, with exactly the whole-text result.

The file is cut at test boundaries (the `tests:` block sequence, found from the text as
`checks.layout` does for v2). Each part is the file's head, then one blank line for every
line of the tests before the part, then the part's tests: an eval file of its own whose
lines and columns are those of the whole file, checked by `check_v4_document` in its own
process. Only the test indices differ: a part's diagnostics about its tests are moved back
to the file's indices (their `yaml_path`, and `tests[N]` in messages and data).

The cut is taken only where the tests cannot see each other; anything else is checked
whole (`check_split_v4` returns None):
- before cutting: no `tests[` anywhere in the text (so every `tests[N]` in a message is
  ours to renumber), no CR, nothing after the tests (the tail), no anchors or aliases
  (looked for by each part in its own tests);
- a part that does not parse into exactly its tests, each a mapping with a string id inside
  its own lines (a test without id is named after its index);
- a part where the runtime cannot load the file, or a diagnostic that compares tests
  (`CROSS_TEST_CODES`), or an internal error;
- a runtime message placed nowhere in the file (tests may print it once each);
- diagnostics about the file (not inside one test) that differ between parts; a test id
  used in two parts; parts that disagree on whether `agentv validate` checked the file
  references (it checks them only when the whole file has no error).
The parts, the merge and the orchestration are the shared skeleton (`checks/parts.py`);
this module cuts the tests, checks one part and renumbers its diagnostics.
`tests/unit/test_v4_split.py` compares both ways on the golden files and on random edits.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Any

from yaml.nodes import SequenceNode

from agentv_lsp.checks.layout import Layout, cut_list
from agentv_lsp.checks.model import Diagnostic, Related
from agentv_lsp.checks.options import CheckOptions, DocumentReport
from agentv_lsp.checks.parallel import ParallelMap
from agentv_lsp.checks.parts import (
    INEXACT,
    Part,
    anchored,
    bounds,
    check_parts,
    chunks_text,
    part_weights,
    sort_out,
)
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys

# Below this size one process is faster than forking and checking the head in every part.
SPLIT_MIN_BYTES = 256 * 1024

# Parts per process (`part_weights`): a free process takes the next part, so a slower one
# takes fewer.
PARTS_PER_PROCESS = 3

# Diagnostics that look at several tests at once: a part cannot say them as the whole would.
CROSS_TEST_CODES = frozenset(
    {
        "v4-lint-repeated-file",  # "every test reads …"
        "v4-lint-test-id",  # proposes an id no other test has
        "v4-loss-tests-loaded-twice",  # "already loaded by entry N"
        "v4-internal-error",
    }
)

_CANNOT_LOAD = "cannot load this eval file"


@dataclass(frozen=True, slots=True)
class _Names:
    """What the cut looks for, by a key table's name for the tests."""

    tests: str
    index: str  # `tests[`, as messages name a test
    tests_key: re.Pattern[str]  # a line starting with any key that holds the tests
    tests_line: re.Pattern[str]  # the `tests:` line itself, "\n" first
    test_index: re.Pattern[str]  # `tests[N]` in a message


@functools.cache
def _names(keys: Keys) -> _Names:
    tests = re.escape(keys.tests)
    any_key = "|".join(re.escape(k) for k in keys.test_list_keys())
    return _Names(
        keys.tests,
        f"{keys.tests}[",
        re.compile(rf"[\"']?(?:{any_key})[\"']?[ \t]*:"),
        re.compile(rf"\n{tests}[ \t]*:[ \t]*(?:#[^\n]*)?\n"),
        re.compile(rf"(?<![\w.\[]){tests}\[(\d+)\]"),
    )


def cut_tests(text: str, keys: Keys = V4_KEYS) -> Layout | None:
    """The tests of a block-style top-level `tests:` sequence that ends the file, or None."""
    if "\r" in text:
        return None
    names = _names(keys)
    return cut_list(text, names.tests_key, names.tests_line, markers=("- ", "-\n", "-"), tail_allowed=False)


def plan(text: str, parts: int, min_bytes: int = SPLIT_MIN_BYTES, keys: Keys = V4_KEYS) -> Layout | None:
    """The layout to split `text` by, or None when it should be checked whole."""
    if parts < 2 or len(text) < min_bytes or _names(keys).index in text:
        return None
    layout = cut_tests(text, keys)
    if layout is None or len(layout.offsets) < parts:
        return None
    return layout


# The reports of the parts this process checked: freeing a YAML tree object by object takes
# about 15 ms at 2,500 tests, so they are left to the end of the process (a forked child
# leaves with os._exit, the CLI exits hard). Together the processes hold at most the trees
# of the whole file, as one process checking it whole would; the next file frees them.
_parts_kept: list[DocumentReport] = []


def part_text(layout: Layout, a: int, b: int) -> str:
    """The head, a blank line per line of the tests before `a`, then tests [a, b)."""
    gap = layout.lines[a] - layout.lines[0]
    return layout.head + "\n" * gap + chunks_text(layout, a, b)


def check_part(path: str, layout: Layout, a: int, b: int, opts: CheckOptions, keys: Keys = V4_KEYS) -> Part:
    """Check tests [a, b) of the file as an eval file of their own."""
    from agentv_lsp.formats.v4.check import check_v4_document

    if anchored(layout, a, b):  # the tail is empty: `cut_tests` allows none
        return INEXACT
    report = check_v4_document(path, part_text(layout, a, b), opts, keys=keys)
    _parts_kept.append(report)
    ids = _exact_ids(report, layout, a, b, keys)
    if ids is None:
        return INEXACT
    names = _names(keys)
    tests, index = names.tests, names.index

    def place(d: Diagnostic) -> tuple[Diagnostic, bool] | None:
        if d.code in CROSS_TEST_CODES or d.code.startswith("v4-yaml-") or _CANNOT_LOAD in d.message:
            return None
        p = d.yaml_path
        if d.file == path and len(p) >= 2 and p[0] == tests and isinstance(p[1], int):
            return (_renumber(d, a, names) if a else d), True
        if index in d.message or index in repr(d.data) or any(index in r.message for r in d.related):
            return None  # about a test, yet not placed in one: its index may be the part's
        if not p and d.data.get("runtime"):
            # a runtime message placed nowhere (e.g. about a file the suite or a test reads): one
            # per test that prints it, so the parts cannot say how many the whole file has
            return None
        return d, False

    moved = sort_out(report.diagnostics, place)
    if moved is None:
        return INEXACT
    local, header = moved
    return Part(True, local, header, ids, report.file_references_checked, tuple(report.uses))


def _exact_ids(report: DocumentReport, layout: Layout, a: int, b: int, keys: Keys) -> list[str] | None:
    """The ids of the part's tests, when it parsed into exactly them (else None)."""
    doc = report.doc
    if report.kind != "eval" or doc is None or doc.error is not None or not isinstance(doc.value, dict):
        return None
    if any(k in doc.value for k in keys.deprecated_tests):
        return None
    tests = doc.value.get(keys.tests)
    node = doc.node_at((keys.tests,))
    if not isinstance(tests, list) or not isinstance(node, SequenceNode) or len(tests) != b - a:
        return None
    ids: list[str] = []
    for i, (test, item) in enumerate(zip(tests, node.value, strict=True)):
        test_id = test.get(keys.id) if isinstance(test, dict) else None
        if not isinstance(test_id, str) or not test_id.strip():
            return None
        start, stop = layout.lines[a + i], layout.end_line(a + i)
        if not start <= item.start_mark.line < stop or item.end_mark.line > stop:
            return None
        ids.append(test_id)
    return ids


def _renumber(d: Diagnostic, shift: int, names: _Names) -> Diagnostic:
    """`d` with its test index moved by `shift` (path, messages, data)."""
    index = d.yaml_path[1]
    assert isinstance(index, int)  # a local diagnostic's path is ("tests", N, ...)
    path = (names.tests, index + shift, *d.yaml_path[2:])
    if not d.related and not d.data and names.index not in d.message:
        # the common case (thousands per part): only the path moves
        return Diagnostic(d.file, d.span, d.severity, d.code, d.message, path, {}, (), d.unnecessary)
    return dataclasses.replace(
        d,
        message=_shift_text(d.message, shift, names),
        yaml_path=path,
        data=_shift_data(d.data, shift, names),
        related=tuple(Related(r.file, r.span, _shift_text(r.message, shift, names)) for r in d.related),
    )


def _shift_text(text: str, shift: int, names: _Names) -> str:
    if names.index not in text:
        return text
    return names.test_index.sub(lambda m: f"{names.index}{int(m.group(1)) + shift}]", text)


def _shift_data(value: Any, shift: int, names: _Names) -> Any:
    """Test paths (`["tests", N, …]`) and `tests[N]` in strings, anywhere in `value`."""
    if isinstance(value, str):
        return _shift_text(value, shift, names)
    if isinstance(value, dict):
        return {k: _shift_data(v, shift, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) >= 2 and value[0] == names.tests and type(value[1]) is int:
            moved = [value[0], value[1] + shift, *(_shift_data(v, shift, names) for v in value[2:])]
        else:
            moved = [_shift_data(v, shift, names) for v in value]
        return tuple(moved) if isinstance(value, tuple) else moved
    return value


def check_split_v4(
    path: str,
    text: str,
    opts: CheckOptions,
    parallel: ParallelMap[tuple[int, int], Part],
    parts: int,
    min_bytes: int = SPLIT_MIN_BYTES,
    parts_per_process: int = PARTS_PER_PROCESS,
    keys: Keys = V4_KEYS,
) -> DocumentReport | None:
    """The whole-text report of a large eval file checked in `parts` processes (mapped with
    `parallel`), or None: check it whole. The report carries no parsed document."""
    weights = part_weights(parts, parts_per_process)
    layout = plan(text, len(weights), min_bytes, keys) if parts > 1 else None
    if layout is None:
        return None
    _parts_kept.clear()
    merged = check_parts(
        bounds(layout, weights),
        parallel,
        lambda a, b: check_part(path, layout, a, b, opts, keys),
        agree=lambda p: (p.file_references, p.uses),
    )
    if merged is None:
        return None
    pieces, diagnostics = merged
    report = DocumentReport(path, "eval", None, diagnostics)
    report.file_references_checked = pieces[0].file_references
    report.uses = pieces[0].uses
    return report


__all__ = ["bounds", "check_split_v4", "cut_tests", "part_weights"]
