"""YAML as AgentV's parser (eemeli/yaml 2.x `parse()`, YAML 1.2 core schema) reads it, with
source positions.

Rules from `agentv-v2.md` (conventions) and eemeli/yaml itself: duplicate keys and several
documents are errors, `yes`/`on`/dates stay strings, a block scalar at the end of the file
keeps its line break, and the alias limit is eemeli's `maxAliasCount` (100): every anchor's
use count starts at 1 at its definition, and an alias fails when uses x weight > 100, where
a scalar weighs 1 and a collection weighs its heaviest child (an aliased child weighing its
anchor's uses x weight at that moment).
"""

from __future__ import annotations

import time

import pytest

from agentv_lsp.yamlpos import MAX_DEPTH, Span, parse_yaml
from agentv_lsp.yamlpos.document import TOO_DEEP_MESSAGE

EVAL_ONE_CASE = "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: o\n    input_messages:\n"


def value_of(text: str):
    doc = parse_yaml(text)
    assert doc.error is None, doc.error
    return doc.value


def error_of(text: str):
    doc = parse_yaml(text)
    assert doc.error is not None, f"expected an error, got {doc.value!r}"
    return doc.error


# -- scalars and documents ----------------------------------------------------------------------------


def test_block_scalar_at_eof_keeps_newline():
    assert value_of("a: |\n  x") == {"a": "x\n"}
    assert value_of("a: >\n  x\n  y") == {"a": "x y\n"}
    assert value_of("a: |-\n  x") == {"a": "x"}
    assert value_of("a: |\r\n  x") == {"a": "x\n"}


def test_keep_chomping_keeps_all_trailing_newlines():
    assert value_of("a: |+\n  x\n\n") == {"a": "x\n\n"}


def test_yes_on_dates_stay_strings():
    text = "a: yes\nb: on\nc: 2025-01-01\nd: no\ne: off\nf: y\ng: 1:30\nh: 0b101\ni: 1_000\nj: tRUE\n"
    assert value_of(text) == {
        "a": "yes",
        "b": "on",
        "c": "2025-01-01",
        "d": "no",
        "e": "off",
        "f": "y",
        "g": "1:30",
        "h": "0b101",
        "i": "1_000",
        "j": "tRUE",
    }


def test_core_schema_numbers_booleans_and_nulls():
    value = value_of(
        "a: 001\nb: 017\nc: 0o17\nd: 0x1F\ne: +12\nf: .5\ng: 1e3\nh: ~\ni: Null\nj: TRUE\nk: False\nl:\nm: -.inf\n"
    )
    assert value == {
        "a": 1,
        "b": 17,
        "c": 15,
        "d": 31,
        "e": 12,
        "f": 0.5,
        "g": 1000,
        "h": None,
        "i": None,
        "j": True,
        "k": False,
        "l": None,
        "m": float("-inf"),
    }
    assert type(value["j"]) is bool


def test_quoted_and_explicitly_tagged_scalars():
    assert value_of("a: '001'\nb: !!str 5\nc: !!int '5'\nd: !custom 5\n") == {
        "a": "001",
        "b": "5",
        "c": 5,
        "d": "5",
    }


def test_duplicate_keys_are_load_error():
    err = error_of("a: 1\nb: 2\na: 3\n")
    assert err.kind == "duplicate-key"
    assert err.message.startswith("Map keys must be unique")
    assert (err.span.start_line, err.span.start_col) == (2, 0)


def test_duplicate_keys_compare_scalar_values_like_javascript():
    # eemeli/yaml compares the parsed scalar values (`a.value === b.value`): 1 and 1.0 are
    # the same number, 0x1 is 1 too, while 1 and "1" differ (the object keeps one key "1").
    assert error_of("1: a\n1.0: b\n").kind == "duplicate-key"
    assert error_of("0x1: a\n1: b\n").kind == "duplicate-key"
    assert error_of("true: a\nTrue: b\n").kind == "duplicate-key"
    assert value_of("1: a\n'1': b\n") == {"1": "b"}


