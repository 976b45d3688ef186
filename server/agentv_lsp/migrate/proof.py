"""The proof of a migration: each v2 case's LM question beside the migrated test's 4.42.4 one.

v2 side: our v2 engine (the exact reproduction of agentv-eval-v2). 4.42.4 side: our v4
engine on the migrated text, with the rewritten prompt files laid over the disk. A
difference is explained by a known cause (guidelines, duplicated fences, path display) or
flagged for attention. Beside the proof, the whole 4.x check of the migrated text
(`check_migrated`): what `agentv validate` 4.42.4 fails and what the runtime prints.
"""

from __future__ import annotations

import difflib

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.loader import CaseOutcome, EvalFile
from agentv_lsp.formats.v2.model import EvalCase
from agentv_lsp.formats.v2.prompt import build_both_modes as build_v2
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.model import V4Test
from agentv_lsp.formats.v4.prompt import build_both_modes as build_v4
from agentv_lsp.migrate.model import CaseProof, Finding, Migration


def prove_migration(
    migration: Migration, ef: EvalFile, outcomes: list[CaseOutcome], disk: FileSystem
) -> None:
    overlays = dict(disk.overlays)  # an editor's unsaved buffers count
    overlays[migration.new_path] = migration.new_text
    overlays.update({c.path: c.new_text for c in migration.companions})
    fs = FileSystem(overlays=overlays, max_bytes=disk.max_bytes, allowed_roots=disk.allowed_roots)
    suite = load_suite(migration.new_path, ef.repo_root, ef.cwd, fs, text=migration.new_text)
    migration.v4_load_error = suite.load_error
    migration.v4_warnings = [m.text for m in suite.messages]
    if suite.load_error is not None:
        migration.findings.append(
            Finding(f"4.42.4 cannot load the migrated file: {suite.load_error}", attention=True)
        )
    for skipped in suite.skipped:
        migration.findings.append(
            Finding(f"4.42.4 skips test '{skipped.id}': {skipped.reason}", attention=True)
        )
    check_migrated(migration, ef, fs, disk, suite.load_error_code)
    tests = list(suite.tests)
    skipped_ids = {s.id for s in suite.skipped}
    for outcome in outcomes:
        case = outcome.case
        if case is None:
            continue
        test = tests.pop(0) if tests and case.id not in skipped_ids else None
        migration.cases.append(prove_case(case, test, disk, ef.repo_root))
    for proof in migration.cases:
        if proof.verdict == "changed" and "unexplained" in proof.causes:
            migration.findings.append(
                Finding(
                    f"case '{proof.id}': the 4.42.4 question differs for a reason not known", attention=True
                )
            )
        for other in proof.other:
            migration.findings.append(Finding(f"case '{proof.id}': {other}", attention=True))


# The v2 check's code for the same problem as a 4.x code (the migrated file has the v2 file's
# tests in the same order, so the two are compared at the same test, message and part).
_SAME_IN_V2: dict[str, tuple[str, ...]] = {
    "v4-file-not-found": ("validate-file-not-found", "file-not-found", "file-dropped-leading-slash"),
    "v4-file-empty": ("validate-file-empty", "file-empty"),
    "v4-file-unreadable": ("validate-file-unreadable", "file-unreadable"),
    "v4-role-tool": ("role-tool-rejected-by-validate",),
    "v4-invalid-role": ("validate-role",),
    "v4-skipped-test": ("case-incomplete",),
}
_V2_KEYS = (
    ("evalcases[", "tests["),
    (".input_messages[", ".input["),
    (".expected_messages[", ".expected_output["),
)


def check_migrated(
    migration: Migration, ef: EvalFile, fs: FileSystem, disk: FileSystem, load_error_code: str | None
) -> None:
    """`agentv-lsp check --agentv 4` on the migrated text, in memory (before anything is
    written): every error (`agentv validate` fails the file, or the runtime cannot load it)
    and every message the runtime would print becomes a finding that needs attention, marked
    where the v2 check of the original reports the same problem at the same place. The load
    error and skipped tests are named by `prove_migration` already."""
    from agentv_lsp.checks.options import CheckOptions
    from agentv_lsp.formats.v4.check import check_v4_document
    from agentv_lsp.report import one_line

    opts = CheckOptions(ef.repo_root, ef.cwd, fs, runtime="4")
    report = check_v4_document(migration.new_path, migration.new_text, opts, as_eval=True)
    complaints = [
        d
        for d in report.diagnostics
        if (d.severity == "error" or d.data.get("runtime"))
        and d.code != "v4-skipped-test"
        and not (d.code == load_error_code and not d.data.get("validate"))
    ]
    if not complaints:
        return
    in_v2 = _v2_problems(migration, ef, disk)
    for d in complaints:
        if d.data.get("validate") and d.severity == "error":
            what = "`agentv validate` 4.42.4 fails the migrated file"
        elif d.data.get("runtime") or d.data.get("validate"):
            what = "the 4.42.4 runtime prints"
        else:
            what = "4.42.4 reports an error"
        where = f" at {d.path}" if d.path else ""
        same = any((code, d.path) in in_v2 for code in _SAME_IN_V2.get(d.code, ()))
        note = " (was already so in v2)" if same else ""
        migration.findings.append(
            Finding(
                f"{what}{where}: {one_line(d.message, 600)}{note}",
                d.span.start_line + 1,
                attention=True,
                file=d.file,
            )
        )


