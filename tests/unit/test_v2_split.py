"""`formats.v2.split`: a large eval file checked in parts (in forked processes) says exactly
what `check_document` says about the whole text, or declines; and `checks.parallel`."""

from __future__ import annotations

import itertools
import os
import random
import re
import shutil
import time
from pathlib import Path

import pytest
from tests.conftest import find_shared_dir
from tests.evalgen import generate, key, mutate
from tests.lsp.conftest import write_repo

from agentv_lsp.checks import parallel
from agentv_lsp.checks.layout import anchors_and_aliases
from agentv_lsp.checks.parallel import fork_map
from agentv_lsp.checks.runner import run_check
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2 import split
from agentv_lsp.formats.v2.check import CheckOptions, check_document
from agentv_lsp.formats.v2.layout import cut

SHARED = find_shared_dir()
VENDORED = Path(__file__).resolve().parents[1] / "golden" / "cases"


@pytest.fixture
def split_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "SPLIT_MIN_BYTES", 0)


def suite(tmp_path: Path) -> tuple[str, CheckOptions]:
    """Where a generated suite goes in the shared test repository, and options to check it."""
    repo = write_repo(tmp_path / "ws")
    (repo / "evals/judges").mkdir(exist_ok=True)
    return str(repo / "evals/suite.eval.yaml"), CheckOptions(
        repo_root=str(repo), cwd=str(repo), fs=FileSystem()
    )


def serial(func, jobs):  # type: ignore[no-untyped-def]
    return [func(job) for job in jobs]


def compare(path: str, text: str, opts: CheckOptions, parts: int, mapper=serial) -> bool:  # type: ignore[no-untyped-def]
    """Assert the split check equals the whole check; True when it did split."""
    report = split.check_split(path, text, opts, mapper, parts)
    if report is None:
        return False
    want = [key(d) for d in check_document(path, text, opts).diagnostics]
    got = [key(d) for d in report.diagnostics]
    assert got == want
    return True


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_parts_equal_the_whole_text_over_random_edits(
    tmp_path: Path, split_everything: None, seed: int
) -> None:
    path, opts = suite(tmp_path)
    rng = random.Random(seed)
    text = generate(24, seed)
    splits = 0
    for step in range(60):
        parts = rng.choice([2, 3, 5])
        try:
            splits += compare(path, text, opts, parts)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, step {step}, {parts} parts") from exc
        text = mutate(text, rng) if rng.random() < 0.85 else generate(24, seed + step)
    assert splits > 10  # many versions really were checked in parts


def test_an_agentv_validate_error_in_one_part_turns_off_file_checks_in_all(
    tmp_path: Path, split_everything: None
) -> None:
    """`agentv validate` checks file references only when the whole file has no error."""
    path, opts = suite(tmp_path)
    text = generate(20, 7).replace("value: code.py", "value: missing.py")
    clean = split.check_split(path, text, opts, serial, 2)
    assert clean is not None and any(d.code == "validate-file-not-found" for d in clean.diagnostics)
    layout = cut(text)
    assert layout is not None
    last_case = layout.offsets[-1]
    broken = text[:last_case] + text[last_case:].replace("role: user", "role: usr", 1)
    assert compare(path, broken, opts, 2)
    report = split.check_split(path, broken, opts, serial, 2)
    assert report is not None and not any(d.code == "validate-file-not-found" for d in report.diagnostics)


def test_it_declines_when_parts_cannot_tell(tmp_path: Path, split_everything: None) -> None:
    path, opts = suite(tmp_path)
    text = generate(20, 3)
    assert compare(path, text, opts, 2)
    ids = re.findall(r"(?m)^  - id: (.+)$", text)
    across = text.replace(f"id: {ids[-1]}\n", f"id: {ids[0]}\n")  # a duplicate id in another part
    assert split.check_split(path, across, opts, serial, 2) is None
    anchored = text.replace("outcome: Answers", "outcome: &a Answers", 1)
    assert split.check_split(path, anchored, opts, serial, 2) is None
    head_anchor = text.replace("description: Property", "description: &d Property", 1)
    assert head_anchor != text and split.check_split(path, head_anchor, opts, serial, 2) is None
    flow = "$schema: agentv-eval-v2\nevalcases: [" + ", ".join(f"{{id: c{i}}}" for i in range(10)) + "]\n"
    assert split.check_split(path, flow, opts, serial, 2) is None
    assert split.check_split(path, text, opts, serial, 1) is None


