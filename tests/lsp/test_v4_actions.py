"""textDocument/codeAction for AgentV 4.42.4 documents through the real protocol: the quick
fixes carried by the 4.x diagnostics (`data["fix"]`, role suggestions) and "Migrate this file
to AgentV 4" for v2 eval files under either runtime.

Each fix is checked by its effect: once its edit is applied, the diagnostic it fixes is gone.
The migration is checked against the other engines: the migrated text, loaded by our 4.42.4
loader, has the test ids that v2's `preview --json` gives the original file."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.loader import load_suite
from tests.lsp.conftest import (
    EVAL,
    FILES,
    accept_registrations,
    change_doc,
    diagnostics_until,
    doc_id,
    open_doc,
)

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "agentv_lsp", "serve"])

pytestmark = pytest.mark.asyncio(loop_scope="module")

LINT = """\
name: lint-demo
description: Fixes
tests:
  - id: role-typo
    criteria: Says hi
    input:
      - role: usr
        content: Hi
  - criteria: Says bye
    input: Bye
  - id: prose
    expected_output: The agent should say hello
    input:
      - role: user
        content:
          - type: file
            value: code.py
"""
# A v2 file whose every case survives the migration; its grader prompt uses v2 variables.
V2_EVAL = EVAL.replace("role: usr", "role: user").replace("judges/rubric.md", "judges/strict.md")
V2_FILES = {**FILES, "evals/judges/strict.md": "Grade {{candidate_answer}} against {{reference_answer}}.\n"}
# A project that installs AgentV 4: its v2 files are judged by 4.x.
V4_PROJECT = {
    "package.json": '{"devDependencies": {"agentv": "4.42.4"}}\n',
    **V2_FILES,
    "evals/lint.eval.yml": LINT,
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("actions") / "ws"
    for folder, files in (("v4proj", V4_PROJECT), ("v2proj", V2_FILES)):
        (root / folder / ".git").mkdir(parents=True)
        for name, text in files.items():
            path = root / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return root


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    folders = [lsp.WorkspaceFolder(uri=(workspace / f).as_uri(), name=f) for f in ("v4proj", "v2proj")]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=folders,
            initialization_options={"settings": {"preview": {"debounceMs": 0}}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def actions_for(
    client: LanguageClient, uri: str, diagnostics: list[lsp.Diagnostic], rng: lsp.Range | None = None
) -> list[lsp.CodeAction]:
    start = lsp.Position(line=0, character=0)
    found = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=doc_id(uri),
            range=rng or (diagnostics[0].range if diagnostics else lsp.Range(start=start, end=start)),
            context=lsp.CodeActionContext(
                diagnostics=diagnostics, trigger_kind=lsp.CodeActionTriggerKind.Invoked
            ),
        )
    )
    return [a for a in found or [] if isinstance(a, lsp.CodeAction)]


def offset(text: str, position: lsp.Position) -> int:
    """A UTF-16 position as an index into `text` (the texts here are ASCII)."""
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[: position.line]) + position.character


def apply_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(text, edit.range.start)] + edit.new_text + text[offset(text, edit.range.end) :]
    return text


def text_edits(edit: lsp.WorkspaceEdit, uri: str) -> list[lsp.TextEdit]:
    if edit.changes is not None:
        return list(edit.changes.get(uri, []))
    out: list[lsp.TextEdit] = []
    for change in edit.document_changes or []:
        if isinstance(change, lsp.TextDocumentEdit) and change.text_document.uri == uri:
            out.extend(e for e in change.edits if isinstance(e, lsp.TextEdit))
    return out


async def fix_removes_diagnostic(client: LanguageClient, path: Path, code: str) -> lsp.CodeAction:
    """Open `path`, take the quick fix of diagnostic `code`, apply it: the diagnostic is gone."""
    text = path.read_text()
    uri = open_doc(client, path)
    diagnostics = await diagnostics_until(client, uri, lambda ds: any(d.code == code for d in ds))
    diagnostic = next(d for d in diagnostics if d.code == code)
    count = sum(1 for d in diagnostics if d.code == code)
    fixes = [a for a in await actions_for(client, uri, [diagnostic]) if a.kind == lsp.CodeActionKind.QuickFix]
    assert fixes, f"no quick fix for {code}"
    fix = fixes[0]
    assert list(fix.diagnostics or []) == [diagnostic] and fix.edit is not None
    fixed = apply_edits(text, text_edits(fix.edit, uri))
    assert fixed != text
    change_doc(client, uri, 2, fixed)
    after = await diagnostics_until(client, uri, lambda ds: sum(1 for d in ds if d.code == code) < count)
    assert sum(1 for d in after if d.code == code) == count - 1
    return fix


@pytest.mark.parametrize(
    # (a test without an id: validate's v4-invalid-id, which also says the runtime skips it, takes
    # over the fix of the linter's v4-lint-test-id, which no longer shows: one finding per mistake)
    "code",
    ["v4-invalid-role", "v4-invalid-id", "v4-lint-expected-prose", "v4-lint-file-path"],
)
async def test_a_quick_fix_removes_its_diagnostic(client: LanguageClient, workspace: Path, code: str) -> None:
    path = workspace / "v4proj" / "evals" / f"{code}.eval.yaml"
    path.write_text(LINT)
    fix = await fix_removes_diagnostic(client, path, code)
    if code == "v4-invalid-role":
        assert fix.title == "Change to 'user'"


TYPOS = """\
name: typos
description: Misspelt and incomplete tests
tests:
  - id: typo-key
    critera: Says hi
    input: Hi
  - id: no-grading
    input: Hello
