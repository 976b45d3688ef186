"""What the two preview layouts (`formats.v2.render`, `formats.v4.render`) share: styling,
content shown exactly or escaped, one-line values, indentation, token counts."""

from __future__ import annotations

from typing import Any, TextIO

from agentv_lsp.report import MESSAGE_LIMIT, is_hidden, one_line, visible


class Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


class Content:
    """How `preview` shows file content (prompts, answers, criteria). Piped, exactly as the model
    receives it: exactness is the point of a preview. On a terminal, control and invisible
    characters (an escape sequence, a bidi override, zero-width or tag characters) are shown
    escaped, and in reverse video with colour, so that what is shown is what is there; `note`
    then says so. Newlines and tabs lay out the text."""

    def __init__(self, escape: bool, color: bool) -> None:
        self.escape = escape
        self.mark = (lambda shown: f"\x1b[7m{shown}\x1b[27m") if color else None
        self.found: dict[str, None] = {}

    def __call__(self, text: str) -> str:
        if not self.escape:
            return text
        shown = visible(text, keep="\n\t", mark=self.mark)
        if shown != text:
            self.found.update(dict.fromkeys(c for c in text if c not in "\n\t" and is_hidden(c)))
        return shown

    def note(self) -> str | None:
        if not self.found:
            return None
        names = ", ".join(one_line(c) for c in list(self.found)[:8]) + (", …" if len(self.found) > 8 else "")
        return (
            f"note: control or invisible characters above are shown escaped ({names}); "
            "`--json` or a pipe gives the exact text"
        )


def line(text: object) -> str:
    """A value from the file shown within a line of its own (ids, roles, paths, messages)."""
    return one_line(str(text), MESSAGE_LIMIT)


def token_line(case: dict[str, Any]) -> str | None:
    from agentv_lsp.engine.tokens import describe

    return describe(case["tokens"]) if case.get("tokens") else None


def write_note(content: Content, s: Style, out: TextIO) -> None:
    note = content.note()
    if note:
        out.write("\n" + s(note, "33") + "\n")


def indent(text: str, width: int = 2) -> str:
    pad = " " * width
    return "\n".join(pad + row if row else row for row in text.split("\n"))


def add_tokens(result: dict[str, Any]) -> None:
    """Each case's token counts (`agentv_lsp.engine.tokens`: o200k_base, offline)."""
    from agentv_lsp.engine.tokens import case_tokens

    for case in result["cases"]:
        case["tokens"] = case_tokens(case)
