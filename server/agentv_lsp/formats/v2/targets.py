"""v2 target names (the CLI's commands/eval/targets.ts): the targets a `targets.yaml` names
(found by `engine.targets_file`) and the one an eval file chooses: `execution.target` (trimmed),
else the legacy root `target`, else `default`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.engine.jsrt import js_trim
from agentv_lsp.yamlpos import YamlDocument, parse_yaml

AGENT_PROVIDERS = frozenset(("codex", "vscode", "vscode-insiders"))


@dataclass(frozen=True, slots=True)
class TargetsFile:
    path: str
    doc: YamlDocument
    names: dict[str, int]  # target name -> index in `targets`
    providers: dict[str, str]  # target name -> provider as written


def read_targets(path: str, fs: FileSystem) -> TargetsFile | None:
    try:
        text = fs.read_text(path)
    except FileReadError:
        return None
    doc = parse_yaml(text)
    names: dict[str, int] = {}
    providers: dict[str, str] = {}
    value = doc.value
    if isinstance(value, dict) and isinstance(value.get("targets"), list):
        for i, entry in enumerate(value["targets"]):
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"]:
                names.setdefault(entry["name"], i)
                if isinstance(entry.get("provider"), str):
                    providers.setdefault(entry["name"], entry["provider"])
    return TargetsFile(path, doc, names, providers)


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
