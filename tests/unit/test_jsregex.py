"""`engine.jsregex`, the one reader of JavaScript regexes, against V8 (Node 20's `new RegExp`).

The differential tests generate thousands of sources (tests/unit/jsregex_cases.py) and ask one
node process per batch for its SyntaxError message and for `regex.test(subject)` on short
subjects: `js_regex_error` must give the same message, and the Python translation the same
answers. The named tests pin what V8 does where the project's two former readers disagreed with
it or with each other; each expectation was read from node when written.
"""

from __future__ import annotations

import random
import shutil
import time

import pytest
from tests.unit.jsregex_cases import mutated_source, node_answers, random_source, subjects_for

from agentv_lsp.engine.jsregex import UntranslatableRegex, js_regex_error, js_regex_to_python, utf16_units
from agentv_lsp.engine.jsregex_names import NAME_PART, NAME_START

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not available")


def _search(source: str, subject: str) -> bool:
    translated = js_regex_to_python(source)
    assert translated is not None, source
    regex, anchored = translated
    found = regex.search(utf16_units(subject)) is not None
    if anchored:
        assert (regex.match(utf16_units(subject)) is not None) is found
    return found


# -- V8's messages ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("a)", "Unmatched ')'"),
        ("*a", "Nothing to repeat"),
        ("a**", "Nothing to repeat"),
        ("^*", "Nothing to repeat"),
        ("\\b+", "Nothing to repeat"),
        ("{1}", "Nothing to repeat"),
        ("a{1,2}{3}", "Nothing to repeat"),
        ("(?<=a)*", "Invalid quantifier"),  # lookbehinds are not quantifiable, lookaheads are
        ("(?i:a)", "Invalid group"),
        ("(?", "Invalid group"),
        ("(a", "Unterminated group"),
        ("(?<1a>x)", "Invalid capture group name"),
        ("(?<a\\u>x)", "Invalid Unicode escape"),
        ("(?<a>x)(?<a>y)", "Duplicate capture group name"),
        # V8 finds duplicates when the second group closes: an error inside it comes first
        ("(?<a>)(?<a>[", "Unterminated character class"),
        ("(?<a>)\\k", "Invalid named reference"),
        ("(?<a>)\\k<>", "Invalid capture group name"),
        ("(?<a>)\\k<b>", "Invalid named capture referenced"),
        ("(?<a>)[\\k]", "Invalid escape"),
        ("[\\k](?<a>)", "Invalid escape"),
        ("[a", "Unterminated character class"),
        ("[z-a]", "Range out of order in character class"),
        ("[\\8-\\1]", "Range out of order in character class"),
        ("a{2,1}", "numbers out of order in {} quantifier"),
        ("a{99999999999,3}", "numbers out of order in {} quantifier"),
        ("a\\", "\\ at end of pattern"),
        ("[\\", "\\ at end of pattern"),
    ],
)
def test_message_is_v8s(source: str, message: str) -> None:
    assert js_regex_error(source) == message
    assert js_regex_to_python(source) is None


@pytest.mark.parametrize(
    "source",
    [
        "(?=a)*",  # Annex B: a quantified lookahead
        "a{99999999999}",  # bounds beyond 2**31-1 are clamped, not an error
        "a{99999999999,99999999998}",  # both clamped: equal
        "a{\u0661}",  # a quantifier's digits are ASCII: this is text
        "a{,5}",
        "\\k<a",  # no named group anywhere: `\k` is a `k`
        "(?<$>x)\\k<$>",
        "(?<\\u0061>x)\\k<a>",
        "(?<a\\u{62}>x)\\k<ab>",
        "(?<\U0001d49c>a)",  # an astral identifier character, read as one code point
        "(?<\\ud835\\udc9c>a)",
        "(?<a>\\k<a>)*",  # a reference inside its own group is nothing, quantifiable
        "\\2(a)(b)",  # counted with the groups after it
        "\\8\\c\\c1[\\c_]",
        "[\\d-a][b-\\d]",
        "]}{",
    ],
)
def test_v8_accepts(source: str) -> None:
    assert js_regex_error(source) is None
    assert js_regex_to_python(source) is not None


def test_deep_nesting_is_no_error() -> None:
    # V8's parser keeps open groups on a heap stack: any depth is fine
    depth = 20_000
    assert js_regex_error("(?:" * depth + "a" + ")" * depth) is None


def test_references_inside_deep_nesting_take_linear_time() -> None:
    # a hostile value: 20,000 open groups and as many references (V8 walks its stack for each)
    numbered = "(a)" + "(" * 20_000 + "\\1" * 20_000 + ")" * 20_000
    named = "".join(f"(?<n{i}>" for i in range(20_000)) + "(?<z>)" + "\\k<z>" * 20_000 + ")" * 20_000
    started = time.perf_counter()
    assert js_regex_error(numbered) is None and js_regex_error(named) is None
    assert time.perf_counter() - started < 5


