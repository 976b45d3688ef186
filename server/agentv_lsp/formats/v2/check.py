"""Check one AgentV file (eval, config or targets) and return ranged diagnostics.

Four sources are merged, so that each problem is reported once, at the right place:
1. `agentv validate` parity (`checks.validate`): same locations, false alarms included,
   with a note wherever the runtime disagrees;
2. what the runtime loader prints or does silently (`formats.v2.loader` notices);
3. silent losses no AgentV tool reports (`checks.losses`);
4. our JSON schemas (`checks.schema`), reported only where nothing more specific was said.

Severity: `error` only where AgentV's runtime cannot load the file or `agentv validate`
fails it; `warning` for what the runtime accepts but is probably a mistake; `information`
for facts worth knowing (a file becomes a guideline).
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Any

from agentv_lsp.checks import hidden_chars
from agentv_lsp.checks.model import Diagnostic, Related, Severity, format_location
from agentv_lsp.checks.options import CheckOptions, DocumentReport, FileKind
from agentv_lsp.engine.budget import checkpoint
from agentv_lsp.engine.files import FileReadError, find_git_root
from agentv_lsp.formats.v2 import losses
from agentv_lsp.formats.v2.detail import V2Detail
from agentv_lsp.formats.v2.loader import CaseOutcome, EvalFile, load_all, open_eval_file
from agentv_lsp.formats.v2.model import Notice, YamlPath
from agentv_lsp.formats.v2.schema import schema_diagnostics, schema_issues
from agentv_lsp.formats.v2.validate import (
    RUNTIME_PROVIDERS,
    UNKNOWN_TYPE_MESSAGE,
    ValidatorFinding,
    detect_file_type,
    validate_config,
    validate_eval,
    validate_file_references,
    validate_targets,
)
from agentv_lsp.yamlpos import Span, YamlDocument, parse_yaml


@dataclass(frozen=True, slots=True)
class CaseVerdict:
    """What merging needs from a loaded case: whether the runtime skips it, what it said."""

    index: int
    skipped: bool
    notices: list[Notice]


# a top-level `$schema:` line, read from the text when the YAML does not parse
_SCHEMA_LINE = re.compile(r"""^(?:\$schema|"\$schema"|'\$schema')[ \t]*:[ \t]*["']?(agentv-[\w.-]+)""", re.M)


def detect_kind(doc: YamlDocument, path: str) -> FileKind | None:
    """By `$schema`, as `agentv validate` does; for a file that does not parse, by its
    name or its `$schema:` line (so the syntax error is reported as such, where it is)."""
    if doc.ok:
        return detect_file_type(doc.value)
    name = os.path.basename(path)
    if os.path.basename(os.path.dirname(path)) == ".agentv" and name in ("config.yaml", "targets.yaml"):
        return "config" if name == "config.yaml" else "targets"
    declared = _SCHEMA_LINE.search(doc.text)
    return detect_file_type({"$schema": declared.group(1)}) if declared else None


def check_document(path: str, text: str, opts: CheckOptions, kind: FileKind | None = None) -> DocumentReport:
    """All diagnostics for one file. `kind` None: detect it (unknown files get one error)."""
    absolute = os.path.abspath(path)
    doc = parse_yaml(text)
    if kind is None:
        kind = detect_kind(doc, absolute)
        if kind is None:
            return _unknown_file(absolute, doc)
    if kind == "eval":
        return _check_eval(absolute, doc, opts)
    if kind == "config":
        return DocumentReport(absolute, kind, doc, _check_config(absolute, doc, opts))
    return DocumentReport(absolute, kind, doc, _check_targets(absolute, doc))


def _diag(
    file: str,
    doc: YamlDocument,
    path: YamlPath | None,
    severity: Severity,
    code: str,
    message: str,
    *,
    key: bool = False,
    data: dict[str, Any] | None = None,
    related: tuple[Related, ...] = (),
    unnecessary: bool = False,
    span: Span | None = None,
) -> Diagnostic:
    where = span if span is not None else doc.span_of(path or (), key=key) if path else Span(0, 0, 0, 0)
    return Diagnostic(file, where, severity, code, message, path or (), data or {}, related, unnecessary)


