"""Finding files: the folder walk every surface shares (the CLI's `check`, the language
server's workspace symbols, `migrate`), and the reads a command makes (`file_system_for`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from agentv_lsp.engine.files import FileSystem

YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class WalkRules:
    """How a surface walks a folder. `AGENTV_WALK` is AgentV's (check, workspace symbols);
    `MIGRATE_WALK` is what `migrate` has always done (`os.walk` without following links)."""

    skip_dot_folders: bool = True
    skip_folders: frozenset[str] = frozenset(("node_modules",))
    # a link to a folder is walked into (AgentV's glob does); when not, it is passed over
    follow_folder_links: bool = True
    # a folder's own files before its subfolders (`os.walk`), else one name order for both
    files_before_folders: bool = False
    # a YAML-named entry that is not a folder but not a readable file either (a broken link,
    # a FIFO) is still found, for the caller to judge (`os.walk` lists it among the files)
    any_non_folder: bool = False
    # a folder that cannot be listed is said on stderr, or passed over silently (`os.walk`)
    report_unreadable: bool = True

    def skips(self, name: str) -> bool:
        return name in self.skip_folders or (self.skip_dot_folders and name.startswith("."))


AGENTV_WALK = WalkRules()
MIGRATE_WALK = WalkRules(
    skip_dot_folders=False,
    skip_folders=frozenset((".git", "node_modules", ".hg", ".svn", "__pycache__", ".venv", "venv")),
    follow_folder_links=False,
    files_before_folders=True,
    any_non_folder=True,
    report_unreadable=False,
)


def file_system_for(repo_root: str, untrusted: bool) -> FileSystem:
    """The reads of a command: `--untrusted` applies the language server's rules for an
    untrusted workspace (`FileSystem.allowed_roots`), with the repo root as the one folder."""
    return FileSystem(allowed_roots=(os.path.realpath(repo_root),) if untrusted else None)


def walk_yaml(root: str, fs: FileSystem | None = None, rules: WalkRules = AGENTV_WALK) -> Iterator[str]:
    """YAML files under `root`, sorted by name, skipping the folders `rules` skips
    (`fs`: where, the disk by default; `rules`: AgentV's by default). A linked folder that
    leads back to one being walked is not entered again (it would repeat the same files
    until the links nest too deep, and two such links multiply that)."""
    fs = fs or FileSystem()
    return _walk(root, fs.source.realpath(root), frozenset(), fs, rules)


def _walk(folder: str, real: str, above: frozenset[str], fs: FileSystem, rules: WalkRules) -> Iterator[str]:
    try:
        entries = sorted(fs.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        if rules.report_unreadable:
            # imported here: `report` sits above the engine (it renders the diagnostics model)
            from agentv_lsp.report import one_line

            print(f"agentv-lsp: could not read directory {one_line(folder)}: {exc.strerror}", file=sys.stderr)
        return
    above = above | {real}
    folders: list[tuple[str, str]] = []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:
            if not rules.any_non_folder:
                continue
            is_folder = False
        try:
            if is_folder:
                if rules.skips(entry.name):
                    continue
                if entry.is_symlink():
                    if not rules.follow_folder_links:
                        continue
                    inner = fs.source.realpath(entry.path)
                    if inner in above:
                        continue
                else:
                    inner = os.path.join(real, entry.name)
                if rules.files_before_folders:
                    folders.append((entry.path, inner))
                else:
                    yield from _walk(entry.path, inner, above, fs, rules)
            elif entry.name.lower().endswith(YAML_SUFFIXES) and (rules.any_non_folder or entry.is_file()):
                yield entry.path
        except OSError:
            continue
    for path, inner in folders:
        yield from _walk(path, inner, above, fs, rules)
