"""What the shared lsp modules and a format read alike is one reading: the `evalcases:` line
(in `formats.declared`) and the targets file (read once in the core for both)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.targets_file import read_targets
from agentv_lsp.formats.v2 import targets as v2_targets
from agentv_lsp.formats.v2.layout import EVALCASES_ANY as V2_EVALCASES_ANY
from agentv_lsp.lsp.follow import EVALCASES_ANY


def test_follow_cuts_again_where_v2s_layout_sees_evalcases() -> None:
    assert EVALCASES_ANY is V2_EVALCASES_ANY  # one pattern, in formats.declared
    for text in ("a: 1\nevalcases:\n", "x\n'evalcases' :", 'x\n"evalcases":'):
        assert EVALCASES_ANY.search(text), text
    for text in ("x\n evalcases:", "x\nevalcase:", "evalcases:", "x\nevalcases_x:"):
        assert not EVALCASES_ANY.search(text), text


@pytest.mark.parametrize(
    "text",
    [
        "targets:\n  - name: a\n    provider: openai\n  - name: b\n",
        # a name twice: the first entry's place, the first provider given
        "targets:\n  - name: a\n  - name: a\n    provider: mock\n  - name: a\n    provider: cli\n",
        "targets:\n  - name: ''\n  - provider: x\n  - 3\n  - name: c\n    provider: [1]\n",
        "targets: nope\n",
        "[unclosed\n",
    ],
)
def test_v2_reads_the_targets_file_the_core_reads(tmp_path: Path, text: str) -> None:
    assert v2_targets.read_targets is read_targets  # one reading: completion and v2 alike
    path = tmp_path / "targets.yaml"
    path.write_text(text, encoding="utf-8")
    read = read_targets(str(path), FileSystem())
    assert read is not None


def test_the_targets_file_names_first_entries_and_first_providers(tmp_path: Path) -> None:
    path = tmp_path / "targets.yaml"
    path.write_text(
        "targets:\n  - name: a\n  - name: b\n    provider: openai\n  - name: a\n    provider: mock\n"
        "  - name: a\n    provider: cli\n  - name: ''\n  - provider: x\n  - 3\n  - name: c\n    provider: [1]\n",
        encoding="utf-8",
    )
    read = read_targets(str(path), FileSystem())
    assert read is not None
    assert read.names == {"a": 0, "b": 1, "c": 7}
    assert read.providers == {"b": "openai", "a": "mock"}
