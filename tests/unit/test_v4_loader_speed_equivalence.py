"""The AgentV 4.x loader's fast paths (formats/v4 loader, grader_parser, runtime) against plain
definitions of what they stand for, on generated inputs.

The runtime redoes everything for every test; the loader keeps what a suite shares (its
input messages, its graders, its checked template references) and takes short cuts for the
usual test. So: a suite must load exactly as its tests do one at a time, and each short cut
must agree with the definition it replaces (`isTestMessage` and the shorthand expansions of
types.ts/shorthand-expansion.ts at v4.42.4, the `$`-escape pattern, a plain substring test).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.jsrt import JS_WHITESPACE
from agentv_lsp.formats.v4 import loader, runtime
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.model import RuntimeMessage, SuiteLoad
from agentv_lsp.formats.v4.runtime import LoadContext

# -- plain definitions (transcribed from the runtime's TypeScript) -------------------------------


def _is_test_message(value: Any) -> bool:
    """`isTestMessage` (types.ts) for parsed YAML/JSON values (a JS object is a dict)."""
    if not isinstance(value, dict):
        return False
    role = value.get("role")
    if not (isinstance(role, str) and role in {"system", "user", "assistant", "tool"}):
        return False
    content = value.get("content")
    if isinstance(content, str):
        return True
    if isinstance(content, list) and all(isinstance(item, str | dict) for item in content):
        return True
    tool_calls = value.get("tool_calls")
    if isinstance(tool_calls, list) and len(tool_calls) > 0:
        return True
    return isinstance(content, dict)


def _expand_input(value: Any) -> list[Any] | None:
    """`expandInputShorthand` (shorthand-expansion.ts)."""
    if value is runtime.MISSING or value is None:
        return None
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if isinstance(value, dict):
        if "role" in value:
            return [value] if _is_test_message(value) else None
        return [{"role": "user", "content": value}]
    if isinstance(value, list):
        return [m for m in value if _is_test_message(m)] or None
    return None


def _expand_expected(value: Any) -> list[Any] | None:
    """`expandExpectedOutputShorthand` (shorthand-expansion.ts)."""
    if value is runtime.MISSING or value is None:
        return None
    if isinstance(value, str):
        return [{"role": "assistant", "content": value}]
    if isinstance(value, list):
        if value and isinstance(value[0], dict) and "role" in value[0]:
            return [m for m in value if _is_test_message(m)] or None
        return [{"role": "assistant", "content": value}]
    if isinstance(value, dict):
        if "role" in value:
            return [value] if _is_test_message(value) else None
        return [{"role": "assistant", "content": value}]
    return None


# -- generated values ------------------------------------------------------------------------------

_TEXTS = ["Hello", "  spaced  ", "", " ", "{{ v }}", "x {{ v.k }} y", "${{ NUM }}", "\u3000ideo\u3000"]
_REFS = ["ctx/a.md", "./ctx/b.txt", "missing.md", "ctx/p.png", "", "ctx"]
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from([1.5, *_TEXTS, "user", "system"])
)
_json = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["role", "content", "type", "value", "k"]), inner, max_size=3)
    ),
    max_leaves=8,
)
_segments = st.one_of(
    st.sampled_from(_TEXTS),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["text", "file", "image", "other", None]),
            "value": st.sampled_from([*_REFS, 3]),
        }
    ),
    _scalars,
)
_messages = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["user", "system", "assistant", "tool", "robot", 3, None]),
        "content": st.one_of(st.sampled_from(_TEXTS), st.lists(_segments, max_size=3), _json),
        "tool_calls": st.sampled_from([[{"id": "x"}], [], "x"]),
        "name": st.sampled_from(["n", "", 0]),
    },
)
_inputs = st.one_of(
    st.sampled_from(_TEXTS), st.lists(st.one_of(_messages, _scalars), max_size=4), _messages, _json
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_messages, _json))
def test_is_test_message_is_the_runtime_guard(value: Any) -> None:
    assert loader.is_test_message(value) == _is_test_message(value)


@settings(max_examples=300, deadline=None)
@given(_inputs)
def test_shorthand_expansions_are_the_runtime_ones(value: Any) -> None:
    assert loader.expand_input_shorthand(value) == _expand_input(value)
    assert loader.expand_expected_output(value) == _expand_expected(value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*_TEXTS, "a\n", "\tb "]), max_size=6))
def test_question_joins_the_trimmed_texts(parts: list[str]) -> None:
    trimmed = [part.strip(JS_WHITESPACE) for part in parts]
    assert loader.join_question(parts) == " ".join(text for text in trimmed if text)


_DOLLAR_ESCAPE = re.compile(r"\\(?:x24|u0024|U00000024)")
_escape_texts = st.lists(
    st.sampled_from(
        ["a", "é", "\\", "\\n", "\\x24", "\\u0024", "\\U00000024", "\\x2", "x24", "$", "{", "\\\\"]
    ),
    max_size=400,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_escape_texts)
def test_env_precheck_finds_exactly_the_dollar_escapes(text: str) -> None:
    assert runtime._has_dollar_escape(text) == (_DOLLAR_ESCAPE.search(text) is not None)


def test_env_precheck_past_its_steps() -> None:
    """More backslashes than it steps over (by count, then by length): the rest is scanned."""
    for filler in ("\\n", "\\n" + "é" * 3000):
        many = filler * 3000
        assert not runtime._has_dollar_escape(many)
        assert runtime._has_dollar_escape(many + "\\u0024")
        assert runtime._has_dollar_escape("\\x24" + many)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "é", "<", "<<", "< <", ":", "$", "${{", "${ {"]), max_size=30).map("".join),
    st.sampled_from(["<<", "${{", "<", "é<"]),
)
def test_quick_contains_is_a_substring_test(text: str, needle: str) -> None:
    assert runtime.quick_contains(text, needle) == (needle in text)


# -- file segments ---------------------------------------------------------------------------------


def _workspace(root: Path) -> None:
    (root / ".git").mkdir(exist_ok=True)
    for rel, content in {
        "evals/ctx/a.md": "Alpha\r\n",
        "evals/ctx/b.txt": " \n",
        "evals/ctx/p.png": "P",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_messages, max_size=4))
def test_file_paths_are_those_of_the_processed_messages(
    tmp_path: Path, messages: list[dict[str, Any]]
) -> None:
    """The paths gathered while processing are what `collect_file_paths` finds afterwards."""
    _workspace(tmp_path)
    eval_path = str(tmp_path / "evals" / "t.eval.yaml")
    ctx = LoadContext(FileSystem(), {}, [], [str(tmp_path / "evals"), str(tmp_path)], eval_path)
    content_messages = [m for m in messages if "content" in m and "role" in m]
    origins = [loader.Origin(eval_path, ("input", i)) for i in range(len(content_messages))]
    file_paths: list[str] = []
    processed = loader.process_messages(ctx, content_messages, [], "input", origins, file_paths)
    assert file_paths == loader.collect_file_paths(processed)


# -- a suite loads as its tests do one at a time -----------------------------------------------------

_graders = st.lists(
    st.one_of(
        st.sampled_from(["crit", "", "{{ v }}"]),
        st.fixed_dictionaries(
            {"type": st.sampled_from(["contains", "regex", "llm-grader", "is-json", "latency", "nope", 5])},
            optional={
                "value": st.sampled_from(["x", "", 3, "(["]),
                "prompt": st.sampled_from(["./p/ok.md", "missing.md", "inline"]),
                "weight": st.sampled_from([1, -1, "w"]),
            },
        ),
        st.fixed_dictionaries({"include": st.sampled_from(["tpl", "missing"])}),
        _scalars,
    ),
    max_size=3,
)
# Mostly complete tests (a skipped test shows little of the loader), anything else sometimes.


def _mostly(usual: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`usual` three times in four (`one_of` would weigh each of the other's own branches)."""
    return st.sampled_from([usual, usual, usual, other]).flatmap(lambda chosen: chosen)


