"""`agentv-lsp diff`: from the parsed arguments to `diff_revisions`, its output and exit status."""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
from types import FrameType

from agentv_lsp.checks.parallel import fork_map
from agentv_lsp.checks.runner import available_workers
from agentv_lsp.diff import Job, PathMatchesNothing, diff_revisions
from agentv_lsp.diff.collect import Pair
from agentv_lsp.diff.compare import FileCompared
from agentv_lsp.diff.git import GitError, looks_like_option, repository_top, resolve_commit
from agentv_lsp.diff.render import render
from agentv_lsp.engine.files import default_repo_root
from agentv_lsp.formats.runtime import parse_requested
from agentv_lsp.report import one_line

EXIT_OK, EXIT_CHANGED, EXIT_USAGE = 0, 1, 2


def _usage(message: str) -> int:
    print(f"agentv-lsp diff: {one_line(message, 1000)}", file=sys.stderr)
    return EXIT_USAGE


def split_words(words: list[str], repo: str, cwd: str) -> tuple[list[str], list[str]]:
    """Leading words that name commits (two at most) are revisions, the rest paths (repo-relative).
    Raises ValueError for a word that looks like an option, or is both a commit and a path."""
    revisions: list[str] = []
    paths: list[str] = []
    for word in words:
        if looks_like_option(word):
            raise ValueError(f"refusing {word!r}: it looks like an option (write ./{word} for a path)")
        if not paths and len(revisions) < 2:
            try:
                resolve_commit(repo, word)
                is_commit = True
            except GitError:
                is_commit = False
            exists = os.path.lexists(os.path.join(cwd, word))
            if is_commit and exists:
                raise ValueError(f"{word!r} is both a revision and a path: write ./{word} for the path")
            if is_commit:
                revisions.append(word)
                continue
            if not exists:
                raise ValueError(f"{word!r} is neither a revision nor a path in {cwd}")
        absolute = os.path.realpath(os.path.join(cwd, word))
        relative = os.path.relpath(absolute, os.path.realpath(repo))
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            raise ValueError(f"path {word!r} is outside the repository {repo}")
        paths.append(relative.replace(os.sep, "/"))
    return revisions, paths


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through the snapshots' `with`: git's reader ends


def run(args: argparse.Namespace) -> int:
    cwd = os.getcwd()
    start = os.path.abspath(args.repo_root) if args.repo_root else default_repo_root(cwd)
    try:
        repo = repository_top(start)
    except GitError as exc:
        return _usage(str(exc))
    try:
        revisions, paths = split_words(list(args.words), repo, cwd)
    except ValueError as exc:
        return _usage(str(exc))
    base = revisions[0] if revisions else "HEAD"
    head = revisions[1] if len(revisions) > 1 else None
    workers = available_workers()

    def map_files(func: Job, jobs: list[Pair]) -> list[FileCompared | None]:
        return fork_map(func, jobs, workers)

    gc.disable()  # a short-lived process: the collector only costs time while previewing

    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        report = diff_revisions(
            repo,
            base,
            head,
            paths,
            parse_requested(args.agentv),
            cwd=cwd,
            map_files=map_files,
            full=args.full,
        )
    except (GitError, PathMatchesNothing) as exc:
        return _usage(str(exc))
    finally:
        signal.signal(signal.SIGTERM, previous)
    sys.stdout.write(render(report, args.format, args.unchanged))
    return EXIT_CHANGED if report.prompts_changed else EXIT_OK
