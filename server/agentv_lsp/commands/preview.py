"""`agentv-lsp preview EVAL_FILE`: the runtime that judges the file (`formats.runtime`) names the
`Format` that previews it and lays the preview out; `--json` prints the object as it is."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys

from agentv_lsp.commands import EXIT_FINDINGS, EXIT_OK
from agentv_lsp.engine.files import FileReadError, FileSystem, default_repo_root
from agentv_lsp.engine.walk import file_system_for
from agentv_lsp.formats.protocol import PreviewRequest
from agentv_lsp.formats.runtime import choose_runtime
from agentv_lsp.report import use_color


def run(args: argparse.Namespace) -> int:
    gc.disable()  # a short-lived process: the collector only costs time while parsing
    cwd = os.getcwd()
    repo_root = os.path.abspath(args.repo_root) if args.repo_root else default_repo_root(cwd)
    fs = file_system_for(repo_root, args.untrusted)
    runtime = choose_runtime(args.eval_file, _head_text(args.eval_file, fs), repo_root, args.agentv, fs)
    fmt = runtime.format
    request = PreviewRequest(
        args.eval_file,
        repo_root,
        cwd,
        fs,
        case_id=args.case,
        runtime_reason=runtime.reason,
        # the package.json files `auto` passed over (`formats.runtime`)
        runtime_warnings=[f"agentv-lsp: {problem}." for problem in runtime.problems],
        run_dirs=args.run,
    )
    outcome = fmt.preview(request)
    if args.json:
        sys.stdout.write(json.dumps(outcome.result, ensure_ascii=False, indent=2) + "\n")
    else:
        color = use_color(args.color, sys.stdout)
        fmt.render_preview(
            outcome.result, runtime.describe(), args.mode, color, sys.stdout, sys.stdout.isatty()
        )
    if outcome.missing_case is not None:
        print(outcome.missing_case, file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK if outcome.loaded else EXIT_FINDINGS


def _head_text(path: str, fs: FileSystem) -> str | None:
    """Enough of the file to tell its format (None when it cannot be read: the loader says why),
    read with the command's rules (a FIFO or a device is refused, not waited on)."""
    head = FileSystem(max_bytes=1 << 20, allowed_roots=fs.allowed_roots, cache=False)
    try:
        return head.read(os.path.abspath(path)).text
    except FileReadError:
        return None
