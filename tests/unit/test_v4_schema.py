"""The AgentV 4.42.4 schema (schema/agentv-eval-v4.schema.json), its diagnostics
(`formats.v4.schema`) and the VS Code association (vscode-client/package.json).

Ground truth is the runtime, never our own output:
- the golden-v4 recordings (`../shared/golden-v4/cases`): every eval file the runtime loads
  and `agentv validate` passes gets no error, and warnings only where validate warned; every
  location validate fails (apart from file references, which no schema can see) gets an error
  at the same path;
- the live oracle (`agentv validate` from /work/oracle-v4 or $AGENTV4_MODULES), run once on a
  folder of generated files: same verdict per file, an error at each failing location;
- the published schemas as a `# yaml-language-server: $schema=` modeline gives them (the extension
  contributes no association): each golden file gets the schema of its kind (v4 and v2); the files the runtimes accept
  validate cleanly, and the combined schema judges each file exactly as the schema of its
  format does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from agentv_lsp.engine.schemas import JsDraft202012Validator
from agentv_lsp.formats.v4.schema import file_kind, load_v4_schema, schema_diagnostics_v4, validate_v4
from agentv_lsp.yamlpos import parse_yaml

REPO = Path(__file__).resolve().parents[2]
SCHEMA_DIR = REPO / "schema"
PACKAGE_JSON = REPO / "vscode-client" / "package.json"


def _shared() -> Path | None:
    env = os.environ.get("AGENTV_SHARED")
    candidate = Path(env) if env else REPO.parent / "shared"
    return candidate if candidate.is_dir() else None


SHARED = _shared()
GOLDEN_V4 = SHARED / "golden-v4" / "cases" if SHARED else None
GOLDEN_V2 = REPO / "tests" / "golden" / "cases"
needs_v4_goldens = pytest.mark.skipif(
    GOLDEN_V4 is None or not GOLDEN_V4.is_dir(), reason="../shared/golden-v4 is not available"
)

# Messages of `agentv validate` about file references: a schema cannot see the file system.
FILE_REFERENCE_MESSAGES = (
    "Referenced file",
    "File not found",
    "Failed to parse YAML",
    "Failed to load external",
    "Template path not found",
)


# ---------------------------------------------------------------------------- the goldens


def _v4_golden_results() -> list[tuple[str, dict[str, Any]]]:
    if GOLDEN_V4 is None or not GOLDEN_V4.is_dir():
        return []
    out = []
    for case in sorted(GOLDEN_V4.iterdir()):
        for result in sorted((case / "expected").glob("*.json")):
            if result.name != "_case.json":
                out.append((case.name, json.loads(result.read_text("utf-8"))))
    return out


V4_RESULTS = _v4_golden_results()


def _accepted(golden: dict[str, Any]) -> bool:
    """The runtime loads the file and `agentv validate` passes it."""
    return golden["load_error"] is None and golden["validation"]["exit_code"] == 0


def _locations(golden: dict[str, Any], severity: str) -> set[str]:
    return {
        issue["location"]
        for issue in golden["validation"]["issues"]
        if issue["severity"] == severity
        and issue["location"]
        and not issue["message"].startswith(FILE_REFERENCE_MESSAGES)
    }


@needs_v4_goldens
def test_v4_goldens_are_found() -> None:
    assert len(V4_RESULTS) >= 20
    assert any(not _accepted(g) for _, g in V4_RESULTS)


@needs_v4_goldens
@pytest.mark.parametrize(("case", "golden"), V4_RESULTS, ids=[f"{c}/{g['file']}" for c, g in V4_RESULTS])
def test_v4_golden_eval_file(case: str, golden: dict[str, Any]) -> None:
    assert GOLDEN_V4 is not None
    path = GOLDEN_V4 / case / golden["file"]
    doc = parse_yaml(path.read_text("utf-8"))
    found = schema_diagnostics_v4(str(path), doc)
    shown = [(d.severity, d.path, d.message) for d in found]
    errors = {d.path for d in found if d.severity == "error"}
    if _accepted(golden):
        assert not errors, shown
        # a warning only where `agentv validate` warned too
        assert {d.path for d in found} <= _locations(golden, "warning"), shown
    else:
        assert _locations(golden, "error") <= errors, shown
    # every unknown or deprecated key validate warns about is reported
    warned = {
        issue["location"]
        for issue in golden["validation"]["issues"]
        if issue["message"].startswith("Unknown field") or "is deprecated" in issue["message"]
    }
    assert warned <= {d.path for d in found}, shown


@needs_v4_goldens
def test_v4_golden_test_files_are_clean() -> None:
    """External tests files (`tests: ./cases.yaml`) and a directory's `case.yaml` files."""
    assert GOLDEN_V4 is not None
    checked = []
    for path in sorted(GOLDEN_V4.rglob("*.yaml")):
        if path.name.endswith(".eval.yaml") or ".agentv" in path.parts:
            continue
        doc = parse_yaml(path.read_text("utf-8"))
        assert file_kind(str(path), doc.value) in ("cases", "case")
        assert schema_diagnostics_v4(str(path), doc) == [], path
        checked.append(path.name)
    assert {"cases.yaml", "case.yaml"} <= set(checked)


