"""`formats.v4.lint` against the linter AgentV ships (agentv@4.42.4's eval-review skill,
`scripts/lint_eval.py`), run with this Python on the same files.

Generated suites cover every rule; for each file, each issue the shipped linter reports is
reported by us with the matching code at the same test (and the same file value), and we
report nothing it does not. Each quick fix we offer is applied to the text and the shipped
linter, run again, no longer reports that issue. The golden-v4 eval files are compared the
same way. Skipped when the agentv package is not installed.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentv_lsp.formats.v4.lint import PROSE_PATTERNS, iter_codes, lint_v4
from agentv_lsp.yamlpos import parse_yaml

REPO = Path(__file__).resolve().parents[2]


def _shipped_linter() -> Path | None:
    modules = Path(os.environ.get("AGENTV4_MODULES", "/work/oracle-v4/node_modules"))
    package = modules / "agentv"
    if not package.is_dir():
        return None
    found = sorted(package.rglob("lint_eval.py"))
    return found[0] if found else None


LINTER = _shipped_linter()
pytestmark = pytest.mark.skipif(LINTER is None, reason="agentv@4.42.4 (lint_eval.py) is not installed")

# The shipped linter's messages -> (our code, what identifies the place)
SHIPPED_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^File should use \.eval\.yaml extension"), "file-name"),
    (re.compile(r"^Missing top-level 'description' field$"), "description"),
    (re.compile(r"^'tests' is not a list$"), "tests-not-list"),
    (re.compile(r"^No tests defined$"), "no-tests"),
    (re.compile(r"^Test at index (?P<index>\d+) missing 'id'$"), "test-id"),
    (re.compile(r"^Test '(?P<id>.*)' missing 'input' and no top-level input defined$"), "test-input"),
    (
        re.compile(r"^Test '(?P<id>.*)' needs at least one of: criteria, expected_output, assertions$"),
        "test-grading",
    ),
    (re.compile(r"^Test '(?P<id>.*)' has expected_output but no assertions"), "no-assertions"),
    (re.compile(r"^Test '(?P<id>.*)' expected_output contains evaluation criteria prose"), "expected-prose"),
    (re.compile(r"^Test '(?P<id>.*)' file path missing leading '/': (?P<value>.*)$"), "file-path"),
    (
        re.compile(r"^File input repeated in every test: (?P<files>.*) — consider using top-level input$"),
        "repeated-file",
    ),
    (re.compile(r"^Inconsistent naming prefixes: (?P<prefixes>.*)$"), "naming-prefix"),
]


def run_shipped(target: Path) -> list[dict[str, Any]]:
    assert LINTER is not None
    proc = subprocess.run(
        [sys.executable, str(LINTER), str(target), "--json"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode in (0, 1), proc.stderr
    issues: list[dict[str, Any]] = json.loads(proc.stdout)
    return issues


def classify(issue: dict[str, Any]) -> tuple[str, dict[str, str]]:
    for pattern, code in SHIPPED_RULES:
        match = pattern.match(issue["message"])
        if match:
            return code, match.groupdict()
    raise AssertionError(f"a rule we do not know: {issue['message']}")


def expected_places(path: Path, issues: list[dict[str, Any]]) -> Counter[tuple[str, Any]]:
    """(our code, place) for each shipped issue about `path`; place = test index, file value…"""
    value = parse_yaml(path.read_text("utf-8")).value
    tests = value.get("tests") if isinstance(value, dict) else None
    ids = [t.get("id", f"test-{n}") for n, t in enumerate(tests)] if isinstance(tests, list) else []
    out: Counter[tuple[str, Any]] = Counter()
    for issue in issues:
        if issue["file"] != str(path):
            continue
        code, groups = classify(issue)
        if "index" in groups:
            out[(code, int(groups["index"]))] += 1
        elif code == "file-path":
            out[(code, (ids.index(groups["id"]), groups["value"]))] += 1
        elif "id" in groups:
            out[(code, ids.index(groups["id"]))] += 1
        elif code == "repeated-file":
            for name in groups["files"].split(", "):
                out[(code, name)] += 1
        else:
            out[(code, None)] += 1
    return out


def our_places(path: Path) -> Counter[tuple[str, Any]]:
    doc = parse_yaml(path.read_text("utf-8"))
    out: Counter[tuple[str, Any]] = Counter()
    for d in lint_v4(str(path), doc):
        code = d.code.removeprefix("v4-lint-")
        assert d.code in set(iter_codes())
        if code == "naming-prefix":
            continue  # a folder-level rule: compared per folder
        test = d.yaml_path[1] if len(d.yaml_path) >= 2 and d.yaml_path[0] == "tests" else None
        if code == "file-path":
            out[(code, (test, d.data["value"]))] += 1
        elif code == "repeated-file":
            out[(code, d.data["file"])] += 1
        elif code in ("test-id", "test-input", "test-grading", "no-assertions", "expected-prose"):
            out[(code, test)] += 1
        else:
            out[(code, None)] += 1
    return out


# ---------------------------------------------------------------------------- generated suites

PROSE = ["The agent should fix it", "It should identify the bug", "Should flag the risk", "should run tests"]
PLAIN = ["42", "yes", "The answer is four.", "Hello there"]
FILES = ["/docs/guide.md", "docs/guide.md", "./src/a.py", "../shared/b.md", "'/quoted.md'", '"./dq.md"']


def random_test(rng: random.Random, index: int, common: str | None) -> str:
    lines = []
    if rng.random() > 0.15:
        lines.append(f"id: t{index}")
    if common or rng.random() > 0.2:
        if not common and rng.random() < 0.5:
            lines.append("input: Do the task.")
        else:
            segments = [f"{{type: file, value: {f}}}" for f in rng.sample(FILES, rng.randint(0, 2))]
            if common:
                segments.append(f"{{type: file, value: {common}}}")
            segments.append("{type: text, value: Review.}")
            lines.append(
                "input:\n  - role: user\n    content:\n"
                + "".join(f"      - {s}\n" for s in segments).rstrip()
            )
    if rng.random() < 0.5:
        lines.append("criteria: Does it well")
    if rng.random() < 0.5:
        text = rng.choice(PROSE if rng.random() < 0.5 else PLAIN)
        if rng.random() < 0.7:
            lines.append(f"expected_output: {json.dumps(text)}")
        else:
            lines.append(f"expected_output:\n  - role: assistant\n    content: {json.dumps(text)}")
    if rng.random() < 0.4:
        lines.append("assertions:\n  - type: contains\n    value: x")
    if not lines:
        lines.append("metadata: {}")
    body = "\n".join(lines)
    return "  - " + body.replace("\n", "\n    ") + "\n"


def random_suite(rng: random.Random) -> str:
    parts = []
    if rng.random() < 0.6:
        parts.append("description: Generated suite\n")
    if rng.random() < 0.2:
        parts.append("input:\n  - role: system\n    content: Be brief.\n")
    shape = rng.random()
    if shape < 0.05:
        parts.append("tests: []\n")
    elif shape < 0.1:
        parts.append("tests: 5\n")
    elif shape < 0.13:
        pass  # no tests at all
    else:
        common = rng.choice(["/ctx/shared.md", "ctx/shared.md"]) if rng.random() < 0.35 else None
        parts.append("tests:\n" + "".join(random_test(rng, n, common) for n in range(rng.randint(1, 5))))
    rng.shuffle(parts)
    return "".join(parts)


NAMES = [
    "review-a.eval.yaml",
    "review-b.eval.yaml",
    "check-c.eval.yaml",
    "plain.yaml",
    "suite.eval.yml",
    "x.eval.yaml",
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, list[dict[str, Any]]]]:
    """Folders of generated eval files and the shipped linter's issues for each folder."""
    rng = random.Random(4424)
    out = []
    for n in range(16):
        folder = tmp_path_factory.mktemp(f"lint{n}")
        for name in rng.sample(NAMES, rng.randint(1, 4)):
            (folder / name).write_text(random_suite(rng), "utf-8")
        out.append((folder, run_shipped(folder)))
    return out


