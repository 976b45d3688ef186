"""Output that cannot be forged (issue 18): user content echoed by `check --format text|github`
and by `preview` (headers always, content on a terminal) is shown escaped, one diagnostic per
line, while `--format json|sarif` and piped `preview` keep the exact values.

What an output line must never contain is decided here from Unicode's own categories
(`unicodedata`) and from how CI runners read lines (a GitHub Actions runner takes a line whose
left-trimmed text starts with `::`, or any line containing `##[command]`, as a workflow
command), not from the escaping code under test.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

# -- what no line of text/github output may contain --------------------------------------------

BIDI_CONTROLS = {
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
    "\u200e",
    "\u200f",
    "\u061c",
}
FORGED_COMMAND = re.compile(r"##[A-Za-z]*\[", re.I)  # `##[error]`, `##vso[`, `##teamcity[`
OUR_ANNOTATION = re.compile(
    r"::(error|warning|notice) file=[^:\n]*,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,"
    r"title=agentv-lsp [a-z0-9-]+::"
)


def forbidden(char: str) -> bool:
    """A character that must not reach a terminal or a line reader raw."""
    code = ord(char)
    if char == "\n":
        return False
    if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
        return True  # C0, DEL, C1, format (bidi, zero-width, BOM, tags), surrogates, separators
    return char in BIDI_CONTROLS or 0xE0000 <= code <= 0xE007F or code & 0xFFFE == 0xFFFE


def assert_safe_lines(out: str, fmt: str, diagnostics: int) -> list[str]:
    """One line per diagnostic plus the summary, nothing a CI runner or a terminal would act on."""
    out.encode("utf-8")  # no lone surrogate (it could not even be written to a UTF-8 stream)
    assert out.endswith("\n")
    lines = out[:-1].split("\n")
    assert len(lines) == diagnostics + 1, lines
    bad = sorted({f"U+{ord(c):04X}" for c in out if forbidden(c)})
    assert not bad, f"raw control or invisible characters in the output: {bad}"
    for line in lines:
        assert not FORGED_COMMAND.search(line), line
        if fmt == "github" and line is not lines[-1]:
            assert OUR_ANNOTATION.match(line), line
        else:
            assert not line.lstrip().startswith("::"), line  # the runner trims before it looks
    assert re.fullmatch(r"\d+ files? checked: .*", lines[-1]), lines[-1]
    return lines


# -- running the command line in this process ---------------------------------------------------


def run_main(cwd: Path, *args: str) -> tuple[int, str, str]:
    """`agentv_lsp.cli.main(args)` in `cwd` with stdout and stderr captured (not a terminal)."""
    from agentv_lsp.cli import main

    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(before)
        gc.enable()
    return code, out.getvalue(), err.getvalue()


def check_all_formats(cwd: Path, target: str, agentv: str) -> dict[str, str]:
    outputs = {}
    for fmt in ("json", "sarif", "text", "github"):
        code, out, err = run_main(
            cwd, "check", "--agentv", agentv, "--format", fmt, "--color", "never", target
        )
        assert code in (0, 1), err
        outputs[fmt] = out
    return outputs


def yaml_quoted(text: str) -> str:
    """A YAML double-quoted scalar holding exactly `text`."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F:
            out.append(char)
        else:
            out.append(
                f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
            )
    return '"' + "".join(out) + '"'


# -- hostile values -----------------------------------------------------------------------------

HOSTILE = {
    "issue-newlines": "evil\n::error file=x.py,line=1::INJECTED\n",
    "terminal-escapes": "term\x1b[2J\x1b]0;title\x07",
    "bidi-and-invisible": "a\u202eb\u2066c\u2069\u200bd\ufeffe\u00adf\u2028g\u200fh\u061c",
    "tag-smuggling": "hi\U000e0049\U000e0047\U000e004e\U000e004f\U000e0052\U000e0045there",
    "c1-del-cr": "x\x9b31m\x7f\ry\x85z\x00w",
    "ci-commands": "q\n  ::warning::W\n##[error]X ##vso[task.complete]Y ##[stop-commands]t",
}
MARK = "Q7Z"  # the placeholder a family template puts where the hostile text goes

