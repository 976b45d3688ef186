"""The server takes in the workspace edit of its own "Migrate this file to AgentV 4" action,
and `workspace/executeCommand` `agentv.migrationProof`.

The edit renames the file and rewrites other files (grader prompts) that this server reads from
disk, and that a client may leave unsaved: without taking them in, the other files were read as
they were before, and diagnostics, code lens, outline and preview disagreed with
`agentv-lsp check` until some later edit. Whichever client applied the edit, the server sees it
arrive: a document opened or changed to exactly the migrated text of a migration it computed
(`v4/actions.applied_here`). Then it
- holds the rewritten text of each other file as an overlay (what a check reads for that path)
  until the file changes on disk (saved, or changed by anything else: the disk decides again;
  a settings change that makes the server read every file afresh drops them too);
- forgets what it read from the old path, the new path and those files;
- checks every open document again (diagnostics published, or a pull refresh), and asks the
  client to refresh code lenses;
- tells the client what changed, once per migration, with the notification `agentv/migrated`
  `{"file", "uri", "renamedFrom", "oldUri", "otherFiles": [{"file", "reason"}], "attention": [...]}` (the
  VS Code extension says so, refreshes its preview and status item and offers the proof), and
  logs the same in one line for other clients.

`agentv.migrationProof` (`[{"uri"}]`, the old or the new uri) answers the per-test proof of that
migration as Markdown (`{"title", "markdown"}`): for each test, whether the LM question the model
receives stays the same, with the diff where it changes, as `agentv-lsp migrate` prints it.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.lsp.base import ServerBase, guard
from agentv_lsp.lsp.convert import is_file_uri, path_to_uri
from agentv_lsp.lsp.editor import migrations
from agentv_lsp.lsp.features.codelens import refresh_code_lenses
from agentv_lsp.lsp.features.diagnostics import recheck_open_documents
from agentv_lsp.migrate import Migration, migrate_text
from agentv_lsp.report import one_line

MIGRATED = "agentv/migrated"  # notification
MIGRATION_PROOF = "agentv.migrationProof"
MAX_REMEMBERED = 16  # applied migrations kept for their proof

# applied migrations by their old and new uri (for the proof)
_applied: dict[str, tuple[Migration, str, str]] = {}
_lock = threading.Lock()


def _argument(args: tuple[Any, ...]) -> dict[str, Any]:
    """The first argument when it is an object (clients send `[{...}]`)."""
    first = args[0] if args else None
    if isinstance(first, list) and first:
        first = first[0]
    return first if isinstance(first, dict) else {}


def take_in(ls: ServerBase, migration: Migration) -> None:
    """The server's state after the migration's edit: the other files' new text, the rename,
    and every open document checked again."""
    changed = {migration.path, migration.new_path}
    migrating = migrations()
    companions = migrating.edited_companions(migration) if migrating is not None else []
    for companion in companions:
        ls.fs.overlays[companion.path] = companion.new_text
        changed.add(companion.path)
    _written_overlays.update(c.path for c in companions)
    old_uri = path_to_uri(migration.path)
    if migration.new_path != migration.path and not ls.is_open(old_uri):
        ls.forget(old_uri)  # renamed away
    ls.invalidate(sorted(changed))
    recheck_open_documents(ls)
    refresh_code_lenses(ls)


# paths whose overlay came from a migration: dropped when the file changes on disk
_written_overlays: set[str] = set()


def _files_changed(ls: ServerBase, paths: list[str]) -> None:
    for path in paths:
        if path in _written_overlays:
            _written_overlays.discard(path)
            ls.fs.overlays.pop(path, None)
            ls.fs.invalidate([path])


def summary(migration: Migration, cwd: str) -> dict[str, Any]:
    def shown(path: str) -> str:
        relative = os.path.relpath(path, cwd)
        return path if relative.startswith("..") else relative

    migrating = migrations()
    companions = migrating.edited_companions(migration) if migrating is not None else []
    return {
        "file": shown(migration.new_path),
        "uri": path_to_uri(migration.new_path),
        "renamedFrom": shown(migration.path) if migration.new_path != migration.path else None,
        "oldUri": path_to_uri(migration.path),
        "otherFiles": [{"file": shown(c.path), "reason": c.reason} for c in companions],
        "attention": [f.message for f in migration.findings if f.attention],
    }


def proof_markdown(migration: Migration, cwd: str, not_written: tuple[str, ...] = ()) -> str:
    """The per-test proof, as `agentv-lsp migrate` prints it, in Markdown. `not_written`: the
    other files the edit left alone (outside the workspace folder or the repo root)."""
    name = os.path.relpath(migration.path, cwd)
    out = [f"# Migration of `{one_line(name)}` to AgentV 4.42.4", ""]
    if migration.new_path != migration.path:
        out += [f"Renamed to `{one_line(os.path.relpath(migration.new_path, cwd))}`.", ""]
    for companion in migration.companions:
        name = one_line(os.path.relpath(companion.path, cwd))
        if companion.path in not_written:
            out += [
                f"- **needs attention**: `{name}` not edited (outside the workspace folder or the repo root)"
            ]
        else:
            out += [f"- `{name}` rewritten: {one_line(companion.reason)}"]
    for finding in migration.findings:
        out += [f"- {'**needs attention**: ' if finding.attention else ''}{one_line(finding.message)}"]
    out += ["", "## The LM question of each test", ""]
    if not migration.cases:
        out += ["No test to compare."]
    for proof in migration.cases:
        causes = f" ({'; '.join(proof.causes)})" if proof.causes else ""
        out += [f"- `{one_line(proof.id)}`: **{proof.verdict}**{one_line(causes)}"]
        if proof.diff:
            out += ["", "  ```diff", *(f"  {line}" for line in proof.diff.splitlines()), "  ```", ""]
        for other in proof.other:
            out += [f"  - {other}"]
    return "\n".join(out) + "\n"


def observe(ls: ServerBase, uri: str) -> None:
    """A document's text was set: take in a migration whose edit gave it that text."""
    document = ls.workspace.text_documents.get(uri)
    migrating = migrations()
    if document is None or not is_file_uri(uri) or migrating is None:
        return
    migration = migrating.applied_here(uri, document.source)
    if migration is None:
        return
    take_in(ls, migration)
    cwd = ls.context_for(migration.new_path)[1]
    with _lock:
        old_uri = path_to_uri(migration.path)
        known = _applied.get(old_uri)
        first = known is None or known[0] is not migration
        if first:
            if len(_applied) > MAX_REMEMBERED:
                _applied.clear()
            _applied[old_uri] = _applied[path_to_uri(migration.new_path)] = (migration, old_uri, cwd)
    if not first:
        return
    report = summary(migration, cwd)
    others = ", ".join(o["file"] for o in report["otherFiles"])
    renamed = f" (renamed from {report['renamedFrom']})" if report["renamedFrom"] else ""
    message = f"agentv-lsp: migrated {report['file']}{renamed} to AgentV 4" + (
        f"; also rewrote {others}" if others else ""
    )
    ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Info, message=one_line(message)))
    ls.protocol.notify(MIGRATED, report)