def _unknown_file(path: str, doc: YamlDocument) -> DocumentReport:
    detail = f" ({doc.error.describe()})" if doc.error else ""
    span = doc.error.span if doc.error else doc.span_of(("$schema",), key=True)
    message = (
        f"{UNKNOWN_TYPE_MESSAGE}{detail}. Add `$schema: agentv-eval-v2` (or agentv-config-v2, "
        "agentv-targets-v2.2) at the top, or leave this file out of the check."
    )
    return DocumentReport(
        path,
        None,
        doc,
        [Diagnostic(path, span, "error", "unknown-file-type", message, data={"fix": "add-schema"})],
    )


def _yaml_error_diag(path: str, doc: YamlDocument) -> Diagnostic:
    assert doc.error is not None
    return Diagnostic(
        path,
        doc.error.span,
        "error",
        f"yaml-{doc.error.kind}",
        f"{doc.error.message}. AgentV cannot load this file "
        '(`agentv validate` reports it as "Missing or invalid $schema field").',
    )


# -- eval files ----------------------------------------------------------------------------


def _check_eval(path: str, doc: YamlDocument, opts: CheckOptions) -> DocumentReport:
    ef = open_eval_file(path, repo_root=opts.repo_root, cwd=opts.cwd, fs=opts.fs, doc=doc, given_path=path)
    doc = ef.doc
    out: list[Diagnostic] = []
    # added last: they fold nothing in and cover no place for the schema diagnostics
    hidden = hidden_chars.source_diagnostics(path, doc.text, doc, opts.allow_hidden)
    out.extend(_config_notice_diags(path, doc, ef.notices, ef))
    if doc.error is not None:
        out.append(_yaml_error_diag(path, doc))
        return DocumentReport(path, "eval", doc, [*out, *hidden], detail=V2Detail(ef, None))
    value = doc.value
    findings = validate_eval(value)
    if ef.load_error is not None:
        out.append(_load_error_diag(path, doc, ef, findings))
        return DocumentReport(path, "eval", doc, [*out, *hidden], detail=V2Detail(ef, None))
    has_errors = (
        any(f.severity == "error" for f in findings)
        if opts.file_references is None
        else not opts.file_references
    )
    references: list[ValidatorFinding] = []
    if not has_errors:
        git_root = find_git_root(os.path.dirname(path), lambda d: opts.fs.found(os.path.join(d, ".git")))
        references = validate_file_references(value, path, git_root, opts.cwd, opts.fs)
    outcomes = load_all(ef)
    checkpoint()
    verdicts = [CaseVerdict(o.index, o.case is None, o.notices) for o in outcomes]
    case_diags = [d for o in outcomes for d in losses.case_losses(ef, o, opts)]
    checkpoint()
    issues = schema_issues(doc, "eval")
    checkpoint()
    across_cases = losses.file_losses(ef, opts)
    hidden.extend(
        hidden_chars.file_reference_diagnostics(
            path, doc.span_of, doc.text, _inlined_files(outcomes, opts), opts.allow_hidden
        )
    )

    def finish(file_refs: bool) -> list[Diagnostic]:
        checked = findings + references if file_refs else findings
        done = list(out)
        done.extend(_merge_eval(path, doc, ef, verdicts, checked, file_refs_checked=file_refs))
        done.extend(across_cases)
        _add_once_per_place(done, case_diags)
        done.extend(schema_diagnostics(path, doc, "eval", covered={d.yaml_path for d in done}, issues=issues))
        done.extend(hidden)
        done.sort(key=Diagnostic.sort_key)
        return done

    both = opts.without_file_references and not has_errors
    return DocumentReport(
        path,
        "eval",
        doc,
        finish(not has_errors),
        detail=V2Detail(ef, outcomes),
        file_references_checked=not has_errors,
        without_file_references=finish(False) if both else None,
    )


def _inlined_files(outcomes: list[CaseOutcome], opts: CheckOptions) -> list[tuple[YamlPath, str, str, str]]:
    """Files read into a prompt (`type: file` segments, guidelines, judge prompt files): the
    path of the value naming them, the file, the name as written, its text."""
    found = [
        ((*ref.yaml_path, "value"), ref.resolved_path, ref.display_path, ref.text)
        for outcome in outcomes
        if outcome.case is not None
        for ref in outcome.case.file_refs
        if ref.resolved_path is not None and ref.text is not None
    ]
    judges = dict.fromkeys(
        (e.yaml_path, e.prompt_path, e.prompt or "")
        for outcome in outcomes
        if outcome.case is not None
        for e in outcome.case.evaluators or ()
        if e.prompt_path
    )
    for where, file, shown in judges:
        try:
            found.append(((*where, "prompt"), file, shown, opts.fs.read_text(file)))
        except (FileReadError, OSError, ValueError):
            continue  # unreadable: the runtime's own notice says so
    return found


