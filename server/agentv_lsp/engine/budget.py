"""Stopping a check that is no longer wanted or takes too long.

The language server runs checks in worker threads, which cannot be killed. It gives each
check a `Budget` (a deadline and a cancel flag) for the thread that runs it; the engine
calls `checkpoint()` between cases and phases (and the exact YAML reader every few hundred
tokens), which raises `CheckStopped` once the newer
version of the document made the check stale, or its time is up. Without a budget (the
CLI, tests, every other thread) `checkpoint()` does nothing.

A check also gives way to the requests being answered meanwhile (`answering`): while one
about another document is under way (and none about its own), the check waits at its
checkpoints, for at most `GIVE_WAY_SECONDS` per request. Otherwise a CPU-bound check holds
the GIL whenever the request's threads need it, and on a loaded machine the check's thread
is often preempted while holding it: a hover on a small document took 20-60 ms, and over
100 ms at times, while a large one was checked. A request about the same document, or about
none, may be waiting for this very check: the check never waits for it.
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
    """A deadline (`seconds` from now; 0: none) and a flag another thread may set;
    `document`: what the check reads (requests about it are not waited for)."""

    def __init__(self, seconds: float, document: str | None = None) -> None:
        self.seconds = seconds
        self.document = document
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


# A request answered in a few milliseconds is given way to completely; one that takes longer
# (it may be waiting for the check, through another document) only for its first 50 ms.
GIVE_WAY_SECONDS = 0.05

_requests_changed = threading.Condition()
# the requests being answered: key -> (their document or None, when they started); replaced
# whole under the condition's lock, so a checkpoint reads it without the lock
_requests: dict[object, tuple[str | None, float]] = {}


def answering(key: object, document: str | None) -> None:
    """A request about `document` (None: no single one) started: checks of others give way."""
    global _requests
    with _requests_changed:
        _requests = {**_requests, key: (document, time.monotonic())}


def answered(key: object) -> None:
    """The request `key` was answered (or ended otherwise)."""
    global _requests
    with _requests_changed:
        if key in _requests:
            _requests = {k: v for k, v in _requests.items() if k != key}
            _requests_changed.notify_all()


def _give_way(budget: Budget) -> None:
    """Wait while a request about another document than `budget`'s is under way (at most
    `GIVE_WAY_SECONDS` from its start), unless one about `budget`'s is too: then it may be
    waiting for this check (two documents' hovers, each waiting for its model, would otherwise
    hold each other's build). The time waited is added to the budget's deadline: the budget
    measures the check, not how busy the editor keeps the server."""
    began = time.monotonic()
    with _requests_changed:
        while True:
            now = time.monotonic()
            requests = _requests.values()
            if any(document == budget.document for document, _ in requests):
                break  # a request waits for this check: it is as urgent as the others
            ends = [
                started + GIVE_WAY_SECONDS
                for document, started in requests
                if document is not None and started + GIVE_WAY_SECONDS > now
            ]
            if not ends:
                break
            _requests_changed.wait(max(ends) - now)  # woken early when a request is answered
    if budget.deadline is not None:
        budget.deadline += time.monotonic() - began


def checkpoint() -> None:
    budget: Budget | None = getattr(_current, "budget", None)
    if budget is None:
        return
    if _requests:
        _give_way(budget)
    reason = budget.stop_reason()
    if reason is not None:
        raise CheckStopped(reason, time.monotonic() - budget.started)
