"""The `agentv/status` answer both formats give (`lsp/v2/commands.py`, `lsp/v4/commands.py`)."""

from __future__ import annotations

from typing import Any

from agentv_lsp.formats.runtime import RuntimeChoice


def status_json(
    kind: str | None,
    path: str,
    root_value: Any,
    config: str | None = None,
    targets: str | None = None,
    cases: int | None = None,
) -> dict[str, Any]:
    """The `agentv/status` keys of a document of either format: an eval file names the config
    and targets files it uses (`config`, `targets`), a config or targets file itself."""
    schema = root_value.get("$schema") if isinstance(root_value, dict) else None
    if kind == "config":
        config = path
    elif kind == "targets":
        targets = path
    return {
        "schema": schema if isinstance(schema, str) else None,
        "config": config,
        "kind": kind,
        "targets": targets,
        "cases": cases,
    }


def runtime_json(choice: RuntimeChoice) -> dict[str, Any]:
    """Which AgentV judges a document, and why (the client's status item shows it)."""
    return {
        "major": choice.major,
        "version": choice.version,
        "reason": choice.reason,
        "description": choice.describe(),
    }
