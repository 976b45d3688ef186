"""A long message is cut to `MESSAGE_LIMIT` characters around an ellipsis (report.one_line): the
exact budgets (two thirds before, the rest after), whole escapes only, no combining mark left to
attach to the ellipsis, and CI command markers defused in the part that is kept (issue 38 item 5)."""

from __future__ import annotations

import unicodedata

import pytest

from agentv_lsp.report import ELLIPSIS, MESSAGE_LIMIT, one_line

HEAD = MESSAGE_LIMIT * 2 // 3
TAIL = MESSAGE_LIMIT - HEAD - len(ELLIPSIS)


def _halves(shown: str) -> tuple[str, str]:
    head, tail = shown.split(ELLIPSIS)
    return head, tail


def test_plain_text_fills_the_limit_exactly() -> None:
    shown = one_line("a" * 2000 + "b" * 2000, MESSAGE_LIMIT)
    assert len(shown) == MESSAGE_LIMIT
    assert _halves(shown) == ("a" * HEAD, "b" * TAIL)
    assert one_line("a" * MESSAGE_LIMIT, MESSAGE_LIMIT) == "a" * MESSAGE_LIMIT  # at the limit: whole
    assert ELLIPSIS in one_line("a" * (MESSAGE_LIMIT + 1), MESSAGE_LIMIT)


@pytest.mark.parametrize(("char", "escape"), [("\x1b", "\\x1b"), ("\u202e", "\\u202e"), ("\n", "\\n")])
def test_the_tail_of_escapes_stays_within_the_limit_and_ends_on_whole_escapes(char: str, escape: str) -> None:
    shown = one_line("a" * 2000 + char * 600, MESSAGE_LIMIT)
    head, tail = _halves(shown)
    assert head == "a" * HEAD
    assert tail == escape * (TAIL // len(escape))  # as many whole escapes as the tail holds
    assert MESSAGE_LIMIT - len(escape) < len(shown) <= MESSAGE_LIMIT
    # escapes at the head: a whole number of them too
    head, _ = _halves(one_line(char * 2000 + "b" * 2000, MESSAGE_LIMIT))
    assert head == escape * (HEAD // len(escape))


@pytest.mark.parametrize("marks", ["\u0301", "\u0301\u0302", "\u0308\u0301\u0327"])
def test_a_combining_mark_never_follows_the_ellipsis(marks: str) -> None:
    text = "a" * 2000 + marks + "b" * (TAIL - len(marks))
    shown = one_line(text, MESSAGE_LIMIT)
    _, tail = _halves(shown)
    assert tail == "b" * (TAIL - len(marks))
    assert not unicodedata.combining(shown[shown.index(ELLIPSIS) + 1])


def test_ci_commands_are_defused_in_a_cut_message_and_a_lone_hash_stays() -> None:
    text = "##[error]head # kept" + "a" * 2000 + "tail # and ##[warning]x ##vso[task] ##teamcity[m]"
    shown = one_line(text, MESSAGE_LIMIT)
    head, tail = _halves(shown)
    assert head.startswith("#\\x23[error]head # kept")
    assert tail.endswith("tail # and #\\x23[warning]x #\\x23vso[task] #\\x23teamcity[m]")
    assert "##" not in shown and len(shown) <= MESSAGE_LIMIT
