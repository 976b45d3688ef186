"""`agentv.previewCase` / `agentv.previewFile` and the hover question for 4.x documents.

A test's preview is `formats.v4.preview.preview_test` (what `agentv-lsp preview --json
--agentv 4` prints for it) on the suite loaded from the unsaved text, computed once per test
and version, plus what the editor needs beside it:

- the v2 result's shape (`index`, `expected_outcome` = criteria, `guideline_paths` (always
  empty in 4.x), `role_markers`, `warnings`), so v2 clients keep working;
- `systemMessage` (the LM mode's), `runtime`, and `warnings` holding the runtime messages
  about this test (those whose YAML path lies inside it, and those printed while building
  its grader prompt).
"""

from __future__ import annotations

import os
from typing import Any

from agentv_lsp.formats.v4.model import RuntimeMessage, SkippedTest, SuiteLoad, V4Test, YamlPath
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.units import unit_at, units_with_id

ROLE_MARKERS = ("@[System]:", "@[User]:", "@[Assistant]:", "@[Tool]:")


def preview_of_test(model: V4Model, test: V4Test) -> dict[str, Any]:
    """One loaded test as the commands return it (cached on the model)."""
    index = model.test_index(test)
    found: dict[str, Any] = model.memoized(("preview", index), lambda: _preview(model, test, index))
    return found


def _preview(model: V4Model, test: V4Test, index: int) -> dict[str, Any]:
    suite = model.suite
    assert suite is not None  # a test was loaded, so the suite was
    from agentv_lsp.formats.v4.preview import preview_test

    printed: list[RuntimeMessage] = []
    result = preview_test(suite, test, model.opts.fs, printed)
    lm = result.get("lm") or {}
    question = lm.get("question") if isinstance(lm, dict) else None
    here = os.path.normcase(test.source_file) == os.path.normcase(model.path)
    position = test.yaml_path[1] if here and len(test.yaml_path) > 1 else index
    result.update(
        {
            "index": position,
            "expected_outcome": test.criteria,
            "guideline_paths": [],
            "role_markers": isinstance(question, str) and question.startswith(ROLE_MARKERS),
            "systemMessage": lm.get("systemMessage") if isinstance(lm, dict) else None,
            "runtime": model.choice.version,
            "runtime_reason": model.choice.reason,
            "warnings": [m.text for m in messages_about(suite, test.source_file, test.yaml_path)]
            + [m.text for m in printed],
        }
    )
    return result


def skipped_preview(model: V4Model, skipped: SkippedTest) -> dict[str, Any]:
    """A test the runtime drops: the reason, as v2 reports a skipped case."""
    suite = model.suite
    messages = messages_about(suite, skipped.source_file, skipped.yaml_path) if suite is not None else []
    return {
        "id": skipped.id,
        "index": skipped.yaml_path[1] if len(skipped.yaml_path) > 1 else None,
        "error": f"AgentV skips this test: {skipped.reason}",
        "warnings": [m.text for m in messages] or [skipped.reason],
        "runtime": model.choice.version,
    }


def _renumbered(preview: dict[str, Any] | None, index: int) -> dict[str, Any] | None:
    """A unit's preview (its test is `tests[0]` there) for test `index` of the file."""
    if preview is None or preview.get("index") == index:
        return preview
    return {**preview, "index": index}


def messages_about(suite: SuiteLoad, source_file: str, yaml_path: YamlPath) -> list[RuntimeMessage]:
    """The runtime messages located inside one `tests` entry."""
    size = len(yaml_path)
    where = os.path.normcase(source_file)
    return [
        m
        for m in suite.messages
        if m.yaml_path is not None
        and m.yaml_path[:size] == yaml_path
        and m.file is not None
        and os.path.normcase(m.file) == where
    ]


def file_preview(model: V4Model) -> dict[str, Any] | None:
    """The whole-file preview (`preview --json`), with each test as `preview_of_test` gives it."""
    suite = model.suite
    if suite is None:
        return None
    from agentv_lsp.formats.v4.preview import preview_suite

    head = preview_suite(_without_tests(suite), model.opts.fs)
    head["cases"] = [preview_of_test(model, test) for test in suite.tests]
    head["runtime_reason"] = model.choice.reason
    return head


def _without_tests(suite: SuiteLoad) -> SuiteLoad:
    """A copy of the suite's header (tests are previewed one by one, from the cache)."""
    import copy

    header = copy.copy(suite)
    header.tests = []
    return header


def preview_at(model: V4Model, line: int) -> dict[str, Any] | None:
    """The preview of the test written around `line` (None outside any test). In a large
    file, from the test's own unit (see `units`)."""
    found = unit_at(model, line)
    if found is not None:
        unit, unit_line, index = found
        return _renumbered(preview_at(unit, unit_line), index)
    entry = model.entry_at(line)
    if entry is None:
        return None
    if entry.tests:
        return preview_of_test(model, entry.tests[0])
    if entry.skipped is not None:
        return skipped_preview(model, entry.skipped)
    return None


def preview_by_id(model: V4Model, test_id: str) -> dict[str, Any] | None:
    for unit, index in units_with_id(model, test_id) or []:
        unit_test = unit.find_test(test_id)
        if unit_test is not None:
            return _renumbered(preview_of_test(unit, unit_test), index)
    test = model.find_test(test_id)
    if test is not None:
        return preview_of_test(model, test)
    suite = model.suite
    for skipped in suite.skipped if suite is not None else []:
        if skipped.id == test_id:
            return skipped_preview(model, skipped)
    return None
