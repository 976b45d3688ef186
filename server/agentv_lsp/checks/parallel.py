"""Run a function over jobs in several forked processes (the CLI's checker only).

Forked, not spawned: the child has every module imported already and starts at once.
Fork before parsing: a child that touched a large tree built by its parent would copy it
page by page as it updates reference counts.

The jobs are shared out as they go, not in fixed groups: their numbers wait in a pipe and
each process (this one too) reads the next when it is free. On a busy machine one process
can run at half the speed of the other; with fixed halves everybody would wait for it.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import sys
import termios
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

J = TypeVar("J")
R = TypeVar("R")
# what `fork_map` is once its process count is fixed: callers take any such map (tests pass
# a plain serial one)
ParallelMap = Callable[[Callable[[J], R], Sequence[J]], list[R]]

_TICKET = 4  # bytes per job number in the pipe
# Every job number is written before any process starts reading, so all must fit in the
# pipe's buffer (64 KiB on Linux, 16 KiB on some systems): more jobs go in batches.
_MAX_TICKETS = 4096


def can_fork() -> bool:
    return hasattr(os, "fork")


def fork_map(
    func: Callable[[J], R],
    jobs: Sequence[J],
    workers: int,
    progress: Callable[[int, J], None] | None = None,
) -> list[R]:
    """`[func(job) for job in jobs]`, run by this process and `workers - 1` forked children,
    jobs taken in order by whichever process is free.

    Results come back pickled. Jobs a child took but did not finish (it failed, or could not
    be forked) are run here afterwards, so an error surfaces the way it would without
    processes. `progress(taken, job)` is called here before each job this process runs, with
    how many jobs all processes have taken so far.
    """
    if workers < 2 or len(jobs) < 2 or not can_fork():
        serial: list[R] = []
        for number, job in enumerate(jobs, 1):
            if progress is not None:
                progress(number, job)
            serial.append(func(job))
        return serial
    batch = -(-len(jobs) // _MAX_TICKETS)  # jobs per ticket
    tickets = -(-len(jobs) // batch)
    queue, writer = os.pipe()
    try:
        os.write(writer, b"".join(n.to_bytes(_TICKET, "little") for n in range(tickets)))
    finally:
        os.close(writer)  # an empty queue reads as end of file

    def take() -> range | None:
        data = os.read(queue, _TICKET)  # one reader at a time: a read never splits a ticket
        if not data:
            return None
        first = int.from_bytes(data, "little") * batch
        return range(first, min(first + batch, len(jobs)))

    def work(here: bool) -> dict[int, R]:
        done: dict[int, R] = {}
        while (numbers := take()) is not None:
            for number in numbers:
                if here and progress is not None:
                    progress(min(_taken(queue, tickets) * batch, len(jobs)), jobs[number])
                done[number] = func(jobs[number])
        return done

    children = [_start(lambda: work(False)) for _ in range(workers - 1)]
    try:
        results = work(True)
    finally:
        os.close(queue)
    for child in children:
        results.update(_collect(child) or {})
    return [results[n] if n in results else func(jobs[n]) for n in range(len(jobs))]


def _taken(queue: int, tickets: int) -> int:
    """How many tickets have left the pipe."""
    waiting = bytearray(4)
    try:
        fcntl.ioctl(queue, termios.FIONREAD, waiting)
    except OSError:
        return 0
    return tickets - int.from_bytes(waiting, sys.byteorder) // _TICKET


def _start(work: Callable[[], dict[int, Any]]) -> tuple[int, int] | None:
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
            done = work()
            status = 0
        except BaseException:
            done = {}  # what it finished before failing is lost: the parent runs it again
        try:
            payload = pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(child: tuple[int, int] | None) -> dict[int, Any] | None:
    """What the child finished, or None when it failed."""
    if child is None:
        return None
    pid, read_end = child
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    # unpickled while the child is still exiting (giving its memory back takes a while)
    try:
        result: dict[int, Any] | None = pickle.loads(payload) if payload else None
    except Exception:
        result = None
    _, status = os.waitpid(pid, 0)
    return result if status == 0 else None
