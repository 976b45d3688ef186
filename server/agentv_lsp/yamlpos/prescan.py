"""Which texts libyaml may read differently from eemeli/yaml without refusing them.

libyaml refuses most of what it cannot read as eemeli/yaml does, and `document` then asks the
exact reader (`eemeli`). A few constructs it reads *silently differently*; a text holding one of
them goes to the exact reader straight away. Each test is a substring check at C speed, and
only when that finds something, one regular expression; false alarms cost time, never
exactness (the exact reader reads every text right).
"""

from __future__ import annotations

import re

# After a block scalar's indicator: what `_TRIGGERS` looks for (one pattern, one scan of the
# text per indicator). `[|>]` stands for the indicator; the lookbehinds find a header opening
# its line at a column under 2 or after two spaces (`key: |` has one: no false alarm there).
_BLOCK_SCALAR_HEADER = (
    r"(?:(?:[1-9][-+]?|[-+][1-9])[ \t]*(?:#.*)?\r?$"
    r"|[-+]?[ \t]*(?:#.*)?\r?\n(?:[ \t]*\r?\n)*[ \t]+\r?\n"
    r"|(?:(?<=\n[|>])|(?<=\n [|>])|(?<=  [|>]))[-+1-9]{0,2}[ \t]*(?:#.*)?\r?$)"
)

# Every pattern starts with its literal character, so that the regular expression engine
# jumps from one occurrence to the next at C speed; what must come before it is a lookbehind.
# "At a token start": the beginning of a line, white space or a flow indicator before it.
_TRIGGERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # `%YAML 1.1` (other scalar rules), unknown or repeated directives
    ("%", re.compile(r"%(?<=\n%)")),
    # a tag at a token start: `!` alone makes a string of `! 12`, `!!binary`/`!!set`/`!!omap`
    # make other values, and libyaml's tree keeps tags otherwise than eemeli/yaml reads them
    ("!", re.compile(r"!(?<![^ \t\r\n\[{,]!)")),
    # `?x` at a token start is a plain scalar for eemeli/yaml; libyaml reads `{ ?x: y }` as the key `x`
    ("?", re.compile(r"\?(?<![^ \t\r\n\[{,]\?)[^ \t\r\n]")),
    # a comment glued to a quote, a bracket (opening or closing), a comma or a block scalar
    # header (eemeli/yaml refuses)
    ("#", re.compile(r"#(?:(?<=[\"'\[\]{},|>]#)|(?<=[|>][-+0-9]#)|(?<=[|>][-+0-9]{2}#))")),
    # `-` alone as an item of a flow collection (eemeli/yaml: a block sequence there, refused)
    ("-", re.compile(r"-(?=[,\]}])(?<=[\[{, \t\n]-)")),
    # an anchor or alias name with a `:` in it (`&a:b`, `*a:`), which libyaml cuts at the `:`;
    # or an anchor, then white space and comments over a line break, then `,` (in a flow
    # collection eemeli/yaml then makes no empty node: `[&x\n,]` fails)
    (
        "&",
        re.compile(
            r"&(?<![^ \t\r\n\[{,]&)[^ \t\r\n,\[\]{}]*(?::|[ \t]*(?:#.*)?\r?\n(?:[ \t]*(?:#.*)?\r?\n)*[ \t]*,)"
        ),
    ),
    # a block scalar with an indentation indicator (`|2`, `>-1`), or whose first lines hold
    # only white space: eemeli/yaml keeps or refuses those lines by rules of its own; or whose
    # header opens its line (maybe at its collection's column: `a:\n|\n x`, which eemeli/yaml
    # refuses; `_HEADER_OPENS_LINE` says where)
    ("|", re.compile(r"\|" + _BLOCK_SCALAR_HEADER.replace("[|>]", "\\|"), re.MULTILINE)),
    (">", re.compile(">" + _BLOCK_SCALAR_HEADER.replace("[|>]", ">"), re.MULTILINE)),
    # a BOM opening a later line (formats/v4 leaves only those before the document's content):
    # libyaml keeps it as text before `...` and other markers, the exact reader skips it
    ("\ufeff", re.compile(r"\ufeff(?<=\n\ufeff)")),
    # a document end marker `...` (a second one starts another document for eemeli/yaml)
    ("\n...", re.compile(r"\.\.\.(?<=\n\.\.\.)(?=[ \t\r\n]|$)")),
    # an escaped line break (`\` at a line end in a double-quoted string) before a blank line
    ("\\", re.compile(r"\\\r?\n[ \t]*\r?\n")),
)


