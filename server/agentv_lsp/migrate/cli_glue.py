"""`agentv-lsp migrate PATHS... [--write] [--format text|json]` without argparse.

    run_migrate(paths, write, fmt, repo_root, cwd, out) -> exit code

0: every v2 file migrated cleanly (or there was nothing to do); 1: some file needs
attention (each named with the reason); 2: usage error (no path, a missing path, bad format).
Without `write` nothing is written: a unified diff and the report are printed.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

from agentv_lsp.engine.files import FileSystem, default_repo_root
from agentv_lsp.migrate.engine import is_v2_text, migrate_text
from agentv_lsp.migrate.model import CompanionChange, Finding, Migration

_SKIP_DIRS = frozenset((".git", "node_modules", ".hg", ".svn", "__pycache__", ".venv", "venv"))
_MAX_EVAL_BYTES = 64 * 1024 * 1024


def run_migrate(
    paths: Sequence[str],
    write: bool,
    fmt: str,
    repo_root: str | None,
    cwd: str,
    out: TextIO,
) -> int:
    if fmt not in ("text", "json"):
        out.write(f"agentv-lsp migrate: unknown format '{fmt}' (use text or json)\n")
        return 2
    if not paths:
        out.write(
            "agentv-lsp migrate: give at least one eval file or folder (e.g. `agentv-lsp migrate evals`)\n"
        )
        return 2
    missing = [p for p in paths if not os.path.exists(os.path.join(cwd, p))]
    if missing:
        out.write("".join(f"agentv-lsp migrate: {p}: no such file or folder\n" for p in missing))
        return 2
    root = os.path.abspath(os.path.join(cwd, repo_root)) if repo_root else default_repo_root(cwd)
    fs = FileSystem()
    migrations: list[Migration] = []
    for path in discover(paths, cwd):
        migrations.append(migrate_path(path, root, cwd, fs, explicit=path in _explicit(paths, cwd)))
    update_references(migrations, root, fs)
    if write:
        for migration in migrations:
            try:
                apply_migration(migration)
            except OSError as exc:
                migration.findings.append(Finding(f"could not write the migration: {exc}", attention=True))
    if fmt == "json":
        payload = {
            "files": [
                {**m.as_json(), "diff": unified_diff(m, cwd)} for m in migrations if m.status != "not-v2"
            ],
            "written": write,
        }
        out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        write_text_report(migrations, write, cwd, out)
    return 1 if any(m.needs_attention for m in migrations) else 0


def _explicit(paths: Sequence[str], cwd: str) -> set[str]:
    return {os.path.abspath(os.path.join(cwd, p)) for p in paths if os.path.isfile(os.path.join(cwd, p))}


def discover(paths: Sequence[str], cwd: str) -> Iterator[str]:
    """Files given, and the YAML files under the folders given that declare agentv-eval-v2."""
    seen: set[str] = set()
    for given in paths:
        absolute = os.path.abspath(os.path.join(cwd, given))
        if os.path.isdir(absolute):
            for folder, dirs, files in os.walk(absolute):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
                for name in sorted(files):
                    full = os.path.join(folder, name)
                    if name.lower().endswith((".yaml", ".yml")) and full not in seen and _declares_v2(full):
                        seen.add(full)
                        yield full
        elif absolute not in seen:
            seen.add(absolute)
            yield absolute


def _declares_v2(path: str) -> bool:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or os.path.getsize(path) > _MAX_EVAL_BYTES:
            return False
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            return is_v2_text(handle.read())
    except OSError:
        return False


def migrate_path(path: str, repo_root: str, cwd: str, fs: FileSystem, explicit: bool = True) -> Migration:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise OSError(f"{path} is not a regular file")
        with open(path, "rb") as handle:
            data = handle.read(_MAX_EVAL_BYTES + 1)
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            text = text[1:]  # Node's readFile keeps it, the YAML parser skips it; we keep none
    except (OSError, UnicodeDecodeError) as exc:
        migration = Migration(path, "untouched", "", "", path)
        migration.findings.append(
            Finding(f"not migrated: cannot read it as UTF-8 text ({exc})", attention=True)
        )
        return migration
    migration = migrate_text(path, text, repo_root=repo_root, cwd=cwd, fs=fs)
    if migration.status == "not-v2" and explicit:
        migration.findings.append(Finding("not an agentv-eval-v2 file: nothing to migrate"))
    if migration.new_path != path and os.path.exists(migration.new_path):
        migration.findings.append(
            Finding(
                f"cannot rename: {os.path.basename(migration.new_path)} already exists beside it",
                attention=True,
            )
        )
    return migration


_TEXT_SUFFIXES = frozenset(
    (".yaml", ".yml", ".json", ".jsonc", ".md", ".txt", ".sh", ".bash", ".ps1", ".cmd", ".bat", ".toml", ".cfg",
     ".ini", ".js", ".mjs", ".cjs", ".ts", ".py", ".mk", ".env")
)  # fmt: skip
_TEXT_NAMES = frozenset(("Makefile", "justfile", "Dockerfile", "Taskfile"))
_MAX_REFERENCE_FILES = 20_000
_MAX_REFERENCE_BYTES = 1024 * 1024


def update_references(migrations: list[Migration], repo_root: str, fs: FileSystem) -> None:
    """Every mention of a renamed eval file (its repo-relative path, its path relative to the
    mentioning file, or its bare name beside it) is rewritten to the new name; the edits join
    the migration as companion changes (shown in the diff, written with --write)."""
    renames = [m for m in migrations if m.status == "migrated" and m.new_path != m.path]
    if not renames:
        return
    own = {m.path for m in migrations}
    pending: dict[str, tuple[str, str, list[str], Migration]] = {}
    for path in _reference_candidates(repo_root):
        if path in own:
            continue
        text = _read_small_text(path)
        if text is None:
            continue
        for m in renames:
            if os.path.basename(m.path) not in text:
                continue
            current = pending[path][1] if path in pending else text
            updated = _replace_mentions(current, m.path, m.new_path, path, repo_root)
            if updated != current:
                old_text, _, reasons, owner = pending.get(path, (text, text, [], m))
                reasons.append(f"{os.path.basename(m.path)} -> {os.path.basename(m.new_path)}")
                pending[path] = (old_text, updated, reasons, owner)
    for path, (old_text, new_text, reasons, owner) in sorted(pending.items()):
        owner.companions.append(
            CompanionChange(path, old_text, new_text, f"mentions the renamed file ({', '.join(reasons)})")
        )


def _reference_candidates(repo_root: str) -> Iterator[str]:
    count = 0
    for folder, dirs, files in os.walk(repo_root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            if name in _TEXT_NAMES or os.path.splitext(name)[1].lower() in _TEXT_SUFFIXES:
                count += 1
                if count > _MAX_REFERENCE_FILES:
                    return
                yield os.path.join(folder, name)


def _read_small_text(path: str) -> str | None:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode) or os.path.getsize(path) > _MAX_REFERENCE_BYTES:
            return None
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _replace_mentions(text: str, old: str, new: str, mentioning: str, repo_root: str) -> str:
    def posix(p: str) -> str:
        return p.replace(os.sep, "/")

    here = os.path.dirname(mentioning)
    pairs = {
        posix(os.path.relpath(old, repo_root)): posix(os.path.relpath(new, repo_root)),
        posix(os.path.relpath(old, here)): posix(os.path.relpath(new, here)),
        posix(old): posix(new),
    }
    for before, after in sorted(pairs.items(), key=lambda kv: -len(kv[0])):
        pattern = re.compile(r"(?<![\w.\-/])(\./)?" + re.escape(before) + r"(?![\w\-]|\.\w)")
        text = pattern.sub(_keep_prefix(after), text)
    return text


def _keep_prefix(after: str) -> Callable[[re.Match[str]], str]:
    """The replacement of one mention: the new path, after the `./` the mention had."""
    return lambda m: (m.group(1) or "") + after


def apply_migration(migration: Migration) -> None:
    """Write the new text (temp file + rename: never half-written), then drop the old name."""
    if migration.status != "migrated" or not migration.changed:
        return
    if migration.new_path != migration.path and os.path.exists(migration.new_path):
        return
    for companion in migration.companions:
        atomic_write(companion.path, companion.new_text, like=companion.path)
    atomic_write(migration.new_path, migration.new_text, like=migration.path)
    if migration.new_path != migration.path:
        os.unlink(migration.path)
    migration.written = True


def atomic_write(path: str, text: str, like: str) -> None:
    folder = os.path.dirname(path) or "."
    fd, temp = tempfile.mkstemp(prefix=".agentv-migrate-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):  # a new file keeps the default mode
            os.chmod(temp, stat.S_IMODE(os.stat(like).st_mode))
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def _shown(path: str, cwd: str) -> str:
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def unified_diff(migration: Migration, cwd: str) -> str:
    parts = []
    if migration.status == "migrated":
        parts.append(
            _diff(
                migration.old_text,
                migration.new_text,
                _shown(migration.path, cwd),
                _shown(migration.new_path, cwd),
            )
        )
        for companion in migration.companions:
            shown = _shown(companion.path, cwd)
            parts.append(_diff(companion.old_text, companion.new_text, shown, shown))
    return "".join(parts)


def _diff(old: str, new: str, old_name: str, new_name: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{old_name}", f"b/{new_name}"
    )
    text = "".join(
        line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return text


def write_text_report(migrations: list[Migration], write: bool, cwd: str, out: TextIO) -> None:
    shown_any = False
    for m in migrations:
        if m.status == "not-v2" and not m.findings:
            continue
        shown_any = True
        name = _shown(m.path, cwd)
        if not write:
            out.write(unified_diff(m, cwd))
        done = "written" if m.written else "not written" if m.changed else "nothing to change"
        verb = {
            "migrated": done if write else "would migrate",
            "untouched": "left untouched",
            "not-v2": "skipped",
        }
        out.write(
            f"== {name}: {verb[m.status]}"
            + (f" -> {_shown(m.new_path, cwd)}" if m.new_path != m.path else "")
        )
        out.write(" (needs attention)\n" if m.needs_attention else "\n")
        for f in m.findings:
            where = _shown(f.file, cwd) if f.file else name
            line = f":{f.line}" if f.line else ""
            out.write(f"  {where}{line}: {'ATTENTION: ' if f.attention else ''}{f.message}\n")
        for c in m.companions:
            out.write(
                f"  {_shown(c.path, cwd)}: {'written' if write else 'would be rewritten'}: {c.reason}\n"
            )
        for proof in m.cases:
            out.write(f"  case '{proof.id}': LM question {proof.verdict}")
            out.write(f" ({'; '.join(proof.causes)})\n" if proof.causes else "\n")
            for line in proof.diff.splitlines():
                out.write(f"    {line}\n")
    if not shown_any:
        out.write("no agentv-eval-v2 file found\n")
