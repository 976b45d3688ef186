"""AgentV v2 as a `Format` (`formats.protocol`): what the command line, `check` and `diff` ask
of it. Its machinery is imported when a v2 file needs it: a 4.x tree never loads it."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from agentv_lsp.formats.declared import declares_v2, text_declares_v2

if TYPE_CHECKING:
    from agentv_lsp.checks.options import CheckOptions, DocumentReport
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.protocol import DiffHooks, DiffPreview, PreviewOutcome, PreviewRequest, Taken

# During a folder walk a YAML file is a v2 file when it declares an `agentv-` schema or has an
# `evalcases` key at its top level (`declares_v2`), even if AgentV cannot load it (syntax error,
# missing or wrong `$schema`); any other YAML is left alone unless named on the command line,
# whatever its text mentions. These substrings let the walk pass over most files unparsed.
_AGENTV_MARKERS = ("agentv-", "evalcases")
# `diff`'s walk: a v2 eval file by the start of its text
_V2_EVAL = re.compile(
    r"""^(?:["']?evalcases["']?[ \t]*:|["']?\$schema["']?[ \t]*:[ \t]*["']?agentv-eval)""", re.M
)


class V2Format:
    name = "v2"
    major = 2
    version = "2 (agentv-eval-v2)"
    request = "2"
    declared_reason = "the file uses the v2 format ($schema agentv-eval-v2 / evalcases)"
    diff_fields: Mapping[str, Callable[[dict[str, Any]], Any]] = {
        "criteria": lambda c: c.get("expected_outcome"),
        "assertions": lambda c: c.get("evaluator"),
    }

    def declares(self, text: str) -> bool:
        return text_declares_v2(text)

    def eval_name(self, lower_path: str) -> bool:
        return False

    def declares_eval(self, head: str) -> bool:
        return _V2_EVAL.search(head) is not None

    def walk_takes(self, path: str, text: str, opts: CheckOptions) -> Taken | None:
        return "file" if any(marker in text for marker in _AGENTV_MARKERS) else None

    def warm(self) -> None:
        pass  # a child process imports v2 when a file needs it (4.x trees never do)

    def check(
        self, path: str, text: str, opts: CheckOptions, *, named: bool, as_eval: bool, split: int = 1
    ) -> DocumentReport | None:
        import functools

        from agentv_lsp.checks.parallel import fork_map
        from agentv_lsp.formats.v2.check import check_document
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
        return report

    def uses(self, report: DocumentReport, opts: CheckOptions) -> list[str]:
        uses = list(report.uses)
        if report.kind != "eval":
            return uses
        from agentv_lsp.engine.targets_file import find_targets_file
        from agentv_lsp.formats.v2.config import load_config

        path = report.path
        from agentv_lsp.formats.v2.detail import eval_file_of

        ef = eval_file_of(report)
        config = ef.config if ef is not None else load_config(path, opts.repo_root, opts.fs)
        uses.extend(config.skipped)
        if config.path:
            uses.append(config.path)
        targets = find_targets_file(path, opts.repo_root, opts.cwd, opts.fs)
        if targets:
            uses.append(targets)
        return uses

    def preview(self, request: PreviewRequest) -> PreviewOutcome:
        from agentv_lsp.formats.protocol import PreviewOutcome
        from agentv_lsp.formats.v2.loader import open_eval_file
        from agentv_lsp.formats.v2.preview import preview_file
        from agentv_lsp.report import one_line
        from agentv_lsp.report.preview import add_tokens, line

        ef = open_eval_file(request.path, repo_root=request.repo_root, cwd=request.cwd, fs=request.fs)
        result = {
            "runtime": self.version,
            "runtime_reason": request.runtime_reason,
            **preview_file(ef, case_id=request.case_id),
        }
        result["warnings"] = [*request.runtime_warnings, *result["warnings"]]
        add_tokens(result)
        missing = None
        if request.case_id is not None and ef.loaded and not result["cases"]:
            known = [
                str(c["id"]) for c in ef.raw_cases if isinstance(c, dict) and isinstance(c.get("id"), str)
            ]
            missing = (
                f"agentv-lsp: no loaded case has id '{line(request.case_id)}' in {one_line(request.path)}"
                f" (ids: {', '.join(line(k) for k in known[:20])}{', ...' if len(known) > 20 else ''})"
            )
        return PreviewOutcome(result, ef.loaded, missing)

    def render_preview(
        self, result: dict[str, Any], described: str, mode: str, color: bool, out: TextIO, escape: bool
    ) -> None:
        from agentv_lsp.formats.v2.render import render_preview

        render_preview(result, mode, color, out, escape)

    def tests_for_diff(self, path: str, root: str, cwd: str, fs: FileSystem, hooks: DiffHooks) -> DiffPreview:
        """Every test built at once (v2 files are small; no hook is called)."""
        from agentv_lsp.formats.v2.loader import load_case, open_eval_file
        from agentv_lsp.formats.v2.preview import preview_case

        ef = open_eval_file(path, repo_root=root, cwd=cwd, fs=fs)
        cases: list[dict[str, Any]] = []
        skipped: list[tuple[object, str]] = []
        warnings = [n.render() for n in ef.notices]
        if ef.loaded:
            for index in range(len(ef.raw_cases)):
                outcome = load_case(ef, index)
                warnings.extend(n.render() for n in outcome.notices)
                if outcome.case is None:
                    reason = "; ".join(n.message for n in outcome.notices) or "skipped by the runtime"
                    raw_id = outcome.raw_id if isinstance(outcome.raw_id, str) else None
                    skipped.append((raw_id, reason))
                else:
                    cases.append(preview_case(ef, outcome.case))
        result = {"load_error": ef.load_error, "warnings": warnings, "cases": cases}
        return result, skipped


V2 = V2Format()