def test_crlf_line_ends_and_a_byte_order_mark_split_the_same(tmp_path: Path, split_everything: None) -> None:
    path, opts = suite(tmp_path)
    text = generate(20, 9).replace("role: user", "role: usr", 3)
    assert compare(path, text.replace("\n", "\r\n"), opts, 2)
    assert compare(path, "\ufeff" + text, opts, 2)


@pytest.mark.parametrize("schema", ["agentv-config-v2", "agentv-eval-v1", None])
def test_a_file_that_is_not_an_eval_file_is_checked_whole(
    tmp_path: Path, split_everything: None, monkeypatch: pytest.MonkeyPatch, schema: str | None
) -> None:
    """Decided from the head before any part is checked (parts are checked as eval files)."""
    monkeypatch.setattr(split, "check_part", lambda *args: pytest.fail("a part was checked"))
    path, opts = suite(tmp_path)
    text = generate(20, 4)
    other = text.replace("$schema: agentv-eval-v2\n", f"$schema: {schema}\n" if schema else "")
    assert other != text
    assert split.check_split(path, other, opts, serial, 2) is None


def test_small_files_are_checked_whole(tmp_path: Path) -> None:
    text = generate(20, 1)
    assert len(text) < split.SPLIT_MIN_BYTES
    assert split.plan(text, 2) is None


def test_bounds_cover_every_case_once_in_balanced_parts() -> None:
    text = generate(101, 5)
    layout = cut(text)
    assert layout is not None
    for parts in (2, 3, 7):
        ranges = split.bounds(layout, [1] * parts)  # equal weights: parts of about equal size
        assert len(ranges) == parts
        assert ranges[0][0] == 0 and ranges[-1][1] == 101
        assert all(b == a2 for (_, b), (a2, _) in itertools.pairwise(ranges))
        sizes = [layout.offsets[b] if b < 101 else layout.tail_offset for _, b in ranges]
        sizes = [end - layout.offsets[a] for (a, _), end in zip(ranges, sizes, strict=True)]
        assert max(sizes) < 2 * min(sizes)


def golden_eval_files() -> list[Path]:
    roots = [VENDORED] + ([SHARED / "golden" / "cases", SHARED / "corpus"] if SHARED else [])
    found = []
    for root in roots:
        if root.is_dir():
            found.extend(p for p in sorted(root.rglob("*.y*ml")) if "expected" not in p.parts)
    return found


@pytest.mark.parametrize(("per_process", "at_least"), [(1, 10), (2, 5)])
def test_every_golden_and_corpus_eval_file_checks_the_same_in_parts(
    tmp_path: Path, split_everything: None, monkeypatch: pytest.MonkeyPatch, per_process: int, at_least: int
) -> None:
    """The goldens hold every quirk found in AgentV: each file (copied with its folder, as
    compare.py stages it) is checked by 2 and 3 processes and must say exactly the same."""
    monkeypatch.setattr(split, "PARTS_PER_PROCESS", per_process)
    files = [p for p in golden_eval_files() if "agentv-eval-v2" in p.read_text(errors="replace")]
    if not files:
        pytest.skip("no golden eval files")
    split_files = 0
    for source in files:
        case_root = next(p for p in source.parents if (p / "expected").is_dir() or p.name == "corpus")
        staged = tmp_path / "stage" / case_root.name
        if not staged.exists():
            shutil.copytree(case_root, staged, ignore=shutil.ignore_patterns("expected"))
            (staged / ".git").mkdir(exist_ok=True)
        path = str(staged / source.relative_to(case_root))
        opts = CheckOptions(repo_root=str(staged), cwd=str(staged), fs=FileSystem())
        text = Path(path).read_text()
        for parts in (2, 3):
            try:
                split_files += compare(path, text, opts, parts)
            except AssertionError as exc:
                raise AssertionError(f"{source} in {parts} parts") from exc
    # the vendored goldens alone (a clone without ../shared) hold fewer files large enough to split
    assert split_files >= (at_least if SHARED else 1)