def test_duplicate_keys_inside_anchored_documents_too():
    assert error_of("x: &a 1\na: 1\na: 2\ny: *a\n").kind == "duplicate-key"


def test_multi_document_is_load_error():
    assert error_of("a: 1\n---\nb: 2\n").kind == "multiple-documents"
    assert error_of("a: 1\n---\n").kind == "multiple-documents"
    assert value_of("---\na: 1\n...\n") == {"a": 1}


def test_duplicate_key_and_multiple_documents_fail_the_eval_file(repo):
    repo.write("eval.yaml", "$schema: agentv-eval-v2\n$schema: agentv-eval-v2\nevalcases: []\n")
    assert repo.preview()["load_error"].startswith("Map keys must be unique")
    repo.write("eval.yaml", "$schema: agentv-eval-v2\nevalcases: []\n---\n$schema: agentv-eval-v2\n")
    assert repo.preview()["load_error"] is not None


def test_syntax_error_is_data_with_a_position():
    err = error_of('a: "unclosed\nb: 1\n')
    assert err.kind == "syntax"
    assert err.span.start_line >= 0
    assert "at line" in err.describe()


def test_utf8_bom_is_ignored(repo):
    repo.write("eval.yaml", b"\xef\xbb\xbf$schema: agentv-eval-v2\nevalcases: []\n")
    assert repo.preview()["load_error"] is None


def test_numeric_keys_are_ordered_like_a_javascript_object():
    assert list(value_of("b: 1\n10: x\n2: y\na: z\n").keys()) == ["2", "10", "b", "a"]


def test_merge_key_is_an_ordinary_key_in_yaml_1_2():
    assert value_of("base: &b {x: 1}\nd:\n  <<: *b\n") == {"base": {"x": 1}, "d": {"<<": {"x": 1}}}


def test_null_and_boolean_keys_become_javascript_strings():
    assert list(value_of("~: a\ntrue: b\n3: c\n").items()) == [("3", "c"), ("", "a"), ("true", "b")]


# -- aliases -------------------------------------------------------------------------------------------------


def aliases(anchor_value: str, n: int) -> str:
    return f"a: &x {anchor_value}\nl: [" + ", ".join(["*x"] * n) + "]\n"


def test_alias_count_limit_matches_runtime():
    # a scalar weighs 1; its use count starts at 1, so 99 aliases give 100 (allowed) ...
    assert len(value_of(aliases("v", 99))["l"]) == 99
    # ... and 100 aliases of one scalar already fail (101 x 1 > 100)
    err = error_of(aliases("v", 100))
    assert err.kind == "alias-limit"
    assert err.message.startswith("Excessive alias count indicates a resource exhaustion attack")


def test_alias_weight_of_a_collection_is_its_heaviest_aliased_child():
    # b holds 9 aliases of a: a's count is 10, so b weighs 10 x 1 = 10 when first aliased.
    # Aliasing b k times gives (k + 1) x 10: 9 aliases reach 100 (allowed), 10 reach 110.
    base = "a: &a x\nb: &b [" + ", ".join(["*a"] * 9) + "]\nc: ["
    assert len(value_of(base + ", ".join(["*b"] * 9) + "]\n")["c"]) == 9
    assert error_of(base + ", ".join(["*b"] * 10) + "]\n").kind == "alias-limit"


def test_collection_of_plain_scalars_weighs_one():
    assert len(value_of(aliases("[1, 2, 3]", 99))["l"]) == 99
    assert error_of(aliases("[1, 2, 3]", 100)).kind == "alias-limit"


def test_empty_collection_weighs_nothing():
    assert len(value_of(aliases("[]", 150))["l"]) == 150


def test_undefined_alias_is_an_error():
    assert parse_yaml("a: *nope\n").error is not None


