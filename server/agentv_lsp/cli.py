"""Command line: `agentv-lsp preview | check | migrate | diff | serve`. Argument parsing only;
each subcommand is a module of `agentv_lsp.commands`, glue from the parsed arguments to the core
(`engine`, `checks`, `diff`, `migrate`), the formats (`formats.registry`) and the language server."""

from __future__ import annotations

import argparse
import codecs
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from agentv_lsp import __version__
from agentv_lsp.checks.model import DEFAULT_MAX_DIAGNOSTICS
from agentv_lsp.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from agentv_lsp.formats.runtime import REQUESTS

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "build_parser", "entry", "main"]


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of 0 or more, not {text!r}")
    return value


def _add_runtime_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--agentv",
        choices=REQUESTS,
        default="auto",
        help=(
            "which AgentV runtime judges the file: 4 (4.42.4, `tests:`), 2 (agentv-eval-v2) or auto "
            "(default: the installed or declared agentv package, else the file's format)"
        ),
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentv-lsp",
        description=(
            "Language server, checker and previewer for AgentV eval files: AgentV 4.x (`*.eval.yaml`, "
            "`tests:`) and v2 (`$schema: agentv-eval-v2`)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"agentv-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    preview = sub.add_parser(
        "preview",
        help="print the exact question, guidelines, chatPrompt and judge prompt of each case",
        description=(
            "Load an eval file exactly as the AgentV runtime does and print, for each case, the "
            "question, guidelines and chatPrompt in LM and agent mode, and the LLM judge prompt."
        ),
    )
    preview.add_argument("eval_file", metavar="EVAL_FILE")
    preview.add_argument("--case", metavar="ID", help="only the case with this id")
    preview.add_argument(
        "--mode",
        choices=("lm", "agent", "both"),
        default="both",
        help="formatting mode to show (default: both; --json always has both)",
    )
    preview.add_argument("--json", action="store_true", help="print the machine-readable object")
    preview.add_argument(
        "--repo-root", metavar="DIR", help="repository root (default: the git root of the working directory)"
    )
    preview.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _add_runtime_argument(preview)
    preview.add_argument(
        "--untrusted",
        action="store_true",
        help="apply the untrusted-workspace rules (for pull requests from forks): read no file outside the "
        "repo root, whether a reference uses ../, an absolute path or a symlink",
    )
    preview.add_argument(
        "--run",
        metavar="DIR",
        action="append",
        default=[],
        help="4.x: also read this AgentV run folder (one holding index.jsonl) for each test's last result; "
        "the runs under .agentv/results/runs of the working directory and the repo root are always read",
    )

    check = sub.add_parser(
        "check",
        help="validate eval, config and targets files for CI (exit 1 on errors)",
        description=(
            "Check AgentV files: our JSON schemas, everything `agentv validate` and the runtime "
            "loader report, and silent content losses. Folders are searched recursively."
        ),
    )
    check.add_argument("paths", nargs="*", metavar="PATH", default=["."])
    check.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text")
    check.add_argument("--strict", action="store_true", help="also fail (exit 1) on warnings")
    check.add_argument(
        "--repo-root", metavar="DIR", help="repository root (default: the git root of the working directory)"
    )
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    check.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    check.add_argument(
        "--allow-hidden",
        action="append",
        default=[],
        metavar="LIST",
        help="hidden characters allowed in prompts (no hidden-* warning): code points U+200F, ranges "
        "U+2066..U+2069 or all; comma separated, repeatable",
    )
    check.add_argument(
        "--hidden-as-error",
        action="store_true",
        help="report hidden characters (hidden-bidi, bidi-unbalanced, hidden-invisible, hidden-tag) as errors, "
        "so they fail the check (exit 1); by default they are warnings, since AgentV runs such files",
    )
    check.add_argument(
        "--max-diagnostics",
        type=_non_negative,
        default=DEFAULT_MAX_DIAGNOSTICS,
        metavar="N",
        help=f"diagnostics shown per file, errors first (default {DEFAULT_MAX_DIAGNOSTICS}; 0: all); "
        "a capped file gets one more saying how many were left out",
    )
    check.add_argument(
        "--only-agentv",
        action="store_true",
        help="take named files like files found in a folder: YAML that is not AgentV's is left alone "
        "(for pre-commit and other tools that pass every YAML file)",
    )
    check.add_argument(
        "--eval-glob",
        action="append",
        default=[],
        metavar="PATTERN",
        help="more names of eval files for folder walks (4.x), e.g. '**/EVAL.yaml': a glob on the path "
        "relative to the working directory; repeatable. Besides these, a walk takes *.eval.yaml, eval.yaml "
        "and the eval_patterns of .agentv/config.yaml",
    )
    _add_runtime_argument(check)
    check.add_argument(
        "--untrusted",
        action="store_true",
        help="apply the untrusted-workspace rules (for pull requests from forks): read no file outside the "
        "repo root, whether a reference uses ../, an absolute path or a symlink",
    )

    migrate = sub.add_parser(
        "migrate",
        help="migrate v2 eval files (evalcases) to AgentV 4.x (tests:), with a per-case prompt proof",
        description=(
            "Find AgentV v2 eval files and rewrite them for AgentV 4.42.4: keys renamed, evaluators turned into "
            "assertions, files renamed to *.eval.yaml, comments and layout kept. Prints a unified diff and, "
            "for each case, whether the question the model receives stays the same; --write applies it."
        ),
    )
    migrate.add_argument("paths", nargs="*", metavar="PATH")
    migrate.add_argument(
        "--write", action="store_true", help="apply the changes (each file replaced atomically)"
    )
    migrate.add_argument("--format", choices=("text", "json"), default="text")
    migrate.add_argument(
        "--repo-root", metavar="DIR", help="repository root (default: the git root of the working directory)"
    )
    migrate.add_argument(
        "--agentv-target", choices=("4",), default="4", help="the AgentV major to migrate to (only 4 today)"
    )
    migrate.add_argument(
        "--untrusted",
        action="store_true",
        help="apply the untrusted-workspace rules (for pull requests from forks): read no file outside the "
        "repo root, whether a reference uses ../, an absolute path or a symlink",
    )

    # ---- diff (agentv_lsp.diff) ----
    diff = sub.add_parser(
        "diff",
        help="what a change does to each test's prompts, between two git revisions, with token counts",
        description=(
            "Compare every test's prompts (question, chatPrompt, systemMessage or guidelines, criteria, "
            "expected output, grader prompt, assertions) between two revisions: BASE (default HEAD) and "
            "HEAD (default: the working tree). Each revision is read whole from git's objects, without "
            "running anything the repository configures. Exit status: 0 no prompt changed, 1 some "
            "changed, 2 usage error or a revision that cannot be read."
        ),
    )
    diff.add_argument(
        "words",
        nargs="*",
        metavar="[BASE [HEAD]] [PATHS...]",
        help="up to two revisions (a word that names a commit), then files or folders to limit the "
        "comparison to (write ./NAME for a path that is also a revision's name)",
    )
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    diff.add_argument(
        "--agentv",
        choices=REQUESTS,
        default="auto",
        help="which AgentV runtime judges the files (as in check)",
    )
    diff.add_argument(
        "--repo-root", metavar="DIR", help="the repository (default: the git root of the working directory)"
    )
    diff.add_argument("--unchanged", action="store_true", help="text format: list unchanged tests too")
    diff.add_argument(
        "--full",
        action="store_true",
        help="preview every eval file and count every test's tokens (default: only the eval files "
        "that read a changed file, and the tokens of the tests that changed)",
    )

    serve = sub.add_parser(
        "serve",
        help="run the language server (stdio by default)",
        description="Run the AgentV language server over stdio, or over TCP for debugging.",
    )
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead of stdio")
    # vscode-languageclient appends these to the server command; stdio is the default anyway
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    serve.add_argument("--clientProcessId", help=argparse.SUPPRESS)
    return parser


def _unencodable_output(exc: UnicodeError) -> tuple[str | bytes, int]:
    """A lone surrogate (a YAML `"\\ud800"` escape keeps one, as a JavaScript string does)
    written to UTF-8 as U+FFFD, as node writes it; anything else a stream cannot encode as `?`.
    (The UTF-8 encoder takes a replacement that is not ASCII as bytes only.)"""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    utf8 = exc.encoding.replace("-", "").replace("_", "").lower() == "utf8"
    if utf8 and all("\ud800" <= c <= "\udfff" for c in bad):
        return "\ufffd".encode() * len(bad), exc.end
    return "?" * len(bad), exc.end


OUTPUT_ERRORS = "agentv-lsp-output"
codecs.register_error(OUTPUT_ERRORS, _unencodable_output)


def entry() -> NoReturn:
    """The `agentv-lsp` console script and `python -m agentv_lsp`: `main`, then a hard exit.

    A check holds every diagnostic and report until the end; tearing the interpreter down
    frees them one by one (tens of milliseconds on a large run) for nothing. Like mypy, flush
    the output and leave without that. (Tests call `main`, which returns.)"""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=OUTPUT_ERRORS)
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        status = status or EXIT_FINDINGS
    except ValueError:
        pass  # the stream was closed already (the language server's transport at exit): nothing to flush
    except OSError:
        status = EXIT_USAGE
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _dispatch(argv)
    except BrokenPipeError:
        # The reader went away (`agentv-lsp preview ... | head`): stop quietly, and keep
        # Python from complaining again while flushing stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        return 130


def _dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if args.command == "preview":
        from agentv_lsp.commands import preview as command
    elif args.command == "check":
        from agentv_lsp.commands import check as command  # type: ignore[no-redef]
    elif args.command == "migrate":
        from agentv_lsp.commands import migrate as command  # type: ignore[no-redef]
    elif args.command == "diff":
        from agentv_lsp.commands import diff as command  # type: ignore[no-redef]
    else:
        from agentv_lsp.commands import serve as command  # type: ignore[no-redef]
    return command.run(args)
