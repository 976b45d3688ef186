"""Where `targets.yaml` is (the CLI's commands/eval/targets.ts), and the targets it names, for both
formats (v2's checks and navigation, and the `target:` completion of either).

`agentv eval` looks for `targets.yaml`, `targets.yml`, `.agentv/targets.yaml` and
`.agentv/targets.yml` in each folder from the eval file's up to the repo root, then in CWD.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from agentv_lsp.engine.files import FileReadError, FileSystem, build_directory_chain
from agentv_lsp.yamlpos import YamlDocument, parse_yaml

CANDIDATES = (
    "targets.yaml",
    "targets.yml",
    os.path.join(".agentv", "targets.yaml"),
    os.path.join(".agentv", "targets.yml"),
)


def find_targets_file(eval_path: str, repo_root: str, cwd: str, fs: FileSystem) -> str | None:
    for directory in (*build_directory_chain(eval_path, repo_root), cwd):
        for candidate in CANDIDATES:
            path = os.path.join(directory, candidate)
            if fs.exists(path):
                return path
    return None


@dataclass(frozen=True, slots=True)
class TargetsFile:
    path: str
    doc: YamlDocument
    names: dict[str, int]  # target name -> index in `targets` (the first entry of a name)
    providers: dict[str, str]  # target name -> the first provider written for it


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
