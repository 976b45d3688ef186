"""AgentV 4.42.4 diagnostics (`formats.v4.validate`, `formats.v4.check`) against the runtime.

Expected values come from AgentV itself, never from this code:
- ../shared/golden-v4/cases and tests/v4_check_cases: folders recorded by driver.mjs from the
  published @agentv/core@4.42.4 / agentv@4.42.4 (`validation` = what `agentv validate FILE`
  printed, `warnings`/`load_error` = what the runtime printed or threw);
- tests/v4_check_cases/settings-files/expected/validate_files.json: `agentv validate` on a
  targets.yaml, two config.yaml and a cases file (validate_oracle.mjs);
- the live oracle (node + the installed packages) for generated files, when it is available.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.checks.model import SEVERITY_RANK, Diagnostic
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, DocumentReport
from agentv_lsp.formats.v4.check import check_v4_cases_file, check_v4_document, find_eval_files_using
from agentv_lsp.formats.v4.validate import validate_document
from agentv_lsp.yamlpos import parse_yaml

REPO = Path(__file__).resolve().parents[2]
OUR_CASES = REPO / "tests" / "v4_check_cases"
ORACLE_SCRIPT = OUR_CASES / "validate_oracle.mjs"


def _shared_cases() -> Path | None:
    env = os.environ.get("AGENTV_SHARED")
    shared = Path(env) if env else REPO.parent / "shared"
    cases = shared / "golden-v4" / "cases"
    return cases if cases.is_dir() else None


def _oracle_modules() -> Path | None:
    env = os.environ.get("AGENTV4_MODULES")
    modules = Path(env) if env else REPO.parent / "oracle-v4" / "node_modules"
    ok = (modules / "@agentv" / "core" / "package.json").is_file() and shutil.which("node")
    return modules if ok else None


def _recorded(folder: Path | None) -> list[tuple[Path, str, Path]]:
    if folder is None:
        return []
    out = []
    for case in sorted(p for p in folder.iterdir() if (p / "expected" / "_case.json").is_file()):
        meta = json.loads((case / "expected" / "_case.json").read_text())
        for rel in meta["eval_files"]:
            out.append((case, rel, case / "expected" / (rel.replace("/", "__") + ".json")))
    return out


RECORDED = _recorded(_shared_cases()) + _recorded(OUR_CASES)
IDS = [f"{c.parent.name[:6]}/{c.name}/{rel}" for c, rel, _ in RECORDED]


def _stage(case: Path, tmp: Path) -> Path:
    """The case folder as a repository of its own, a few levels deep (as compare.py does)."""
    root = tmp / "a" / "b" / "case"
    shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected"))
    meta = json.loads((case / "case.json").read_text()) if (case / "case.json").exists() else {}
    if meta.get("git_root", True):
        (root / ".git").mkdir(exist_ok=True)
    return root


def _check(root: Path, rel: str, monkeypatch: pytest.MonkeyPatch) -> DocumentReport:
    monkeypatch.chdir(root)
    path = root / rel
    return check_v4_document(str(path), path.read_text(), CheckOptions(str(root), str(root), FileSystem()))


def _scrub(text: str, root: Path) -> str:
    return text.replace(str(root), "<ROOT>").replace(str(root.parent), "<ROOT>/..")


# -- `agentv validate` parity ------------------------------------------------------------------


@pytest.mark.parametrize(("case", "rel", "golden_path"), RECORDED, ids=IDS)
def test_validate_matches_recorded_agentv_validate(case, rel, golden_path, tmp_path, monkeypatch):
    golden = json.loads(golden_path.read_text())["validation"]
    root = _stage(case, tmp_path)
    monkeypatch.chdir(root)
    path = root / rel
    result = validate_document(str(path), parse_yaml(path.read_text()), cwd=str(root), fs=FileSystem())
    # the CLI prints one line per issue: a multi-line message shows its first line
    got = [
        {"severity": i.severity, "location": i.location, "message": _scrub(i.message, root).split("\n")[0]}
        for i in result.issues
    ]
    want = golden["issues"]
    for g, w in zip(got, want, strict=False):
        if w["location"] is None and w["message"].startswith("Failed to parse YAML: "):
            assert g["message"].startswith("Failed to parse YAML: ")  # eemeli/yaml's wording is not ours
            g["message"] = w["message"]
    assert got == want
    assert result.valid == (golden["exit_code"] == 0)


def test_settings_and_cases_files_match_recorded_agentv_validate(tmp_path, monkeypatch):
    case = OUR_CASES / "settings-files"
    recorded = json.loads((case / "expected" / "validate_files.json").read_text())
    root = _stage(case, tmp_path)
    monkeypatch.chdir(root)
    assert len(recorded) == 4
    for entry in recorded:
        path = entry["file"].replace("<ROOT>", str(root))
        result = validate_document(
            path, parse_yaml(Path(path).read_text()), cwd=str(root), fs=FileSystem(), env={}
        )
        got = [{"severity": i.severity, "location": i.location, "message": i.message} for i in result.issues]
        want = [{k: i[k] for k in ("severity", "location", "message")} for i in entry["issues"]]
        assert (result.file_type, got, result.valid) == (entry["file_type"], want, entry["valid"]), path


# -- the assembled check against the runtime ----------------------------------------------------


@pytest.mark.parametrize(("case", "rel", "golden_path"), RECORDED, ids=IDS)
def test_check_agrees_with_the_runtime(case, rel, golden_path, tmp_path, monkeypatch):
    """compare.py's criteria: every validate location has a diagnostic with that `path`; a
    clean file has no error; an unloadable file has one; a runtime message validate did
    not report (a skipped test) is at least a warning. Plus: ranges lie inside the text."""
    golden = json.loads(golden_path.read_text())
    root = _stage(case, tmp_path)
    report = _check(root, rel, monkeypatch)
    paths = {location for d in report.diagnostics for location in d.locations}
    issues = golden["validation"]["issues"]
    for issue in issues:
        if issue["location"]:
            assert issue["location"] in paths, issue
    errors = [d for d in report.diagnostics if d.severity == "error"]
    clean = golden["load_error"] is None and not golden["warnings"] and not issues
    if clean:
        assert not errors, errors[0]
    if golden["load_error"] is not None:
        assert errors
    if golden["warnings"] and not issues:
        assert any(d.severity in ("error", "warning") for d in report.diagnostics)
    lines = (root / rel).read_text().split("\n")
    for d in report.diagnostics:
        assert d.code.startswith("v4-"), d
        assert 0 <= d.span.start_line <= d.span.end_line < max(len(lines), 1), d
        assert d.file == str(root / rel)


def _by_path(report: DocumentReport, path: str) -> list[Diagnostic]:
    return [d for d in report.diagnostics if d.path == path]


def _text_at(root: Path, rel: str, d: Diagnostic) -> str:
    lines = (root / rel).read_text().split("\n")
    assert d.span.start_line == d.span.end_line
    return lines[d.span.start_line][d.span.start_col : d.span.end_col]


def _golden_case(name: str) -> Path:
    for base in (_shared_cases(), OUR_CASES):
        if base is not None and (base / name).is_dir():
            return base / name
    pytest.skip(f"case folder {name} is not available")


def test_ranges_are_the_reported_key_or_value(tmp_path, monkeypatch):
    root = _stage(_golden_case("errors-types-duplicates"), tmp_path)
    report = _check(root, "evals/bad.eval.yaml", monkeypatch)
    (role,) = _by_path(report, "tests[2].input[0].role")
    assert _text_at(root, "evals/bad.eval.yaml", role) == "usr"
    (unknown,) = _by_path(report, "tests[5].inputs")
    assert _text_at(root, "evals/bad.eval.yaml", unknown) == "inputs"  # the key, not its value
    (number,) = _by_path(report, "tests[3].input")
    assert _text_at(root, "evals/bad.eval.yaml", number) == "42"


def test_missing_file_is_underlined_and_lists_the_places_tried(tmp_path, monkeypatch):
    golden = json.loads(
        (_golden_case("missing-file") / "expected" / "evals__missing.eval.yaml.json").read_text()
    )
    root = _stage(_golden_case("missing-file"), tmp_path)
    report = _check(root, "evals/missing.eval.yaml", monkeypatch)
    location = golden["validation"]["issues"][0]["location"]
    (d,) = _by_path(report, location)
    assert d.severity == "error"
    assert _text_at(root, "evals/missing.eval.yaml", d) == "./notes/absent.md"
    tried = [line.strip() for line in golden["warnings"][0].split("\n")[2:]]  # the runtime's list
    assert tried and all(_scrub(p, root) in _scrub(d.message, root) for p in tried)


def test_tool_role_says_the_runtime_accepts_it(tmp_path, monkeypatch):
    case = _golden_case("multi-turn-assistant-tool")
    golden = json.loads((case / "expected" / "evals__turns.eval.yaml.json").read_text())
    loaded_ids = {c["id"] for c in golden["cases"]}
    root = _stage(case, tmp_path)
    report = _check(root, "evals/turns.eval.yaml", monkeypatch)
    (d,) = _by_path(report, "tests[1].input[1].role")
    assert d.code == "v4-role-tool" and d.severity == "error"  # `agentv validate` fails the file
    assert "runtime accepts it" in d.message
    assert len(loaded_ids) == len(golden["cases"])  # the runtime did load that test


def test_duplicate_ids_are_warned_because_neither_tool_objects(tmp_path, monkeypatch):
    case = _golden_case("errors-types-duplicates")
    golden = json.loads((case / "expected" / "evals__bad.eval.yaml.json").read_text())
    ids = [c["id"] for c in golden["cases"]]
    assert ids.count("dup") == 2  # the runtime loaded both
    assert not any(i["location"] == "tests[1].id" for i in golden["validation"]["issues"])
    root = _stage(case, tmp_path)
    (d,) = _by_path(_check(root, "evals/bad.eval.yaml", monkeypatch), "tests[1].id")
    assert d.severity == "warning" and d.code == "v4-duplicate-id"
    assert "tests[0]" in d.message and "`agentv validate` accepts it" in d.message


def test_v2_file_judged_as_4(tmp_path, monkeypatch):
    case = _golden_case("v2-file")
    golden = json.loads((case / "expected" / "evals__old.eval.yaml.json").read_text())
    root = _stage(case, tmp_path)
    report = _check(root, "evals/old.eval.yaml", monkeypatch)
    for issue in golden["validation"]["issues"]:
        (d,) = _by_path(report, issue["location"])
        assert d.message.startswith(issue["message"])
        assert d.severity == issue["severity"]
    (skipped,) = _by_path(report, "evalcases[0]")
    assert "Skipping incomplete test: legacy" in skipped.message  # the runtime's own words


# -- files referenced by `tests:` -------------------------------------------------------------


def _messages(report: DocumentReport) -> list[tuple[str, str, str]]:
    return [(d.severity, d.path, d.message) for d in report.diagnostics]


def test_cases_files_are_checked_in_the_context_of_their_eval_file(tmp_path, monkeypatch):
    case = OUR_CASES / "tests-path-errors"
    expected = case / "expected"
    root = _stage(case, tmp_path)
    monkeypatch.chdir(root)
    opts = CheckOptions(str(root), str(root), FileSystem())
    evals = root / "evals"

    jsonl = evals / "bad.jsonl"
    assert find_eval_files_using(str(jsonl), str(root), opts.fs) == [str(evals / "badjsonl.eval.yaml")]
    load_error = json.loads((expected / "evals__badjsonl.eval.yaml.json").read_text())["load_error"]
    line = int(load_error.split("line ")[1].split(":")[0])  # the runtime names the line
    report = check_v4_document(str(jsonl), jsonl.read_text(), opts)
    (d,) = [d for d in report.diagnostics if d.severity == "error"]
    assert d.span.start_line == line - 1 and d.path == f"[{line - 1}]"
    assert load_error.split("\n")[0] in d.message

    mixed = evals / "mixed.yaml"
    load_error = json.loads((expected / "evals__mixed.eval.yaml.json").read_text())["load_error"]
    report = check_v4_cases_file(str(mixed), mixed.read_text(), opts)
    (d,) = [d for d in report.diagnostics if d.severity == "error"]
    assert d.path == "[1]" and _scrub(load_error, root) in _scrub(d.message, root)

    case_file = evals / "dircases" / "c1" / "case.yaml"
    load_error = json.loads((expected / "evals__dir.eval.yaml.json").read_text())["load_error"]
    report = check_v4_document(str(case_file), case_file.read_text(), opts)
    (d,) = [d for d in report.diagnostics if d.severity == "error"]
    assert d.path == "workspace" and _scrub(load_error, root) in _scrub(d.message, root)
    assert not [d for d in report.diagnostics if d.path == "id"]  # the folder name is the id


def test_unsaved_cases_text_is_what_the_loader_reads(tmp_path, monkeypatch):
    case = OUR_CASES / "tests-path-errors"
    root = _stage(case, tmp_path)
    monkeypatch.chdir(root)
    opts = CheckOptions(str(root), str(root), FileSystem())
    jsonl = root / "evals" / "bad.jsonl"
    fixed = '{"id": "j1", "input": "Hi", "criteria": "ok"}\n{"id": "j3", "input": "Hi"}\n'
    report = check_v4_cases_file(str(jsonl), fixed, opts)
    assert not [d for d in report.diagnostics if d.severity == "error"]
    (skipped,) = report.diagnostics  # j3 has no criteria: the runtime skips it
    assert skipped.severity == "warning" and skipped.span.start_line == 1
    assert "Skipping incomplete test: j3" in skipped.message
    assert opts.fs.overlays == {}  # the overlay was only for that load


# -- the live oracle -------------------------------------------------------------------------

_SCALARS: list[Any] = [
    None,
    True,
    0,
    1,
    2,
    0.5,
    -1,
    "",
    " ",
    "x",
    "user",
    "tool",
    "usr",
    "file://c.yaml",
    [],
    {},
]


class _Generator:
    """Eval files with wrong types and odd shapes at every place the validator looks."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def pick(self, options: list[Any]) -> Any:
        return self.rnd.choice(options)

    def chance(self, p: float) -> bool:
        return self.rnd.random() < p

    def message(self) -> Any:
        if self.chance(0.08):
            return self.pick([1, "s", None, []])
        m: dict[str, Any] = {}
        if self.chance(0.9):
            m["role"] = self.pick(["user", "system", "assistant", "tool", "usr", None, 3])
        r = self.rnd.random()
        if r < 0.4:
            m["content"] = self.pick(["hi", "@[System]: x @[tool]: y", "", 5, None, {"k": 1}])
        elif r < 0.8:
            m["content"] = [self.item() for _ in range(self.rnd.randint(0, 3))]
        elif r < 0.9:
            m["tool_calls"] = []
        return m

    def item(self) -> Any:
        if self.chance(0.25):
            return self.pick(["text", "@[Assistant]: z", 1, None, [1]])
        it: dict[str, Any] = {}
        if self.chance(0.85):
            it["type"] = self.pick(["text", "file", "image", 3])
        if self.chance(0.85):
            it["value"] = self.pick(
                ["./notes.md", "notes.md", "/abs/none.md", "./empty.md", "./adir", "gone.md", 4]
            )
        return it

    def assertion(self) -> Any:
        if self.chance(0.2):
            return self.pick(["", "  ", "be nice", 3, None, []])
        a: dict[str, Any] = {}
        if self.chance(0.9):
            a["type"] = self.pick(
                ["contains", "icontains_any", "regex", "llm-grader", "nope", "my-check", "equals", 5]
            )
        if self.chance(0.7):
            a["value"] = self.pick(
                ["x", "((", "a{2,1}", "(?<n>a)\\k<n>", "[z-a]", "*", ["a"], [], 3, None, "(?<=a)*"]
            )
        if self.chance(0.3):
            a["required"] = self.pick([True, 0, 0.5, 1, 2, -1, "yes", None])
        return a

    def test(self) -> Any:
        if self.chance(0.05):
            return self.pick(["file://c.yaml", "file://x.txt", "plain", 3, None, []])
        t: dict[str, Any] = {}
        if self.chance(0.9):
            t["id"] = self.pick(["t1", "t2", "", "  ", 3, None])
        if self.chance(0.6):
            t["criteria"] = self.pick(["good", "good", "", 3, None])
        r = self.rnd.random()
        if r < 0.45:
            t["input"] = self.pick(["q", "q", "", 3, None, {"a": 1}])
        elif r < 0.92:
            t["input"] = [self.message() for _ in range(self.rnd.randint(0, 3))]
        r = self.rnd.random()
        if r < 0.2:
            t["expected_output"] = self.pick(["a", 3, None, {"role": "assistant"}])
        elif r < 0.4:
            t["expected_output"] = [self.message() for _ in range(self.rnd.randint(0, 2))]
        if self.chance(0.3):
            t["assertions"] = (
                [self.assertion() for _ in range(self.rnd.randint(0, 3))]
                if self.chance(0.9)
                else self.pick(["x", 3])
            )
        if self.chance(0.08):
            t["mode"] = self.pick(["conversation", "single"])
        if self.chance(0.08):
            t["turns"] = self.pick([[], [{"input": "a"}, {"input": ""}, 3, {"input": []}, {"x": 1}], "x"])
        for key in (
            "aggregation",
            "window_size",
            "assert",
            "expected_outcome",
            "evaluator",
            "inputs",
            "vars",
        ):
            if self.chance(0.03):
                t[key] = self.pick(_SCALARS)
        if self.chance(0.06):
            t["workspace"] = self.pick(
                ["./ws.yaml", "./nope.yaml", 3, {"repos": [{"path": "p", "clone": 1}, {}]}]
            )
        return t

    def eval_file(self) -> Any:
        if self.chance(0.03):
            return self.pick([[{"id": "a", "input": "b"}, 3], "s", None])
        d: dict[str, Any] = {}
        if self.chance(0.15):
            d["name"] = self.pick(["good-name", "Bad Name", 3])
        for key in ("description", "foo", "evalcases", "assert", "execution"):
            if self.chance(0.04):
                d[key] = self.pick(_SCALARS)
        if self.chance(0.15):
            d["input"] = self.pick(["suite q", 3, None, [self.message()]])
        r = self.rnd.random()
        if r < 0.08:
            d["tests"] = self.pick(
                ["./c.yaml", "./bad.jsonl", "./missing.yaml", "./x.txt", "./adir", 3, None]
            )
        elif r < 0.96:
            d["tests"] = [self.test() for _ in range(self.rnd.randint(0, 4))]
        if self.chance(0.08):
            d["workspace"] = self.pick(
                [
                    "./ws.yaml",
                    None,
                    {
                        "template": "./none",
                        "hooks": {"before_all": {"command": ["node", "./x.mjs", "./notes.md"]}},
                    },
                ]
            )
        return d


