"""The eval-file loader (`loadEvalCases` at AgentV 903e156c2): load errors, silent filters,
skip warnings, reference answers, datasets, file resolution warnings.

Expected strings come from `shared/reference/agentv-v2.md` §1 and §4, `shared/golden/README.md`
§4.13/§4.15 and upstream yaml-parser.ts / message-processor.ts; the fixtures are our own.
"""

from __future__ import annotations

import pytest


def load(repo, rel="eval.yaml", index=0):
    from agentv_lsp.formats.v2.loader import load_case

    ef = repo.open(rel)
    assert ef.load_error is None, ef.load_error
    return load_case(ef, index)


# -- load errors (§1.1) --------------------------------------------------------------------------


def test_wrong_schema_value_is_load_error(repo):
    repo.write("eval.yaml", "$schema: agentv-eval-v1\nevalcases: []\n")
    result = repo.preview()
    assert (
        result["load_error"]
        == "Invalid $schema value 'agentv-eval-v1' in eval.yaml. Expected 'agentv-eval-v2'"
    )
    assert result["cases"] == []


def test_missing_schema_is_two_line_load_error(repo):
    repo.write("eval.yaml", "evalcases: []\n")
    assert repo.preview()["load_error"] == (
        "Missing required field '$schema' in eval.yaml.\nPlease add '$schema: agentv-eval-v2' at the top of the file."
    )


def test_non_string_schema_counts_as_missing(repo):
    repo.write("eval.yaml", "$schema: 2\nevalcases: []\n")
    assert repo.preview()["load_error"].startswith("Missing required field '$schema' in eval.yaml.\n")


def test_evalcases_not_a_list_is_load_error(repo):
    repo.write("eval.yaml", "$schema: agentv-eval-v2\nevalcases:\n  a: 1\n")
    assert repo.preview()["load_error"] == "Invalid test file format: eval.yaml - missing 'evalcases' field"


@pytest.mark.parametrize("text", ["- a\n- b\n", "just text\n", "", "# only a comment\n"])
def test_root_not_a_mapping_is_load_error(repo, text):
    repo.write("eval.yaml", text)
    assert repo.preview()["load_error"] == "Invalid test file format: eval.yaml"


def test_empty_evalcases_loads_zero_cases(repo):
    repo.write("eval.yaml", "$schema: agentv-eval-v2\nevalcases: []\n")
    result = repo.preview()
    assert result["load_error"] is None
    assert result["cases"] == []
    assert result["warnings"] == []


def test_config_warning_appears_even_when_eval_file_is_broken(repo):
    repo.config(text="$schema: agentv-config-v0\n")
    repo.write("eval.yaml", "evalcases: []\n")
    result = repo.preview()
    assert result["load_error"] is not None
    assert [repo.scrub(w) for w in result["warnings"]] == [
        "Warning: Invalid $schema value 'agentv-config-v0' in <ROOT>/.agentv/config.yaml. Expected 'agentv-config-v2'"
    ]


# -- silent message filters (§1.4, golden README §4.13) ---------------------------------------------


def test_content_list_with_string_drops_message(repo):
    repo.one_case(
        """
        - role: system
          content:
            - Be nice
        - role: user
          content: Q
        """
    )
    outcome = load(repo)
    assert outcome.notices == []
    assert outcome.case.input_messages == [{"role": "user", "content": "Q"}]
    assert outcome.case.input_message_indices == [1]
    assert repo.case()["lm"]["question"] == "Q"


def test_mixed_content_list_drops_message(repo):
    repo.one_case(
        """
        - role: user
          content:
            - type: text
              value: kept?
            - plain string
        - role: user
          content: Q
        """
    )
    outcome = load(repo)
    assert outcome.case.input_message_indices == [1]
    assert outcome.notices == []


def test_role_is_case_sensitive(repo):
    repo.one_case(
        """
        - role: User
          content: dropped
        - role: user
          content: kept
        """
    )
    outcome = load(repo)
    assert outcome.case.input_messages == [{"role": "user", "content": "kept"}]


@pytest.mark.parametrize("content", ["content: 42", "content: null", "content: {type: text}", "name: x"])
def test_non_string_non_list_content_drops_message(repo, content):
    repo.one_case(f"- role: user\n  {content}\n- role: user\n  content: kept\n")
    outcome = load(repo)
    assert outcome.case.input_message_indices == [1]