# Each family puts the hostile text in one kind of place; the diagnostic with `code` quotes it.
V2_FAMILIES = {
    "key": ("schema-unknown-key", f"$schema: agentv-eval-v2\n{MARK}: 1\nevalcases:\n{{case}}"),
    "value": (
        "targets-file-missing",
        f"$schema: agentv-eval-v2\nexecution:\n  target: {MARK}\nevalcases:\n{{case}}",
    ),
    "id": (
        "duplicate-case-id",
        "$schema: agentv-eval-v2\nevalcases:\n"
        + f"  - id: {MARK}\n    outcome: o\n    input_messages: [{{role: user, content: hi}}]\n" * 2,
    ),
    "role": (
        "validate-role",
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages:\n"
        f"      - role: {MARK}\n        content: hi\n      - role: user\n        content: hi\n",
    ),
    "path": (
        "validate-file-not-found",
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages:\n"
        f"      - role: user\n        content:\n          - type: file\n            value: {MARK}\n",
    ),
    "runtime-message": (
        "evaluator-invalid",
        f"$schema: agentv-eval-v2\nevalcases:\n  - id: {MARK}\n    outcome: o\n"
        "    input_messages: [{role: user, content: hi}]\n    evaluators:\n      - name: e\n        type: nope\n",
    ),
}
V2_CASE = "  - id: c\n    outcome: o\n    input_messages: [{role: user, content: hi}]\n"

V4_FAMILIES = {
    "key": ("v4-unknown-field", f"description: d\n{MARK}: 1\ntests:\n{{case}}"),
    "value": (
        "v4-assertion-type-unknown",
        f"tests:\n  - id: t\n    criteria: c\n    input: hi\n    assertions:\n      - type: {MARK}\n",
    ),
    "id": ("v4-duplicate-id", "tests:\n" + f"  - id: {MARK}\n    criteria: c\n    input: hi\n" * 2),
    "role": (
        "v4-invalid-role",
        f"tests:\n  - id: t\n    criteria: c\n    input:\n      - role: {MARK}\n        content: hi\n"
        "      - role: user\n        content: hi\n",
    ),
    "path": (
        "v4-file-not-found",
        "tests:\n  - id: t\n    criteria: c\n    input:\n      - role: user\n        content:\n"
        f"          - type: file\n            value: {MARK}\n",
    ),
    "runtime-message": (
        "v4-assertion-value-missing",
        f"tests:\n  - id: {MARK}\n    criteria: c\n    input: hi\n    assertions:\n      - type: contains\n",
    ),
}
V4_CASE = "  - id: t\n    criteria: c\n    input: hi\n"


def family_file(template: str, case: str, hostile: str) -> str:
    return template.replace("{case}", case).replace(MARK, yaml_quoted(hostile))


def checked(make_repo, name: str, text: str, agentv: str) -> tuple[dict[str, str], list[dict]]:
    repo = make_repo({name: text})
    outputs = check_all_formats(repo.root, name, agentv)
    return outputs, json.loads(outputs["json"])["diagnostics"]


def assert_text_and_github_safe(outputs: dict[str, str], count: int) -> None:
    for fmt in ("text", "github"):
        assert_safe_lines(outputs[fmt], fmt, count)


