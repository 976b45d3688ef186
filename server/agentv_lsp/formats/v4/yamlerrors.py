"""The runtime's own text for the YAML errors whose eemeli/yaml wording we can reproduce.

AgentV 4.42.4 prints eemeli/yaml's message verbatim in some warnings ("Could not read
config.yaml at …: <message>"), where libyaml's wording (what `agentv_lsp.yamlpos` reports)
would read differently. Only errors with a well-defined equivalent are translated; every
other error keeps the shared parser's description.

Translated: a flow collection (`[`/`{`) still open at the end of the text, the commonest
broken YAML ("a: [unclosed"), and one with a line not indented enough (yamlpos's own
message for it carries eemeli/yaml's wording, then an explanation).
"""

from __future__ import annotations

import re

from agentv_lsp.yamlpos import YamlDocument

_UNCLOSED = re.compile(r"did not find expected ',' or '([\]}])'")
_UNINDENTED_FLOW = re.compile(
    r"(Flow (?:sequence|map) in block collection must be sufficiently indented and end with a [\]}]): "
)
_BREAK = re.compile(r"\r\n|\r|\n")
_MAX_LINE = 80


def runtime_error_text(doc: YamlDocument) -> str | None:
    """eemeli/yaml's full message (with its code frame) for `doc.error`, or None when unknown."""
    error = doc.error
    if error is None or error.kind != "syntax":
        return None
    unindented = _UNINDENTED_FLOW.match(error.message)
    if unindented is not None:  # yamlpos's own check of eemeli/yaml's rule: the same place
        offset = _offset(doc.text, error.span.start_line, error.span.start_col)
        return None if offset is None else prettify(unindented.group(1), doc.text, offset)
    unclosed = _UNCLOSED.search(error.message)
    if unclosed is None or not _at_end(doc.text, error.span.start_line, error.span.start_col):
        return None
    flow = _open_flow(doc.text)
    if flow is None:
        return None
    opened_at, depth = flow
    kind, closer = ("sequence", "]") if unclosed.group(1) == "]" else ("map", "}")
    if depth == 1 and _is_document_start(doc.text, opened_at):
        return prettify(f"Flow {kind} must end with a {closer}", doc.text, len(doc.text))
    if not _indented_below(doc.text, opened_at):
        return None  # eemeli/yaml stops earlier, at the first line not indented enough
    message = f"Flow {kind} in block collection must be sufficiently indented and end with a {closer}"
    return prettify(message, doc.text, len(doc.text))


def _offset(text: str, line: int, column: int) -> int | None:
    """The offset of libyaml's (line, column) (lines end at LF, CR or CRLF)."""
    offset = 0
    for _ in range(line):
        found = _BREAK.search(text, offset)
        if found is None:
            return None
        offset = found.end()
    return offset + column


def _at_end(text: str, line: int, column: int) -> bool:
    """Whether libyaml's (line, column) is the end of the text (or its last character, where
    yamlpos moves an error past a text without a final line break)."""
    offset = _offset(text, line, column)
    if offset is None:
        return False
    return offset == len(text) or (offset == len(text) - 1 and not text.endswith(("\n", "\r")))


def _open_flow(text: str) -> tuple[int, int] | None:
    """(offset of the outermost flow collection still open at the end, how many are open),
    skipping quoted scalars and comments; a bracket inside a block plain scalar does not
    open anything (only one where a value starts does)."""
    depth = 0
    opened_at = -1
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == quote and quote == "'" and text[i + 1 : i + 2] == "'":
                i += 1
            elif char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                i += 1
        elif char == "#" and (i == 0 or text[i - 1] in " \t\r\n"):
            while i < len(text) and text[i] not in "\r\n":
                i += 1
            continue
        elif char in "[{" and (depth > 0 or _value_starts(text, i)):
            if depth == 0:
                opened_at = i
            depth += 1
        elif char in "]}" and depth > 0:
            depth -= 1
        elif char in "\"'" and (i == 0 or text[i - 1] in " \t\r\n,[{:-"):
            quote = char
        i += 1
    return (opened_at, depth) if depth > 0 and opened_at >= 0 else None


def _value_starts(text: str, offset: int) -> bool:
    before = text[:offset].rstrip(" \t")
    return before == "" or before.endswith(("\n", "\r", ":", "-", "?", "---", "\ufeff"))


def _line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def _is_document_start(text: str, offset: int) -> bool:
    """Whether only comments, directives, blank lines and `---` come before `offset`."""
    head = text[:offset]
    for line in _BREAK.split(head):
        stripped = line.strip(" \t\ufeff")
        if stripped.startswith("---"):
            stripped = stripped[3:].strip(" \t")
        if stripped and not stripped.startswith(("#", "%")):
            return False
    return True


def _indented_below(text: str, opened_at: int) -> bool:
    """Whether every later line with content is indented more than the line the flow opens on."""
    start = _line_start(text, opened_at)
    first_line = text[start:opened_at]
    indent = len(first_line) - len(first_line.lstrip(" "))
    following = _BREAK.split(text[opened_at:])[1:]
    return all(len(line) - len(line.lstrip(" ")) > indent or not line.strip(" \t") for line in following)


def prettify(message: str, text: str, offset: int) -> str:
    """eemeli/yaml's `prettifyError`: " at line L, column C" and the code frame under it."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    line = max(i for i, start in enumerate(line_starts) if start <= offset) + 1
    column = offset - line_starts[line - 1] + 1
    message += f" at line {line}, column {column}"
    ci = column - 1
    end = line_starts[line] if line < len(line_starts) else len(text)
    line_text = re.sub(r"[\n\r]+$", "", text[line_starts[line - 1] : end])
    if ci >= 60 and len(line_text) > _MAX_LINE:
        trim = min(ci - 39, len(line_text) - 79)
        line_text = "…" + line_text[trim:]
        ci -= trim - 1
    if len(line_text) > _MAX_LINE:
        line_text = line_text[:79] + "…"
    if line > 1 and re.fullmatch(" *", line_text[:ci]):
        previous = text[line_starts[line - 2] : line_starts[line - 1]]
        if len(previous) > _MAX_LINE:
            previous = previous[:79] + "…\n"
        line_text = previous + line_text
    if re.search("[^ ]", line_text):
        message += f":\n\n{line_text}\n{' ' * ci}^\n"
    return message