def test_generated_files_cover_every_rule(generated: list[tuple[Path, list[dict[str, Any]]]]) -> None:
    seen = {classify(issue)[0] for _, issues in generated for issue in issues}
    assert seen == {code for _, code in SHIPPED_RULES}


def test_same_issues_at_the_same_tests(generated: list[tuple[Path, list[dict[str, Any]]]]) -> None:
    for folder, issues in generated:
        for path in sorted(folder.iterdir()):
            assert our_places(path) == expected_places(path, issues), (path.name, path.read_text("utf-8"))


def test_naming_prefix_per_folder(generated: list[tuple[Path, list[dict[str, Any]]]]) -> None:
    for folder, issues in generated:
        shipped = any(classify(i)[0] == "naming-prefix" for i in issues)
        ours = [
            d
            for path in sorted(folder.iterdir())
            for d in lint_v4(str(path), parse_yaml(path.read_text("utf-8")))
            if d.code == "v4-lint-naming-prefix"
        ]
        assert bool(ours) == shipped, folder
        for d in ours:
            shipped_prefixes = next(
                classify(i)[1]["prefixes"] for i in issues if classify(i)[0] == "naming-prefix"
            )
            assert ", ".join(d.data["prefixes"]) == shipped_prefixes


# ---------------------------------------------------------------------------- fixes


