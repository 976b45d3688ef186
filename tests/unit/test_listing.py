"""`lsp.listing`: the id a test's outline symbol is named by, read from its item's text
(`written_id`), against the YAML parser; the tests-only symbols against the text; the
document numbers of lens data."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from yaml.nodes import MappingNode, ScalarNode

from agentv_lsp.checks.layout import Layout
from agentv_lsp.formats.v2.layout import cut
from agentv_lsp.lsp.listing import DocumentNumbers, OutlineTable, read_lens_data, written_id
from agentv_lsp.lsp.v4.layout import cut_tests

SHARED = Path(os.environ.get("AGENTV_SHARED", Path(__file__).resolve().parents[3] / "shared"))
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parsed_id(layout: Layout, k: int, key: str) -> ScalarNode | None:
    """The `id` node of item k, from the YAML parser (the whole text composed)."""
    root = yaml.compose(layout.text, Loader=Loader)
    assert isinstance(root, MappingNode)
    items = next(v for k_, v in root.value if k_.value == key)
    item = items.value[k]
    if not isinstance(item, MappingNode):
        return None
    found = [v for k_, v in item.value if isinstance(k_, ScalarNode) and k_.value == "id"]
    return found[0] if found and isinstance(found[0], ScalarNode) else None


ITEMS = [
    # (item text, the id, or None: the test is named by its place)
    ("  - id: plain-1\n    input: x\n", "plain-1"),
    ("  - id: 'it''s'   # a comment\n    input: x\n", "it's"),
    ('  - id: "tab\\there é 𝄞"\n    input: x\n', "tab\there é 𝄞"),
    ("  - input: x\n    id: second-key\n", "second-key"),
    ("  - input:\n      - id: nested\n        role: user\n    id: own\n", "own"),
    ("  - input: x\n    criteria: |\n      id: inside a block\n", None),
    ("  - id: |\n      block\n    input: x\n", None),
    ("  - id: &anchor anchored\n    input: x\n", None),
    ("  - id: ~\n    input: x\n", None),
    ("  - id:\n    input: x\n", None),
    ("  - id: goes\n      on\n    input: x\n", None),
    ('  - id: "\\x41"\n    input: x\n', None),  # a YAML escape JSON lacks
    ("  - {id: flow, input: x}\n", None),
    ("  - id: 100%\n    input: x\n", "100%"),
    ("  - id: 42\n    input: x\n", "42"),
    ("  - id: crlf # note\r\n    input: x\r\n", "crlf"),
]


@pytest.mark.parametrize(("item", "expected"), ITEMS)
def test_the_written_id_is_the_parsers_or_none(item: str, expected: str | None) -> None:
    text = "evalcases:\n" + item + "  - id: next\n    input: y\n"
    layout = cut(text)  # the v2 cut: the 4.x one refuses anchors
    assert layout is not None
    found = written_id(layout.chunk(0), layout.indent)
    assert (found[3] if found else None) == expected
    if found is not None:
        node = parsed_id(layout, 0, "evalcases")
        assert node is not None and str(node.value) == expected
        line, start, end, _ = found
        assert (line + layout.lines[0], start) == (node.start_mark.line, node.start_mark.column)
        assert (node.end_mark.line, node.end_mark.column) == (node.start_mark.line, end)


def every_layout() -> list[tuple[str, Layout, str]]:
    """The golden files of both formats and the workloads' generators, cut into tests."""
    out = []
    for path in sorted(SHARED.glob("golden-v4/cases/*/evals/**/*.eval.yaml")):
        layout = cut_tests(path.read_text(errors="replace"))
        if layout is not None:
            out.append((str(path), layout, "tests"))
    for path in sorted(SHARED.glob("golden/cases/*/eval.yaml")):
        layout = cut(path.read_text(errors="replace"))
        if layout is not None:
            out.append((str(path), layout, "evalcases"))
    return out


@pytest.mark.skipif(not (SHARED / "golden-v4").is_dir(), reason="../shared (the golden files) is absent")
def test_the_written_ids_of_the_golden_files_are_the_parsers() -> None:
    checked = named = 0
    for name, layout, key in every_layout():
        try:
            root = yaml.compose(layout.text, Loader=Loader)
        except yaml.YAMLError:
            continue  # the parser refuses the whole text: nothing to compare with
        items = (
            next((v for k, v in root.value if k.value == key), None)
            if isinstance(root, MappingNode)
            else None
        )
        if items is None or len(items.value) != len(layout.offsets):
            continue
        for k, item in enumerate(items.value):
            found = written_id(layout.chunk(k), layout.indent)
            checked += 1
            if found is None:
                continue
            named += 1
            ids = [v for k_, v in item.value if k_.value == "id"] if isinstance(item, MappingNode) else []
            assert ids and isinstance(ids[0], ScalarNode), (name, k)
            assert ids[0].value == found[3], (name, k)
            assert found[0] + layout.lines[k] == ids[0].start_mark.line, (name, k)
    assert checked > 100 and named > checked // 2


def test_tests_only_symbols_contain_their_selection_in_the_client_units() -> None:
    text = "tests:\n  - id: é𝄞\n    input: x\n  - id: last\n    input: 𝄞"  # no final newline
    layout = cut_tests(text)
    assert layout is not None
    for encoding, width, clef in (("utf-16", 3, 2), ("utf-32", 2, 1), ("utf-8", 6, 4)):
        symbols = [json.loads(s) for s in OutlineTable().placed_symbols(layout, "tests", encoding)]
        assert [s["name"] for s in symbols] == ["é𝄞", "last"]
        first, last = symbols
        assert first["selectionRange"]["end"] == {"line": 1, "character": 8 + width}
        assert first["range"]["end"] == {"line": 3, "character": 2}
        # the last ends where the text does, inside its last line
        assert last["range"]["end"] == {"line": 4, "character": len("    input: ") + clef}


def test_document_numbers_are_bounded_and_never_reused() -> None:
    numbers = DocumentNumbers(limit=2)
    a, b = numbers.number("file:///a"), numbers.number("file:///b")
    assert numbers.number("file:///a") == a and numbers.uri(b) == "file:///b"
    c = numbers.number("file:///c")  # b was used least recently: forgotten
    assert numbers.uri(b) is None and numbers.uri(a) == "file:///a" and c not in (a, b)
    assert numbers.number("file:///b") not in (a, b, c)
    assert read_lens_data([c, 3, 2]) == (c, 3, "compare")
    assert read_lens_data([c, 3, 3]) is None and read_lens_data([c, True, 0]) is None
