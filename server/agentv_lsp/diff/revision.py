"""A git commit read as a file system (`engine.files.Source`): nothing is laid out on disk.

The commit's tree is listed once (`ls-tree -r`); a blob is read only when the engines ask for it,
through one `cat-file --batch` (`git.BlobReader`), bounded. The revision sits at a folder that
cannot exist (`/dev/null/...`), so a read that bypassed the FileSystem would find nothing rather
than the working tree.

Symbolic links are resolved inside the revision, as the kernel would in a checkout: a link is
read from its blob, an absolute one or one climbing above the root leads out and finds nothing
(nothing outside the revision is ever read, nor the repository's `.git`), and 40 links in one
lookup is a loop (ELOOP). A path the tree holds twice (a crafted tree: a link `x` and an entry
`x/y/z`) keeps its first kind; what lies below the other is unreachable. A gitlink (a submodule)
is an empty folder, as `diff` shows the working tree's (`snapshot`): a submodule's files are not
this repository's content.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from agentv_lsp.diff.git import GITLINK_MODE, SYMLINK_MODE, BlobReader, MissingObject, TreeEntry
from agentv_lsp.engine.files import DirEntry, FileReadError, StatResult, Walk, walk_source

# Where revisions are shown to the engines: under a file, so no folder of that name can exist.
REVISION_FOLDER = "/dev/null/agentv-revision"
_MAX_LINKS = 40  # Linux's MAXSYMLINKS
_MAX_LINK_TARGET = 4095  # PATH_MAX - 1
_UNSAFE_PARTS = frozenset({"", ".", "..", ".git"})

FILE, DIR, LINK, GITLINK = "file", "dir", "link", "gitlink"


@dataclass(frozen=True, slots=True)
class _Stat:
    st_mode: int
    st_size: int
    st_mtime_ns: int = 0  # a commit does not change


class _FileStat:
    """A file's stat: its size is read (the blob's header) only when asked for."""

    __slots__ = ("_object_id", "_source")
    st_mode = stat.S_IFREG | 0o644
    st_mtime_ns = 0

    def __init__(self, source: RevisionSource, object_id: str) -> None:
        self._source = source
        self._object_id = object_id

    @property
    def st_size(self) -> int:
        return self._source._blob(self._object_id, 0)[1]


class _LeadsOut(Exception):
    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


def safe_tree_path(path: str) -> bool:
    """A tree path that stays inside the revision (a crafted tree can hold `..` or `.git`)."""
    return "\x00" not in path and not path.startswith("/") and not (set(path.split("/")) & _UNSAFE_PARTS)


class RevisionSource:
    """One commit's files (see the module's docstring). `root`: the folder they are shown at."""

    def __init__(self, root: str, entries: Iterable[TreeEntry], reader: BlobReader) -> None:
        self.root = root
        self.reader = reader
        self.failure: MissingObject | None = None  # the first object found missing (reported)
        self.objects: dict[str, tuple[str, str]] = {}  # relative path -> (kind, object id)
        self.folders: dict[str, dict[str, str]] = {"": {}}  # relative folder -> {name: kind}
        self._targets: dict[str, str] = {}
        for entry in entries:
            if safe_tree_path(entry.path):
                self._add(entry)

    def _add(self, entry: TreeEntry) -> None:
        parts = entry.path.split("/")
        folder = ""
        for name in parts[:-1]:
            listing = self.folders[folder]
            kind = listing.setdefault(name, DIR)
            if kind != DIR:
                return  # below a file, link or gitlink of the same name: unreachable
            folder = f"{folder}/{name}" if folder else name
            self.folders.setdefault(folder, {})
        listing = self.folders[folder]
        if parts[-1] in listing:
            return  # the name is taken (by a folder, or an earlier entry of a crafted tree)
        kind = LINK if entry.mode == SYMLINK_MODE else GITLINK if entry.mode == GITLINK_MODE else FILE
        listing[parts[-1]] = kind
        self.objects[entry.path] = (kind, entry.object_id)

    # -- lookups ------------------------------------------------------------------------------

    def _relative(self, path: str) -> list[str]:
        if path == self.root:
            return []
        if not path.startswith(self.root + "/"):
            raise _LeadsOut(path)
        return path[len(self.root) + 1 :].split("/")

    def _resolve(self, path: str, follow_last: bool) -> tuple[str, str]:
        """(kind, relative path) of what `path` names, links followed inside the revision.
        OSError as the kernel gives it; _LeadsOut for a path that leaves the revision."""
        pending = list(reversed(self._relative(path)))
        done: list[str] = []
        kind = DIR
        hops = 0
        while pending:
            name = pending.pop()
            if name in ("", "."):
                continue
            if name == "..":
                if not done:
                    raise _LeadsOut(os.path.normpath(os.path.join(self.root, "..", *reversed(pending))))
                done.pop()
                kind = DIR
                continue
            if kind == GITLINK:
                raise FileNotFoundError(errno.ENOENT, "no such file or directory", path)
            if kind != DIR:
                raise NotADirectoryError(errno.ENOTDIR, "not a directory", path)
            child = self.folders.get("/".join(done), {}).get(name)
            if child is None:
                raise FileNotFoundError(errno.ENOENT, "no such file or directory", path)
            if child == LINK and (pending or follow_last):
                hops += 1
                if hops > _MAX_LINKS:
                    raise OSError(errno.ELOOP, "too many levels of symbolic links", path)
                target = self._target("/".join([*done, name]))
                if target.startswith("/"):
                    raise _LeadsOut(target)
                pending.extend(reversed(target.split("/")))
                kind = DIR
                continue
            done.append(name)
            kind = child
        return kind, "/".join(done)

    def _target(self, relative: str) -> str:
        target = self._targets.get(relative)
        if target is None:
            data, size = self._blob(self.objects[relative][1], _MAX_LINK_TARGET + 1)
            if size > _MAX_LINK_TARGET or b"\x00" in data:
                raise OSError(errno.ENAMETOOLONG, "file name too long", relative)
            target = self._targets[relative] = os.fsdecode(data)
        return target

    def _blob(self, object_id: str, limit: int) -> tuple[bytes, int]:
        try:
            return self.reader.read(object_id, limit)
        except MissingObject as exc:
            if self.failure is None:
                self.failure = exc
            raise

    def _lookup(self, path: str, follow_last: bool) -> tuple[str, str]:
        try:
            return self._resolve(path, follow_last)
        except _LeadsOut as exc:
            raise FileNotFoundError(
                errno.ENOENT, "no such file or directory (outside the revision)", path
            ) from exc

    def _stat_of(self, kind: str, relative: str) -> StatResult:
        if kind in (DIR, GITLINK):
            return _Stat(stat.S_IFDIR | 0o755, 0)
        if kind == LINK:
            return _Stat(stat.S_IFLNK | 0o777, len(self._target(relative)))
        return _FileStat(self, self.objects[relative][1])

    # -- engine.files.Source ------------------------------------------------------------------

    def stat(self, path: str) -> StatResult:
        return self._stat_of(*self._lookup(path, True))

    def lstat(self, path: str) -> StatResult:
        return self._stat_of(*self._lookup(path, False))

    def realpath(self, path: str) -> str:
        """Where `path` leads (`os.path.realpath`, not strict): outside `root` when a link
        leads out; the rest of the path as written past a missing part."""
        try:
            kind, relative = self._resolve(path, True)
        except _LeadsOut as exc:
            return exc.where
        except OSError:
            return os.path.normpath(path)
        del kind
        return f"{self.root}/{relative}" if relative else self.root

    def scandir(self, path: str) -> list[DirEntry]:
        kind, relative = self._lookup(path, True)
        if kind == GITLINK:
            return []
        if kind != DIR:
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", path)
        listing = self.folders.get(relative, {})
        return [_Entry(self, os.path.join(path, name), name, kind) for name, kind in listing.items()]

    def walk(self, top: str, followlinks: bool = False) -> Walk:
        return walk_source(self, top, followlinks)

    def read_regular(self, path: str, limit: int) -> tuple[bytes, int]:
        kind, relative = self._lookup(path, True)
        if kind in (DIR, GITLINK):
            raise FileReadError("EISDIR: illegal operation on a directory, read", code="EISDIR")
        return self._blob(self.objects[relative][1], limit + 1)

    def close(self) -> None:
        self.reader.close()


class _Entry:
    """`os.DirEntry` of a revision's folder."""

    __slots__ = ("_kind", "_source", "name", "path")

    def __init__(self, source: RevisionSource, path: str, name: str, kind: str) -> None:
        self._source = source
        self.path = path
        self.name = name
        self._kind = kind

    def _followed(self) -> str | None:
        if self._kind != LINK:
            return self._kind
        try:
            return self._source._lookup(self.path, True)[0]
        except OSError:
            return None

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        kind = self._followed() if follow_symlinks else self._kind
        return kind in (DIR, GITLINK)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        kind = self._followed() if follow_symlinks else self._kind
        return kind == FILE

    def is_symlink(self) -> bool:
        return self._kind == LINK
