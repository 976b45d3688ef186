"""Our AgentV 4.42.4 preview against outputs recorded from the real runtime.

Each folder under cases/ is a tiny repository recorded by the golden-v4 driver (the published
@agentv/core@4.42.4 `loadTests` + `buildPromptInputs`): expected/<eval path, / as __>.json.
The folder is copied (without expected/) three levels deep into a temporary directory, gets
an empty .git/ at its root (unless case.json says "git_root": false) and becomes the working
directory and repo root, as when it was recorded; the copy's path is then replaced by <ROOT>.
Compared: load_error (null or not: YAML library texts are not portable), every console
message in order (stream prefix removed), and per loaded test id, conversation_id, criteria,
expected_output, reference_answer, file_paths and the lm/agent prompt inputs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.preview import js_numbers, preview_v4

CASES = Path(__file__).parent / "cases"
FIELDS = (
    "id",
    "conversation_id",
    "criteria",
    "expected_output",
    "reference_answer",
    "file_paths",
    "lm",
    "agent",
)
STREAMS = ("warn: ", "error: ", "log: ", "info: ")


def _eval_files() -> list[tuple[str, str]]:
    out = []
    for case in sorted(p for p in CASES.iterdir() if (p / "expected" / "_case.json").exists()):
        meta = json.loads((case / "expected" / "_case.json").read_text())
        out.extend((case.name, rel) for rel in meta["eval_files"])
    return out


def _scrub(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        pairs = [
            (str(root), "<ROOT>"),
            (str(root.parent), "<ROOT>/.."),
            (str(root.parent.parent), "<ROOT>/../.."),
        ]
        for old, new in pairs:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_scrub(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, root) for k, v in value.items()}
    return value


def _stage(case: Path, tmp: Path) -> Path:
    root = tmp / "a" / "b" / "c" / "case"
    shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected"))
    meta_file = case / "case.json"
    meta = json.loads(meta_file.read_text()) if meta_file.exists() else {}
    if meta.get("git_root", True):
        (root / ".git").mkdir(exist_ok=True)
    return root


def _messages(golden: dict[str, Any]) -> list[str]:
    return [w.split(": ", 1)[1] if w.startswith(STREAMS) else w for w in golden["warnings"]]


@pytest.mark.parametrize(("case", "rel"), _eval_files(), ids=lambda v: str(v))
def test_preview_matches_runtime(
    case: str, rel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    golden = json.loads((CASES / case / "expected" / (rel.replace("/", "__") + ".json")).read_text())
    root = _stage(CASES / case, tmp_path)
    monkeypatch.chdir(root)
    got = _scrub(preview_v4(rel, str(root), str(root), FileSystem()), root)
    assert (got["load_error"] is None) == (golden["load_error"] is None), got["load_error"]
    assert got["warnings"] == _messages(golden)
    assert [c["id"] for c in got["cases"]] == [c["id"] for c in golden["cases"]]
    for want, have in zip(golden["cases"], got["cases"], strict=True):
        assert {k: have[k] for k in FIELDS} == {k: want[k] for k in FIELDS}, want["id"]


@pytest.mark.parametrize(("case", "rel"), _eval_files(), ids=lambda v: str(v))
def test_graders_and_metadata_match_runtime(
    case: str, rel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`EvalTest.assertions` and `.metadata` (recorded by record_assertions.mjs): the grader
    configs the judge preview reads, with the runtime's keys, order and defaults."""
    recorded = CASES / case / "expected" / (rel.replace("/", "__") + ".assertions.json")
    if not recorded.exists():
        pytest.skip("not recorded")
    root = _stage(CASES / case, tmp_path)
    monkeypatch.chdir(root)
    suite = load_suite(rel, str(root), str(root), FileSystem())
    rows = [[t.id, js_numbers(t.assertions), t.metadata] for t in suite.tests]
    got = _scrub(json.loads(json.dumps(rows)), root)
    assert json.dumps(got) == json.dumps(json.loads(recorded.read_text()))
