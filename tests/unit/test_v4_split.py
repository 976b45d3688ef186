"""A 4.x eval file checked in parts (`formats.v4.split`) says exactly what the whole check says.

The reference is `check_v4_document` on the whole text (itself compared with the recorded
runtime by test_v4_check.py): on every eval file of ../shared/golden-v4/cases, on the
benchmark workload (make_workload_v4.py) and on random edits of it, cut into 2 to 7 parts.
Where the split gives up (returns None) the whole check runs instead, so only the reports it
does return are compared; the workload's must be split (else the test proves nothing).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, DocumentReport
from agentv_lsp.formats.v4.check import check_v4_document
from agentv_lsp.formats.v4.split import bounds, check_split_v4, cut_tests, part_weights

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("AGENTV_SHARED") or REPO.parent / "shared") / "golden-v4" / "cases"


def _serial(func: Callable[[Any], Any], jobs: Sequence[Any]) -> list[Any]:
    return [func(job) for job in jobs]


def _identity(d: Diagnostic) -> tuple[Any, ...]:
    return (
        d.file,
        d.span,
        d.severity,
        d.code,
        d.message,
        d.yaml_path,
        repr(d.data),
        d.related,
        d.unnecessary,
    )


def _same(whole: DocumentReport, split: DocumentReport) -> None:
    assert [_identity(d) for d in split.diagnostics] == [_identity(d) for d in whole.diagnostics]
    assert split.file_references_checked == whole.file_references_checked
    assert split.uses == whole.uses


def _compare(
    path: Path,
    root: Path,
    text: str,
    counts: Sequence[tuple[int, int]] = ((2, 1), (3, 1), (4, 1), (7, 1), (2, 3)),
) -> int:
    """How many of `counts` (processes, parts per process) were split; each split report
    equals the whole one."""
    opts = CheckOptions(str(root), str(root), FileSystem())
    whole = check_v4_document(str(path), text, opts)
    done = 0
    for processes, per_process in counts:
        split = check_split_v4(
            str(path), text, opts, _serial, processes, min_bytes=0, parts_per_process=per_process
        )
        if split is not None:
            _same(whole, split)
            done += 1
    return done


def _golden_files() -> list[tuple[Path, Path]]:
    if not SHARED.is_dir():
        return []
    return [(case, path) for case in sorted(SHARED.iterdir()) for path in sorted(case.rglob("*.eval.yaml"))]


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/golden-v4 not available")
@pytest.mark.parametrize(("case", "path"), _golden_files(), ids=lambda v: v.name)
def test_golden_file_split_equals_whole(case: Path, path: Path) -> None:
    _compare(path, case, path.read_text())


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("v4split") / "w"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "make_workload_v4.py"),
            str(root),
            "--cases",
            "60",
            "--force",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return root


def test_workload_is_split_and_equals_whole(workload: Path) -> None:
    path = workload / "evals" / "big.eval.yaml"
    text = path.read_text()
    assert cut_tests(text) is not None
    # `tool` turns are validate errors in some parts only: those parts skip the file-reference
    # checks the others run, so some cuts must give up
    _compare(path, workload, text)
    assert _compare(path, workload, _without_tool_turns(text)) == 5  # file references checked


@pytest.mark.parametrize(("processes", "per_process"), [(2, 1), (2, 2), (2, 3), (3, 2), (4, 3)])
def test_parts_cover_every_test_once_largest_first(workload: Path, processes: int, per_process: int) -> None:
    layout = cut_tests((workload / "evals" / "big.eval.yaml").read_text())
    assert layout is not None
    weights = part_weights(processes, per_process)
    assert len(weights) == processes * per_process and weights == sorted(weights, reverse=True)
    ranges = bounds(layout, weights)
    assert [a for a, _ in ranges] == [0] + [b for _, b in ranges[:-1]]  # contiguous, no test twice
    assert ranges[-1][1] == len(layout.offsets)
    sizes = [
        layout.offsets[b] - layout.offsets[a]
        if b < len(layout.offsets)
        else layout.tail_offset - layout.offsets[a]
        for a, b in ranges
    ]
    total = sum(sizes)
    largest_test = max(layout.offsets[i + 1] - layout.offsets[i] for i in range(len(layout.offsets) - 1))
    for size, weight in zip(sizes, weights, strict=True):
        # each part is its share of the characters, give or take the tests at its ends
        assert abs(size - total * weight / sum(weights)) <= 2 * largest_test


def _without_tool_turns(text: str) -> str:
    """The workload without its `tool` turns (`--no-tool`): no validate error anywhere."""
    no_tool = re.sub(r"\n( +)- role: tool\n\1  content: [^\n]*", "", text)
    assert "role: tool" not in no_tool
    return no_tool


# Edits of one test line (or of the file), each a kind of problem some check reports.
EDITS: list[Callable[[list[str], random.Random], None]] = []


def _edit(func: Callable[[list[str], random.Random], None]) -> Callable[[list[str], random.Random], None]:
    EDITS.append(func)
    return func


def _lines_with(lines: list[str], rng: random.Random, needle: str) -> int | None:
    found = [i for i, line in enumerate(lines) if needle in line]
    return rng.choice(found) if found else None


@_edit
def _bad_role(lines: list[str], rng: random.Random) -> None:
    i = _lines_with(lines, rng, "- role: user")
    if i is not None:
        lines[i] = lines[i].replace("user", rng.choice(["usr", "tool", "developer", "42", "[]"]))


@_edit
def _drop_line(lines: list[str], rng: random.Random) -> None:
    i = _lines_with(lines, rng, rng.choice(["criteria:", "input:", "content:", "    id:"]))
    if i is not None and i > 10:
        del lines[i]


@_edit
def _duplicate_id(lines: list[str], rng: random.Random) -> None:
    ids = [i for i, line in enumerate(lines) if line.startswith("  - id: ")]
    if len(ids) > 2:
        a, b = sorted(rng.sample(ids, 2))
        lines[b] = lines[a]


@_edit
def _unknown_key(lines: list[str], rng: random.Random) -> None:
    i = _lines_with(lines, rng, "  - id: ")
    if i is not None:
        lines.insert(i + 1, rng.choice(["    foo: 1", "    expected_outcome: x", "    input_messages: []"]))


@_edit
def _missing_file(lines: list[str], rng: random.Random) -> None:
    i = _lines_with(lines, rng, "value: /evals/snippets/")
    if i is not None:
        lines[i] = lines[i].replace("/evals/snippets/", "/evals/nowhere/")


@_edit
def _bad_assertions(lines: list[str], rng: random.Random) -> None:
    i = _lines_with(lines, rng, "  - id: ")
    if i is not None:
        lines.insert(
            i + 1,
            rng.choice(
                [
                    "    assertions: 3",
                    "    assertions:\n      - type: contains",
                    "    assertions:\n      - type: nonsense\n        value: x",
                    "    assert:\n      - type: contains\n        value: x",
                    "    execution:\n      evaluators: []",
                ]
            ),
        )


@_edit
def _non_string(lines: list[str], rng: random.Random) -> None:
    i = _lines_with(lines, rng, "criteria:")
    if i is not None:
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines[i] = indent + rng.choice(["criteria: 12", "criteria: []", "criteria: null", "criteria: ''"])


@_edit
def _suite_level(lines: list[str], rng: random.Random) -> None:
    lines.insert(
        0, rng.choice(["execution:\n  target: nowhere", "workspace: ./missing", "foo: bar", "name: x"])
    )


@_edit
def _not_splittable(lines: list[str], rng: random.Random) -> None:
    choice = rng.randrange(4)
    i = _lines_with(lines, rng, "criteria:")
    if i is None:
        return
    if choice == 0:
        lines[i] += " see tests[3]"
    elif choice == 1:
        lines[i] = lines[i].replace("criteria:", "criteria: &a")
    elif choice == 2:
        lines.append("extra: 1")
    else:
        lines[i] = lines[i].replace("criteria:", "criteria: [")


@_edit
def _not_a_mapping(lines: list[str], rng: random.Random) -> None:
    i = _lines_with(lines, rng, "  - id: ")
    if i is not None:
        lines.insert(i, rng.choice(["  - just a string", "  - file://missing.yaml", "  - 7"]))


def test_random_edits_split_equals_whole(workload: Path) -> None:
    path = workload / "evals" / "big.eval.yaml"
    base = _without_tool_turns(path.read_text()).split("\n")
    rng = random.Random(4242)
    split_at_least_once = 0
    for _ in range(80):
        lines = list(base)
        for _ in range(rng.randint(1, 3)):
            rng.choice(EDITS)(lines, rng)
        split_at_least_once += _compare(path, workload, "\n".join(lines), counts=((2, 1), (5, 1), (2, 3))) > 0
    assert split_at_least_once >= 15


def test_layout_variants_split_equal_whole(workload: Path) -> None:
    path = workload / "evals" / "big.eval.yaml"
    text = _without_tool_turns(path.read_text())
    head, _, rest = text.partition("\ntests:\n")
    flush = (
        head
        + "\ntests:\n"
        + "\n".join(line[2:] if line.startswith("  ") else line for line in rest.split("\n"))
    )
    assert _compare(path, workload, flush) == 5  # items at column 0
    assert _compare(path, workload, text.rstrip("\n")) == 5  # no final line break
    assert _compare(path, workload, text + "# end\n") == 5
    assert _compare(path, workload, text.replace("content: |\n", "content: |+\n")) == 5  # keep chomping
    assert _compare(path, workload, text + "name: x\n") == 0  # a key after the tests: whole
