"""`engine.globs` against micromatch 4.0.8 / picomatch 2.3.1 (`micromatch.isMatch`, no options).

The table data/micromatch_cases.json was recorded from the real libraries by
data/gen_micromatch_cases.js: every hand-picked pattern against every hand-picked subject (the
"grid"), multi-pattern lists, thousands of seeded random patterns each tried on subjects built
to match them, and patterns on which micromatch never returns. Every recorded result must
agree. The named tests below pin the behaviours users meet (and that surprised us), each
checked against the library when it was written.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from agentv_lsp.engine import globs
from agentv_lsp.engine.globs import first_match, is_match, pattern_problem

TABLE = json.loads((Path(__file__).parent / "data" / "micromatch_cases.json").read_text(encoding="utf-8"))
GRID_SUBJECTS: list[str] = TABLE["grid"]["subjects"]


def _agrees(subject: str, patterns: list[str], recorded: int | str) -> bool:
    """One recorded result: 1 or "1" matched, 0 or "0" did not, "E" micromatch threw."""
    got = is_match(subject, patterns)
    if recorded == "E":
        # we never raise: no match, and the culprit is reported
        return got is False and any(pattern_problem(p) is not None for p in patterns)
    return got is (str(recorded) == "1")


# -- the recorded table ------------------------------------------------------------------------------


def test_table_is_the_expected_recording() -> None:
    assert TABLE["versions"]["micromatch"] == "4.0.8"
    assert TABLE["versions"]["picomatch"] == "2.3.1"
    rows = (
        len(TABLE["grid"]["rows"]) * len(GRID_SUBJECTS)
        + len(TABLE["lists"])
        + sum(len(subjects) for _, subjects in TABLE["random"])
    )
    assert rows > 90_000
    assert all(len(results) == len(GRID_SUBJECTS) for _, results in TABLE["grid"]["rows"])


@pytest.mark.parametrize(("pattern", "results"), TABLE["grid"]["rows"], ids=lambda v: json.dumps(v)[:40])
def test_grid_row_agrees_with_micromatch(pattern: str, results: str) -> None:
    wrong = [
        (subject, recorded)
        for subject, recorded in zip(GRID_SUBJECTS, results, strict=True)
        if not _agrees(subject, [pattern], recorded)
    ]
    assert not wrong, f"{pattern!r}: {len(wrong)} subjects disagree, e.g. {wrong[:5]}"


def _lists() -> list[tuple[list[str], list[tuple[str, int | str]]]]:
    grouped: dict[str, tuple[list[str], list[tuple[str, int | str]]]] = {}
    for patterns, subject, recorded in TABLE["lists"]:
        grouped.setdefault(json.dumps(patterns), (patterns, []))[1].append((subject, recorded))
    return list(grouped.values())


@pytest.mark.parametrize(("patterns", "rows"), _lists(), ids=lambda v: json.dumps(v)[:40])
def test_pattern_list_agrees_with_micromatch(patterns: list[str], rows: list[tuple[str, int | str]]) -> None:
    wrong = [(subject, recorded) for subject, recorded in rows if not _agrees(subject, patterns, recorded)]
    assert not wrong, f"{patterns!r}: {len(wrong)} subjects disagree, e.g. {wrong[:5]}"


_CHUNK = 100
RANDOM_CHUNKS = [TABLE["random"][i : i + _CHUNK] for i in range(0, len(TABLE["random"]), _CHUNK)]


@pytest.mark.parametrize("chunk", RANDOM_CHUNKS, ids=lambda c: json.dumps(c[0][0])[:30])
def test_random_patterns_agree_with_micromatch(chunk: list[list[object]]) -> None:
    wrong = []
    for pattern, subjects in chunk:
        assert isinstance(pattern, str) and isinstance(subjects, list)
        wrong += [(pattern, s, r) for s, r in subjects if not _agrees(s, [pattern], r)]
    assert not wrong, f"{len(wrong)} disagree, e.g. {wrong[:5]}"


@pytest.mark.parametrize(("pattern", "hangs"), TABLE["hangs"], ids=lambda v: json.dumps(v)[:30])
def test_patterns_micromatch_hangs_on_are_reported_and_answered(pattern: str, hangs: bool) -> None:
    # micromatch never returns on these (its parser steps past the end of the pattern and
    # loops); we must return at once, say why, and treat the whole list as matching nothing
    started = time.monotonic()
    problem = pattern_problem(pattern)
    assert (problem is not None and "never returns" in problem) is hangs
    if hangs:
        assert not is_match("a", [pattern]) and first_match("a", ["*", pattern]) is None
    assert time.monotonic() - started < 1.0


# -- AgentV's reference table (agentv-v2.md section 2) -------------------------------------------


@pytest.mark.parametrize(
    ("subject", "patterns", "expected"),
    [
        ("a.instructions.md", ["**/*.instructions.md"], True),
        ("docs/a.instructions.md", ["**/*.instructions.md"], True),
        ("/abs/x/a.instructions.md", ["**/*.instructions.md"], True),
        ("a.instructions.md", ["*.instructions.md"], True),
        ("docs/a.instructions.md", ["*.instructions.md"], False),
        ("/abs/x/a.instructions.md", ["*.instructions.md"], False),
        ("../../prompts/python.instructions.md", ["**/*.instructions.md"], False),
        ("../x/a.instructions.md", ["**/*.instructions.md"], False),
        ("./a.instructions.md", ["**/*.instructions.md"], False),
        (".github/instructions/a.instructions.md", ["**/*.instructions.md"], False),
        ("docs/.hidden/a.instructions.md", ["**/*.instructions.md"], False),
        ("A.INSTRUCTIONS.MD", ["**/*.instructions.md"], False),
        ("prompts/x.md", ["**/prompts/**"], True),
        ("/prompts/x.md", ["**/prompts/**"], True),
        ("x/prompts/y/z.md", ["**/prompts/**"], True),
        ("docs/a.md", ["**/*.md", "!docs/**"], True),
        ("docs/a.md", [], False),
    ],
)
def test_reference_table_of_agentv_v2_section_2(subject: str, patterns: list[str], expected: bool) -> None:
    assert is_match(subject, patterns) is expected


# -- named behaviours ----------------------------------------------------------------------------------


def test_globstar_never_matches_parent_segments() -> None:
    assert not is_match("../x/a.md", ["**/*.md"])
    assert not is_match("docs/../a.md", ["**/*.md"])
    assert not is_match("../a.md", ["**"])
    assert is_match("../x/a.md", ["../**/*.md"])  # a literal '..' in the pattern is fine


def test_star_never_matches_dot_or_dotdot_segments() -> None:
    assert not is_match("a/../b", ["a/*/b"])
    assert not is_match("a/./b", ["a/*/b"])
    assert not is_match("..", ["*"])


def test_leading_dot_slash_in_subject_never_matches_a_glob() -> None:
    assert not is_match("./a.md", ["**/*.md"])
    assert not is_match("./a.md", ["*.md"])
    # not even one that starts with './' itself: picomatch drops that prefix from the pattern
    assert not is_match("./a.md", ["./*.md"])
    assert is_match("./a.md", ["./a.md"])  # only the identical text


def test_leading_dot_slash_in_pattern_is_dropped() -> None:
    assert is_match("docs/a.md", ["./docs/*.md"])
    assert is_match("a", ["././a"])


def test_dot_segments_need_a_literal_leading_dot_in_the_pattern() -> None:
    assert not is_match(".github/a.md", ["**/*.md"])
    assert not is_match("x/.a.md", ["x/*"])
    assert is_match(".github/x/a.md", [".github/**"])
    assert is_match("x/.a.md", ["x/.*"])
    assert is_match("a/.github/b", ["**/.github/**"])


def test_dot_star_alone_matches_dotdot_but_not_after_a_slash() -> None:
    # '.*' takes picomatch's fixed-shape route, which forgets the '..' guard the full parser adds
    assert is_match("..", [".*"])
    assert not is_match("x/..", ["x/.*"])


def test_globstar_matches_any_depth_including_none_and_absolute_paths() -> None:
    for subject in ("a.md", "x/a.md", "x/y/z/a.md", "/abs/x/a.md"):
        assert is_match(subject, ["**/*.md"]), subject
    assert is_match("a/b", ["a/**/b"]) and is_match("a/x/y/b", ["a/**/b"])
    assert is_match("a", ["a/**"]) and is_match("a/x/y", ["a/**"])


def test_globstar_is_special_only_as_a_whole_segment() -> None:
    assert is_match("a/xb", ["a/**b"]) and not is_match("a/x/b", ["a/**b"])
    assert is_match("ab/c", ["a**b/c"]) and not is_match("a/b/c", ["a**b/c"])


def test_star_star_dot_extension_crosses_directories() -> None:
    # '**.md' is picomatch's fixed shape '**' plus '.md', so it is a globstar after all
    assert is_match("x/y/z.md", ["**.md"])
    assert not is_match(".a/b.md", ["**.md"])


def test_matching_is_case_sensitive() -> None:
    assert not is_match("A.MD", ["*.md"]) and not is_match("Docs/a.md", ["docs/*.md"])


def test_pattern_without_slash_matches_only_the_top_level() -> None:
    # no basename matching (matchBase is off)
    assert is_match("SKILL.md", ["SKILL.md"]) and not is_match("x/SKILL.md", ["SKILL.md"])
    assert not is_match("docs/a.md", ["*.md"])


def test_negated_entry_matches_everything_else_and_does_not_subtract() -> None:
    assert is_match("docs/a.md", ["**/*.md", "!docs/**"])
    assert is_match("src/a.py", ["!docs/**"])
    assert not is_match("docs/a.md", ["!docs/**"])


def test_negation_matches_dot_files_and_parent_paths() -> None:
    # the negated regex is "anything but", with no dot rule of its own
    assert is_match(".env", ["!*.md"]) and is_match("../x.py", ["!**/*.md"])


def test_double_negation_cancels_and_odd_counts_negate() -> None:
    assert is_match("a", ["!!a"]) and not is_match("b", ["!!a"])
    assert is_match("b", ["!!!a"]) and not is_match("a", ["!!!a"])


def test_empty_list_never_matches() -> None:
    assert not is_match("a.md", []) and first_match("a.md", []) is None


def test_empty_subject_never_matches() -> None:
    assert not is_match("", ["**"]) and not is_match("", ["!a"])


def test_subject_equal_to_the_pattern_always_matches() -> None:
    # picomatch compares the text before using the regex
    assert is_match("a{b", ["a{b"]) and not is_match("ab", ["a{b"])
    assert is_match("!a", ["!a"])
    assert is_match("*.md", ["*.md"])


def test_braces_expand_sets_and_nest() -> None:
    assert is_match("a.txt", ["*.{md,txt}"]) and not is_match("a.py", ["*.{md,txt}"])
    assert is_match("c", ["{a,{b,c}}"]) and is_match("ac", ["a{,b}c"])


def test_brace_ranges_become_character_classes() -> None:
    assert is_match("file2.md", ["file{1..3}.md"]) and not is_match("file4.md", ["file{1..3}.md"])
    # `{1..10}` is the class [1-10]: '1' or '0', never "10"
    assert is_match("0", ["{1..10}"]) and not is_match("10", ["{1..10}"])
    # the ends are sorted, so a reversed range still works
    assert is_match("2", ["{3..1}"]) and is_match("b", ["{c..a}"])


def test_single_item_braces_are_literal() -> None:
    assert is_match("{a}", ["{a}"]) and not is_match("a", ["{a}"])


def test_bracket_bang_is_not_a_negation() -> None:
    # '[!a]' is the class of '!' and 'a' (only '[^a]' negates)
    assert is_match("!", ["[!a]"]) and is_match("a", ["[!a]"]) and not is_match("b", ["[!a]"])
    assert is_match("x/!.md", ["**/[!a].md"]) and not is_match("x/b.md", ["**/[!a].md"])


def test_bracket_caret_negates_and_never_matches_a_slash() -> None:
    assert is_match("b", ["[^a]"]) and not is_match("a", ["[^a]"]) and not is_match("/", ["[^a]"])


def test_plain_bracket_class_also_matches_its_own_text() -> None:
    assert is_match("[ab]", ["[ab]"]) and is_match("x/[ab].md", ["x/[ab].md"])
    assert is_match("a", ["[ab]"]) and not is_match("c", ["[ab]"])


def test_posix_character_classes() -> None:
    assert is_match("x.md", ["[[:alpha:]]*.md"]) and not is_match("1.md", ["[[:alpha:]]*.md"])
    assert is_match("7", ["[[:digit:]]"]) and is_match("F", ["[[:xdigit:]]"])


def test_unclosed_bracket_is_a_literal() -> None:
    assert is_match("[", ["["]) and is_match("a[b", ["a[b"]) and is_match("x/[a", ["x/[a"])


def test_question_mark_matches_one_character_but_not_a_leading_dot() -> None:
    assert is_match("a.md", ["?.md"]) and not is_match("ab.md", ["?.md"])
    assert not is_match(".a", ["?a"]) and is_match(".a", [".?"])


def test_extglobs() -> None:
    assert is_match("b/x", ["@(a|b)/*"]) and not is_match("c/x", ["@(a|b)/*"])
    assert is_match("aab.md", ["+(a|b).md"]) and not is_match(".md", ["+(a|b).md"])
    assert is_match("c", ["*(a|b)c"]) and is_match("abc", ["*(a|b)c"])
    assert is_match("b.md", ["?(a)b.md"]) and is_match("ab.md", ["?(a)b.md"])
    assert is_match("a.md", ["!(*.py)"]) and not is_match("a.py", ["!(*.py)"])


def test_negated_extglob_matches_dot_files() -> None:
    assert is_match(".a", ["!(a)"]) and not is_match("a", ["!(a)"])


def test_backslash_escapes_a_glob_character() -> None:
    assert is_match("x/*.md", ["**/\\*.md"]) and not is_match("x/a.md", ["**/\\*.md"])
    assert is_match("a*b", ["a\\*b"]) and not is_match("axb", ["a\\*b"])


def test_backslash_in_the_subject_is_not_a_separator() -> None:
    # AgentV replaces '\\' by '/' itself before calling micromatch
    assert not is_match("docs\\a.md", ["docs/*.md"])
    assert is_match("docs/a.md", ["docs/*.md"])


def test_trailing_slash_in_a_pattern_requires_one_in_the_subject() -> None:
    assert is_match("docs/", ["docs/"]) and not is_match("docs", ["docs/"])


def test_trailing_slash_tolerance_depends_on_how_picomatch_builds_the_regex() -> None:
    # a pattern ending in a star usually also matches with a trailing slash...
    assert is_match("docs/a/", ["docs/*"]) and is_match("xa/", ["*a*"])
    # ...but a single-segment pattern with no special start takes a route that does not
    assert not is_match("ab/", ["a*"])
    assert not is_match("a/", ["a"])


def test_unbalanced_brace_or_paren_gives_a_pattern_that_matches_nothing_else() -> None:
    for pattern in ("{", "a{b", "docs/{a,b", "a\\"):
        assert not is_match("a", [pattern]) and not is_match("ab", [pattern]), pattern
        assert pattern_problem(pattern) is not None, pattern
    # an unclosed '(' is escaped instead, and is then a literal
    assert is_match("a(b", ["a(b"]) and is_match("x/a(b.md", ["**/a(b.md"])
    assert is_match("(a", ["@(a"]) and not is_match("a", ["@(a"])


def test_stray_paren_and_pipe_can_make_a_pattern_match_anywhere() -> None:
    # '|' splits picomatch's regex and a stray ')' closes its wrapper early; the leftover
    # alternative is searched for anywhere in the subject (regex.exec is a search)
    assert is_match("a", ["a|b"]) is False  # single segment: '|' is escaped on this route
    assert is_match("c", ["x/a|c"]) and is_match("x/a", ["x/a|c"])
    assert is_match("anything/at/all", ["))}/!./:x|@("])


def test_regex_lookalikes_in_patterns_are_javascript_regex() -> None:
    assert is_match("aa", ["(a)\\1"]) and not is_match("ab", ["(a)\\1"])


def test_globstar_and_stars_stop_at_line_terminators() -> None:
    # JavaScript's '.' (used by '**') excludes \n, \r, U+2028, U+2029; '*' uses [^/] and does not
    assert not is_match("a/\nb", ["a/**"]) and is_match("a\nb", ["a*"])
    assert not is_match("x\n", ["!a"])  # negation ends in '.*$'


def test_characters_beyond_the_bmp_are_two_code_units() -> None:
    assert is_match("😀", ["??"]) and not is_match("😀", ["?"])
    assert is_match("x/😀.md", ["**/*.md"])


def test_empty_pattern_is_reported_and_never_raises() -> None:
    assert pattern_problem("") is not None and "empty" in str(pattern_problem(""))
    assert not is_match("a.md", [""])
    # micromatch compiles the whole list first, so the list as a whole throws
    assert first_match("a.md", ["**/*.md", ""]) is None


def test_pattern_problem_is_none_for_ordinary_patterns() -> None:
    for pattern in ("**/*.md", "*.instructions.md", "!docs/**", "{a,b}/*", "@(a|b)", "[[:alpha:]]"):
        assert pattern_problem(pattern) is None, pattern


def test_first_match_names_the_first_matching_pattern_in_list_order() -> None:
    patterns = ["**/*.py", "**/prompts/**", "**/*.instructions.md"]
    assert first_match("prompts/a.instructions.md", patterns) == "**/prompts/**"
    assert first_match("docs/a.instructions.md", patterns) == "**/*.instructions.md"
    assert first_match("x.txt", patterns) is None


def test_each_pattern_is_compiled_once() -> None:
    pattern = "**/compiled-once-*.md"
    before = globs._analyse.cache_info().misses
    for i in range(50):
        is_match(f"x/compiled-once-{i}.md", [pattern])
    assert globs._analyse.cache_info().misses == before + 1


def test_matching_is_fast() -> None:
    # thousands of paths per file: a warm call must take a few microseconds, not milliseconds
    patterns = ["**/*.instructions.md", "**/prompts/**", "docs/AGENTS.md"]
    subjects = [f"src/module{i}/sub/file{i}.ts" for i in range(2000)]
    is_match(subjects[0], patterns)
    started = time.perf_counter()
    for subject in subjects:
        is_match(subject, patterns)
    per_call = (time.perf_counter() - started) / len(subjects)
    assert per_call < 200e-6, f"{per_call * 1e6:.1f} µs per call"
