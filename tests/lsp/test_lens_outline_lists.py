"""Code lenses and the outline as the server sends them (`lsp/listing.py`), both formats: lean
lens data (`[doc, index, kind]`) resolving for all three kinds, and to an empty lens when the
data is not ours or names a document the server no longer knows; the outline's children
dropped exactly above 5,000 symbols, its tests then listed from the text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from agentv_lsp.lsp.listing import COMPARE, MAX_OUTLINE_SYMBOLS, PREVIEW, SUMMARY
from tests.lsp.conftest import doc_id, open_doc, open_eval

pytestmark = pytest.mark.asyncio(loop_scope="module")

V4_SUITE = """\
description: Lenses
tests:
  - id: with-messages
    criteria: Says Paris
    input:
      - role: system
        content: You are a tutor.
      - role: user
        content: What is the capital of France?
    assertions:
      - type: contains
        value: Paris
  - id: plain
    criteria: Says hi
    input: Hello
"""


async def lenses_of(client: LanguageClient, uri: str) -> list[lsp.CodeLens]:
    return list(
        await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri))) or []
    )


async def resolved(client: LanguageClient, data: Any) -> lsp.Command | None:
    at = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))
    return (await client.code_lens_resolve_async(lsp.CodeLens(range=at, data=data))).command


@pytest.mark.parametrize("fmt", ["v2", "v4"])
async def test_lean_lens_data_resolve_for_all_three_kinds(
    client: LanguageClient, repo: Path, fmt: str
) -> None:
    if fmt == "v2":
        uri, first_id = open_eval(client, repo), "two-turn"
    else:
        path = repo / "evals" / "lenses.eval.yaml"
        path.write_text(V4_SUITE)
        uri, first_id = open_doc(client, path), "with-messages"
    lenses = await lenses_of(client, uri)
    data = [lens.data for lens in lenses]
    assert all(isinstance(d, list) and len(d) == 3 and all(type(x) is int for x in d) for d in data), data
    assert len({d[0] for d in data}) == 1  # one number for the document, no URI in any lens
    assert [d[1:] for d in data[:3]] == [[0, PREVIEW], [0, COMPARE], [0, SUMMARY]]
    preview, compare, summary = [(await client.code_lens_resolve_async(lens)).command for lens in lenses[:3]]
    target = [{"uri": uri, "caseId": first_id}]
    assert (
        preview is not None
        and preview.command == "agentv.previewCase"
        and list(preview.arguments or []) == target
    )
    assert compare is not None and compare.command == "agentv.comparePromptWithHead"
    assert list(compare.arguments or []) == target and compare.title == "⇄ Compare prompt with HEAD"
    assert summary is not None and summary.command == "" and summary.title.startswith("2 turns · ")


async def test_lens_data_not_ours_or_of_a_forgotten_document_resolve_to_an_empty_lens(
    client: LanguageClient, repo: Path
) -> None:
    uri = open_eval(client, repo)
    doc = (await lenses_of(client, uri))[0].data[0]
    for data in (
        [doc + 10_000, 0, PREVIEW],  # a number never given (or forgotten)
        [doc, 0, 7],
        [doc, 0],
        [doc, "0", PREVIEW],
        {"uri": uri, "index": 0, "kind": "preview"},  # the old, URI-carrying form
        None,
    ):
        command = await resolved(client, data)
        assert command is not None and (command.title, command.command) == ("", ""), data
    preview = await resolved(client, [doc, 0, PREVIEW])
    assert preview is not None and (preview.title, preview.command) == ("▶ Preview", "agentv.previewCase")
    assert list(preview.arguments or []) == [{"uri": uri, "caseId": "two-turn"}]
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=doc_id(uri)))
    closed = await resolved(client, [doc, 0, PREVIEW])  # its number forgotten with it
    assert closed is not None and (closed.title, closed.command) == ("", "")


# -- the outline's limit --------------------------------------------------------------------------
# Each test below has four children (two input messages, an expected message or output, one
# grader), so `MAX_OUTLINE_SYMBOLS // 5` tests make exactly the limit; one more grader passes it.


def v4_suite(tests: int, extra_grader: bool = False) -> str:
    items = []
    for i in range(tests):
        items.append(
            f"  - id: t-{i}\n    criteria: Says {i}\n    input:\n      - role: system\n        content: Be brief.\n"
            f"      - role: user\n        content: Say {i}\n    expected_output: '{i}'\n"
            f"    assertions:\n      - type: contains\n        value: '{i}'\n"
        )
    if extra_grader:
        items[-1] += "      - type: contains\n        value: again\n"
    return "description: Limit\ntests:\n" + "".join(items)


def v2_suite(tests: int, extra_grader: bool = False) -> str:
    items = []
    for i in range(tests):
        items.append(
            f"  - id: t-{i}\n    outcome: Says {i}\n    input_messages:\n      - role: system\n"
            f"        content: Be brief.\n      - role: user\n        content: Say {i}\n"
            f"    expected_messages:\n      - role: assistant\n        content: '{i}'\n"
            f"    evaluators:\n      - name: judge{i}\n        type: llm_judge\n"
        )
    if extra_grader:
        items[-1] += "      - name: again\n        type: llm_judge\n"
    return "$schema: agentv-eval-v2\ndescription: Limit\nevalcases:\n" + "".join(items)


def count(symbols: list[Any]) -> int:
    return sum(1 + count(s.children or []) for s in symbols)


@pytest.mark.parametrize("fmt", ["v2", "v4"])
async def test_the_outline_drops_children_exactly_above_the_limit(
    client: LanguageClient, repo: Path, fmt: str
) -> None:
    tests = MAX_OUTLINE_SYMBOLS // 5
    suite = v2_suite if fmt == "v2" else v4_suite
    outlines = []
    for extra in (False, True):
        path = repo / "evals" / f"limit-{fmt}-{extra}.eval.yaml"
        text = suite(tests, extra)
        path.write_text(text)
        uri = open_doc(client, path, text)
        symbols = await client.text_document_document_symbol_async(
            lsp.DocumentSymbolParams(text_document=doc_id(uri))
        )
        outlines.append((text, [s for s in symbols or [] if isinstance(s, lsp.DocumentSymbol)]))
    (_, at_limit), (above_text, above) = outlines
    assert count(at_limit) == MAX_OUTLINE_SYMBOLS and all(len(s.children or []) == 4 for s in at_limit)
    assert [s.name for s in above] == [f"t-{i}" for i in range(tests)]
    assert not any(s.children for s in above)
    lines = above_text.split("\n")
    items = [n for n, line in enumerate(lines) if line.startswith("  - id: ")]
    for symbol, line in zip(above, items, strict=True):  # from the text: `-` to the next item
        assert symbol.range.start == lsp.Position(line=line, character=2)
        assert symbol.selection_range.start == lsp.Position(line=line, character=8)
        assert symbol.selection_range.end == lsp.Position(line=line, character=8 + len(symbol.name))
    assert [s.range.end.line for s in above[:-1]] == items[1:]
