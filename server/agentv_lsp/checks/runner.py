"""`agentv-lsp check PATHS...`: expand paths, check every AgentV file, render, exit code."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gc
import os
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from agentv_lsp.checks.model import Diagnostic, cap_diagnostics
from agentv_lsp.checks.options import CheckOptions, DocumentReport
from agentv_lsp.checks.parallel import can_fork, fork_map
from agentv_lsp.engine.files import FileReadError, FileSystem, default_repo_root
from agentv_lsp.formats.runtime import choose_runtime, declares_v2, parse_requested, undeclared_v2_note
from agentv_lsp.formats.v4 import RUNTIME_VERSION as AGENTV4
from agentv_lsp.hidden_chars import AllowList, as_errors, directive_allow_list, parse_allow_items
from agentv_lsp.report import one_line
from agentv_lsp.yamlpos import Span

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
YAML_SUFFIXES = (".yaml", ".yml")
# During a folder walk a YAML file is an AgentV file when it declares an `agentv-` schema or
# has an `evalcases` key at its top level (`formats.runtime.declares_v2`), even if AgentV
# cannot load it (syntax error, missing or wrong `$schema`); any other YAML is left alone
# unless named on the command line, whatever its text mentions.
_AGENTV_MARKERS = ("agentv-", "evalcases")


@dataclass
class CheckRun:
    """The outcome of checking a set of paths."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    reports: list[DocumentReport] = field(default_factory=list)
    files_checked: int = 0
    missing_paths: list[str] = field(default_factory=list)


def walk_yaml(root: str, fs: FileSystem | None = None) -> Iterator[str]:
    """YAML files under `root`, sorted, skipping `node_modules` and dot-folders like AgentV
    (`fs`: where, the disk by default)."""
    fs = fs or FileSystem()
    try:
        entries = sorted(fs.scandir(root), key=lambda e: e.name)
    except OSError as exc:
        print(f"agentv-lsp: could not read directory {one_line(root)}: {exc.strerror}", file=sys.stderr)
        return
    for entry in entries:
        try:
            if entry.is_dir():
                if entry.name == "node_modules" or entry.name.startswith("."):
                    continue
                yield from walk_yaml(entry.path, fs)
            elif entry.name.lower().endswith(YAML_SUFFIXES) and entry.is_file():
                yield entry.path
        except OSError:
            continue


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
        report, uses = checked
        run.files_checked += 1
        run.reports.append(report)
        run.diagnostics.extend(report.diagnostics)
        runtime_of_user = "4" if report.runtime == AGENTV4 else "2"
        related.extend((p, runtime_of_user) for p in uses if p not in seen)
        seen.update(uses)
    # Walking a folder also checks the config and targets files its eval files use, even
    # under .agentv/ (which the walk skips like AgentV does). A file named on the command
    # line is checked alone: its config problems still show up on it as warnings.
    for path, user_runtime in related:
        extra = _check_path(path, True, opts, inherit=user_runtime)
        if extra is not None:
            run.files_checked += 1
            run.reports.append(extra)
            run.diagnostics.extend(extra.diagnostics)
    bar.close()
    return run


Checked = tuple[DocumentReport, list[str]] | None


def _check_one(path: str, named: bool, opts: CheckOptions, split: int = 1) -> Checked:
    """A file's report and, for an eval file found by a folder walk, the files it uses."""
    report = _check_path(path, named, opts, split)
    if report is None:
        return None
    uses: list[str] = list(report.uses) if not named else []
    if report.runtime == AGENTV4:
        return report, uses
    if report.kind == "eval" and not named:
        from agentv_lsp.engine.targets_file import find_targets_file
        from agentv_lsp.formats.v2.config import load_config

        config = report.eval_file.config if report.eval_file else load_config(path, opts.repo_root, opts.fs)
        uses.extend(config.skipped)
        if config.path:
            uses.append(config.path)
        targets = find_targets_file(path, opts.repo_root, opts.cwd, opts.fs)
        if targets:
            uses.append(targets)
    return report, uses


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
    if parse_requested(opts.runtime) != "2":
        # imported once here rather than once in every process forked below
        import agentv_lsp.formats.v4.check  # noqa: F401

    def check_item(index: int) -> Checked:
        path, named = items[index]
        checked = _check_one(path, named, opts)
        if checked is None:
            return None
        report = checked[0]  # only what the parent needs crosses the pipe (not the YAML tree)
        slim = DocumentReport(report.path, report.kind, None, report.diagnostics)
        slim.runtime, slim.runtime_reason = report.runtime, report.runtime_reason
        return slim, checked[1]

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
) -> DocumentReport | None:
    """One file's report, its diagnostics capped (`CheckOptions.max_diagnostics`) before they
    are sorted, sent between processes and rendered."""
    report = _check_path_uncapped(path, named, opts, split, inherit)
    if report is not None:
        if opts.hidden_as_error:
            report.diagnostics = as_errors(report.diagnostics)
        report.diagnostics = cap_diagnostics(report.diagnostics, opts.max_diagnostics, MAX_DIAGNOSTICS_FLAG)
    return report