def test_empty_content_list_is_a_valid_message(repo):
    repo.one_case("- role: user\n  content: []\n")
    assert load(repo).case.input_message_indices == [0]


def test_all_messages_dropped_still_loads_the_case(repo):
    repo.one_case("- role: User\n  content: x\n")
    outcome = load(repo)
    assert outcome.case is not None
    assert outcome.case.input_messages == []


# -- skipped cases (§1.3) -------------------------------------------------------------------------------


def test_numeric_id_skips_case_as_unknown(repo):
    repo.eval(
        """
        - id: 001
          outcome: o
          input_messages: []
        - id: true
          outcome: o
          input_messages: []
        - id: 0x1F
          outcome: o
          input_messages: []
        - id: "001"
          outcome: o
          input_messages: []
        """
    )
    result = repo.preview()
    assert result["warnings"] == ["Warning: Skipping incomplete eval case: unknown"] * 3
    assert [c["id"] for c in result["cases"]] == ["001"]


def test_yes_and_dates_as_ids_stay_strings(repo):
    repo.eval(
        """
        - id: yes
          outcome: o
          input_messages: []
        - id: 2025-01-01
          outcome: on
          input_messages: []
        """
    )
    result = repo.preview()
    assert result["warnings"] == []
    assert [(c["id"], c["expected_outcome"]) for c in result["cases"]] == [("yes", "o"), ("2025-01-01", "on")]


def test_empty_string_id_prints_nothing_after_colon(repo):
    repo.eval('- id: ""\n  outcome: o\n  input_messages: []\n')
    assert repo.preview()["warnings"] == ["Warning: Skipping incomplete eval case: "]


def test_missing_outcome_skips_case_with_its_id(repo):
    repo.eval(
        "- id: no-outcome\n  input_messages: []\n- id: empty-outcome\n  outcome: ''\n  input_messages: []\n"
    )
    assert repo.preview()["warnings"] == [
        "Warning: Skipping incomplete eval case: no-outcome",
        "Warning: Skipping incomplete eval case: empty-outcome",
    ]


def test_non_list_input_messages_skips_case(repo):
    repo.eval("- id: m\n  outcome: o\n  input_messages:\n    role: user\n")
    result = repo.preview()
    assert result["warnings"] == ["Warning: Skipping incomplete eval case: m"]
    assert result["cases"] == []


def test_non_object_case_entry_warns_and_is_skipped(repo):
    repo.eval("- just a string\n- id: ok\n  outcome: o\n  input_messages: []\n")
    result = repo.preview()
    assert result["warnings"] == ["Warning: Skipping invalid eval case entry (expected object)"]
    assert [c["id"] for c in result["cases"]] == ["ok"]


def test_whitespace_outcome_passes_loader(repo):
    repo.eval("- id: ws\n  outcome: '   '\n  input_messages: []\n")
    result = repo.preview()
    assert result["warnings"] == []
    assert result["cases"][0]["expected_outcome"] == "   "
    assert (
        "[[ ## expected_outcome ## ]]\n\n\n[[ ## question ## ]]"
        in result["cases"][0]["judge_prompt"]["question"]
    )


def test_duplicate_ids_are_kept(repo):
    repo.eval(
        "- id: d\n  outcome: first\n  input_messages: []\n- id: d\n  outcome: second\n  input_messages: []\n"
    )
    result = repo.preview()
    assert [(c["id"], c["expected_outcome"]) for c in result["cases"]] == [("d", "first"), ("d", "second")]


# -- expected messages and the reference answer (§1.3 step 5, §1.5, golden README §4.15) ------------


def test_expected_messages_not_a_list_is_outcome_only_silently(repo):
    c = repo.case_with("- role: user\n  content: Q\n", extra="expected_messages: just text")
    assert c["reference_answer"] == ""
    assert repo.preview()["warnings"] == []


def test_expected_messages_without_a_valid_message_skips_case(repo):
    repo.one_case("- role: user\n  content: Q\n", expected="- role: Assistant\n  content: A\n")
    result = repo.preview()
    assert result["warnings"] == ["Warning: No valid expected message found for eval case: c"]
    assert result["cases"] == []


def test_multiple_expected_messages_warn_and_use_first(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected="- role: assistant\n  content: First\n- role: user\n  content: Second\n",
    )
    assert c["reference_answer"] == "First"
    assert repo.preview()["warnings"] == [
        "Warning: Multiple expected messages found for eval case: c, using first"
    ]