_usual_inputs = _mostly(
    st.lists(
        st.sampled_from(
            [
                {"role": "user", "content": "Q {{ v }}"},
                {"role": "system", "content": [{"type": "file", "value": "ctx/a.md"}, "more"]},
                {"role": "user", "content": [{"type": "file", "value": "missing.md"}]},
                {"role": "user", "content": [{"type": "file", "value": "missing.md"}]},
                {
                    "role": "user",
                    "content": [{"type": "image", "value": "ctx/p.png"}, {"type": "text", "value": "x"}],
                },
            ]
        ),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from(["Hi", "{{ v }}"]),
)


def _entries_of(values: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[tuple[str, Any]]:
    """A (key, value) pair, the key drawn evenly."""
    return st.sampled_from(sorted(values)).flatmap(lambda key: values[key].map(lambda value: (key, value)))


_test_extras = {  # each test has up to three of these
    "input_files": st.sampled_from([["ctx/a.md", "missing.md"], [], "x", [3, "ctx/b.txt"]]),
    "expected_output": st.one_of(st.sampled_from(_TEXTS), st.lists(_messages, max_size=2), _json),
    "vars": st.sampled_from([{"v": "x"}, {"v": {"k": 2}}, {"v": None}, "no", None]),
    "execution": st.sampled_from(
        [{"skip_defaults": True}, {"skip_defaults": "true"}, "x", {"evaluators": ["e"]}]
    ),
    "assertions": _graders,
    "assert": _graders,
    "evaluators": _graders,
    "turns": st.sampled_from([[], [{"input": "{{ v }}"}], ["s"], "x"]),
    "evaluator": st.sampled_from(["llm-grader", "weird", 3]),
    "metadata": st.sampled_from([{"tags": ["a"], "k": {"x": 1}}, "m"]),
    "conversation_id": st.sampled_from(["c", 3]),
}
_tests = st.builds(
    lambda core, extras: {**core, **dict(extras)},
    st.fixed_dictionaries(
        {
            "id": _mostly(st.sampled_from(["t", "u"]), st.sampled_from([3, ""])),
            "input": _mostly(_usual_inputs, _inputs),
            "criteria": _mostly(st.just("C"), st.sampled_from(["", 3])),
        }
    ),
    st.lists(_entries_of(_test_extras), max_size=3),
)
_suite_parts = {  # each suite has up to two of these, and mostly an `input`
    "input_files": st.sampled_from([["ctx/a.md", "missing.md"], ["{{ v }}"], "x"]),
    "assertions": _graders,
    "assert": _graders,
    "execution": st.sampled_from([{"evaluators": ["e", {"type": "contains", "value": "y"}]}, "x"]),
    "metadata": st.sampled_from([{"tags": ["b", "a"], "k": {"y": 2}}, "x"]),
}
_suites = st.builds(
    lambda suite_input, parts: {**suite_input, **dict(parts)},
    _mostly(st.fixed_dictionaries({"input": _mostly(_usual_inputs, _inputs)}), st.just({})),
    st.lists(_entries_of(_suite_parts), max_size=2),
)


def _load(root: Path, suite: dict[str, Any], tests: list[Any]) -> SuiteLoad:
    path = root / "evals" / "t.eval.yaml"
    path.write_text(yaml.safe_dump({**suite, "tests": tests}, allow_unicode=True, sort_keys=False))
    return load_suite(str(path), str(root), str(root), FileSystem(), env={"NUM": "42"})


def _at_test(message: RuntimeMessage, index: int) -> RuntimeMessage:
    """The message as the load of the test alone printed it (the test there is `tests[0]`)."""
    where = message.yaml_path
    if where is not None and where[:2] == ("tests", index):
        where = ("tests", 0, *where[2:])
    return RuntimeMessage(message.stream, message.text, message.code, message.file, where, message.data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_suites, st.lists(_mostly(_tests, _scalars), min_size=2, max_size=4))
def test_a_suite_loads_as_its_tests_one_at_a_time(
    tmp_path: Path, suite: dict[str, Any], tests: list[Any]
) -> None:
    _workspace(tmp_path)
    (tmp_path / "evals" / "p").mkdir(exist_ok=True)
    (tmp_path / "evals" / "p" / "ok.md").write_text("Judge {{ output }}\n")
    (tmp_path / ".agentv" / "templates").mkdir(parents=True, exist_ok=True)
    (tmp_path / ".agentv" / "templates" / "tpl.yaml").write_text(
        "assertions:\n  - type: contains\n    value: t\n"
    )
    whole = _load(tmp_path, suite, tests)
    before = _load(tmp_path, suite, [])  # what the suite prints before its first test
    prefix = len(before.messages) if before.loaded else 0
    assert whole.messages[:prefix] == before.messages[:prefix]
    printed = prefix
    for index, test in enumerate(tests):
        alone = _load(tmp_path, suite, [test])
        expected = alone.messages[prefix:]
        assert [_at_test(m, index) for m in whole.messages[printed : printed + len(expected)]] == expected
        printed += len(expected)
        if not alone.loaded:  # the runtime stops at the first throw
            assert whole.load_error == alone.load_error
            return
        ours = [t for t in whole.tests if t.index == index]
        assert [
            (t.id, t.question, t.input, t.expected_output, t.file_paths, t.assertions, t.metadata)
            for t in ours
        ] == [
            (t.id, t.question, t.input, t.expected_output, t.file_paths, t.assertions, t.metadata)
            for t in alone.tests
        ]
        assert [(s.id, s.reason, s.code) for s in whole.skipped if s.index == index] == [
            (s.id, s.reason, s.code) for s in alone.skipped
        ]
    assert whole.loaded
    assert len(whole.messages) == printed
