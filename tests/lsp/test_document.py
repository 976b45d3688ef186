"""EditedDocument (no server): incremental edits give exactly the text pygls' own document
gives, in UTF-16, UTF-32 and UTF-8 positions, with CRLF and astral characters; the edit log
lets a model follow the document."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types as lsp
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from agentv_lsp.lsp.convert import to_client_col
from agentv_lsp.lsp.document import EditedDocument

WORDS = ["a", "é", "😀", "\n", "\r\n", "  - id: x\n", "", "ab😀c"]


def random_text(rng: random.Random, lines: int, newline: str) -> str:
    return newline.join(
        "".join(rng.choice([*WORDS[:3], "xyz", " "]) for _ in range(rng.randint(0, 12))) for _ in range(lines)
    )


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_incremental_edits_match_pygls(encoding: str, newline: str) -> None:
    rng = random.Random(f"{encoding}{newline}")
    text = random_text(rng, 700, newline)  # more lines than one index stride
    codec = PositionCodec(encoding=encoding)
    ours = EditedDocument("file:///t.yaml", text, version=1, position_codec=codec)
    theirs = TextDocument("file:///t.yaml", text, version=1, position_codec=codec)
    for _ in range(300):
        lines = theirs.source.split("\n")
        start_line = rng.randrange(len(lines))
        end_line = min(len(lines) - 1, start_line + rng.choice([0, 0, 1, 3]))
        # valid positions (inside their lines, not inside a character), as clients send
        start_text, end_text = lines[start_line].removesuffix("\r"), lines[end_line].removesuffix("\r")
        start_col = rng.randint(0, min(4, len(start_text)))
        end_col = rng.randint(0, min(4, len(end_text)))
        if end_line == start_line and end_col < start_col:
            start_col, end_col = end_col, start_col
        start = lsp.Position(line=start_line, character=to_client_col(start_text, start_col, encoding))
        end = lsp.Position(line=end_line, character=to_client_col(end_text, end_col, encoding))
        inserted = "".join(rng.choice(WORDS) for _ in range(rng.randint(0, 3))).replace("\r\n", newline)
        if newline == "\n":
            inserted = inserted.replace("\r", "")
        change = lsp.TextDocumentContentChangePartial(range=lsp.Range(start=start, end=end), text=inserted)
        ours.apply_change(change)
        theirs.apply_change(change)
        assert ours.source == theirs.source
    assert ours.edit_count > 250 and len(ours.edits_since(0, ours.edit_count - 5) or []) == 5


def test_a_full_change_resets_the_log() -> None:
    doc = EditedDocument("file:///t.yaml", "a\nb\n", version=1)
    start = lsp.Position(line=1, character=0)
    doc.apply_change(lsp.TextDocumentContentChangePartial(range=lsp.Range(start=start, end=start), text="x"))
    assert doc.source == "a\nxb\n" and doc.state == (0, 1)
    assert [e.text for e in doc.edits_since(0, 0) or []] == ["x"]
    doc.apply_change(lsp.TextDocumentContentChangeWholeDocument(text="new\n"))
    assert doc.state == (1, 0) and doc.edits_since(0, 1) is None