# -- depth ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        "{a: " * 30_000 + "1" + "}" * 30_000,
        "[" * 4_999 + "]" * 4_999,
        "".join(" " * i + "k:\n" for i in range(1_100)) + " " * 1_100 + "v\n",
    ],
    ids=["flow-100k", "flow-map-30k", "short-5k", "block-1100"],
)
def test_deep_nesting_rejected_quickly(text):
    started = time.monotonic()
    doc = parse_yaml(text)
    elapsed = time.monotonic() - started
    assert doc.error is not None
    assert doc.error.kind == "too-deep"
    assert f"deeper than {MAX_DEPTH}" in doc.error.message
    assert elapsed < 5, f"took {elapsed:.1f}s"


def test_moderate_nesting_is_fine():
    value = value_of("[" * 200 + "1" + "]" * 200)
    for _ in range(200):
        value = value[0]
    assert value == 1


def test_deep_yaml_eval_file_gives_a_load_error_not_a_crash(repo):
    repo.write("eval.yaml", "$schema: agentv-eval-v2\nevalcases: " + "[" * 50_000 + "]" * 50_000 + "\n")
    result = repo.preview()
    assert "deeper than" in result["load_error"]
    assert result["cases"] == []


# -- positions (0-based lines, code-point columns) ---------------------------------------------------------

SAMPLE = (
    "$schema: agentv-eval-v2\n"  # 0
    "evalcases:\n"  # 1
    '  - id: "é😀x"\n'  # 2
    "    outcome: |\n"  # 3
    "      line1\n"  # 4
    "      line2\n"  # 5
    '    note: {a: "😀é", b: x}\n'  # 6
    "    input_messages: []\n"  # 7
)


@pytest.fixture(scope="module")
def sample():
    doc = parse_yaml(SAMPLE)
    assert doc.error is None
    return doc


def test_span_of_a_value(sample):
    assert sample.span_of(("evalcases", 0, "id")) == Span(2, 8, 2, 13)


def test_span_of_a_key(sample):
    assert sample.span_of(("evalcases", 0, "id"), key=True) == Span(2, 4, 2, 6)
    assert sample.span_of(("$schema",), key=True) == Span(0, 0, 0, 7)


def test_span_columns_count_code_points_not_bytes_or_utf16(sample):
    # `    note: {a: "😀é", b: x}`: b is the 21st code point (the emoji is one column)
    assert sample.span_of(("evalcases", 0, "note", "b"), key=True) == Span(6, 20, 6, 21)
    assert sample.span_of(("evalcases", 0, "note", "b")) == Span(6, 23, 6, 24)


def test_span_of_a_multi_line_block_scalar_covers_the_block(sample):
    assert sample.span_of(("evalcases", 0, "outcome")) == Span(3, 13, 6, 0)


def test_span_of_a_multi_line_collection_is_its_first_character(sample):
    assert sample.span_of(("evalcases",)) == Span(2, 2, 2, 3)
    assert sample.span_of(("evalcases", 0)) == Span(2, 4, 2, 5)


def test_span_of_a_flow_collection_on_one_line_is_whole(sample):
    assert sample.span_of(("evalcases", 0, "input_messages")) == Span(7, 20, 7, 22)
    assert sample.span_of(("evalcases", 0, "note")) == Span(6, 10, 6, 25)


def test_span_of_a_missing_key_points_at_the_parent_entry(sample):
    # inside a mapping that is a sequence item: the start of that mapping
    assert sample.span_of(("evalcases", 0, "expected_messages")) == Span(2, 4, 2, 5)
    # inside a mapping that is a key's value: that key
    assert sample.span_of(("evalcases", 0, "note", "zz")) == Span(6, 4, 6, 8)
    # at the top level: the start of the document
    assert sample.span_of(("dataset",)) == Span(0, 0, 0, 1)


def test_span_of_a_missing_index_falls_back_to_the_collection(sample):
    assert sample.span_of(("evalcases", 5)) == Span(2, 2, 2, 3)


def test_node_at_and_key_node_at(sample):
    assert sample.node_at(("evalcases", 0, "id")).value == "é😀x"
    assert sample.key_node_at(("evalcases", 0)) is None
    assert sample.node_at(("nope", 0)) is None


