"""`diff` of a file judged by v2 in the base revision and by 4.42.4 in the head one (migrated
between the two): each test gets the per-test proof of `migrate` (the v2 LM question beside the 4.42.4 one,
and the known cause of a difference)."""

from __future__ import annotations

from agentv_lsp.diff.collect import FilePrompts
from agentv_lsp.diff.compare import MigrationNotes
from agentv_lsp.diff.snapshot import Snapshot
from agentv_lsp.formats.v2.loader import load_all, open_eval_file
from agentv_lsp.formats.v4.loader import load_suite
from agentv_lsp.formats.v4.model import V4Test
from agentv_lsp.migrate.proof import prove_case


def migration_notes(base: Snapshot, head: Snapshot) -> MigrationNotes:
    def notes(fb: FilePrompts, fa: FilePrompts) -> dict[str, str]:
        if not (fb.runtime_major == 2 and fa.runtime_major == 4):
            return {}
        base_fs = base.file_system()
        ef = open_eval_file(base.path_of(fb.file), repo_root=base.root, cwd=base.root, fs=base_fs)
        if not ef.loaded:
            return {}
        head_fs = head.file_system()
        suite = load_suite(head.path_of(fa.file), head.root, head.root, head_fs)
        by_id: dict[str, V4Test] = {}
        for test in suite.tests:
            by_id.setdefault(test.id, test)
        out: dict[str, str] = {}
        for outcome in load_all(ef):
            case = outcome.case
            if case is None or case.id in out:
                continue
            proof = prove_case(case, by_id.get(case.id), base_fs, base.root)
            text = f"migrated from v2 to 4.42.4: LM question {proof.verdict}"
            if proof.verdict != "unchanged" and proof.causes:
                text += " (" + "; ".join(proof.causes) + ")"
            if proof.other:
                text += "; " + "; ".join(proof.other)
            out[case.id] = text.replace(base.root, "<repo>").replace(head.root, "<repo>")
        return out

    return notes