# ---------------------------------------------------------------------------- schema shape


def _walk(node: Any, path: str = "#") -> Iterator[tuple[str, Any]]:
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


def test_schemas_are_valid_draft_2020_12() -> None:
    for name in ("agentv-eval-v4.schema.json", "agentv-eval.schema.json"):
        Draft202012Validator.check_schema(json.loads((SCHEMA_DIR / name).read_text("utf-8")))


def test_every_v4_property_is_described_for_hover() -> None:
    schema = load_v4_schema()
    missing = []
    for path, node in _walk(schema):
        if path.endswith("/properties") and isinstance(node, dict):
            for key, sub in node.items():
                # conditions and branches only narrow a property the base schema describes
                narrowing = any(part in path for part in ("/if/", "/then/", "/else/"))
                if isinstance(sub, dict) and "$ref" not in sub and "description" not in sub and not narrowing:
                    missing.append(f"{path}/{key}")
    assert missing == []


def test_every_local_reference_resolves() -> None:
    schema = load_v4_schema()
    for path, node in _walk(schema):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            name = node["$ref"].removeprefix("#/$defs/")
            assert name in schema["$defs"], path


def test_one_issue_per_place() -> None:
    """10,000 tests with three problems each: one issue per place (tests of one shape share a
    validation: about 0.5 s; timed by benchmarks, not here)."""
    item = {"id": "t", "input": [{"role": "usr", "content": 5}], "criteria": ""}
    document = {"tests": [dict(item, id=f"t{n}") for n in range(10_000)]}
    issues = validate_v4(document)
    places = [(i.path, i.on_key) for i in issues]
    assert len(places) == len(set(places)) == 30_000


# ---------------------------------------------------------------------------- the live oracle


def _oracle_cli() -> Path | None:
    modules = Path(os.environ.get("AGENTV4_MODULES", "/work/oracle-v4/node_modules"))
    package = modules / "agentv" / "package.json"
    if not package.is_file() or shutil.which("node") is None:
        return None
    bin_field = json.loads(package.read_text("utf-8")).get("bin")
    relative = bin_field.get("agentv") if isinstance(bin_field, dict) else bin_field
    cli = package.parent / str(relative or "dist/cli.js")
    return cli if cli.is_file() else None


