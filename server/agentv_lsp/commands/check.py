"""`agentv-lsp check PATHS...`: from the parsed arguments to `checks.runner.run_check`, then the
report (`report.RENDERERS`) and the exit status."""

from __future__ import annotations

import argparse
import gc
import os
import sys

from agentv_lsp.checks.hidden_chars import parse_allow_items
from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.checks.runner import available_workers, run_check
from agentv_lsp.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from agentv_lsp.engine.files import default_repo_root
from agentv_lsp.engine.walk import file_system_for
from agentv_lsp.report import one_line


def run(args: argparse.Namespace) -> int:
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
