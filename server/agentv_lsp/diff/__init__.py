"""`agentv-lsp diff`: what a change does to each test's prompts, between two revisions.

Each revision is read whole as it is (`snapshot`), every eval file previewed by the runtime that
judges it in that revision (`collect`), and the tests matched by eval file (following git's
rename detection) and id (`compare`). No LSP types here: the CLI and the language server call
`diff_revisions`.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from agentv_lsp.diff.affected import affected_files
from agentv_lsp.diff.causes import CauseFinder
from agentv_lsp.diff.collect import FilePrompts, Pair, eval_files, pair_collector
from agentv_lsp.diff.compare import (
    DiffReport,
    FileCompared,
    MigrationNotes,
    compare,
    compare_pair,
    pair_files,
)
from agentv_lsp.diff.git import GitError, renames_between, repository_top
from agentv_lsp.diff.snapshot import WORKING_TREE, Snapshot, changed_paths, open_snapshot
from agentv_lsp.engine import tokens
from agentv_lsp.formats.runtime import Requested

__all__ = ["DiffReport", "GitError", "Job", "PathMatchesNothing", "diff_revisions"]


class PathMatchesNothing(ValueError):
    """A path argument that names no file in either revision (a typo must not pass as "no change")."""


# The share of lines two files must have in common to count as a rename of one another when one
# side is the working tree (git's own default threshold, 50%); between commits git decides.
_RENAME_SIMILARITY = 0.5

Job = Callable[[Pair], FileCompared | None]  # one eval file previewed in both revisions, compared
MapFiles = Callable[[Job, list[Pair]], list[FileCompared | None]]


def diff_revisions(
    repo_root: str,
    base: str = "HEAD",
    head: str | None = WORKING_TREE,
    paths: Sequence[str] = (),
    requested: Requested = "auto",
    cwd: str | None = None,
    map_files: MapFiles | None = None,
    full: bool = False,
    reuse: bool = True,
) -> DiffReport:
    """Compare the prompts of `base` (a revision) and `head` (a revision, or None: the working
    tree). `paths`: repo-relative files or folders to limit the comparison to. `full`: preview
    every eval file and count every test's tokens (else only the files the change can reach, see
    `affected`, and the tokens of the tests that changed). `reuse`: between two commits that
    add or remove no path, a test whose inputs are the same bytes in both is built in one
    revision or neither (`collect`); False builds each previewed test in both (the same report,
    slower: what the tests hold the rule to). Raises GitError when a revision cannot be read."""
    top = repository_top(repo_root)
    shown_root = os.path.realpath(top)
    cwd = os.path.realpath(cwd or top)
    wanted = _path_filter(paths)
    with ExitStack() as stack:
        before_snap = stack.enter_context(open_snapshot(shown_root, base))
        after_snap = stack.enter_context(open_snapshot(shown_root, head))
        _check_paths_match(paths, before_snap, after_snap)
        before_files = eval_files(before_snap, wanted, requested)
        after_files = eval_files(after_snap, wanted, requested)
        if before_snap.commit and after_snap.commit:
            renames = renames_between(shown_root, before_snap.commit, after_snap.commit)
            if paths:
                before_files, after_files = _across_limit(
                    before_snap, after_snap, before_files, after_files, renames, wanted, requested
                )
        elif paths:
            before_all = eval_files(before_snap, lambda _relative: True, requested)
            after_all = eval_files(after_snap, lambda _relative: True, requested)
            renames = similar_files(before_snap, after_snap, before_all, after_all)
            before_files, after_files = _across_limit(
                before_snap, after_snap, before_files, after_files, renames, wanted, requested
            )
        else:
            renames = similar_files(before_snap, after_snap, before_files, after_files)
        pairs = pair_files(before_files, after_files, renames)
        previewed = pairs
        moved, modified = changed_paths(before_snap, after_snap)
        # With no path added or removed, every file exists alike on both sides (what the engines
        # find, list or glob): only the modified bytes can make a test's prompts differ.
        same_paths = reuse and bool(before_snap.commit and after_snap.commit) and not moved
        if not full:
            reached = affected_files(after_snap, pairs, moved, modified)
            previewed = [p for p in pairs if p in reached]
        skipped = [p[1] or p[0] or "" for p in pairs if p not in previewed]
        collect = pair_collector(
            before_snap, after_snap, requested, shown_root, cwd, modified if same_paths else None, full
        )
        notes = _migration_notes(before_snap, after_snap)
        finder = CauseFinder(before_snap, after_snap, requested, shown_root, cwd)

        def job(pair: Pair) -> FileCompared | None:
            # compared where it was previewed: the processes share the field diffs, and only
            # the comparison comes back (not every unchanged prompt)
            fb, fa = collect(pair)
            _raise_failure(before_snap, after_snap)
            return compare_pair(before_snap, after_snap, fb, fa, notes, full, shown_root, finder)

        if map_files is not None and previewed and (moved or modified):
            # The token table (a quarter second to load) once, here, rather than in each process
            # that counts: the forked ones share it.
            tokens.encoder()
        compared = map_files(job, previewed) if map_files is not None else [job(p) for p in previewed]
        _raise_failure(before_snap, after_snap)
        return compare(before_snap, after_snap, {}, {}, previewed, notes, full, skipped, shown_root, compared)


def _raise_failure(*snapshots: Snapshot) -> None:
    """An object a revision needed was missing: the diff stops with its name (a read that an
    engine took as a failed file read would otherwise show a wrong prompt)."""
    for snapshot in snapshots:
        failure = snapshot.failure()
        if failure is not None:
            raise failure


def _migration_notes(base: Snapshot, head: Snapshot) -> MigrationNotes:
    """`migrate.diff_notes.migration_notes`, imported only for a file migrated between the revisions (it
    brings the v2 engine and `migrate`'s proof: a tenth of a second at every start otherwise)."""

    def notes(fb: FilePrompts, fa: FilePrompts) -> dict[str, str]:
        from agentv_lsp.migrate.diff_notes import migration_notes

        return migration_notes(base, head)(fb, fa)

    return notes


def _check_paths_match(paths: Sequence[str], base: Snapshot, head: Snapshot) -> None:
    """Raises PathMatchesNothing for a path argument under which neither revision has a file."""
    for path in paths:
        prefix = path.strip("/").replace(os.sep, "/")
        if prefix in ("", "."):
            continue
        inside = prefix + "/"
        if not any(f == prefix or f.startswith(inside) for snap in (base, head) for f in snap.files):
            raise PathMatchesNothing(f"path {path!r} matches no file in {base.label} nor in {head.label}")


def _across_limit(
    base: Snapshot,
    head: Snapshot,
    before: list[str],
    after: list[str],
    renames: dict[str, str],
    wanted: Callable[[str], bool],
    requested: Requested,
) -> tuple[list[str], list[str]]:
    """The eval files of a limited diff plus the other end of each rename that crosses the limit
    (into it or out of it), so that the full tree's rename detection holds: a file moved into
    the limited folder is a rename, not an addition."""
    sources = {old for old, new in renames.items() if wanted(new) != wanted(old)}
    targets = {renames[old] for old in sources}
    extra_before = eval_files(base, lambda relative: relative in sources, requested)
    extra_after = eval_files(head, lambda relative: relative in targets, requested)
    return sorted({*before, *extra_before}), sorted({*after, *extra_after})


def _path_filter(paths: Sequence[str]) -> Callable[[str], bool]:
    prefixes = [p.strip("/").replace(os.sep, "/") for p in paths if p.strip("/") not in ("", ".")]
    if not prefixes:
        return lambda _relative: True
    return lambda relative: any(relative == p or relative.startswith(p + "/") for p in prefixes)


def similar_files(
    base: Snapshot, head: Snapshot, before: Sequence[str], after: Sequence[str]
) -> dict[str, str]:
    """Renames between a commit and the working tree: each eval file gone from one side paired
    with the most similar new one (by lines in common, at least half), most similar pairs first."""
    gone = [p for p in before if p not in set(after)]
    new = [p for p in after if p not in set(before)]
    if not gone or not new:
        return {}
    scored = []
    for old in gone:
        old_lines = (base.read_bytes(old) or b"").decode("utf-8", "replace").splitlines()
        for candidate in new:
            new_lines = (head.read_bytes(candidate) or b"").decode("utf-8", "replace").splitlines()
            matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
            if matcher.real_quick_ratio() >= _RENAME_SIMILARITY and matcher.ratio() >= _RENAME_SIMILARITY:
                scored.append((matcher.ratio(), old, candidate))
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    for _score, old, candidate in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if old not in pairs and candidate not in taken:
            pairs[old] = candidate
            taken.add(candidate)
    return pairs
