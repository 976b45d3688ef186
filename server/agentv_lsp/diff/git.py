"""Reading an untrusted git repository without running anything it configures.

Only plumbing that reads objects is used (`rev-parse`, `ls-tree`, `cat-file --batch`,
`diff-tree`, `ls-files`): none of them runs hooks, and none reads a working-tree file's content,
so no clean/smudge filter, textconv or external diff driver can run. The environment drops the
system and global configuration and every inherited `GIT_*` variable, and `-c` overrides switch
off what the repository's own `.git/config` could start (fsmonitor, hooks, external diff,
pagers). Nothing is written to the repository: optional locks are off, so even the index's
stat refresh is skipped.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator, Sequence
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


class GitError(Exception):
    """A git command failed; the message is for people (names the revision or the folder)."""


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
        LC_ALL="C",
    )
    return env


def git_command(repo: str, *args: str) -> list[str]:
    command = ["git", "-C", repo]
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
    mode: str
    object_id: str
    path: str  # relative, "/"-separated


def list_tree(repo: str, commit: str) -> list[TreeEntry]:
    out = run_git(repo, "ls-tree", "-r", "-z", "--full-tree", commit)
    entries = []
    for record in out.split(b"\x00"):
        if not record:
            continue
        header, _, raw_path = record.partition(b"\t")
        mode, kind, object_id = header.decode("ascii").split(" ")
        if kind != "blob":
            continue  # submodules (commits) are not part of this repository's content
        entries.append(TreeEntry(mode, object_id, os.fsdecode(raw_path)))
    return entries


def read_blobs(repo: str, object_ids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """(object id, raw content) for each id, through one `cat-file --batch` (no filters)."""
    if not object_ids:
        return
    process = subprocess.Popen(
        git_command(repo, "cat-file", "--batch"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_environment(),
    )
    assert process.stdin is not None and process.stdout is not None
    stdin = process.stdin

    def feed() -> None:
        try:
            stdin.write(b"".join(f"{oid}\n".encode("ascii") for oid in object_ids))
            stdin.close()
        except OSError:
            pass  # the reader stopped early; it reports why

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for oid in object_ids:
            header = process.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                raise GitError(f"git cat-file could not read object {oid}")
            size = int(header[2])
            data = process.stdout.read(size)
            process.stdout.read(1)  # the newline after the content
            yield oid, data
    finally:
        process.stdout.close()
        process.kill()
        process.wait()
        writer.join(timeout=5)


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


def working_tree_files(repo: str) -> list[str]:
    """Tracked and untracked (not ignored) files of the working tree, relative, "/"-separated."""
    out = run_git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name")
    return sorted({os.fsdecode(p) for p in out.split(b"\x00") if p})