# An anchor at a token start; only where one is can an alias `*name:` (a name ending in `:`
# for eemeli/yaml, the alias `name` and a `:` for libyaml) mean anything.
_ANCHOR = re.compile(r"&(?<![^ \t\r\n\[{,]&)[^ \t\r\n,\[\]{}]")
_ALIAS_WITH_COLON = re.compile(r"\*(?<![^ \t\r\n\[{,]\*)[^ \t\r\n,\[\]{}]*:")


def needs_eemeli_rules(text: str) -> bool:
    """Whether `text` holds a construct libyaml may read differently from eemeli/yaml."""
    if text.startswith(("%", "...", "\ufeff%", "\ufeff...")):  # (a BOM opening the text is no text)
        return True
    for trigger, pattern in _TRIGGERS:
        if trigger in text and pattern.search(text) is not None:
            return True
    return (
        (
            "&" in text
            and "*" in text
            and _ANCHOR.search(text) is not None
            and _ALIAS_WITH_COLON.search(text) is not None
        )
        or _comment_at_line_start_in_flow(text)
        or _value_line_after_bare_value(text)
    )


# A line that is a bare `:` (properties and a comment at most) and, past blank and comment
# lines, a `: ` line at its column: after an explicit key (`? k`), eemeli/yaml makes the
# mapping's further entries a mapping that is k's value; libyaml keeps them in the mapping.
_BARE_VALUE_THEN_VALUE = re.compile(
    r"^( *):[ \t]*(?:[&!][^ \t\r\n]*[ \t]*)*(?:#.*)?\r?\n(?:[ \t]*(?:#.*)?\r?\n)*\1:(?:[ \t]|\r?$)",
    re.MULTILINE,
)


def _value_line_after_bare_value(text: str) -> bool:
    return "?" in text and "\n" in text and _BARE_VALUE_THEN_VALUE.search(text) is not None


def _comment_at_line_start_in_flow(text: str) -> bool:
    """A comment at column 0 where more brackets are open than closed: maybe inside a flow
    collection, where eemeli/yaml refuses it after a pair's value (`{a: b\n#\n}`). Brackets
    in scalars and comments count too: a false alarm costs time only."""
    if "\n#" not in text or ("[" not in text and "{" not in text):
        return False
    depth = counted_to = 0
    for match in _LINE_START_COMMENT.finditer(text):
        at = match.start()
        depth += text.count("[", counted_to, at) + text.count("{", counted_to, at)
        depth -= text.count("]", counted_to, at) + text.count("}", counted_to, at)
        if depth > 0:
            return True
        counted_to = at
    return False


_LINE_START_COMMENT = re.compile(r"#(?<=\n#)")


# A tab in a line's indentation: eemeli/yaml lets it indent no block collection, and a blank
# line opening with one ends an indented plain scalar; libyaml reads both. Inside a block
# scalar (pasted Go code, Makefiles) both read it alike, so `document` asks the exact reader
# only when such a line is outside every block scalar libyaml found.
_TAB_INDENTED = re.compile(r"^ *\t", re.MULTILINE)


def tab_indented_lines(text: str) -> list[int]:
    """The (0-based, LF-counted) lines whose indentation holds a tab."""
    if "\t" not in text:
        return []
    lines: list[int] = []
    line = counted_to = 0
    for match in _TAB_INDENTED.finditer(text):
        line += text.count("\n", counted_to, match.start())
        counted_to = match.start()
        lines.append(line)
    return lines