def _add_once_per_place(out: list[Diagnostic], more: list[Diagnostic]) -> None:
    """Add diagnostics, folding one that lands exactly where another already is into it
    (e.g. a plain item in a content list: `agentv validate`'s error and the runtime's drop)."""
    at = {d.yaml_path: i for i, d in enumerate(out) if d.yaml_path}
    for d in more:
        i = at.get(d.yaml_path) if d.yaml_path else None
        if i is None:
            out.append(d)
            continue
        host = out[i]
        out[i] = dataclasses.replace(
            host, message=f"{host.message} — {d.message}", data={**d.data, **host.data}
        )


def _config_notice_diags(
    path: str, doc: YamlDocument, notices: list[Notice], ef: EvalFile
) -> list[Diagnostic]:
    """Config problems seen while looking up the config, shown at the top of the eval file."""
    out = []
    for n in notices:
        if n.file is None or n.file == path:
            continue
        config_doc_span = Span(0, 0, 0, 0)
        related = (Related(n.file, config_doc_span, n.message),)
        fallback = (
            f" The next config up is used instead: {ef.config.path}."
            if ef.config.path
            else " No other config applies, so no file of this eval is a guideline."
        )
        out.append(
            Diagnostic(
                path,
                Span(0, 0, 0, 0),
                "warning",
                "config-skipped",
                f"AgentV skips {n.file}: {n.message}{fallback}",
                (),
                {"config": n.file},
                related,
            )
        )
    return out


def _load_error_diag(
    path: str, doc: YamlDocument, ef: EvalFile, findings: list[ValidatorFinding]
) -> Diagnostic:
    assert ef.load_error is not None
    message = f"AgentV cannot load this file: {ef.load_error}"
    data: dict[str, Any] = {}
    if ef.load_error_code == "schema-missing":
        message += f" (`agentv validate` reports: {UNKNOWN_TYPE_MESSAGE})"
        data["fix"] = "add-schema"
    elif ef.load_error_code == "schema-value":
        message += " (`agentv validate` treats the file as unknown and fails it)"
        data["fix"] = "set-schema"
    elif ef.load_error_code == "evalcases-missing":
        message += " (`agentv validate`: Missing or invalid 'evalcases' field (must be an array))"
    key = ef.load_error_path == ("$schema",) and doc.key_node_at(("$schema",)) is None
    span = doc.span_of(ef.load_error_path) if not key else Span(0, 0, 0, 0)
    return Diagnostic(
        path, span, "error", ef.load_error_code or "load-error", message, ef.load_error_path, data
    )


_RUNTIME_SKIP_CODES = {
    "validate-id": "id",
    "validate-outcome": "outcome",
    "validate-input-messages": "input_messages",
}