def _oracle(files: list[Path], cwd: Path, modules: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "AGENTV4_MODULES": str(modules)}
    done = subprocess.run(
        ["node", str(ORACLE_SCRIPT), *map(str, files)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


def test_validate_matches_the_live_oracle_on_generated_files(tmp_path):
    modules = _oracle_modules()
    if modules is None:
        pytest.skip("node and the AgentV 4.42.4 packages (AGENTV4_MODULES) are not available")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".agentv" / "assertions").mkdir(parents=True)
    (root / ".agentv" / "assertions" / "my-check.ts").write_text("")
    evals = root / "evals"
    (evals / "adir").mkdir(parents=True)
    (evals / "notes.md").write_text("hello")
    (evals / "empty.md").write_text(" \n")
    (evals / "c.yaml").write_text("- id: a\n  input: hi\n")
    (evals / "bad.jsonl").write_text('{"id": "a"}\n{oops\n')
    (evals / "ws.yaml").write_text("repos:\n  - path: x\n    source: y\n")
    gen = _Generator(20261124)
    files = []
    for i in range(160):
        path = evals / f"g{i}.eval.yaml"
        path.write_text(json.dumps(gen.eval_file()))
        files.append(path)
    fs = FileSystem()
    disagree = []
    for entry in _oracle(files, root, modules):
        path = entry["file"]
        result = validate_document(path, parse_yaml(Path(path).read_text()), cwd=str(root), fs=fs)
        got = [(i.severity, i.location, i.message) for i in result.issues]
        want = [(i["severity"], i["location"], i["message"]) for i in entry["issues"]]
        if (result.file_type, got, result.valid) != (entry["file_type"], want, entry["valid"]):
            disagree.append((Path(path).read_text(), want, got))
    assert not disagree, disagree[0]


# -- bad input ---------------------------------------------------------------------------------


def _check_text(root: Path, rel: str, text: str) -> DocumentReport:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    report = check_v4_document(str(path), text, CheckOptions(str(root), str(root), FileSystem()))
    lines = max(len(re.split("\r\n|[\n\r\x85\u2028\u2029]", text)), 1)  # YAML's line breaks
    for d in report.diagnostics:
        assert 0 <= d.span.start_line <= d.span.end_line < lines, (d, text[:200])
    return report


def test_bad_input_never_crashes(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    evals = root / "evals"
    evals.mkdir()
    os.mkfifo(evals / "fifo.yaml")
    (evals / "folder.jsonl").mkdir()
    (evals / "loop.yaml").symlink_to(evals / "loop.yaml")
    (evals / "cases.jsonl").write_text('{"id": 1}\n[1, 2]\n\x00garbage\n{"id": "x", "input": {"role": 3}}\n')
    for target in ("./fifo.yaml", "./folder.jsonl", "./loop.yaml", "./cases.jsonl", "/dev/null", "./"):
        report = _check_text(root, "evals/t.eval.yaml", f"tests: {target}\n")
        unloadable = target in ("./fifo.yaml", "./loop.yaml", "./cases.jsonl")  # a folder is a tests folder
        assert any(d.severity == "error" and d.path == "tests" for d in report.diagnostics) or not unloadable
    _check_text(
        root, "evals/cases.jsonl", '{"id": 1}\n[1, 2]\n\x00garbage\n{"id": "x", "input": {"role": 3}}\n'
    )
    gen = _Generator(99)
    odd = [None, 3, "x", [], {}, [[]], {"a": {"b": []}}, True, -0.5, "${{ HOME }}", "<<", "file://*"]
    keys = [
        "tests",
        "input",
        "workspace",
        "assertions",
        "expected_output",
        "turns",
        "mode",
        "name",
        "role",
        "content",
    ]
    for i in range(60):
        value = gen.eval_file()
        if isinstance(value, dict):
            for key in keys:
                if gen.chance(0.2):
                    value[key] = gen.pick(odd)
        _check_text(root, f"evals/r{i}.eval.yaml", json.dumps(value))
    for text in (
        "",
        "---\n---\n",
        "[",
        "tests: [",
        "\ttests: 1",
        "- - - -",
        "a: &x [*x]",
        "tests: !!binary x",
    ):
        _check_text(root, "evals/y.eval.yaml", text)
    binary = bytes(range(256)).decode("latin-1")
    _check_text(root, "evals/b.eval.yaml", binary)


# -- cost ------------------------------------------------------------------------------------------


def test_checking_5000_tests_finds_nothing_in_a_clean_file(tmp_path):
    """A clean 5,000-test file: no diagnostic (its cost is measured by benchmarks/bench_v4.py,
    not asserted here: a timed test flakes on a loaded CI machine)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    lines = ["description: big", "tests:"]
    for i in range(5000):
        lines += [
            f"  - id: t{i}",
            f"    criteria: Meets goal {i}",
            "    input:",
            "      - role: user",
            f"        content: Question {i}?",
            "    assertions:",
            "      - type: contains",
            "        value: ok",
        ]
    text = "\n".join(lines) + "\n"
    path = root / "big.eval.yaml"
    path.write_text(text)
    report = check_v4_document(str(path), text, CheckOptions(str(root), str(root), FileSystem()))
    assert [d for d in report.diagnostics if d.severity in ("error", "warning")] == []


# -- one finding per mistake -------------------------------------------------------------------

_COMPLETE = """\
description: One mistake, one finding
tests:
  - id: kept
    input: hello
    criteria: says hi
  - id: typo
    input: What is 2+2?
    criteria: says 4
"""


@pytest.mark.parametrize("key", ["input", "id", "criteria"])
def test_a_misspelt_required_key_is_one_finding(tmp_path, key):
    """Deleting a letter of a required key: the unknown field, validate's missing key, the
    runtime's skip and the linter's incomplete test are one finding at the misspelt key, whose
    "Did you mean" fix mends all of them, with the missing key's severity and location."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    clean = _check_text(root, "evals/ok.eval.yaml", _COMPLETE)
    assert not [d for d in clean.diagnostics if d.span.start_line >= 5], clean.diagnostics
    misspelt = key[0] + key[2:]
    lines = _COMPLETE.split("\n")
    line = next(n for n in range(5, len(lines)) if lines[n].lstrip(" -").startswith(f"{key}:"))
    lines[line] = lines[line].replace(f"{key}:", f"{misspelt}:", 1)
    report = _check_text(root, "evals/typo.eval.yaml", "\n".join(lines))
    in_test = [d for d in report.diagnostics if d.span.start_line >= 5]
    assert len(in_test) == 1, [(d.code, d.message) for d in in_test]
    (finding,) = in_test
    assert finding.code == "v4-unknown-field" and finding.data["suggestion"] == key
    assert (finding.span.start_line, _text_at(root, "evals/typo.eval.yaml", finding)) == (line, misspelt)
    assert finding.message.count(f"Did you mean '{key}'?") == 1
    assert finding.message.count("Skipping incomplete test") == 1
    # what the missing key's own finding would be: its severity and validate location are kept
    unmerged = [d for d in _unmerged(root, "\n".join(lines)) if d.code != "v4-unknown-field"]
    assert unmerged and finding.severity == min((d.severity for d in unmerged), key=SEVERITY_RANK.get)
    assert {d.path for d in unmerged} <= set(finding.locations)


def _unmerged(root: Path, text: str) -> list[Diagnostic]:
    """The findings of the misspelt test before merging (`merge_misspelt_twins` left out)."""
    import agentv_lsp.formats.v4.check as check

    original = check.merge_misspelt_twins
    check.merge_misspelt_twins = lambda diagnostics, doc: diagnostics  # type: ignore[assignment]
    try:
        report = _check_text(root, "evals/typo.eval.yaml", text)
    finally:
        check.merge_misspelt_twins = original
    return [d for d in report.diagnostics if d.span.start_line >= 5 and not d.code.startswith("v4-lint")]


def test_a_misspelt_key_beside_the_real_one_stays_a_warning(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    text = _COMPLETE.replace("    input: What is 2+2?\n", "    input: What is 2+2?\n    inpt: again\n")
    report = _check_text(root, "evals/both.eval.yaml", text)
    (finding,) = [d for d in report.diagnostics if d.span.start_line >= 5]
    assert (finding.code, finding.severity, finding.data.get("merged")) == ("v4-unknown-field", "warning", None)


@pytest.mark.parametrize("key", ["input", "id"])
def test_a_missing_key_is_not_said_again_by_the_linter(tmp_path, key):
    """validate's missing key, into which the runtime's skip is folded, says what the
    linter's incomplete-test rule would: one finding."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    text = (
        _COMPLETE.replace("    input: What is 2+2?\n", "")
        if key == "input"
        else _COMPLETE.replace("  - id: typo\n    input:", "  - input:")
    )
    assert text != _COMPLETE
    report = _check_text(root, "evals/missing.eval.yaml", text)
    in_test = [d for d in report.diagnostics if d.span.start_line >= 5]
    assert len(in_test) == 1, [(d.code, d.message) for d in in_test]
    assert in_test[0].severity == "error" and "Skipping incomplete test" in in_test[0].message
