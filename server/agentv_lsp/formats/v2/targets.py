"""v2 target names (the CLI's commands/eval/targets.ts): the targets a `targets.yaml` names
(found and read by `engine.targets_file`) and the one an eval file chooses: `execution.target` (trimmed),
else the legacy root `target`, else `default`.
"""

from __future__ import annotations

from typing import Any

from agentv_lsp.engine.jsrt import js_trim
from agentv_lsp.engine.targets_file import TargetsFile, read_targets

__all__ = ["AGENT_PROVIDERS", "TargetsFile", "formatting_mode", "read_targets", "selected_target"]

AGENT_PROVIDERS = frozenset(("codex", "vscode", "vscode-insiders"))


def selected_target(suite: Any) -> tuple[str, tuple[str, ...]] | None:
    """The target name an eval file selects and the YAML path that selects it."""
    if not isinstance(suite, dict):
        return None
    execution = suite.get("execution")
    if isinstance(execution, dict):
        target = execution.get("target")
        if isinstance(target, str) and js_trim(target):
            return js_trim(target), ("execution", "target")
    target = suite.get("target")
    if isinstance(target, str) and js_trim(target):
        return js_trim(target), ("target",)
    return None


def formatting_mode(provider: str | None) -> str:
    """Agent providers get `agent` formatting; everything else (cli and mock too) gets `lm`."""
    return "agent" if provider is not None and provider.lower() in AGENT_PROVIDERS else "lm"
