"""A bounded, seeded fuzz run: random and truncated YAML through didOpen/didChange (whole and
incremental), with hover, preview, completion, code lens, symbols and links at random
positions. The server keeps answering, logs no error, and is right again afterwards."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import EVAL, change_doc, diagnostics_until, doc_id, edit_doc, open_eval

pytestmark = pytest.mark.asyncio(loop_scope="module")
NOISE = [
    "[",
    "{",
    ": ",
    "- ",
    "\n",
    "&a ",
    "*a",
    "'",
    '"',
    "\t",
    "é😀",
    "---\n",
    "? ",
    "|\n",
    "  - id: x\n",
    "#",
]


async def poke(client: LanguageClient, uri: str, text: str, rng: random.Random) -> None:
    lines = text.split("\n")
    line = rng.randrange(len(lines) + 1)
    position = lsp.Position(
        line=line, character=rng.randint(0, len(lines[line]) + 2 if line < len(lines) else 3)
    )
    await client.text_document_hover_async(lsp.HoverParams(text_document=doc_id(uri), position=position))
    await client.text_document_completion_async(
        lsp.CompletionParams(text_document=doc_id(uri), position=position)
    )
    await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=doc_id(uri), position=position)
    )
    await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(
            command="agentv.previewCase",
            arguments=[{"uri": uri, "position": {"line": position.line, "character": position.character}}],
        )
    )
    if rng.random() < 0.3:
        for lens in (
            await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri))) or []
        ):
            await client.code_lens_resolve_async(lens)
        await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=doc_id(uri)))
        await client.text_document_document_link_async(lsp.DocumentLinkParams(text_document=doc_id(uri)))


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_and_truncated_yaml_never_stops_the_server(
    client: LanguageClient, repo: Path, seed: int
) -> None:
    rng = random.Random(seed)
    base = (
        EVAL
        if seed != 3
        else EVAL.split("evalcases:\n")[0] + "evalcases:\n" + EVAL.split("evalcases:\n")[1] * 120
    )
    uri = open_eval(client, repo, base)
    text = base
    for version in range(2, 32):
        if rng.random() < 0.5:
            cut = rng.randint(0, len(base))
            text = base[:cut] + "".join(rng.choice(NOISE) for _ in range(rng.randint(0, 6)))
            change_doc(client, uri, version, text)
        else:  # an incremental edit somewhere in the current text
            lines = text.split("\n")
            line = rng.randrange(len(lines))
            start = rng.randint(0, len(lines[line]))
            inserted = "".join(rng.choice(NOISE) for _ in range(rng.randint(1, 3)))
            edit_doc(
                client,
                uri,
                version,
                lsp.Position(line=line, character=start),
                lsp.Position(line=line, character=start),
                inserted,
            )
            lines[line] = lines[line][:start] + inserted + lines[line][start:]
            text = "\n".join(lines)
        await poke(client, uri, text, rng)
    change_doc(client, uri, 100, base)
    await diagnostics_until(client, uri, lambda d: any(x.code == "validate-role" for x in d))
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(
            command="agentv.previewCase", arguments=[{"uri": uri, "caseId": "plain-two-turn"}]
        )
    )
    assert result["lm"]["question"].startswith("@[System]:\nYou are a reviewer.")
    problems = [
        m.message for m in client.log_messages if m.type == lsp.MessageType.Error or "Traceback" in m.message
    ]
    assert problems == []