# One test (or one suite key) per file, each written the way a person gets it wrong.
TEST = "  - id: t\n    criteria: c\n    input: hi\n"
MUTANTS: dict[str, str] = {
    "ok-string": "tests:\n" + TEST,
    "ok-messages": "tests:\n  - id: t\n    criteria: c\n    input:\n      - role: system\n        content: s\n"
    "      - role: user\n        content: [{type: text, value: v}, plain, {type: file, value: /x.md}]\n",
    "ok-object-content": "tests:\n  - id: t\n    criteria: c\n    input:\n      - {role: user, content: {a: 1}}\n",
    "ok-expected-list": "tests:\n  - id: t\n    input: hi\n    expected_output: [{a: 1}, 3]\n",
    "ok-tool-calls": "tests:\n  - id: t\n    input: hi\n    expected_output:\n      - {role: assistant, tool_calls: [{name: x}]}\n",
    "ok-conversation": "tests:\n  - id: t\n    input: hi\n    mode: conversation\n    turns: [{input: a}, {input: [x]}]\n"
    "    aggregation: min\n    window_size: 2\n",
    "ok-file-ref": "tests:\n  - file://more.yaml\n" + TEST,
    "ok-no-criteria": "tests:\n  - id: t\n    input: hi\n",
    "ok-assertions": "tests:\n  - id: t\n    input: hi\n    assertions:\n      - words\n      - {type: contains, value: a}\n"
    "      - {type: contains_any, value: [a]}\n      - {type: is_json}\n      - {type: llm-grader, prompt: p}\n"
    "      - {type: code-grader, command: [python, g.py]}\n      - {type: rubrics, criteria: [{outcome: o}]}\n",
    "ok-suite": "description: d\nname: my-suite\ninput: [{role: system, content: s}]\ninput_files: [a.md]\n"
    "execution: {target: t, workers: 2}\nassertions: [{type: contains, value: x}]\nworkspace: {template: ./t}\n"
    "tests:\n" + TEST,
    "ok-tests-path": "tests: ./cases.yaml\n",
    "no-tests": "description: d\n",
    "tests-number": "tests: 5\n",
    "tests-mapping": "tests: {id: t}\n",
    "tests-item-number": "tests:\n  - 5\n" + TEST,
    "tests-item-plain-string": "tests:\n  - cases.yaml\n" + TEST,
    "root-list": "- a\n",
    "id-missing": "tests:\n  - criteria: c\n    input: hi\n",
    "id-blank": "tests:\n  - id: '  '\n    criteria: c\n    input: hi\n",
    "id-number": "tests:\n  - id: 7\n    criteria: c\n    input: hi\n",
    "criteria-blank": "tests:\n  - id: t\n    criteria: ''\n    input: hi\n",
    "criteria-number": "tests:\n  - id: t\n    criteria: 3\n    input: hi\n",
    "input-missing": "tests:\n  - id: t\n    criteria: c\n",
    "input-number": "tests:\n  - id: t\n    criteria: c\n    input: 4\n",
    "input-mapping": "tests:\n  - id: t\n    criteria: c\n    input: {role: user, content: hi}\n",
    "input-null": "tests:\n  - id: t\n    criteria: c\n    input:\n",
    "message-not-object": "tests:\n  - id: t\n    criteria: c\n    input: [hello]\n",
    "role-missing": "tests:\n  - id: t\n    criteria: c\n    input: [{content: hi}]\n",
    "role-tool": "tests:\n  - id: t\n    criteria: c\n    input: [{role: tool, content: hi}]\n",
    "role-capital": "tests:\n  - id: t\n    criteria: c\n    input: [{role: User, content: hi}]\n",
    "content-missing": "tests:\n  - id: t\n    criteria: c\n    input: [{role: user}]\n",
    "content-number": "tests:\n  - id: t\n    criteria: c\n    input: [{role: user, content: 3}]\n",
    "segment-number": "tests:\n  - id: t\n    criteria: c\n    input: [{role: user, content: [3]}]\n",
    "segment-no-type": "tests:\n  - id: t\n    criteria: c\n    input: [{role: user, content: [{value: x}]}]\n",
    "text-no-value": "tests:\n  - id: t\n    criteria: c\n    input: [{role: user, content: [{type: text}]}]\n",
    "text-value-number": "tests:\n  - id: t\n    criteria: c\n    input: [{role: user, content: [{type: text, value: 1}]}]\n",
    "suite-input-number": "input: 3\ntests:\n" + TEST,
    "suite-input-bad-role": "input: [{role: bot, content: x}]\ntests:\n" + TEST,
    "expected-number": "tests:\n  - id: t\n    input: hi\n    expected_output: 4\n",
    "expected-bad-role": "tests:\n  - id: t\n    input: hi\n    expected_output: [{role: agent, content: x}]\n",
    "turns-without-mode": "tests:\n  - id: t\n    criteria: c\n    input: hi\n    turns: [{input: a}]\n",
    "mode-without-turns": "tests:\n  - id: t\n    criteria: c\n    input: hi\n    mode: conversation\n",
    "mode-with-expected": "tests:\n  - id: t\n    input: hi\n    expected_output: x\n    mode: conversation\n"
    "    turns: [{input: a}]\n",
    "aggregation-without-mode": "tests:\n  - id: t\n    criteria: c\n    input: hi\n    aggregation: mean\n",
    "window-without-mode": "tests:\n  - id: t\n    criteria: c\n    input: hi\n    window_size: 2\n",
    "turn-empty-input": "tests:\n  - id: t\n    input: hi\n    mode: conversation\n    turns: [{input: ''}, 5]\n",
    "repo-without-url": "workspace: {repos: [{path: a}]}\ntests:\n" + TEST,
    "repo-clone": "workspace: {repos: [{path: a, repo: r, clone: {depth: 1}}]}\ntests:\n" + TEST,
    "unknown-keys": "descripton: d\ntests:\n  - id: t\n    criteria: c\n    input: hi\n    inputs: x\n",
    "deprecated-keys": "evaluator: llm-grader\ntests:\n  - id: t\n    expected_outcome: c\n    input: hi\n"
    "    assert: [{type: contains, value: a}]\n",
    "assertion-problems": "tests:\n  - id: t\n    input: hi\n    assertions:\n      - ''\n      - 5\n      - {value: x}\n"
    "      - {type: contians, value: x}\n      - {type: contains}\n      - {type: contains-all, value: []}\n"
    "      - {type: equals, value: x, required: 2}\n",
    "assertions-not-list": "tests:\n  - id: t\n    input: hi\n    assertions: {type: contains, value: a}\n",
}


