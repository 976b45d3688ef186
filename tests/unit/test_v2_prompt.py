"""Prompt formatting (`buildPromptInputs` at AgentV 903e156c2), one named test per rule and quirk.

Every expected string below was written by hand from the rules in
`shared/reference/agentv-v2.md` §5 and `shared/golden/README.md` §4 (and checked against the
upstream formatting/prompt-builder.ts and segment-formatter.ts), not copied from our output.
The fixtures are our own small repositories; none is a copy of a golden case.
"""

from __future__ import annotations

GLOB_INSTRUCTIONS = ["**/*.instructions.md"]


def chat(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"role": role, "content": content} for role, content in pairs]


# -- role-marker decision (§5.3) and the marker format (§4.1) -------------------------------


def test_system_plus_user_text_uses_role_markers(repo):
    c = repo.case_with(
        """
        - role: system
          content: You are terse.
        - role: user
          content: Name a prime.
        """
    )
    assert c["lm"]["question"] == "@[System]:\nYou are terse.\n\n@[User]:\nName a prime."
    assert c["lm"]["chatPrompt"] == chat(("system", "You are terse."), ("user", "Name a prime."))
    assert c["agent"]["question"] == c["lm"]["question"]
    assert c["role_markers"] is True


def test_role_label_capitalised_parts_joined_by_newline_turns_by_blank_line(repo):
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: one
            - type: text
              value: two
        - role: assistant
          content: B
        - role: user
          content: C
        """
    )
    assert c["lm"]["question"] == "@[User]:\none\ntwo\n\n@[Assistant]:\nB\n\n@[User]:\nC"
    assert c["lm"]["chatPrompt"] == chat(("user", "one\ntwo"), ("assistant", "B"), ("user", "C"))


def test_single_visible_message_is_flat_with_null_chat_prompt(repo):
    c = repo.case_with(
        """
        - role: user
          content: Hi there
        """
    )
    assert c["lm"]["question"] == "Hi there"
    assert c["lm"]["chatPrompt"] is None
    assert c["agent"]["chatPrompt"] is None
    assert c["role_markers"] is False


def test_empty_assistant_turn_still_forces_role_markers(repo):
    c = repo.case_with(
        """
        - role: user
          content: Hi
        - role: assistant
          content: ""
        """
    )
    assert c["lm"]["question"] == "@[User]:\nHi"
    assert c["lm"]["chatPrompt"] == chat(("user", "Hi"))


def test_tool_only_conversation_uses_markers_and_assistant_role(repo):
    c = repo.case_with(
        """
        - role: tool
          content: result 42
        """
    )
    assert c["lm"]["question"] == "@[Tool]:\nresult 42"
    assert c["lm"]["chatPrompt"] == chat(("assistant", "@[Tool]:\nresult 42"))


def test_whitespace_only_message_is_not_visible_content(repo):
    c = repo.case_with(
        """
        - role: system
          content: "   "
        - role: user
          content: Q
        """
    )
    assert c["lm"]["question"] == "Q"
    assert c["lm"]["chatPrompt"] is None


def test_file_only_system_plus_user_counts_as_two_visible_messages(repo):
    repo.write("ctx.txt", "Context\n")
    c = repo.case_with(
        """
        - role: system
          content:
            - type: file
              value: ctx.txt
        - role: user
          content: Q
        """
    )
    assert c["lm"]["question"] == '@[System]:\n<file path="ctx.txt">\nContext\n</file>\n\n@[User]:\nQ'
    assert c["lm"]["chatPrompt"] == chat(("system", '<file path="ctx.txt">\nContext\n</file>'), ("user", "Q"))
    assert c["agent"]["question"] == '@[System]:\n<file: path="ctx.txt">\n\n@[User]:\nQ'
    assert c["agent"]["chatPrompt"] == chat(("system", '<file: path="ctx.txt">'), ("user", "Q"))


def test_zero_messages_give_empty_flat_question(repo):
    c = repo.case_with("[]")
    assert c["lm"]["question"] == ""
    assert c["lm"]["chatPrompt"] is None
    assert c["agent"]["question"] == ""


def test_chat_prompt_has_no_system_message_without_guidelines_or_leading_system(repo):
    c = repo.case_with(
        """
        - role: user
          content: U
        - role: assistant
          content: A
        """
    )
    assert c["lm"]["chatPrompt"] == chat(("user", "U"), ("assistant", "A"))


# -- file rendering (§4.3, §5.6) --------------------------------------------------------------


def test_lm_file_is_embedded_trimmed_in_file_tags(repo):
    repo.write("src/code.py", "\n\nprint(1)\n\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Review
            - type: file
              value: src/code.py
        """
    )
    assert c["lm"]["question"] == 'Review\n\n<file path="src/code.py">\nprint(1)\n</file>'
    assert c["file_paths"] == ["src/code.py"]


