"""The YAML layer on the constructs where libyaml and eemeli/yaml (AgentV's YAML library) part.

Each class of construct (tabs in block scalars and after indentation, flow collections as keys,
anchors, implicit keys in flow collections, directives, glued comments, tags, block scalar
indentation, escaped line breaks, documents) has texts in data/yaml_eemeli_classes.json with
what eemeli/yaml 2.9.1 makes of them, recorded from the npm package by
data/record_yaml_eemeli_classes.mjs. `parse_yaml` must load where the runtime loads, with the
same value (key order included), fail where it fails, on the line it names; and so must the
exact reader alone (`eemeli`), since the pre-scan may send it any text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.yamlpos import document as yaml_document
from agentv_lsp.yamlpos import eemeli, parse_yaml
from agentv_lsp.yamlpos.prescan import needs_eemeli_rules
from agentv_lsp.yamlpos.scalars import js_json_stringify

DATA = json.loads((Path(__file__).parent / "data" / "yaml_eemeli_classes.json").read_text(encoding="utf-8"))
CASES = [(name, case) for name, cases in DATA["classes"].items() for case in cases]
IDS = [f"{name}-{i}" for name, cases in DATA["classes"].items() for i in range(len(cases))]
TESTS_DIR = Path(__file__).resolve().parents[1]

TAB_EXAMPLE = 'tests:\n  - id: go\n    criteria: explains\n    input: |\n      \tfmt.Println("hi")\n      }\n'


def _ordered(text: str) -> object:
    return json.loads(text, object_pairs_hook=lambda pairs: ("{}", pairs))


def _agrees(text: str, runtime: dict[str, object]) -> None:
    doc = parse_yaml(text)
    if runtime["ok"]:
        assert doc.error is None, f"the runtime loads {runtime['json']}; we: {doc.error}"
        assert _ordered(js_json_stringify(doc.value)) == _ordered(str(runtime["json"]))
    else:
        assert doc.error is not None, f"the runtime fails ({runtime['error']}); we load {doc.value!r}"
        where = re.search(r"at line (\d+), column (\d+)", str(runtime["error"]))
        if where:  # the same line as the runtime's message
            assert doc.error.span.start_line + 1 == int(where.group(1)), (doc.error, runtime["error"])


def test_every_class_has_texts_the_runtime_loads_or_refuses() -> None:
    assert len(DATA["classes"]) >= 10
    for name, cases in DATA["classes"].items():
        assert cases and all("runtime" in case for case in cases), name


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_reads_as_the_runtime(name: str, case: dict[str, object]) -> None:
    _agrees(str(case["text"]), case["runtime"])  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_exact_reader_alone_reads_as_the_runtime(
    name: str, case: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(yaml_document, "needs_eemeli_rules", lambda text: True)
    _agrees(str(case["text"]), case["runtime"])  # type: ignore[arg-type]


def test_pasted_go_code_with_a_tab_loads_with_its_positions() -> None:
    doc = parse_yaml(TAB_EXAMPLE)
    assert doc.error is None
    assert doc.value["tests"][0]["input"] == '\tfmt.Println("hi")\n}\n'
    span = doc.span_of(("tests", 0, "input"))
    assert (span.start_line, span.start_col) == (3, 11)  # the `|`, as libyaml would mark it
    assert doc.span_of(("tests", 0, "criteria"), key=True).start_line == 2


def test_check_gives_no_yaml_error_on_the_tab_example(make_repo, run_cli) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo({"evals/go.eval.yaml": TAB_EXAMPLE})
    result = run_cli("check", "--agentv", "4", str(repo.path("evals/go.eval.yaml")))
    assert "1 file checked" in result.stdout, result.stdout + result.stderr
    assert "yaml-syntax" not in result.stdout, result.stdout
    assert "tab character" not in result.stdout


def test_refusals_name_the_runtimes_message_where_libyaml_reads_the_text() -> None:
    doc = parse_yaml('key: "value"# comment\n')
    assert doc.error is not None
    assert "Comments must be separated from other tokens by white space" in doc.error.message
    assert (doc.error.span.start_line, doc.error.span.start_col) == (0, 12)


@pytest.mark.parametrize(
    "text",
    [
        "%YAML 1.1\n---\na: on\n",
        "a: ! 12\n",
        "a: !!binary aGk=\n",
        "{ ?foo: bar }\n",
        "[?x]\n",
        'key: "value"# c\n',
        "a: [b]#c\n",
        "a: >#c\n  x\n",
        "[-]\n",
        "a: [b, -]\n",
        "key: &an:chor value\n",
        "a: &x 1\n*x: 2\n",
        "a: |2\n   \n  b\n",
        "a: >-1\n x\n",
        "a: |\n     \n  b\n",
        'a: "x\\\n\n  y"\n',
        "- a\n...\n...\n",
    ],
)
def test_prescan_sends_what_libyaml_misreads_silently_to_the_exact_reader(text: str) -> None:
    assert needs_eemeli_rules(text)


@pytest.mark.parametrize(
    "text",
    [
        TAB_EXAMPLE,  # libyaml refuses it, which sends it to the exact reader anyway
        "description: What is 2+2? Answer!\ntests:\n  - id: a-1\n    criteria: Says 4 (50% credit).\n"
        "    input: |\n      # Heading\n      Use `x[0]`, {braces}, a - b, R&D, *emphasis*: yes\n",
    ],
)
def test_prescan_leaves_ordinary_eval_text_to_libyaml(text: str) -> None:
    assert not needs_eemeli_rules(text)


def _tree(node: Node | None) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    seen: set[int] = set()

    def walk(n: Node) -> None:
        if id(n) in seen:
            out.append(("alias",))
            return
        seen.add(id(n))
        s, e = n.start_mark, n.end_mark
        out.append(
            (type(n).__name__, s.line, s.column, s.index, e.line, e.column, e.index, n.tag)
            + ((n.value, n.style) if isinstance(n, ScalarNode) else (n.flow_style,))
        )
        if isinstance(n, SequenceNode):
            for child in n.value:
                walk(child)
        elif isinstance(n, MappingNode):
            for key, value in n.value:
                walk(key)
                walk(value)

    if node is not None:
        walk(node)
    return out


def _project_yaml_texts() -> list[Path]:
    files = sorted(TESTS_DIR.rglob("*.yaml"))
    return [
        f
        for f in files
        if "yaml_suite" not in f.parts and not any(p.startswith("yaml-") for p in f.parts) and f.is_file()
    ]


def test_exact_reader_gives_libyaml_s_tree_where_both_read_alike() -> None:
    """Positions as before: on every YAML file of the project's tests that libyaml loads and the
    pre-scan leaves to it, the exact reader builds the same tree (marks, values, styles, tags)."""
    compared = 0
    for path in _project_yaml_texts():
        text = path.read_text(encoding="utf-8", errors="replace")
        if "\ufeff" in text or needs_eemeli_rules(text) or not parse_yaml(text).ok:
            continue
        if text and not text.endswith(("\n", "\r")):
            text += "\n"  # as parse_yaml reads it
        try:
            fast = yaml_document._compose(text)
        except yaml.YAMLError:
            continue
        assert _tree(eemeli.compose(text)) == _tree(fast), path
        compared += 1
    assert compared > 100


def test_a_lone_cr_is_text_yet_positions_count_it_as_editors_do() -> None:
    # eemeli/yaml: the CR is a character of the block scalar; an editor breaks the line there
    doc = parse_yaml("a: x\nb: |\n  y\rz\nc: 1\n")
    assert doc.error is None
    assert doc.value == {"a": "x", "b": "y\rz\n", "c": 1}
    assert doc.span_of(["c"]).start_line == 4
    assert doc.span_of(["c"], key=True).start_line == 4
    failed = parse_yaml("tests:\n  - id: x\n    input: hi there\r    criteria: ok\n")
    assert failed.error is not None
    # at the `:` after the CR, on the line an editor shows it (AgentV fails there too)
    assert (failed.error.span.start_line, failed.error.span.start_col) == (3, 12)


def test_a_bare_colon_under_a_finished_pair_is_that_mappings_entry_where_written() -> None:
    # eemeli/yaml: a line opening with `:` deeper than a mapping whose entry has its value is
    # the mapping's next entry, its key empty; a sequence that was the value ends at the `:`
    doc = parse_yaml("a:\n - 1\n : v\nb: 2\n")
    assert doc.error is None
    assert doc.value == {"a": [1], "": "v", "b": 2}
    sequence = doc.node_at(["a"])
    assert sequence is not None
    assert (sequence.end_mark.line, sequence.end_mark.column) == (2, 1)
    assert doc.span_of([""], key=True) == yaml_document.Span(2, 1, 2, 1)
    assert doc.span_of([""]) == yaml_document.Span(2, 3, 2, 4)
    assert doc.span_of(["b"], key=True) == yaml_document.Span(3, 0, 3, 1)
    twice = parse_yaml("1: x\n : v\n :\n")  # another `:` there after a value: a duplicate key
    assert twice.error is not None and twice.error.span.start_line == 2


def test_a_binary_alias_key_is_keyed_and_marked_by_its_alias_text() -> None:
    # eemeli/yaml keys an alias of a `!!binary` value by `*b`; the alias shares the anchor's node,
    # so its key is marked where the anchor wrote it, and its value where the value is
    few = "x: &b !!binary aGk=\n*b : 2\n"
    many = few + "".join(f"k{i}: {i}\n" for i in range(20))  # past the key index's threshold
    for text in (few, many):
        doc = parse_yaml(text)
        assert doc.error is None
        assert doc.value["*b"] == 2 and "hi" not in doc.value
        assert doc.span_of(["*b"], key=True) == yaml_document.Span(0, 3, 0, 19)
        assert doc.span_of(["*b"]) == yaml_document.Span(1, 5, 1, 6)
        assert doc.key_node_at(["*c"]) is None


def test_a_keys_colon_on_a_later_line_is_read_past_comments_and_before_a_sequence() -> None:
    # eemeli/yaml: a later key's `:` opening a deeper line is its `:` past comment lines too, and
    # takes a block sequence on its line, as an explicit key's `:` does
    doc = parse_yaml("x: 1\na\n # c\n : - b\n   - c\n")
    assert doc.error is None
    assert doc.value == {"x": 1, "a": ["b", "c"]}
    assert doc.span_of(["a"], key=True) == yaml_document.Span(1, 0, 1, 1)
    assert doc.span_of(["a", 1]) == yaml_document.Span(4, 5, 4, 6)
    assert parse_yaml("x: 1\na\n # c\n: v\n").error is not None  # (a `:` at the key's column)
