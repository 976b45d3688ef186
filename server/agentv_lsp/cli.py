"""Command line: `agentv-lsp preview | check | serve`. Argument handling and output only;
the work is done by the formats (`agentv_lsp.formats`: v2, v4) over the shared core
(`agentv_lsp.engine`, `agentv_lsp.checks`) and the language server (`agentv_lsp.lsp`)."""

from __future__ import annotations

import argparse
import codecs
import gc
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from agentv_lsp import __version__
from agentv_lsp.checks.model import DEFAULT_MAX_DIAGNOSTICS
from agentv_lsp.engine.files import FileReadError, FileSystem, default_repo_root
from agentv_lsp.formats.runtime import REQUESTS, RuntimeChoice, choose_runtime
from agentv_lsp.report import MESSAGE_LIMIT, is_hidden, one_line, shown_path, use_color, visible

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


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
        return run_preview(args)
    if args.command == "check":
        from agentv_lsp.checks.runner import run_check_command

        return run_check_command(args)
    if args.command == "migrate":
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
    if args.command == "diff":
        from agentv_lsp.diff.cli import run_diff_command

        return run_diff_command(args)
    from agentv_lsp.lsp.server import run_server

    return run_server(args.tcp)


def file_system_for(repo_root: str, untrusted: bool) -> FileSystem:
    """The reads of a command: `--untrusted` applies the language server's rules for an
    untrusted workspace (`FileSystem.allowed_roots`), with the repo root as the one folder."""
    return FileSystem(allowed_roots=(os.path.realpath(repo_root),) if untrusted else None)


