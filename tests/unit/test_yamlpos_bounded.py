"""The exact reader (`yamlpos.eemeli`) is linear whatever the flow nesting, and a budget stops it.

Its simple-key bookkeeping visits only the saved keys that may be stale (`stale_possible_simple_keys`);
PyYAML visits every open flow level at every token; `fastpaths` replaces two more of PyYAML's hot
paths. Held here: the same nodes, marks and errors as PyYAML's own paths on the YAML test suite's
inputs and on generated texts; time per character that does not grow with the nesting depth;
and `engine.budget` stopping a long read.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.reliability.hostile_families import nested_flow_text
from yaml.nodes import Node
from yaml.reader import Reader
from yaml.scanner import Scanner

from agentv_lsp.engine.budget import Budget, CheckStopped, limited
from agentv_lsp.yamlpos import eemeli, parse_yaml

SUITE = Path(__file__).resolve().parents[1] / "yaml_suite" / "data"


class _PyYAMLPaths(eemeli.EemeliLoader):
    """The reader with PyYAML's own bookkeeping and hot paths (`fastpaths` replaces them):
    every saved key visited at every token, one character forward at a time, the token queue
    asked whether it needs more at every look."""

    forward = Reader.forward
    check_token = Scanner.check_token
    peek_token = Scanner.peek_token
    get_token = Scanner.get_token

    def stale_possible_simple_keys(self) -> None:
        for level in list(self.possible_simple_keys):
            key = self.possible_simple_keys[level]
            if (key.line != self.line and not self._in_flow_map(level)) or self.index - key.index > 1024:
                if key.required:
                    raise eemeli.EemeliError(eemeli._NO_VALUE, key.mark)
                if level > 0 and key.line != self.line:
                    self.stale_flow_key = key
                    self.stale_flow_level = level
                del self.possible_simple_keys[level]

    def next_possible_simple_key(self) -> int | None:
        numbers = [key.token_number for key in self.possible_simple_keys.values()]
        return min(numbers) if numbers else None


def _shape(node: Node | None) -> object:
    if node is None:
        return None
    marks = (node.start_mark, node.end_mark)
    where = (*((m.index, m.line, m.column, m.pointer) for m in marks), node.tag, node.anchor)
    if isinstance(node.value, list):
        return (where, [(_shape(k), _shape(v)) if isinstance(k, Node) else _shape(k) for k, v in _pairs(node)])
    return (where, node.value, node.style)


def _pairs(node: Node) -> list[tuple[object, object]]:
    return [item if isinstance(item, tuple) else (item, None) for item in node.value]


def _read(loader_class: type[eemeli.EemeliLoader], text: str) -> object:
    loader = loader_class(text)
    try:
        return ("ok", _shape(loader.get_single_node()))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        return ("error", type(exc).__name__, exc.problem, mark and (mark.index, mark.line, mark.column))
    except RecursionError:
        return ("recursion",)
    finally:
        loader.dispose()


def _suite_texts() -> list[str]:
    return [path.read_bytes().decode("utf-8") for path in sorted(SUITE.glob("*/in.yaml"))]


def test_same_reading_as_pyyaml_paths_on_the_yaml_test_suite() -> None:
    texts = _suite_texts()
    assert len(texts) >= 300
    errors = 0
    for text in texts:
        ours = _read(eemeli.EemeliLoader, text)
        assert ours == _read(_PyYAMLPaths, text), text
        errors += ours[0] == "error"
    assert 0 < errors < len(texts)  # both kinds were compared


# pieces that open, close and fill flow collections across lines, with keys, so that keys go
# stale by line (in sequences), stay (in mappings), and pass the 1024-character limit
_PIECES = st.sampled_from(
    ["[", "]", "{", "}", ",", ": ", "a", "? ", "'q'", '"d"', "\n", "\n ", "  ", "&x ", "*x", "!t ", "- ", "#c\n",
     "k: ", "x" * 600, "\t", "\r\n", "\r", "\ufeff", "\u2028", "\x85", "é ", "|\n  l\n"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40), st.sampled_from(["", "%YAML 1.2\n---\n", "a: ", "- "]))
def test_same_reading_as_pyyaml_paths_on_generated_flow_texts(pieces: list[str], head: str) -> None:
    text = head + "".join(pieces)
    assert _read(eemeli.EemeliLoader, text) == _read(_PyYAMLPaths, text)


def _seconds(text: str) -> float:
    start = time.process_time()
    eemeli.compose(text)
    return time.process_time() - start


def test_time_does_not_grow_with_flow_nesting_depth() -> None:
    # PyYAML's bookkeeping costs size x depth: at 40 KB, depth 400 took 10x depth 10. Processor
    # time still moves with what else the machine runs (1.5x-2.5x seen on a loaded 2-core VM):
    # the bound is well under the old growth, not a speed target (benchmarks/bench_yaml.py
    # --nesting prints those).
    shallow = min(_seconds(nested_flow_text(40_000, 10)) for _ in range(3))
    deep = min(_seconds(nested_flow_text(40_000, 400)) for _ in range(3))
    assert deep < 5 * shallow, (shallow, deep)


def test_a_budget_stops_the_reader_mid_text() -> None:
    # through `parse_yaml`: a large text is read in a thread of its own (a bigger stack)
    text = nested_flow_text(400_000, 50)
    budget = Budget(0.2)
    start = time.monotonic()
    with limited(budget), pytest.raises(CheckStopped) as stopped:
        parse_yaml(text)
    assert stopped.value.reason == "budget"
    assert time.monotonic() - start < 1.0  # the whole read takes several seconds


def test_a_cancelled_budget_stops_it_too() -> None:
    budget = Budget(0)
    budget.cancel()
    with limited(budget), pytest.raises(CheckStopped) as stopped:
        eemeli.compose(nested_flow_text(20_000, 5))
    assert stopped.value.reason == "cancelled"


def test_an_alias_inside_its_own_multi_line_flow_collection_ends() -> None:
    # found by the grammar differential (seed 9): the check of a multi-line flow collection's
    # lines walked its nodes with no record of those seen, and its own alias inside it made
    # that walk endless (memory growing by gigabytes)
    with limited(Budget(seconds=10)):
        doc = parse_yaml('q: &a {"x\n y": *a, z: [*a]}\n')
    assert doc.error is None
    mapping = doc.value["q"]
    assert mapping["x y"] is mapping and mapping["z"][0] is mapping
