"""Finding files: the folder walk every surface shares (the CLI's `check`, the language
server's workspace symbols, `migrate`), and the reads a command makes (`file_system_for`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

from agentv_lsp.engine.files import FileSystem

YAML_SUFFIXES = (".yaml", ".yml")


def file_system_for(repo_root: str, untrusted: bool) -> FileSystem:
    """The reads of a command: `--untrusted` applies the language server's rules for an
    untrusted workspace (`FileSystem.allowed_roots`), with the repo root as the one folder."""
    return FileSystem(allowed_roots=(os.path.realpath(repo_root),) if untrusted else None)


def walk_yaml(root: str, fs: FileSystem | None = None) -> Iterator[str]:
    """YAML files under `root`, sorted, skipping `node_modules` and dot-folders like AgentV
    (`fs`: where, the disk by default)."""
    fs = fs or FileSystem()
    try:
        entries = sorted(fs.scandir(root), key=lambda e: e.name)
    except OSError as exc:
        # imported here: `report` sits above the engine (it renders the diagnostics model)
        from agentv_lsp.report import one_line

        print(f"agentv-lsp: could not read directory {one_line(root)}: {exc.strerror}", file=sys.stderr)
        return
    for entry in entries:
        try:
            if entry.is_dir():
                if entry.name == "node_modules" or entry.name.startswith("."):
                    continue
                yield from walk_yaml(entry.path, fs)
            elif entry.name.lower().endswith(YAML_SUFFIXES) and entry.is_file():
                yield entry.path
        except OSError:
            continue