def run_preview(args: argparse.Namespace) -> int:
    gc.disable()  # a short-lived process: the collector only costs time while parsing
    cwd = os.getcwd()
    repo_root = os.path.abspath(args.repo_root) if args.repo_root else default_repo_root(cwd)
    fs = file_system_for(repo_root, args.untrusted)
    runtime = choose_runtime(args.eval_file, _head_text(args.eval_file, fs), repo_root, args.agentv, fs)
    if runtime.major == 4:
        return _run_preview_v4(args, runtime, repo_root, cwd, fs)
    # v2 machinery is imported when a v2 file needs it (`check` and 4.x previews never do)
    from agentv_lsp.formats.v2.loader import open_eval_file
    from agentv_lsp.formats.v2.preview import preview_file

    ef = open_eval_file(args.eval_file, repo_root=repo_root, cwd=cwd, fs=fs)
    result = {
        "runtime": runtime.version,
        "runtime_reason": runtime.reason,
        **preview_file(ef, case_id=args.case),
    }
    result["warnings"] = [*_runtime_warnings(runtime), *result["warnings"]]
    _add_tokens(result)
    missing_case = args.case is not None and ef.loaded and not result["cases"]
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    else:
        render_preview(result, args.mode, use_color(args.color, sys.stdout), sys.stdout, sys.stdout.isatty())
    if missing_case:
        known = [str(c["id"]) for c in ef.raw_cases if isinstance(c, dict) and isinstance(c.get("id"), str)]
        print(
            f"agentv-lsp: no loaded case has id '{_line(args.case)}' in {one_line(args.eval_file)}"
            f" (ids: {', '.join(_line(k) for k in known[:20])}{', ...' if len(known) > 20 else ''})",
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    return EXIT_OK if ef.loaded else EXIT_FINDINGS


def _add_tokens(result: dict[str, Any]) -> None:
    """Each case's token counts (`agentv_lsp.tokens`: o200k_base, offline)."""
    from agentv_lsp.tokens import case_tokens

    for case in result["cases"]:
        case["tokens"] = case_tokens(case)


def _add_last_runs(
    result: dict[str, Any], run_dirs: list[str], repo_root: str, cwd: str, fs: FileSystem
) -> None:
    """Each test's last recorded result (`results`); what could not be read becomes a warning."""
    from agentv_lsp.results import add_last_runs, find_results

    results = find_results((cwd, repo_root), fs, explicit=run_dirs)
    add_last_runs(result, results, fs, repo_root)
    result["warnings"].extend(f"agentv-lsp: results: {problem}" for problem in results.problems)


def _last_run_line(case: dict[str, Any]) -> str | None:
    from agentv_lsp.results import describe_last_run

    return describe_last_run(case.get("last_run"))


def _token_line(case: dict[str, Any]) -> str | None:
    from agentv_lsp.tokens import describe

    return describe(case["tokens"]) if case.get("tokens") else None


def _head_text(path: str, fs: FileSystem) -> str | None:
    """Enough of the file to tell its format (None when it cannot be read: the loader says why),
    read with the command's rules (a FIFO or a device is refused, not waited on)."""
    head = FileSystem(max_bytes=1 << 20, allowed_roots=fs.allowed_roots, cache=False)
    try:
        return head.read(os.path.abspath(path)).text
    except FileReadError:
        return None


def _runtime_warnings(runtime: RuntimeChoice) -> list[str]:
    """The package.json files `auto` passed over (`formats.runtime`), as preview warnings."""
    return [f"agentv-lsp: {problem}." for problem in runtime.problems]


def _run_preview_v4(
    args: argparse.Namespace, runtime: RuntimeChoice, repo_root: str, cwd: str, fs: FileSystem
) -> int:
    from agentv_lsp.formats.v4.preview import preview_v4

    result = preview_v4(args.eval_file, repo_root, cwd, fs, case_id=args.case)
    result["runtime_reason"] = runtime.reason
    result["warnings"] = [*_runtime_warnings(runtime), *result["warnings"]]
    _add_tokens(result)
    _add_last_runs(result, args.run, repo_root, cwd, fs)
    loaded = result["load_error"] is None
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    else:
        render_preview_v4(
            result, runtime, args.mode, use_color(args.color, sys.stdout), sys.stdout, sys.stdout.isatty()
        )
    if args.case is not None and loaded and not result["cases"]:
        print(
            f"agentv-lsp: no loaded test has id '{_line(args.case)}' in {one_line(args.eval_file)}",
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    return EXIT_OK if loaded else EXIT_FINDINGS


class _Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


class _Content:
    """How `preview` shows file content (prompts, answers, criteria). Piped, exactly as the model
    receives it: exactness is the point of a preview. On a terminal, control and invisible
    characters (an escape sequence, a bidi override, zero-width or tag characters) are shown
    escaped, and in reverse video with colour, so that what is shown is what is there; `note`
    then says so. Newlines and tabs lay out the text."""

    def __init__(self, escape: bool, color: bool) -> None:
        self.escape = escape
        self.mark = (lambda shown: f"\x1b[7m{shown}\x1b[27m") if color else None
        self.found: dict[str, None] = {}

    def __call__(self, text: str) -> str:
        if not self.escape:
            return text
        shown = visible(text, keep="\n\t", mark=self.mark)
        if shown != text:
            self.found.update(dict.fromkeys(c for c in text if c not in "\n\t" and is_hidden(c)))
        return shown

    def note(self) -> str | None:
        if not self.found:
            return None
        names = ", ".join(one_line(c) for c in list(self.found)[:8]) + (", …" if len(self.found) > 8 else "")
        return (
            f"note: control or invisible characters above are shown escaped ({names}); "
            "`--json` or a pipe gives the exact text"
        )


def _line(text: object) -> str:
    """A value from the file shown within a line of its own (ids, roles, paths, messages)."""
    return one_line(str(text), MESSAGE_LIMIT)


def render_preview(result: dict[str, Any], mode: str, color: bool, out: TextIO, escape: bool = False) -> None:
    """A readable layout of the preview object; `escape`: show control and invisible
    characters in the content escaped (on a terminal; see `_Content`)."""
    s = _Style(color)
    content = _Content(escape, color)
    out.write(s(shown_path(str(result["file"])), "1") + "\n")
    if "runtime" in result:
        out.write(
            s(f"judged as AgentV {result['runtime']} ({_line(result.get('runtime_reason', ''))})", "2") + "\n"
        )
    for warning in result["warnings"]:
        out.write(s(_line(warning), "33") + "\n")
    if result["load_error"]:
        out.write(s(f"error: {_line(result['load_error'])}", "31") + "\n")
        return
    if not result["cases"]:
        out.write("(no eval cases load)\n")
    modes = ("lm", "agent") if mode == "both" else (mode,)
    for case in result["cases"]:
        out.write(
            "\n"
            + s(f"━━ {_line(case['id'])} ", "1;36")
            + s(f"(expected outcome: {_line(case['expected_outcome'])})", "2")
            + "\n"
        )
        for m in modes:
            block = case[m]
            out.write(s(f"── question [{m}]", "1") + "\n")
            out.write(_indent(content(block["question"])) + "\n")
            if block["chatPrompt"] is not None:
                out.write(s(f"── chatPrompt [{m}]", "1") + "\n")
                for turn in block["chatPrompt"]:
                    out.write(
                        s(f"  {_line(turn['role'])}:", "35")
                        + "\n"
                        + _indent(content(turn["content"]), 4)
                        + "\n"
                    )
            else:
                out.write(
                    s(
                        f"── chatPrompt [{m}]: none (flat question; "
                        "the provider adds its default system prompt)",
                        "2",
                    )
                    + "\n"
                )
        if case["lm"]["guidelines"]:
            out.write(s("── guidelines", "1") + "\n" + _indent(content(case["lm"]["guidelines"])) + "\n")
        if case["file_paths"]:
            out.write(s("── files: ", "1") + ", ".join(one_line(p) for p in case["file_paths"]) + "\n")
        if case["reference_answer"]:
            out.write(
                s("── reference answer", "1") + "\n" + _indent(content(case["reference_answer"])) + "\n"
            )
        if case["judge_prompt"] is not None:
            out.write(
                s("── judge prompt (user)", "1")
                + "\n"
                + _indent(content(case["judge_prompt"]["question"]))
                + "\n"
            )
        if (tokens := _token_line(case)) is not None:
            out.write(s(f"── {tokens}", "2") + "\n")
    _write_note(content, s, out)


def render_preview_v4(
    result: dict[str, Any], runtime: RuntimeChoice, mode: str, color: bool, out: TextIO, escape: bool = False
) -> None:
    """A readable layout of a 4.x preview object; `escape` as in `render_preview`."""
    s = _Style(color)
    content = _Content(escape, color)
    out.write(s(shown_path(str(result["file"])), "1") + "\n")
    out.write(s(f"judged as {_line(runtime.describe())}", "2") + "\n")
    for warning in result["warnings"]:
        out.write(s(_line(warning), "33") + "\n")
    if result["load_error"]:
        out.write(s(f"error: {_line(result['load_error'])}", "31") + "\n")
        return
    for skipped in result.get("skipped", []):
        name = skipped.get("id")
        if name is None:  # a test without an id: say where it is
            name = f"{skipped.get('file') or result['file']} tests[{skipped.get('index', '?')}]"
        out.write(
            s(f"skipped by the runtime: {_line(name)}: {_line(skipped.get('reason', ''))}", "33") + "\n"
        )
    if not result["cases"]:
        out.write("(no test loads)\n")
    modes = ("lm", "agent") if mode == "both" else (mode,)
    for case in result["cases"]:
        out.write("\n" + s(f"━━ {_line(case['id'])} ", "1;36") + "\n")
        if case.get("criteria"):
            out.write(s("── criteria", "1") + "\n" + _indent(content(case["criteria"])) + "\n")
        for m in modes:
            block = case[m]
            if block.get("systemMessage") is not None:
                out.write(
                    s(f"── systemMessage [{m}]", "1") + "\n" + _indent(content(block["systemMessage"])) + "\n"
                )
            out.write(s(f"── question [{m}]", "1") + "\n" + _indent(content(block["question"])) + "\n")
            if block.get("chatPrompt") is not None:
                out.write(s(f"── chatPrompt [{m}]", "1") + "\n")
                for turn in block["chatPrompt"]:
                    text = turn.get("content")
                    shown = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
                    out.write(
                        s(f"  {_line(turn.get('role'))}:", "35") + "\n" + _indent(content(shown), 4) + "\n"
                    )
        if case.get("file_paths"):
            out.write(s("── files: ", "1") + ", ".join(one_line(p) for p in case["file_paths"]) + "\n")
        if case.get("reference_answer"):
            out.write(
                s("── reference answer", "1") + "\n" + _indent(content(case["reference_answer"])) + "\n"
            )
        judge = case.get("judge_prompt")
        if judge:
            out.write(s("── grader prompt (user)", "1") + "\n" + _indent(content(judge["question"])) + "\n")
        if (tokens := _token_line(case)) is not None:
            out.write(s(f"── {tokens}", "2") + "\n")
        if (last := _last_run_line(case)) is not None:
            out.write(s(f"── {_line(last)}", "2") + "\n")
    _write_note(content, s, out)


def _write_note(content: _Content, s: _Style, out: TextIO) -> None:
    note = content.note()
    if note:
        out.write("\n" + s(note, "33") + "\n")


def _indent(text: str, width: int = 2) -> str:
    pad = " " * width
    return "\n".join(pad + line if line else line for line in text.split("\n"))
