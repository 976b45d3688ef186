"""The two readings the shared lsp modules keep of their own, so that they import no format
(`test_layout_boundaries`), read exactly as the format's originals do."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.layout import EVALCASES_ANY as V2_EVALCASES_ANY
from agentv_lsp.formats.v2.targets import read_targets
from agentv_lsp.lsp.completion_items import target_names
from agentv_lsp.lsp.follow import EVALCASES_ANY


def test_follow_cuts_again_where_v2s_layout_sees_evalcases() -> None:
    assert EVALCASES_ANY.pattern == V2_EVALCASES_ANY.pattern
    for text in ("a: 1\nevalcases:\n", "x\n'evalcases' :", "x\n evalcases:", "x\nevalcase:"):
        assert bool(EVALCASES_ANY.search(text)) == bool(V2_EVALCASES_ANY.search(text)), text


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
def test_completion_offers_the_target_names_v2_reads(tmp_path: Path, text: str) -> None:
    path = tmp_path / "targets.yaml"
    path.write_text(text, encoding="utf-8")
    ours = target_names(str(path), FileSystem())
    theirs = read_targets(str(path), FileSystem())
    assert theirs is not None and ours is not None
    assert list(ours) == list(theirs.names)
    assert ours == {name: theirs.providers.get(name) for name in theirs.names}
