"""The toy format's engine side: a `Format` (`agentv_lsp.formats.protocol`) built on the core
alone (the one YAML reader, the diagnostics model), importing neither v2 nor 4.x."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.checks.options import CheckOptions, DocumentReport
from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.formats.protocol import DiffHooks, DiffPreview, PreviewOutcome, PreviewRequest, Taken
from agentv_lsp.yamlpos import Span, YamlDocument, parse_yaml

_DECLARED = re.compile(r"""^["']?\$schema["']?[ \t]*:[ \t]*["']?toy-eval\b""", re.M)


class ToyFormat:
    name = "toy"
    major = 0
    version = "toy 1"
    request = "toy"
    declared_reason = "the file declares $schema toy-eval"
    diff_fields: Mapping[str, Callable[[dict[str, Any]], Any]] = {}

    def declares(self, text: str) -> bool:
        return _DECLARED.search(text) is not None

    def eval_name(self, lower_path: str) -> bool:
        return False

    def declares_eval(self, head: str) -> bool:
        return self.declares(head)

    def walk_takes(self, path: str, text: str, opts: CheckOptions) -> Taken | None:
        return "eval" if self.declares(text) else None

    def warm(self) -> None:
        pass

    def check(
        self, path: str, text: str, opts: CheckOptions, *, named: bool, as_eval: bool, split: int = 1
    ) -> DocumentReport | None:
        doc = parse_yaml(text)
        return DocumentReport(path, "eval", doc, findings(path, doc))

    def uses(self, report: DocumentReport, opts: CheckOptions) -> list[str]:
        return []

    def preview(self, request: PreviewRequest) -> PreviewOutcome:
        result, _skipped = self._load(request.path, request.fs)
        cases = [c for c in result["cases"] if request.case_id is None or c["id"] == request.case_id]
        shown = {
            "file": os.path.relpath(os.path.abspath(request.path), request.repo_root),
            "runtime": self.version,
            "runtime_reason": request.runtime_reason,
            "load_error": result["load_error"],
            "warnings": [*request.runtime_warnings, *result["warnings"]],
            "cases": cases,
        }
        loaded = result["load_error"] is None
        missing = None
        if request.case_id is not None and loaded and not cases:
            missing = f"agentv-lsp: no toy case has id {request.case_id!r}"
        return PreviewOutcome(shown, loaded, missing)

    def render_preview(
        self, result: dict[str, Any], described: str, mode: str, color: bool, out: TextIO, escape: bool
    ) -> None:
        out.write(f"{result['file']}\njudged as {described}\n")
        if result["load_error"]:
            out.write(f"error: {result['load_error']}\n")
        for case in result["cases"]:
            out.write(f"\n━━ {case['id']}\n── question [lm]\n  {case['lm']['question']}\n")

    def tests_for_diff(self, path: str, root: str, cwd: str, fs: FileSystem, hooks: DiffHooks) -> DiffPreview:
        return self._load(path, fs)

    def _load(self, path: str, fs: FileSystem) -> DiffPreview:
        try:
            doc = parse_yaml(fs.read_document(os.path.abspath(path)))
        except FileReadError as exc:
            return {"load_error": str(exc), "warnings": [], "cases": []}, []
        if doc.error is not None:
            return {"load_error": doc.error.describe(), "warnings": [], "cases": []}, []
        shown = shown_cases(doc)
        skipped: list[tuple[object, str]] = [
            (case.get("id", f"case-{index + 1}") if isinstance(case, dict) else None, "no input")
            for index, case in enumerate(_cases(doc))
            if index not in shown
        ]
        return {"load_error": None, "warnings": [], "cases": list(shown.values())}, skipped


def shown_cases(doc: YamlDocument) -> dict[int, dict[str, Any]]:
    """The cases the preview shows, by their index in `cases` (one without an input is skipped)."""
    shown: dict[int, dict[str, Any]] = {}
    for index, case in enumerate(_cases(doc)):
        if isinstance(case, dict) and isinstance(case.get("input"), str):
            case_id = str(case.get("id", f"case-{index + 1}"))
            shown[index] = {"id": case_id, "lm": {"question": case["input"]}, "agent": {"question": case["input"]}}
    return shown


def _cases(doc: YamlDocument) -> list[Any]:
    value = doc.value if isinstance(doc.value, dict) else {}
    cases = value.get("cases")
    return cases if isinstance(cases, list) else []


def findings(path: str, doc: YamlDocument) -> list[Diagnostic]:
    if doc.error is not None:
        return [Diagnostic(path, doc.error.span, "error", "toy-yaml", doc.error.describe())]
    if not isinstance(doc.value, dict) or not isinstance(doc.value.get("cases"), list):
        return [
            Diagnostic(path, Span(0, 0, 0, 0), "error", "toy-cases", "A toy file needs a list of `cases`.")
        ]
    return [
        Diagnostic(
            path, doc.span_of(("cases", index)), "error", "toy-input", "A toy case needs an `input` text."
        )
        for index, case in enumerate(doc.value["cases"])
        if not (isinstance(case, dict) and isinstance(case.get("input"), str))
    ]


TOY = ToyFormat()
