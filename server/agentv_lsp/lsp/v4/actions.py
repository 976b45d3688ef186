"""Code actions for documents judged by AgentV 4.42.4, and "Migrate this file to AgentV 4"
for v2 eval files under either runtime.

Quick fixes come from `Diagnostic.data["fix"]` (never from message text), as the 4.x checks
(`formats.v4.lint`, `formats.v4.schema`) emit them:
- `{"kind": "replace", "span": [l0, c0, l1, c1], "text": ...}`: code-point lines and columns
  (an empty span inserts), in the file the diagnostic was found in (`data["file"]` when the
  check placed it on this document's `tests` key);
- `{"kind": "rename-file", "to": name}`: a RenameFile document change, offered only to
  clients that support it and when no file has that name.
`v4-invalid-role` carries a `suggestion` instead (a role spelt differently): the role value
is replaced by it.

The migration is `migrate.migrate_text` on the unsaved text (`prove=False`), once per
document version: the whole document replaced, the file renamed when 4.42.4 would not find
it under its name, and the companion files (grader prompts) rewritten. It is offered only
when the migration succeeds (`status == "migrated"`); findings that need a person's
attention are named in the title and listed as the action's diagnostics.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.checks.model import SOURCE
from agentv_lsp.formats.runtime import UNDECLARED_V2_CODE
from agentv_lsp.lsp.base import MigrationRequest, ServerBase
from agentv_lsp.lsp.convert import path_to_uri, to_client_col, uri_to_path
from agentv_lsp.lsp.quick_fixes import EditSupport, quick_fix, suggestion_action
from agentv_lsp.lsp.v4.state import MAX_MIGRATIONS, STATE
from agentv_lsp.migrate import CompanionChange, Migration, migrate_text
from agentv_lsp.migrate.cli_glue import WriteScope

MIGRATE_TITLE = "Migrate this file to AgentV 4"
# The diagnostics 4.x reports on a v2 eval file, which the migration settles.
V2_FILE_CODES = frozenset(("v4-tests-missing", "v4-deprecated-field", UNDECLARED_V2_CODE))
_V2_LIST_KEYS = ("evalcases", "eval_cases")
# Texts larger than this are migrated only when the user asks for actions (ctrl+.), not on
# every cursor move: a 10,000-case file takes about a second.
AUTOMATIC_MIGRATION_MAX_CHARS = 512 * 1024
MAX_TITLE_FINDING = 90

LinesOf = Callable[[str], list[str] | None]


# -- quick fixes from data["fix"] ------------------------------------------------------------------


def _position(lines: list[str], line: int, col: int, encoding: str) -> lsp.Position:
    text = lines[line].removesuffix("\r") if 0 <= line < len(lines) else ""
    return lsp.Position(line=max(line, 0), character=to_client_col(text, max(col, 0), encoding))


def _range_of_span(span: Sequence[Any], lines: list[str], encoding: str) -> lsp.Range | None:
    if len(span) != 4 or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in span):
        return None
    l0, c0, l1, c1 = span
    if (l1, c1) < (l0, c0) or l1 >= max(len(lines), 1):
        return None
    return lsp.Range(start=_position(lines, l0, c0, encoding), end=_position(lines, l1, c1, encoding))


def _title_for_replace(code: str, text: str, empty: bool) -> str:
    shown = " ".join(text.split())
    if len(shown) > 60:
        shown = shown[:59] + "…"
    if empty:
        return f"Insert '{shown}'"
    if code in ("v4-schema-deprecated-key", "v4-lint-expected-prose"):
        return f"Rename to '{shown}'"
    return f"Change to '{shown}'"


def fix_actions(
    uri: str, diagnostic: lsp.Diagnostic, lines_of: LinesOf, encoding: str, support: EditSupport
) -> list[lsp.CodeAction]:
    """The quick fixes a 4.x diagnostic carries (none for other diagnostics)."""
    data: dict[str, Any] = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    code = str(diagnostic.code)
    here = uri_to_path(uri)
    target = _fixed_file(diagnostic, data, here)
    target_uri = uri if target == here else path_to_uri(target)
    fix = data.get("fix")
    if isinstance(fix, dict):
        kind = fix.get("kind")
        if kind == "replace" and isinstance(fix.get("text"), str) and isinstance(fix.get("span"), list):
            lines = lines_of(target)
            rng = _range_of_span(fix["span"], lines, encoding) if lines is not None else None
            if rng is None:
                return []
            empty = rng.start == rng.end
            edit = lsp.WorkspaceEdit(changes={target_uri: [lsp.TextEdit(range=rng, new_text=fix["text"])]})
            return [quick_fix(_title_for_replace(code, fix["text"], empty), diagnostic, edit)]
        if kind == "rename-file" and isinstance(fix.get("to"), str):
            return _rename_action(target, fix["to"], diagnostic, support)
        return []
    lines = lines_of(target) if target == here else None
    found = suggestion_action(uri, diagnostic, lines, encoding) if lines is not None else None
    return [found] if found is not None else []


def _fixed_file(diagnostic: lsp.Diagnostic, data: dict[str, Any], here: str) -> str:
    """The file a fix edits: this document, or the file the check found the problem in when
    the diagnostic was moved here (`data["file"]`, also its first related location; other
    diagnostics use a `file` key for a file reference)."""
    other = data.get("file")
    related = diagnostic.related_information or []
    if (
        isinstance(other, str)
        and os.path.isabs(other)
        and related
        and related[0].location.uri == path_to_uri(other)
    ):
        return other
    return here


def _rename_action(
    path: str, to: str, diagnostic: lsp.Diagnostic, support: EditSupport
) -> list[lsp.CodeAction]:
    if not support.rename or not to or os.path.basename(to) != to:
        return []
    new_path = os.path.join(os.path.dirname(path), to)
    if new_path == path or os.path.lexists(new_path):
        return []  # renaming would overwrite another file
    edit = lsp.WorkspaceEdit(
        document_changes=[lsp.RenameFile(old_uri=path_to_uri(path), new_uri=path_to_uri(new_path))]
    )
    return [quick_fix(f"Rename the file to '{to}'", diagnostic, edit)]


def code_actions(
    ls: ServerBase, uri: str, lines: list[str], diagnostic: lsp.Diagnostic, support: EditSupport
) -> list[lsp.CodeAction]:
    """The quick fixes of a diagnostic of the 4.x document `uri` (`fix_actions`; a fix may edit
    another file, read open or from disk)."""
    del lines  # (read again through `lines_of`: a fix may be in another file)
    return fix_actions(uri, diagnostic, functools.partial(_lines_of, ls), ls.encoding, support)


def _lines_of(ls: ServerBase, path: str) -> list[str] | None:
    """The lines of an open document, else of the file on disk (None: unreadable)."""
    lines = ls.document_lines(path_to_uri(path))
    if lines is not None:
        return lines
    try:
        return ls.fs.read(path).text.split("\n")
    except Exception:  # unreadable, blocked, too large: no fix there
        return None


# -- "Migrate this file to AgentV 4" --------------------------------------------------------------


def may_be_v2(text: str) -> bool:
    """A cheap test before migrating: only v2 eval texts can be migrated."""
    return "agentv-eval-v2" in text


def migration_of(request: MigrationRequest) -> Migration:
    """The migration of one document version (computed once; the last one per document kept)."""
    with STATE.migrations_lock:
        found = STATE.migrations.get(request.uri)
    if found is not None and found[0] == request.version and found[1] is request.text:
        return found[2]
    migration = migrate_text(
        uri_to_path(request.uri),
        request.text,
        repo_root=request.repo_root,
        cwd=request.cwd,
        fs=request.fs,
        rename=True,
        prove=False,
    )
    # `migrate --write`'s rule, the workspace folder for the paths given: a file outside it or
    # the repo root (after its links) is named, never edited
    scope = WriteScope(
        (os.path.realpath(request.cwd),),
        os.path.realpath(request.repo_root),
        outside_given="outside the workspace folder",
        hint="edit it yourself",
    )
    scope.screen(migration, request.cwd)
    with STATE.migrations_lock:
        if len(STATE.migrations) > MAX_MIGRATIONS:
            STATE.migrations.clear()
        STATE.migrations[request.uri] = (request.version, request.text, migration)
    return migration


def applied_here(uri: str, text: str) -> Migration | None:
    """A migration whose edit gave this document its text: opened under the migrated file's
    name, or changed in place, with exactly the migrated text."""
    with STATE.migrations_lock:
        candidates = [found[2] for found in STATE.migrations.values()]
    for migration in candidates:
        if (
            migration.status == "migrated"
            and migration.new_text != migration.old_text
            and len(migration.new_text) == len(text)
            and uri in (path_to_uri(migration.new_path), path_to_uri(migration.path))
            and migration.new_text == text
        ):
            return migration
    return None


def wanted(only: Sequence[str] | None, kind: str) -> bool:
    """Whether the client asked for actions of `kind` (`only` lists kinds or their parents)."""
    if not only:
        return True
    return any(kind == k or kind.startswith(k + ".") for k in only)


def attention_diagnostics(migration: Migration, lines: list[str]) -> list[lsp.Diagnostic]:
    """The findings of this file that need a person's attention, as diagnostics on their lines."""
    out: list[lsp.Diagnostic] = []
    for finding in migration.findings:
        if not finding.attention:
            continue
        line = (finding.line or 1) - 1
        line = min(max(line, 0), max(len(lines) - 1, 0))
        where = lsp.Position(line=line, character=0)
        where_end = lsp.Position(line=line, character=len(lines[line]) if lines else 0)
        prefix = f"{finding.file}: " if finding.file and finding.file != migration.path else ""
        out.append(
            lsp.Diagnostic(
                range=lsp.Range(start=where, end=where_end),
                message=f"{prefix}{finding.message}",
                severity=lsp.DiagnosticSeverity.Warning,
                code="migrate-attention",
                source=SOURCE,
            )
        )
    return out


