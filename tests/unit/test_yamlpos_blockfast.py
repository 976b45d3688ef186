"""`blockfast` (the exact reader's line-at-a-time path for plain block texts) makes the very tree
the token-by-token reader makes, marks included, or gives up: on the goldens' eval files, the
4.x benchmark workload and the YAML suite's inputs, and on mutants of them made at the corners
of the shapes it reads (indentation, `- ` and `: `, quotes and escapes, block scalar headers,
blank lines, line ends, long keys).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from tests.yaml_texts import repository_texts, workload_texts
from yaml.nodes import MappingNode, Node, ScalarNode

from agentv_lsp.yamlpos import eemeli
from agentv_lsp.yamlpos.blockfast import NotPlainBlock, compose_block_text


def _workload_texts(tmp: Path) -> list[str]:
    return workload_texts(tmp, cases=200, files=5, seed=35)


_repository_texts = repository_texts


_INSERTS = (
    " ", "  ", "\t", "\n", "\n\n", "  \n", "- ", "-", ": ", ":", "#", " #", "'", '"', "''", '\\"',
    "\\n", "\\x41", "\\u00e9", "\\q", "|", ">", "|-", ">+", "|2", "| #c", "&a ", "*a", "!t ", "? ",
    "[", "{", "---\n", "...\n", "%", "\r", "\r\n", "\ufeff", "k" * 1100 + ": v\n", "@", "`",
)  # fmt: skip


def _mutant(text: str, rng: random.Random) -> str:
    for _ in range(rng.choice((1, 1, 2))):
        at = rng.randrange(len(text) + 1)
        kind = rng.random()
        if kind < 0.6:
            text = text[:at] + rng.choice(_INSERTS) + text[at:]
        elif kind < 0.8:
            text = text[:at] + text[at + 1 :]
        else:  # indent or dedent a line
            start = text.rfind("\n", 0, at) + 1
            if text[start : start + 1] == " " and rng.random() < 0.5:
                text = text[:start] + text[start + 1 :]
            else:
                text = text[:start] + " " + text[start:]
    return text


def _full_reader(text: str) -> Node | Exception | None:
    loader = eemeli.EemeliLoader(text)
    try:
        node: Node | None = loader.get_single_node()
        return node
    except yaml.YAMLError as exc:
        return exc
    finally:
        loader.dispose()


def _shape(node: Node, seen: set[int] | None = None) -> object:
    seen = set() if seen is None else seen
    if id(node) in seen:
        return "alias"
    seen.add(id(node))
    marks = [(m.index, m.line, m.column) for m in (node.start_mark, node.end_mark)]
    head = (type(node).__name__, node.tag, marks, node.anchor, getattr(node, "missing", False))
    if isinstance(node, ScalarNode):
        return (*head, node.value, node.style)
    if isinstance(node, MappingNode):
        return (*head, node.flow_style, [(_shape(k, seen), _shape(v, seen)) for k, v in node.value])
    return (*head, node.flow_style, [_shape(item, seen) for item in node.value])


def _check(texts: list[str]) -> int:
    """How many texts blockfast read; fails on the first whose tree differs."""
    taken = 0
    for text in texts:
        loader = eemeli.EemeliLoader(text) if "\x00" not in text else None
        if loader is None:
            continue
        try:
            fast = compose_block_text(loader)
        except NotPlainBlock:
            continue
        except yaml.YAMLError:  # the loader's own check of the text (non-printable characters)
            continue
        finally:
            loader.dispose()
        taken += 1
        full = _full_reader(text)
        assert isinstance(full, Node), f"blockfast read a text the reader refuses ({full}): {text!r}"
        assert _shape(fast) == _shape(full), f"trees differ on {text!r}"
    return taken


def test_blockfast_reads_the_workload_as_the_reader_does(tmp_path: Path) -> None:
    texts = _workload_texts(tmp_path)
    assert _check(texts) == len(texts), "every workload file is of the shape blockfast reads"


@pytest.mark.parametrize("seed", range(4))
def test_blockfast_reads_mutants_as_the_reader_does_or_gives_up(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    pool = _repository_texts() + _workload_texts(tmp_path)[:2]
    # the plain block texts among them, cut to a few dozen lines: mutants stay near that shape
    plain = [t for t in pool if _check([t])] or pool
    texts = []
    for _ in range(1500):
        source = rng.choice(plain)
        lines = source.split("\n")
        start = rng.randrange(max(1, len(lines) - 40)) if rng.random() < 0.3 else 0
        texts.append(_mutant("\n".join(lines[start : start + 40]), rng))
    taken = _check(texts)
    assert taken > 300, f"only {taken} mutants were of blockfast's shape: the test lost its reach"


def test_blockfast_gives_up_on_what_it_does_not_read() -> None:
    for text in (
        "a: &x 1\n",
        "a: [1]\n",
        "# c\na: 1\n",
        "a: 1 # c\n",
        "%YAML 1.2\n---\na: 1\n",
        "- - a\n",
        "a\n",
    ):
        loader = eemeli.EemeliLoader(text)
        with pytest.raises(NotPlainBlock):
            compose_block_text(loader)
