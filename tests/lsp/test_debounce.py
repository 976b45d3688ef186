"""The debounce after an edit follows what the document's last check cost
(`features/diagnostics.debounce_seconds`): none after a cheap check, the setting otherwise."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from agentv_lsp.lsp.features import diagnostics


@pytest.mark.parametrize(
    ("cost_ms", "expected"),
    [
        (None, 0.3),
        (3.0, 0.0),
        (diagnostics.IMMEDIATE_MS, 0.0),
        (diagnostics.IMMEDIATE_MS + 1, 0.3),
        (900.0, 0.3),
    ],
)
def test_debounce_follows_the_last_check_cost(
    monkeypatch: pytest.MonkeyPatch, cost_ms: float | None, expected: float
) -> None:
    ls: Any = SimpleNamespace(settings=SimpleNamespace(debounce_ms=300))
    costs = {} if cost_ms is None else {"file:///a.eval.yaml": cost_ms}
    monkeypatch.setattr(diagnostics, "_last_cost", costs)
    assert diagnostics.debounce_seconds(ls, "file:///a.eval.yaml") == expected
    assert diagnostics.debounce_seconds(ls, "file:///other.eval.yaml") == 0.3  # never checked: the setting