@pytest.mark.parametrize("hostile", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("family", V2_FAMILIES, ids=V2_FAMILIES.keys())
def test_v2_family(make_repo, family, hostile):
    code, template = V2_FAMILIES[family]
    outputs, diagnostics = checked(make_repo, "eval.yaml", family_file(template, V2_CASE, hostile), "2")
    quoting = [d for d in diagnostics if d["code"] == code]
    assert quoting, [d["code"] for d in diagnostics]
    assert_text_and_github_safe(outputs, len(diagnostics))
    # JSON and SARIF: the value exactly as written (AgentV trims a target name)
    quoted = hostile.strip() if family == "value" else hostile
    assert any(quoted in d["message"] for d in quoting), quoting
    sarif = json.loads(outputs["sarif"])["runs"][0]["results"]
    assert any(quoted in r["message"]["text"] for r in sarif if r["ruleId"] == code)


@pytest.mark.parametrize("hostile", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("family", V4_FAMILIES, ids=V4_FAMILIES.keys())
def test_v4_family(make_repo, family, hostile):
    code, template = V4_FAMILIES[family]
    outputs, diagnostics = checked(make_repo, "suite.eval.yaml", family_file(template, V4_CASE, hostile), "4")
    quoting = [d for d in diagnostics if d["code"] == code]
    assert quoting, [d["code"] for d in diagnostics]
    assert_text_and_github_safe(outputs, len(diagnostics))
    if family == "key":  # the key itself, exactly, as the diagnostic's path
        assert any(d["path"] == hostile for d in quoting)
    if "\n" not in hostile:  # (4.x messages join the runtime's lines: see the xfail below)
        assert any(hostile in d["message"] for d in quoting), quoting


@pytest.mark.xfail(
    strict=True,
    reason="formats/v4/check.py `_one_line` joins every line of a validate message with ' — ', "
    "newlines inside a quoted key included, so the JSON message is not the key as written",
)
def test_v4_json_message_quotes_a_multi_line_key_exactly(make_repo):
    code, template = V4_FAMILIES["key"]
    hostile = HOSTILE["issue-newlines"]
    _outputs, diagnostics = checked(
        make_repo, "suite.eval.yaml", family_file(template, V4_CASE, hostile), "4"
    )
    assert any(hostile in d["message"] for d in diagnostics if d["code"] == code)


def test_the_issue_example_verbatim(make_repo):
    example = (
        "$schema: agentv-eval-v2\n"
        '"evil\\n::error file=x.py,line=1::INJECTED\\n": 1\n'
        '"term\\u001b[2J\\u001b]0;title\\u0007": 2\n'
        "evalcases:\n"
        "  - id: c1\n"
        "    outcome: ok\n"
        "    input_messages:\n"
        '      - role: "user\\n::error::ROLE"\n'
        "        content: hi\n"
    )
    outputs, diagnostics = checked(make_repo, "eval.yaml", example, "2")
    assert len(diagnostics) == 3
    text = assert_safe_lines(outputs["text"], "text", 3)
    github = assert_safe_lines(outputs["github"], "github", 3)
    # shown, escaped, not dropped
    assert "Unknown key 'evil\\n::error file=x.py,line=1::INJECTED\\n'" in text[0]
    assert "'term\\x1b[2J\\x1b]0;title\\x07'" in text[1]
    assert "Invalid role 'user\\n::error::ROLE'" in text[2]
    # github: the workflow-command escapes GitHub decodes (`%0A`) inside our own annotation
    assert "Unknown key 'evil%0A::error file=x.py,line=1::INJECTED%0A'" in github[0]
    assert "'term\\x1b[2J\\x1b]0;title\\x07'" in github[1]
    messages = {d["message"] for d in diagnostics}
    assert any("'evil\n::error file=x.py,line=1::INJECTED\n'" in m for m in messages)
    assert any("'term\x1b[2J\x1b]0;title\x07'" in m for m in messages)


# -- file names ---------------------------------------------------------------------------------

FILE_NAMES = {
    "newline": "a\n::error file=x.py,line=1::FORGED\nb",
    "command-first": "::error::x",
    "spaces-then-command": "  ::warning::y",
    "escape": "e\x1b[31mred\x1b]0;title\x07",
    "bidi": "evil\u202eloc.\u2066txt\u2069",
    "tags-and-zero-width": "t\u200b\U000e0041\U000e0042",
    "legacy-command": "##[error]legacy",
    "leading-dots": "..not-outside",
}
BAD_ID_V2 = "$schema: agentv-eval-v2\nevalcases:\n  - id: 1\n    outcome: o\n    input_messages: []\n"
BAD_ROLE_V4 = "tests:\n  - id: t\n    criteria: c\n    input:\n      - role: robot\n        content: hi\n"


def make_named(root: Path, name: str, text: str) -> None:
    try:
        (root / name).write_text(text, encoding="utf-8")
    except (OSError, ValueError) as exc:
        pytest.skip(f"the filesystem refuses the name {name!r}: {exc}")


@pytest.mark.parametrize(
    ("agentv", "suffix", "text"), [("2", ".yaml", BAD_ID_V2), ("4", ".eval.yaml", BAD_ROLE_V4)]
)
@pytest.mark.parametrize("stem", FILE_NAMES.values(), ids=FILE_NAMES.keys())
def test_file_names(make_repo, stem, agentv, suffix, text):
    repo = make_repo()
    name = stem + suffix
    make_named(repo.root, name, text)
    outputs = check_all_formats(repo.root, "./" + name, agentv)
    diagnostics = json.loads(outputs["json"])["diagnostics"]
    assert diagnostics and {d["file"] for d in diagnostics} == {name}  # exact in JSON
    sarif = json.loads(outputs["sarif"])["runs"][0]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["results"]} == {
        name
    }
    assert_text_and_github_safe(outputs, len(diagnostics))


def test_an_undecodable_file_name_is_escaped_and_round_trips_in_json(make_repo):
    repo = make_repo()
    raw = b"bad\xff\x1b.yaml"
    try:
        (repo.root / os.fsdecode(raw)).write_text(BAD_ID_V2)
    except (OSError, ValueError, UnicodeError) as exc:
        pytest.skip(f"the filesystem refuses undecodable names: {exc}")
    name = os.fsdecode(raw)
    outputs = check_all_formats(repo.root, "./" + name, "2")
    assert {d["file"] for d in json.loads(outputs["json"])["diagnostics"]} == {name}
    assert json.loads(outputs["sarif"])["runs"][0]["artifacts"][0]["location"]["uri"] == name
    lines = assert_safe_lines(outputs["text"], "text", 1)
    assert lines[0].startswith("bad\\udcff\\x1b.yaml:3:9: error validate-id ")
    assert_safe_lines(outputs["github"], "github", 1)


# -- long values --------------------------------------------------------------------------------


def test_a_long_key_is_shortened_in_text_and_github_and_whole_in_json(make_repo):
    key = "K" * 100_000 + "\u202e" * 50_000 + "END"
    # `?`: a key of any length; the directive keeps the key's U+202E run from a hidden-bidi warning
    text = (
        f"# agentv-lsp: allow-hidden U+202E\n$schema: agentv-eval-v2\n? {yaml_quoted(key)}\n: 1\n"
        f"evalcases:\n{V2_CASE}"
    )
    outputs, diagnostics = checked(make_repo, "eval.yaml", text, "2")
    (quoting,) = [d for d in diagnostics if d["code"] == "schema-unknown-key"]
    assert key in quoting["message"]
    for fmt in ("text", "github"):
        (line, _summary) = assert_safe_lines(outputs[fmt], fmt, 1)
        assert len(line) < 1500
        assert "KKKK\u2026\\u202e" in line  # the beginning and, around an ellipsis, the end
        assert line.endswith(
            "\\u202e\\u202eEND' at the top level: AgentV ignores it. Keys read here: "
            "$schema, description, dataset, evaluator, target, execution, evalcases."
        )


# -- properties ---------------------------------------------------------------------------------


@pytest.fixture(autouse=True, scope="module")
def _engine_imported() -> None:
    """Importing the YAML layer raises the recursion limit once; hypothesis warns when that
    happens inside a property."""
    import agentv_lsp.yamlpos  # noqa: F401


NASTY = st.sampled_from(
    [
        *map(chr, range(0x20)),
        "\x7f",
        "\x85",
        "\x9b",
        "\u00ad",
        "\u061c",
        "\u200b",
        "\u200d",
        "\u200e",
        "\u2028",
        "\u2029",
        "\u202a",
        "\u202e",
        "\u2066",
        "\u2069",
        "\ufeff",
        "\ufffe",
        "\U000e0001",
        "\U000e0041",
        "\U000e007f",
        "\U000e0100",
        ":",
        "::",
        "#",
        "##[",
        "[",
        "%",
        ",",
        " ",
        "\u05d0",
        "\u0627",
        "😀",
    ]
)
PLAIN = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
HOSTILE_TEXT = st.lists(st.one_of(NASTY, PLAIN), min_size=1, max_size=25).map("".join)
PROPERTY = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
V2_KEYS = {"$schema", "description", "dataset", "evaluator", "target", "execution", "evalcases"}


def property_check(text: str, name: str, agentv: str) -> tuple[dict[str, str], list[dict], str]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        try:
            (root / name).write_text(text, encoding="utf-8")
        except (OSError, ValueError):
            assume(False)
        outputs = check_all_formats(root, "./" + name, agentv)
        return outputs, json.loads(outputs["json"])["diagnostics"], str(root)


@PROPERTY
@given(key=HOSTILE_TEXT)
def test_property_v2_keys(key):
    assume(key not in V2_KEYS)
    text = f"$schema: agentv-eval-v2\n{yaml_quoted(key)}: 1\nevalcases:\n{V2_CASE}"
    outputs, diagnostics, _root = property_check(text, "eval.yaml", "2")
    assert_text_and_github_safe(outputs, len(diagnostics))
    assert any(d["code"] == "schema-unknown-key" and key in d["message"] for d in diagnostics)
    sarif = json.loads(outputs["sarif"])["runs"][0]["results"]
    assert any(key in r["message"]["text"] for r in sarif)


@PROPERTY
@given(key=HOSTILE_TEXT)
def test_property_v4_keys(key):
    assume(key not in {"description", "tests", "name", "execution", "workspace", "assertions", "metadata"})
    text = f"description: d\n{yaml_quoted(key)}: 1\ntests:\n{V4_CASE}"
    outputs, diagnostics, _root = property_check(text, "suite.eval.yaml", "4")
    assert_text_and_github_safe(outputs, len(diagnostics))
    assert any(d["path"] == key for d in diagnostics)  # the raw key, exactly


@PROPERTY
@given(role=HOSTILE_TEXT)
def test_property_v2_values(role):
    role = "x" + role  # never a valid role
    text = (
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages:\n"
        f"      - role: {yaml_quoted(role)}\n        content: hi\n      - role: user\n        content: hi\n"
    )
    outputs, diagnostics, _root = property_check(text, "eval.yaml", "2")
    assert_text_and_github_safe(outputs, len(diagnostics))
    assert any(d["code"] == "validate-role" and role in d["message"] for d in diagnostics)


@PROPERTY
@given(stem=HOSTILE_TEXT.filter(lambda s: "/" not in s and "\x00" not in s and len(s.encode()) < 200))
def test_property_file_names(stem):
    name = stem + ".yaml"
    outputs, diagnostics, _root = property_check(BAD_ID_V2, name, "2")
    assert diagnostics and {d["file"] for d in diagnostics} == {name}
    assert_text_and_github_safe(outputs, len(diagnostics))


# -- preview ------------------------------------------------------------------------------------

HIDDEN_PROMPT = "Say hi\x1b[2J\u202eevil\u2066\U000e0041\U000e0042\u200b end"
PREVIEW_V2 = (
    "$schema: agentv-eval-v2\nevalcases:\n  - id: " + yaml_quoted("c1\n::error::ID") + "\n    outcome: ok\n"
    "    input_messages:\n      - role: user\n        content: " + yaml_quoted(HIDDEN_PROMPT) + "\n"
)
PREVIEW_V4 = (
    "tests:\n  - id: " + yaml_quoted("t1\n::error::ID") + "\n    criteria: ok\n"
    "    input:\n      - role: user\n        content: " + yaml_quoted(HIDDEN_PROMPT) + "\n"
)
PREVIEWS = {"v2": ("eval.yaml", PREVIEW_V2, "2"), "v4": ("suite.eval.yaml", PREVIEW_V4, "4")}


@pytest.mark.parametrize("version", PREVIEWS)
def test_piped_preview_keeps_the_exact_prompt_and_escapes_headers(make_repo, version):
    name, text, agentv = PREVIEWS[version]
    repo = make_repo({name: text})
    code, out, err = run_main(repo.root, "preview", "--agentv", agentv, name)
    assert code == 0, err
    assert HIDDEN_PROMPT in out  # exact bytes: a pipe gets what the model gets
    assert "note:" not in out
    assert not any(line.lstrip().startswith("::") for line in out.split("\n"))  # the id header is escaped
    assert "\\n::error::ID" in out
    code, out, err = run_main(repo.root, "preview", "--agentv", agentv, "--json", name)
    assert code == 0, err
    assert HIDDEN_PROMPT in json.loads(out)["cases"][0]["lm"]["question"]


def run_on_a_terminal(cwd: Path, *args: str, env: dict[str, str]) -> str:
    """The CLI with stdout on a pseudo-terminal: everything it printed."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "agentv_lsp", *args],
            cwd=cwd,
            env=env,
            stdout=follower,
            stderr=subprocess.PIPE,
        )
        os.close(follower)
        chunks = []
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
        assert process.returncode == 0, process.stderr.read() if process.stderr else ""
        return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    finally:
        os.close(leader)


@pytest.mark.parametrize("version", PREVIEWS)
def test_preview_on_a_terminal_shows_hidden_characters_with_a_note(make_repo, subprocess_env, version):
    name, text, agentv = PREVIEWS[version]
    repo = make_repo({name: text})
    out = run_on_a_terminal(
        repo.root, "preview", "--agentv", agentv, name, env={**subprocess_env, "NO_COLOR": "1"}
    )
    bad = sorted({f"U+{ord(c):04X}" for c in out if forbidden(c) and c != "\t"})
    assert not bad, bad
    assert "Say hi\\x1b[2J\\u202eevil\\u2066\\U000e0041\\U000e0042\\u200b end" in out
    (note,) = [line for line in out.split("\n") if line.startswith("note:")]
    assert "\\x1b" in note and "\\u202e" in note and "\\U000e0041" in note


def test_a_lone_escaped_surrogate_is_written_as_node_writes_it(tmp_path: Path) -> None:
    """`"\\ud800"` keeps a lone surrogate in the value, as in the runtime's JavaScript string;
    a pipe gets it as U+FFFD (what node writes to UTF-8) instead of a UnicodeEncodeError."""
    (tmp_path / "s.eval.yaml").write_text('tests:\n  - id: t\n    input: "hi \\ud800"\n    criteria: ok\n')
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "server")}
    for args in (("preview",), ("preview", "--json")):
        done = subprocess.run(
            [sys.executable, "-m", "agentv_lsp", *args, "s.eval.yaml"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        assert "hi \ufffd".encode() in done.stdout