@pytest.mark.parametrize("workers", [2, 3])
def test_the_cli_runner_splits_a_large_file_over_processes_with_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    repo = write_repo(tmp_path / "ws")
    path = repo / "evals/suite.eval.yaml"
    path.write_text(generate(400, 11))
    monkeypatch.setattr(split, "SPLIT_MIN_BYTES", 1024)
    calls: list[int] = []
    real = split.check_split

    def spying(*args, **kwargs):  # type: ignore[no-untyped-def]
        report = real(*args, **kwargs)
        calls.append(report is not None)
        return report

    monkeypatch.setattr(split, "check_split", spying)  # the runner imports it when a v2 file needs it
    both = run_check([str(path)], CheckOptions(repo_root=str(repo), cwd=str(repo), workers=workers))
    one = run_check([str(path)], CheckOptions(repo_root=str(repo), cwd=str(repo), workers=1))
    assert calls == [True]
    assert [key(d) for d in both.diagnostics] == [key(d) for d in one.diagnostics]
    assert len(one.diagnostics) > 100


# -- checks.parallel -------------------------------------------------------------------------


def slow_square(n: int) -> tuple[int, int]:
    time.sleep(0.3)  # long enough for every process to take a job
    return n * n, os.getpid()


def test_fork_map_returns_what_a_plain_map_returns_from_other_processes() -> None:
    results = fork_map(slow_square, [1, 2, 3], 3)
    assert [r[0] for r in results] == [1, 4, 9]
    assert len({r[1] for r in results}) >= 2


def test_fork_map_shares_out_jobs_as_processes_become_free() -> None:
    """The process held up by job 0 takes fewer of the others (fixed halves: 10 each)."""

    def job(n: int) -> int:
        time.sleep(1.0 if n == 0 else 0.02)
        return os.getpid()

    pids = fork_map(job, list(range(20)), 2)
    assert len(set(pids)) == 2
    assert pids.count(pids[0]) < 10


def test_fork_map_runs_every_job_once_in_order_even_past_the_pipe_capacity() -> None:
    jobs = list(range(3 * parallel._MAX_TICKETS + 7))
    assert fork_map(lambda n: n * 2, jobs, 3) == [n * 2 for n in jobs]


def test_fork_map_reports_progress_here() -> None:
    seen: list[tuple[int, int]] = []

    def job(n: int) -> int:
        time.sleep(0.02)  # slow enough that the child cannot take every job before this process starts
        return n

    fork_map(job, list(range(50)), 2, lambda taken, job: seen.append((taken, job)))
    assert seen and all(1 <= taken <= 50 for taken, _ in seen)
    assert [t for t, _ in seen] == sorted(t for t, _ in seen)


def test_fork_map_progress_never_passes_the_job_count_when_tickets_hold_several_jobs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # two jobs per ticket, the last ticket holding one; report every ticket as taken
    monkeypatch.setattr(parallel, "_taken", lambda queue, tickets: tickets)
    jobs = list(range(parallel._MAX_TICKETS + 1))
    seen: list[int] = []

    def job(n: int) -> int:
        time.sleep(0.0002)  # this process gets jobs too
        return n

    fork_map(job, jobs, 2, lambda taken, job: seen.append(taken))
    assert seen and max(seen) == len(jobs)


def test_fork_map_runs_a_failed_childs_job_here() -> None:
    parent = os.getpid()

    def fails_in_a_child(n: int) -> int:
        time.sleep(0.2)
        if os.getpid() != parent:
            raise RuntimeError("child failed")
        return n + 1

    assert fork_map(fails_in_a_child, [1, 2, 3, 4], 2) == [2, 3, 4, 5]


_PARENT = os.getpid()


def _rebuilt_only_in_a_child() -> object:
    if os.getpid() == _PARENT:
        raise ValueError("cannot be read back here")
    return object()


class ReadBackFails:
    """A result the parent cannot unpickle (as a corrupt or truncated payload would be)."""

    def __reduce__(self) -> tuple[object, tuple[()]]:
        return _rebuilt_only_in_a_child, ()


