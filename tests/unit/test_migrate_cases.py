"""tests/migrate_cases: v2 repositories, their migration, and the 4.42.4 runtime's recording of it.

The recordings (`migrated/expected/*.json`, from driver.mjs on the real runtime) are the fixed
expectations: the migrated files load without error, `agentv validate` accepts them, and the
proof's questions are the runtime's (the v2 question where the proof says "unchanged").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.migrate.cli_glue import apply_migration, discover, migrate_path

CASES = Path(__file__).resolve().parents[1] / "migrate_cases"
NAMES = sorted(p.name for p in CASES.iterdir() if p.is_dir())


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {"expected", ".git"} & set(p.relative_to(root).parts)
    }


@pytest.mark.parametrize("name", NAMES)
def test_recorded_migration(name: str, tmp_path: Path) -> None:
    root = tmp_path / name
    shutil.copytree(CASES / name / "source", root)
    (root / ".git").mkdir()
    fs = FileSystem()
    migrations = [migrate_path(p, str(root), str(root), fs) for p in discover(["."], str(root))]
    assert migrations and all(m.status == "migrated" for m in migrations)
    for m in migrations:
        apply_migration(m)
    recorded = CASES / name / "migrated"
    assert tree(root) == tree(recorded)  # the recordings below describe exactly these files
    case_record = json.loads((recorded / "expected" / "_case.json").read_text("utf-8"))
    assert case_record["validate_root"]["exit_code"] == 0
    for m in migrations:
        rel = str(Path(m.new_path).relative_to(root)).replace("\\", "/")
        record = json.loads((recorded / "expected" / f"{rel.replace('/', '__')}.json").read_text("utf-8"))
        assert record["load_error"] is None
        assert not [w for w in record["warnings"] if "Skipping" in w]
        assert not [i for i in record["validation"]["issues"] if i["severity"] == "error"]
        assert [c["id"] for c in record["cases"]] == [p.id for p in m.cases]
        for proof, case in zip(m.cases, record["cases"], strict=True):
            assert proof.v4_question == case["lm"]["question"], proof.id
            if proof.verdict == "unchanged":
                assert proof.v2_question == case["lm"]["question"], proof.id
            else:
                assert proof.v2_question != case["lm"]["question"] and proof.causes != ["unexplained"]
