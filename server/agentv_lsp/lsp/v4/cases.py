"""A cases file (a YAML list, a JSONL file or a `case.yaml` that an eval file's `tests:`
names) seen through the eval file that loads it.

A test written in a cases file means nothing alone: its prompt depends on the suite's keys
(suite `input`, `assertions`, the grader prompts). The first eval file that names the file
(`find_eval_files_using`: its folder and the folders above, up to the repository root) is
loaded with the cases file's unsaved text in place of the file on disk, and the tests it
loads from this file give the hover, the code lenses and the previews, exactly as for tests
written in the eval file itself.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
from dataclasses import dataclass

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.lsp.v4.model import Entry, V4Model, attach_tests
from agentv_lsp.yamlpos import Span


@dataclass(frozen=True, slots=True)
class CasesContext:
    """The eval file loading a cases file, and the tests it loads from it, by line."""

    eval_model: V4Model
    entries: list[Entry]
    starts: list[int]

    def entry_at(self, line: int) -> Entry | None:
        index = bisect.bisect_right(self.starts, line) - 1
        while index >= 0:
            entry = self.entries[index]
            if entry.start_line <= line <= entry.end_line:
                return entry
            index -= 1
        return None


def cases_context(model: V4Model) -> CasesContext | None:
    """The context of a cases file (None: not one, or no eval file loads a test from it)."""
    if model.kind != "cases":
        return None
    found: CasesContext | None = model.memoized("cases-context", lambda: _compute(model))
    return found


def _compute(model: V4Model) -> CasesContext | None:
    from agentv_lsp.formats.v4.check import find_eval_files_using

    opts = model.opts
    for eval_path in find_eval_files_using(model.path, opts.repo_root, opts.fs):
        # Our own FileSystem: the unsaved text must not leak into the server's shared one.
        fs = FileSystem(
            max_bytes=opts.fs.max_bytes,
            allowed_roots=opts.fs.allowed_roots,
            overlays={**opts.fs.overlays, model.path: model.text},
        )
        try:
            eval_text = fs.read_document(eval_path)
        except Exception:  # unreadable eval file: try the next one
            continue
        eval_opts = dataclasses.replace(opts, fs=fs)
        eval_model = V4Model(
            eval_path, eval_text, model.choice, eval_opts, generation=model.generation, caches=model.caches
        )
        entries = _entries(model, eval_model)
        if entries:
            return CasesContext(eval_model, entries, [e.start_line for e in entries])
    return None


def _entries(model: V4Model, eval_model: V4Model) -> list[Entry]:
    suite = eval_model.suite
    if suite is None:
        return []
    here = os.path.normcase(os.path.abspath(model.path))
    jsonl = model.path.lower().endswith(".jsonl")
    records = _record_lines(model.text) if jsonl else []
    by_path: dict[tuple[str | int, ...], Entry] = {}

    def entry_for(source: str, yaml_path: tuple[str | int, ...]) -> Entry | None:
        if os.path.normcase(os.path.abspath(source)) != here:
            return None
        found = by_path.get(yaml_path)
        if found is not None:
            return found
        if jsonl:
            index = yaml_path[0] if yaml_path and isinstance(yaml_path[0], int) else -1
            if not 0 <= index < len(records):
                return None
            line = records[index]
            span = Span(line, 0, line, len(model.line(line)))
            found = Entry(yaml_path, line, line, span)
        else:
            node = model.doc.node_at(yaml_path)
            if node is None:
                return None
            span = Span.of(node)
            last = model._last_line(node) if yaml_path else max(len(model.lines) - 1, 0)
            found = Entry(yaml_path, span.start_line, last, span)
        by_path[yaml_path] = found
        return found

    return attach_tests(suite, entry_for, by_path)


def _record_lines(text: str) -> list[int]:
    from agentv_lsp.formats.v4.validate import iter_jsonl

    return [number - 1 for number, _raw, _value, _error in iter_jsonl(text)]


def loaded_by(model: V4Model) -> str | None:
    """The eval file giving a cases file its context, relative to the cases file's folder."""
    context = cases_context(model)
    if context is None:
        return None
    return os.path.relpath(context.eval_model.path, os.path.dirname(model.path))


__all__ = ["CasesContext", "cases_context", "loaded_by"]
