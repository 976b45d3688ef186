"""`workspace/symbol` for 4.x eval files: every test an eval file loads, named by its id, at
the line it is written on, in the eval file itself or in the cases file its `tests:` names
(a YAML list, a JSONL file, or a folder of `case.yaml` files).

The tests are those `load_suite` loads (what `agentv eval` would run), so ids expanded or
taken from `file://` entries are found where they are written. Skipped tests that have an id
are listed too: looking one up is how one finds out why it is skipped.
"""

from __future__ import annotations

import os

from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.formats.v4.model import YamlPath
from agentv_lsp.lsp import listing
from agentv_lsp.lsp.base import WorkspaceSymbol
from agentv_lsp.lsp.protocol import RawJson
from agentv_lsp.lsp.v4.model import V4Model, v4_kind_from_path
from agentv_lsp.lsp.v4.navigation import document_symbols
from agentv_lsp.lsp.v4.state import STATE
from agentv_lsp.lsp.v4.units import layout_of
from agentv_lsp.yamlpos import YamlDocument, parse_yaml

MAX_REMEMBERED = 64


# (id, file where the test is written, 0-based line of its `id` or of the item when it has none)
WorkspaceTest = WorkspaceSymbol


def is_v4_eval(path: str, text: str) -> bool:
    """An eval file for 4.x: named `*.eval.yaml|yml` and not a v2 file (v2 lists those)."""
    return v4_kind_from_path(path) == "eval" and "agentv-eval-v2" not in text


class SourceLines:
    """The line of a `yaml_path` in the files tests come from (each file parsed once)."""

    def __init__(self, opts: CheckOptions, own_path: str, own_text: str) -> None:
        self.opts = opts
        self.own_path = os.path.normcase(own_path)
        self.own_text = own_text
        self.docs: dict[str, YamlDocument | None] = {}
        self.jsonl: dict[str, list[int]] = {}

    def text_of(self, path: str) -> str | None:
        if os.path.normcase(path) == self.own_path:
            return self.own_text
        try:
            return self.opts.fs.read_document(path)
        except Exception:  # unreadable or blocked: the test is listed at line 0
            return None

    def line(self, path: str, yaml_path: YamlPath) -> int:
        if path.lower().endswith(".jsonl"):
            records = self.jsonl.get(path)
            if records is None:
                records = self.jsonl[path] = _record_lines(self.text_of(path) or "")
            index = yaml_path[0] if yaml_path and isinstance(yaml_path[0], int) else 0
            return records[index] if 0 <= index < len(records) else 0
        if path not in self.docs:
            text = self.text_of(path)
            self.docs[path] = parse_yaml(text) if text is not None else None
        doc = self.docs[path]
        if doc is None or doc.root is None:
            return 0
        return doc.span_of((*yaml_path, "id"), key=True).start_line


def _record_lines(text: str) -> list[int]:
    """The 0-based line of each JSONL record (blank lines are not records)."""
    from agentv_lsp.formats.v4.validate import iter_jsonl

    return [number - 1 for number, _raw, _value, _error in iter_jsonl(text)]


def workspace_tests(path: str, text: str, opts: CheckOptions) -> list[WorkspaceTest]:
    """The tests the 4.x eval file `path` (with this text) loads, where each is written."""
    if not is_v4_eval(path, text):
        return []
    from agentv_lsp.formats.v4.loader import load_suite

    suite = load_suite(path, opts.repo_root, opts.cwd, opts.fs, text=text)
    lines = SourceLines(opts, path, text)
    out = [WorkspaceTest(t.id, t.source_file, lines.line(t.source_file, t.yaml_path)) for t in suite.tests]
    out += [
        WorkspaceTest(s.id, s.source_file, lines.line(s.source_file, s.yaml_path))
        for s in suite.skipped
        if isinstance(s.id, str) and s.id
    ]
    return sorted(out, key=lambda t: (t.file != path, t.file, t.line))


def open_document_tests(path: str, text: str, opts: CheckOptions, generation: int) -> list[WorkspaceTest]:
    """`workspace_tests` of an open document's text (remembered while it does not change)."""
    if not is_v4_eval(path, text):
        return []
    key = (path, len(text), hash(text), opts.repo_root, generation)
    remembered = STATE.open_tests
    with STATE.open_tests_lock:
        found = remembered.get(key)
        if found is not None:
            remembered.move_to_end(key)
            return found
    found = workspace_tests(path, text, opts)
    with STATE.open_tests_lock:
        remembered[key] = found
        while len(remembered) > MAX_REMEMBERED:
            remembered.popitem(last=False)
    return found


__all__ = ["SourceLines", "WorkspaceTest", "is_v4_eval", "open_document_tests", "workspace_tests"]


def outline_json(model: V4Model, table: listing.OutlineTable, encoding: str) -> RawJson:
    """The outline of an eval document as JSON text (see `listing.outline_json`)."""
    return listing.outline_json(
        table, layout_of(model), "tests", encoding, lambda: document_symbols(model, encoding)
    )