def _merge_eval(
    path: str,
    doc: YamlDocument,
    ef: EvalFile,
    verdicts: list[CaseVerdict],
    findings: list[ValidatorFinding],
    *,
    file_refs_checked: bool,
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    skipped = {v.index for v in verdicts if v.skipped}
    covered_runtime: set[tuple[str, YamlPath]] = set()
    for f in findings:
        severity: Severity = (
            "error" if f.severity == "error" or f.code == "validate-role-marker" else "warning"
        )
        message = f.message
        data = dict(f.data)
        code = f.code
        if f.code in _RUNTIME_SKIP_CODES and f.path is not None:
            index = f.path[1]
            assert isinstance(index, int)
            if index in skipped:
                message += " — the AgentV runtime skips this whole case ('Skipping incomplete eval case')."
                covered_runtime.add(("case-incomplete", ("evalcases", index)))
            else:
                message += (
                    " — the AgentV runtime accepts it (it does not trim), so only `agentv validate` "
                    "fails on this."
                )
        elif f.code == "validate-role":
            role = f.data.get("role")
            if role == "tool":
                code = "role-tool-rejected-by-validate"
                message += (
                    " — `agentv validate` rejects role 'tool', but the runtime accepts it (it becomes an "
                    "assistant turn starting '@[Tool]:'). CI running `agentv validate` will fail."
                )
            else:
                message += " — the AgentV runtime drops this whole message silently."
                data.update(losses.role_suggestion(role))
        elif f.code == "validate-role-marker":
            message += (
                " — `agentv validate` counts this warning as a failure (exit 1); the runtime itself "
                "accepts the text."
            )
        elif f.code == "validate-file-not-found" and f.path is not None:
            covered_runtime.add(("file-not-found", (*f.path, "value")))
            tried = f.data.get("attempted") or []
            if tried:
                message += ". Tried: " + ", ".join(tried)
            blocked = [t for t in tried if ef.fs.was_blocked(t)]
            if blocked:  # as the runtime's own notice says it
                message += (
                    ". Not read: outside the workspace folders, and this workspace is not trusted "
                    f"({', '.join(blocked)})"
                )
            data["raw"] = _raw_value(doc, f.path)
        elif f.code == "validate-file-unreadable" and f.path is not None:
            covered_runtime.add(("file-unreadable", (*f.path, "value")))
        elif f.code == "validate-file-empty":
            message += ". In LM mode it is left out entirely; in agent mode the question still references it."
        target = f.path
        key = False
        if target is not None and f.code in (
            "validate-file-not-found",
            "validate-file-unreadable",
            "validate-file-empty",
        ):
            target = (*target, "value")  # underline the path, keep AgentV's location in `path`
        span = doc.span_of(target, key=key) if target else Span(0, 0, 0, 0)
        out.append(Diagnostic(path, span, severity, code, message, f.path or (), data))
    by_path = {d.yaml_path: i for i, d in enumerate(out)}
    seen: set[tuple[str, YamlPath]] = set()
    for verdict in verdicts:
        for n in verdict.notices:
            ident = (n.code, n.yaml_path)
            if ident in seen or ident in covered_runtime:
                continue  # e.g. a missing expected file is warned twice by the runtime
            seen.add(ident)
            at = by_path.get(n.yaml_path)
            if at is not None:  # one diagnostic per place: add what the runtime says to it
                d = out[at]
                out[at] = dataclasses.replace(d, message=f"{d.message} — AgentV runtime: {n.message}.")
                continue
            out.append(_runtime_notice_diag(path, doc, n, file_refs_checked))
    for n in ef.notices:
        if n.file == path or n.file is None:
            out.append(_runtime_notice_diag(path, doc, n, file_refs_checked))
    return out


def _raw_value(doc: YamlDocument, seg_path: YamlPath) -> Any:
    node = doc.node_at((*seg_path, "value"))
    return getattr(node, "value", None)


_RUNTIME_SEVERITY: dict[str, Severity] = {}
_RUNTIME_HINTS = {
    "case-not-object": " Each entry of `evalcases` must be a mapping with id, outcome and input_messages.",
    "expected-none-valid": " Check the roles (system, user, assistant, tool) and that content is a string or a "
    "list of mappings.",
    "expected-multiple": " Only the first expected message feeds the reference answer.",
    "evaluator-kind-unknown": " Use `llm_judge` or `code`.",
    "evaluators-not-list": " `evaluators` must be a list.",
    "evaluator-invalid": " Each evaluator needs a `name` and a `type` of `llm_judge` or `code`.",
    "evaluator-no-script": " Add `script:` (a shell command line).",
    "evaluator-cwd-missing": " At run time the raw `cwd` is used relative to the process directory.",
    "evaluator-prompt-inline": " If you meant a file, fix the path; otherwise this text is the judge template.",
}


def _runtime_notice_diag(path: str, doc: YamlDocument, n: Notice, file_refs_checked: bool) -> Diagnostic:
    message = f"AgentV: {n.message}" if n.prefixed else n.message  # unprefixed notices are our own
    if n.details and n.code in ("file-not-found", "evaluator-cwd-missing", "evaluator-prompt-inline"):
        tried = [d.strip().removeprefix("Tried: ").strip() for d in n.details if d.strip() not in ("Tried:",)]
        message += ". Tried: " + ", ".join(tried)
    if n.code == "file-not-found":
        blocked = n.data.get("blocked") or []
        if blocked:
            message += (
                ". Not read: outside the workspace folders, and this workspace is not trusted "
                f"({', '.join(blocked)})"
            )
        if not file_refs_checked:
            message += ". (`agentv validate` does not check file references while the file has other errors.)"
    hint = _RUNTIME_HINTS.get(n.code, "")
    if hint and not message.endswith("."):
        message += "."  # the runtime's text has no final stop; the hint is a new sentence
    message += hint
    severity = _RUNTIME_SEVERITY.get(n.code, "warning")
    key = n.code in ("evaluator-kind-unknown",)
    return Diagnostic(
        path,
        doc.span_of(n.yaml_path, key=key) if n.yaml_path else Span(0, 0, 0, 0),
        severity,
        n.code,
        message,
        n.yaml_path,
        dict(n.data),
    )


# -- config and targets --------------------------------------------------------------------


def _findings_to_diags(path: str, doc: YamlDocument, findings: list[ValidatorFinding]) -> list[Diagnostic]:
    out = []
    for f in findings:
        severity: Severity = f.severity
        span = doc.span_of(f.path, key=f.code in ("target-setting-unknown",)) if f.path else Span(0, 0, 0, 0)
        out.append(Diagnostic(path, span, severity, f.code, f.message, f.path or (), dict(f.data)))
    return out


def _check_config(path: str, doc: YamlDocument, opts: CheckOptions) -> list[Diagnostic]:
    if doc.error is not None:
        return [
            Diagnostic(
                path,
                doc.error.span,
                "error",
                f"yaml-{doc.error.kind}",
                f"Failed to parse config file: {doc.error.message}. AgentV skips this config with a "
                "warning and looks further up for another one.",
            )
        ]
    findings = validate_config(doc.value)
    out = _findings_to_diags(path, doc, findings)
    for d in list(out):
        if d.code == "config-unexpected-fields":
            # point at each unexpected key instead of the top of the file
            out.remove(d)
            for key in d.data.get("fields", []):
                out.append(
                    dataclasses.replace(
                        d,
                        span=doc.span_of((key,), key=True),
                        yaml_path=(key,),
                        message=f"Unexpected field '{key}' (`agentv validate`: {d.message}). AgentV ignores it.",
                        unnecessary=True,
                        data={"key": key, "expected": ["$schema", "guideline_patterns"]},
                    )
                )
        elif d.code in ("config-schema", "config-patterns-not-array", "config-patterns-not-strings"):
            out[out.index(d)] = dataclasses.replace(
                d,
                message=d.message + " The AgentV runtime skips this config with a warning and uses the next "
                "one further up, if any.",
            )
    out.extend(schema_diagnostics(path, doc, "config", covered={d.yaml_path for d in out}))
    out.sort(key=Diagnostic.sort_key)
    return out


def _check_targets(path: str, doc: YamlDocument) -> list[Diagnostic]:
    if doc.error is not None:
        return [
            Diagnostic(
                path,
                doc.error.span,
                "error",
                f"yaml-{doc.error.kind}",
                f"Failed to parse YAML: {doc.error.message}",
            )
        ]
    out = _findings_to_diags(path, doc, validate_targets(doc.value))
    value = doc.value
    if isinstance(value, dict) and isinstance(value.get("targets"), list):
        for i, target in enumerate(value["targets"]):
            provider = target.get("provider") if isinstance(target, dict) else None
            if (
                isinstance(provider, str)
                and provider.lower() not in RUNTIME_PROVIDERS
                and provider.lower() in ("openai", "bedrock", "vertex")
            ):
                out.append(
                    _diag(
                        path,
                        doc,
                        ("targets", i, "provider"),
                        "warning",
                        "target-provider-unsupported",
                        f"`agentv validate` accepts provider '{provider}', but the runtime throws "
                        f"\"Unsupported provider '{provider}'\" when this target is used.",
                    )
                )
    out.extend(schema_diagnostics(path, doc, "targets", covered={d.yaml_path for d in out}))
    out.sort(key=Diagnostic.sort_key)
    return out


__all__ = ["CheckOptions", "DocumentReport", "FileKind", "check_document", "detect_kind", "format_location"]
