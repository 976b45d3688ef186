"""`agentv-lsp migrate PATHS... [--write] [--format text|json]` without argparse.

    run_migrate(paths, write, fmt, repo_root, cwd, out) -> exit code

0: every v2 file migrated cleanly (or there was nothing to do); 1: some file needs
attention (each named with the reason); 2: usage error (no path, a missing path, bad format).
Without `write` nothing is written: a unified diff and the report are printed.

`--write` writes only inside the paths given and inside the repo root, judged after following
symbolic links (`WriteScope`): a change to any other file (a grader prompt named by an absolute
path or `../..`, a link leading out) is reported and left to the user. A symlink keeps being a
symlink: its target is edited. Temporary files are removed on every exit path the process
sees (exceptions and SIGTERM/SIGHUP/SIGINT); those an earlier run could not remove (SIGKILL,
power loss) are removed by the next `--write` over the same folders.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import secrets
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import TextIO

from agentv_lsp.engine.files import FileReadError, FileSystem, default_repo_root
from agentv_lsp.engine.walk import MIGRATE_WALK, walk_yaml
from agentv_lsp.migrate.engine import is_v2_text, migrate_text
from agentv_lsp.migrate.model import CompanionChange, Finding, Migration

# the other walks here (references, links, folders to clean) skip the folders discovery skips
_SKIP_DIRS = MIGRATE_WALK.skip_folders
_MAX_EVAL_BYTES = 64 * 1024 * 1024


def run_migrate(
    paths: Sequence[str],
    write: bool,
    fmt: str,
    repo_root: str | None,
    cwd: str,
    out: TextIO,
    *,
    untrusted: bool = False,
) -> int:
    """`untrusted`: read nothing outside the repo root (the untrusted-workspace rules)."""
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
    fs = FileSystem(allowed_roots=(os.path.realpath(root),) if untrusted else None)
    scope = WriteScope.of(paths, cwd, root)
    migrations: list[Migration] = []
    for path in discover(paths, cwd, fs):
        if not fs.is_allowed(path):
            migration = Migration(path, "untouched", "", "", path)
            migration.findings.append(
                Finding(
                    "not migrated: it leads outside the repo root (--untrusted), not read", attention=True
                )
            )
            migrations.append(migration)
            continue
        migrations.append(migrate_path(path, root, cwd, fs, explicit=path in _explicit(paths, cwd)))
    update_references(migrations, root, fs)
    for migration in migrations:
        scope.screen(migration, cwd)
    mend_links(migrations, scope, root, cwd)
    stale_removed: list[str] = []
    if write:
        stale_removed = remove_stale_temp_files(_write_folders(migrations, paths, cwd))
        with _signals_end_the_write():
            for migration in migrations:
                try:
                    apply_migration(migration)
                except OSError as exc:
                    migration.findings.append(
                        Finding(f"could not write the migration: {exc}", attention=True)
                    )
    if fmt == "json":
        payload = {
            "files": [
                {**m.as_json(), "diff": unified_diff(m, cwd)} for m in migrations if m.status != "not-v2"
            ],
            "written": write,
            "stale_temp_files_removed": stale_removed,
        }
        out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        for stale in stale_removed:
            out.write(f"removed {_shown(stale, cwd)}, left by an interrupted migrate\n")
        write_text_report(migrations, write, cwd, out)
    return 1 if any(m.needs_attention for m in migrations) else 0


def _explicit(paths: Sequence[str], cwd: str) -> set[str]:
    return {os.path.abspath(os.path.join(cwd, p)) for p in paths if os.path.isfile(os.path.join(cwd, p))}


def discover(paths: Sequence[str], cwd: str, fs: FileSystem | None = None) -> Iterator[str]:
    """Files given, and the YAML files under the folders given that declare agentv-eval-v2.
    A file found both as itself and through a symbolic link is migrated once, as itself.
    A YAML file `fs` may not read (--untrusted: it leads outside) is found without being read."""
    fs = fs if fs is not None else FileSystem()
    found: list[str] = []
    seen: set[str] = set()
    for given in paths:
        absolute = os.path.abspath(os.path.join(cwd, given))
        if fs.is_dir(absolute):
            for full in walk_yaml(absolute, fs, MIGRATE_WALK):
                if full not in seen and (_declares_v2(full, fs) if fs.is_allowed(full) else True):
                    seen.add(full)
                    found.append(full)
        elif absolute not in seen:
            seen.add(absolute)
            found.append(absolute)
    real_files = {fs.source.realpath(p) for p in found if not fs.is_symlink(p)}
    linked: set[str] = set()
    for path in found:
        if fs.is_symlink(path):
            target = fs.source.realpath(path)
            if target in real_files or target in linked:
                continue
            linked.add(target)
        yield path


def _declares_v2(path: str, fs: FileSystem) -> bool:
    try:
        data = fs.read_bytes(path, _MAX_EVAL_BYTES + 1)
    except FileReadError:
        return False
    return len(data) <= _MAX_EVAL_BYTES and is_v2_text(data.decode("utf-8", errors="replace"))


def migrate_path(path: str, repo_root: str, cwd: str, fs: FileSystem, explicit: bool = True) -> Migration:
    try:
        data = fs.read_bytes(path, _MAX_EVAL_BYTES + 1)
        if len(data) > _MAX_EVAL_BYTES:
            raise FileReadError(f"larger than {_MAX_EVAL_BYTES // (1024 * 1024)} MiB", code="EFBIG")
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            text = text[1:]  # Node's readFile keeps it, the YAML parser skips it; we keep none
    except (FileReadError, UnicodeDecodeError) as exc:
        migration = Migration(path, "untouched", "", "", path)
        migration.findings.append(
            Finding(f"not migrated: cannot read it as UTF-8 text ({exc})", attention=True)
        )
        return migration
    migration = migrate_text(path, text, repo_root=repo_root, cwd=cwd, fs=fs)
    if migration.status == "not-v2" and explicit:
        migration.findings.append(Finding("not an agentv-eval-v2 file: nothing to migrate"))
    if migration.new_path != path and fs.lexists(migration.new_path):
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
    own = {m.path for m in migrations if m.status != "not-v2"}  # a file named but not v2 may mention
    pending: dict[str, tuple[str, str, list[str], Migration]] = {}
    for path in _reference_candidates(repo_root, fs):
        if path in own:
            continue
        text = _read_small_text(path, fs)
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


def _reference_candidates(repo_root: str, fs: FileSystem) -> Iterator[str]:
    count = 0
    for folder, dirs, files in fs.walk(repo_root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            if name in _TEXT_NAMES or os.path.splitext(name)[1].lower() in _TEXT_SUFFIXES:
                count += 1
                if count > _MAX_REFERENCE_FILES:
                    return
                yield os.path.join(folder, name)


def _read_small_text(path: str, fs: FileSystem) -> str | None:
    try:
        data = fs.read_bytes(path, _MAX_REFERENCE_BYTES + 1)
        return data.decode("utf-8") if len(data) <= _MAX_REFERENCE_BYTES else None
    except (FileReadError, UnicodeDecodeError):
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


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass(frozen=True, slots=True)
class WriteScope:
    """Where `--write` may write: inside one of the paths given and inside the repo root, both
    judged on real paths (symbolic links followed), so no link or `..` leads a write out."""

    given: tuple[str, ...]
    root: str
    # the words for `given` and what the user can do (the server's quick fix says it its way)
    outside_given: str = "outside the paths given"
    hint: str = "name it among the paths to migrate it, or edit it yourself"

    @classmethod
    def of(cls, paths: Sequence[str], cwd: str, repo_root: str) -> WriteScope:
        return cls(tuple(os.path.realpath(os.path.join(cwd, p)) for p in paths), os.path.realpath(repo_root))

    def refusal(self, path: str, follow: bool = True) -> str | None:
        """Why `path` (the file a write would change, after its links) may not be written.
        `follow=False`: the entry itself is changed (a link retargeted), judged where it lies."""
        real = (
            os.path.realpath(path)
            if follow
            else os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        )
        if not _within(real, self.root):
            return "outside the repo root"
        if not any(_within(real, given) for given in self.given):
            return self.outside_given
        return None

    def screen(self, migration: Migration, cwd: str) -> None:
        """Mark and report what `--write` will not write (the same in a dry run)."""
        if migration.status != "migrated" or not migration.changed:
            return
        for path in (*(c.path for c in migration.companions), migration.path):
            reason = self.refusal(path)
            if reason is None:
                continue
            migration.not_written.append(path)
            real = os.path.realpath(path)
            via = f" (through the link {_shown(path, cwd)})" if real != os.path.abspath(path) else ""
            migration.findings.append(
                Finding(
                    f"would change {_shown(real, cwd)}{via}, {reason}; not written ({self.hint})",
                    attention=True,
                )
            )


def _landing(link: str, target: str) -> str | None:
    """The path a link's last hop names (its folder's links followed, not the file's own)."""
    name = os.path.basename(target)
    if name in ("", ".", ".."):
        return None
    folder = os.path.realpath(os.path.join(os.path.dirname(link), os.path.dirname(target)))
    return os.path.join(folder, name)


