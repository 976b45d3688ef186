"""The files a `tests: [file://cases/*.yaml]` glob names (fast-glob, `onlyFiles`, `absolute`).

The static leading folders of the pattern are the base; below it every file's relative path
is matched with micromatch's rules (`agentv_lsp.engine.globs`, `dot: false`). The walk is
bounded so a careless `**` at the root cannot hang an editor.
"""

from __future__ import annotations

import os

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.engine.globs import is_match

MAX_ENTRIES = 50_000
_MAGIC = set("*?{}[]()!+@")


def glob_files(fs: FileSystem, pattern: str) -> list[str]:
    parts = pattern.split("/")
    static: list[str] = []
    for part in parts:
        if any(c in _MAGIC for c in part):
            break
        static.append(part)
    base = "/".join(static) or "/"
    relative_pattern = "/".join(parts[len(static) :])
    if not relative_pattern:
        return [pattern] if os.path.isfile(pattern) and fs.is_allowed(pattern) else []
    if not fs.is_allowed(base) or not os.path.isdir(base):
        return []
    wants_dot = "/." in f"/{relative_pattern}"
    found: list[str] = []
    seen = 0
    for current, dirs, files in os.walk(base, followlinks=True):
        seen += len(dirs) + len(files)
        if seen > MAX_ENTRIES:
            break
        if not wants_dot:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel_dir = os.path.relpath(current, base)
        for name in files:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if is_match(rel, [relative_pattern]):
                found.append(os.path.join(current, name))
    return found
