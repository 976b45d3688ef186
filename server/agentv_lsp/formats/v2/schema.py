"""JSON-schema issues (from `agentv_lsp.engine.schemas`) as ranged diagnostics.

The schemas describe what AgentV reads; anything they reject that the runtime still
accepts is a `warning`. Failures that stop the runtime or `agentv validate` are reported by
the parity and runtime checks with more specific messages, so a schema issue at a path that
already has a diagnostic is dropped.
"""

from __future__ import annotations

from collections.abc import Set

from agentv_lsp.checks.model import Diagnostic
from agentv_lsp.engine import schemas
from agentv_lsp.formats.v2.model import YamlPath
from agentv_lsp.yamlpos import YamlDocument


def schema_issues(doc: YamlDocument, kind: schemas.SchemaKind) -> list[schemas.SchemaIssue]:
    if doc.error is not None or doc.value is None:
        return []
    return schemas.validate(doc.value, kind)


def schema_diagnostics(
    path: str,
    doc: YamlDocument,
    kind: schemas.SchemaKind,
    covered: Set[YamlPath] = frozenset(),
    issues: list[schemas.SchemaIssue] | None = None,
) -> list[Diagnostic]:
    """`issues` (from `schema_issues`) as diagnostics, except where `covered` already has one."""
    if doc.error is not None or doc.value is None:
        return []
    out: list[Diagnostic] = []
    dropped = {c for c in covered if _is_drop(c)}
    for issue in schema_issues(doc, kind) if issues is None else issues:
        if issue.path in covered or (dropped and issue.path[:4] in dropped):
            continue
        span = doc.span_of(issue.path, key=issue.on_key)
        out.append(
            Diagnostic(
                path,
                span,
                "warning",
                issue.code,
                issue.message,
                issue.path,
                dict(issue.data),
                unnecessary=issue.code == "schema-unknown-key",
            )
        )
    return out


def _is_drop(path: YamlPath) -> bool:
    """Messages the runtime drops are reported once, at the message: skip schema noise inside."""
    return len(path) == 4 and path[2] in ("input_messages", "expected_messages")
