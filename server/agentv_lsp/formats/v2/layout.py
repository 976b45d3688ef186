"""The cases of a v2 eval text (a block-style top-level `evalcases:` sequence), found from the text
alone: the v2 cut over the shared `checks.layout` (what a head, chunk and tail are, and the
patterns both formats' cuts use).
"""

from __future__ import annotations

import re

from agentv_lsp.checks.layout import Layout, cut_list, has_lone_cr
from agentv_lsp.formats.declared import EVALCASES_ANY as EVALCASES_ANY
from agentv_lsp.formats.declared import EVALCASES_KEY as _EVALCASES_KEY

EVALCASES = re.compile(r"\nevalcases[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n")


def cut(text: str) -> Layout | None:
    """The cases of a block-style top-level `evalcases:` sequence, or None when unsure."""
    if has_lone_cr(text):
        return None
    return cut_list(text, _EVALCASES_KEY, EVALCASES)
