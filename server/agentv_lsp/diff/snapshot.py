"""One revision of the repository as the engines read it: a folder path and a file `Source`.

A commit is read from git's objects where it is (`revision.RevisionSource`: the tree listed once,
blobs read lazily and bounded, nothing laid out on disk); the working tree is read where it is.
Either way the engines see one revision whole, never a mix, through a `FileSystem` on the
snapshot's source (`file_system`).

A gitlink (a submodule) is an empty folder on both sides: the commit has only the submodule's
commit id, so the working tree's checkout of it is not read either (`WorkingTreeSource`), and a
clean tree with a submodule shows no change.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass, field
from typing import Any

from agentv_lsp.diff.git import BlobReader, GitError, list_tree, resolve_commit, working_tree_files
from agentv_lsp.diff.revision import GITLINK, REVISION_FOLDER, RevisionSource
from agentv_lsp.engine.files import (
    DISK,
    DirEntry,
    DiskSource,
    FileSystem,
    Source,
    StatResult,
    Walk,
    walk_source,
)

WORKING_TREE = None  # the `head` revision argument that means "the files on disk"
_HASH_CHUNK = 1 << 20


@dataclass
class Snapshot:
    label: str  # for people: "HEAD (1a2b3c4)", "working tree"
    root: str  # the folder the engines read as the repository root
    files: list[str]  # repo-relative "/" paths of this revision's files (gitlinks included)
    commit: str | None = None
    object_ids: dict[str, str] = field(default_factory=dict)  # a commit's object ids by path
    source: Source = DISK
    gitlinks: frozenset[str] = frozenset()
    # the folders the engines may read (None: the root); an untrusted workspace's, say
    allowed_roots: tuple[str, ...] | None = None

    def path_of(self, relative: str) -> str:
        return os.path.join(self.root, *relative.split("/"))

    def file_system(self, **kwargs: Any) -> FileSystem:
        """A FileSystem reading this revision (only inside it)."""
        return FileSystem(allowed_roots=self.allowed_roots or (self.root,), source=self.source, **kwargs)

    def runtime_file_system(self) -> FileSystem:
        """What `choose_runtime` is given: this revision's files, its package.json wherever
        the repository is (no allowed roots, as for the working tree)."""
        return FileSystem(source=self.source)

    def is_file(self, relative: str) -> bool:
        return FileSystem(source=self.source).is_file(self.path_of(relative))

    def read_bytes(self, relative: str, limit: int = 64 * 1024 * 1024) -> bytes | None:
        """A regular file's bytes, at most `limit` (None when absent, not a regular file, or
        leading outside the root)."""
        path = self.path_of(relative)
        try:
            real = self.source.realpath(path)
            root = self.source.realpath(self.root)
            if not (real == root or real.startswith(root + os.sep)):
                return None
            if not stat.S_ISREG(self.source.stat(path).st_mode):
                return None
            data, _size = self.source.read_regular(path, limit)
        except (OSError, ValueError):
            return None
        return data[:limit]

    def failure(self) -> GitError | None:
        """An object this revision needed and git did not have (reads stop at it: reported)."""
        return getattr(self.source, "failure", None)

    def close(self) -> None:
        closing = getattr(self.source, "close", None)
        if closing is not None:
            from agentv_lsp.formats.runtime import forget_project_runtimes

            forget_project_runtimes(self.source)
            closing()

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WorkingTreeSource(DiskSource):
    """The working tree with its submodules' folders empty (as a commit has them)."""

    def __init__(self, root: str, gitlinks: set[str]) -> None:
        self.hidden = tuple(os.path.join(root, *g.split("/")) for g in sorted(gitlinks))

    def _inside(self, path: str) -> bool:
        return any(path.startswith(folder + os.sep) for folder in self.hidden)

    def _check(self, path: str) -> None:
        if self._inside(os.path.normpath(path)) or self._inside(os.path.realpath(path)):
            raise FileNotFoundError(errno.ENOENT, "no such file or directory (inside a submodule)", path)

    def stat(self, path: str) -> StatResult:
        self._check(path)
        return super().stat(path)

    def lstat(self, path: str) -> StatResult:
        if self._inside(os.path.normpath(path)) or self._inside(os.path.realpath(os.path.dirname(path))):
            raise FileNotFoundError(errno.ENOENT, "no such file or directory (inside a submodule)", path)
        return super().lstat(path)

    def scandir(self, path: str) -> list[DirEntry]:
        self._check(path)
        if os.path.realpath(path) in self.hidden:
            return []
        return [e for e in super().scandir(path) if not (e.is_symlink() and self._leads_in(e.path))]

    def _leads_in(self, path: str) -> bool:
        real = os.path.realpath(path)
        return self._inside(real) or real in self.hidden

    def walk(self, top: str, followlinks: bool = False) -> Walk:
        return walk_source(self, top, followlinks)

    def read_regular(self, path: str, limit: int) -> tuple[bytes, int]:
        self._check(path)
        return super().read_regular(path, limit)


