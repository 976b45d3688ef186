"""`guard` (every handler is wrapped in it): a failing handler answers its fallback, and the
error it swallows is logged with its traceback, so that what failed where can be found."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import guard


class LogOnly:
    """What `guard` uses of the server: `log`."""

    def __init__(self) -> None:
        self.logged: list[tuple[str, lsp.MessageType]] = []

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Log) -> None:
        self.logged.append((message, kind))


def failing_step(value: int) -> int:
    raise ValueError(f"boom {value}")


def test_a_failing_handler_answers_the_fallback_and_logs_the_traceback() -> None:
    @guard(["fallback"])
    def handler(ls: Any, value: int) -> list[str]:
        return [str(failing_step(value))]

    ls = LogOnly()
    assert handler(ls, 7) == ["fallback"]
    [(message, kind)] = ls.logged
    assert kind == lsp.MessageType.Error
    first, _, trace = message.partition("\n")
    assert first == "agentv-lsp: handler failed: ValueError: boom 7"
    assert trace.startswith("Traceback (most recent call last):")
    assert "in failing_step" in trace and 'raise ValueError(f"boom {value}")' in trace


def test_a_failing_async_handler_logs_the_traceback_too() -> None:
    @guard()
    async def async_handler(ls: Any) -> int:
        await asyncio.sleep(0)
        return failing_step(3)

    ls = LogOnly()
    assert asyncio.run(async_handler(ls)) is None
    [(message, _kind)] = ls.logged
    assert "async_handler failed: ValueError: boom 3" in message
    assert "in failing_step" in message and "Traceback" in message


def test_a_handler_that_succeeds_logs_nothing() -> None:
    @guard()
    def fine(ls: Any) -> int:
        return 1

    ls = LogOnly()
    assert fine(ls) == 1
    assert ls.logged == []
