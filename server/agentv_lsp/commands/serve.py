"""`agentv-lsp serve`: the language server, over stdio or TCP."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from agentv_lsp.lsp.server import run_server

    return run_server(args.tcp)
