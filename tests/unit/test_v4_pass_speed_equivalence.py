"""The per-test fast paths of the 4.x passes (lint, losses, validate) agree with the general
paths they stand in for, on generated input of every shape.

- yamlpos reads a quoted key, or a plain word, as its text without resolving it: the same
  JavaScript key as the full resolution, whatever way the key is written (quoted, tagged,
  explicit `?`, flow style, numbers, null and booleans, through aliases and merge keys), so
  lint's `expected_output` ranges are found as from the root;
- losses passes over the usual input message (a role and string content) without a call:
  the findings (texts, places, order) and any exception are those of the general
  `messages(_messages(...))` path;
- validate skips the field, assertion, conversation and workspace checks for a test whose
  keys are all plain fields: those checks have nothing to say about such a test.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4 import lint, losses, validate
from agentv_lsp.formats.v4.yamlbom import parse_yaml_v4
from agentv_lsp.yamlpos import Span
from agentv_lsp.yamlpos.document import _js_key, _key_string, _scalar_value

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- lint: the key of `expected_output` ----------------------------------------------------------

KEY_SPELLINGS = (
    "expected_output",
    '"expected_output"',
    "'expected_output'",
    "!!str expected_output",
    '"expected\\x5foutput"',
    "expected_outputs",
    "Expected_output",
    "expected_output ",  # trailing space: the plain key is still `expected_output`
    "1",
    "1.0",
    "0x1",
    "null",
    "~",
    "true",
    "-x",
    ".inf",
)


@st.composite
def block_test(draw: st.DrawFn, index: int) -> str:
    lines = [f"  - id: t{index}"]
    if draw(st.booleans()):
        lines.append("    input: hi")
    for spelling in draw(st.lists(st.sampled_from(KEY_SPELLINGS), max_size=2, unique=True)):
        if draw(st.booleans()):
            lines.append(f"    {spelling}: answer")
        else:  # an explicit key
            lines.append(f"    ? {spelling}\n    : answer")
    if draw(st.booleans()):
        lines.append("    assertions: [{type: contains, value: a}]")
    return "\n".join(lines)


@st.composite
def suite_text(draw: st.DrawFn) -> str:
    tests = [draw(block_test(i)) for i in range(draw(st.integers(0, 4)))]
    extra = draw(
        st.sampled_from(
            [
                "",
                "  - {id: f, expected_output: flow, input: hi}",
                '  - {id: g, "expected_output": flow}',
                "  - <<: {expected_output: merged}\n    id: m",
                "  - &shared\n    id: s\n    expected_output: x\n  - *shared",
                "  - just a string",
                "  -\n    - a list",
            ]
        )
    )
    body = "\n".join([*tests, extra]).rstrip()
    return "description: d\ntests:\n" + body + "\n" if body else "description: d\ntests: []\n"


@SETTINGS
@given(suite_text())
def test_keys_read_as_their_text_only_where_resolution_agrees(text: str) -> None:
    doc = parse_yaml_v4(text)
    if doc.error is not None or not isinstance(doc.value, dict):
        return  # e.g. two spellings of one key: a duplicate-key error, not linted
    pending: list[Any] = [doc.root]
    while pending:
        node = pending.pop()
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode):
                    assert _key_string(key) == _js_key(_scalar_value(key)), key
                pending.extend((key, value))
        elif isinstance(node, SequenceNode):
            pending.extend(node.value)
    for diagnostic in lint.lint_v4("/tmp/suite.eval.yaml", doc):
        if diagnostic.code == "v4-lint-no-assertions":
            assert diagnostic.span == doc.span_of(diagnostic.yaml_path, key=True)


# -- losses: the usual input message -------------------------------------------------------------

# a list role is unhashable: the general path raises, so must the fast one (rarely drawn: an
# exception hides everything else in the list)
ROLES = st.sampled_from(["system", "user", "assistant", "tool", "System", "", None, 1] * 4 + [["user"]])
SEGMENTS = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["text", "file", "image", "imgae", "video"]) | st.none() | st.just(3),
        "value": st.sampled_from(["", "x.png", "text"]) | st.none(),
        "path": st.just("p.png"),
    },
)
CONTENT = st.one_of(
    st.sampled_from(["hello", "", "@[User]: hi"]),
    st.lists(st.one_of(SEGMENTS, st.just("text item"), st.just(5)), max_size=3),
    st.none(),
    st.just({"type": "text", "value": "x"}),
    st.just(7),
)
MESSAGES = st.lists(
    st.one_of(
        st.fixed_dictionaries(  # the usual message, or nearly
            {"role": st.sampled_from(["system", "user", "assistant"]), "content": st.just("hello")},
            optional={"tool_calls": st.just([{"name": "f"}]), "contents": st.just("typo")},
        ),
        st.fixed_dictionaries(
            {},
            optional={
                "role": ROLES,
                "content": CONTENT,
                "tool_calls": st.sampled_from([[{"name": "f"}], [], None, "x"]),
                "contents": st.just("typo"),
                "name": st.just("n"),
            },
        ),
        st.just("a string"),
        st.none(),
    ),
    max_size=5,
)


def _findings(run: Any) -> tuple[str, Any]:
    try:
        found: list[Diagnostic] = run()
    except Exception as exc:  # the general path's exceptions are part of its behaviour
        return "raised", (type(exc).__name__, str(exc))
    return "found", [(d.code, d.severity, d.message, d.yaml_path, repr(d.data)) for d in found]


@SETTINGS
@given(MESSAGES, st.booleans())
def test_losses_input_fast_path_matches_the_general_one(messages: list[Any], started: bool) -> None:
    def span_of(where: Any, key: bool) -> Span:
        return Span(len(where), int(key), 0, 0)

    def general() -> list[Diagnostic]:
        finder = losses._Finder("/tmp/s.eval.yaml", span_of, {})
        finder.messages(losses._messages(messages, ("tests", 0, "input")), started)
        return finder.found

    def fast() -> list[Diagnostic]:
        finder = losses._Finder("/tmp/s.eval.yaml", span_of, {})
        finder.input_list(messages, ("tests", 0, "input"), started)
        return finder.found

    assert _findings(fast) == _findings(general)


# -- validate: plain tests -----------------------------------------------------------------------

PLAIN_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.just([]), st.just({})
)


@SETTINGS
@given(
    st.dictionaries(
        st.sampled_from(sorted(validate._PLAIN_TEST_FIELDS)),
        PLAIN_VALUES,
        max_size=6,
    )
)
def test_validate_skips_only_checks_that_find_nothing(test: dict[str, Any]) -> None:
    validator = validate._EvalValidator("/tmp/s.eval.yaml", FileSystem(), {})
    base = ("tests", 0)
    validator.test_fields(test, base)
    validator.conversation(test, base)
    validator.workspace_config(test, (*base, "workspace"), (*base, "workspace"), True)
    assert validator.out == []
    assert "assertions" not in test  # its check runs whenever the key is there
