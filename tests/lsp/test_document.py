"""EditedDocument (no server): incremental edits give exactly the text pygls' own document
gives, in UTF-16, UTF-32 and UTF-8 positions, with CRLF and astral characters; the edit log
lets a model follow the document. With lone CRs, FF, NEL, U+2028 and the other characters
`str.splitlines` breaks at, edits land where LSP's line rule puts them (pygls' does not)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import PositionCodec

from agentv_lsp.lsp.convert import to_client_col
from agentv_lsp.lsp.document import EditedDocument, install, lsp_lines, lsp_lines_with_ends

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


# -- line ends: LSP's (LF, CRLF, lone CR), never the other breaks str.splitlines knows ---------

# the characters str.splitlines breaks at besides LF and CR, which LSP and VS Code do not
NOT_LSP_BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PIECES = ["a", "bc", "é", "😀", "\n", "\r", "\r\n", *NOT_LSP_BREAKS]


def apply_with_lsp_rule(text: str, start: lsp.Position, end: lsp.Position, new: str) -> str:
    """An incremental change applied as vscode-languageserver-textdocument applies it: lines
    end at LF, CRLF or CR; a line past the end is the end of the text; a character past the
    end of its line is the line's end; UTF-16 units; a reversed range is taken in order."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(p: lsp.Position) -> int:
        if p.line >= len(starts):
            return len(text)
        begin = starts[p.line]
        stop = starts[p.line + 1] if p.line + 1 < len(starts) else len(text)
        line = text[begin:stop].rstrip("\r\n")
        units = 0
        for index, ch in enumerate(line):
            if units >= p.character:
                return begin + index
            units += 2 if ord(ch) > 0xFFFF else 1
        return begin + len(line)

    a, b = sorted((offset(start), offset(end)))
    return text[:a] + new + text[b:]


def test_the_issue_repro_inserts_at_the_lsp_line() -> None:
    doc = EditedDocument("file:///t.yaml", "a\rb\x0cc\nd", version=1)
    at = lsp.Position(line=2, character=0)
    doc.apply_change(lsp.TextDocumentContentChangePartial(range=lsp.Range(start=at, end=at), text="X"))
    assert doc.source == "a\rb\x0cc\nXd"
    assert list(doc.lines) == ["a\r", "b\x0cc\n", "Xd"]


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\r", "\r\n\r", "a\x0cb\u2028c\x85\r\nd\re\n", "\n\n"])
def test_lines_follow_the_lsp_rule(text: str) -> None:
    assert "".join(lsp_lines_with_ends(text)) == text
    assert len(lsp_lines(text)) == len(re.findall(r"\r\n|\r|\n", text)) + 1
    ends_with_break = not text or text.endswith(("\n", "\r"))
    stripped = [line.rstrip("\r\n") for line in lsp_lines_with_ends(text)]
    assert stripped + ([""] if ends_with_break else []) == lsp_lines(text)


def _texts() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@st.composite
def _edits(draw: st.DrawFn) -> list[tuple[lsp.Position, lsp.Position, str]]:
    out = []
    for _ in range(draw(st.integers(1, 12))):
        lines = draw(st.integers(0, 12)), draw(st.integers(0, 12))
        chars = draw(st.integers(0, 8)), draw(st.integers(0, 8))
        start, end = (lsp.Position(line=lines[i], character=chars[i]) for i in (0, 1))
        if draw(st.booleans()):  # mostly ranges in order, as editors send
            start, end = sorted((start, end), key=lambda p: (p.line, p.character))
        out.append((start, end, draw(_texts())))
    return out


@settings(max_examples=400, deadline=None)
@given(text=_texts(), edits=_edits())
def test_incremental_edits_follow_the_lsp_rule(
    text: str, edits: list[tuple[lsp.Position, lsp.Position, str]]
) -> None:
    """Through pygls' workspace, as the server applies didChange: after every edit the text is
    the one LSP's rule gives, whatever the text holds (FF, NEL, U+2028, lone CRs, astral)."""
    workspace = Workspace(None, lsp.TextDocumentSyncKind.Incremental)
    install(workspace)
    uri = "file:///t.yaml"
    workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text))
    expected = text
    for version, (start, end, new) in enumerate(edits, 2):
        workspace.update_text_document(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            lsp.TextDocumentContentChangePartial(range=lsp.Range(start=start, end=end), text=new),
        )
        expected = apply_with_lsp_rule(expected, start, end, new)
        document = workspace.get_text_document(uri)
        assert document.source == expected
        assert "".join(document.lines) == expected
