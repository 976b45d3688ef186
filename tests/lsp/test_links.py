"""textDocument/documentLink and textDocument/definition."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import EVAL, doc_id, open_eval, pos

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_links_reach_referenced_files_prompts_and_the_target(
    client: LanguageClient, repo: Path
) -> None:
    uri = open_eval(client, repo)
    links = await client.text_document_document_link_async(lsp.DocumentLinkParams(text_document=doc_id(uri)))
    assert links is not None
    by_target = {link.target: link for link in links}
    code = by_target[(repo / "evals/code.py").as_uri()]
    assert code.range.start == pos(EVAL, "code.py") and code.range.end == pos(EVAL, "code.py", 7)
    assert (repo / "evals/rules.instructions.md").as_uri() in by_target
    assert (repo / "evals/judges/rubric.md").as_uri() in by_target
    target = next(link for link in links if (link.target or "").endswith("#L3"))
    assert target.target == (repo / ".agentv/targets.yaml").as_uri() + "#L3"
    assert target.range.start == pos(EVAL, "default")


async def test_definition_of_a_file_reference_and_of_the_target(client: LanguageClient, repo: Path) -> None:
    uri = open_eval(client, repo)

    async def definition(position: lsp.Position) -> list[lsp.Location]:
        found = await client.text_document_definition_async(
            lsp.DefinitionParams(text_document=doc_id(uri), position=position)
        )
        assert isinstance(found, list)
        return [f for f in found if isinstance(f, lsp.Location)]

    code = await definition(pos(EVAL, "code.py", 2))
    assert [c.uri for c in code] == [(repo / "evals/code.py").as_uri()]
    prompt = await definition(pos(EVAL, "judges/rubric.md", 1))
    assert [p.uri for p in prompt] == [(repo / "evals/judges/rubric.md").as_uri()]
    target = await definition(pos(EVAL, "default", 2))
    assert target[0].uri == (repo / ".agentv/targets.yaml").as_uri()
    assert target[0].range.start == lsp.Position(line=2, character=10)
    nothing = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=doc_id(uri), position=pos(EVAL, "outcome: Answer", 11))
    )
    assert not nothing