def _v2_problems(migration: Migration, ef: EvalFile, disk: FileSystem) -> set[tuple[str, str]]:
    """(code, place written as 4.x names it) of what the v2 check says of the original text."""
    from agentv_lsp.checks.options import CheckOptions
    from agentv_lsp.formats.v2.check import check_document

    try:
        report = check_document(migration.path, migration.old_text, CheckOptions(ef.repo_root, ef.cwd, disk))
    except Exception:  # the v2 check is only for the "was already so" notes
        return set()
    found: set[tuple[str, str]] = set()
    for d in report.diagnostics:
        place = d.path.removesuffix(".value")
        for before, after in _V2_KEYS:
            place = place.replace(before, after)
        found.add((d.code, place))
        found.add((d.code, f"{place}.value"))
    return found


def prove_case(case: EvalCase, test: V4Test | None, fs: FileSystem, repo_root: str) -> CaseProof:
    lm2, _ = build_v2(case, fs)
    if test is None:
        return CaseProof(case.id, lm2.question, None, "missing", ["4.42.4 did not load this test"])
    lm4, _ = build_v4(test)
    other = []
    if test.criteria != case.expected_outcome:
        other.append(f"criteria differ: v2 {case.expected_outcome!r}, 4.42.4 {test.criteria!r}")
    if test.reference_answer != case.reference_answer:
        if test.reference_answer.startswith("[") and not case.reference_answer.startswith("["):
            why = (
                "v2 gave the grader the text (file contents in <file path=…> blocks), 4.42.4 gives it the JSON "
                "of the expected message's parts (with absolute paths); an expected_output string keeps the text"
            )
        else:
            why = f"v2 {_short(case.reference_answer)}, 4.42.4 {_short(test.reference_answer)}"
        other.append(f"reference answer differs: {why}")
    if test.conversation_id != case.conversation_id:
        other.append(f"conversation_id differs: v2 {case.conversation_id!r}, 4.42.4 {test.conversation_id!r}")
    proof = CaseProof(case.id, lm2.question, lm4.question, "unchanged", other=other)
    proof.v2_reference, proof.v4_reference = case.reference_answer, test.reference_answer
    if lm2.question != lm4.question:
        proof.verdict = "changed"
        proof.causes = explain(case, lm2.role_markers, repo_root)
        proof.diff = "".join(
            difflib.unified_diff(
                lm2.question.splitlines(keepends=True),
                lm4.question.splitlines(keepends=True),
                "v2 LM question",
                "4.42.4 LM question",
            )
        )
    return proof


def _short(text: str, limit: int = 160) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def explain(case: EvalCase, role_markers: bool, repo_root: str) -> list[str]:
    causes = []
    guidelines = [r for r in case.file_refs if r.guideline_pattern is not None]
    if guidelines:
        shown = ", ".join(r.raw for r in guidelines)
        causes.append(
            f"guidelines moved: v2 sent {shown} in the system prompt's Guidelines section (the LM question "
            "only showed an <Attached: …> marker, or nothing); 4.42.4 has no guidelines and inlines the file "
            "as a <file path=…> block in the message that references it"
        )
    if case.code_snippets and not role_markers:
        causes.append(
            "fences no longer duplicated: v2 appended every ``` block of a single-message question again at "
            "its end; 4.42.4 does not"
        )
    odd_paths = [r.raw for r in case.file_refs if r.raw.startswith(("/", "\\")) or "\\" in r.raw]
    if odd_paths:
        causes.append(
            f"path display: v2 showed {', '.join(odd_paths)} without the leading '/' (or dropped it in a "
            "multi-message question); 4.42.4 shows the value as written"
        )
    blank_parts = any(
        isinstance(item, dict)
        and item.get("type") == "text"
        and isinstance(item.get("value"), str)
        and not item["value"].strip()
        for m in case.input_messages
        if isinstance(m.get("content"), list)
        for item in m["content"]
    )
    if blank_parts and role_markers:
        causes.append(
            "blank text parts: v2 dropped whitespace-only parts of a message, 4.42.4 keeps them as lines"
        )
    if not causes:
        causes.append("unexplained")
    return causes
