"""Which changed files made a difference to a test: a file is named as a cause of a test's change
only when undoing that one file's change alone changes what the test becomes.

Undoing is a preview of the eval file again with the file taken from the other revision, given
to the same guarded `FileSystem` as an overlay (nothing is written). A file the head revision
still has (changed in place, or removed: it comes back) is put back as the base revision had it,
in the head revision; a file the base revision did not have (added) cannot be taken away by an
overlay, so its change is applied the other way: to the base revision. Either way, if the test
comes out the same (its fields, or why it is skipped, or its eval file's load error), that
file's change did nothing to it: a config that only moved, or whose edit is a comment, is no
cause. When a test has a single changed input, that input is the cause without a preview (the
test changed, and undoing the one change gives the base revision back).
"""

from __future__ import annotations

from typing import Any

from agentv_lsp.diff.collect import FilePrompts, TestPrompts, _collect
from agentv_lsp.diff.snapshot import Snapshot
from agentv_lsp.engine.files import DEFAULT_MAX_FILE_BYTES
from agentv_lsp.formats.runtime import Requested

# Files that decide the runtime: `choose_runtime` reads them, not the previews' FileSystem, so
# an overlay cannot undo them (they are named whenever the runtime changed).
_RUNTIME_FILES = ("package.json",)


class CauseFinder:
    """Asked per changed test and changed input file (`made_a_difference`); previews memoised
    by (side, eval file, undone file), so an input shared by many tests of one file costs one."""

    def __init__(
        self, base: Snapshot, head: Snapshot, requested: Requested, shown_root: str, cwd: str
    ) -> None:
        self.base, self.head = base, head
        self.requested, self.shown_root, self.cwd = requested, shown_root, cwd
        self.base_files = frozenset(base.files)
        self._previews: dict[tuple[str, str, str], FilePrompts | None] = {}

    def made_a_difference(self, fb: FilePrompts, fa: FilePrompts, key: str, path: str) -> bool:
        """Whether undoing `path`'s change alone changes test `key` (`path` may be the eval file)."""
        if path.rsplit("/", 1)[-1] in _RUNTIME_FILES and fb.runtime != fa.runtime:
            return True
        if path == fa.file:
            # the eval file itself: the head revision's path, with the base revision's text
            reference = fa
            undone = self._preview(fb, fa, reference, path, self.base, fb.file)
        elif path in self.base_files:
            reference = fa
            undone = self._preview(fb, fa, reference, path, self.base, path)
        else:
            reference = fb
            undone = self._preview(fb, fa, reference, path, self.head, path)
        if undone is None:
            return True  # cannot be undone faithfully (binary, too large): named, as before
        return _state(undone, key) != _state(reference, key)

    def _preview(
        self,
        fb: FilePrompts,
        fa: FilePrompts,
        reference: FilePrompts,
        path: str,
        source: Snapshot,
        source_path: str,
    ) -> FilePrompts | None:
        """`reference`'s eval file previewed again in its revision with `path` as `source` has
        it. Only the tests whose prompts differ between the revisions are built (4.x): the
        others stand as `reference` has them, never asked about."""
        snapshot = self.head if reference is fa else self.base
        memo = ("head" if reference is fa else "base", reference.file, path)
        if memo in self._previews:
            return self._previews[memo]
        data = source.read_bytes(source_path, DEFAULT_MAX_FILE_BYTES + 1)
        found: FilePrompts | None = None
        if data is not None and len(data) <= DEFAULT_MAX_FILE_BYTES and b"\x00" not in data[:8192]:
            overlays = {snapshot.path_of(path): data.decode("utf-8", errors="replace")}
            differing = _differing(fb, fa)

            def known(key: str) -> TestPrompts | None:
                return None if key in differing else reference.tests.get(key)

            found = _collect(
                snapshot, reference.file, self.requested, self.shown_root, self.cwd, overlays, known
            )[0]
        self._previews[memo] = found
        return found


def _differing(fb: FilePrompts, fa: FilePrompts) -> set[str]:
    """The keys of the tests that are not the same prompts in both revisions."""
    before, after = fb.tests, fa.tests
    return {
        key
        for key in {*before, *after}
        if key not in before or key not in after or before[key].fields != after[key].fields
    }


def _state(prompts: FilePrompts, key: str) -> tuple[Any, ...]:
    """What a test is in one preview: its fields, why it is skipped, its file's load error, or absent."""
    if prompts.load_error is not None:
        return ("error", prompts.load_error)
    test = prompts.tests.get(key)
    if test is not None:
        return ("test", test.fields)
    if key in prompts.skipped:
        return ("skipped", prompts.skipped[key])
    return ("absent",)
