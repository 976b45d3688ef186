"""File access and AgentV's file-reference resolution (loaders/file-resolver.ts).

All reads go through a `FileSystem`, which
- answers existence the way Node's `fs.access(F_OK)` does (directories exist too),
- reads text the way `readFile(path, "utf8")` does (invalid UTF-8 becomes U+FFFD),
  but refuses FIFOs and devices instead of blocking, caps the bytes read, and
- can be restricted to a set of folders (untrusted workspaces), and
- can serve unsaved editor buffers in place of the disk, and
- reads from a `Source`: the disk (`DISK`), or anything that answers the same questions (a git
  revision, `diff.revision`). The engines ask the `FileSystem` for everything they touch (exists,
  read, stat, list a folder, walk), never `os` directly, so a revision is read as the disk is.
Error messages mimic Node's (`EISDIR: illegal operation on a directory, read`) because
AgentV prints them inside its warnings.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from agentv_lsp.engine.jsrt import node_normalize, node_resolve

DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024


class FileReadError(Exception):
    """A read that failed; `str(exc)` is the message Node would have given."""

    def __init__(self, message: str, *, code: str = "EIO") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class FileText:
    text: str
    truncated: bool = False  # the file was larger than the read cap
    binary: bool = False  # NUL bytes found: probably not a text file
    size: int = 0


def truncated_message(path: str, read: FileText, limit: int) -> str:
    """`file-truncated`, in both formats: a referenced file read only up to the size cap."""
    return (
        f"agentv-lsp read only the first {limit:,} bytes of {path} ({read.size:,} bytes): the preview of this "
        "file is incomplete (AgentV itself reads it whole). Raise maxFileSizeKb to see all."
    )


_NODE_ERRORS = {
    errno.ENOENT: ("ENOENT", "no such file or directory, open '{path}'"),
    errno.EACCES: ("EACCES", "permission denied, open '{path}'"),
    errno.EPERM: ("EPERM", "operation not permitted, open '{path}'"),
    errno.ENOTDIR: ("ENOTDIR", "not a directory, open '{path}'"),
    errno.ELOOP: ("ELOOP", "too many symbolic links encountered, open '{path}'"),
    errno.ENAMETOOLONG: ("ENAMETOOLONG", "name too long, open '{path}'"),
    errno.ENXIO: ("ENXIO", "no such device or address, open '{path}'"),  # a Unix socket
}


def _node_error(exc: OSError, path: str) -> FileReadError:
    code, template = _NODE_ERRORS.get(exc.errno or 0, ("EIO", "i/o error, open '{path}'"))
    return FileReadError(f"{code}: {template.format(path=path)}", code=code)


class StatResult(Protocol):
    """What the engines use of `os.stat_result`."""

    @property
    def st_mode(self) -> int: ...
    @property
    def st_size(self) -> int: ...
    @property
    def st_mtime_ns(self) -> int: ...


class DirEntry(Protocol):
    """What the engines use of `os.DirEntry` (kinds as Node's Dirent sees them with
    `follow_symlinks=False`)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    def is_file(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_symlink(self) -> bool: ...


Walk = Iterator[tuple[str, list[str], list[str]]]


class Source(Protocol):
    """Where a FileSystem's bytes come from. Each call behaves as its `os` namesake: OSError with
    the errno the kernel would give. `read_regular` raises FileReadError for a folder or a file
    that is not regular, OSError when the path cannot be opened."""

    def stat(self, path: str) -> StatResult: ...
    def lstat(self, path: str) -> StatResult: ...
    def realpath(self, path: str) -> str: ...
    def scandir(self, path: str) -> list[DirEntry]: ...
    def walk(self, top: str, followlinks: bool = False) -> Walk: ...
    def read_regular(self, path: str, limit: int) -> tuple[bytes, int]: ...


class DiskSource:
    """The files on this machine."""

    def stat(self, path: str) -> StatResult:
        return os.stat(path)

    def lstat(self, path: str) -> StatResult:
        return os.lstat(path)

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def scandir(self, path: str) -> list[DirEntry]:
        with os.scandir(path) as entries:
            return list(entries)

    def walk(self, top: str, followlinks: bool = False) -> Walk:
        return os.walk(top, followlinks=followlinks)

    def read_regular(self, path: str, limit: int) -> tuple[bytes, int]:
        """Up to `limit` + 1 bytes of a regular file, and its size."""
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise FileReadError("EISDIR: illegal operation on a directory, read", code="EISDIR")
            if not stat.S_ISREG(info.st_mode):
                raise FileReadError(
                    f"not a regular file (FIFO, socket or device), refused: '{path}'", code="ENOTREG"
                )
            chunks: list[bytes] = []
            remaining = limit + 1
            # the whole file in one read when its size is known (no copy when joining)
            size_hint = max(info.st_size + 1, 1 << 16)
            while remaining > 0:
                chunk = os.read(fd, min(remaining, size_hint))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
        finally:
            os.close(fd)
        return b"".join(chunks), info.st_size


DISK: Source = DiskSource()


def walk_source(source: Source, top: str, followlinks: bool = False) -> Walk:
    """`os.walk` over any source's `scandir`: top-down, in listing order, so the caller may prune
    the folder list before it is entered; a folder that cannot be listed is passed over."""
    stack = [top]
    while stack:
        current = stack.pop()
        try:
            entries = source.scandir(current)
        except OSError:
            continue
        folders: list[str] = []
        files: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (folders if is_dir else files).append(entry.name)
        yield current, folders, files
        for name in reversed(folders):
            inner = os.path.join(current, name)
            try:
                linked = stat.S_ISLNK(source.lstat(inner).st_mode)
            except OSError:
                continue
            if followlinks or not linked:
                stack.append(inner)


@dataclass
class FileSystem:
    """Disk access with caching, size caps, folder restrictions and editor overlays."""

    max_bytes: int = DEFAULT_MAX_FILE_BYTES
    # When set, nothing outside these folders is read or even tested for existence.
    allowed_roots: tuple[str, ...] | None = None
    # Unsaved editor buffers by absolute path.
    overlays: dict[str, str] = field(default_factory=dict)
    cache: bool = True
    source: Source = DISK
    _exists: dict[str, bool] = field(default_factory=dict, repr=False)
    _texts: dict[str, FileText | FileReadError] = field(default_factory=dict, repr=False)
    _blocked: set[str] = field(default_factory=set, repr=False)
    _loops: set[str] = field(default_factory=set, repr=False)  # paths whose lookup met ELOOP
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def invalidate(self, paths: Iterable[str] | None = None) -> None:
        with self._lock:
            if paths is None:
                self._exists.clear()
                self._texts.clear()
                self._loops.clear()
                return
            for p in paths:
                self._exists.pop(p, None)
                self._texts.pop(p, None)
                self._loops.discard(p)

    def is_allowed(self, path: str) -> bool:
        if self.allowed_roots is None:
            return True
        try:
            real = self.source.realpath(path)
        except ValueError:  # a NUL byte: no file has that name; the lookup that follows fails
            return True
        return any(real == root or real.startswith(root.rstrip("/") + "/") for root in self.allowed_roots)

    def was_blocked(self, path: str) -> bool:
        return path in self._blocked

    def is_symlink_loop(self, path: str) -> bool:
        """Whether `exists(path)` failed because of a symbolic link loop (ELOOP)."""
        return path in self._loops

    def exists(self, path: str) -> bool:
        """`fs.access(path, F_OK)`: true for files and directories, following symlinks."""
        if path in self.overlays:
            return True
        cached = self._exists.get(path)
        if cached is not None:
            return cached
        if not self.is_allowed(path):
            self._blocked.add(path)
            result = False
        else:
            try:
                self.source.stat(path)
                result = True
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    self._loops.add(path)
                result = False
            except ValueError:
                result = False
        if self.cache:
            self._exists[path] = result
        return result

    def read(self, path: str) -> FileText:
        """`readFile(path, "utf8")`, bounded. Raises FileReadError with Node's message."""
        overlay = self.overlays.get(path)
        if overlay is not None:
            return FileText(overlay, size=len(overlay))
        cached = self._texts.get(path)
        if cached is None:
            cached = self._read_disk(path)
            if self.cache:
                self._texts[path] = cached
        if isinstance(cached, FileReadError):
            raise cached
        return cached

    def read_text(self, path: str) -> str:
        return self.read(path).text

    def read_document(self, path: str) -> str:
        """The whole text of a file being checked or previewed itself: the size cap is for
        the files it references (a truncated eval file would just be a YAML error)."""
        overlay = self.overlays.get(path)
        if overlay is not None:
            return overlay
        result = self._read_disk(path, whole=True)
        if isinstance(result, FileReadError):
            raise result
        return result.text

    def _read_disk(self, path: str, whole: bool = False) -> FileText | FileReadError:
        if not self.is_allowed(path):
            self._blocked.add(path)
            return FileReadError(
                f"EACCES: outside the workspace folders (untrusted workspace), open '{path}'", code="EACCES"
            )
        limit = (1 << 62) if whole else self.max_bytes
        try:
            data, size = self.source.read_regular(path, limit)
        except FileReadError as exc:
            return exc
        except OSError as exc:
            return _node_error(exc, path)
        except ValueError:  # Node: ERR_INVALID_ARG_VALUE for a path with a NUL byte
            return FileReadError(
                "The argument 'path' must be a string, Uint8Array, or URL without null bytes", code="EINVAL"
            )
        truncated = len(data) > limit
        if truncated:
            data = data[:limit]
        return FileText(
            data.decode("utf-8", errors="replace"),
            truncated=truncated,
            binary=b"\x00" in data[:8192],
            size=size,
        )

    # -- the rest of what the engines touch on disk, through the same source ---------------
    # These answer as their `os` namesakes do (the trust rule is the caller's, as before:
    # `is_allowed` first), so that the engines never call `os` themselves.

    def stat(self, path: str) -> StatResult:
        return self.source.stat(path)

    def found(self, path: str) -> bool:
        """`os.path.exists` (follows symbolic links; no trust rule, no cache: a path the user
        named, or the `.git` marker of the repository root)."""
        try:
            self.source.stat(path)
        except (OSError, ValueError):
            return False
        return True

    def lexists(self, path: str) -> bool:
        """`os.path.lexists`: a dangling symbolic link exists."""
        try:
            self.source.lstat(path)
        except (OSError, ValueError):
            return False
        return True

    def is_file(self, path: str) -> bool:
        """`os.path.isfile` (follows symbolic links)."""
        try:
            return stat.S_ISREG(self.source.stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def is_dir(self, path: str) -> bool:
        """`os.path.isdir` (follows symbolic links)."""
        try:
            return stat.S_ISDIR(self.source.stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def scandir(self, path: str) -> list[DirEntry]:
        """`os.scandir`, listed whole (OSError as it gives)."""
        return self.source.scandir(path)

    def walk(self, top: str, followlinks: bool = False) -> Walk:
        """`os.walk` (top-down: the caller may prune the folder list)."""
        return self.source.walk(top, followlinks)

    def folder_entries(self, path: str) -> list[tuple[str, bool]] | None:
        """The names in a folder, sorted, each with whether it is a folder (following links);
        None when `path` is no folder, or one outside the allowed folders (never listed)."""
        if not self.is_allowed(path):
            self._blocked.add(path)
            return None
        try:
            entries = self.source.scandir(path)
        except (OSError, ValueError):
            return None
        listed: list[tuple[str, bool]] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            listed.append((entry.name, is_dir))
        return sorted(listed)

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """The raw bytes of a regular file (no overlay): at most `limit` bytes, `max_bytes` when
        not given, so a caller that asks for one byte more than it accepts sees a file too large.
        FileReadError for a path outside the allowed folders, a missing or irregular file."""
        if not self.is_allowed(path):
            self._blocked.add(path)
            raise FileReadError(
                f"EACCES: outside the workspace folders (untrusted workspace), open '{path}'", code="EACCES"
            )
        bound = self.max_bytes if limit is None else limit
        try:
            data, _size = self.source.read_regular(path, bound)
        except OSError as exc:
            raise _node_error(exc, path) from exc
        except ValueError as exc:  # a NUL byte in the path
            raise FileReadError(f"invalid path '{path}'", code="EINVAL") from exc
        return data[:bound]

    def is_symlink(self, path: str) -> bool:
        """`os.path.islink`."""
        try:
            return stat.S_ISLNK(self.source.lstat(path).st_mode)
        except (OSError, ValueError):
            return False


@dataclass(frozen=True, slots=True)
class Resolution:
    """The outcome of `resolveFileReference`."""

    raw: str
    display_path: str
    resolved_path: str | None
    attempted: tuple[str, ...]


def display_path_of(raw: str) -> str:
    """The value minus leading '/' and '\\' (the raw value when nothing would remain)."""
    stripped = raw.lstrip("/\\")
    return stripped if stripped else raw


def build_search_roots(eval_path: str, repo_root: str, cwd: str) -> tuple[str, ...]:
    """The eval file's folder and its ancestors up to the repo root, then the root and CWD."""
    roots: list[str] = []

    def add(root: str) -> None:
        normalized = node_resolve("/", root)
        if normalized not in roots:
            roots.append(normalized)

    current = os.path.dirname(eval_path)
    while True:
        add(current)
        parent = os.path.dirname(current)
        if current == repo_root or parent == current:
            break
        current = parent
    add(repo_root)
    add(cwd)
    return tuple(roots)


def build_directory_chain(file_path: str, repo_root: str) -> tuple[str, ...]:
    """Folders searched for `.agentv/config.yaml`: the file's folder up to the repo root."""
    directories: list[str] = []
    boundary = node_resolve("/", repo_root)
    current = node_resolve("/", os.path.dirname(file_path))
    while True:
        if current not in directories:
            directories.append(current)
        if current == boundary:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if boundary not in directories:
        directories.append(boundary)
    return tuple(directories)


def resolve_reference(raw: str, search_roots: Sequence[str], fs: FileSystem) -> Resolution:
    display = display_path_of(raw)
    candidates: list[str] = []
    if raw.startswith("/"):
        candidates.append(node_normalize(raw))
    candidates.extend(node_resolve(root, display) for root in search_roots)
    attempted: list[str] = []
    for candidate in candidates:
        absolute = node_resolve("/", candidate)
        if absolute in attempted:
            continue
        attempted.append(absolute)
        if fs.exists(absolute):
            return Resolution(raw, display, absolute, tuple(attempted))
    return Resolution(raw, display, None, tuple(attempted))


def find_git_root(start_dir: str, is_marker: Callable[[str], bool] | None = None) -> str | None:
    """The nearest ancestor of `start_dir` (inclusive) holding `.git`, never the filesystem root."""
    check = is_marker or (lambda d: os.path.exists(os.path.join(d, ".git")))
    current = os.path.abspath(start_dir)
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            return None
        if check(current):
            return current
        current = parent


def default_repo_root(cwd: str) -> str:
    """AgentV's repo root: the nearest ancestor of the working directory holding `.git`."""
    return find_git_root(cwd) or cwd
