"""Run a function over a few jobs at once in forked processes (the CLI's checker only).

Forked, not spawned: the child has every module imported already and starts at once.
Fork before parsing: a child that touched a large tree built by its parent would copy it
page by page as it updates reference counts.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

J = TypeVar("J")
R = TypeVar("R")
# what `fork_map` is: callers take any such map (tests pass a plain serial one)
ParallelMap = Callable[[Callable[[J], R], Sequence[J]], list[R]]


def can_fork() -> bool:
    return hasattr(os, "fork")


def fork_map(func: Callable[[J], R], jobs: Sequence[J]) -> list[R]:
    """`[func(job) for job in jobs]`, jobs[1:] each in a child process and jobs[0] here.

    Results come back pickled. A child that fails (or cannot be forked) has its job run
    here afterwards, so an error surfaces the way it would without processes.
    """
    if len(jobs) < 2 or not can_fork():
        return [func(job) for job in jobs]
    children: list[tuple[int, int] | None] = []
    for job in jobs[1:]:
        children.append(_start(func, job))
    results: list[R] = [func(jobs[0])]
    for job, child in zip(jobs[1:], children, strict=True):
        result = _collect(child)
        results.append(func(job) if result is None else result[0])
    return results


def _start(func: Callable[[J], R], job: J) -> tuple[int, int] | None:
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read_end)
            payload = pickle.dumps(func(job), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(child: tuple[int, int] | None) -> tuple[Any] | None:
    """The child's result, or None when it failed."""
    if child is None:
        return None
    pid, read_end = child
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not payload:
        return None
    return (pickle.loads(payload),)