def register(server: ServerBase) -> None:
    server.file_listeners.append(lambda paths: _files_changed(server, paths))
    server.document_listeners.append(lambda uri: observe(server, uri))

    @server.command(MIGRATION_PROOF)
    @guard()
    async def migration_proof(ls: ServerBase, *args: Any) -> dict[str, Any] | None:
        uri = _argument(args).get("uri")
        with _lock:
            found = _applied.get(uri) if isinstance(uri, str) else None
        if found is None:
            return None
        applied, _, cwd = found
        repo_root = ls.context_for(applied.path)[0]
        # the proof compares the v2 file (as it was) with the 4.x text, other files as rewritten
        proved = await asyncio.to_thread(
            migrate_text,
            applied.path,
            applied.old_text,
            repo_root=repo_root,
            cwd=cwd,
            fs=_proof_fs(ls, applied),
            rename=True,
            prove=True,
        )
        name = os.path.basename(applied.new_path)
        markdown = proof_markdown(proved, cwd, tuple(applied.not_written))
        return {"title": f"Migration proof: {name}", "markdown": markdown}


def _proof_fs(ls: ServerBase, migration: Migration) -> Any:
    """A file system that reads the other files as they were before the migration (the proof
    migrates the v2 text again and compares both sides itself)."""
    from agentv_lsp.engine.files import FileSystem

    before = {c.path: c.old_text for c in migration.companions}
    return FileSystem(
        max_bytes=ls.fs.max_bytes, allowed_roots=ls.fs.allowed_roots, overlays={**ls.fs.overlays, **before}
    )


__all__ = ["MIGRATED", "MIGRATION_PROOF", "proof_markdown", "summary", "take_in"]
