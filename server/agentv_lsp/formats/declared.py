"""What a text declares by its own top-level keys, read without loading it: AgentV v2's
`$schema: agentv-...` and `evalcases:`. Shared by the runtime choice (`formats.runtime`, `auto`
on a project that names no AgentV), v2's folder walk and 4.x's, which takes a file declaring v2
to say that 4.x no longer reads it; neither format imports the other, so the markers live here."""

from __future__ import annotations

import re

# The v2 markers, read from the text (a file that does not parse still declares its format):
# 4.x files have no `$schema`, and 4.42.4 itself knows only the v2 ids (agentv-eval-v2, ...);
# a top-level `guideline_patterns` is a v2 config (4.42.4 calls it an unexpected field).
_V2_LINE = re.compile(
    r"""^(?:[ \t]*(?:["']?evalcases["']?[ \t]*:|["']?\$schema["']?[ \t]*:[ \t]*["']?agentv-)"""
    r"""|["']?guideline_patterns["']?[ \t]*:)""",
    re.M,
)


def text_declares_v2(text: str) -> bool:
    # the substring tests are C-speed; the line regex then runs only on files that may match
    if "evalcases" not in text and "agentv-" not in text and "guideline_patterns" not in text:
        return False
    return _V2_LINE.search(text) is not None


def declares_v2(text: str) -> bool:
    """The text is an AgentV v2 file by a top-level `$schema: agentv-...` or `evalcases:` key,
    not by a substring (`image: x/agentv-runner`, a comment, a nested key or a block scalar
    do not count): the folder walks take such files whatever their name. The line test of
    `text_declares_v2` first, then the parsed top level confirms it; a text that does not
    parse is taken on the line alone (it still declares its format)."""
    if "evalcases" not in text and "agentv-" not in text:
        return False
    if _V2_KEY_LINE.search(text) is None:
        return False
    from agentv_lsp.yamlpos import parse_yaml

    doc = parse_yaml(text)
    if doc.error is not None:
        return True
    value = doc.value
    if not isinstance(value, dict):
        return False
    schema = value.get("$schema")
    return "evalcases" in value or (isinstance(schema, str) and schema.startswith("agentv-"))


# An `evalcases:` key at the start of a line (quoted or not): where v2's cut finds its list
# of cases, and what makes the shared incremental cut (`lsp/follow.py`) cut a region again whole.
EVALCASES_KEY = re.compile(r"[\"']?evalcases[\"']?[ \t]*:")
EVALCASES_ANY = re.compile(r"\n" + EVALCASES_KEY.pattern)

_V2_KEY_LINE = re.compile(
    r"""^[ \t]*(?:["']?evalcases["']?[ \t]*:|["']?\$schema["']?[ \t]*:[ \t]*["']?agentv-)""", re.M
)