def renames(migration: Migration, support: EditSupport) -> bool:
    """Whether the edit renames the file (never over another file)."""
    return support.rename and migration.new_path != migration.path and not os.path.lexists(migration.new_path)


def migration_title(migration: Migration, support: EditSupport) -> str:
    title = MIGRATE_TITLE
    if migration.new_path != migration.path:
        name = os.path.basename(migration.new_path)
        title += (
            f" (renamed to '{name}')"
            if renames(migration, support)
            else f" (then rename it to '{name}' yourself)"
        )
    attention = [f for f in migration.findings if f.attention]
    if attention:
        first = " ".join(attention[0].message.split())
        if len(first) > MAX_TITLE_FINDING:
            first = first[: MAX_TITLE_FINDING - 1] + "…"
        where = f"line {attention[0].line}: " if attention[0].line else ""
        more = f" (+{len(attention) - 1} more)" if len(attention) > 1 else ""
        title += f" — needs attention: {where}{first}{more}"
    return title


def migration_edit(
    migration: Migration,
    uri: str,
    version: int | None,
    support: EditSupport,
    versions: dict[str, int],
    encoding: str,
) -> lsp.WorkspaceEdit:
    """The whole document replaced, the file renamed, the companion files rewritten.
    `versions`: the open documents' versions by path (companions that are open)."""
    whole = _whole_range(migration.old_text, encoding)
    companions = edited_companions(migration)
    if not support.document_changes:
        changes = {uri: [lsp.TextEdit(range=whole, new_text=migration.new_text)]}
        for companion in companions:
            changes[path_to_uri(companion.path)] = [
                lsp.TextEdit(range=_whole_range(companion.old_text, encoding), new_text=companion.new_text)
            ]
        return lsp.WorkspaceEdit(changes=changes)
    document_changes: list[lsp.TextDocumentEdit | lsp.CreateFile | lsp.RenameFile | lsp.DeleteFile] = [
        lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=[lsp.TextEdit(range=whole, new_text=migration.new_text)],
        )
    ]
    if renames(migration, support):
        document_changes.append(lsp.RenameFile(old_uri=uri, new_uri=path_to_uri(migration.new_path)))
    for companion in companions:
        document_changes.append(
            lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(
                    uri=path_to_uri(companion.path), version=versions.get(companion.path)
                ),
                edits=[
                    lsp.TextEdit(
                        range=_whole_range(companion.old_text, encoding), new_text=companion.new_text
                    )
                ],
            )
        )
    return lsp.WorkspaceEdit(document_changes=document_changes)


