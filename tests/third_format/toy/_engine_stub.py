"""A stand-in for the toy format's engine (`engine.py`, the engine-side `Format`, which comes
with `formats.protocol`): just what the server side needs, on the core alone (the one YAML
reader, the diagnostics model). Once `engine.py` is here, `editor.py` uses it instead."""

from __future__ import annotations

import re
from typing import Any

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.yamlpos import Span, YamlDocument, parse_yaml

_DECLARED = re.compile(r"""^["']?\$schema["']?[ \t]*:[ \t]*["']?toy-eval\b""", re.M)


class ToyEngine:
    name = "toy"

    def declares(self, text: str) -> bool:
        return _DECLARED.search(text) is not None

    def read(self, text: str) -> YamlDocument:
        return parse_yaml(text)

    def check(self, path: str, doc: YamlDocument) -> list[Diagnostic]:
        if doc.error is not None:
            return [Diagnostic(path, doc.error.span, "error", "toy-yaml", doc.error.describe())]
        if not isinstance(doc.value, dict) or not isinstance(doc.value.get("cases"), list):
            return [
                Diagnostic(
                    path, Span(0, 0, 0, 0), "error", "toy-cases", "A toy file needs a list of `cases`."
                )
            ]
        return [
            Diagnostic(
                path, doc.span_of(("cases", i)), "error", "toy-input", "A toy case needs an `input` text."
            )
            for i, case in enumerate(doc.value["cases"])
            if not (isinstance(case, dict) and isinstance(case.get("input"), str))
        ]

    def cases(self, doc: YamlDocument) -> list[tuple[int, dict[str, Any]]]:
        """(index, case) of each case, as the preview shows it: its id and the question."""
        value = doc.value if isinstance(doc.value, dict) else {}
        found = value.get("cases")
        if not isinstance(found, list):
            found = []
        return [
            (i, {"id": str(case.get("id", f"case-{i + 1}")), "lm": {"question": case["input"]}})
            for i, case in enumerate(found)
            if isinstance(case, dict) and isinstance(case.get("input"), str)
        ]


TOY_ENGINE = ToyEngine()
