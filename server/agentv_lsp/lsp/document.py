"""Open documents that apply incremental edits in time independent of their size, and
remember the edits (so a `FileModel` can follow them instead of cutting the text again).

pygls' `TextDocument` splits the whole text into lines for every edit (about 70 ms for a
6 MB, 10,000-case file). `EditedDocument` keeps a sparse index of line starts instead
(one (line, offset) pair every `STRIDE` lines, shifted after each edit), finds the edit's
offsets from it, and splices the text.

Lines end where LSP and VS Code end them: at LF, CRLF and a lone CR, nowhere else
(`lsp_lines`). pygls' `TextDocument` splits with `str.splitlines`, which also breaks at FF,
VT, NEL, U+2028 and the other Unicode separators, so a text holding one of those would take
edits at the wrong place; every position here, and `lines` for pygls' own helpers, follows
the LSP rule. The edit log counts LF only, so an edit to a text with a lone CR is applied
the same way but resets the log (a model is then built from the whole text).
"""

from __future__ import annotations

import bisect
import re
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace

from agentv_lsp.checks.layout import has_lone_cr
from agentv_lsp.lsp.convert import UTF16, from_client_col

STRIDE = 256
MAX_EDITS = 256  # edits remembered (a model older than that is rebuilt from the text)

_BREAK = re.compile(r"\r\n?|\n")  # LSP line ends; str.splitlines knows eight more
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z")


def lsp_lines(text: str) -> list[str]:
    """The lines of `text` as LSP numbers them, without their ends (n breaks: n + 1 lines)."""
    return _BREAK.split(text) if "\r" in text else text.split("\n")


def lsp_lines_with_ends(text: str) -> list[str]:
    """The lines of `text` as LSP numbers them, with their ends (as `str.splitlines(True)`)."""
    return _LINE.findall(text)


def _makes_lone_cr(text: str, start: int, stop: int) -> bool:
    """Whether text[start:stop], just inserted, made a CR without its LF (one inserted, or one
    before `start` now followed by something else)."""
    at = text.find("\r", max(start - 1, 0), stop)
    while at >= 0:
        if not text.startswith("\n", at + 1):
            return True
        at = text.find("\r", at + 1, stop)
    return False


@dataclass(frozen=True, slots=True)
class Edit:
    """One applied edit: characters [start, end) of the previous text became `text`."""

    start: int
    end: int
    text: str
    removed_lines: int  # line breaks in the replaced characters


class EditedDocument(TextDocument):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.edits: list[Edit] = []
        self.edit_count = 0  # edits applied since the document was opened (a full change resets)
        self.reset_count = 0  # full replacements so far
        self._index_lines: list[int] | None = None
        self._index_offsets: list[int] = []
        self._lone_cr: bool | None = None  # whether the text has a CR without LF (None: not known)
        self._lock = threading.Lock()

    @property
    def lines(self) -> Sequence[str]:
        return tuple(lsp_lines_with_ends(self.source))

    def _has_lone_cr(self) -> bool:
        if self._lone_cr is None:
            self._lone_cr = has_lone_cr(self.source)
        return self._lone_cr

    def _next_line(self, text: str, offset: int) -> int:
        """The start of the line after the one holding `offset` (-1 on the last line)."""
        if self._has_lone_cr():
            found = _BREAK.search(text, offset)
            return found.end() if found else -1
        at = text.find("\n", offset)
        return at + 1 if at >= 0 else -1

    # -- the sparse line index ---------------------------------------------------------------
    def _build_index(self, text: str) -> None:
        lines, offsets = [0], [0]
        offset, line = 0, 0
        while True:
            for _ in range(STRIDE):
                offset = self._next_line(text, offset)
                if offset < 0:
                    break
                line += 1
            if offset < 0:
                break
            lines.append(line)
            offsets.append(offset)
        self._index_lines, self._index_offsets = lines, offsets

    def offset_of(self, line: int) -> int | None:
        """The offset of the first character of `line` (None past the end)."""
        text = self.source
        if self._index_lines is None:
            self._build_index(text)
        assert self._index_lines is not None
        at = bisect.bisect_right(self._index_lines, line) - 1
        current, offset = self._index_lines[at], self._index_offsets[at]
        while current < line:
            offset = self._next_line(text, offset)
            if offset < 0:
                return None
            current += 1
        return offset

    def _offset(self, position: lsp.Position, encoding: str) -> int:
        """The offset of a client position, clamped as VS Code clamps it: a line past the end
        is the end of the text, a character past the line's end is its end (before its break)."""
        text = self.source
        start = self.offset_of(max(position.line, 0))
        if start is None:
            return len(text)
        found = _BREAK.search(text, start)
        line = text[start : found.start() if found else len(text)]
        return start + from_client_col(line, position.character, encoding)

    # -- edits ------------------------------------------------------------------------------
    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        text = self.source
        encoding = str(getattr(self.position_codec, "encoding", UTF16) or UTF16)
        start = self._offset(change.range.start, encoding)
        end = self._offset(change.range.end, encoding)
        first_line, last_line = change.range.start.line, change.range.end.line
        if end < start:  # a reversed range, taken as VS Code's document takes it
            start, end, first_line, last_line = end, start, last_line, first_line
        had_lone_cr = self._has_lone_cr()
        removed_lines = text.count("\n", start, end)
        # (one join: two concatenations copy the part before the edit twice, 4 MB of a 16 MB
        # text when one character in it is outside the BMP)
        self._source = new = "".join((text[:start], change.text, text[end:]))
        if had_lone_cr or _makes_lone_cr(new, start, start + len(change.text)):
            # lines counted by LF no longer match LSP's: no log, the index built again
            self._reset()
            return
        self._record(Edit(start, end, change.text, removed_lines), first_line, last_line)

    def _apply_full_change(self, change: Any) -> None:
        super()._apply_full_change(change)
        self._reset()

    def _apply_none_change(self, change: Any) -> None:
        super()._apply_none_change(change)
        self._reset()

    def _reset(self) -> None:
        with self._lock:
            self._lone_cr = None
            self.edits = []
            self.reset_count += 1
            self.edit_count = 0
            self._index_lines = None

    def _record(self, edit: Edit, first_line: int, last_line: int) -> None:
        with self._lock:
            self.edits.append(edit)
            if len(self.edits) > MAX_EDITS:
                del self.edits[: len(self.edits) - MAX_EDITS]
            self.edit_count += 1
            if self._index_lines is not None:
                added = edit.text.count("\n") - edit.removed_lines
                shift = len(edit.text) - (edit.end - edit.start)
                lines, offsets = [], []
                for line, offset in zip(self._index_lines, self._index_offsets, strict=True):
                    if line <= first_line:
                        lines.append(line)
                        offsets.append(offset)
                    elif line > last_line:
                        lines.append(line + added)
                        offsets.append(offset + shift)
                self._index_lines, self._index_offsets = lines, offsets

    def edits_since(self, reset_count: int, edit_count: int) -> list[Edit] | None:
        """The edits after the state (reset_count, edit_count), or None when not remembered."""
        with self._lock:
            if reset_count != self.reset_count or edit_count > self.edit_count:
                return None
            missing = self.edit_count - edit_count
            if missing > len(self.edits):
                return None
            return list(self.edits[len(self.edits) - missing :]) if missing else []

    @property
    def state(self) -> tuple[int, int]:
        return self.reset_count, self.edit_count


def install(workspace: Workspace) -> None:
    """Make `workspace` create EditedDocuments for the documents opened from now on."""

    def create(
        self: Workspace,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return EditedDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )

    workspace._create_text_document = types.MethodType(create, workspace)  # type: ignore[method-assign]
