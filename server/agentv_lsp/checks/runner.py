"""Checking a set of paths (`agentv-lsp check`, `commands/check.py`): expand them, choose the
format that judges each file (`formats.runtime`), and let that `Format` check it, sharing many
files or a large file's parts among processes."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentv_lsp.checks.hidden_chars import AllowList, as_errors, directive_allow_list
from agentv_lsp.checks.model import Diagnostic, cap_diagnostics
from agentv_lsp.checks.options import CheckOptions, DocumentReport
from agentv_lsp.checks.parallel import can_fork, fork_map
from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.engine.walk import walk_yaml
from agentv_lsp.formats import registry
from agentv_lsp.formats.runtime import RuntimeChoice, choose_runtime, parse_requested, undeclared_v2_note
from agentv_lsp.report import one_line
from agentv_lsp.yamlpos import Span

if TYPE_CHECKING:
    from agentv_lsp.formats.protocol import Format


@dataclass
class CheckRun:
    """The outcome of checking a set of paths."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    reports: list[DocumentReport] = field(default_factory=list)
    files_checked: int = 0
    missing_paths: list[str] = field(default_factory=list)


class Progress:
    """A one-line progress bar on stderr, only on a terminal and only for many files."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled and total >= 20
        self.last = 0.0

    def update(self, done: int, current: str) -> None:
        if not self.enabled or time.monotonic() - self.last < 0.1:
            return
        self.last = time.monotonic()
        width = 30
        filled = width * done // max(self.total, 1)
        name = current if len(current) < 40 else "..." + current[-37:]
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} {one_line(name):<40}"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 90 + "\r")
            sys.stderr.flush()


def run_check(
    paths: Iterable[str], opts: CheckOptions, progress: bool = False, only_agentv: bool = False
) -> CheckRun:
    """`only_agentv`: files named on the command line are taken like files a folder walk finds
    (other YAML left alone): pre-commit passes every staged YAML file by name."""
    run = CheckRun()
    explicit: list[str] = []
    walked: list[str] = []
    for raw in paths:
        path = os.path.abspath(raw)
        if opts.fs.is_dir(path):
            walked.extend(walk_yaml(path, opts.fs))
        elif opts.fs.found(path):
            explicit.append(path)
        else:
            run.missing_paths.append(raw)
    items = list(
        dict.fromkeys(
            [(p, not only_agentv) for p in explicit] + [(p, False) for p in walked if p not in explicit]
        )
    )
    bar = Progress(len(items), progress)
    seen = {path for path, _ in items}
    related: list[tuple[str, str]] = []
    for checked in _check_all(items, opts, bar):
        if checked is None:
            continue
        report, uses, judged_by = checked
        run.files_checked += 1
        run.reports.append(report)
        run.diagnostics.extend(report.diagnostics)
        related.extend((p, judged_by) for p in uses if p not in seen)
        seen.update(uses)
    # Walking a folder also checks the config and targets files its eval files use, even
    # under .agentv/ (which the walk skips like AgentV does). A file named on the command
    # line is checked alone: its config problems still show up on it as warnings.
    for path, user_runtime in related:
        extra = _check_path(path, True, opts, inherit=user_runtime)[0]
        if extra is not None:
            run.files_checked += 1
            run.reports.append(extra)
            run.diagnostics.extend(extra.diagnostics)
    bar.close()
    return run


# a file's report, the files it uses (checked too) and the name of the format that judged it
Checked = tuple[DocumentReport, list[str], str] | None


def _check_one(path: str, named: bool, opts: CheckOptions, split: int = 1) -> Checked:
    """A file's report and, for an eval file found by a folder walk, the files it uses."""
    report, fmt = _check_path(path, named, opts, split)
    if report is None:
        return None
    if fmt is None:  # named but unreadable
        return report, [], ""
    return report, fmt.uses(report, opts) if not named else [], fmt.name


# Below this many files a second process costs more than it saves; with fewer, a large
# file's cases are spread over the processes instead.
PARALLEL_MIN_FILES = 8