@pytest.fixture(scope="module")
def oracle_verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    cli = _oracle_cli()
    if cli is None:
        pytest.skip("the agentv@4.42.4 CLI (node + /work/oracle-v4 or $AGENTV4_MODULES) is not available")
    root = tmp_path_factory.mktemp("v4-schema-oracle")
    (root / ".git").mkdir()
    folder = root / "evals"
    folder.mkdir()
    (folder / "cases.yaml").write_text("- id: c\n  criteria: c\n  input: hi\n", "utf-8")
    (folder / "more.yaml").write_text("- id: m\n  criteria: c\n  input: hi\n", "utf-8")
    (root / "x.md").write_text("notes\n", "utf-8")
    (folder / "t").mkdir()
    for name, text in MUTANTS.items():
        (folder / f"{name}.eval.yaml").write_text(text, "utf-8")
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    proc = subprocess.run(
        ["node", str(cli), "validate", "evals"],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    verdicts: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in (proc.stdout + proc.stderr).splitlines():
        head = re.match(r"^([✗✓]) (.+\.eval\.yaml)$", line)
        if head:
            current = {"valid": head.group(1) == "✓", "errors": set(), "warnings": set(), "text": []}
            verdicts[Path(head.group(2)).name.removesuffix(".eval.yaml")] = current
            continue
        issue = re.match(r"^\s+([✗⚠])\s+(?:\[(.+?)\]\s+)?(.*)$", line)
        if issue and current is not None:
            current["text"].append(line.strip())
            if issue.group(2) and not issue.group(3).startswith(FILE_REFERENCE_MESSAGES):
                current["errors" if issue.group(1) == "✗" else "warnings"].add(issue.group(2))
    for name in MUTANTS:
        verdicts[name]["path"] = folder / f"{name}.eval.yaml"
    return verdicts


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_generated_file_matches_agentv_validate(
    name: str, oracle_verdicts: dict[str, dict[str, Any]]
) -> None:
    verdict = oracle_verdicts[name]
    path = verdict["path"]
    found = schema_diagnostics_v4(str(path), parse_yaml(path.read_text("utf-8")))
    shown = [(d.severity, d.path, d.message) for d in found] + verdict["text"]
    errors = {d.path for d in found if d.severity == "error"}
    if verdict["valid"]:
        assert not errors, shown
    else:
        assert errors, shown
        for location in verdict["errors"]:
            assert any(_at_or_inside(path_, _our_location(location, path)) for path_ in errors), (
                location,
                shown,
            )
    assert verdict["warnings"] <= {d.path for d in found}, shown


def _our_location(location: str, eval_path: Path) -> str:
    """AgentV names a workspace repo by its path (`workspace.repos[path=a]`): the index here."""
    match = re.fullmatch(r"workspace\.repos\[path=(.*)\]", location)
    if match is None:
        return location
    repos = parse_yaml(eval_path.read_text("utf-8")).value["workspace"]["repos"]
    index = next(n for n, repo in enumerate(repos) if str(repo.get("path", "(none)")) == match.group(1))
    return f"workspace.repos[{index}]"


def _at_or_inside(path: str, location: str) -> bool:
    return path == location or path.startswith((location + ".", location + "["))


def test_mutants_cover_both_verdicts(oracle_verdicts: dict[str, dict[str, Any]]) -> None:
    valid = [n for n, v in oracle_verdicts.items() if v["valid"]]
    assert len(valid) >= 10 and len(oracle_verdicts) - len(valid) >= 30


# ---------------------------------------------------------------------------- VS Code association


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A `yamlValidation` fileMatch glob as vscode-yaml (yaml-language-server 1.x/2.x) reads it:
    a leading `/` dropped, `**/` put in front, then picomatch with `bash: true` (a `*` may
    cross `/`, like `**`), matched against the whole file URI. Wildcards do not match a path
    segment that starts with a dot (picomatch's default)."""
    pattern = "**/" + pattern.removeprefix("/")
    wildcard = r"(?:(?!\.)[^/]*)(?:/(?!\.)[^/]*)*"
    out = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out += r"(?:(?!\.)[^/]*/)*"
            index += 3
        elif pattern[index] == "*":
            while index < len(pattern) and pattern[index] == "*":
                index += 1
            out += wildcard
        elif pattern[index] == "?":
            out += "[^/]"
            index += 1
        elif pattern[index] == "{":
            end = pattern.index("}", index)
            out += "(?:" + "|".join(re.escape(p) for p in pattern[index + 1 : end].split(",")) + ")"
            index = end + 1
        else:
            out += re.escape(pattern[index])
            index += 1
    return re.compile(out)


def test_glob_emulation_agrees_with_picomatch_examples() -> None:
    def matches(glob: str, path: str) -> bool:
        return _glob_regex(glob).fullmatch(path) is not None

    assert matches("**/*.eval.yaml", "file:///ws/a/b.eval.yaml")
    assert matches("**/evals/**/*.yaml", "file:///ws/evals/a.yaml")
    assert matches("**/evals/**/*.yaml", "file:///ws/evals/x/y/a.yaml")
    assert not matches("**/evals/**/*.yaml", "file:///ws/other/a.yaml")
    assert not matches("**/*.eval.yaml", "file:///ws/a.eval.yml")
    assert matches("**/.agentv/config.yaml", "file:///ws/.agentv/config.yaml")
    assert not matches("**/evals/**/*.yaml", "file:///ws/evals/.agentv/config.yaml")


# The schema each kind of file gets through the modeline the README documents for editors
# without our server (`# yaml-language-server: $schema=<repo>/schema/agentv-eval.schema.json`):
# the same file kinds the old `yamlValidation` association covered.
MODELINE_SCHEMAS = [
    (["**/.agentv/config.yaml"], "./schema/agentv-config-v2.schema.json"),
    (["**/.agentv/targets.yaml"], "./schema/agentv-targets-v2.2.schema.json"),
    (
        ["**/evals/**/*.yaml", "**/evals/**/*.yml", "**/*.eval.yaml", "**/*.eval.yml"],
        "./schema/agentv-eval.schema.json",
    ),
]


def _associations() -> list[tuple[list[re.Pattern[str]], str]]:
    return [([_glob_regex(p) for p in patterns], url) for patterns, url in MODELINE_SCHEMAS]


def _schemas_for(relative: str) -> list[str]:
    uri = "file:///workspace/project/" + relative
    return [url for patterns, url in _associations() if any(p.fullmatch(uri) for p in patterns)]


def test_no_schema_association_while_our_server_judges() -> None:
    """The extension contributes no `yamlValidation`: the server reports everything the schema
    would (a second report of each finding from Red Hat's YAML extension), and a glob wider
    than the files the server judges painted plain YAML under `evals/` (issue 27)."""
    package = json.loads(PACKAGE_JSON.read_text("utf-8"))
    assert "yamlValidation" not in package["contributes"]


def _retrieve(uri: str) -> Resource[Any]:
    """Schemas are packaged side by side (scripts/copy-schemas.mjs): a reference resolves to
    the file of the same name in schema/."""
    name = uri.rsplit("/", 1)[-1].split("#")[0]
    return Resource.from_contents(json.loads((SCHEMA_DIR / name).read_text("utf-8")))


def _vscode_problems(url: str, value: Any) -> list[tuple[str, str, str]]:
    """(path, keyword, message) of every schema violation VS Code would show for `url`."""
    assert url.startswith("./schema/")
    schema = json.loads((SCHEMA_DIR / url.removeprefix("./schema/")).read_text("utf-8"))
    validator = JsDraft202012Validator(schema, registry=Registry(retrieve=_retrieve))  # type: ignore[call-arg]
    return sorted(
        (".".join(str(p) for p in e.absolute_path), str(e.validator), e.message)
        for e in validator.iter_errors(value)
    )


def _direct_problems(schema_file: str, value: Any, ref: str = "") -> list[tuple[str, str, str]]:
    schema = json.loads((SCHEMA_DIR / schema_file).read_text("utf-8"))
    if ref:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": ref}
    return sorted(
        (".".join(str(p) for p in e.absolute_path), str(e.validator), e.message)
        for e in JsDraft202012Validator(schema).iter_errors(value)
    )


def test_every_schema_url_is_packaged() -> None:
    """copy-schemas.mjs ships schema/*.json; every URL and every file reference must be there."""
    for _, url in _associations():
        assert (SCHEMA_DIR / url.removeprefix("./schema/")).is_file(), url
    for path in SCHEMA_DIR.glob("*.json"):
        for _, node in _walk(json.loads(path.read_text("utf-8"))):
            if (
                isinstance(node, dict)
                and isinstance(node.get("$ref"), str)
                and not node["$ref"].startswith("#")
            ):
                assert (SCHEMA_DIR / node["$ref"].split("#")[0]).is_file(), (path.name, node["$ref"])
    ignore = (REPO / "vscode-client" / ".vscodeignore").read_text("utf-8")
    assert "!schema/*.json" in ignore.splitlines()


def test_modeline_schemas_by_file_kind() -> None:
    for relative in ("evals/a.eval.yaml", "x/b.eval.yml", "evals/dir/cases/c/case.yaml", "evals/cases.yaml"):
        assert _schemas_for(relative) == ["./schema/agentv-eval.schema.json"], relative
    assert _schemas_for(".agentv/config.yaml") == ["./schema/agentv-config-v2.schema.json"]
    assert _schemas_for("docs/readme.yaml") == []


def _location_path(location: str) -> list[str | int]:
    out: list[str | int] = []
    for part in location.replace("]", "").split("."):
        head, *indices = part.split("[")
        out.extend([head] if head else [])
        out.extend(int(i) for i in indices)
    return out


@needs_v4_goldens
def test_vscode_v4_goldens() -> None:
    """Every YAML file of the v4 goldens, with the schema its path picks: the files the
    runtime accepts show no problem but unknown keys validate warned about (vscode-yaml shows
    those as warnings), and the combined schema agrees with the v4 schema on every file."""
    assert GOLDEN_V4 is not None
    results = {(case, g["file"]): g for case, g in V4_RESULTS}
    seen = 0
    for path in sorted(GOLDEN_V4.rglob("*.yaml")):
        case = path.relative_to(GOLDEN_V4).parts[0]
        relative = path.relative_to(GOLDEN_V4 / case).as_posix()
        if relative.startswith("expected/"):
            continue
        urls = _schemas_for(relative)
        doc = parse_yaml(path.read_text("utf-8"))
        golden = results.get((case, relative))
        if not doc.ok:
            assert golden is not None and not _accepted(golden)
            continue
        if ".agentv/" in relative:
            continue
        assert urls == ["./schema/agentv-eval.schema.json"], relative
        problems = _vscode_problems(urls[0], doc.value)
        seen += 1
        if golden is None:  # an external tests file or a directory's case.yaml
            assert problems == [], relative
            continue
        kind = file_kind(str(path), doc.value)
        if doc.value.get("evalcases") is None or "tests" in doc.value:
            assert kind == "eval"
            assert problems == _direct_problems("agentv-eval-v4.schema.json", doc.value), relative
        if _accepted(golden):
            # vscode-yaml shows an unknown key as a warning; validate warned about each one
            unknown_parents = {
                ".".join(str(x) for x in _location_path(issue["location"])[:-1])
                for issue in golden["validation"]["issues"]
                if issue["message"].startswith("Unknown field")
            }
            assert all(keyword == "additionalProperties" for _, keyword, _ in problems), (relative, problems)
            assert {p for p, _, _ in problems} <= unknown_parents, (relative, problems)
    assert seen >= 20


def _v2_goldens() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for case in sorted(GOLDEN_V2.iterdir()):
        meta = case / "expected" / "_case.json"
        if not meta.is_file():
            continue
        for relative in json.loads(meta.read_text("utf-8"))["eval_files"]:
            result = case / "expected" / (relative.replace("/", "__") + ".json")
            out.append((case.name, relative, json.loads(result.read_text("utf-8"))))
    return out


# v2 files the runtime loads without a word although it loses content: the v2 schema reports
# them on purpose (the same list as GOLDEN_EXCEPTIONS in test_schemas.py).
V2_SCHEMA_REPORTS_LOSSES = {
    ("edge-content-list-of-strings", "eval.yaml"),
    ("edge-role-marker-validator", "eval.yaml"),
    ("edge-judge-fallback-question", "eval.yaml"),
}


def test_vscode_v2_goldens() -> None:
    """Every v2 golden eval file, at its own path and as `evals/<name>.eval.yaml` (so that the
    eval globs apply): the combined schema judges it exactly as the v2 schema does, and the
    files AgentV v2 accepts show no problem."""
    goldens = _v2_goldens()
    assert len(goldens) >= 40
    for case, relative, golden in goldens:
        doc = parse_yaml((GOLDEN_V2 / case / relative).read_text("utf-8"))
        if not doc.ok:
            continue
        direct = _direct_problems("agentv-eval-v2.schema.json", doc.value)
        accepted = (
            golden["load_error"] is None
            and not golden["warnings"]
            and (golden.get("validation") or {}).get("valid", False)
            and (case, relative) not in V2_SCHEMA_REPORTS_LOSSES
        )
        for where in (relative, f"evals/{Path(relative).stem}.eval.yaml"):
            for url in _schemas_for(where):
                problems = _vscode_problems(url, doc.value)
                if isinstance(doc.value, dict) and (
                    "evalcases" in doc.value or doc.value.get("$schema") == "agentv-eval-v2"
                ):
                    assert problems == direct, (case, where)
                if accepted:
                    assert problems == [], (case, where, problems)


# ---------------------------------------------------------------------------- the real vscode-yaml engine

YLS_RUNNER = r"""
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { getLanguageService } from 'yaml-language-server';
import { TextDocument } from 'vscode-languageserver-textdocument';

const [schemasPath, schemaDir, listPath] = process.argv.slice(2);
const associations = JSON.parse(readFileSync(schemasPath, 'utf8'));
const ls = getLanguageService({
  schemaRequestService: async (uri) => {
    if (!uri.startsWith('file:')) throw new Error(`no network: ${uri}`);
    return readFileSync(fileURLToPath(uri), 'utf8');
  },
  workspaceContext: { resolveRelativePath: (rel, base) => new URL(rel, base).href },
});
ls.configure({
  validate: true,
  schemas: associations.map((v) => ({
    fileMatch: v.fileMatch,
    uri: pathToFileURL(path.join(schemaDir, path.basename(v.url))).href,
    priority: 2,
  })),
});
const out = {};
for (const [uri, file] of JSON.parse(readFileSync(listPath, 'utf8'))) {
  const doc = TextDocument.create(uri, 'yaml', 1, readFileSync(file, 'utf8'));
  out[file] = (await ls.doValidation(doc, false)).map((d) => ({ line: d.range.start.line, message: d.message }));
}
console.log(JSON.stringify(out));
"""


@needs_v4_goldens
def test_yaml_language_server_on_v4_goldens(tmp_path: Path) -> None:
    """yaml-language-server itself (the engine of VS Code's YAML extension) with our
    the modeline schemas: set $AGENTV_YLS_MODULES to a node_modules folder holding
    yaml-language-server and vscode-languageserver-textdocument to run it."""
    modules = os.environ.get("AGENTV_YLS_MODULES")
    if not modules or not (Path(modules) / "yaml-language-server").is_dir() or shutil.which("node") is None:
        pytest.skip("set $AGENTV_YLS_MODULES to a node_modules folder with yaml-language-server")
    assert GOLDEN_V4 is not None
    runner = Path(modules).parent / "agentv-lsp-yls-runner.mjs"  # beside node_modules, for module resolution
    runner.write_text(YLS_RUNNER, "utf-8")
    goldens = {GOLDEN_V4 / case / g["file"]: g for case, g in V4_RESULTS}
    files = [
        p for p in sorted(GOLDEN_V4.rglob("*.yaml")) if "expected" not in p.parts and ".agentv" not in p.parts
    ]
    listing = tmp_path / "files.json"
    listing.write_text(
        json.dumps([[f"file:///ws/{p.relative_to(GOLDEN_V4).as_posix()}", str(p)] for p in files])
    )
    schemas = tmp_path / "schemas.json"
    schemas.write_text(json.dumps([{"fileMatch": m, "url": u} for m, u in MODELINE_SCHEMAS]))
    proc = subprocess.run(
        ["node", str(runner), str(schemas), str(SCHEMA_DIR), str(listing)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    shown: dict[str, list[dict[str, Any]]] = json.loads(proc.stdout)
    for path in files:
        problems = shown[str(path)]
        golden = goldens.get(path)
        doc = parse_yaml(path.read_text("utf-8"))
        if golden is None:
            assert problems == [], path
        elif not doc.ok:
            assert problems, path  # the syntax error
        elif _accepted(golden):
            warned = {
                doc.span_of(tuple(_location_path(i["location"])), key=True).start_line
                for i in golden["validation"]["issues"]
            }
            assert {p["line"] for p in problems} <= warned, (path, problems)
        elif "evalcases" not in doc.value:
            lines = {p["line"] for p in problems}
            for location in _locations(golden, "error"):
                span = doc.span_of(tuple(_location_path(location)))
                assert span.start_line in lines, (path, location, problems)


def test_shared_validation_equals_validating_each_test() -> None:
    """Tests of one shape share a validation; the result must be what validating each gives,
    for texts that differ everywhere (ids, roles, types, blank and empty strings)."""
    import random

    from agentv_lsp.formats.v4 import schema as v4schema

    rng = random.Random(7)
    words = [
        "",
        " ",
        "x",
        "user",
        "usr",
        "system",
        "tool",
        "text",
        "file",
        "contains",
        "regex",
        "conversation",
    ]

    def scalar() -> Any:
        return rng.choice([*words, 0, 1, 2.5, -1, True, None])

    def test_value(n: int) -> dict[str, Any]:
        return {
            "id": rng.choice([f"t{n}", "", " ", 5]),
            "criteria": rng.choice(["c", "", "  "]),
            "input": rng.choice(
                [
                    scalar(),
                    [
                        {
                            "role": scalar(),
                            "content": rng.choice(
                                [scalar(), [scalar(), {"type": scalar(), "value": scalar()}]]
                            ),
                        }
                    ],
                ]
            ),
            "assertions": [
                rng.choice([scalar(), {"type": scalar(), "value": scalar(), "required": scalar()}])
            ],
            rng.choice(["mode", "turns", "expected_output", "inputs", "name"]): scalar(),
        }

    document = {"tests": [test_value(n) for n in range(1000)]}
    v4schema.clear_cache()
    assert validate_v4(document) == validate_v4(document, shared=False)
    assert validate_v4(document) == validate_v4(document, shared=False)  # from a warm cache too
    for text in MUTANTS.values():
        value = parse_yaml(text).value
        assert validate_v4(value) == validate_v4(value, shared=False)
    # suites of the same shape share their validation too (their `tests` items left out)
    suite_keys = ["name", "description", "input", "execution", "assertions", "target", "workspace", "nme"]
    for n in range(300):
        suite: dict[str, Any] = {key: scalar() for key in rng.sample(suite_keys, rng.randrange(4))}
        suite["tests"] = rng.choice([[test_value(n)], [], scalar(), [scalar(), test_value(n)]])
        assert validate_v4(suite) == validate_v4(suite, shared=False), suite


def test_directory_case_and_external_list_grading(tmp_path: Path) -> None:
    """`agentv validate` does not read inside external tests (a non-object entry fails the
    load): problems inside are warnings; a directory case needs no id (the folder names it)."""
    case = tmp_path / "cases" / "greet" / "case.yaml"
    case.parent.mkdir(parents=True)
    case.write_text("criteria: Greets\ninput: 4\n", "utf-8")
    found = schema_diagnostics_v4(str(case), parse_yaml(case.read_text("utf-8")))
    assert [(d.severity, d.path) for d in found] == [("warning", "input")]
    listing = tmp_path / "cases.yaml"
    listing.write_text("- id: a\n  input: 4\n- 5\n", "utf-8")
    found = schema_diagnostics_v4(str(listing), parse_yaml(listing.read_text("utf-8")))
    assert [(d.severity, d.path) for d in found] == [("warning", "[0].input"), ("error", "[1]")]
    # VS Code: the combined schema sends an id-less case to the directory case schema
    assert _vscode_problems("./schema/agentv-eval.schema.json", {"criteria": "Greets", "input": "hi"}) == []


def test_schema_keeps_verdicts_context_free_as_shared_validation_assumes() -> None:
    """Validation shares a definition's verdict between mappings of one shape: keywords that
    look beyond the mapping (annotations of siblings, dynamic scopes) would break that."""
    text = json.dumps(load_v4_schema())
    for keyword in ("unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "dependentSchemas"):
        assert f'"{keyword}"' not in text, keyword
