"""Where the tests of a block-style 4.x eval text are, found from the text alone (the 4.x
sibling of `formats.v2.layout.cut`, which finds v2 `evalcases`).

The text is a *head* (everything before the first item of the top-level `tests:` list), one
*chunk* per item and a *tail* (top-level keys after the list). `head + chunk + tail` is an
eval file with that one test. The cut is conservative: flow style, a `tests:` value on its
own line, several `tests` keys, the deprecated `eval_cases`/`evalcases`, document markers,
lone CRs, anchors, aliases or merge keys anywhere make it return None.
"""

from __future__ import annotations

import re

from agentv_lsp.checks.layout import Layout, anchors_and_aliases, cut_list, has_lone_cr
from agentv_lsp.formats.v4.keys import V4_KEYS

# any key that may hold the tests (to refuse several), and a block-style `tests:` on its own line
_TEST_LIST_KEYS = "|".join(map(re.escape, V4_KEYS.test_list_keys()))
_TESTS_KEY = re.compile(r"[\"']?(?:" + _TEST_LIST_KEYS + r")[\"']?[ \t]*:")
_TESTS_BLOCK = re.compile(r"\n" + re.escape(V4_KEYS.tests) + r"[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n")
MERGE_KEY = re.compile(r"(?:^|[\s{,])<<[ \t]*:", re.M)


def cut_tests(text: str) -> Layout | None:
    """The tests of a block-style top-level `tests:` sequence, or None when unsure."""
    # (the substring test first: the pattern's scan of a 6 MB text takes about 100 ms)
    if has_lone_cr(text) or anchors_and_aliases(text) or ("<<" in text and MERGE_KEY.search(text)):
        return None
    return cut_list(text, _TESTS_KEY, _TESTS_BLOCK)