def _check_all(items: list[tuple[str, bool]], opts: CheckOptions, bar: Progress) -> list[Checked]:
    """Check every file, sharing many files out among the processes, largest first (so no
    process is left with a large file at the end); the children send back only diagnostics
    and paths."""
    workers = opts.workers if can_fork() else 1
    if workers < 2 or len(items) < PARALLEL_MIN_FILES:
        results: list[Checked] = []
        for index, (path, named) in enumerate(items, 1):
            bar.update(index, os.path.relpath(path, opts.cwd))
            results.append(_check_one(path, named, opts, split=workers))
        return results
    # imported once here rather than once in every process forked below
    (registry.for_request(parse_requested(opts.runtime)) or registry.default()).warm()

    def check_item(index: int) -> Checked:
        path, named = items[index]
        checked = _check_one(path, named, opts)
        if checked is None:
            return None
        report = checked[0]  # only what the parent needs crosses the pipe (not the YAML tree)
        slim = DocumentReport(report.path, report.kind, None, report.diagnostics)
        slim.runtime, slim.runtime_reason = report.runtime, report.runtime_reason
        return slim, checked[1], checked[2]

    def show(taken: int, index: int) -> None:
        bar.update(taken, os.path.relpath(items[index][0], opts.cwd))

    order = sorted(range(len(items)), key=lambda i: -_size_of(items[i][0], opts.fs))
    merged: list[Checked] = [None] * len(items)
    for index, checked in zip(order, fork_map(check_item, order, workers, show), strict=True):
        merged[index] = checked
    return merged


def _size_of(path: str, fs: FileSystem) -> int:
    try:
        return fs.stat(path).st_size
    except (OSError, ValueError):
        return 0


MAX_DIAGNOSTICS_FLAG = "--max-diagnostics"


def _check_path(
    path: str, named: bool, opts: CheckOptions, split: int = 1, inherit: str | None = None
) -> tuple[DocumentReport | None, Format | None]:
    """One file's report, its diagnostics capped (`CheckOptions.max_diagnostics`) before they
    are sorted, sent between processes and rendered, and the format that judged it."""
    report, fmt = _check_path_uncapped(path, named, opts, split, inherit)
    if report is not None:
        if opts.hidden_as_error:
            report.diagnostics = as_errors(report.diagnostics)
        report.diagnostics = cap_diagnostics(report.diagnostics, opts.max_diagnostics, MAX_DIAGNOSTICS_FLAG)
    return report, fmt


def _check_path_uncapped(
    path: str, named: bool, opts: CheckOptions, split: int = 1, inherit: str | None = None
) -> tuple[DocumentReport | None, Format | None]:
    """`inherit`: the format of the eval file that made us check this one (its config or cases
    file), which `auto` then keeps."""
    try:
        text = opts.fs.read_document(path)
    except FileReadError as exc:
        if not named:
            return None, None
        diagnostic = Diagnostic(
            path, Span(0, 0, 0, 0), "error", "file-unreadable", f"Cannot read {path}: {exc}"
        )
        return DocumentReport(path, None, None, [diagnostic]), None
    # `# agentv-lsp: allow-hidden` holds for the whole file, also when its parts are checked apart
    allowed = directive_allow_list(text)
    if allowed != AllowList():
        opts = dataclasses.replace(opts, allow_hidden=opts.allow_hidden.merged(allowed))
    requested = parse_requested(opts.runtime)
    if requested == "auto" and inherit is not None:
        kept = registry.get(inherit)
        runtime = RuntimeChoice(kept.major, "an eval file judged by this runtime uses it", name=kept.name)
    else:
        runtime = choose_runtime(path, text, opts.repo_root, requested, opts.fs)
    fmt = runtime.format
    as_eval = named and inherit is None  # named by the user: run as an eval file whatever its name
    if not named:
        taken = fmt.walk_takes(path, text, opts)
        if taken is None:
            return None, None  # not an AgentV file: ignored unless named explicitly
        as_eval = taken == "eval"
    report = fmt.check(path, text, opts, named=named, as_eval=as_eval, split=split)
    if report is None:
        return None, None
    report.runtime, report.runtime_reason = fmt.version, runtime.reason
    report.diagnostics.extend(_runtime_problems(path, runtime.problems))
    note = undeclared_v2_note(path, text, runtime) if report.kind == "eval" else None
    if note is not None:
        report.diagnostics.append(note)
        report.diagnostics.sort(key=Diagnostic.sort_key)
    return report, fmt


def _runtime_problems(path: str, problems: tuple[str, ...]) -> list[Diagnostic]:
    """A package.json that `auto` could not use (`formats.runtime`), on the file it concerns."""
    return [
        Diagnostic(path, Span(0, 0, 0, 0), "warning", "runtime-manifest-unusable", f"{problem}.")
        for problem in problems
    ]


# More processes than this gain little: each one re-reads the head of a split file and
# costs its own memory (about 70 MiB at 10,000 cases).
MAX_WORKERS = 4


def available_workers() -> int:
    """Processes for `check`: the CPUs this process may run on (its affinity, not the
    machine's count), at most MAX_WORKERS."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cpus))
