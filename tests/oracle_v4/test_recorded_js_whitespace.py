"""`cases/js-whitespace`: JavaScript's white space is not Python's. `trim()` and a schema
pattern's `\\s` keep U+0085 and U+001C-U+001F (space to `str.isspace`) and drop U+FEFF (not
space to it). The general rule of `test_recorded_v4` passes any extra error on a file validate
fails; here every error must stand exactly where validate put one, and nowhere else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.oracle_v4.oracle import our_check

CASE = Path(__file__).resolve().parent / "cases" / "js-whitespace"


@pytest.mark.parametrize("name", ["space", "blank"])
def test_errors_stand_where_validate_puts_them(tmp_path: Path, name: str) -> None:
    root = tmp_path / "case"
    shutil.copytree(CASE, root, ignore=shutil.ignore_patterns("expected"))
    (root / ".git").mkdir()
    record = json.loads((CASE / "expected" / f"evals__{name}.eval.yaml.json").read_text("utf-8"))
    assert record["load_error"] is None
    wanted = {i["location"] for i in record["validation"]["issues"] if i["severity"] == "error"}
    ours = our_check(root, f"evals/{name}.eval.yaml")
    errors = {d["path"] for d in ours if d["severity"] == "error"}
    assert errors == wanted
    warned = {i["location"] for i in record["validation"]["issues"] if i["severity"] == "warning"}
    assert warned <= {d["path"] for d in ours if d["severity"] == "warning"}
