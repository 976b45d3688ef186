"""workspace/symbol for AgentV 4.42.4 eval files, and hover, code lenses and previews inside
the cases files an eval file's `tests:` names (a YAML list, a JSONL file, a folder of
`case.yaml` files), through the real protocol, checked against the runtime's recordings
(golden-v4) and the files on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.runtime import RuntimeChoice
from agentv_lsp.formats.v2.check import CheckOptions
from agentv_lsp.lsp.v4 import navigation
from agentv_lsp.lsp.v4.model import V4Model
from tests.lsp.conftest import change_doc, doc_id, open_doc
from tests.lsp.test_v4_preview import (
    COMPARED,
    GOLDEN,
    V4_CASES,
    eval_files,
    expected,
    golden_session_fixtures,
)

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not GOLDEN.is_dir(), reason="the golden-v4 folders are not on this machine"),
]

# Golden folders whose tests are written in another file than the eval file:
# (folder, eval file, the cases file holding the test, a text found inside the test)
CASES_FILES = [
    ("tests-external-yaml", "evals/main.eval.yaml", "evals/cases.yaml", "ext-two", "Say goodbye."),
    ("tests-jsonl", "evals/j.eval.yaml", "evals/cases.jsonl", "j2", "Two?"),
    ("directory-cases", "evals/dir/EVAL.eval.yaml", "evals/dir/cases/greet/case.yaml", "greet", "Say hi."),
]


workspace, client = golden_session_fixtures()


def mentions_id(line: str, test_id: str) -> bool:
    """Whether a YAML or JSONL line gives this id (`id: x`, `id: "x"`, `"id": "x"`)."""
    compact = line.replace(" ", "")
    return any(form in compact for form in (f"id:{test_id}", f'id:"{test_id}"', f'"id":"{test_id}"'))


@pytest.mark.parametrize("case", V4_CASES)
async def test_workspace_symbols_list_every_test_where_it_is_written(
    client: LanguageClient, workspace: Path, case: str
) -> None:
    folder = workspace / case
    for eval_file in eval_files(case):
        recorded = {test["id"] for test in expected(workspace, case, eval_file)["cases"]}
        for test_id in sorted(recorded):
            found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=test_id))
            here = [
                s
                for s in found or []
                if isinstance(s, lsp.SymbolInformation)
                and s.name == test_id
                and Path(s.location.uri.removeprefix("file://")).is_relative_to(folder)
            ]
            assert here, f"{case}: no symbol for {test_id}"
            for symbol in here:
                path = Path(symbol.location.uri.removeprefix("file://"))
                line = path.read_text().split("\n")[symbol.location.range.start.line]
                assert mentions_id(line, test_id), f"{case}: {test_id} at {path}:{line!r}"


async def test_workspace_symbols_follow_unsaved_text(client: LanguageClient, workspace: Path) -> None:
    path = workspace / "string-input" / "evals" / "basic.eval.yaml"
    text = path.read_text()
    uri = open_doc(client, path)
    (first_id,) = [t["id"] for t in expected(workspace, "string-input", "evals/basic.eval.yaml")["cases"]][:1]
    change_doc(client, uri, 2, text.replace(f"id: {first_id}\n", "id: renamed-in-editor\n", 1))
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="renamed-in-editor"))
    (symbol,) = [s for s in found or [] if isinstance(s, lsp.SymbolInformation)]
    assert symbol.location.uri == uri
    edited = text.replace(f"id: {first_id}\n", "id: renamed-in-editor\n", 1).split("\n")
    assert mentions_id(edited[symbol.location.range.start.line], "renamed-in-editor")
    change_doc(client, uri, 3, text)


async def hover_text(client: LanguageClient, uri: str, position: lsp.Position) -> str | None:
    hover = await client.text_document_hover_async(
        lsp.HoverParams(text_document=doc_id(uri), position=position)
    )
    if hover is None:
        return None
    assert isinstance(hover.contents, lsp.MarkupContent)
    return hover.contents.value


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n")


def recorded_test(workspace: Path, case: str, eval_file: str, test_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        t for t in expected(workspace, case, eval_file)["cases"] if t["id"] == test_id
    )
    return found


@pytest.mark.parametrize(("case", "eval_file", "cases_file", "test_id", "inside"), CASES_FILES)
async def test_hover_in_a_cases_file_shows_the_question_the_eval_file_sends(
    client: LanguageClient,
    workspace: Path,
    case: str,
    eval_file: str,
    cases_file: str,
    test_id: str,
    inside: str,
) -> None:
    path = workspace / case / cases_file
    text = path.read_text()
    uri = open_doc(client, path)
    hover = await hover_text(client, uri, lsp.Position(line=line_of(text, inside), character=2))
    assert hover is not None, f"{case}: no hover in {cases_file}"
    question = recorded_test(workspace, case, eval_file, test_id)["lm"]["question"]
    assert f"```text\n{question}\n```" in hover
    assert Path(eval_file).name in hover  # says which eval file gives the context


async def test_hover_in_a_cases_file_follows_its_unsaved_text(
    client: LanguageClient, workspace: Path
) -> None:
    path = workspace / "tests-external-yaml" / "evals" / "cases.yaml"
    text = path.read_text()
    uri = open_doc(client, path)
    edited = text.replace("Say goodbye.", "Say farewell.")
    change_doc(client, uri, 2, edited)
    hover = await hover_text(client, uri, lsp.Position(line=line_of(edited, "Say farewell."), character=2))
    assert hover is not None and "Say farewell." in hover and "Say goodbye." not in hover
    change_doc(client, uri, 3, text)


@pytest.mark.parametrize(("case", "eval_file", "cases_file", "test_id", "inside"), CASES_FILES)
async def test_preview_from_a_cases_file_matches_the_runtime(
    client: LanguageClient,
    workspace: Path,
    case: str,
    eval_file: str,
    cases_file: str,
    test_id: str,
    inside: str,
) -> None:
    path = workspace / case / cases_file
    text = path.read_text()
    uri = open_doc(client, path)
    golden = recorded_test(workspace, case, eval_file, test_id)
    for target in (
        {"uri": uri, "caseId": test_id},
        {"uri": uri, "position": {"line": line_of(text, inside)}},
    ):
        result = await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="agentv.previewCase", arguments=[target])
        )
        assert result is not None, f"{case}: no preview from {cases_file} for {target}"
        assert {k: result[k] for k in COMPARED} == {k: golden[k] for k in COMPARED}


@pytest.mark.parametrize(("case", "eval_file", "cases_file", "test_id", "inside"), CASES_FILES)
async def test_code_lenses_in_a_cases_file(
    client: LanguageClient,
    workspace: Path,
    case: str,
    eval_file: str,
    cases_file: str,
    test_id: str,
    inside: str,
) -> None:
    path = workspace / case / cases_file
    text = path.read_text()
    uri = open_doc(client, path)
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    assert lenses
    resolved = [await client.code_lens_resolve_async(lens) for lens in lenses]
    line = line_of(text, inside)
    previews = [lens for lens in resolved if lens.command and lens.command.command == "agentv.previewCase"]
    (preview,) = [
        lens
        for lens in previews
        if lens.command is not None and (lens.command.arguments or [{}])[0].get("caseId") == test_id
    ]
    assert preview.range.start.line <= line
    assert mentions_id(text.split("\n")[preview.range.start.line], test_id)


@pytest.mark.parametrize(("case", "eval_file", "cases_file", "test_id", "inside"), CASES_FILES)
async def test_the_lenses_of_a_cases_file_in_process(
    workspace: Path, case: str, eval_file: str, cases_file: str, test_id: str, inside: str
) -> None:
    """What the lenses say once features/codelens.py asks for them (no server)."""
    root = workspace / case
    path = root / cases_file
    text = path.read_text()
    opts = CheckOptions(repo_root=str(root), cwd=str(root), fs=FileSystem())
    model = V4Model(str(path), text, RuntimeChoice(4, "asked for AgentV 4"), opts)
    assert model.kind == "cases"
    uri = path.as_uri()
    commands = [
        (line, navigation.resolve_lens(model, uri, index, kind))
        for index, line in enumerate(navigation.lens_lines(model))
        for kind in ("preview", "summary")
    ]
    (line,) = [
        n
        for n, c in commands
        if c.command == "agentv.previewCase" and c.arguments == [{"uri": uri, "caseId": test_id}]
    ]
    assert mentions_id(text.split("\n")[line], test_id)
    golden = recorded_test(workspace, case, eval_file, test_id)
    turns = len(golden["lm"]["chatPrompt"] or []) or 1
    (summary,) = [c.title for n, c in commands if n == line and c.command == ""]
    assert summary.startswith(f"{turns} turn") and Path(eval_file).name in summary