# -- the translation ----------------------------------------------------------------------------------


def test_translation_keeps_javascripts_meaning() -> None:
    assert _search("^a.c$", "abc") and not _search("^a.c$", "a\nc") and not _search("^a.c$", "a\u2028c")
    assert not _search("^a$", "a\n")  # `$` is the very end
    assert _search("\\B", "") and not _search("\\b", "")
    assert _search("^\\s$", "\ufeff") and not _search("^\\w$", "é")
    assert _search("^(a)?b\\1$", "b")  # a group that did not take part: the reference is empty
    assert _search("^\\1(a)$", "a")  # so is one to a group after it
    assert _search("^\\101\\0$", "A\0") and _search("^\\cJ$", "\n") and _search("^\\c$", "\\c")
    assert _search("^[^]$", "\n") and not _search("[]", "a")
    assert _search("^.$", "\ud835") and not _search("^.$", "\U0001d49c")  # code units
    assert _search("^a{0,99999999999}$", "aaaa")


def test_group_names_any_identifier_can_be_referenced() -> None:
    assert _search("^(?<$x>a|b)\\k<$x>$", "bb") and not _search("^(?<$x>a|b)\\k<$x>$", "ab")
    assert _search("^(?<é>a)\\k<é>$", "aa")


def test_what_python_cannot_say_is_untranslatable_not_invalid() -> None:
    # JavaScript forgets the loop's captures at each turn: `\1` is empty after "ab"
    with pytest.raises(UntranslatableRegex):
        js_regex_to_python("^(?:(a)|b)*\\1$")
    with pytest.raises(UntranslatableRegex):
        js_regex_to_python("(?<=a+)b")  # a lookbehind of varying width
    with pytest.raises(UntranslatableRegex):
        js_regex_to_python("(?:" * 20_000 + "a" + ")" * 20_000)
    # a group that is the loop's body takes part in every turn: translatable
    assert _search("^(a|b)+\\1$", "abb") and not _search("^(a|b)+\\1$", "aba")


# -- against node -------------------------------------------------------------------------------------


@needs_node
def test_messages_and_matches_agree_with_node() -> None:
    rnd = random.Random(20261129)
    sources = [random_source(rnd) for _ in range(3000)] + [mutated_source(rnd) for _ in range(1500)]
    cases = [(source, subjects_for(source, rnd, 6)) for source in sources]
    wrong_messages = []
    wrong_matches = []
    matched = untranslatable = 0
    for (source, subjects), answer in zip(cases, node_answers(cases), strict=True):
        if js_regex_error(source) != answer["error"]:
            wrong_messages.append((source, answer["error"], js_regex_error(source)))
        try:
            translated = js_regex_to_python(source)
        except UntranslatableRegex:
            untranslatable += 1
            continue
        if (translated is None) != (answer["error"] is not None):
            wrong_messages.append((source, answer["error"], "translated" if translated else "not translated"))
        if translated is None:
            continue
        for subject, expected in zip(subjects, answer["results"], strict=True):
            matched += 1
            if (translated[0].search(utf16_units(subject)) is not None) != expected:
                wrong_matches.append((source, subject, expected))
    assert not wrong_messages, f"{len(wrong_messages)}/{len(cases)} disagree, e.g. {wrong_messages[:5]}"
    assert not wrong_matches, f"{len(wrong_matches)}/{matched} disagree, e.g. {wrong_matches[:5]}"
    assert matched > 10_000 and untranslatable < len(cases) // 50, (matched, untranslatable)


@needs_node
def test_group_name_tables_agree_with_node() -> None:
    # the tables' edges, and a sample of all code points, as the first and as a later character
    rnd = random.Random(5)
    edges = [code + delta for code in (*NAME_START, *NAME_PART) for delta in (-1, 0, 1)]
    codes = sorted(
        {c for c in [*edges, *(rnd.randrange(0x110000) for _ in range(3000))] if 0 <= c < 0x110000}
    )
    codes = [c for c in codes if not 0xD800 <= c <= 0xDFFF and c != 0x3E]
    sources = [f"(?<{chr(c)}>)" for c in codes] + [f"(?<a{chr(c)}>)" for c in codes]
    wrong = [
        (hex(ord(source[-3])), source[:3] == "(?<a", answer["error"])
        for source, answer in zip(sources, node_answers([(s, []) for s in sources]), strict=True)
        if js_regex_error(source) != answer["error"]
    ]
    assert not wrong, f"{len(wrong)}/{len(sources)} disagree, e.g. {wrong[:10]}"


def test_tables_are_sorted_pairs() -> None:
    for table in (NAME_START, NAME_PART):
        assert len(table) % 2 == 0 and list(table) == sorted(table)
        assert all(table[i] <= table[i + 1] for i in range(0, len(table), 2))