def test_fork_map_runs_here_what_a_child_sent_back_unreadable() -> None:
    def job(n: int) -> tuple[int, object]:
        time.sleep(0.2)  # every process takes a job
        return n, ReadBackFails()

    results = fork_map(job, [1, 2, 3, 4], 2)
    assert [n for n, _ in results] == [1, 2, 3, 4]
    assert all(isinstance(r, ReadBackFails) for _, r in results)  # all made here, none read back


def test_fork_map_without_fork_runs_everything_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "can_fork", lambda: False)
    assert fork_map(lambda n: os.getpid(), [1, 2], 2) == [os.getpid()] * 2


# -- checks.layout.anchors_and_aliases -------------------------------------------------------

# The rule as a regular expression (too slow on megabytes of text, fine as an oracle).
NODE_PROPERTY = re.compile(r"(?:^[ \t]*|[:\-?][ \t]+|[\[{,][ \t]*)[*&][^\s\[\]{},]", re.M)


def test_anchors_and_aliases_are_found_wherever_the_rule_finds_them() -> None:
    rng = random.Random(3)
    alphabet = [" ", "\t", "\n", "&", "*", "a", ":", "-", "?", "[", "{", ",", "]", "}", "x"]
    for _ in range(50_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        # never fewer (overlapping marks like `*? *?` count twice, which is only safer)
        assert anchors_and_aliases(text) >= len(NODE_PROPERTY.findall(text)), repr(text)
        assert bool(anchors_and_aliases(text)) == bool(NODE_PROPERTY.search(text)), repr(text)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("a: &x 1\nb: *x\n", 2),
        ("- &x\n- [*x, {k: *x}]\n", 3),
        ("a: Q&A and 2*3 **bold**\n", 0),
        ("a: b\r&x c\n", 1),  # a lone CR ends a line too
    ],
)
def test_anchors_and_aliases_examples(text: str, count: int) -> None:
    assert anchors_and_aliases(text) == count


def test_a_report_without_file_reference_checks_equals_a_check_told_so(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    text = generate(12, 5).replace("value: code.py", "value: missing.py", 2)
    fs = FileSystem()
    both = check_document(path, text, CheckOptions(str(repo), str(repo), fs, without_file_references=True))
    told = check_document(path, text, CheckOptions(str(repo), str(repo), fs, file_references=False))
    plain = check_document(path, text, CheckOptions(str(repo), str(repo), fs))
    assert both.file_references_checked and both.without_file_references is not None
    assert [key(d) for d in both.diagnostics] == [key(d) for d in plain.diagnostics]
    assert [key(d) for d in both.without_file_references] == [key(d) for d in told.diagnostics]
    assert [key(d) for d in both.diagnostics] != [key(d) for d in told.diagnostics]


def test_the_checker_uses_the_cpus_it_may_run_on_at_most_four(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentv_lsp.checks import runner

    for cpus, expected in ((1, 1), (2, 2), (3, 3), (16, 4)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, cpus=cpus: set(range(cpus)), raising=False)
        assert runner.available_workers() == expected


@pytest.mark.parametrize("workers", [2, 3])
def test_many_files_spread_over_processes_report_what_one_process_reports(
    tmp_path: Path, workers: int
) -> None:
    from agentv_lsp.checks.runner import PARALLEL_MIN_FILES

    repo = write_repo(tmp_path / "ws")
    for i in range(PARALLEL_MIN_FILES + 4):
        text = generate(6, i)
        if i % 3 == 0:
            text = text.replace("role: user", "role: usr", 1)
        (repo / "evals" / f"part-{i:02}.eval.yaml").write_text(text)
    one = run_check([str(repo / "evals")], CheckOptions(repo_root=str(repo), cwd=str(repo), workers=1))
    many = run_check([str(repo / "evals")], CheckOptions(repo_root=str(repo), cwd=str(repo), workers=workers))
    assert many.files_checked == one.files_checked >= PARALLEL_MIN_FILES + 4
    assert [(d.file, *key(d)) for d in many.diagnostics] == [(d.file, *key(d)) for d in one.diagnostics]
    assert any(d.code == "validate-role" for d in one.diagnostics)
