"""Reading an untrusted git repository without running anything it configures.

Only plumbing that reads objects is used (`rev-parse`, `ls-tree`, `cat-file --batch`,
`diff-tree`, `ls-files`): none of them runs hooks, and none reads a working-tree file's content,
so no clean/smudge filter, textconv or external diff driver can run. The environment drops the
system and global configuration and every inherited `GIT_*` variable, and `-c` overrides switch
off what the repository's own `.git/config` could start (fsmonitor, hooks, external diff,
pagers). Nothing is written to the repository: optional locks are off, so even the index's
stat refresh is skipped.

No remote is ever contacted, whatever the repository's config says: a partial clone's missing
object would make git start `git fetch` from the promisor remote (a lazy fetch, which also writes
`.git/config`), and a repository can allow any transport (`protocol.ext.allow`, whose `ext::`
URL is a shell command) over `-c protocol.allow=never`. So git runs with `PATH` and
`GIT_EXEC_PATH` naming no folder (`/dev/null`): it cannot start another git, a remote helper or
any program it looks up, the fetch fails before it starts and writes nothing. `GIT_ALLOW_PROTOCOL`
set empty allows no transport at all (it overrides every `protocol.*` setting), and
`GIT_NO_LAZY_FETCH=1` (git 2.44 and later) switches lazy fetching off outright. A missing object
is then an error (`MissingObject`), named.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass

_SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "core.pager=cat",
    "diff.external=",
    "diff.renames=true",
    "diff.renameLimit=10000",
    "core.quotePath=false",
    "protocol.allow=never",
)
# A folder no program can be found in (and that nobody can create: /dev/null is a file).
_NO_PROGRAMS = "/dev/null"


class GitError(Exception):
    """A git command failed; the message is for people (names the revision or the folder)."""


class MissingObject(GitError):
    """An object the revision needs is not in the repository (a partial clone's, never fetched)."""


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_OPTIONAL_LOCKS="0",
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_ATTR_NOSYSTEM="1",
        GIT_PAGER="cat",
        GIT_ALLOW_PROTOCOL="",
        GIT_NO_LAZY_FETCH="1",
        GIT_EXEC_PATH=_NO_PROGRAMS,
        PATH=_NO_PROGRAMS,
        LC_ALL="C",
    )
    return env


_git_program: str | None = None


def _git() -> str:
    """git's own path, found once on the caller's PATH (git itself then runs with none)."""
    global _git_program
    if _git_program is None:
        found = shutil.which("git")
        if found is None:
            raise GitError("git is not installed (or not on PATH)")
        _git_program = os.path.abspath(found)
    return _git_program


def git_command(repo: str, *args: str) -> list[str]:
    command = [_git(), "-C", repo]
    for setting in _SAFE_CONFIG:
        command += ["-c", setting]
    return [*command, *args]


def run_git(repo: str, *args: str, input_bytes: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            git_command(repo, *args),
            input=input_bytes,
            capture_output=True,
            env=_environment(),
            check=False,
            stdin=None if input_bytes is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[-1] if message else f"git {args[0]} failed ({done.returncode})")
    return done.stdout


def looks_like_option(revision: str) -> bool:
    return revision.startswith("-")


def resolve_commit(repo: str, revision: str) -> str:
    """The commit id `revision` names; GitError (with the revision named) when it names none."""
    if looks_like_option(revision) or not revision or "\x00" in revision:
        raise GitError(f"refusing revision {revision!r}: it looks like an option")
    try:
        out = run_git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    except GitError:
        out = b""
    commit = out.decode("ascii", "replace").strip()
    if not commit:
        raise GitError(f"revision {revision!r} cannot be read: no such commit in {repo}")
    return commit


def repository_top(folder: str) -> str:
    try:
        out = run_git(folder, "rev-parse", "--show-toplevel")
    except GitError as exc:
        raise GitError(f"{folder} is not inside a git repository ({exc})") from exc
    return os.fsdecode(out.rstrip(b"\n"))


@dataclass(frozen=True, slots=True)
class TreeEntry:
    mode: str  # "100644", "100755", "120000" (a symbolic link), "160000" (a gitlink: a submodule)
    object_id: str
    path: str  # relative, "/"-separated


GITLINK_MODE = "160000"
SYMLINK_MODE = "120000"


