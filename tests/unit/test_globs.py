"""micromatch 4.0.8 `isMatch` semantics, checked against tables recorded from the library
itself (data/gen_micromatch_cases.js: hand-picked edge cases; data/gen_micromatch_random.js:
3,000 seeded random pattern/path pairs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentv_lsp.engine.globs import GlobError, first_match, is_match, pattern_problem

DATA = Path(__file__).parent / "data"
ROWS = json.loads((DATA / "micromatch_cases.json").read_text()) + json.loads(
    (DATA / "micromatch_random.json").read_text()
)


def _outcome(subject: str, patterns: list[str]) -> bool | str:
    try:
        return is_match(subject, patterns)
    except GlobError:
        return "ERROR"


def test_every_recorded_micromatch_result_agrees() -> None:
    mismatches = [(p, s, want) for p, s, want in ROWS if _outcome(s, p) != want]
    assert not mismatches, f"{len(mismatches)} of {len(ROWS)} disagree, e.g. {mismatches[:5]}"


@pytest.mark.parametrize(
    ("subject", "expected"),
    [("a.instructions.md", True), ("docs/a.instructions.md", True), ("/abs/x/a.instructions.md", True)],
)
def test_globstar_matches_any_depth_and_absolute_paths(subject: str, expected: bool) -> None:
    assert is_match(subject, ["**/*.instructions.md"]) is expected


def test_globstar_never_matches_parent_segments() -> None:
    assert not is_match("../../prompts/python.instructions.md", ["**/*.instructions.md"])
    assert not is_match("../x/a.instructions.md", ["**/*.instructions.md"])


def test_leading_dot_slash_subject_does_not_match() -> None:
    assert not is_match("./a.instructions.md", ["**/*.instructions.md"])


def test_dot_directories_are_skipped_unless_named() -> None:
    assert not is_match(".github/instructions/a.instructions.md", ["**/*.instructions.md"])
    assert is_match(".github/instructions/a.instructions.md", [".github/**"])


def test_matching_is_case_sensitive() -> None:
    assert not is_match("A.INSTRUCTIONS.MD", ["**/*.instructions.md"])


def test_pattern_without_slash_matches_only_top_level() -> None:
    assert is_match("a.instructions.md", ["*.instructions.md"])
    assert not is_match("docs/a.instructions.md", ["*.instructions.md"])


def test_negated_entry_matches_everything_else_and_does_not_subtract() -> None:
    assert is_match("docs/a.md", ["**/*.md", "!docs/**"])
    assert is_match("src/a.py", ["!docs/**"])


def test_empty_pattern_list_never_matches() -> None:
    assert not is_match("a.md", [])


def test_braces_ranges_and_extglobs() -> None:
    assert is_match("x/file2.md", ["**/file{1..3}.md"]) and not is_match("x/file4.md", ["**/file{1..3}.md"])
    assert is_match("a.txt", ["**/*.@(md|txt)"]) and not is_match("a.py", ["**/!(*.py)"])


def test_first_match_names_the_pattern_in_list_order() -> None:
    assert (
        first_match("prompts/a.instructions.md", ["**/prompts/**", "**/*.instructions.md"]) == "**/prompts/**"
    )
    assert first_match("x.py", ["**/*.md"]) is None


def test_empty_pattern_is_a_problem_micromatch_throws_on() -> None:
    with pytest.raises(GlobError):
        is_match("a.md", [""])
    assert pattern_problem("") is not None and pattern_problem("**/*.md") is None