def test_reference_answer_string_is_untrimmed(repo):
    c = repo.case_with("- role: user\n  content: Q\n", expected='- role: assistant\n  content: "  yes \\n"\n')
    assert c["reference_answer"] == "  yes \n"
    assert "[[ ## reference_answer ## ]]\nyes\n\n" in c["judge_prompt"]["question"]


def test_outcome_only_case_has_empty_reference_answer(repo):
    c = repo.case_with("- role: user\n  content: Q\n")
    assert c["reference_answer"] == ""


def test_reference_answer_text_beats_value(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected="""
        - role: assistant
          content:
            - type: text
              text: T
              value: V
            - type: text
              value: V2
        """,
    )
    assert c["reference_answer"] == "T V2"


def test_reference_answer_unknown_object_is_json_stringified(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected="""
        - role: assistant
          content:
            - type: image
              url: x.png
              size: 1.5
            - type: text
              value: caption
        """,
    )
    assert c["reference_answer"] == '{"type":"image","url":"x.png","size":1.5} caption'


def test_reference_answer_files_wrapped_and_joined_by_blank_lines(repo):
    repo.write("ans.md", "\r\n 42 \r\n")
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected="""
        - role: assistant
          content:
            - type: text
              value: "See:"
            - type: file
              value: ./ans.md
        """,
    )
    assert c["reference_answer"] == 'See:\n\n<file path="./ans.md">\n42\n</file>'


def test_missing_expected_file_is_warned_twice(repo):
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected="""
        - role: assistant
          content:
            - type: file
              value: nope.md
        """,
    )
    assert c["reference_answer"] == ""
    warning = "Warning: File not found in expected_messages: nope.md\n  Tried:\n    <ROOT>/nope.md"
    assert repo.warnings() == [warning, warning]


# -- file references (§1.4, §4) -------------------------------------------------------------------------


def test_missing_input_file_warning_lists_tried_paths(repo):
    repo.one_case(
        """
        - role: user
          content:
            - type: file
              value: missing.md
        """,
        name="evals/eval.yaml",
    )
    assert repo.warnings("evals/eval.yaml") == [
        "Warning: File not found: missing.md\n  Tried:\n    <ROOT>/evals/missing.md\n    <ROOT>/missing.md"
    ]


def test_absolute_missing_value_is_tried_literally_first(repo):
    repo.one_case("- role: user\n  content:\n    - type: file\n      value: /nowhere-agentv/x.txt\n")
    assert repo.warnings() == [
        "Warning: File not found: nowhere-agentv/x.txt\n  Tried:\n    /nowhere-agentv/x.txt\n    <ROOT>/nowhere-agentv/x.txt"
    ]


def test_file_value_missing_empty_or_not_a_string_is_skipped_silently(repo):
    repo.one_case(
        """
        - role: user
          content:
            - type: file
            - type: file
              value: ""
            - type: file
              value: 3
            - type: text
              value: Q
        """
    )
    outcome = load(repo)
    assert outcome.notices == []
    assert outcome.case.input_segments == [{"type": "text", "value": "Q"}]


def test_crlf_normalised_lone_cr_kept(repo):
    repo.write("a.txt", "one\r\ntwo\rthree\r\n")
    repo.write(
        "eval.yaml",
        "$schema: agentv-eval-v2\r\nevalcases:\r\n  - id: c\r\n    outcome: o\r\n    input_messages:\r\n"
        "      - role: user\r\n        content:\r\n          - type: file\r\n            value: a.txt\r\n"
        "          - type: text\r\n            value: |\r\n              l1\r\n              l2\r\n",
    )
    outcome = load(repo)
    assert outcome.case.input_segments[0]["text"] == "one\ntwo\rthree\n"
    assert outcome.case.input_segments[1] == {"type": "text", "value": "l1\nl2\n"}
    assert repo.case()["lm"]["question"] == '<file path="a.txt">\none\ntwo\rthree\n</file>\n\nl1\nl2'


def test_guideline_and_expected_files_are_crlf_normalised_and_trimmed(make_repo):
    repo = make_repo(
        {"g.instructions.md": "\r\nRule\r\n\r\n", "ans.md": "A\r\nB\r\n"}, patterns=["*.instructions.md"]
    )
    c = repo.case_with(
        "- role: user\n  content:\n    - type: file\n      value: g.instructions.md\n    - type: text\n      value: Q\n",
        expected="- role: assistant\n  content:\n    - type: file\n      value: ans.md\n",
    )
    assert c["lm"]["guidelines"] == '<file path="g.instructions.md">\nRule\n</file>'
    assert c["reference_answer"] == '<file path="ans.md">\nA\nB\n</file>'