def list_tree(repo: str, commit: str) -> list[TreeEntry]:
    """Every blob, symbolic link and gitlink of a commit's tree (one `ls-tree -r`; no blob read)."""
    out = run_git(repo, "ls-tree", "-r", "-z", "--full-tree", commit)
    entries = []
    for record in out.split(b"\x00"):
        if not record:
            continue
        header, _, raw_path = record.partition(b"\t")
        mode, kind, object_id = header.decode("ascii").split(" ")
        if kind not in ("blob", "commit"):
            continue
        entries.append(TreeEntry(mode, object_id, os.fsdecode(raw_path)))
    return entries


class BlobReader:
    """Blobs read one at a time, when asked, through one long-lived `git cat-file --batch` (raw
    content: no filter runs). A read is bounded: the size comes first (the header), only `limit`
    bytes are kept, and the rest of a larger blob is skipped (or the process restarted rather
    than a large rest read through). Safe across threads (a lock) and `fork` (a forked process
    starts its own git rather than talk to its parent's)."""

    _RESTART_OVER = 1 << 20

    def __init__(self, repo: str) -> None:
        self.repo = repo
        self._process: subprocess.Popen[bytes] | None = None
        self._owner = 0
        self._lock = threading.Lock()

    def read(self, object_id: str, limit: int) -> tuple[bytes, int]:
        """(at most `limit` bytes of the blob, its size). MissingObject when it is not there."""
        with self._lock:
            process = self._ensure()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(f"{object_id}\n".encode("ascii"))
                process.stdin.flush()
                header = process.stdout.readline()
            except (OSError, ValueError):
                header = b""
            fields = header.split()
            if len(fields) != 3:
                self._stop()  # git stopped (a missing object in a partial clone is fatal)
                raise MissingObject(
                    f"object {object_id} is missing from the repository {self.repo} "
                    "(agentv-lsp never fetches objects from a remote)"
                )
            size = int(fields[2])
            kept = process.stdout.read(min(size, limit))
            rest = size - len(kept) + 1  # and the newline after the content
            if len(kept) < min(size, limit):
                self._stop()
                raise GitError(f"git cat-file stopped while reading object {object_id}")
            if rest > self._RESTART_OVER:
                self._stop()
            else:
                while rest > 0:
                    skipped = process.stdout.read(min(rest, 1 << 16))
                    if not skipped:
                        break
                    rest -= len(skipped)
            if fields[1] != b"blob":
                raise GitError(f"object {object_id} is a {fields[1].decode('ascii', 'replace')}, not a file")
            return kept, size

    def _ensure(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._owner == os.getpid() and self._process.poll() is None:
            return self._process
        if self._owner == os.getpid():
            self._stop()
        self._process = subprocess.Popen(
            git_command(self.repo, "cat-file", "--batch"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(),
        )
        self._owner = os.getpid()
        return self._process

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is None or self._owner != os.getpid():
            return  # a forked process leaves its parent's git alone
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        process.kill()
        process.wait()

    def close(self) -> None:
        with self._lock:
            self._stop()


def renames_between(repo: str, base: str, head: str) -> dict[str, str]:
    """{old path: new path} for the files git's rename detection pairs between two commits."""
    out = run_git(
        repo, "diff-tree", "-r", "-M", "-z", "--name-status", "--no-ext-diff", "--no-textconv", base, head
    )
    fields = out.split(b"\x00")
    renames: dict[str, str] = {}
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index].decode("ascii", "replace")
        if status.startswith(("R", "C")):
            if status.startswith("R"):
                renames[os.fsdecode(fields[index + 1])] = os.fsdecode(fields[index + 2])
            index += 3
        else:
            index += 2
    return renames


def working_tree_files(repo: str) -> tuple[list[str], set[str]]:
    """Tracked and untracked (not ignored) files of the working tree, relative, "/"-separated,
    and the gitlinks (submodules) among them."""
    staged = run_git(repo, "ls-files", "-z", "--stage", "--full-name")
    files: set[str] = set()
    gitlinks: set[str] = set()
    for record in staged.split(b"\x00"):
        if not record:
            continue
        header, _, raw_path = record.partition(b"\t")
        path = os.fsdecode(raw_path)
        files.add(path)
        if header.startswith(GITLINK_MODE.encode("ascii")):
            gitlinks.add(path)
    others = run_git(repo, "ls-files", "-z", "--others", "--exclude-standard", "--full-name")
    files.update(os.fsdecode(p) for p in others.split(b"\x00") if p)
    return sorted(files), gitlinks
