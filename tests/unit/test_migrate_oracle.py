"""Every v2 golden, migrated, read by the live AgentV 4.42.4 runtime (driver.mjs, one batch).

Skips without the oracle (AGENTV4_MODULES, see tests/oracle_v4/oracle.py). The runtime is
the judge of the migration's claims: a migrated file loads without error unless the report
says it needs attention, and where the proof says a case's LM question is "unchanged", the
runtime's question for the migrated test is the v2 question.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.oracle_v4.oracle import oracle_unavailable, run_driver_batch, scrub
from tests.unit.test_migrate import golden_dirs

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.migrate import Migration
from agentv_lsp.migrate.cli_glue import apply_migration, discover, migrate_path

pytestmark = pytest.mark.skipif(oracle_unavailable() is not None, reason=oracle_unavailable() or "")


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, Migration, dict[str, Any]]]:
    base = tmp_path_factory.mktemp("migrated")
    plans: list[tuple[Path, Migration]] = []
    for case in golden_dirs():
        root = base / case.name
        shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected"))
        (root / ".git").mkdir(exist_ok=True)
        fs = FileSystem()
        here = [migrate_path(p, str(root), str(root), fs) for p in discover(["."], str(root))]
        for m in here:
            if m.status == "migrated":
                apply_migration(m)
                plans.append((root, m))
    entries = [(root, [str(Path(m.new_path).relative_to(root))]) for root, m in plans]
    records = run_driver_batch(entries)
    assert len(records) == len(plans)
    return [(root, m, r) for (root, m), r in zip(plans, records, strict=True)]


def test_migrated_goldens_load_in_the_runtime(migrated: list[tuple[Path, Migration, dict[str, Any]]]) -> None:
    assert migrated
    problems = []
    for root, m, record in migrated:
        name = f"{root.name}/{Path(m.new_path).relative_to(root)}"
        if record["load_error"] is not None and not m.needs_attention:
            problems.append(f"{name}: runtime load error {record['load_error']!r} but the report is clean")
        skipped = [w for w in record["warnings"] if "Skipping" in w]
        if skipped and not m.needs_attention:
            problems.append(f"{name}: runtime skipped something {skipped} but the report is clean")
        # clean means clean for 4.42.4: `agentv validate` passes and the runtime prints nothing
        if record["warnings"] and not m.needs_attention:
            problems.append(f"{name}: the runtime printed {record['warnings']} but the report is clean")
        if record["validation"]["exit_code"] != 0 and not m.needs_attention:
            problems.append(f"{name}: `agentv validate` fails it but the report is clean")
        loaded = [p for p in m.cases if p.verdict != "missing"]
        if len(record["cases"]) != len(loaded):
            problems.append(f"{name}: runtime loaded {len(record['cases'])} tests, the proof {len(loaded)}")
            continue
        for proof, case in zip(loaded, record["cases"], strict=True):
            question = case["lm"]["question"]
            if proof.verdict == "unchanged" and question != proof.v2_question:
                problems.append(f"{name}: case {proof.id} claimed unchanged, runtime says {question!r}")
            if proof.verdict == "changed" and question == proof.v2_question:
                problems.append(
                    f"{name}: case {proof.id} claimed changed, the runtime question is the v2 one"
                )
            reference = case["reference_answer"] or ""  # the driver records undefined as null
            if proof.v4_reference is not None and scrub(proof.v4_reference, root) != reference:
                problems.append(
                    f"{name}: case {proof.id}: the proof's 4.42.4 reference answer is not the runtime's"
                )
            if proof.v2_reference != reference and not any("reference answer" in o for o in proof.other):
                problems.append(f"{name}: case {proof.id}: reference answer changed without a report")
    assert not problems, "\n".join(problems)


def test_what_the_report_says_4_42_4_complains_about_it_does(
    migrated: list[tuple[Path, Migration, dict[str, Any]]],
) -> None:
    """The other direction: a report naming a validate failure or a runtime message of the
    migrated file is backed by the runtime's own answer for it."""
    wrong = []
    for root, m, record in migrated:
        name = f"{root.name}/{Path(m.new_path).relative_to(root)}"
        messages = [f.message for f in m.findings if f.attention]
        says_validate_fails = any(t.startswith("`agentv validate` 4.42.4 fails") for t in messages)
        if says_validate_fails and record["validation"]["exit_code"] == 0:
            wrong.append(f"{name}: the report says validate fails it, validate passes it")
        if any(t.startswith("the 4.42.4 runtime prints") for t in messages) and not record["warnings"]:
            wrong.append(f"{name}: the report names a runtime message, the runtime printed none")
    assert not wrong, wrong


def test_proof_v4_question_is_the_runtime_question(
    migrated: list[tuple[Path, Migration, dict[str, Any]]],
) -> None:
    """Where the proof says "changed", the 4.42.4 question it shows is the runtime's."""
    wrong = []
    for root, m, record in migrated:
        loaded = [p for p in m.cases if p.verdict != "missing"]
        for proof, case in zip(loaded, record["cases"], strict=False):
            if proof.v4_question != case["lm"]["question"]:
                wrong.append(f"{root.name}: {proof.id}")
    assert not wrong, wrong


def test_report_text_names_every_attention_file(
    migrated: list[tuple[Path, Migration, dict[str, Any]]],
) -> None:
    from agentv_lsp.migrate.cli_glue import write_text_report

    out = io.StringIO()
    write_text_report([m for _, m, _ in migrated], True, "/", out)
    for _, m, _ in migrated:
        if m.needs_attention:
            assert m.path.lstrip("/") in out.getvalue() or m.path in out.getvalue()


def test_synthetic_layouts_in_the_runtime(tmp_path: Path) -> None:
    """Flow-style cases, commented-out parts and a `file://` prompt in a flow mapping: the
    runtime's YAML reader accepts what the migration wrote, and the proof holds."""
    from tests.unit.test_migrate import FLOW_SUITE

    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "judge.md").write_text("Grade {{candidate_answer}} against {{reference_answer}}.\n")
    text = FLOW_SUITE.replace("prompt: 'Rate {{candidate_answer}}'", "prompt: judge.md")
    (root / "flow.yaml").write_text(text)
    m = migrate_path(str(root / "flow.yaml"), str(root), str(root), FileSystem())
    assert m.status == "migrated" and "prompt: file://judge.md" in m.new_text
    apply_migration(m)
    (record,) = run_driver_batch([(root, ["flow.eval.yaml"])])
    assert record["load_error"] is None, record["load_error"]
    assert not [w for w in record["warnings"] if "Skipping" in w]
    assert [c["lm"]["question"] for c in record["cases"]] == [p.v2_question for p in m.cases]
