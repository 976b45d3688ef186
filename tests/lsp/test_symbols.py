"""textDocument/documentSymbol and workspace/symbol."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import EVAL, change_doc, doc_id, open_eval, pos

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_document_symbols_name_cases_messages_and_evaluators(
    client: LanguageClient, repo: Path
) -> None:
    text = EVAL.replace(
        "  - id: flat-one\n",
        "  - id: flat-one\n    evaluators:\n      - name: exact\n        type: code\n        script: python check.py\n",
    )
    uri = open_eval(client, repo, text)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=doc_id(uri))
    )
    assert symbols is not None
    cases = [s for s in symbols if isinstance(s, lsp.DocumentSymbol)]
    assert [s.name for s in cases] == ["two-turn", "flat-one", "plain-two-turn"]
    assert cases[0].range.start == pos(text, "id: two-turn") and cases[0].detail == "The reviewer answers."
    children = cases[0].children or []
    assert [c.name for c in children] == ["system: You are a reviewer.", "user: 3 segments"]
    assert [c.name for c in cases[1].children or []] == ["usr: Hi", "exact (code)"]


async def test_workspace_symbols_find_case_ids_on_disk_and_in_unsaved_documents(
    client: LanguageClient, repo: Path
) -> None:
    (repo / "evals/nested").mkdir(exist_ok=True)
    (repo / "evals/nested/more.eval.yaml").write_text(EVAL.replace("flat-one", "zebra-case"))
    (repo / "node_modules/pkg").mkdir(parents=True, exist_ok=True)
    (repo / "node_modules/pkg/x.eval.yaml").write_text(EVAL.replace("flat-one", "zebra-hidden"))
    (repo / ".hidden").mkdir(exist_ok=True)
    (repo / ".hidden/x.eval.yaml").write_text(EVAL.replace("flat-one", "zebra-dot"))
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="zebra"))
    assert found is not None
    assert [(s.name, s.location.uri) for s in found] == [  # type: ignore[union-attr]
        ("zebra-case", (repo / "evals/nested/more.eval.yaml").as_uri())
    ]
    uri = open_eval(client, repo)
    change_doc(client, uri, 2, EVAL.replace("flat-one", "zebra-unsaved"))
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="ZEBRA"))
    assert found is not None and {s.name for s in found} == {"zebra-case", "zebra-unsaved"}
    unsaved = next(s for s in found if s.name == "zebra-unsaved")
    assert unsaved.location.range.start.line == pos(EVAL, "- id: flat-one").line  # type: ignore[union-attr]
