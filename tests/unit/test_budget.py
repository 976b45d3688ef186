"""`engine.budget`: the checkpoints that let the language server stop a stale or overlong check."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tests.reliability.hostile_families import FAMILIES

from agentv_lsp.engine import budget as budget_module
from agentv_lsp.engine.budget import (
    Budget,
    CheckStopped,
    answered,
    answering,
    checkpoint,
    limited,
    run_limited,
)
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, check_document
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


@pytest.fixture
def give_way_seconds(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Sets how long a check gives way to one request; no request is left behind."""
    keys: list[object] = []

    def set_seconds(seconds: float) -> list[object]:
        monkeypatch.setattr(budget_module, "GIVE_WAY_SECONDS", seconds)
        return keys

    yield set_seconds
    for key in keys:
        answered(key)


def _checkpoint_seconds(budget: Budget) -> float:
    start = time.monotonic()
    with limited(budget):
        checkpoint()
    return time.monotonic() - start


def test_a_check_waits_while_a_request_about_another_document_is_answered(give_way_seconds) -> None:  # type: ignore[no-untyped-def]
    keys = give_way_seconds(30.0)
    request = object()
    keys.append(request)
    answering(request, "file:///small.yaml")
    passed = threading.Event()

    def check() -> None:
        with limited(Budget(0, "file:///big.yaml")):
            checkpoint()
        passed.set()

    worker = threading.Thread(target=check)
    worker.start()
    assert not passed.wait(0.2), "the check did not wait for the request"
    answered(request)
    assert passed.wait(5), "the answer did not let the check go on"
    worker.join()


def test_a_check_does_not_wait_for_requests_about_its_own_document_or_none(give_way_seconds) -> None:  # type: ignore[no-untyped-def]
    keys = give_way_seconds(30.0)
    keys.extend([object(), object()])
    answering(keys[0], "file:///big.yaml")  # a hover on the document being checked waits for it
    answering(keys[1], None)  # a workspace request may, too
    assert _checkpoint_seconds(Budget(0, "file:///big.yaml")) < 5
    # nor for one about another document while one about its own waits for it: two hovers,
    # each waiting for its document's model, would hold each other's build
    keys.append(object())
    answering(keys[-1], "file:///small.yaml")
    assert _checkpoint_seconds(Budget(0, "file:///big.yaml")) < 5
    # and a thread without a budget (the CLI) never waits
    start = time.monotonic()
    checkpoint()
    assert time.monotonic() - start < 5


def test_a_check_gives_way_for_a_bounded_time_and_its_deadline_moves_by_it(give_way_seconds) -> None:  # type: ignore[no-untyped-def]
    keys = give_way_seconds(0.3)
    keys.append(object())
    answering(keys[0], "file:///small.yaml")  # never answered: it may be waiting for the check
    budget = Budget(60, "file:///big.yaml")
    deadline = budget.deadline
    assert deadline is not None
    waited = _checkpoint_seconds(budget)
    assert 0.2 < waited < 10
    assert budget.deadline is not None and budget.deadline - deadline >= 0.2
    assert _checkpoint_seconds(budget) < 0.2  # that request's time to be given way is over
