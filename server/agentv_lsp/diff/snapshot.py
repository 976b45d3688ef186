"""One revision of the repository as a folder the engines can read.

A commit is laid out from its blobs (`cat-file --batch`, raw: no filter runs) into a private
temporary folder, files read-only, removed when the snapshot closes (on every exit path: the
caller holds it in a `with`). The working tree is read where it is. Either way the engines see
one revision whole, never a mix.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field

from agentv_lsp.diff.git import GitError, list_tree, read_blobs, resolve_commit, working_tree_files

WORKING_TREE = None  # the `head` revision argument that means "the files on disk"
# A commit whose files add up to more than this is refused rather than copied to /tmp.
MAX_TREE_BYTES = 2 * 1024 * 1024 * 1024
_UNSAFE_PARTS = frozenset({"", ".", "..", ".git"})


@dataclass
class Snapshot:
    label: str  # for people: "HEAD (1a2b3c4)", "working tree"
    root: str  # the folder the engines read as the repository root
    files: list[str]  # repo-relative "/" paths of this revision's files
    commit: str | None = None
    object_ids: dict[str, str] = field(default_factory=dict)  # a commit's blob ids by path
    _temporary: str | None = field(default=None, repr=False)
    _owner: int = field(default_factory=os.getpid, repr=False)  # a forked worker never removes it

    def path_of(self, relative: str) -> str:
        return os.path.join(self.root, *relative.split("/"))

    def read_bytes(self, relative: str, limit: int = 64 * 1024 * 1024) -> bytes | None:
        """A regular file's bytes (None when absent, not a regular file, or outside the root)."""
        path = self.path_of(relative)
        try:
            real = os.path.realpath(path)
            if not (real == self.root or real.startswith(os.path.realpath(self.root) + os.sep)):
                return None
            info = os.stat(path)
            if not stat.S_ISREG(info.st_mode):
                return None
            with open(path, "rb") as handle:
                return handle.read(limit)
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        if self._temporary is not None and os.getpid() == self._owner:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def changed_paths(base: Snapshot, head: Snapshot) -> tuple[set[str], set[str]]:
    """(paths added or removed, paths whose content differs) between two revisions: blob ids
    between commits, sizes then bytes against the working tree."""
    before, after = set(base.files), set(head.files)
    moved = before ^ after
    modified: set[str] = set()
    for path in before & after:
        if base.object_ids and head.object_ids:
            if base.object_ids[path] != head.object_ids[path]:
                modified.add(path)
            continue
        try:
            same_size = os.lstat(base.path_of(path)).st_size == os.lstat(head.path_of(path)).st_size
        except OSError:
            same_size = False
        if not same_size or base.read_bytes(path) != head.read_bytes(path):
            modified.add(path)
    return moved, modified


def open_snapshot(repo: str, revision: str | None) -> Snapshot:
    """The working tree (`revision` None) or the commit `revision` names. Raises GitError."""
    if revision is WORKING_TREE:
        return Snapshot("working tree", repo, working_tree_files(repo))
    commit = resolve_commit(repo, revision)
    temporary = tempfile.mkdtemp(prefix="agentv-diff-")
    try:
        root = os.path.join(temporary, "tree")
        os.mkdir(root, 0o700)
        object_ids = _materialize(repo, commit, root)
        # the engines compare real paths (allowed roots): hand them the resolved folder
        label = f"{revision} ({commit[:7]})"
        return Snapshot(label, os.path.realpath(root), sorted(object_ids), commit, object_ids, temporary)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _materialize(repo: str, commit: str, root: str) -> dict[str, str]:
    entries = [e for e in list_tree(repo, commit) if _safe(e.path)]
    by_object: dict[str, list[tuple[str, str]]] = {}
    for entry in entries:
        by_object.setdefault(entry.object_id, []).append((entry.path, entry.mode))
    made: set[str] = {root}
    links: list[tuple[str, bytes]] = []
    written = 0
    for object_id, data in read_blobs(repo, list(by_object)):
        written += len(data)
        if written > MAX_TREE_BYTES:
            raise GitError(f"commit {commit[:12]} holds more than {MAX_TREE_BYTES >> 30} GiB of files")
        for relative, mode in by_object[object_id]:
            target = os.path.join(root, *relative.split("/"))
            if mode == "120000":
                links.append((target, data))
                continue
            folder = os.path.dirname(target)
            try:
                if folder not in made:
                    os.makedirs(folder, exist_ok=True)
                    made.add(folder)
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444)
            except (FileExistsError, NotADirectoryError, IsADirectoryError, FileNotFoundError):
                continue  # a path that clashes with another (a file and a folder of one name)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
    # Symbolic links last, as git checks them out, so that no file is written through one (the
    # engines then refuse links that lead out of the folder, as for the working tree).
    for target, data in links:
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            folder = os.path.realpath(os.path.dirname(target))
            inside = os.path.realpath(root)
            if folder != inside and not folder.startswith(inside + os.sep):
                continue  # its folder is itself a link leading out (a crafted tree)
            os.symlink(os.fsdecode(data), target)
        except OSError:
            continue
    return {e.path: e.object_id for e in entries}


def _safe(path: str) -> bool:
    """A tree path that stays inside the folder (a crafted tree can hold `..` or `.git`)."""
    return "\x00" not in path and not path.startswith("/") and not (set(path.split("/")) & _UNSAFE_PARTS)