def test_agent_file_is_a_reference_only(repo):
    repo.write("src/code.py", "print(1)\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Review
            - type: file
              value: src/code.py
        """
    )
    assert c["agent"]["question"] == 'Review\n\n<file: path="src/code.py">'


def test_no_xml_escaping_in_paths_or_content(repo):
    repo.write("a&b.txt", '<tag attr="1">&amp;</tag>\n')
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: "x < y && z"
            - type: file
              value: a&b.txt
        """
    )
    assert c["lm"]["question"] == 'x < y && z\n\n<file path="a&b.txt">\n<tag attr="1">&amp;</tag>\n</file>'


def test_segment_order_preserved_within_message(repo):
    repo.write("f.txt", "F")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: "1"
            - type: file
              value: f.txt
            - type: text
              value: "2"
        - role: assistant
          content: ok
        """
    )
    assert c["lm"]["question"] == '@[User]:\n1\n<file path="f.txt">\nF\n</file>\n2\n\n@[Assistant]:\nok'
    assert c["agent"]["question"] == '@[User]:\n1\n<file: path="f.txt">\n2\n\n@[Assistant]:\nok'


def test_empty_file_omitted_in_lm_but_referenced_in_agent(repo):
    repo.write("empty.txt", "")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: See
            - type: file
              value: empty.txt
        """
    )
    assert c["lm"]["question"] == "See"
    assert c["agent"]["question"] == 'See\n\n<file: path="empty.txt">'


def test_whitespace_only_file_renders_empty_body_in_lm(repo):
    repo.write("ws.txt", "  \n\t\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: See
            - type: file
              value: ws.txt
        """
    )
    assert c["lm"]["question"] == 'See\n\n<file path="ws.txt">\n\n</file>'
    assert c["agent"]["question"] == 'See\n\n<file: path="ws.txt">'


def test_assistant_with_only_empty_file_absent_from_lm_but_kept_in_agent_chat_prompt(repo):
    repo.write("empty.txt", "")
    c = repo.case_with(
        """
        - role: user
          content: Q
        - role: assistant
          content:
            - type: file
              value: empty.txt
        """
    )
    assert c["lm"]["question"] == "@[User]:\nQ"
    assert c["agent"]["question"] == "@[User]:\nQ"
    assert c["lm"]["chatPrompt"] == chat(("user", "Q"))
    assert c["agent"]["chatPrompt"] == chat(("user", "Q"), ("assistant", '<file: path="empty.txt">'))


def test_leading_slash_file_vanishes_in_role_marker_mode(repo):
    repo.write("data/notes.txt", "N1\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Read
            - type: file
              value: /data/notes.txt
        - role: assistant
          content: ok
        """
    )
    assert c["lm"]["question"] == "@[User]:\nRead\n\n@[Assistant]:\nok"
    assert c["agent"]["question"] == "@[User]:\nRead\n\n@[Assistant]:\nok"
    assert c["lm"]["chatPrompt"] == chat(("user", "Read"), ("assistant", "ok"))
    assert c["file_paths"] == ["data/notes.txt"]  # still attached, just not shown


