"""The skeleton of a split check, shared by the formats (`formats/v2/split.py`, `formats/v4/split.py`).

A large eval file is cut into its tests (`checks.layout.cut_list`); the tests are grouped
into parts (`bounds`); each part is checked as an eval file of its own in a forked process
(`check_parts`, with the format's check of one part); the parts' diagnostics are sorted
into those about the part's tests and those about the file (`sort_out`, with the format's
way of moving a diagnostic back to the file's lines and indices) and merged (`merge`), or
the merge gives up (None) and the file is checked whole. What is particular to a format
(how it parses a part, when a part is exact, how a diagnostic is moved) stays there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from agentv_lsp.checks.layout import Layout, anchors_and_aliases
from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.checks.parallel import ParallelMap


@dataclass(frozen=True, slots=True)
class Part:
    """What one part says, in the file's lines and test indices."""

    exact: bool  # parsed into exactly its tests, none of them looking at the others
    local: list[Diagnostic]  # about its tests
    header: list[Diagnostic]  # about the file (head, tail, config, targets)
    ids: list[str]  # the string ids of its tests
    file_references: bool | None = None  # whether `agentv validate`'s file checks ran on it
    uses: tuple[str, ...] = ()
    # when the file checks ran: what the part says without them (another part may have an error)
    without: tuple[list[Diagnostic], list[Diagnostic]] | None = None


INEXACT = Part(False, [], [], [])


def part_weights(processes: int, per_process: int) -> list[int]:
    """Relative sizes of the parts, largest first (2 processes, 3 each: 3, 3, 2, 2, 1, 1).
    Processes take the next part when free, so the parts left at the end are small: one
    process slowed by a busy machine then keeps the other waiting for less time."""
    return [per_process - k // processes for k in range(processes * per_process)]


def bounds(layout: Layout, weights: list[int]) -> list[tuple[int, int]]:
    """Test ranges [a, b), one per weight, sized in characters as the weights say (equal
    weights: about equal parts); an empty range is left out."""
    total = layout.tail_offset - layout.offsets[0]
    parts = len(weights)
    whole = sum(weights)
    out: list[tuple[int, int]] = []
    a = 0
    count = len(layout.offsets)
    reached = 0
    for k in range(1, parts):
        reached += weights[k - 1]
        goal = layout.offsets[0] + total * reached // whole
        b = a + 1
        while b < count - (parts - k) and layout.offsets[b] < goal:
            b += 1
        out.append((a, b))
        a = b
    out.append((a, count))
    return [(a, b) for a, b in out if a < b]


def chunks_text(layout: Layout, a: int, b: int) -> str:
    """The text of tests [a, b)."""
    end = layout.offsets[b] if b < len(layout.offsets) else layout.tail_offset
    return layout.text[layout.offsets[a] : end]


def anchored(layout: Layout, a: int, b: int) -> bool:
    """Whether tests [a, b), or the head and tail for the first part, hold anchors or
    aliases: their names and the alias limit span the file, so no part can settle them."""
    if a == 0 and anchors_and_aliases(layout.head + layout.tail):
        return True
    return bool(anchors_and_aliases(chunks_text(layout, a, b)))


# How a format moves one of a part's diagnostics back to the file: the moved diagnostic and
# whether it is about the part's tests, or None when the part cannot say it as the whole would.
Place = Callable[[Diagnostic], "tuple[Diagnostic, bool] | None"]


def sort_out(
    diagnostics: list[Diagnostic],
    place: Place,
    placed: dict[int, tuple[Diagnostic, bool]] | None = None,
) -> tuple[list[Diagnostic], list[Diagnostic]] | None:
    """(about the part's tests, about the file), moved by `place`; None if it gave up on one.
    `placed` remembers diagnostics by identity across calls: variants of a report that hold
    the same objects are moved once (and cross the pipe once: pickle writes an object it
    has seen as a reference)."""
    local: list[Diagnostic] = []
    header: list[Diagnostic] = []
    for d in diagnostics:
        done = placed.get(id(d)) if placed is not None else None
        if done is None:
            done = place(d)
            if done is None:
                return None
            if placed is not None:
                placed[id(d)] = done
        (local if done[1] else header).append(done[0])
    return local, header


def _no_agreement(part: Part) -> object:
    return None


def merge(parts: list[Part], agree: Callable[[Part], object] = _no_agreement) -> list[Diagnostic] | None:
    """The file's diagnostics from its parts' (None: the parts cannot tell). All parts must
    be exact, say the same about the file, give `agree` the same value and hold no test id
    another part holds."""
    if not parts or not all(p.exact for p in parts):
        return None
    first = parts[0]
    header = [d.identity() for d in first.header]
    token = agree(first)
    if any(agree(p) != token or [d.identity() for d in p.header] != header for p in parts[1:]):
        return None
    seen: set[str] = set()
    for p in parts:
        if seen.intersection(p.ids):
            return None
        seen.update(p.ids)
    out = list(first.header)
    for p in parts:
        out.extend(p.local)
    out.sort(key=Diagnostic.sort_key)
    return out


def _without_file_references(parts: list[Part]) -> list[Part]:
    """`agentv validate` checks file references only when the whole file has no error: when
    some part has one, the parts that did check theirs say what they say without."""
    if not any(p.file_references is False for p in parts):
        return parts
    return [
        dataclasses.replace(p, local=p.without[0], header=p.without[1], file_references=False)
        if p.without is not None
        else p
        for p in parts
    ]


def check_parts(
    ranges: list[tuple[int, int]],
    parallel: ParallelMap[tuple[int, int], Part],
    check_part: Callable[[int, int], Part],
    agree: Callable[[Part], object] = _no_agreement,
) -> tuple[list[Part], list[Diagnostic]] | None:
    """Check every range with `check_part` (mapped with `parallel`) and merge: the parts and
    the file's diagnostics, or None when the file must be checked whole."""
    parts = _without_file_references(parallel(lambda job: check_part(job[0], job[1]), ranges))
    diagnostics = merge(parts, agree)
    return None if diagnostics is None else (parts, diagnostics)
