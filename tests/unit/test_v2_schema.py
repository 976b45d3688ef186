"""JSON-schema findings (`agentv_lsp.engine.schemas` through `formats.v2.schema`): what the schemas reject
but the runtime accepts is a warning, never an error; a key nobody reads is marked unnecessary;
a place that already has a more specific diagnostic gets no schema diagnostic on top."""

from __future__ import annotations

import pytest

pytest.importorskip("agentv_lsp.engine.schemas")

EVAL = (
    "$schema: agentv-eval-v2\n"
    "colour: blue\n"  # line 1: a top-level key nobody reads
    "evalcases:\n"
    "  - id: c\n"
    "    outcome: o\n"
    "    input_messages:\n"
    "      - role: user\n"
    "        content: Q\n"
)


def schema_diagnostics(diagnostics):
    return [d for d in diagnostics if d.code.startswith("schema-")]


def test_unknown_top_level_key_is_an_unnecessary_warning(make_repo):
    repo = make_repo({"eval.yaml": EVAL})
    found = [d for d in schema_diagnostics(repo.check()) if d.path == "colour"]
    assert found, [(d.code, d.path, d.message) for d in repo.check()]
    (d,) = found
    assert d.code == "schema-unknown-key"
    assert d.severity == "warning"
    assert d.unnecessary is True
    assert (d.span.start_line, d.span.start_col, d.span.end_col) == (1, 0, 6)
    assert "colour" in d.message


def test_schema_findings_are_never_errors(make_repo):
    text = EVAL.replace("    outcome: o\n", "    outcome: o\n    note: 5\n    weird: {a: 1}\n").replace(
        "colour: blue\n", "colour: blue\ntarget: [1]\nexecution: 3\n"
    )
    repo = make_repo({"eval.yaml": text})
    assert {d.severity for d in schema_diagnostics(repo.check())} <= {"warning"}


def test_no_schema_diagnostic_where_a_more_specific_one_exists(make_repo):
    repo = make_repo({"eval.yaml": EVAL.replace("role: user", "role: User")})
    paths = [d.path for d in repo.check()]
    assert paths.count("evalcases[0].input_messages[0].role") == 1


def test_clean_files_have_no_schema_diagnostics(make_repo):
    repo = make_repo(
        {
            "eval.yaml": EVAL.replace("colour: blue\n", ""),
            ".agentv/config.yaml": "$schema: agentv-config-v2\nguideline_patterns: ['*.md']\n",
            ".agentv/targets.yaml": "$schema: agentv-targets-v2.2\ntargets:\n  - name: default\n    provider: mock\n",
        }
    )
    for rel in ("eval.yaml", ".agentv/config.yaml", ".agentv/targets.yaml"):
        assert schema_diagnostics(repo.check(rel)) == [], rel