def test_leading_slash_file_shown_in_flat_mode_with_display_path(repo):
    repo.write("data/notes.txt", "N1\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Read
            - type: file
              value: /data/notes.txt
        """
    )
    assert c["lm"]["question"] == 'Read\n\n<file path="data/notes.txt">\nN1\n</file>'
    assert c["agent"]["question"] == 'Read\n\n<file: path="data/notes.txt">'


# -- text handling (§4.11) ----------------------------------------------------------------------


def test_flat_mode_trims_parts_and_joins_with_blank_line(repo):
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: "  padded  \\n"
            - type: text
              value: "   "
            - type: text
              value: "\\nsecond\\n"
        """
    )
    assert c["lm"]["question"] == "padded\n\nsecond"


def test_role_marker_mode_keeps_trailing_newlines_and_padding(repo):
    c = repo.case_with(
        """
        - role: user
          content: |
            line one
        - role: assistant
          content: "  ok  "
        """
    )
    assert c["lm"]["question"] == "@[User]:\nline one\n\n\n@[Assistant]:\n  ok  "
    assert c["lm"]["chatPrompt"] == chat(("user", "line one\n"), ("assistant", "  ok  "))


def test_flat_mode_appends_code_fences_again(repo):
    c = repo.case_with(
        """
        - role: user
          content: |
            Fix:
            ```js
            x()
            ```
        """
    )
    assert c["lm"]["question"] == "Fix:\n```js\nx()\n```\n\n```js\nx()\n```"
    assert c["agent"]["question"] == c["lm"]["question"]


def test_flat_mode_appended_fences_are_joined_by_single_newline(repo):
    c = repo.case_with(
        """
        - role: user
          content: "a ```one``` b ```two``` c"
        """
    )
    assert c["lm"]["question"] == "a ```one``` b ```two``` c\n\n```one```\n```two```"


def test_code_fences_inside_files_are_not_appended(repo):
    repo.write("snippet.md", "```py\nx\n```\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: See
            - type: file
              value: snippet.md
        """
    )
    assert c["lm"]["question"] == 'See\n\n<file path="snippet.md">\n```py\nx\n```\n</file>'


def test_role_marker_mode_does_not_append_code_fences(repo):
    c = repo.case_with(
        """
        - role: user
          content: "```a```"
        - role: assistant
          content: ok
        """
    )
    assert c["lm"]["question"] == "@[User]:\n```a```\n\n@[Assistant]:\nok"


def test_image_segment_is_invisible_to_the_builder(repo):
    c = repo.case_with(
        """
        - role: user
          content:
            - type: image
              value: pic.png
            - type: text
              value: Describe
        """
    )
    assert c["lm"]["question"] == "Describe"
    assert c["agent"]["question"] == "Describe"


# -- guidelines (§4.3, §4.4, §5.1) -------------------------------------------------------------


def test_guidelines_render_basename_blocks_joined_by_blank_line(make_repo):
    repo = make_repo(
        {
            "prompts/a.instructions.md": "Be terse.\r\n",
            "rules/b.instructions.md": "  Cite sources.  \n",
        },
        patterns=GLOB_INSTRUCTIONS,
    )
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: prompts/a.instructions.md
            - type: file
              value: rules/b.instructions.md
            - type: text
              value: Go
        """
    )
    assert c["lm"]["guidelines"] == (
        '<file path="a.instructions.md">\nBe terse.\n</file>\n\n<file path="b.instructions.md">\nCite sources.\n</file>'
    )
    assert c["agent"]["guidelines"] == c["lm"]["guidelines"]
    assert c["guideline_paths"] == ["prompts/a.instructions.md", "rules/b.instructions.md"]
    assert c["file_paths"] == ["prompts/a.instructions.md", "rules/b.instructions.md"]