def _symlinks_under(root: str) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            path = os.path.join(folder, name)
            if os.path.islink(path):
                yield path


def mend_links(migrations: list[Migration], scope: WriteScope, repo_root: str, cwd: str) -> None:
    """A symbolic link in the repository that leads to a file the migration renames would be left
    dangling: one where `--write` may write is retargeted with the rename (named in the report);
    one elsewhere keeps the file from being written (needs attention)."""
    renamed: dict[str, Migration] = {}
    for each in migrations:
        if each.status == "migrated" and each.new_path != each.path and each.path not in each.not_written:
            renamed[
                os.path.join(os.path.realpath(os.path.dirname(each.path)), os.path.basename(each.path))
            ] = each
    if not renamed:
        return
    for link in _symlinks_under(repo_root):
        try:
            target = os.readlink(link)
        except OSError:
            continue
        landing = _landing(link, target)
        m = renamed.get(landing) if landing is not None else None
        if m is None or os.path.abspath(link) == os.path.abspath(m.path):
            continue
        reason = scope.refusal(link, follow=False)  # the link itself is written, not its file
        if reason is None:
            new_target = os.path.join(os.path.dirname(target), os.path.basename(m.new_path))
            m.links.append((link, new_target))
            m.findings.append(
                Finding(
                    f"the link {_shown(link, cwd)} leads to it: retargeted to {new_target} with the rename"
                )
            )
        elif m.path not in m.not_written:
            m.not_written.append(m.path)
            m.findings.append(
                Finding(
                    f"not written: renaming it would leave the link {_shown(link, cwd)} dangling, and that "
                    f"link is {reason} (name it among the paths, or rename and relink yourself)",
                    attention=True,
                )
            )


