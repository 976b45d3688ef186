"""`agentv-lsp check` output formats: text, json, sarif, github.

JSON shape (from the issue): `{"diagnostics": [{"file", "range": {"start": {"line",
"character"}, "end": {...}}, "severity", "code", "source", "message", "path"}]}`; SARIF 2.1.0
required fields; GitHub workflow-command escaping (`%`, CR, LF in the message; also `:` and
`,` in properties).
"""

from __future__ import annotations

import json

import pytest

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.report import render_github, render_json, render_sarif, render_text
from agentv_lsp.yamlpos import Span

BAD_ID = "$schema: agentv-eval-v2\nevalcases:\n  - id: 1\n    outcome: o\n    input_messages: []\n"
ROLE_MARKER_AFTER_EMOJI = (
    "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages:\n"
    "      - {role: user, name: '😀😀', content: '@[User]: hi'}\n"
)


def diag(file: str, code: str = "x-code", message: str = "m", severity: str = "error", **kw) -> Diagnostic:
    return Diagnostic(
        file, kw.pop("span", Span(0, 0, 0, 1)), severity, code, message, kw.pop("path", ()), **kw
    )


@pytest.fixture
def checked(make_repo, cli):
    """Run `check --format F eval.yaml` in a repo holding BAD_ID; returns (exit code, stdout)."""

    def run(fmt: str, text: str = BAD_ID, *extra: str):
        # the project declares AgentV v2: no note that only the file's format chose it
        repo = make_repo({"eval.yaml": text, "package.json": '{"devDependencies": {"agentv": "^2.0.0"}}'})
        result = cli("check", "--format", fmt, *extra, "eval.yaml", cwd=repo.root)
        return result.code, result.out

    return run


# -- json -----------------------------------------------------------------------------------------------


def test_json_shape(checked):
    code, out = checked("json")
    assert code == 1
    payload = json.loads(out)
    (d,) = payload["diagnostics"]
    assert d == {
        "file": "eval.yaml",
        "range": {"start": {"line": 2, "character": 8}, "end": {"line": 2, "character": 9}},
        "severity": "error",
        "code": "validate-id",
        "source": "agentv-lsp",
        "message": d["message"],
        "path": "evalcases[0].id",
    }
    assert d["message"].startswith("Missing or invalid 'id' field (must be a non-empty string)")
    assert payload["summary"] == {"files": 1, "errors": 1, "warnings": 0, "information": 0}


def test_json_is_empty_list_for_a_clean_file(checked):
    code, out = checked("json", "$schema: agentv-eval-v2\nevalcases: []\n")
    assert code == 0
    assert json.loads(out)["diagnostics"] == []


def test_json_file_outside_cwd_is_absolute(tmp_path):
    out = json.loads(render_json([diag("/elsewhere/e.yaml")], str(tmp_path), False, 1))
    assert out["diagnostics"][0]["file"] == "/elsewhere/e.yaml"


def test_json_keeps_non_ascii_as_is(tmp_path):
    out = render_json([diag(str(tmp_path / "é.yaml"), message="naïve 😀")], str(tmp_path), False, 1)
    assert '"naïve 😀"' in out
    assert '"é.yaml"' in out


# -- sarif ----------------------------------------------------------------------------------------------------


def test_sarif_2_1_0_required_fields(checked):
    code, out = checked("sarif", ROLE_MARKER_AFTER_EMOJI)
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "agentv-lsp"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["results"], "expected at least one result"
    for result in run["results"]:
        assert result["level"] in ("none", "note", "warning", "error")
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "eval.yaml"
        assert physical["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"]
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert region["endLine"] >= region["startLine"] and region["endColumn"] >= 1
    marker = next(r for r in run["results"] if r["ruleId"] == "validate-role-marker")
    # `      - {role: user, name: '😀😀', content: '@[User]: hi'}`: the content value starts at code
    # point 43 (1-based); counted in UTF-16 units it would be 45
    assert marker["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    assert marker["locations"][0]["physicalLocation"]["region"]["startColumn"] == 43
    assert marker["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": "evalcases[0].input_messages[0].content"}
    ]