def test_guidelines_with_the_same_basename_collide(make_repo):
    repo = make_repo(
        {"x/style.instructions.md": "X rules", "y/style.instructions.md": "Y rules"},
        patterns=GLOB_INSTRUCTIONS,
    )
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: x/style.instructions.md
            - type: file
              value: y/style.instructions.md
            - type: text
              value: Go
        """
    )
    assert c["lm"]["guidelines"] == (
        '<file path="style.instructions.md">\nX rules\n</file>\n\n'
        '<file path="style.instructions.md">\nY rules\n</file>'
    )


def test_guidelines_empty_string_without_guideline_files(repo):
    c = repo.case_with("- role: user\n  content: Q\n")
    assert c["lm"]["guidelines"] == ""
    assert c["guideline_paths"] == []


def test_without_config_nothing_is_a_guideline(repo):
    repo.write("a.instructions.md", "A")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: a.instructions.md
            - type: text
              value: Go
        """
    )
    assert c["lm"]["question"] == '<file path="a.instructions.md">\nA\n</file>\n\nGo'
    assert c["lm"]["guidelines"] == ""
    assert c["guideline_paths"] == []


def test_flat_mode_extracted_guideline_leaves_no_marker(make_repo):
    repo = make_repo({"g.instructions.md": "G"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        """
        - role: system
          content:
            - type: file
              value: g.instructions.md
        - role: user
          content: Help me
        """
    )
    assert c["lm"]["question"] == "Help me"
    assert c["lm"]["chatPrompt"] is None
    assert c["lm"]["guidelines"] == '<file path="g.instructions.md">\nG\n</file>'


def test_attached_marker_uses_raw_value_in_role_marker_mode(make_repo):
    repo = make_repo({"prompts/y.instructions.md": "Y"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Do it
            - type: file
              value: /prompts/y.instructions.md
        - role: assistant
          content: ok
        - role: user
          content: more
        """
    )
    assert c["lm"]["question"] == (
        "@[User]:\nDo it\n<Attached: /prompts/y.instructions.md>\n\n@[Assistant]:\nok\n\n@[User]:\nmore"
    )
    assert c["guideline_paths"] == ["prompts/y.instructions.md"]
    assert c["lm"]["chatPrompt"] == chat(
        ("system", '[[ ## Guidelines ## ]]\n\n<file path="y.instructions.md">\nY\n</file>'),
        ("user", "Do it"),
        ("assistant", "ok"),
        ("user", "more"),
    )


def test_guideline_only_turn_disappears_with_its_marker(make_repo):
    repo = make_repo({"g.instructions.md": "G"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: g.instructions.md
        - role: assistant
          content: ok
        - role: user
          content: next
        """
    )
    assert c["lm"]["question"] == "@[Assistant]:\nok\n\n@[User]:\nnext"
    assert c["lm"]["chatPrompt"] == chat(
        ("system", '[[ ## Guidelines ## ]]\n\n<file path="g.instructions.md">\nG\n</file>'),
        ("assistant", "ok"),
        ("user", "next"),
    )


def test_guideline_ref_in_leading_system_renders_attached_after_guidelines_block(make_repo):
    repo = make_repo({"g.instructions.md": "G"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        """
        - role: system
          content:
            - type: text
              value: Rule one
            - type: file
              value: g.instructions.md
        - role: system
          content: Rule two
        - role: user
          content: Q
        - role: assistant
          content: A
        """
    )
    assert c["lm"]["chatPrompt"] == chat(
        (
            "system",
            '[[ ## Guidelines ## ]]\n\n<file path="g.instructions.md">\nG\n</file>\n\n'
            "Rule one\n<Attached: g.instructions.md>\n\nRule two",
        ),
        ("user", "Q"),
        ("assistant", "A"),
    )
    assert c["lm"]["question"] == (
        "@[System]:\nRule one\n<Attached: g.instructions.md>\n\n@[System]:\nRule two\n\n"
        "@[User]:\nQ\n\n@[Assistant]:\nA"
    )


def test_guideline_ref_dropped_from_later_chat_messages(make_repo):
    repo = make_repo({"g.instructions.md": "G"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Check
            - type: file
              value: g.instructions.md
        - role: assistant
          content: ok
        """
    )
    assert c["lm"]["question"] == "@[User]:\nCheck\n<Attached: g.instructions.md>\n\n@[Assistant]:\nok"
    assert c["lm"]["chatPrompt"] == chat(
        ("system", '[[ ## Guidelines ## ]]\n\n<file path="g.instructions.md">\nG\n</file>'),
        ("user", "Check"),
        ("assistant", "ok"),
    )


def test_guideline_ref_dropped_when_raw_value_has_dotdot(make_repo):
    repo = make_repo({"prompts/x.instructions.md": "X"}, patterns=GLOB_INSTRUCTIONS)
    repo.one_case(
        """
        - role: user
          content:
            - type: text
              value: Use it
            - type: file
              value: ../prompts/x.instructions.md
        - role: assistant
          content: ok
        """,
        name="evals/eval.yaml",
    )
    c = repo.case(0, "evals/eval.yaml")
    assert c["guideline_paths"] == ["prompts/x.instructions.md"]
    assert c["lm"]["guidelines"] == '<file path="x.instructions.md">\nX\n</file>'
    assert c["lm"]["question"] == "@[User]:\nUse it\n\n@[Assistant]:\nok"
    assert c["lm"]["chatPrompt"] == chat(
        ("system", '[[ ## Guidelines ## ]]\n\n<file path="x.instructions.md">\nX\n</file>'),
        ("user", "Use it"),
        ("assistant", "ok"),
    )


def test_dot_slash_guideline_value_leaves_no_marker(make_repo):
    repo = make_repo({"x.instructions.md": "X"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Use it
            - type: file
              value: ./x.instructions.md
        - role: assistant
          content: ok
        """
    )
    assert c["guideline_paths"] == ["x.instructions.md"]
    assert c["lm"]["question"] == "@[User]:\nUse it\n\n@[Assistant]:\nok"


def test_content_lost_when_builder_matches_but_loader_does_not(make_repo):
    repo = make_repo({"evals/prompts/style.md": "Use tabs."}, patterns=["prompts/**"])
    repo.one_case(
        """
        - role: user
          content:
            - type: text
              value: Format this
            - type: file
              value: prompts/style.md
        - role: assistant
          content: ok
        """,
        name="evals/eval.yaml",
    )
    c = repo.case(0, "evals/eval.yaml")
    assert c["guideline_paths"] == []
    assert c["file_paths"] == ["evals/prompts/style.md"]
    assert c["lm"]["question"] == "@[User]:\nFormat this\n<Attached: prompts/style.md>\n\n@[Assistant]:\nok"
    assert c["lm"]["guidelines"] == ""
    assert c["lm"]["chatPrompt"] == chat(("user", "Format this"), ("assistant", "ok"))
    for mode in ("lm", "agent"):
        assert "Use tabs." not in repr(c[mode])


def test_content_lost_in_flat_mode_too(make_repo):
    repo = make_repo({"evals/prompts/style.md": "Use tabs."}, patterns=["prompts/**"])
    repo.one_case(
        """
        - role: user
          content:
            - type: text
              value: Format this
            - type: file
              value: prompts/style.md
        """,
        name="evals/eval.yaml",
    )
    c = repo.case(0, "evals/eval.yaml")
    assert c["lm"]["question"] == "Format this\n\n<Attached: prompts/style.md>"
    assert c["agent"]["question"] == "Format this\n\n<Attached: prompts/style.md>"


def test_double_star_does_not_match_dot_directories(make_repo):
    repo = make_repo({".cursor/rules/x.instructions.md": "X"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Go
            - type: file
              value: .cursor/rules/x.instructions.md
        """
    )
    assert c["guideline_paths"] == []
    assert c["lm"]["question"] == 'Go\n\n<file path=".cursor/rules/x.instructions.md">\nX\n</file>'


def test_explicit_dot_directory_pattern_matches(make_repo):
    repo = make_repo({".github/copilot.md": "C"}, patterns=[".github/**"])
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Go
            - type: file
              value: .github/copilot.md
        """
    )
    assert c["guideline_paths"] == [".github/copilot.md"]
    assert c["lm"]["question"] == "Go"
    assert c["lm"]["guidelines"] == '<file path="copilot.md">\nC\n</file>'


def test_guideline_in_expected_messages_is_not_extracted(make_repo):
    repo = make_repo({"g.instructions.md": "G\n"}, patterns=GLOB_INSTRUCTIONS)
    c = repo.case_with(
        "- role: user\n  content: Q\n",
        expected="""
        - role: assistant
          content:
            - type: file
              value: g.instructions.md
        """,
    )
    assert c["guideline_paths"] == []
    assert c["reference_answer"] == '<file path="g.instructions.md">\nG\n</file>'


# -- chatPrompt (§4.6, §5.7) --------------------------------------------------------------------


def test_only_leading_system_messages_merge_into_chat_system(repo):
    c = repo.case_with(
        """
        - role: system
          content: A
        - role: system
          content: B
        - role: user
          content: U1
        - role: system
          content: C
        - role: user
          content: U2
        """
    )
    assert c["lm"]["chatPrompt"] == chat(
        ("system", "A\n\nB"), ("user", "U1"), ("assistant", "@[System]:\nC"), ("user", "U2")
    )
    # in the question, system messages stay where they are
    assert (
        c["lm"]["question"]
        == "@[System]:\nA\n\n@[System]:\nB\n\n@[User]:\nU1\n\n@[System]:\nC\n\n@[User]:\nU2"
    )


def test_tool_message_becomes_assistant_with_tool_marker(repo):
    c = repo.case_with(
        """
        - role: user
          content: Run it
        - role: tool
          content: exit 0
        - role: user
          content: ok?
        """
    )
    assert c["lm"]["chatPrompt"] == chat(
        ("user", "Run it"), ("assistant", "@[Tool]:\nexit 0"), ("user", "ok?")
    )
    assert c["lm"]["question"] == "@[User]:\nRun it\n\n@[Tool]:\nexit 0\n\n@[User]:\nok?"


def test_empty_midconversation_system_still_yields_assistant_marker(repo):
    c = repo.case_with(
        """
        - role: user
          content: hi
        - role: assistant
          content: ok
        - role: system
          content: ""
        - role: user
          content: more
        """
    )
    assert c["lm"]["chatPrompt"] == chat(
        ("user", "hi"), ("assistant", "ok"), ("assistant", "@[System]:"), ("user", "more")
    )
    assert c["lm"]["question"] == "@[User]:\nhi\n\n@[Assistant]:\nok\n\n@[User]:\nmore"


def test_empty_tool_message_yields_tool_marker_alone(repo):
    c = repo.case_with(
        """
        - role: user
          content: q
        - role: tool
          content: []
        """
    )
    assert c["lm"]["chatPrompt"] == chat(("user", "q"), ("assistant", "@[Tool]:"))
    assert c["lm"]["question"] == "@[User]:\nq"


def test_agent_mode_chat_prompt_uses_file_references(repo):
    repo.write("log.txt", "boom\n")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: text
              value: Why?
            - type: file
              value: log.txt
        - role: assistant
          content: Look
        """
    )
    assert c["lm"]["chatPrompt"] == chat(
        ("user", 'Why?\n<file path="log.txt">\nboom\n</file>'), ("assistant", "Look")
    )
    assert c["agent"]["chatPrompt"] == chat(("user", 'Why?\n<file: path="log.txt">'), ("assistant", "Look"))


def test_chat_prompt_null_when_no_message_renders_anything(repo):
    repo.write("empty.txt", "")
    c = repo.case_with(
        """
        - role: user
          content:
            - type: file
              value: empty.txt
        - role: assistant
          content: ""
        """
    )
    assert c["role_markers"] is True
    assert c["lm"]["question"] == ""
    assert c["lm"]["chatPrompt"] is None
    assert c["agent"]["chatPrompt"] == chat(("user", '<file: path="empty.txt">'))


def test_missing_guideline_file_at_build_time_warns_and_is_left_out(make_repo):
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v2.loader import load_case
    from agentv_lsp.formats.v2.prompt import read_guidelines

    repo = make_repo({"a.instructions.md": "A", "b.instructions.md": "B"}, patterns=GLOB_INSTRUCTIONS)
    repo.one_case(
        """
        - role: user
          content:
            - type: file
              value: a.instructions.md
            - type: file
              value: b.instructions.md
        """
    )
    case = load_case(repo.open(), 0).case
    (repo.root / "a.instructions.md").unlink()
    notices = []
    assert read_guidelines(case, FileSystem(), notices) == '<file path="b.instructions.md">\nB\n</file>'
    assert [n.render() for n in notices] == [
        f"Warning: Could not read guideline file {repo.root}/a.instructions.md: file does not exist"
    ]


# -- the worked examples of agentv-v2.md §5.9 ------------------------------------------------------------


def worked_example_repo(make_repo):
    return make_repo(
        {"evals/rules.instructions.md": "Be terse.\r\n", "evals/code.py": "print(1)\n"},
        patterns=GLOB_INSTRUCTIONS,
    )


def test_worked_example_a_multi_turn(make_repo):
    from agentv_lsp.formats.v2.loader import load_case

    repo = worked_example_repo(make_repo)
    repo.one_case(
        """
        - role: system
          content: You review code.
        - role: user
          content:
            - type: file
              value: rules.instructions.md
            - type: text
              value: Review this
            - type: file
              value: code.py
        - role: assistant
          content: Which part?
        - role: user
          content: All of it.
        """,
        name="evals/r.yaml",
    )
    c = repo.case(0, "evals/r.yaml")
    assert c["lm"]["guidelines"] == '<file path="rules.instructions.md">\nBe terse.\n</file>'
    assert c["lm"]["question"] == (
        "@[System]:\nYou review code.\n\n"
        "@[User]:\n<Attached: rules.instructions.md>\nReview this\n"
        '<file path="code.py">\nprint(1)\n</file>\n\n'
        "@[Assistant]:\nWhich part?\n\n"
        "@[User]:\nAll of it."
    )
    assert c["agent"]["question"] == (
        "@[System]:\nYou review code.\n\n"
        "@[User]:\n<Attached: rules.instructions.md>\nReview this\n"
        '<file: path="code.py">\n\n'
        "@[Assistant]:\nWhich part?\n\n"
        "@[User]:\nAll of it."
    )
    assert c["lm"]["chatPrompt"] == chat(
        (
            "system",
            '[[ ## Guidelines ## ]]\n\n<file path="rules.instructions.md">\nBe terse.\n</file>\n\nYou review code.',
        ),
        ("user", 'Review this\n<file path="code.py">\nprint(1)\n</file>'),
        ("assistant", "Which part?"),
        ("user", "All of it."),
    )
    assert (
        load_case(repo.open("evals/r.yaml"), 0).case.question
        == "You review code. Review this Which part? All of it."
    )


def test_worked_example_b_flat_with_fence_and_file(make_repo):
    repo = worked_example_repo(make_repo)
    repo.one_case(
        """
        - role: user
          content:
            - type: text
              value: |
                Fix:
                ```js
                x()
                ```
            - type: file
              value: code.py
        """,
        name="evals/r.yaml",
    )
    c = repo.case(0, "evals/r.yaml")
    assert c["lm"]["question"] == (
        'Fix:\n```js\nx()\n```\n\n<file path="code.py">\nprint(1)\n</file>\n\n```js\nx()\n```'
    )
    assert c["lm"]["chatPrompt"] is None


def test_worked_example_d_later_system_and_tool_become_assistant(repo):
    c = repo.case_with(
        """
        - role: user
          content: hi
        - role: assistant
          content: ok
        - role: system
          content: Note
        - role: tool
          content: res
        """
    )
    assert c["lm"]["chatPrompt"] == chat(
        ("user", "hi"), ("assistant", "ok"), ("assistant", "@[System]:\nNote"), ("assistant", "@[Tool]:\nres")
    )


def test_worked_example_e_guideline_only_system_turn_gives_flat_question(make_repo):
    repo = worked_example_repo(make_repo)
    repo.one_case(
        """
        - role: system
          content:
            - type: file
              value: rules.instructions.md
        - role: user
          content: Help
        """,
        name="evals/r.yaml",
    )
    c = repo.case(0, "evals/r.yaml")
    assert (c["lm"]["question"], c["lm"]["chatPrompt"]) == ("Help", None)
    assert c["lm"]["guidelines"] == '<file path="rules.instructions.md">\nBe terse.\n</file>'
