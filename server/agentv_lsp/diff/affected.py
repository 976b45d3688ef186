"""Which eval files a change can reach, decided from the text alone (no preview).

An eval file reaches another file only by naming it: a file segment, `input_files`, a grader's
`file://` prompt, a `tests: file://cases.yaml` (whose own text is read the same way), or a glob
or folder that lists it. So a file is previewed when
- it changed itself, or was renamed;
- its text (or that of a YAML/JSONL file it names) holds the name of a changed file, or, for a
  file added or removed, the name of one of its folders;
- a config, targets file, package.json or node_modules entry in its folder or above changed
  (they decide runtime, guidelines and targets);
- it names files through a glob, `input_files` or `${{ VAR }}` and files were added or removed.
Every other eval file reads exactly the same bytes in both revisions, so its prompts are the
same: it is not previewed (`--full` previews everything).
"""

from __future__ import annotations

import re

from agentv_lsp.diff.snapshot import Snapshot

_SETTINGS = frozenset({"config.yaml", "config.yml", "targets.yaml", "targets.yml", "package.json"})
_LISTS_FILES = re.compile(r"file://\S*[*?{]|input_files|\$\{\{")
_NAMED_TEXTS = (".yaml", ".yml", ".jsonl", ".json")
_MAX_TEXT = 8 * 1024 * 1024


def affected_files(
    head: Snapshot, pairs: list[tuple[str | None, str | None]], moved: set[str], modified: set[str]
) -> set[tuple[str | None, str | None]]:
    changed = moved | modified
    if not changed:
        return {p for p in pairs if p[0] != p[1]}
    by_name: dict[str, list[str]] = {}
    for path in head.files:
        lower = path.lower()
        if (
            lower.endswith(_NAMED_TEXTS)
            and not lower.endswith((".eval.yaml", ".eval.yml"))
            and not _is_setting(path)
        ):
            by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    names = {p.rsplit("/", 1)[-1] for p in changed}
    folder_names = {part for p in moved for part in p.split("/")[:-1]}
    settings = [_settings_folder(p) for p in changed if _is_setting(p)]
    out = set()
    for pair in pairs:
        old, new = pair
        if old != new or new is None or new in changed:
            out.add(pair)
            continue
        folder = new.rsplit("/", 1)[0] if "/" in new else ""
        if any(s == "" or folder == s or folder.startswith(s + "/") for s in settings):
            out.add(pair)
            continue
        text = _reachable_text(head, new, by_name)
        if (
            any(n in text for n in names)
            or any(n in text for n in folder_names)
            or (moved and _LISTS_FILES.search(text))
        ):
            out.add(pair)
    return out


def _is_setting(path: str) -> bool:
    parts = path.split("/")
    return parts[-1] in _SETTINGS or ".agentv" in parts[:-1] or "node_modules" in parts[:-1]


def _settings_folder(path: str) -> str:
    """The folder whose eval files (and those below) a settings file governs."""
    parts = path.split("/")[:-1]
    for marker in (".agentv", "node_modules"):
        if marker in parts:
            parts = parts[: parts.index(marker)]
    return "/".join(parts)


def _reachable_text(head: Snapshot, start: str, by_name: dict[str, list[str]]) -> str:
    """The eval file's text and that of the YAML/JSON files it names, and so on (cases files)."""
    seen = {start}
    texts = []
    queue = [start]
    while queue and len(seen) < 200:
        path = queue.pop()
        data = head.read_bytes(path, _MAX_TEXT) or b""
        text = data.decode("utf-8", "replace")
        texts.append(text)
        for name, paths in by_name.items():
            if name in text:
                for other in paths:
                    if other not in seen:
                        seen.add(other)
                        queue.append(other)
    return "\n".join(texts)
