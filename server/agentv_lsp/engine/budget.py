"""Stopping a check that is no longer wanted or takes too long.

The language server runs checks in worker threads, which cannot be killed. It gives each
check a `Budget` (a deadline and a cancel flag) for the thread that runs it; the engine
calls `checkpoint()` between cases and phases (and the exact YAML reader every few hundred
tokens), which raises `CheckStopped` once the newer
version of the document made the check stale, or its time is up. Without a budget (the
CLI, tests, every other thread) `checkpoint()` does nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, TypeVar

T = TypeVar("T")
StopReason = Literal["cancelled", "budget"]


class CheckStopped(Exception):
    def __init__(self, reason: StopReason, seconds: float) -> None:
        super().__init__(f"check {reason} after {seconds:.1f} s")
        self.reason = reason
        self.seconds = seconds


class Budget:
    """A deadline (`seconds` from now; 0: none) and a flag another thread may set."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.deadline = self.started + seconds if seconds > 0 else None
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def stop_reason(self) -> StopReason | None:
        if self._cancelled.is_set():
            return "cancelled"
        if self.deadline is not None and time.monotonic() > self.deadline:
            return "budget"
        return None


_current = threading.local()


@contextmanager
def limited(budget: Budget) -> Iterator[None]:
    """Checks run by this thread meanwhile stop at their next checkpoint once `budget` says so."""
    previous = getattr(_current, "budget", None)
    _current.budget = budget
    try:
        yield
    finally:
        _current.budget = previous


def run_limited(budget: Budget, work: Callable[..., T], *args: object) -> T:
    """`work(*args)` under `budget` (for `asyncio.to_thread`)."""
    with limited(budget):
        return work(*args)


def current() -> Budget | None:
    """The budget this thread's checks run under (for work it hands to another thread)."""
    budget: Budget | None = getattr(_current, "budget", None)
    return budget


def checkpoint() -> None:
    budget: Budget | None = getattr(_current, "budget", None)
    if budget is None:
        return
    reason = budget.stop_reason()
    if reason is not None:
        raise CheckStopped(reason, time.monotonic() - budget.started)