def test_unicode_line_separators_are_ordinary_characters():
    # YAML 1.2 (eemeli/yaml) breaks lines only at LF and CR; YAML 1.1 also broke at NEL,
    # LS and PS. Text pasted from the web often carries U+2028.
    doc = parse_yaml("a: x\u2028y\nb: 'p\u2029q'\nc: |\n  r\x85s\nd: 1\n")
    assert doc.error is None, doc.error
    assert doc.value == {"a": "x\u2028y", "b": "p\u2029q", "c": "r\x85s\n", "d": 1}
    assert doc.span_of(("d",), key=True) == Span(4, 0, 4, 1)


def test_line_separator_in_an_eval_file_loads(repo):
    # written directly: textwrap (used by the helpers) would split lines at U+2028 too
    repo.write("eval.yaml", EVAL_ONE_CASE + "      - role: user\n        content: First\u2028second\n")
    assert repo.case()["lm"]["question"] == "First\u2028second"


def test_control_characters_are_kept_like_eemeli_yaml():
    # eemeli/yaml 2.8.1 keeps them as ordinary characters (checked with the library itself);
    # libyaml alone would refuse the whole text.
    assert value_of("a: b\x1b[31mc\n") == {"a": "b\x1b[31mc"}
    assert value_of("a: |\n  x\x1b[0m\n") == {"a": "x\x1b[0m\n"}
    assert value_of('a: "q\x07"\n') == {"a": "q\x07"}
    assert value_of("\x1b: 1\n") == {"\x1b": 1}
    assert value_of("a:\n  - b\x00\n") == {"a": ["b\x00"]}
    assert value_of("a: b\x0cc\n") == {"a": "b\x0cc"}


# -- indentation rules of eemeli/yaml's lexer that libyaml does not have -----------------------------------
# Every expectation below was checked against eemeli/yaml 2.8.1, the version AgentV 903e156c2 locks.


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ('a:\n  b: "x\n  y"\n', 2, 2),
        ("a: 'x\ny'\n", 1, 0),
        ('- "x\ny"\n', 1, 0),
        ("evalcases:\n  - id: c\n    outcome: 'Says\n    hi'\n", 3, 4),
    ],
)
def test_quoted_string_lines_must_be_indented_more_than_their_key(text, line, col):
    err = error_of(text)
    assert err.kind == "syntax"
    assert err.message.startswith("Missing closing ")
    assert (err.span.start_line, err.span.start_col) == (line, col)


def test_quoted_string_lines_indented_more_than_their_key_are_fine():
    assert value_of('a:\n  b: "x\n   y"\n') == {"a": {"b": "x y"}}
    assert value_of('a: "x\n\n  y"\n') == {"a": "x\ny"}
    assert value_of('- "x\n y"\n') == ["x y"]
    assert value_of('"whole\ndoc"\n') == "whole doc"


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ("a: [\n1\n]\n", 1, 0),
        ("a:\n  b: [\n    1\n ]\n", 3, 1),
        ("x:\n  - {role: user,\n  content: hi}\n", 2, 2),
        ("a: {b: [\n1]}\n", 1, 0),
        ("evalcases:\n  - id: x\n    input_messages: [\n    {role: user, content: hi}\n    ]\n", 3, 4),
    ],
)
def test_flow_collection_lines_must_be_indented_more_than_their_key(text, line, col):
    err = error_of(text)
    assert err.kind == "syntax"
    assert err.message.startswith("Flow ")
    assert "in block collection must be sufficiently indented" in err.message
    assert (err.span.start_line, err.span.start_col) == (line, col)


def test_flow_collection_closing_bracket_may_sit_at_the_key_column():
    assert value_of("a: [\n  1\n]\n") == {"a": [1]}
    assert value_of(
        "evalcases:\n  - id: x\n    input_messages: [\n      {role: user, content: hi}\n    ]\n"
    ) == {"evalcases": [{"id": "x", "input_messages": [{"role": "user", "content": "hi"}]}]}
    assert value_of("x:\n  - {role: user,\n   content: hi}\n") == {"x": [{"role": "user", "content": "hi"}]}
    assert value_of("a: [\n  x\n  # c\n#c2\n  ]\n") == {"a": ["x"]}
    assert value_of("a: [\n  x,\n  [y,\n  z\n ]]\n") == {"a": ["x", ["y", "z"]]}
    assert value_of("[a,\nb]\n") == ["a", "b"]


