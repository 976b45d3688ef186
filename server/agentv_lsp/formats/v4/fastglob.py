"""The files a `tests: [file://cases/*.yaml]` glob names (fast-glob, `onlyFiles`, `absolute`).

The static leading folders of the pattern are the base; below it every file's relative path
is matched with micromatch's rules (`agentv_lsp.engine.globs`, `dot: false`). The walk is
bounded so a careless `**` at the root cannot hang an editor.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.globs import is_match

# Entries (files and folders) a walk visits before it stops; the loader then says so.
MAX_ENTRIES = 50_000
_MAGIC = set("*?{}[]()!+@")


@dataclass(frozen=True, slots=True)
class GlobMatches:
    files: list[str]  # in walk order: folders and files sorted by name, a folder's files first
    base: str  # the static folder the walk started from
    capped: bool = False  # the walk stopped at `max_entries`: later entries were not looked at
    max_entries: int = MAX_ENTRIES


def glob_files(fs: FileSystem, pattern: str, max_entries: int | None = None) -> GlobMatches:
    """The files `pattern` names. The walk is sorted, so which entries a cap leaves out does not
    depend on the order the file system lists them in. `max_entries`: MAX_ENTRIES by default."""
    cap = MAX_ENTRIES if max_entries is None else max_entries
    parts = pattern.split("/")
    static: list[str] = []
    for part in parts:
        if any(c in _MAGIC for c in part):
            break
        static.append(part)
    base = "/".join(static) or "/"
    relative_pattern = "/".join(parts[len(static) :])
    if not relative_pattern:
        exists = fs.is_file(pattern) and fs.is_allowed(pattern)
        return GlobMatches([pattern] if exists else [], base, max_entries=cap)
    if not fs.is_allowed(base) or not fs.is_dir(base):
        return GlobMatches([], base, max_entries=cap)
    wants_dot = "/." in f"/{relative_pattern}"
    found: list[str] = []
    left = cap
    capped = False
    for current, dirs, files in fs.walk(base, followlinks=True):
        if not wants_dot:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        dirs.sort()
        rel_dir = os.path.relpath(current, base)
        for name in sorted(files):
            if left <= 0:
                capped = True
                break
            left -= 1
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if is_match(rel, [relative_pattern]):
                found.append(os.path.join(current, name))
        if capped:
            break
        if len(dirs) > left:  # the folders past the cap are not entered
            del dirs[left:]
            capped = True
        left -= len(dirs)
    return GlobMatches(found, base, capped, cap)