def apply_migration(migration: Migration) -> None:
    """Write the new text (temp file + rename: never half-written), then drop the old name.
    Files in `migration.not_written` are left alone; when the eval file is one of them,
    nothing is written. A symlink stays a symlink: its target gets the new text."""
    if migration.status != "migrated" or not migration.changed:
        return
    if migration.path in migration.not_written:
        return
    if migration.new_path != migration.path and os.path.lexists(migration.new_path):
        return
    for companion in migration.companions:
        if companion.path not in migration.not_written:
            atomic_write(os.path.realpath(companion.path), companion.new_text, like=companion.path)
    if os.path.islink(migration.path):
        atomic_write(os.path.realpath(migration.path), migration.new_text, like=migration.path)
        if migration.new_path != migration.path:
            os.rename(migration.path, migration.new_path)  # the link itself, under its new name
    else:
        atomic_write(migration.new_path, migration.new_text, like=migration.path)
        if migration.new_path != migration.path:
            os.unlink(migration.path)
    for link, target in migration.links:
        _retarget(link, target)
    migration.written = True


def _retarget(link: str, target: str) -> None:
    """Point `link` at `target` in one step (a new link renamed over it)."""
    temp = os.path.join(os.path.dirname(link), f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.tmp")
    os.symlink(target, temp)
    try:
        os.replace(temp, link)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


# `.agentv-migrate-<pid>-<random>.tmp`: the process id tells a later run whether its writer
# still lives; `.agentv-migrate-<random>.tmp` (no id) is what versions before it left.
TEMP_PREFIX = ".agentv-migrate-"
_TEMP_NAME = re.compile(r"^\.agentv-migrate-(?:(\d+)-)?[A-Za-z0-9_]{8}\.tmp$")


def atomic_write(path: str, text: str, like: str) -> None:
    folder = os.path.dirname(path) or "."
    temp = ""
    try:
        fd, temp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):  # a new file keeps the default mode
            os.chmod(temp, stat.S_IMODE(os.stat(like).st_mode))
        os.replace(temp, path)
    except BaseException:
        if temp:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's process: not ours to judge
    return True