def test_sarif_levels_map_information_to_note(tmp_path):
    diagnostics = [
        diag(str(tmp_path / "a.yaml"), "e", severity="error"),
        diag(str(tmp_path / "a.yaml"), "w", severity="warning"),
        diag(str(tmp_path / "a.yaml"), "i", severity="information"),
    ]
    results = json.loads(render_sarif(diagnostics, str(tmp_path), False, 1))["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("e", "error"), ("w", "warning"), ("i", "note")]


def test_sarif_with_no_findings_is_still_a_valid_log(tmp_path):
    log = json.loads(render_sarif([], str(tmp_path), False, 0))
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["tool"]["driver"]["rules"] == []


# -- github ----------------------------------------------------------------------------------------------------


def test_github_escapes_message_and_properties(tmp_path):
    d = diag(
        str(tmp_path / "a,b:c%.yaml"),
        "some-code",
        message="100% sure\r\nnext: a, b",
        severity="warning",
        span=Span(2, 4, 3, 0),
    )
    (line, summary) = render_github([d], str(tmp_path), False, 1).splitlines()
    assert line == (
        "::warning file=a%2Cb%3Ac%25.yaml,line=3,col=5,endLine=4,endColumn=1,title=agentv-lsp some-code"
        "::100%25 sure%0D%0Anext: a, b"
    )
    assert summary == "1 file checked: 0 errors, 1 warning"


def test_github_information_is_a_notice(tmp_path):
    out = render_github([diag(str(tmp_path / "a.yaml"), severity="information")], str(tmp_path), False, 1)
    assert out.startswith(
        "::notice file=a.yaml,line=1,col=1,endLine=1,endColumn=2,title=agentv-lsp x-code::m\n"
    )


def test_github_output_of_a_real_check(checked):
    code, out = checked("github")
    assert code == 1
    assert out.splitlines()[0].startswith(
        "::error file=eval.yaml,line=3,col=9,endLine=3,endColumn=10,title=agentv-lsp validate-id::"
        "Missing or invalid 'id' field (must be a non-empty string)"
    )


def test_github_multi_line_message_stays_on_one_line(make_repo, cli):
    repo = make_repo(
        {"eval.yaml": "$schema: agentv-eval-v2\nevalcases: []\n", ".agentv/config.yaml": "a: 1\n"}
    )
    result = cli("check", "--format", "github", "eval.yaml", cwd=repo.root)
    (skipped,) = [line for line in result.out.splitlines() if "config-skipped" in line]
    assert "Missing required field '$schema' in " in skipped
    assert ".yaml.%0APlease add '$schema: agentv-config-v2' at the top of the file." in skipped


# -- text --------------------------------------------------------------------------------------------------------


def test_text_lines_and_summary_without_colour(checked):
    code, out = checked("text")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("eval.yaml:3:9: error validate-id Missing or invalid 'id' field")
    assert lines[-1] == "1 file checked: 1 error, 0 warnings"
    assert "\x1b[" not in out


def test_text_colour_on_request(checked):
    _code, out = checked("text", BAD_ID, "--color", "always")
    assert "\x1b[31merror\x1b[0m" in out


def test_text_counts_information_separately(tmp_path):
    out = render_text(
        [
            diag(str(tmp_path / "a.yaml"), severity="information"),
            diag(str(tmp_path / "a.yaml"), severity="warning"),
        ],
        str(tmp_path),
        False,
        2,
    )
    assert out.splitlines()[-1] == "2 files checked: 0 errors, 1 warning, 1 info"


# -- untrusted text in line-oriented output ----------------------------------------------------------------------

HOSTILE = "key 'evil\n::error file=x.py,line=1::INJECTED\r\nterm\x1b[2J\x1b]0;title\x07' \u2028end"


@pytest.mark.parametrize("render", [render_text, render_github], ids=["text", "github"])
def test_a_diagnostic_is_one_line_without_terminal_escapes(tmp_path, render):
    out = render([diag(str(tmp_path / "e\x1b[31m.yaml"), message=HOSTILE)], str(tmp_path), False, 1)
    lines = out.splitlines()
    assert len(lines) == 2  # the diagnostic and the summary
    assert not any(line.startswith("::error file=x.py") for line in lines)
    assert not any(ch in out for ch in "\x1b\x07\r\u2028")
    assert "INJECTED" in lines[0]  # the content is shown, escaped, not dropped


def test_runtimes_of_checked_files_are_in_json_and_sarif(tmp_path):
    judged = [(str(tmp_path / "a.eval.yaml"), "4.42.4", "asked for AgentV 4")]
    payload = json.loads(render_json([], str(tmp_path), False, 1, judged))
    assert payload["files"] == [
        {"file": "a.eval.yaml", "runtime": "4.42.4", "runtime_reason": "asked for AgentV 4"}
    ]
    sarif = json.loads(render_sarif([], str(tmp_path), False, 1, judged))
    (artifact,) = sarif["runs"][0]["artifacts"]
    assert artifact["location"]["uri"] == "a.eval.yaml"
    assert artifact["properties"]["agentvRuntime"] == "4.42.4"