"""


async def test_did_you_mean_fixes_a_misspelt_test_key(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "v4proj" / "evals" / "typo-key.eval.yaml"
    path.write_text(TYPOS)
    fix = await fix_removes_diagnostic(client, path, "v4-unknown-field")
    assert fix.title == "Change to 'criteria'"
    assert fix.diagnostics and "Did you mean 'criteria'?" in fix.diagnostics[0].message


ENUM_TYPOS = """\
name: enum-typos
description: Misspelt values
tests:
  - id: typo-values
    criteria: Says hi
    input:
      - role: user
        content:
          - type: txt
            value: Hi
    assertions:
      - type: contians
        value: hi
"""


@pytest.mark.parametrize(
    ("code", "fixed"), [("v4-assertion-type-unknown", "contains"), ("v4-loss-segment-type", "text")]
)
async def test_did_you_mean_fixes_a_misspelt_value(
    client: LanguageClient, workspace: Path, code: str, fixed: str
) -> None:
    path = workspace / "v4proj" / "evals" / f"{code}.eval.yaml"
    path.write_text(ENUM_TYPOS)
    fix = await fix_removes_diagnostic(client, path, code)
    assert fix.title == f"Change to '{fixed}'"


async def test_an_incomplete_test_gets_one_warning_naming_what_is_missing(
    client: LanguageClient, workspace: Path
) -> None:
    path = workspace / "v4proj" / "evals" / "incomplete.eval.yaml"
    path.write_text(TYPOS)
    uri = open_doc(client, path)
    diagnostics = await diagnostics_until(
        client, uri, lambda ds: any(d.code == "v4-skipped-test" for d in ds)
    )
    first, last = TYPOS.split("\n").index("  - id: no-grading"), len(TYPOS.split("\n"))
    about_it = [
        d
        for d in diagnostics
        if first <= d.range.start.line < last and d.severity == lsp.DiagnosticSeverity.Warning
    ]
    assert [d.code for d in about_it] == ["v4-skipped-test"], [d.message for d in about_it]
    (warning,) = about_it
    assert warning.message.startswith(
        "Test 'no-grading' has none of `criteria`, `expected_output`, `assertions`, `turns` (add one). "
    )
    assert "no `id`" not in warning.message and "no `input`" not in warning.message
    # its quick fix (taken over from the linter's) adds criteria: the test is loaded again
    other = workspace / "v4proj" / "evals" / "incomplete-fix.eval.yaml"
    other.write_text(TYPOS)
    fix = await fix_removes_diagnostic(client, other, "v4-skipped-test")
    assert fix.title.startswith("Insert 'criteria: ")


@pytest.mark.parametrize(("quote", "name"), [('"', "double"), ("'", "single")])
async def test_the_role_fix_keeps_quotes(
    client: LanguageClient, workspace: Path, quote: str, name: str
) -> None:
    path = workspace / "v4proj" / "evals" / f"{name}-quoted-role.eval.yaml"
    quoted = f"role: {quote}usr{quote}"
    text = LINT.replace("role: usr", quoted)
    assert quoted in text
    path.write_text(text)
    fix = await fix_removes_diagnostic(client, path, "v4-invalid-role")
    assert fix.edit is not None
    (edit,) = text_edits(fix.edit, path.as_uri())
    # only the word between the quotes changes: the edit covers `usr`, not its quotes
    line = text.splitlines()[edit.range.start.line]
    assert line[edit.range.start.character : edit.range.end.character] == "usr"
    assert edit.new_text == "user"
    fixed = apply_edits(text, [edit])
    assert f"role: {quote}user{quote}" in fixed and "usr" not in fixed
    assert fixed == text.replace(quoted, f"role: {quote}user{quote}")


async def test_the_file_name_fix_renames_the_file(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "v4proj" / "evals" / "lint.eval.yml"
    uri = open_doc(client, path)
    code = "v4-lint-file-name"
    diagnostics = await diagnostics_until(client, uri, lambda ds: any(d.code == code for d in ds))
    diagnostic = next(d for d in diagnostics if d.code == code)
    (fix,) = [
        a for a in await actions_for(client, uri, [diagnostic]) if a.kind == lsp.CodeActionKind.QuickFix
    ]
    assert fix.edit is not None and fix.edit.document_changes is not None
    (rename,) = fix.edit.document_changes
    assert isinstance(rename, lsp.RenameFile) and rename.old_uri == uri
    new_path = Path(rename.new_uri.removeprefix("file://"))
    assert new_path.parent == path.parent and not new_path.exists()
    # what the diagnostic asks for: the name AgentV's `validate` and `eval` pick up
    assert new_path.name.endswith(".eval.yaml") and new_path.name.removesuffix(".eval.yaml") == "lint"
    new_path.write_text(LINT)
    renamed = open_doc(client, new_path)
    await diagnostics_until(client, renamed, lambda ds: any(d.code == "v4-invalid-role" for d in ds))
    assert not any(d.code == code for d in client.diagnostics[renamed])


def v2_case_ids(path: Path) -> list[str]:
    """The case ids v2 loads from the file (`agentv-lsp preview --json --agentv 2`)."""
    command = [sys.executable, "-m", "agentv_lsp", "preview", str(path), "--json", "--agentv", "2"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=path.parent)
    return [case["id"] for case in json.loads(done.stdout)["cases"]]


def v4_test_ids(action: lsp.CodeAction, uri: str, old_text: str, path: Path, root: Path) -> list[str]:
    """The tests our 4.42.4 loader loads from the edited text at `path`, with the edit's other
    files (companions) in place; none may be skipped."""
    assert action.edit is not None
    overlays: dict[str, str] = {}
    for change in action.edit.document_changes or []:
        if isinstance(change, lsp.TextDocumentEdit) and change.text_document.uri != uri:
            other = Path(change.text_document.uri.removeprefix("file://"))
            edits = [e for e in change.edits if isinstance(e, lsp.TextEdit)]
            overlays[str(other)] = apply_edits(other.read_text(), edits)
    new_text = apply_edits(old_text, text_edits(action.edit, uri))
    suite = load_suite(str(path), str(root), str(root), FileSystem(overlays=overlays), text=new_text)
    assert suite.load_error is None, suite.load_error
    assert not suite.skipped, [s.reason for s in suite.skipped]
    return [test.id for test in suite.tests]


async def migrate(client: LanguageClient, uri: str, diagnostics: list[lsp.Diagnostic]) -> lsp.CodeAction:
    actions = [
        a for a in await actions_for(client, uri, diagnostics) if a.title.startswith("Migrate this file")
    ]
    assert actions, "no migrate action"
    action = actions[-1]
    if action.edit is None:  # the client resolves it (VS Code does)
        action = await client.code_action_resolve_async(action)
    assert action.edit is not None
    return action


@pytest.mark.parametrize("project", ["v4proj", "v2proj"])
async def test_migrating_a_v2_file_keeps_its_tests(
    client: LanguageClient, workspace: Path, project: str
) -> None:
    root = workspace / project
    path = root / "evals" / "legacy.eval.yaml"
    path.write_text(V2_EVAL)
    uri = open_doc(client, path)
    # 4.x says the file is written for v2; judged as v2 only by its own format (no AgentV in
    # the project), an information finding says today's AgentV would not load it: the
    # migration is the quick fix of either
    code = "v4-tests-missing" if project == "v4proj" else "runtime-v2-undeclared"
    diagnostics = await diagnostics_until(client, uri, lambda ds: any(d.code == code for d in ds))
    missing = [d for d in diagnostics if d.code == code]
    if project == "v2proj":
        (note,) = missing
        assert note.severity == lsp.DiagnosticSeverity.Information
        assert "AgentV 4.42.4" in note.message and "declares no AgentV" in note.message
        assert V2_EVAL.split("\n")[note.range.start.line].startswith("evalcases:")
    quick = [
        a
        for a in await actions_for(client, uri, missing)
        if a.kind == lsp.CodeActionKind.QuickFix and a.title.startswith("Migrate")
    ]
    assert quick and quick[0].diagnostics is not None and missing[0] in quick[0].diagnostics
    action = await migrate(client, uri, [])
    assert action.kind == lsp.CodeActionKind.RefactorRewrite
    assert action.edit is not None
    new_text = apply_edits(V2_EVAL, text_edits(action.edit, uri))
    renames = [c for c in action.edit.document_changes or [] if isinstance(c, lsp.RenameFile)]
    assert not renames  # already named *.eval.yaml
    assert v4_test_ids(action, uri, V2_EVAL, path, root) == v2_case_ids(path)
    assert "evalcases" not in new_text.split("\n", 3)[:3]
    # the companion grader prompt (v2 template variables) is rewritten in the same edit
    for change in action.edit.document_changes or []:
        if isinstance(change, lsp.TextDocumentEdit) and change.text_document.uri != uri:
            companion = Path(change.text_document.uri.removeprefix("file://"))
            assert companion.exists()
            rewritten = apply_edits(
                companion.read_text(), [e for e in change.edits if isinstance(e, lsp.TextEdit)]
            )
            assert rewritten != companion.read_text()


async def test_migration_renames_a_file_4x_would_not_find(client: LanguageClient, workspace: Path) -> None:
    root = workspace / "v2proj"
    path = root / "evals" / "old-style.yaml"
    path.write_text(V2_EVAL)
    uri = open_doc(client, path)
    action = await migrate(client, uri, [])
    assert action.edit is not None
    renames = [c for c in action.edit.document_changes or [] if isinstance(c, lsp.RenameFile)]
    (rename,) = renames
    new_path = Path(rename.new_uri.removeprefix("file://"))
    assert rename.old_uri == uri and new_path.parent == path.parent
    assert new_path.name.lower().endswith((".eval.yaml", ".eval.yml"))  # what 4.x discovers
    assert "renamed to" in action.title
    assert v4_test_ids(action, uri, V2_EVAL, new_path, root) == v2_case_ids(path)


async def test_no_migration_for_4x_files_or_broken_v2_files(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "v4proj" / "evals" / "plain.eval.yaml"
    path.write_text(LINT)
    uri = open_doc(client, path)
    assert not [a for a in await actions_for(client, uri, []) if a.title.startswith("Migrate")]
    broken = workspace / "v2proj" / "evals" / "broken.eval.yaml"
    broken.write_text(EVAL + "  - id: [unclosed\n")
    uri = open_doc(client, broken)
    assert not [a for a in await actions_for(client, uri, []) if a.title.startswith("Migrate")]


async def test_only_filters_the_migration(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "v2proj" / "evals" / "only.eval.yaml"
    path.write_text(EVAL)
    uri = open_doc(client, path)
    start = lsp.Position(line=0, character=0)
    found = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=doc_id(uri),
            range=lsp.Range(start=start, end=start),
            context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.Source]),
        )
    )
    assert not found


@pytest.mark.parametrize(
    "data",
    [
        {"fix": {"kind": "replace", "span": ["a", 1, 2, 3], "text": "x"}},
        {"fix": {"kind": "replace", "span": [5, 0, 2, 0], "text": "x"}},
        {"fix": {"kind": "replace", "span": [0, 0, 999, 0], "text": "x"}},
        {"fix": {"kind": "replace", "span": [0, 0, 0, 1], "text": None}},
        {"fix": {"kind": "rename-file", "to": "../elsewhere.eval.yaml"}},
        {"fix": {"kind": "rename-file", "to": ".."}},
        {"fix": {"kind": "explode"}},
        {"fix": "replace", "suggestion": ["user"]},
        "not a mapping",
    ],
)
async def test_garbage_fix_data_gives_no_action(
    client: LanguageClient, workspace: Path, data: object
) -> None:
    path = workspace / "v4proj" / "evals" / "garbage.eval.yaml"
    path.write_text(LINT)
    uri = open_doc(client, path)
    start = lsp.Position(line=0, character=0)
    diagnostic = lsp.Diagnostic(
        range=lsp.Range(start=start, end=start),
        message="x",
        source="agentv-lsp",
        code="v4-invalid-role",
        data=data,
    )
    assert [
        a for a in await actions_for(client, uri, [diagnostic]) if a.kind == lsp.CodeActionKind.QuickFix
    ] == []


async def test_migration_names_but_never_edits_a_file_outside_the_workspace_folder(
    client: LanguageClient, workspace: Path
) -> None:
    """Issue 33, finding 5: `migrate --write`'s rule. A grader prompt outside the workspace folder
    and the repo root (named by an absolute path, or through a link) is reported, not edited."""

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(params: Any) -> None:  # asked for once a migration is taken in
        return None

    outside = workspace / "shared" / "strict.md"
    outside.parent.mkdir(exist_ok=True)
    outside.write_text(V2_FILES["evals/judges/strict.md"])
    root = workspace / "v2proj"
    (root / "evals" / "judges" / "linked.md").symlink_to(outside)
    for name, prompt in (("absolute", str(outside)), ("linked", "judges/linked.md")):
        path = root / "evals" / f"{name}.eval.yaml"
        path.write_text(V2_EVAL.replace("judges/strict.md", prompt))
        uri = open_doc(client, path)
        action = await migrate(client, uri, [])
        assert action.edit is not None
        edited = [
            c.text_document.uri
            for c in action.edit.document_changes or []
            if isinstance(c, lsp.TextDocumentEdit)
        ]
        assert edited == [uri], edited  # the eval file alone: the prompt outside is not edited
        assert "needs attention: would change" in action.title
        (named,) = [d.message for d in action.diagnostics or [] if "strict.md" in d.message]
        assert named.startswith(f"would change {outside}") and "outside the repo root" in named
        assert named.endswith("not written (edit it yourself)")
        # applied (the document's text becomes the migrated text): the proof says so too
        change_doc(client, uri, 2, apply_edits(path.read_text(), text_edits(action.edit, uri)))
        proof: Any = None
        for _ in range(100):
            proof = await client.workspace_execute_command_async(
                lsp.ExecuteCommandParams(command="agentv.migrationProof", arguments=[{"uri": uri}])
            )
            if proof is not None:
                break
            await asyncio.sleep(0.05)
        markdown = proof["markdown"] if isinstance(proof, dict) else proof.markdown
        shown = "evals/judges/linked.md" if name == "linked" else "../shared/strict.md"
        assert f"`{shown}` not edited (outside the workspace folder or the repo root)" in markdown
        assert "` rewritten" not in markdown
    assert outside.read_text() == V2_FILES["evals/judges/strict.md"]
