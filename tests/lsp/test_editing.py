"""textDocument/completion and textDocument/codeAction."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_of, open_doc


async def test_completion_offers_roles_keys_and_targets(client: LanguageClient, repo: Path) -> None:
    path = repo / "evals/review.eval.yaml"
    text = path.read_text().replace("      - role: usr\n", "      - role: \n")
    uri = open_doc(client, path, text)
    line = text.split("\n").index("      - role: ")
    roles = await client.text_document_completion_async(
        lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=line, character=14)
        )
    )
    assert {i.label for i in roles.items} == {"system", "user", "assistant", "tool"}  # type: ignore[union-attr]
    targets = await client.text_document_completion_async(
        lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=2, character=10)
        )
    )
    assert [i.label for i in targets.items] == ["default"]  # type: ignore[union-attr]


async def test_quick_fix_corrects_a_misspelt_role(client: LanguageClient, repo: Path) -> None:
    uri = open_doc(client, repo / "evals/review.eval.yaml")
    role = next(d for d in await diagnostics_of(client, uri) if d.code == "validate-role")
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=role.range,
            context=lsp.CodeActionContext(diagnostics=[role]),
        )
    )
    edit = actions[0].edit.changes[uri][0]  # type: ignore[union-attr,index]
    assert actions[0].title == "Change to 'user'" and edit.new_text == "user" and edit.range == role.range


async def test_quick_fix_adds_a_missing_schema(client: LanguageClient, repo: Path) -> None:
    path = repo / "evals/noschema.yaml"
    path.write_text("evalcases: []\n")
    uri = open_doc(client, path)
    missing = [d for d in await diagnostics_of(client, uri)]
    assert missing == []  # no $schema: not an AgentV file in the editor, so nothing to say