def edited_companions(migration: Migration) -> list[CompanionChange]:
    """The other files the edit rewrites: those outside the workspace folder or the repo root
    are only named (`migration_of`)."""
    return [c for c in migration.companions if c.path not in migration.not_written]


def _whole_range(text: str, encoding: str) -> lsp.Range:
    """From the start to the end of `text` (in the client's units)."""
    lines = text.split("\n")
    last = lines[-1]
    end = lsp.Position(line=len(lines) - 1, character=to_client_col(last, len(last), encoding))
    return lsp.Range(start=lsp.Position(line=0, character=0), end=end)


def is_v2_file_diagnostic(diagnostic: lsp.Diagnostic) -> bool:
    """A diagnostic saying the file is written for v2: a 4.x one (`evalcases` instead of `tests`),
    or the note on a file judged as v2 only by its own format."""
    if diagnostic.source != SOURCE or str(diagnostic.code) not in V2_FILE_CODES:
        return False
    data: dict[str, Any] = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    if str(diagnostic.code) == UNDECLARED_V2_CODE:  # judged as v2, which today's AgentV does not load
        return data.get("fix") == "migrate"
    return data.get("legacy") in _V2_LIST_KEYS or data.get("field") in _V2_LIST_KEYS


def migration_actions(
    migration: Migration,
    request: MigrationRequest,
    context_diagnostics: Sequence[lsp.Diagnostic],
    only: Sequence[str] | None,
    support: EditSupport,
    edit: lsp.WorkspaceEdit | None,
) -> list[lsp.CodeAction]:
    """The migrate actions for a migrated document: a `refactor.rewrite`, and a quick fix on
    the v2-file diagnostics among those the client sent. Without `edit` the client resolves
    it (`codeAction/resolve`, with the action's `data`)."""
    if migration.status != "migrated" or migration.path in migration.not_written:
        return []  # the document itself leads outside (a link): nothing to offer
    title = migration_title(migration, support)
    lines = request.text.split("\n")
    attention = attention_diagnostics(migration, lines)
    data = {"agentv": "migrate", "uri": request.uri, "version": request.version}
    out: list[lsp.CodeAction] = []
    settled = [d for d in context_diagnostics if is_v2_file_diagnostic(d)]
    if settled and wanted(only, lsp.CodeActionKind.QuickFix):
        out.append(
            lsp.CodeAction(
                title=title,
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[*settled, *attention],
                is_preferred=not attention,
                edit=edit,
                data=None if edit is not None else data,
            )
        )
    if wanted(only, lsp.CodeActionKind.RefactorRewrite):
        out.append(
            lsp.CodeAction(
                title=title,
                kind=lsp.CodeActionKind.RefactorRewrite,
                diagnostics=attention or None,
                edit=edit,
                data=None if edit is not None else data,
            )
        )
    return out


__all__ = [
    "MIGRATE_TITLE",
    "EditSupport",
    "MigrationRequest",
    "applied_here",
    "code_actions",
    "edited_companions",
    "fix_actions",
    "is_v2_file_diagnostic",
    "may_be_v2",
    "migration_actions",
    "migration_edit",
    "migration_of",
    "wanted",
]
