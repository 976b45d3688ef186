"""v2 eval files in the server, case by case: random edit sequences (hypothesis) over the
golden v2 files and the 10,000-case workload, each version's layout followed through the
edits (`FileModel.after_edits`), its diagnostics assembled from the cases' units; they equal
the whole-text check (`check_document`, as `agentv-lsp check`) exactly."""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, check_document
from agentv_lsp.lsp.v2 import model as filemodel
from agentv_lsp.lsp.v2.model import FileModel, UnitCache
from tests.lsp.test_v2_model import random_edit

GOLDEN_V2 = (
    Path(os.environ.get("AGENTV_SHARED", Path(__file__).resolve().parents[3] / "shared")) / "golden" / "cases"
)
SLOW = bool(os.environ.get("CI") or os.environ.get("AGENTV_SLOW"))


def ordered(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (d.sort_key(), repr(d)))


class Editor:
    """One open v2 document as the server holds it (a model per version, followed through
    the edits when they stay inside the cases)."""

    def __init__(self, path: Path, root: Path) -> None:
        self.path = str(path)
        self.opts = CheckOptions(repo_root=str(root), cwd=str(root), fs=FileSystem())
        self.model = FileModel(self.path, path.read_text(), self.opts, UnitCache())
        self.assembled = 0

    def check(self) -> None:
        text = self.model.text
        want = [d for d in check_document(self.path, text, self.opts).diagnostics if d.file == self.path]
        assert ordered(self.model.diagnostics()) == ordered(want)
        self.assembled += self.model.split

    def edit(self, seed: int) -> None:
        text = self.model.text
        change = random_edit(text, random.Random(seed))
        new = text[: change.start] + change.text + text[change.end :]
        followed = FileModel.after_edits(self.model, new, [change], self.opts)
        self.model = followed or FileModel(self.path, new, self.opts, self.model._cache)


def golden_v2_files() -> list[Path]:
    if not GOLDEN_V2.is_dir():
        return []
    return sorted(
        p for p in GOLDEN_V2.glob("*/eval.yaml") if "agentv-eval-v2" in p.read_text(errors="replace")
    )


@pytest.fixture(scope="module")
def golden_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden-v2") / "cases"
    if GOLDEN_V2.is_dir():
        shutil.copytree(GOLDEN_V2, root, ignore=shutil.ignore_patterns("expected"))
        for case in root.iterdir():
            (case / ".git").mkdir(exist_ok=True)
    return root


@pytest.mark.skipif(
    not GOLDEN_V2.is_dir(), reason="../shared/golden (the v2 golden folders) is not on this machine"
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_case_by_case_diagnostics_equal_the_whole_text_check_on_the_golden_files(
    golden_copy: Path, data: st.DataObject
) -> None:
    """Every golden v2 file, cut into cases however small (the size threshold set to 0)."""
    source = data.draw(st.sampled_from(golden_v2_files()))
    path = golden_copy / source.relative_to(GOLDEN_V2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(filemodel, "SPLIT_MIN_BYTES", 0)
        patch.setattr(filemodel, "FRESH_SHARE", 0.5)
        editor = Editor(path, path.parent)
        editor.check()
        for seed in data.draw(st.lists(st.integers(0, 2**32), min_size=1, max_size=8)):
            editor.edit(seed)
            editor.check()


@pytest.mark.skipif(not SLOW, reason="the 10,000-case workload: runs in CI (CI set) or with AGENTV_SLOW=1")
@pytest.mark.skipif(
    not GOLDEN_V2.parent.parent.is_dir(), reason="../shared (the v2 workload generator) is absent"
)
@settings(max_examples=3, deadline=None)
@given(seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=4))
def test_case_by_case_diagnostics_equal_the_whole_text_check_at_10000_cases(seeds: list[int]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from _workloads import eval_files, workload

    root = workload(10_000)
    editor = Editor(eval_files(root)[0], root)
    editor.check()
    for seed in seeds:
        editor.edit(seed)
        editor.check()
    assert editor.assembled > 0
