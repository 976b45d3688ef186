"""One test's rendered prompt as a text document, at a revision or in an editor buffer (the
editor's "Compare prompt with HEAD": both sides through `collect`, as the diff sees them)."""

from __future__ import annotations

import os

from agentv_lsp.diff.collect import FIELD_TITLES, FIELDS, TestPrompts, collect_file, field_text, test_tokens
from agentv_lsp.diff.git import repository_top
from agentv_lsp.diff.snapshot import Snapshot, open_snapshot
from agentv_lsp.engine.tokens import describe
from agentv_lsp.formats.runtime import Requested


def render_test(test: TestPrompts | None, where: str, laid_out: str = "", shown_root: str = "") -> str:
    """The fields of a test as one document: a heading line per field, then its text (absolute
    paths under `laid_out`, the folder a revision was laid out in, shown under `shown_root`)."""
    if test is None:
        return f"# {where}: no test loads with this id\n"
    parts = [f"# {test.id} ({test.file}, {where})", describe(test_tokens(test)), ""]
    for name in FIELDS:
        value = test.fields.get(name)
        if isinstance(value, (list, dict)) and not value:
            continue  # no expected_output, no assertions: nothing to show (not `[]`)
        text = field_text(name, value)
        if text is not None:
            if laid_out and laid_out != shown_root:
                text = text.replace(laid_out, shown_root)
            parts += [f"## {FIELD_TITLES[name]}", text, ""]
    return "\n".join(parts)


def buffer_prompt(
    repo: str,
    path: str,
    text: str,
    test_id: str,
    requested: Requested = "auto",
    allowed_roots: tuple[str, ...] | None = None,
) -> str:
    """The test as the editor's text (unsaved edits included) makes it; other files from disk,
    inside `allowed_roots` (an untrusted workspace's folders; None: the repository)."""
    top = os.path.realpath(repository_top(repo))
    relative = os.path.relpath(os.path.realpath(path), top).replace(os.sep, "/")
    snapshot = Snapshot("buffer", top, [relative], allowed_roots=allowed_roots)
    found = collect_file(snapshot, relative, requested, top, top, overlays={snapshot.path_of(relative): text})
    return render_test(found.tests.get(test_id), "unsaved buffer")


def revision_prompt(
    repo: str, path: str, test_id: str, revision: str = "HEAD", requested: Requested = "auto"
) -> str:
    """The test as `revision` makes it, read from git's objects (nothing is written anywhere;
    the revision's files only, see `revision`)."""
    top = os.path.realpath(repository_top(repo))
    relative = os.path.relpath(os.path.realpath(path), top).replace(os.sep, "/")
    with open_snapshot(top, revision) as snapshot:
        if relative not in snapshot.object_ids:
            return f"# {snapshot.label}: {relative} is not in this revision\n"
        found = collect_file(snapshot, relative, requested, top, top)
        failure = snapshot.failure()
        if failure is not None:
            raise failure  # a read an engine took as a failed file read: not a prompt to show
        return render_test(found.tests.get(test_id), snapshot.label, snapshot.root, top)
