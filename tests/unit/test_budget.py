"""`engine.budget`: the checkpoints that let the language server stop a stale or overlong check."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tests.reliability.hostile_families import FAMILIES

from agentv_lsp.engine.budget import Budget, CheckStopped, checkpoint, limited, run_limited
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.document import CheckOptions, check_document
from agentv_lsp.formats.v4.check import check_v4_document


def _opts(root: Path) -> CheckOptions:
    return CheckOptions(repo_root=str(root), cwd=str(root), fs=FileSystem())


@pytest.mark.parametrize("v4", [False, True], ids=["v2", "4.x"])
def test_a_cancelled_budget_stops_the_engine_at_its_next_checkpoint(tmp_path: Path, v4: bool) -> None:
    family = "many-tests-with-errors-v4" if v4 else "many-cases-with-errors"
    text = next(iter(FAMILIES[family](200).values()))
    path = str(tmp_path / ("f.eval.yaml" if v4 else "f.yaml"))
    check = check_v4_document if v4 else check_document
    budget = Budget(0)
    budget.cancel()
    with pytest.raises(CheckStopped) as stopped:
        run_limited(budget, check, path, text, _opts(tmp_path))
    assert stopped.value.reason == "cancelled"
    expired = Budget(1e-9)
    time.sleep(0.001)
    with pytest.raises(CheckStopped) as over:
        run_limited(expired, check, path, text, _opts(tmp_path))
    assert over.value.reason == "budget"
    # without a budget (the CLI) the same check runs to the end
    assert check(path, text, _opts(tmp_path)).diagnostics


def test_a_budget_applies_only_to_the_thread_that_runs_under_it() -> None:
    budget = Budget(0)
    budget.cancel()
    seen: list[BaseException | None] = []

    def other_thread() -> None:
        try:
            checkpoint()
            seen.append(None)
        except CheckStopped as exc:
            seen.append(exc)

    with limited(budget):
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        with pytest.raises(CheckStopped):
            checkpoint()
    checkpoint()  # restored: nothing limits this thread any more
    assert seen == [None]
