"""Open documents that apply incremental edits in time independent of their size, and
remember the edits (so a `FileModel` can follow them instead of cutting the text again).

pygls' `TextDocument` splits the whole text into lines for every edit (about 70 ms for a
6 MB, 10,000-case file). `EditedDocument` keeps a sparse index of line starts instead
(one (line, offset) pair every `STRIDE` lines, shifted after each edit), finds the edit's
offsets from it, and splices the text. Lines end at LF or CRLF as in LSP; a text with a
lone CR (also a line break for LSP) goes through pygls' own code.
"""

from __future__ import annotations

import bisect
import threading
import types
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace

from agentv_lsp.checks.layout import has_lone_cr
from agentv_lsp.lsp.convert import UTF16, from_client_col

STRIDE = 256
MAX_EDITS = 256  # edits remembered (a model older than that is rebuilt from the text)


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
        self._lock = threading.Lock()

    # -- the sparse line index ---------------------------------------------------------------
    def _build_index(self, text: str) -> None:
        lines, offsets = [0], [0]
        offset, line = 0, 0
        while True:
            for _ in range(STRIDE):
                offset = text.find("\n", offset)
                if offset < 0:
                    break
                offset += 1
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
            found = text.find("\n", offset)
            if found < 0:
                return None
            offset = found + 1
            current += 1
        return offset

    def _offset(self, position: lsp.Position, encoding: str) -> int | None:
        start = self.offset_of(position.line)
        if start is None:
            return None
        text = self.source
        end = text.find("\n", start)
        line = text[start : end if end >= 0 else len(text)]
        return start + from_client_col(line.removesuffix("\r"), position.character, encoding)

    # -- edits ------------------------------------------------------------------------------
    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        text = self.source
        encoding = str(getattr(self.position_codec, "encoding", UTF16) or UTF16)
        start = end = None
        if not has_lone_cr(text):
            start = self._offset(change.range.start, encoding)
            end = self._offset(change.range.end, encoding)
        lone_cr = has_lone_cr(change.text)
        if start is None or end is None or end < start or lone_cr:
            super()._apply_incremental_change(change)
            self._reset()
            return
        removed_lines = text.count("\n", start, end)
        self._source = text[:start] + change.text + text[end:]
        self._record(
            Edit(start, end, change.text, removed_lines), change.range.start.line, change.range.end.line
        )

    def _apply_full_change(self, change: Any) -> None:
        super()._apply_full_change(change)
        self._reset()

    def _apply_none_change(self, change: Any) -> None:
        super()._apply_none_change(change)
        self._reset()

    def _reset(self) -> None:
        with self._lock:
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