def changed_paths(base: Snapshot, head: Snapshot) -> tuple[set[str], set[str]]:
    """(paths added or removed, paths whose content differs) between two revisions: object ids
    between commits; against the working tree, the id git would give the file's bytes (no
    filter: the bytes the engines read). A gitlink is the same on both sides when it is one
    on both: its content is not this repository's."""
    before, after = set(base.files), set(head.files)
    moved = before ^ after
    modified: set[str] = set()
    for path in before & after:
        if base.object_ids and head.object_ids:
            if base.object_ids[path] != head.object_ids[path]:
                modified.add(path)
            continue
        if (path in base.gitlinks) != (path in head.gitlinks):
            modified.add(path)
            continue
        if path in base.gitlinks:
            continue
        committed, working = (base, head) if base.object_ids else (head, base)
        if committed.object_ids.get(path) != _working_object_id(working, path, committed):
            modified.add(path)
    return moved, modified


def _working_object_id(working: Snapshot, relative: str, committed: Snapshot) -> str | None:
    """The blob id of a working-tree file or symbolic link (raw bytes, streamed: memory does not
    grow with the file), in the committed side's hash (SHA-1 or SHA-256)."""
    oid = committed.object_ids.get(relative, "")
    digest = hashlib.sha256 if len(oid) == 64 else hashlib.sha1
    path = working.path_of(relative)
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            target = os.fsencode(os.readlink(path))
            return digest(b"blob %d\x00" % len(target) + target).hexdigest()
        if not stat.S_ISREG(info.st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                return None
            hasher = digest(b"blob %d\x00" % opened.st_size)
            left = opened.st_size
            while left > 0:
                chunk = os.read(fd, min(left, _HASH_CHUNK))
                if not chunk:
                    return None  # shrank while read: not the committed bytes
                hasher.update(chunk)
                left -= len(chunk)
            return hasher.hexdigest()
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None


def open_snapshot(repo: str, revision: str | None) -> Snapshot:
    """The working tree (`revision` None) or the commit `revision` names. Raises GitError."""
    if revision is WORKING_TREE:
        files, submodules = working_tree_files(repo)
        source: Source = WorkingTreeSource(repo, submodules) if submodules else DISK
        return Snapshot("working tree", repo, files, source=source, gitlinks=frozenset(submodules))
    commit = resolve_commit(repo, revision)
    root = f"{REVISION_FOLDER}/{commit}"
    tree = RevisionSource(root, list_tree(repo, commit), BlobReader(repo))
    object_ids = {path: oid for path, (_kind, oid) in tree.objects.items()}
    gitlinks = frozenset(path for path, (kind, _oid) in tree.objects.items() if kind == GITLINK)
    label = f"{revision} ({commit[:7]})"
    return Snapshot(label, root, sorted(object_ids), commit, object_ids, tree, gitlinks)
