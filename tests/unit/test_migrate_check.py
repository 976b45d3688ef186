"""`agentv-lsp migrate` runs the whole 4.x check on the migrated text before anything is
written, and names every error and runtime message 4.42.4 would give, marked "was already so
in v2" where the v2 check of the original reports the same problem (issue 26). Minimal trees
of the shapes where the v2 goldens migrated "clean" while 4.42.4 still complained: a
referenced file that does not exist, the `tool` role, an `image` URL (4.x loads it as a file).
The runtime itself confirms each claim in test_migrate_oracle.py (migrated goldens)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agentv_lsp.migrate import run_migrate

HEAD = "$schema: agentv-eval-v2\nevalcases:\n"
CLEAN = (
    HEAD + "  - id: ok\n    outcome: says hi\n    input_messages:\n      - role: user\n        content: hi\n"
)
MISSING_FILE = HEAD + (
    "  - id: m\n    outcome: o\n    input_messages:\n      - role: user\n        content:\n"
    "          - type: file\n            value: absent.md\n          - type: text\n            value: read it\n"
)
TOOL_ROLE = HEAD + (
    "  - id: t\n    outcome: o\n    input_messages:\n      - role: user\n        content: run it\n"
    "      - role: tool\n        content: done\n      - role: user\n        content: and?\n"
)
IMAGE_URL = HEAD + (
    "  - id: i\n    outcome: o\n    input_messages:\n      - role: user\n        content:\n"
    "          - type: image\n            value: https://example.invalid/cat.png\n"
    "          - type: text\n            value: describe it\n"
)


def migrate(tmp_path: Path, text: str, *extra: str) -> tuple[int, dict, str]:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "evals").mkdir()
    eval_file = root / "evals" / "suite.yaml"
    eval_file.write_text(text)
    out = io.StringIO()
    code = run_migrate(["evals", *extra], False, "json", None, str(root), out)
    (entry,) = json.loads(out.getvalue())["files"]
    text_out = io.StringIO()
    run_migrate(["evals"], False, "text", None, str(root), text_out)
    assert eval_file.read_text() == text  # nothing written without --write
    return code, entry, text_out.getvalue()


def attention(entry: dict) -> list[str]:
    return [f["message"] for f in entry["findings"] if f["attention"]]


def test_clean_file_stays_clean(tmp_path):
    code, entry, _ = migrate(tmp_path, CLEAN)
    assert code == 0 and attention(entry) == [] and entry["status"] == "migrated"


@pytest.mark.parametrize(
    ("text", "says", "in_v2"),
    [
        (MISSING_FILE, "Referenced file not found: absent.md", True),
        (TOOL_ROLE, "Invalid role 'tool'", True),
        (IMAGE_URL, "Image file not found: https://example.invalid/cat.png", False),
    ],
    ids=["missing-file", "tool-role", "image-url"],
)
def test_what_4_42_4_still_complains_about_is_named(tmp_path, text, says, in_v2):
    code, entry, report = migrate(tmp_path, text)
    assert code == 1
    named = [m for m in attention(entry) if says in m]
    assert len(named) == 1, attention(entry)
    assert named[0].endswith("(was already so in v2)") is in_v2
    assert says in report and "needs attention" in report


def test_findings_point_into_the_migrated_file(tmp_path):
    _code, entry, _ = migrate(tmp_path, TOOL_ROLE)
    (finding,) = [f for f in entry["findings"] if f["attention"]]
    assert finding["file"].endswith("evals/suite.eval.yaml")
    assert "tests[0].input[1].role" in finding["message"]
