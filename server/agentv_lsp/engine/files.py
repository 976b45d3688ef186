"""File access and AgentV's file-reference resolution (loaders/file-resolver.ts).

All reads go through a `FileSystem`, which
- answers existence the way Node's `fs.access(F_OK)` does (directories exist too),
- reads text the way `readFile(path, "utf8")` does (invalid UTF-8 becomes U+FFFD),
  but refuses FIFOs and devices instead of blocking, caps the bytes read, and
- can be restricted to a set of folders (untrusted workspaces), and
- can serve unsaved editor buffers in place of the disk.
Error messages mimic Node's (`EISDIR: illegal operation on a directory, read`) because
AgentV prints them inside its warnings.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

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


@dataclass
class FileSystem:
    """Disk access with caching, size caps, folder restrictions and editor overlays."""

    max_bytes: int = DEFAULT_MAX_FILE_BYTES
    # When set, nothing outside these folders is read or even tested for existence.
    allowed_roots: tuple[str, ...] | None = None
    # Unsaved editor buffers by absolute path.
    overlays: dict[str, str] = field(default_factory=dict)
    cache: bool = True
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
            real = os.path.realpath(path)
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
                os.stat(path)
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
        try:
            # O_NONBLOCK: opening a FIFO must not wait for a writer.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            return _node_error(exc, path)
        except ValueError:  # Node: ERR_INVALID_ARG_VALUE for a path with a NUL byte
            return FileReadError(
                "The argument 'path' must be a string, Uint8Array, or URL without null bytes", code="EINVAL"
            )
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                return FileReadError("EISDIR: illegal operation on a directory, read", code="EISDIR")
            if not stat.S_ISREG(info.st_mode):
                return FileReadError(
                    f"not a regular file (FIFO, socket or device), refused: '{path}'", code="ENOTREG"
                )
            chunks: list[bytes] = []
            limit = (1 << 62) if whole else self.max_bytes
            remaining = limit + 1
            # the whole file in one read when its size is known (no copy when joining)
            size_hint = max(info.st_size + 1, 1 << 16)
            while remaining > 0:
                chunk = os.read(fd, min(remaining, size_hint))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
        except OSError as exc:
            return _node_error(exc, path)
        finally:
            os.close(fd)
        data = b"".join(chunks)
        truncated = len(data) > limit
        if truncated:
            data = data[:limit]
        return FileText(
            data.decode("utf-8", errors="replace"),
            truncated=truncated,
            binary=b"\x00" in data[:8192],
            size=info.st_size,
        )


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