UNINDENTED = [
    ('a:\n  b: "x\n  y"\n', "Missing closing "),
    ('- "x\ny"\n', "Missing closing "),
    ("a:\n  b: [\n    1\n ]\n", "Flow "),
    ("x:\n  - {role: user,\n  content: hi}\n", "Flow "),
]


@pytest.mark.parametrize(("text", "start"), UNINDENTED)
def test_unindented_continuations_are_found_with_anchors_in_the_text_too(text, start):
    # With anchors the tree is walked on its own; without, while converting: same answer.
    plain = error_of(text)
    shared = error_of(
        "anchor: &a 1\nalias: *a\n" + text if not text.startswith("-") else text + "- &a 1\n- *a\n"
    )
    assert plain.message.startswith(start) and shared.message == plain.message
    shift = 0 if text.startswith("-") else 2
    assert (shared.span.start_line, shared.span.start_col) == (
        plain.span.start_line + shift,
        plain.span.start_col,
    )


@pytest.mark.parametrize("before", [True, False], ids=["duplicate-first", "duplicate-after"])
def test_an_unindented_continuation_wins_over_a_duplicate_key(before):
    duplicate = "k: 1\nk: 2\n"
    bad = "q: 'x\ny'\n"
    err = error_of(duplicate + bad if before else bad + duplicate)
    assert err.message.startswith("Missing closing 'quote"), err


def test_inside_a_complex_key_both_ways_agree():
    text = "? a: 'x\n y'\n: v\n"
    assert parse_yaml(text).error == parse_yaml(text + "c: &a 1\nd: *a\n").error


def test_unindented_quoted_continuation_fails_the_eval_file(repo):
    repo.write(
        "eval.yaml",
        "$schema: agentv-eval-v2\nevalcases:\n  - id: c\n    outcome: 'Says\n    hi'\n    input_messages: []\n",
    )
    result = repo.preview()
    assert result["load_error"].startswith("Missing closing 'quote")
    assert [d.code for d in repo.check(kind="eval")] == ["yaml-syntax"]


def test_lines_of_only_spaces_and_tabs_are_blank_lines():
    # eemeli/yaml 2.8.1 reads them as blank lines; libyaml alone stops at the tab
    assert value_of("a: 1\n\t\nb: 2\n") == {"a": 1, "b": 2}
    assert value_of("a:\n  - 1\n\t\n  - 2\n") == {"a": [1, 2]}
    assert value_of("  \t\na: 1\n") == {"a": 1}
    assert value_of("a:\n  b: 1\n \t \n  c: 2\n") == {"a": {"b": 1, "c": 2}}
    assert value_of("a: 1\n\t\t\n\t\nb: 2\n") == {"a": 1, "b": 2}


def test_tabs_inside_block_scalars_are_still_read_as_content_or_errors():
    assert value_of("a: |\n  x\n  \t\n  y\n") == {"a": "x\n\t\ny\n"}
    assert error_of("a: |\n  x\n\t\n  y\n").kind == "syntax"


def test_escaped_surrogate_pairs_decode_as_in_eemeli_yaml():
    # what Python's json.dumps writes for non-BMP characters; checked with eemeli/yaml 2.8.1
    text = (
        'a: "\\ud83d\\ude00 ok"\nb: \\ud83d\\ude00\nc: \'\\ud83d\\ude00\'\ne: "caf\\u00e9 \\uD83D\\uDE4F"\n'
    )
    assert value_of(text) == {
        "a": "😀 ok",
        "b": "\\ud83d\\ude00",
        "c": "\\ud83d\\ude00",
        "e": "café 🙏",
    }


