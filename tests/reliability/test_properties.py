"""Property-based tests (hypothesis) over the YAML-with-positions layer and the engine."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentv_lsp.checks.document import CheckOptions, check_document
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.loader import load_all, open_eval_file
from agentv_lsp.engine.preview import preview_file
from agentv_lsp.yamlpos import parse_yaml

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(max_size=30),
    st.sampled_from(["yes", "on", "001", "0x1F", ".inf", "~", "2025-01-01", "@[User]:", "```x```", ""]),
)
json_like = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_never_raises_and_errors_point_inside(text: str) -> None:
    doc = parse_yaml(text)
    lines = re.split(r"\r\n|\r|\n", text)  # libyaml's line breaks, a lone CR included
    if doc.error is not None:
        span = doc.error.span
        assert 0 <= span.start_line <= len(lines)
        assert doc.value is None


@settings(max_examples=200, deadline=None)
@given(json_like)
def test_dumped_documents_load_back_with_spans_inside_the_text(value: object) -> None:
    # no line folding: PyYAML folds quoted strings in a way eemeli/yaml (rightly) rejects
    text = yaml.safe_dump({"root": value}, allow_unicode=True, width=10**9)
    doc = parse_yaml(text)
    assert doc.error is None, doc.error
    line_count = len(text.split("\n"))
    for path in _paths(doc.value):
        span = doc.span_of(path)
        assert 0 <= span.start_line <= span.end_line <= line_count


def _paths(value: object, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*prefix, i)))
    return out


messages = st.lists(
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["system", "user", "assistant", "tool", "User", 3]),
            "content": st.one_of(
                st.text(max_size=20),
                st.lists(
                    st.one_of(
                        st.fixed_dictionaries(
                            {
                                "type": st.sampled_from(["text", "file", "image", 5]),
                                "value": st.one_of(
                                    st.text(max_size=12), st.sampled_from(["a.md", "/a.md", "../x.md", "dir"])
                                ),
                            }
                        ),
                        st.text(max_size=5),
                    ),
                    max_size=4,
                ),
                st.none(),
            ),
        }
    ),
    max_size=5,
)
cases = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.one_of(st.text(max_size=6), st.integers()),
            "outcome": st.one_of(st.text(max_size=6), st.none()),
            "input_messages": st.one_of(messages, st.none()),
            "expected_messages": st.one_of(messages, st.just("x")),
        },
        optional={
            "execution": st.just({"target": "t"}),
            "evaluators": st.just([{"name": "j", "type": "llm_judge", "prompt": "p.md"}]),
        },
    ),
    max_size=4,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cases)
def test_engine_and_checker_never_raise_on_eval_shaped_documents(
    tmp_path: Path, raw_cases: list[object]
) -> None:
    root = tmp_path
    (root / ".git").mkdir(exist_ok=True)
    (root / "a.md").write_text("A\r\n")
    (root / "dir").mkdir(exist_ok=True)
    (root / ".agentv").mkdir(exist_ok=True)
    (root / ".agentv" / "config.yaml").write_text(
        "$schema: agentv-config-v2\nguideline_patterns: ['**/*.md']\n"
    )
    text = yaml.safe_dump({"$schema": "agentv-eval-v2", "evalcases": raw_cases}, allow_unicode=True)
    ef = open_eval_file(str(root / "e.yaml"), repo_root=str(root), cwd=str(root), fs=FileSystem(), text=text)
    load_all(ef)
    result = preview_file(ef)
    assert result["load_error"] is None
    report = check_document(str(root / "e.yaml"), text, CheckOptions(str(root), str(root)))
    assert all(d.span.start_line >= 0 for d in report.diagnostics)
