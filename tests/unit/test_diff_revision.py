"""A git revision read as a FileSystem (`diff.revision`) and the git it runs: no remote is ever
contacted, nothing is written, symbolic links and crafted trees stay inside the revision,
submodules read the same on both sides, blobs are read lazily and bounded."""

from __future__ import annotations

import errno
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from tests.conftest import GIT_ENV
from tests.unit.test_diff import GitRepo, run_cli, v4_suite, v4_test

from agentv_lsp.diff import git as diff_git
from agentv_lsp.diff.git import BlobReader, MissingObject, list_tree, resolve_commit
from agentv_lsp.diff.revision import RevisionSource
from agentv_lsp.diff.snapshot import open_snapshot
from agentv_lsp.engine.files import FileReadError, FileSystem
from agentv_lsp.formats.v4.fastglob import glob_files


def _partial_clone_with_a_shell_remote(root: Path, marker: Path) -> GitRepo:
    """The red team's repository: the head commit's blob deleted, and the repository's own
    config making `origin` a promisor whose URL is a shell command (`ext::`), allowed."""
    repo = GitRepo(root)
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hi")])})
    repo.commit({"evals/x.eval.yaml": v4_suite([v4_test("a", "Hello")])})
    blob = repo.git("rev-parse", "HEAD:evals/x.eval.yaml").strip()
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for key, value in (
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.promisor", "true"),
        ("remote.origin.url", f"ext::sh -c touch% {marker}"),
        ("protocol.ext.allow", "always"),
    ):
        repo.git("config", key, value)
    return repo


def test_a_partial_clones_lazy_fetch_never_runs_the_repositorys_command(tmp_path: Path) -> None:
    marker = tmp_path / "ran-from-git-config"
    repo = _partial_clone_with_a_shell_remote(tmp_path / "r", marker)
    config = (repo.root / ".git" / "config").read_bytes()
    status, out, err = run_cli(repo, "HEAD~1", "HEAD")
    assert not marker.exists()
    assert (repo.root / ".git" / "config").read_bytes() == config  # no partialclonefilter written
    assert status == 2 and out == ""
    blob = repo.git("rev-parse", "HEAD:evals/x.eval.yaml").strip()
    assert f"object {blob} is missing" in err and "never fetches" in err


def test_the_server_side_revision_prompt_does_not_fetch_either(tmp_path: Path) -> None:
    from agentv_lsp.diff.single import revision_prompt

    marker = tmp_path / "ran"
    repo = _partial_clone_with_a_shell_remote(tmp_path / "r", marker)
    config = (repo.root / ".git" / "config").read_bytes()
    with pytest.raises(MissingObject):
        revision_prompt(str(repo.root), str(repo.root / "evals" / "x.eval.yaml"), "a", "HEAD")
    assert not marker.exists() and (repo.root / ".git" / "config").read_bytes() == config


