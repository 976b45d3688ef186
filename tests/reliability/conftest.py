"""Reliability tests: the `slow` marker.

Heavy cases (a 50 MB document through the server, the 20-second soak, long fuzz runs) are
marked `slow`. They are skipped in a plain local `pytest` run, to keep it fast, and run when
`CI` is set (`.ci/run` exports CI=true), when `AGENTV_SLOW=1`, or with `-m slow`.
"""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: heavy reliability case; runs in CI (CI set), with AGENTV_SLOW=1 or with -m slow",
    )


def slow_cases_enabled(config: pytest.Config) -> bool:
    selected = str(config.getoption("markexpr", default="") or "")
    asked = "slow" in selected and "not slow" not in selected
    return bool(os.environ.get("CI") or os.environ.get("AGENTV_SLOW")) or asked


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if slow_cases_enabled(config):
        return
    skip = pytest.mark.skip(reason="slow: runs in CI, with AGENTV_SLOW=1 or with -m slow")
    for item in items:
        if "slow" in item.keywords and "reliability" in str(item.path):
            item.add_marker(skip)
