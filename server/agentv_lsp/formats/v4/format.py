"""AgentV 4.42.4 as a `Format` (`formats.protocol`): what the command line, `check` and `diff`
ask of it. Its machinery is imported when a file needs it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from agentv_lsp.formats.declared import declares_v2
from agentv_lsp.formats.v4 import RUNTIME_VERSION

if TYPE_CHECKING:
    from agentv_lsp.checks.options import CheckOptions, DocumentReport
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.protocol import DiffHooks, DiffPreview, PreviewOutcome, PreviewRequest, Taken


class V4Format:
    name = "v4"
    major = 4
    version = RUNTIME_VERSION
    request = "4"
    declared_reason = "no AgentV installed or declared; the file is not in the v2 format"
    diff_fields: Mapping[str, Callable[[dict[str, Any]], Any]] = {
        "criteria": lambda c: c.get("criteria"),
        "expected_output": lambda c: c.get("expected_output"),
        "assertions": lambda c: c.get("assertions"),
    }

    def declares(self, text: str) -> bool:
        return False  # 4.x files declare nothing: 4.x judges what no other format declares

    def eval_name(self, lower_path: str) -> bool:
        return lower_path.endswith((".eval.yaml", ".eval.yml"))

    def declares_eval(self, head: str) -> bool:
        return False

    def walk_takes(self, path: str, text: str, opts: CheckOptions) -> Taken | None:
        """What 4.42.4 reads (`formats.v4.discovery`: `*.eval.yaml`, `eval.yaml`, the project's
        `eval_patterns`, `--eval-glob`; through `uses`, the cases and settings files they use),
        plus files that declare the v2 format by a top-level key, which 4.x no longer reads (the
        check says so instead of passing over them in silence); other YAML is left alone,
        whatever its text mentions."""
        from agentv_lsp.formats.v4.discovery import walk_takes_as_eval

        if walk_takes_as_eval(path, opts.repo_root, opts.cwd, opts.fs, opts.eval_globs):
            return "eval"
        return "file" if declares_v2(text) else None

    def warm(self) -> None:
        import agentv_lsp.formats.v4.check  # noqa: F401

    def check(
        self, path: str, text: str, opts: CheckOptions, *, named: bool, as_eval: bool, split: int = 1
    ) -> DocumentReport | None:
        import functools

        from agentv_lsp.checks.parallel import fork_map
        from agentv_lsp.formats.v4.check import check_v4_document
        from agentv_lsp.formats.v4.discovery import validate_reads
        from agentv_lsp.formats.v4.split import check_split_v4

        if split > 1 and validate_reads(path):
            report = check_split_v4(path, text, opts, functools.partial(fork_map, workers=split), split)
            if report is not None:
                return report
        return check_v4_document(path, text, opts, as_eval=as_eval)

    def uses(self, report: DocumentReport, opts: CheckOptions) -> list[str]:
        return list(report.uses)

    def preview(self, request: PreviewRequest) -> PreviewOutcome:
        from agentv_lsp.formats.protocol import PreviewOutcome
        from agentv_lsp.formats.v4.preview import preview_v4
        from agentv_lsp.report import one_line
        from agentv_lsp.report.preview import add_tokens, line

        result = preview_v4(request.path, request.repo_root, request.cwd, request.fs, case_id=request.case_id)
        result["runtime_reason"] = request.runtime_reason
        result["warnings"] = [*request.runtime_warnings, *result["warnings"]]
        add_tokens(result)
        _add_last_runs(result, request)
        loaded = result["load_error"] is None
        missing = None
        if request.case_id is not None and loaded and not result["cases"]:
            missing = (
                f"agentv-lsp: no loaded test has id '{line(request.case_id)}' in {one_line(request.path)}"
            )
        return PreviewOutcome(result, loaded, missing)

    def render_preview(
        self, result: dict[str, Any], described: str, mode: str, color: bool, out: TextIO, escape: bool
    ) -> None:
        from agentv_lsp.formats.v4.render import render_preview_v4

        render_preview_v4(result, described, mode, color, out, escape)

    def tests_for_diff(self, path: str, root: str, cwd: str, fs: FileSystem, hooks: DiffHooks) -> DiffPreview:
        """`preview_v4`, test by test, so that `diff` can note the files each test's prompts read
        and skip the tests whose prompts it knows (`DiffHooks`)."""
        from agentv_lsp.engine.files import FileReadError
        from agentv_lsp.formats.protocol import ReusedCase
        from agentv_lsp.formats.v4.loader import load_suite
        from agentv_lsp.formats.v4.preview import preview_test
        from agentv_lsp.formats.v4.yamlbom import parse_yaml_v4

        doc = None
        if hooks.parses is not None and path.lower().endswith((".yaml", ".yml")):
            try:
                text = fs.read_document(path)  # read as the loader reads it (noted, limits kept)
            except FileReadError:
                text = None  # the loader reads it again and reports why it cannot
            if text is not None:
                doc = hooks.parses.get(text)
                if doc is None:
                    doc = hooks.parses[text] = parse_yaml_v4(text)
        suite = load_suite(path, root, cwd, fs, doc=doc)
        if hooks.loaded is not None:
            hooks.loaded(suite)
        judge_messages: list[Any] = []
        cases: list[Any] = []
        for test in suite.tests:
            if hooks.reuse is not None and hooks.reuse(test):
                cases.append(ReusedCase(test.id))
                continue
            cases.append(preview_test(suite, test, fs, judge_messages))
            if hooks.built is not None:
                hooks.built()
        result = {
            "load_error": suite.load_error,
            "warnings": [m.text for m in suite.messages],
            "cases": cases,
        }
        return result, [(s.id, str(s.reason)) for s in suite.skipped]


def _add_last_runs(result: dict[str, Any], request: PreviewRequest) -> None:
    """Each test's last recorded result (`results`); what could not be read becomes a warning."""
    from agentv_lsp.results import add_last_runs, find_results

    results = find_results((request.cwd, request.repo_root), request.fs, explicit=request.run_dirs)
    add_last_runs(result, results, request.fs, request.repo_root)
    result["warnings"].extend(f"agentv-lsp: results: {problem}" for problem in results.problems)


V4 = V4Format()
