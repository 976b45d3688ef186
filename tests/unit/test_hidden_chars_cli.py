"""`agentv-lsp check --allow-hidden` and the file-wide allow comment, also in a large file
checked in parts (the comment in one part holds for the others)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from agentv_lsp.checks.runner import run_check
from agentv_lsp.cli import main
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions

CASE = "  - id: c{n}\n    outcome: ok\n    input_messages:\n      - role: user\n        content: {content}\n"


def write_eval(root: Path, cases: int, hidden_in: int, comment_in: int | None = None) -> Path:
    """`comment_in`: the case that carries the allow comment (None: no comment)."""
    (root / ".git").mkdir(exist_ok=True)
    body = "".join(
        CASE.format(n=n, content="say\u200bhi" if n == hidden_in else "plain text " * 8)
        + ("    # agentv-lsp: allow-hidden U+200B\n" if n == comment_in else "")
        for n in range(cases)
    )
    path = root / "big.yaml"
    path.write_text(f"$schema: agentv-eval-v2\nevalcases:\n{body}", encoding="utf-8")
    return path


def codes(*args: str) -> list[str]:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["check", *args, "--format", "json"])
    return [d["code"] for d in json.loads(out.getvalue())["diagnostics"]]


def test_the_flag_allows_listed_code_points_only(tmp_path: Path) -> None:
    path = write_eval(tmp_path, 3, 1)
    assert "hidden-invisible" in codes(str(path))
    assert "hidden-invisible" not in codes(str(path), "--allow-hidden", "U+200B")
    assert "hidden-invisible" not in codes(str(path), "--allow-hidden", "U+2066..U+2069,U+200B")
    assert "hidden-invisible" not in codes(str(path), "--allow-hidden", "all")
    assert "hidden-invisible" in codes(str(path), "--allow-hidden", "U+200F")


@pytest.mark.parametrize("workers", [1, 2])
def test_the_allow_comment_holds_in_every_part_of_a_large_file(tmp_path: Path, workers: int) -> None:
    # 6,000 cases (about 700 KB): `check` with 2 processes splits the file; the comment is in the
    # first case, the character in a case near the end (another part)
    path = write_eval(tmp_path, 6000, 5990, comment_in=0)
    opts = CheckOptions(repo_root=str(tmp_path), cwd=str(tmp_path), fs=FileSystem(), workers=workers)
    run = run_check([str(path)], opts)
    assert run.files_checked == 1
    assert not [d for d in run.diagnostics if d.code.startswith("hidden-")]
    plain = write_eval(tmp_path, 6000, 5990)
    run = run_check([str(plain)], opts)
    assert [d.yaml_path[:2] for d in run.diagnostics if d.code == "hidden-invisible"] == [("evalcases", 5990)]


def test_hidden_as_error_makes_every_hidden_finding_an_error_and_fails_the_check(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "trojan.eval.yaml"
    # an unclosed RLO (Trojan Source) and a zero-width space, in a file AgentV 4.42.4 runs, after
    # two other warnings (an unknown field, an unresolved `{{ b }}`)
    path.write_text(
        'description: d\ntests:\n  - id: t\n    note: x\n    vars: {a: 1}\n    criteria: "{{ b }}"\n'
        '    input: "Approve \u202ethis"\n    expected_output: "ok\u200b"\n',
        encoding="utf-8",
    )

    def run(*extra: str) -> tuple[int, dict[str, str]]:
        out = io.StringIO()
        with redirect_stdout(out):
            status = main(["check", str(path), "--format", "json", "--repo-root", str(tmp_path), *extra])
        found = json.loads(out.getvalue())["diagnostics"]
        return status, {d["code"]: d["severity"] for d in found if d["code"] in HIDDEN}

    status, severities = run()
    assert severities == {"bidi-unbalanced": "warning", "hidden-invisible": "warning"}
    assert status == 0
    status, severities = run("--hidden-as-error")
    assert severities == {"bidi-unbalanced": "error", "hidden-invisible": "error"}
    assert status == 1
    # made errors before the per-file cap (errors first): the two kept are the hidden ones
    assert run("--max-diagnostics", "2")[1] == {}
    assert run("--max-diagnostics", "2", "--hidden-as-error")[1] == {
        "bidi-unbalanced": "error",
        "hidden-invisible": "error",
    }


HIDDEN = {"hidden-bidi", "hidden-invisible", "hidden-tag", "bidi-unbalanced"}