# -- derived fields (§1.5) ---------------------------------------------------------------------------------


def test_legacy_question_joins_trimmed_text_parts_with_a_space(repo):
    repo.write("x.txt", "file text is not part of it")
    repo.one_case(
        """
        - role: system
          content: " A "
        - role: user
          content:
            - type: text
              value: "B\\n"
            - type: image
              value: pic.png
            - type: file
              value: x.txt
            - type: text
              value: "   "
        - role: assistant
          content: ""
        """
    )
    assert load(repo).case.question == "A B pic.png"


def test_file_paths_list_guidelines_first_then_files_with_duplicates(make_repo):
    repo = make_repo({"a.txt": "A", "g.instructions.md": "G"}, patterns=["*.instructions.md"])
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: a.txt
            - type: file
              value: g.instructions.md
            - type: file
              value: a.txt
        """
    )
    assert c["guideline_paths"] == ["g.instructions.md"]
    assert c["file_paths"] == ["g.instructions.md", "a.txt", "a.txt"]


def test_code_snippets_collected_from_every_text_segment(repo):
    repo.one_case(
        """
        - role: system
          content: "sys ```s``` end"
        - role: user
          content:
            - type: text
              value: "```a``` and ```b"
            - type: text
              value: "c```"
        """
    )
    assert load(repo).case.code_snippets == ["```s```", "```a```"]


@pytest.mark.parametrize(
    ("name", "dataset_line", "expected"),
    [
        ("suite.eval.yaml", "", "suite.eval"),
        ("Upper.YML", "", "Upper"),
        ("eval.yaml", "dataset: '  named  '\n", "named"),
        ("blank.yaml", "dataset: '   '\n", "blank"),
        ("num.yaml", "dataset: 5\n", "num"),
        (".yaml", "", "eval"),
    ],
)
def test_dataset_name(repo, name, dataset_line, expected):
    repo.write(
        name,
        dataset_line
        + "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages: []\n",
    )
    assert repo.case(0, name)["dataset"] == expected


def test_conversation_id_must_be_a_string(repo):
    repo.eval(
        """
        - id: a
          conversation_id: conv-1
          outcome: o
          input_messages: []
        - id: b
          conversation_id: 7
          outcome: o
          input_messages: []
        """
    )
    assert [c["conversation_id"] for c in repo.preview()["cases"]] == ["conv-1", None]


def test_unknown_evaluator_kinds_warn_and_fall_back(repo):
    repo.write(
        "eval.yaml",
        "$schema: agentv-eval-v2\nevaluator: fancy\nevalcases:\n"
        "  - id: c\n    evaluator: weird\n    outcome: o\n    input_messages: []\n"
        "  - id: d\n    evaluator: 3\n    outcome: o\n    input_messages: []\n",
    )
    result = repo.preview()
    assert result["warnings"] == [
        "Warning: Unknown evaluator 'fancy' in global, falling back to default",
        "Warning: Unknown evaluator 'weird' in c, falling back to default",
    ]
    assert [c["evaluator"] for c in result["cases"]] == ["llm_judge", "llm_judge"]


def test_case_evaluator_falls_back_to_global_kind(repo):
    repo.write(
        "eval.yaml",
        "$schema: agentv-eval-v2\nevaluator: code\nevalcases:\n"
        "  - id: c\n    outcome: o\n    input_messages: []\n"
        "  - id: d\n    evaluator: llm_judge\n    outcome: o\n    input_messages: []\n",
    )
    assert [c["evaluator"] for c in repo.preview()["cases"]] == ["code", "llm_judge"]


def test_reference_answer_json_stringifies_numbers_like_javascript(repo):
    # checked with eemeli/yaml 2.8.1 + JSON.stringify
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected=(
            "- role: assistant\n  content:\n"
            "    - {type: metric, v: 1e-7, big: 1e21, f: 0.10, i: 010, neg: -0.0, h: 0x10, inf: .inf, nan: .nan,"
            " t: true, n: ~, s: x}\n"
        ),
    )
    assert c["reference_answer"] == (
        '{"type":"metric","v":1e-7,"big":1e+21,"f":0.1,"i":10,"neg":0,"h":16,"inf":null,"nan":null,'
        '"t":true,"n":null,"s":"x"}'
    )