# Every nesting shape, just under and just past the limit, short (converted directly) and padded past
# the guard's size threshold (walked event by event first): the same error at the first level past
# MAX_DEPTH, whichever libyaml PyYAML bundles (0.2.6 in PyYAML 6.0.4 stops at 1,000 levels itself).
def _flow(levels: int) -> tuple[str, tuple[int, int]]:
    return "[" * levels + "]" * levels + "\n", (0, MAX_DEPTH)


def _flow_map(levels: int) -> tuple[str, tuple[int, int]]:
    return "{a: " * levels + "1" + "}" * levels + "\n", (0, 4 * MAX_DEPTH)


def _compact(levels: int) -> tuple[str, tuple[int, int]]:
    return "- " * levels + "x\n", (0, 2 * MAX_DEPTH)


def _block_map(levels: int) -> tuple[str, tuple[int, int]]:
    return "".join(" " * i + "k:\n" for i in range(levels)) + " " * levels + "v\n", (MAX_DEPTH, MAX_DEPTH)


def _flow_in_block(levels: int) -> tuple[str, tuple[int, int]]:
    return "a: " + "[" * (levels - 1) + "]" * (levels - 1) + "\n", (0, 3 + MAX_DEPTH - 1)


def _block_seq(levels: int) -> tuple[str, tuple[int, int]]:
    return "".join(" " * (2 * i) + "-\n" for i in range(levels - 1)) + " " * (2 * levels - 2) + "- x\n", (
        MAX_DEPTH,
        2 * MAX_DEPTH,
    )


SHAPES = {
    "flow": _flow,
    "flow-map": _flow_map,
    "compact": _compact,
    "block-map": _block_map,
    "flow-in-block": _flow_in_block,
    "block-seq": _block_seq,
}


@pytest.mark.parametrize("padded", [False, True], ids=["short", "padded"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_depth_limit_is_ours_for_every_shape(shape, padded):
    pad = "#" + "x" * 25_000 + "\n" if padded else ""  # a comment: the text passes the guard's threshold
    under, _ = SHAPES[shape](MAX_DEPTH)
    assert parse_yaml(pad + under).error is None, "nesting of exactly MAX_DEPTH levels loads"
    past, (line, col) = SHAPES[shape](MAX_DEPTH + 1)
    doc = parse_yaml(pad + past)
    assert doc.error is not None and doc.error.kind == "too-deep", doc.error
    assert doc.error.message == TOO_DEEP_MESSAGE
    assert (doc.error.span.start_line, doc.error.span.start_col) == (line + bool(pad), col)


def test_libyamls_own_nesting_error_maps_to_ours():
    """If a PyYAML ever stops us from raising libyaml's limit, its error still reads as ours."""
    binding = pytest.importorskip("yaml._yaml")
    if not hasattr(binding, "_set_max_nest_level"):
        pytest.skip("this libyaml has no nesting limit (before 0.2.6)")
    saved = binding._get_max_nest_level()
    binding._set_max_nest_level(10)
    try:
        doc = parse_yaml("a: " + "[" * 20 + "]" * 20 + "\n")
    finally:
        binding._set_max_nest_level(saved)
    assert doc.error is not None and doc.error.kind == "too-deep"
    assert doc.error.message == TOO_DEEP_MESSAGE


@pytest.mark.parametrize("broken", ["a: [\n", "a: b: c\n", "key: 'open\n"])
def test_a_refused_large_text_leaves_no_cyclic_garbage(broken: str) -> None:
    """A text of 8,000 characters or more is composed in a thread with a large stack; its
    error, raised again in the caller, must not be left in a cycle with the frames of the
    parse. The language server freezes what survives each check (`gcpause`), so such a
    cycle kept every version's model of a document alive: an edit storm grew it by 0.1-0.9 GiB."""
    import gc

    text = "".join(f"k{i}: value {i}\n" for i in range(800)) + broken
    assert len(text) >= 8_000
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            assert parse_yaml(text).error is not None
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
