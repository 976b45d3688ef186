"""The key-name table is a seam: the 4.x code run with a table that renames keys reads a file
written with those names exactly as it reads the 4.x file.

Each recorded golden-v4 case is staged twice, its eval and cases files rewritten as JSON (a
YAML document) in both copies: once with 4.x's names, read with `V4_KEYS`, once with the
renamed ones, read with `RENAMED`. The previews must be the same, except that the messages
naming a renamed key name it as the table says.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.keys import V4_KEYS, Keys
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.preview import preview_v4
from agentv_lsp.formats.v4.runtime import LoadFailure
from agentv_lsp.formats.v4.split import cut_tests
from agentv_lsp.formats.v4.yamlmerge import parse_yaml_value

CASES = Path(__file__).parent.parent / "golden_v4" / "cases"

# New names picked as unused at these levels; the few fuzz cases that use one already are
# skipped (`_rename`), so nothing is renamed onto an existing key
RENAMED = dataclasses.replace(
    V4_KEYS,
    tests="cases",
    input="prompt",
    expected_output="expected",
    criteria="goal",
    assertions="checks",
    turns="steps",
)
SUITE_KEYS = ("tests", "input", "assertions")
TEST_KEYS = ("input", "expected_output", "criteria", "assertions", "turns")
TURN_KEYS = ("input", "expected_output", "assertions")


def _new_name(key: str) -> str:
    return str(getattr(RENAMED, key))


def _rename(mapping: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    if any(_new_name(k) in mapping for k in keys if k in mapping):
        raise ValueError("the file uses a renamed key's new name already")  # the fuzz cases do
    return {(_new_name(k) if k in keys else k): v for k, v in mapping.items()}


def _rename_graders(graders: Any) -> Any:
    """A grader list: a composite's members are a grader list too (named by the table)."""
    if not isinstance(graders, list):
        return graders
    out = []
    for grader in graders:
        if isinstance(grader, dict) and "assertions" in grader:
            grader = _rename(grader, ("assertions",))
            grader[RENAMED.assertions] = _rename_graders(grader[RENAMED.assertions])
        out.append(grader)
    return out


def _rename_test(test: Any) -> Any:
    if not isinstance(test, dict):
        return test
    out = _rename(test, TEST_KEYS)
    if RENAMED.assertions in out:
        out[RENAMED.assertions] = _rename_graders(out[RENAMED.assertions])
    steps = out.get(RENAMED.turns)
    if isinstance(steps, list):
        out[RENAMED.turns] = [_rename(t, TURN_KEYS) if isinstance(t, dict) else t for t in steps]
    return out


def _rename_suite(suite: Any) -> Any:
    if not isinstance(suite, dict):
        return suite
    out = _rename(suite, SUITE_KEYS)
    if RENAMED.assertions in out:
        out[RENAMED.assertions] = _rename_graders(out[RENAMED.assertions])
    execution = out.get("execution")
    if isinstance(execution, dict) and "assertions" in execution:  # the suite's graders there too
        execution = _rename(execution, ("assertions",))
        execution[RENAMED.assertions] = _rename_graders(execution[RENAMED.assertions])
        out["execution"] = execution
    for key in (RENAMED.tests, *RENAMED.deprecated_tests):
        if isinstance(out.get(key), list):
            out[key] = [_rename_test(t) for t in out[key]]
    return out


def _rewrite(path: Path, role: str, renamed: bool) -> None:
    """The file as JSON (one value per line for JSONL), its keys renamed when `renamed`."""
    if path.suffix == ".jsonl":
        lines = []
        for line in path.read_text(encoding="utf-8").split("\n"):
            try:
                value = json.loads(line)
            except ValueError:
                lines.append(line)  # kept as written: its parse error is part of the case
                continue
            lines.append(json.dumps(_rename_test(value) if renamed else value, ensure_ascii=False))
        path.write_text("\n".join(lines), encoding="utf-8")
        return
    value = _yaml_value(path)
    if renamed:
        if role == "suite":
            value = _rename_suite(value)
        elif role == "case":
            value = _rename_test(value)
        elif role == "template":
            value = _rename(value, ("assertions",))
            value[RENAMED.assertions] = _rename_graders(value[RENAMED.assertions])
        else:
            value = [_rename_test(t) for t in value]
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except TypeError as exc:
        raise ValueError("not JSON-like") from exc
    path.write_text(text, encoding="utf-8")


def _yaml_value(path: Path) -> Any:
    try:
        return parse_yaml_value(path.read_text(encoding="utf-8"), str(path))
    except (LoadFailure, UnicodeDecodeError) as exc:
        raise ValueError("not YAML") from exc


def _roles(root: Path, rel: str, eval_files: list[str]) -> dict[Path, str]:
    """The files that hold tests: the eval file (a suite, or tests line by line), case.yaml in
    a tests folder, and YAML lists of tests. The case's other eval files stay as written."""
    roles: dict[Path, str] = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if not path.is_file() or name.endswith(".agentv/config.yaml") or (name in eval_files and name != rel):
            continue
        if name == rel:
            roles[path] = "jsonl" if path.suffix == ".jsonl" else "suite"
        elif path.name in ("case.yaml", "case.yml"):
            roles[path] = "case"
        elif path.suffix == ".jsonl":
            roles[path] = "jsonl"
        elif path.suffix == ".yaml" and path.with_suffix(".jsonl").exists():
            roles[path] = "suite"  # a JSONL suite's sidecar
        elif path.suffix in (".yaml", ".yml"):
            try:
                value = _yaml_value(path)
                if isinstance(value, list):
                    roles[path] = "cases"
                elif isinstance(value, dict) and "assertions" in value:
                    roles[path] = "template"  # an assertion template (`include:`)
            except ValueError:
                pass  # no list of tests: left as written
    return roles


