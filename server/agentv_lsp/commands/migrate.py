"""`agentv-lsp migrate PATHS...`: from the parsed arguments to `migrate` (v2 -> 4.x)."""

from __future__ import annotations

import argparse
import os
import sys


def run(args: argparse.Namespace) -> int:
    from agentv_lsp.migrate import run_migrate

    return run_migrate(
        args.paths,
        args.write,
        args.format,
        args.repo_root,
        os.getcwd(),
        sys.stdout,
        untrusted=args.untrusted,
    )
