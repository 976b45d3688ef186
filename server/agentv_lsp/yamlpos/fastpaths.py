"""Faster equivalents of two of PyYAML's pure-Python hot paths, for the exact reader (`eemeli`).

Each gives the same results, positions included, as the PyYAML method it replaces; only the
work per call shrinks (issue 34: the exact reader was 9-10x slower than libyaml on eval files):
- `forward` moves over a run of characters holding no line break or BOM in one step, where
  PyYAML looks at each character;
- `check_token`, `peek_token`, `get_token` ask whether more tokens are needed once per token
  taken: the parser asks several times per token, and the answer only changes when a token is
  taken or more are read (`need_more_tokens` depends on the scanner's position and queue).
"""

from __future__ import annotations

import re
from typing import Any

from yaml.reader import Reader
from yaml.scanner import Scanner

# what PyYAML's `forward` does not count as one more column
_NOT_A_COLUMN = re.compile("[\n\r\x85\u2028\u2029\ufeff]")


class FastReader(Reader):
    def forward(self, length: int = 1) -> None:
        pointer = self.pointer
        end = pointer + length
        if end + 1 >= len(self.buffer) or _NOT_A_COLUMN.search(self.buffer, pointer, end) is not None:
            super().forward(length)  # near the end (PyYAML reads more), or across a break
            return
        self.pointer = end
        self.index += length
        self.column += length


class FastTokens(Scanner):
    # the tokens taken when `need_more_tokens` last said no more were needed
    ready_at = -1

    def _fill(self) -> None:
        while self.need_more_tokens():
            self.fetch_more_tokens()
        self.ready_at = self.tokens_taken

    def check_token(self, *choices: Any) -> bool:
        if self.ready_at != self.tokens_taken:
            self._fill()
        tokens = self.tokens
        if tokens:
            if not choices:
                return True
            token = tokens[0]
            for choice in choices:
                if isinstance(token, choice):
                    return True
        return False

    def peek_token(self) -> Any:
        if self.ready_at != self.tokens_taken:
            self._fill()
        return self.tokens[0] if self.tokens else None

    def get_token(self) -> Any:
        if self.ready_at != self.tokens_taken:
            self._fill()
        if self.tokens:
            self.tokens_taken += 1
            return self.tokens.pop(0)
        return None
