"""The exact reader (`eemeli`) makes the same node tree as libyaml wherever both read a text the
pre-scan does not flag: same kinds, values, styles, explicit tags and, above all, the same start
and end marks. A speedup of the reader's hot paths (`fastpaths`, issue 34) that moved a mark by a
character would show here, on the eval files of the 4.x benchmark workload, the goldens' eval
files and the YAML test suite's inputs, and in their CRLF and indentation variants.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from tests.yaml_texts import repository_texts, workload_texts
from yaml.nodes import MappingNode, Node, ScalarNode

from agentv_lsp.yamlpos import eemeli
from agentv_lsp.yamlpos.prescan import needs_eemeli_rules


def _workload_texts(tmp: Path) -> list[str]:
    return workload_texts(tmp, cases=400, files=4, seed=34)


_repository_texts = repository_texts


def _variants(texts: list[str]) -> list[str]:
    """Each text, with CRLF line ends, and with one more space of indentation on a random line."""
    rng = random.Random(34)
    out = []
    for text in texts:
        out.append(text)
        out.append(text.replace("\n", "\r\n"))
        lines = text.split("\n")
        at = rng.randrange(len(lines))
        lines[at] = " " + lines[at]
        out.append("\n".join(lines))
    return out


def _libyaml_tree(text: str) -> Node | None:
    try:
        node: Node | None = yaml.compose(text, Loader=yaml.CSafeLoader)
        return node
    except yaml.YAMLError:
        return None


def _mark(mark: yaml.Mark) -> tuple[int, int, int]:
    return (mark.index, mark.line, mark.column)


def _marks(node: Node, text: str) -> tuple[object, ...]:
    # Where the two readers part already, less is compared: an empty scalar's marks (libyaml
    # puts them after the white space that follows), and the line and column of the end of a
    # text not ending with a line break (libyaml counts one more line there).
    if isinstance(node, ScalarNode) and node.start_mark.index == node.end_mark.index:
        return ()
    end = node.end_mark
    at_end = end.index == len(text) and not text.endswith("\n")
    return (_mark(node.start_mark), end.index if at_end else _mark(end))


def _differences(
    exact: Node, libyaml: Node, text: str, path: str = "$", seen: set[int] | None = None
) -> list[str]:
    seen = set() if seen is None else seen
    if id(exact) in seen:
        return []  # an alias: its node is compared once (an anchor may hold itself)
    seen.add(id(exact))
    out = []
    if type(exact) is not type(libyaml):
        return [f"{path}: {type(exact).__name__} against {type(libyaml).__name__}"]
    if _marks(exact, text) != _marks(libyaml, text):
        out.append(
            f"{path}: marks {_mark(exact.start_mark)}-{_mark(exact.end_mark)}"
            f" against {_mark(libyaml.start_mark)}-{_mark(libyaml.end_mark)}"
        )
    if (
        exact.tag not in (eemeli.PLAIN, eemeli.PLAIN_11, eemeli.STR, eemeli.SEQ, eemeli.MAP)
        and exact.tag != libyaml.tag
    ):
        out.append(f"{path}: tag {exact.tag} against {libyaml.tag}")
    if isinstance(exact, ScalarNode):
        if (exact.value, exact.style) != (libyaml.value, libyaml.style):
            out.append(
                f"{path}: {exact.value!r} ({exact.style!r}) against {libyaml.value!r} ({libyaml.style!r})"
            )
        return out
    if exact.flow_style != libyaml.flow_style or len(exact.value) != len(libyaml.value):
        return [*out, f"{path}: flow style or size differs"]
    if isinstance(exact, MappingNode):
        for i, ((k1, v1), (k2, v2)) in enumerate(zip(exact.value, libyaml.value, strict=True)):
            out += _differences(k1, k2, text, f"{path}.key{i}", seen)
            out += _differences(v1, v2, text, f"{path}.value{i}", seen)
    else:
        for i, (a, b) in enumerate(zip(exact.value, libyaml.value, strict=True)):
            out += _differences(a, b, text, f"{path}[{i}]", seen)
    return out


def _compare(texts: list[str]) -> tuple[int, list[str]]:
    compared, failures = 0, []
    for text in texts:
        if needs_eemeli_rules(text) or "\r" in text.replace("\r\n", "") or "\ufeff" in text:
            # libyaml may read these otherwise (a BOM: formats/v4 hides it from the readers)
            continue
        libyaml = _libyaml_tree(text)
        if libyaml is None:
            continue
        try:
            exact = eemeli.compose(text)
        except yaml.YAMLError:
            continue  # eemeli/yaml refuses some texts libyaml reads: not about marks
        assert exact is not None
        compared += 1
        problems = _differences(exact, libyaml, text)
        if problems:
            failures.append(f"{text[:80]!r}: {problems[:3]}")
    return compared, failures


def test_the_workload_trees_are_libyamls_marks_included(tmp_path: Path) -> None:
    texts = _variants(_workload_texts(tmp_path))
    compared, failures = _compare(texts)
    # the texts and their CRLF variants at least (a shifted line may make a text invalid)
    assert compared >= 2 * len(texts) // 3, f"only {compared} of {len(texts)} texts compared"
    assert not failures, failures[:5]


@pytest.mark.parametrize("part", range(4))
def test_the_suite_and_golden_trees_are_libyamls_marks_included(part: int) -> None:
    texts = _variants(_repository_texts())[part::4]
    compared, failures = _compare(texts)
    assert compared > len(texts) // 3, f"only {compared} of {len(texts)} texts compared"
    assert not failures, failures[:5]
