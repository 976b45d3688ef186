"""textDocument/codeAction: quick fixes from Diagnostic.data."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import EVAL, diagnostics_until, doc_id, open_doc, open_eval

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def fixes(client: LanguageClient, uri: str, code: str) -> tuple[lsp.Diagnostic, list[lsp.CodeAction]]:
    diagnostics = await diagnostics_until(client, uri, lambda d: any(x.code == code for x in d))
    diagnostic = next(d for d in diagnostics if d.code == code)
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=doc_id(uri),
            range=diagnostic.range,
            context=lsp.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    return diagnostic, [a for a in actions or [] if isinstance(a, lsp.CodeAction)]


def only_edit(action: lsp.CodeAction, uri: str) -> lsp.TextEdit:
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    return edit


async def test_misspelt_role_and_unknown_target_use_the_suggestion(
    client: LanguageClient, repo: Path
) -> None:
    uri = open_eval(client, repo, EVAL.replace("target: default", "target: defualt"))
    role, actions = await fixes(client, uri, "validate-role")
    assert actions[0].title == "Change to 'user'" and actions[0].is_preferred
    assert only_edit(actions[0], uri) == lsp.TextEdit(range=role.range, new_text="user")
    target, actions = await fixes(client, uri, "target-unknown")
    assert only_edit(actions[0], uri) == lsp.TextEdit(range=target.range, new_text="default")


async def test_duplicate_ids_are_renamed_to_a_free_id(client: LanguageClient, repo: Path) -> None:
    text = EVAL.replace("id: flat-one", "id: two-turn").replace("id: plain-two-turn", "id: two-turn-2")
    uri = open_eval(client, repo, text)
    duplicate, actions = await fixes(client, uri, "duplicate-case-id")
    assert only_edit(actions[0], uri) == lsp.TextEdit(range=duplicate.range, new_text="two-turn-3")


async def test_leading_slash_and_plain_string_items(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo, EVAL.replace("value: code.py", "value: /code.py"))
    slash, actions = await fixes(client, uri, "file-dropped-leading-slash")
    assert only_edit(actions[0], uri) == lsp.TextEdit(range=slash.range, new_text="code.py")
    plain = EVAL.replace(
        "          - type: text\n            value: Review this\n", '          - Review "this"\n'
    )
    uri = open_eval(client, repo, plain)
    item, actions = await fixes(client, uri, "message-dropped-plain-item")
    edit = only_edit(actions[0], uri)
    assert edit.range == item.range and edit.new_text == '{ type: text, value: "Review \\"this\\"" }'


async def test_missing_file_nearest_name_or_create_it(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo, EVAL.replace("value: code.py", "value: cod.py"))
    missing, actions = await fixes(client, uri, "file-not-found")
    assert actions[0].title == "Change to 'code.py'"
    assert only_edit(actions[0], uri) == lsp.TextEdit(range=missing.range, new_text="code.py")
    create = actions[1]
    assert create.title == "Create cod.py" and create.edit is not None
    (operation,) = create.edit.document_changes or []
    assert isinstance(operation, lsp.CreateFile) and operation.uri == (repo / "evals/cod.py").as_uri()


async def test_schema_fixes_add_or_correct_the_schema(client: LanguageClient, repo: Path) -> None:
    config = repo / ".agentv/config.yaml"
    uri = open_doc(client, config, "guideline_patterns: []\n")
    _, actions = await fixes(client, uri, "unknown-file-type")
    assert actions[0].title == "Add `$schema: agentv-config-v2`"
    start = lsp.Position(line=0, character=0)
    assert only_edit(actions[0], uri) == lsp.TextEdit(
        range=lsp.Range(start=start, end=start), new_text="$schema: agentv-config-v2\n"
    )
    typo = open_eval(client, repo, EVAL.replace("agentv-eval-v2", "agentv-eval-v1"))
    _, actions = await fixes(client, typo, "unknown-file-type")
    edit = only_edit(actions[0], typo)
    assert edit.new_text == "agentv-eval-v2" and edit.range.start == lsp.Position(line=0, character=9)