def _stage(case: Path, into: Path, rel: str, renamed: bool, eval_files: list[str]) -> Path:
    root = into / "repo"
    shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected"))
    (root / ".git").mkdir(exist_ok=True)
    for path, role in _roles(root, rel, eval_files).items():
        try:
            _rewrite(path, role, renamed)
        except ValueError:
            if path == root / rel:
                raise
            # a referenced file the runtime refuses: it fails the same way in both copies
    return root


def _as_v4(text: str) -> str:
    """A message of the renamed run with the key names it quotes put back to 4.x's."""
    for field in dataclasses.fields(Keys):
        old, new = getattr(V4_KEYS, field.name), getattr(RENAMED, field.name)
        if old != new:
            text = text.replace(f"'{new}'", f"'{old}'")
    text = text.replace(f"{RENAMED.assertions} array", f"{V4_KEYS.assertions} array")  # template files
    for missing in (
        "Missing required fields: {k.id}, {k.input}, and at least one of "
        "{k.criteria}/{k.expected_output}/{k.assertions}/{k.turns}",
        "Missing required fields: {k.id}, {k.input}, and at least one of "
        "{k.criteria}/{k.expected_output}/{k.deprecated_assertions}",
    ):
        text = text.replace(missing.format(k=RENAMED), missing.format(k=V4_KEYS))
    return text


def _reason_as_v4(reason: str) -> str:
    """A skipped test's reason ("incomplete: no id; no prompt; no goal, …") is made of key
    names only: each renamed one put back."""
    if not reason.startswith("incomplete: "):
        return _as_v4(reason)
    return re.sub(r"[a-z_]+", lambda m: str(_old_name(m.group())), reason)


def _yaml_eval_cases() -> list[tuple[str, str]]:
    out = []
    for case in sorted(p for p in CASES.iterdir() if (p / "expected" / "_case.json").exists()):
        meta = json.loads((case / "expected" / "_case.json").read_text())
        out.extend(
            (case.name, rel) for rel in meta["eval_files"] if rel.endswith((".yaml", ".yml", ".jsonl"))
        )
    return out


@pytest.mark.parametrize(("case", "rel"), _yaml_eval_cases(), ids=lambda v: str(v))
def test_renamed_keys_read_with_their_table_preview_the_same(
    case: str, rel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    meta = json.loads((CASES / case / "expected" / "_case.json").read_text())
    previews = []
    for renamed, keys in ((False, V4_KEYS), (True, RENAMED)):
        try:
            root = _stage(CASES / case, tmp_path / str(renamed), rel, renamed, meta["eval_files"])
        except ValueError as exc:
            pytest.skip(str(exc))
        monkeypatch.chdir(root)
        preview = preview_v4(rel, str(root), str(root), FileSystem(), keys=keys)
        previews.append(json.loads(json.dumps(preview).replace(str(root), "<ROOT>")))
    original, renamed_preview = previews
    if original["cases"]:  # the renamed copy means something else to 4.x's table: the seam carries it
        misread = preview_v4(rel, str(root), str(root), FileSystem())
        assert json.loads(json.dumps(misread).replace(str(root), "<ROOT>")) != renamed_preview
    assert renamed_preview["cases"] == original["cases"]
    assert [
        {**s, "reason": _reason_as_v4(s["reason"]), "path": [_old_name(p) for p in s["path"]]}
        for s in renamed_preview["skipped"]
    ] == original["skipped"]
    assert [_as_v4(w) for w in renamed_preview["warnings"]] == original["warnings"]
    assert _as_v4(renamed_preview["load_error"] or "") == (original["load_error"] or "")


def _old_name(segment: Any) -> Any:
    for field in dataclasses.fields(Keys):
        if getattr(RENAMED, field.name) == segment and isinstance(segment, str):
            return getattr(V4_KEYS, field.name)
    return segment


def test_a_renamed_key_is_named_in_the_messages(tmp_path: Path) -> None:
    """The table reaches the messages: a suite without its tests list is reported under the
    table's name for it, and a 4.x `tests` key means nothing to the renamed table."""
    eval_file = tmp_path / "e.yaml"
    eval_file.write_text("tests:\n  - id: a\n    input: hi\n    criteria: ok\n", encoding="utf-8")
    renamed = load_suite(str(eval_file), str(tmp_path), str(tmp_path), FileSystem(), keys=RENAMED)
    original = load_suite(str(eval_file), str(tmp_path), str(tmp_path), FileSystem())
    assert [t.id for t in original.tests] == ["a"]
    assert renamed.tests == []
    assert renamed.load_error is not None and "missing 'cases' field" in renamed.load_error


def test_the_split_cuts_a_renamed_tests_list_where_it_cuts_the_4x_one() -> None:
    """`split.cut_tests` finds the tests by the table's name (and renumbers `cases[N]`)."""
    tests = "".join(f"  - id: t{i}\n    input: hi\n    criteria: ok\n" for i in range(3))
    v4_text = "description: d\ntests:\n" + tests
    renamed_text = "description: d\ncases:\n" + tests
    v4_layout = cut_tests(v4_text)
    renamed_layout = cut_tests(renamed_text, RENAMED)
    assert v4_layout is not None and renamed_layout is not None
    assert renamed_layout.offsets == v4_layout.offsets
    assert cut_tests(renamed_text) is None  # 4.x's table sees no tests there