def test_an_empty_allowed_protocol_list_allows_no_transport_on_this_git(tmp_path: Path) -> None:
    """GIT_ALLOW_PROTOCOL="" means "none" (not "unset"): shown with git free to start helpers
    (PATH kept), so the protocol list alone is what refuses the repository-allowed `ext::`."""
    marker = tmp_path / "ran"
    repo = GitRepo(tmp_path / "r")
    repo.git("config", "protocol.ext.allow", "always")
    env = {**diff_git._environment(), "PATH": os.environ["PATH"]}
    del env["GIT_EXEC_PATH"]
    done = subprocess.run(
        ["git", "-C", str(repo.root), "ls-remote", f"ext::sh -c touch% {marker}"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and "transport 'ext' not allowed" in done.stderr
    assert not marker.exists()


def test_git_runs_with_no_folder_to_find_programs_in(tmp_path: Path) -> None:
    env = diff_git._environment()
    assert env["PATH"] == env["GIT_EXEC_PATH"] == "/dev/null"
    assert env["GIT_ALLOW_PROTOCOL"] == "" and env["GIT_NO_LAZY_FETCH"] == "1"
    assert os.path.isabs(diff_git.git_command(str(tmp_path), "status")[0])


def _crafted_commit(repo: GitRepo, entries: list[tuple[str, str, str]], eval_text: str) -> str:
    """A commit whose root tree holds `entries` (mode, name, object) and `x.eval.yaml`."""
    kinds = {"040000": "tree", "160000": "commit"}
    lines = [f"{mode} {kinds.get(mode, 'blob')} {oid}\t{name}" for mode, name, oid in entries]
    lines.append(f"100644 blob {_blob(repo, eval_text)}\tx.eval.yaml")
    return repo.git("commit-tree", _tree(repo, lines), "-m", "crafted").strip()


def _blob(repo: GitRepo, text: str) -> str:
    return subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo.root,
        input=text,
        env=GIT_ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _tree(repo: GitRepo, lines: list[str]) -> str:
    return subprocess.run(
        ["git", "mktree"],
        cwd=repo.root,
        input="\n".join(lines) + "\n",
        env=GIT_ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_a_link_and_an_entry_below_it_create_and_read_nothing_outside(tmp_path: Path) -> None:
    """Finding 2: a link `x -> /outside` and an entry `x/y/z` in one tree."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET\n")
    repo = GitRepo(tmp_path / "r")
    base = repo.commit({"x.eval.yaml": v4_suite([v4_test("a", "See", file="x/y/z")])})
    z = _blob(repo, "inside the crafted tree\n")
    inner = _tree(repo, [f"100644 blob {z}\tz"])
    middle = _tree(repo, [f"040000 tree {inner}\ty"])
    eval_text = v4_suite([v4_test("a", "See it", file="x/y/z"), v4_test("b", "Too", file="x/secret.txt")])
    crafted = _crafted_commit(
        repo, [("120000", "x", _blob(repo, str(outside))), ("040000", "x", middle)], eval_text
    )
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    tempfile.tempdir = str(scratch)
    try:
        status, out, _ = run_cli(repo, base, crafted, "--format", "json")
    finally:
        tempfile.tempdir = None
    assert status == 1
    assert "TOP SECRET" not in out and "inside the crafted tree" not in out
    assert sorted(str(p) for p in tmp_path.rglob("*") if p != scratch) == before
    assert not (outside / "y").exists() and os.listdir(scratch) == []


def _revision(repo: GitRepo, commit: str = "HEAD") -> RevisionSource:
    full = resolve_commit(str(repo.root), commit)
    return RevisionSource(
        f"/dev/null/agentv-revision/{full}", list_tree(str(repo.root), full), BlobReader(str(repo.root))
    )


def test_links_resolve_inside_the_revision_and_never_out_of_it(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    repo = GitRepo(tmp_path / "r")
    repo.write({"docs/a.md": "alpha\n"})
    for name, target in (
        ("inside", "docs/a.md"),
        ("folder", "docs"),
        ("absolute", str(secret)),
        ("climbs", "../secret.txt"),
        ("dotgit", ".git/config"),
        ("loop", "loop"),
    ):
        os.symlink(target, repo.root / name)
    repo.commit()
    source = _revision(repo)
    fs = FileSystem(allowed_roots=(source.root,), source=source)
    at = source.root
    assert fs.read_text(f"{at}/inside") == "alpha\n" and fs.read_text(f"{at}/folder/a.md") == "alpha\n"
    assert fs.is_dir(f"{at}/folder") and not fs.is_file(f"{at}/folder")
    for name in ("absolute", "climbs", "dotgit"):
        assert not fs.exists(f"{at}/{name}")
        with pytest.raises(FileReadError):
            fs.read(f"{at}/{name}")
        assert fs.lexists(f"{at}/{name}")  # the link itself is there, as in a checkout
    assert fs.was_blocked(f"{at}/absolute") and fs.was_blocked(f"{at}/climbs")
    with pytest.raises(OSError) as loop:
        source.stat(f"{at}/loop")
    assert (
        loop.value.errno == errno.ELOOP and not fs.exists(f"{at}/loop") and fs.is_symlink_loop(f"{at}/loop")
    )
    assert not fs.exists("/etc/passwd") and not fs.exists(str(repo.root / "docs" / "a.md"))
    source.close()


def test_a_revision_answers_as_its_checkout_on_disk_does(tmp_path: Path) -> None:
    """The same questions to the revision and to a checkout of it (a clone's working tree)."""
    repo = GitRepo(tmp_path / "r")
    repo.write({"evals/cases/one/case.yaml": "id: one\n", "evals/cases/two.yaml": "- id: two\n"})
    repo.write({"evals/.hidden/x.yaml": "x\n", "evals/x.eval.yaml": "tests: cases\n", "README": "r\n"})
    os.symlink("cases", repo.root / "evals" / "linked")
    os.symlink("missing", repo.root / "evals" / "dangling")
    repo.commit()
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(checkout)], env=GIT_ENV, check=True)
    source = _revision(repo)
    disk, revision = FileSystem(), FileSystem(source=source)

    def answers(fs: FileSystem, root: str) -> list[object]:
        out: list[object] = []
        for relative in (
            "",
            "evals",
            "evals/cases",
            "evals/linked",
            "evals/dangling",
            "evals/x.eval.yaml",
            "evals/cases/one",
            "evals/cases/one/case.yaml",
            "evals/nothing",
            "README/x",
        ):
            path = os.path.join(root, relative) if relative else root
            out.append((relative, fs.exists(path), fs.is_file(path), fs.is_dir(path), fs.lexists(path)))
            try:
                listing = fs.scandir(path)
            except OSError as exc:
                out.append(("scandir error", exc.errno))
            else:
                out.append(
                    sorted(
                        (e.name, e.is_file(), e.is_dir(), e.is_symlink(), e.is_dir(follow_symlinks=False))
                        for e in listing
                        if e.name != ".git"
                    )
                )
        out.append(
            [
                (os.path.relpath(c, root), sorted(d), sorted(f))
                for c, d, f in fs.walk(os.path.join(root, "evals"), followlinks=True)
            ]
        )
        out.append(
            [
                os.path.relpath(p, root)
                for p in glob_files(fs, os.path.join(root, "evals", "**", "*.yaml")).files
            ]
        )
        return out

    assert answers(revision, source.root) == answers(disk, str(checkout))
    source.close()


def test_a_blob_over_the_cap_is_read_only_up_to_it(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    big = "x" * (3 << 20)
    repo.commit({"big.txt": big, "small.txt": "small\n"})
    source = _revision(repo)
    fs = FileSystem(max_bytes=1000, source=source)
    read = fs.read(f"{source.root}/big.txt")
    assert read.truncated and len(read.text) == 1000 and read.size == len(big)
    assert fs.read_text(f"{source.root}/small.txt") == "small\n"  # the reader goes on after a cut
    assert fs.stat(f"{source.root}/big.txt").st_size == len(big)
    source.close()


def _with_submodule(tmp_path: Path) -> GitRepo:
    inner = GitRepo(tmp_path / "r" / "sub")
    inner.commit({"snip.txt": "from the submodule\n"})
    repo = GitRepo(tmp_path / "r")
    repo.write({"evals/x.eval.yaml": v4_suite([v4_test("a", "See", file="../sub/snip.txt")])})
    repo.git("add", "evals")
    repo.git("add", "sub")  # a gitlink: the embedded repository's commit
    repo.git("commit", "-q", "-m", "with a submodule")
    assert "160000" in repo.git("ls-files", "--stage", "sub")
    return repo


def test_a_clean_tree_with_a_submodule_shows_no_change(tmp_path: Path) -> None:
    """Finding 4: the working tree's checkout of a submodule is read as the commit has it (an
    empty folder), so nothing differs."""
    repo = _with_submodule(tmp_path)
    status, out, _ = run_cli(repo, "HEAD", "--format", "json")
    assert status == 0, out
    report = repo.diff("HEAD", full=True)
    assert not report.prompts_changed
    assert {t.id: t.status for t in report.tests} == {"a": "unchanged"}


def test_a_submodule_is_an_empty_folder_on_both_sides(tmp_path: Path) -> None:
    repo = _with_submodule(tmp_path)
    for revision in ("HEAD", None):
        with open_snapshot(str(repo.root), revision) as snapshot:
            fs = snapshot.file_system()
            sub = snapshot.path_of("sub")
            assert "sub" in snapshot.gitlinks and "sub" in snapshot.files
            assert fs.is_dir(sub) and fs.scandir(sub) == []
            assert not fs.exists(os.path.join(sub, "snip.txt"))
            with pytest.raises(FileReadError):
                fs.read(os.path.join(sub, "snip.txt"))