def remove_stale_temp_files(folders: Iterator[str]) -> list[str]:
    """Temporary files of migrate runs that ended without removing them (SIGKILL, a crash):
    regular files named as `atomic_write` names them whose process is gone. Returns them."""
    removed: list[str] = []
    for folder in folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            match = _TEMP_NAME.match(entry.name)
            if match is None or not entry.is_file(follow_symlinks=False):
                continue
            if match.group(1) is not None and _pid_alive(int(match.group(1))):
                continue
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(entry.path)
    return removed


def _write_folders(migrations: list[Migration], paths: Sequence[str], cwd: str) -> Iterator[str]:
    """Every folder a write may put a temporary file in: those of the files written, and the
    folders under the paths given (an interrupted run may have been writing anywhere there)."""
    seen: set[str] = set()

    def once(folder: str) -> Iterator[str]:
        if folder not in seen:
            seen.add(folder)
            yield folder

    for given in paths:
        absolute = os.path.abspath(os.path.join(cwd, given))
        if os.path.isdir(absolute):
            for folder, dirs, _files in os.walk(absolute):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
                yield from once(folder)
        else:
            yield from once(os.path.dirname(absolute))
    for m in migrations:
        if m.status == "migrated" and m.changed:
            for path in (m.path, *(c.path for c in m.companions)):
                if path not in m.not_written:
                    yield from once(os.path.dirname(os.path.realpath(path)))


class _EndWrite(BaseException):
    """A signal during `--write`: unwinds through `atomic_write`, which removes its temp file."""


@contextlib.contextmanager
def _signals_end_the_write() -> Iterator[None]:
    """SIGTERM and SIGHUP (whose default is to die at once, leaving the temporary file) raise
    instead while files are written; the process then ends with the signal's usual status.
    SIGINT already raises KeyboardInterrupt. Only the main thread can take signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def end(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)
        raise _EndWrite

    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {sig: signal.signal(sig, end) for sig in wanted}
    try:
        yield
    except _EndWrite:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught:
        os.kill(os.getpid(), caught[0])  # the previous handler now: the usual end
        raise SystemExit(128 + caught[0])


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
            state = "not written" if c.path in m.not_written else "written" if write else "would be rewritten"
            out.write(f"  {_shown(c.path, cwd)}: {state}: {c.reason}\n")
        for proof in m.cases:
            out.write(f"  case '{proof.id}': LM question {proof.verdict}")
            out.write(f" ({'; '.join(proof.causes)})\n" if proof.causes else "\n")
            for line in proof.diff.splitlines():
                out.write(f"    {line}\n")
    if not shown_any:
        out.write("no agentv-eval-v2 file found\n")
