"""What VS Code's Testing view needs of a 4.x eval file (`lsp/features/testing.py`): before a run,
each test's prompt size and the project's targets; after it, each test's last result.

Both read the file as the editor has it (the open buffer, else the disk through the server's
FileSystem) and load it as `agentv eval run` does."""

from __future__ import annotations

from typing import Any

from agentv_lsp.checks.options import CheckOptions
from agentv_lsp.engine.files import FileReadError
from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.engine.tokens import case_tokens
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.preview import preview_suite
from agentv_lsp.formats.v4.runtime import LoadFailure
from agentv_lsp.formats.v4.yamlmerge import parse_yaml_value
from agentv_lsp.results import EDITOR_RESULTS, add_last_runs

MAX_TARGETS = 200


def _preview(path: str, text: str | None, opts: CheckOptions, test_ids: list[str] | None) -> dict[str, Any]:
    suite = load_suite(path, opts.repo_root, opts.cwd, opts.fs, text=text)
    result = preview_suite(suite, opts.fs)
    if test_ids is not None:
        wanted = set(test_ids)
        result["cases"] = [c for c in result["cases"] if c.get("id") in wanted]
    return result


def run_plan(path: str, text: str | None, opts: CheckOptions, test_ids: list[str] | None) -> dict[str, Any]:
    """The tests a run of `test_ids` (None: all) would send and what they cost in input tokens
    (o200k_base, LM mode: what `tokens.case_tokens` counts as sent to the candidate), and the
    target names the project's targets file declares."""
    result = _preview(path, text, opts, test_ids)
    tests = [
        {"id": case.get("id"), "tokens": int(case_tokens(case)["candidate"])} for case in result["cases"]
    ]
    return {
        "load_error": result["load_error"],
        "tests": tests,
        "total_tokens": sum(t["tokens"] for t in tests),
        "targets": target_names(path, opts),
    }


def last_results(path: str, text: str | None, opts: CheckOptions) -> dict[str, Any]:
    """Each loaded test's `last_run` (as `preview --json` gives it) and `expected_output`."""
    result = _preview(path, text, opts, None)
    results = EDITOR_RESULTS.get((opts.cwd, opts.repo_root), opts.fs)
    add_last_runs(result, results, opts.fs, opts.repo_root)
    return {
        "load_error": result["load_error"],
        "tests": [
            {"id": case["id"], "last_run": case["last_run"], "expected_output": case.get("expected_output")}
            for case in result["cases"]
        ],
    }


def target_names(path: str, opts: CheckOptions) -> list[str]:
    """The `name`s of the targets file the runtime would use for this eval file."""
    found = find_targets_file(path, opts.repo_root, opts.cwd, opts.fs)
    if found is None:
        return []
    try:
        value = parse_yaml_value(opts.fs.read(found).text, found)
    except (FileReadError, LoadFailure):
        return []
    targets = value.get("targets") if isinstance(value, dict) else None
    names: list[str] = []
    for entry in targets if isinstance(targets, list) else []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name and name not in names and len(names) < MAX_TARGETS:
            names.append(name)
    return names