def apply_fix(text: str, fix: dict[str, Any]) -> str:
    lines = text.split("\n")
    l0, c0, l1, c1 = fix["span"]
    before = "\n".join([*lines[:l0], lines[l0][:c0]])
    after = "\n".join([lines[l1][c1:], *lines[l1 + 1 :]])
    return before + str(fix["text"]) + after


FIXABLE = {
    "v4-lint-file-path": "file-path",
    "v4-lint-expected-prose": "expected-prose",
    "v4-lint-test-id": "test-id",
    "v4-lint-description": "description",
    "v4-lint-test-grading": "test-grading",  # inserts `criteria:` with a placeholder to replace
}


def test_each_fix_settles_its_issue(
    generated: list[tuple[Path, list[dict[str, Any]]]], tmp_path: Path
) -> None:
    applied = Counter[str]()
    for folder, _ in generated:
        for path in sorted(folder.iterdir()):
            text = path.read_text("utf-8")
            before = None
            for d in lint_v4(str(path), parse_yaml(text)):
                fix = d.data.get("fix")
                if not fix or fix["kind"] != "replace":
                    continue
                assert d.code in FIXABLE, d.code
                if applied[d.code] >= 4:  # enough evidence; each check runs the shipped linter
                    continue
                before = before or expected_places(path, run_shipped(path))
                fixed = tmp_path / path.name
                fixed.write_text(apply_fix(text, fix), "utf-8")
                doc = parse_yaml(fixed.read_text("utf-8"))
                assert doc.ok, (d.code, fixed.read_text("utf-8"))
                after = expected_places(fixed, [dict(i, file=str(fixed)) for i in run_shipped(fixed)])
                removed = before - after
                codes = {code for code, _ in removed}
                assert FIXABLE[d.code] in codes, (d.code, removed)
                # renaming `expected_output` to `criteria` also ends "expected_output but no assertions"
                assert codes <= {FIXABLE[d.code], "no-assertions"}, (d.code, removed)
                # no new shipped issue appears (a renamed key may settle others too)
                assert not (after - before), (d.code, after - before)
                applied[d.code] += 1
    assert set(applied) == set(FIXABLE), applied


def test_rename_file_fix(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text("description: d\ntests:\n  - {id: a, criteria: c, input: hi}\n", "utf-8")
    fix = next(d.data["fix"] for d in lint_v4(str(path), parse_yaml(path.read_text("utf-8"))))
    assert fix == {"kind": "rename-file", "to": "plain.eval.yaml"}
    renamed = path.rename(tmp_path / fix["to"])
    assert run_shipped(renamed) == []
    assert lint_v4(str(renamed), parse_yaml(renamed.read_text("utf-8"))) == []


# ---------------------------------------------------------------------------- goldens and edge cases


def _golden_v4_evals() -> list[Path]:
    env = os.environ.get("AGENTV_SHARED")
    shared = Path(env) if env else REPO.parent / "shared"
    cases = shared / "golden-v4" / "cases"
    return sorted(cases.rglob("*.eval.yaml")) if cases.is_dir() else []


@pytest.mark.parametrize("path", _golden_v4_evals(), ids=lambda p: f"{p.parents[1].name}/{p.name}")
def test_golden_v4_eval_file(path: Path) -> None:
    doc = parse_yaml(path.read_text("utf-8"))
    if not doc.ok or not isinstance(doc.value, dict):
        assert lint_v4(str(path), doc) == []
        return
    shipped = [i for i in run_shipped(path) if i["message"] != "'tests' is not a list"]
    if isinstance(doc.value.get("tests"), str):
        # tests in another file: the shipped linter stops at "'tests' is not a list"; we lint the suite
        shipped = [i for i in shipped if classify(i)[0] in ("file-name", "description")]
    assert our_places(path) == expected_places(path, shipped)


def test_prose_patterns_are_the_shipped_ones() -> None:
    assert LINTER is not None
    assert all(f'r"{p}"' in LINTER.read_text("utf-8") for p in PROSE_PATTERNS)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "- a\n",
        "tests: [1, null, [x]]\n",
        "tests:\n  - {input: [{content: [{type: file, value: 5}]}]}\n",
        "a: [\n",
    ],
)
def test_odd_documents_do_not_crash(text: str, tmp_path: Path) -> None:
    path = tmp_path / "odd.eval.yaml"
    path.write_text(text, "utf-8")
    lint_v4(str(path), parse_yaml(text))
