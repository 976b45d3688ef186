"""`agentv.previewCase` / `agentv.previewFile` for 4.x documents: a test by id, the whole file.

A test's preview (`hover.preview_of_test`, beside the hover that shows it, so a hover reaches
the engine without a bridge) is `formats.v4.preview.preview_test` (what `agentv-lsp preview --json
--agentv 4` prints for it) on the suite loaded from the unsaved text, computed once per test
and version, plus what the editor needs beside it:

- the v2 result's shape (`index`, `expected_outcome` = criteria, `guideline_paths` (always
  empty in 4.x), `role_markers`, `warnings`), so v2 clients keep working;
- `systemMessage` (the LM mode's), `runtime`, and `warnings` holding the runtime messages
  about this test (those whose YAML path lies inside it, and those printed while building
  its grader prompt).
"""

from __future__ import annotations

from typing import Any

from agentv_lsp.formats.v4.model import SuiteLoad
from agentv_lsp.lsp.v4.hover import (
    ROLE_MARKERS,
    messages_about,
    preview_at,
    preview_of_test,
    renumbered,
    skipped_preview,
)
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.units import units_with_id


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


def preview_by_id(model: V4Model, test_id: str) -> dict[str, Any] | None:
    for unit, index in units_with_id(model, test_id) or []:
        unit_test = unit.find_test(test_id)
        if unit_test is not None:
            return renumbered(preview_of_test(unit, unit_test), index)
    test = model.find_test(test_id)
    if test is not None:
        return preview_of_test(model, test)
    suite = model.suite
    for skipped in suite.skipped if suite is not None else []:
        if skipped.id == test_id:
            return skipped_preview(model, skipped)
    return None


__all__ = [
    "ROLE_MARKERS",
    "file_preview",
    "messages_about",
    "preview_at",
    "preview_by_id",
    "preview_of_test",
    "skipped_preview",
]
