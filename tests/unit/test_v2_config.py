"""`.agentv/config.yaml` discovery and `guideline_patterns` (config-loader.ts at 903e156c2).

Warning texts: `agentv-v2.md` §2 and upstream config-loader.ts. Matching: micromatch with no
options (`dot: false`, case-sensitive, negation does not subtract), on the repo-relative
path in the loader.
"""

from __future__ import annotations

import pytest

INSTR = ["**/*.instructions.md"]
USER_WITH_FILE = """
- role: user
  content:
    - type: file
      value: {value}
    - type: text
      value: Q
"""


def guideline_paths(repo, value: str, rel: str = "eval.yaml") -> list[str]:
    repo.one_case(USER_WITH_FILE.format(value=value), name=rel)
    return repo.case(0, rel)["guideline_paths"]


def test_invalid_config_falls_through_to_parent(make_repo):
    repo = make_repo({"evals/x.instructions.md": "X"}, patterns=INSTR)
    repo.config(text="$schema: not-a-config\nguideline_patterns: ['**/*.md']\n", at="evals")
    assert guideline_paths(repo, "x.instructions.md", "evals/eval.yaml") == ["evals/x.instructions.md"]
    assert repo.warnings("evals/eval.yaml") == [
        "Warning: Invalid $schema value 'not-a-config' in <ROOT>/evals/.agentv/config.yaml. Expected 'agentv-config-v2'"
    ]


def test_config_yml_extension_ignored(repo):
    repo.write(
        ".agentv/config.yml", "$schema: agentv-config-v2\nguideline_patterns: ['**/*.instructions.md']\n"
    )
    repo.write("x.instructions.md", "X")
    assert guideline_paths(repo, "x.instructions.md") == []
    assert repo.warnings() == []


def test_config_found_by_walking_up_from_a_nested_eval(make_repo):
    repo = make_repo({"docs/evals/x.instructions.md": "X"}, patterns=INSTR)
    assert guideline_paths(repo, "x.instructions.md", "docs/evals/e.yaml") == ["docs/evals/x.instructions.md"]


def test_nearest_valid_config_wins(make_repo):
    repo = make_repo({"evals/a.md": "A", "evals/b.txt": "B"}, patterns=["**/*.txt"])
    repo.config(["**/*.md"], at="evals")
    assert guideline_paths(repo, "a.md", "evals/eval.yaml") == ["evals/a.md"]
    assert guideline_paths(repo, "b.txt", "evals/eval.yaml") == []


def test_valid_config_without_patterns_stops_the_search(make_repo):
    repo = make_repo({"evals/x.instructions.md": "X"}, patterns=INSTR)
    repo.config(None, at="evals")  # `$schema` only
    assert guideline_paths(repo, "x.instructions.md", "evals/eval.yaml") == []
    assert repo.warnings("evals/eval.yaml") == []


def test_empty_pattern_list_matches_nothing(make_repo):
    repo = make_repo({"x.instructions.md": "X"}, patterns=[])
    assert guideline_paths(repo, "x.instructions.md") == []


def test_config_above_the_repo_root_is_not_read(make_repo, tmp_path):
    repo = make_repo({"x.instructions.md": "X"}, name="outer/inner")
    (tmp_path / "outer" / ".agentv").mkdir()
    (tmp_path / "outer" / ".agentv" / "config.yaml").write_text(
        "$schema: agentv-config-v2\nguideline_patterns: ['**/*.instructions.md']\n"
    )
    assert guideline_paths(repo, "x.instructions.md") == []


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        (
            "guideline_patterns: []\n",
            "Warning: Missing required field '$schema' in <ROOT>/.agentv/config.yaml.\n"
            "Please add '$schema: agentv-config-v2' at the top of the file.",
        ),
        (
            "$schema: agentv-config-v2\nguideline_patterns: '**/*.md'\n",
            "Warning: Invalid guideline_patterns in <ROOT>/.agentv/config.yaml, expected array",
        ),
        (
            "$schema: agentv-config-v2\nguideline_patterns: null\n",
            "Warning: Invalid guideline_patterns in <ROOT>/.agentv/config.yaml, expected array",
        ),
        (
            "$schema: agentv-config-v2\nguideline_patterns: ['**/*.md', 3]\n",
            "Warning: Invalid guideline_patterns in <ROOT>/.agentv/config.yaml, all entries must be strings",
        ),
        ("- a\n- b\n", "Warning: Invalid .agentv/config.yaml format at <ROOT>/.agentv/config.yaml"),
        ("", "Warning: Invalid .agentv/config.yaml format at <ROOT>/.agentv/config.yaml"),
    ],
)
def test_invalid_config_warnings(repo, text, warning):
    repo.config(text=text)
    repo.one_case("- role: user\n  content: Q\n")
    assert repo.warnings() == [warning]
    assert repo.case()["guideline_paths"] == []


def test_unparseable_config_warns_could_not_read(repo):
    repo.config(text="$schema: agentv-config-v2\nguideline_patterns: [unclosed\n")
    repo.one_case("- role: user\n  content: Q\n")
    (warning,) = repo.warnings()
    assert warning.startswith("Warning: Could not read .agentv/config.yaml at <ROOT>/.agentv/config.yaml: ")


def test_unknown_config_keys_are_ignored_by_the_loader(make_repo):
    repo = make_repo({"x.instructions.md": "X"})
    repo.config(text="$schema: agentv-config-v2\nguideline_patterns: ['*.instructions.md']\nextra: 1\n")
    assert guideline_paths(repo, "x.instructions.md") == ["x.instructions.md"]
    assert repo.warnings() == []


def test_loader_matches_the_repo_relative_path(make_repo):
    # `*.instructions.md` is anchored at the repo root: a file in a subfolder does not match.
    repo = make_repo(
        {"evals/x.instructions.md": "X", "y.instructions.md": "Y"}, patterns=["*.instructions.md"]
    )
    assert guideline_paths(repo, "x.instructions.md", "evals/eval.yaml") == []
    assert guideline_paths(repo, "../y.instructions.md", "evals/eval.yaml") == ["y.instructions.md"]


# -- isGuidelineFile (micromatch with no options) ------------------------------------------------


@pytest.mark.parametrize(
    ("subject", "patterns", "expected"),
    [
        ("a.instructions.md", INSTR, True),
        ("docs/a.instructions.md", INSTR, True),
        ("/abs/x/a.instructions.md", INSTR, True),
        ("docs\\sub\\a.instructions.md", INSTR, True),  # backslashes become '/'
        ("../x/a.instructions.md", INSTR, False),
        ("./a.instructions.md", INSTR, False),
        (".github/instructions/a.instructions.md", INSTR, False),
        ("docs/.hidden/a.instructions.md", INSTR, False),
        ("A.INSTRUCTIONS.MD", INSTR, False),
        ("docs/a.instructions.md", ["*.instructions.md"], False),
        ("x/prompts/y/z.md", ["**/prompts/**"], True),
        ("/prompts/x.md", ["**/prompts/**"], True),
        ("docs/a.md", ["**/*.md", "!docs/**"], True),
        ("docs/a.txt", ["!docs/**"], False),
        ("src/a.txt", ["!docs/**"], True),
        ("a/b.txt", ["**/*.{md,txt}"], True),
        ("docs/AGENTS.md", ["docs/AGENTS.md"], True),
        (".github/copilot-instructions.md", [".github/**"], True),
        ("anything.md", [], False),
    ],
)
def test_is_guideline_file(subject, patterns, expected):
    from agentv_lsp.formats.v2.config import is_guideline_file

    assert is_guideline_file(subject, tuple(patterns)) is expected