def _check_path_uncapped(
    path: str, named: bool, opts: CheckOptions, split: int = 1, inherit: str | None = None
) -> DocumentReport | None:
    """`inherit`: the runtime of the eval file that made us check this one (its config or
    cases file), which `auto` then keeps."""
    try:
        text = opts.fs.read_document(path)
    except FileReadError as exc:
        if not named:
            return None
        return DocumentReport(
            path,
            None,
            None,
            [Diagnostic(path, Span(0, 0, 0, 0), "error", "file-unreadable", f"Cannot read {path}: {exc}")],
        )
    # `# agentv-lsp: allow-hidden` holds for the whole file, also when its parts are checked apart
    allowed = directive_allow_list(text)
    if allowed != AllowList():
        opts = dataclasses.replace(opts, allow_hidden=opts.allow_hidden.merged(allowed))
    requested = parse_requested(opts.runtime)
    if requested == "auto" and inherit is not None:
        requested = parse_requested(inherit)
    runtime = choose_runtime(path, text, opts.repo_root, requested, opts.fs)
    if requested != parse_requested(opts.runtime):
        runtime = dataclasses.replace(runtime, reason="an eval file judged by this runtime uses it")
    if runtime.major == 4:
        report_v4 = _check_path_v4(path, text, named, opts, split, as_eval=named and inherit is None)
        if report_v4 is not None:
            report_v4.runtime, report_v4.runtime_reason = AGENTV4, runtime.reason
            report_v4.diagnostics.extend(_runtime_problems(path, runtime.problems))
        return report_v4
    if not named and not any(marker in text for marker in _AGENTV_MARKERS):
        return None  # not an AgentV file: ignored unless named explicitly
    # v2 machinery is imported when a file needs it: a 4.x tree never loads it
    from agentv_lsp.formats.v2.document import check_document
    from agentv_lsp.formats.v2.split import check_split

    report = (
        check_split(path, text, opts, functools.partial(fork_map, workers=split), split)
        if split > 1
        else None
    )
    if report is None:
        report = check_document(path, text, opts)
    if report.kind is None and not named and not declares_v2(text):
        return None
    report.runtime, report.runtime_reason = runtime.version, runtime.reason
    report.diagnostics.extend(_runtime_problems(path, runtime.problems))
    note = undeclared_v2_note(path, text, runtime) if report.kind == "eval" else None
    if note is not None:
        report.diagnostics.append(note)
        report.diagnostics.sort(key=Diagnostic.sort_key)
    return report


def _runtime_problems(path: str, problems: tuple[str, ...]) -> list[Diagnostic]:
    """A package.json that `auto` could not use (`formats.runtime`), on the file it concerns."""
    return [
        Diagnostic(path, Span(0, 0, 0, 0), "warning", "runtime-manifest-unusable", f"{problem}.")
        for problem in problems
    ]


def _check_path_v4(
    path: str, text: str, named: bool, opts: CheckOptions, split: int = 1, *, as_eval: bool = False
) -> DocumentReport | None:
    """A file judged by AgentV 4.x. A folder walk takes what 4.42.4 reads (`formats.v4.discovery`:
    `*.eval.yaml`, `eval.yaml`, the project's `eval_patterns`, `--eval-glob`; through `uses`, the
    cases and settings files they use), plus files that declare the v2 format by a top-level key,
    which 4.x no longer reads (the check says so instead of passing over them in silence); other
    YAML is left alone, whatever its text mentions. `as_eval`: named by the user, so run as an
    eval file whatever its name. `split` > 1: a large eval file's tests are checked by that many
    processes (same result)."""
    from agentv_lsp.formats.v4.check import check_v4_document
    from agentv_lsp.formats.v4.discovery import validate_reads, walk_takes_as_eval
    from agentv_lsp.formats.v4.split import check_split_v4

    if not named:
        as_eval = walk_takes_as_eval(path, opts.repo_root, opts.cwd, opts.fs, opts.eval_globs)
        if not as_eval and not declares_v2(text):
            return None
    if split > 1 and validate_reads(path):
        report = check_split_v4(path, text, opts, functools.partial(fork_map, workers=split), split)
        if report is not None:
            return report
    return check_v4_document(path, text, opts, as_eval=as_eval)


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


def run_check_command(args: argparse.Namespace) -> int:
    from agentv_lsp.cli import file_system_for
    from agentv_lsp.report import RENDERERS, use_color

    gc.disable()  # a short-lived process: the collector only costs time here
    cwd = os.getcwd()
    repo_root = os.path.abspath(args.repo_root) if args.repo_root else default_repo_root(cwd)
    allowed = parse_allow_items(
        item for value in args.allow_hidden for item in value.replace(",", " ").split()
    )
    opts = CheckOptions(
        repo_root=repo_root,
        cwd=cwd,
        fs=file_system_for(repo_root, getattr(args, "untrusted", False)),
        workers=available_workers(),
        runtime=args.agentv,
        max_diagnostics=args.max_diagnostics,
        allow_hidden=allowed,
        eval_globs=tuple(args.eval_glob),
        hidden_as_error=args.hidden_as_error,
    )
    show_progress = not args.no_progress and sys.stderr.isatty() and args.format == "text"
    try:
        run = run_check(args.paths, opts, progress=show_progress, only_agentv=args.only_agentv)
    except Exception as exc:  # an internal error must not look like "clean"
        print(f"agentv-lsp: internal error: {type(exc).__name__}: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    for missing in run.missing_paths:
        print(f"agentv-lsp: path not found: {one_line(missing)}", file=sys.stderr)
    diagnostics = sorted(run.diagnostics, key=lambda d: (d.file, *d.sort_key()))
    judged = [(r.path, r.runtime or "", r.runtime_reason or "") for r in run.reports]
    output = RENDERERS[args.format](
        diagnostics, cwd, use_color(args.color, sys.stdout), run.files_checked, judged
    )
    sys.stdout.write(output)
    if run.missing_paths:
        return EXIT_USAGE
    if any(d.severity == "error" for d in diagnostics):
        return EXIT_FINDINGS
    if args.strict and any(d.severity == "warning" for d in diagnostics):
        return EXIT_FINDINGS
    return EXIT_OK
