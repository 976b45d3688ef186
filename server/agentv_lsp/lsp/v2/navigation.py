"""Navigation in v2 eval files: `textDocument/documentLink` and `textDocument/definition`
for what an eval file points at (file references, the `value` of `type: file` segments,
evaluator `prompt` files, code evaluator `cwd` folders, resolved as AgentV resolves them, and
`execution.target`: its entry in the targets file AgentV would use), and the code lenses
above each eval case ("▶ Preview", and a one-line summary: "4 turns · 2 files · 1 guideline ·
role markers", or "flat")."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.formats.v2.loader import EvalFile
from agentv_lsp.formats.v2.model import EvalCase, YamlPath
from agentv_lsp.formats.v2.prompt import needs_role_markers, segments_by_message
from agentv_lsp.formats.v2.targets import read_targets, selected_target
from agentv_lsp.lsp.convert import from_client_col, lines_of, path_to_uri, to_range
from agentv_lsp.lsp.names import LENS_PREVIEW, PREVIEW_CASE
from agentv_lsp.lsp.v2.model import FileModel, Located
from agentv_lsp.lsp.yamlnav import path_at

Reference = tuple[YamlPath, str]  # (path of the value in its document, absolute target)


def case_references(ef: EvalFile, raw: Any, base: YamlPath) -> list[Reference]:
    """Every resolvable reference of one raw case."""
    out: list[Reference] = []
    if not isinstance(raw, dict):
        return out
    for key in ("input_messages", "expected_messages"):
        messages = raw.get(key)
        for j, message in enumerate(messages if isinstance(messages, list) else []):
            content = message.get("content") if isinstance(message, dict) else None
            for k, item in enumerate(content if isinstance(content, list) else []):
                if isinstance(item, dict) and item.get("type") == "file":
                    value = item.get("value")
                    if isinstance(value, str) and value:
                        resolved = ef.resolve(value).resolved_path
                        if resolved:
                            out.append(((*base, key, j, "content", k, "value"), resolved))
    out.extend(evaluator_references(ef, raw.get("evaluators"), (*base, "evaluators")))
    execution = raw.get("execution")
    if isinstance(execution, dict):
        out.extend(evaluator_references(ef, execution.get("evaluators"), (*base, "execution", "evaluators")))
    return out


def evaluator_references(ef: EvalFile, evaluators: Any, base: YamlPath) -> list[Reference]:
    out: list[Reference] = []
    for i, evaluator in enumerate(evaluators if isinstance(evaluators, list) else []):
        if not isinstance(evaluator, dict):
            continue
        for key in ("prompt", "cwd"):
            value = evaluator.get(key)
            if isinstance(value, str) and value:
                resolved = ef.resolve(value).resolved_path
                if resolved:
                    out.append(((*base, i, key), resolved))
    return out


def suite_references(ef: EvalFile) -> list[Reference]:
    suite = ef.doc.value
    execution = suite.get("execution") if isinstance(suite, dict) else None
    if not isinstance(execution, dict):
        return []
    return evaluator_references(ef, execution.get("evaluators"), ("execution", "evaluators"))


def all_references(model: FileModel) -> list[tuple[Located, YamlPath, str]]:
    """(where parsed, path there, target) for every reference of the file."""
    out: list[tuple[Located, YamlPath, str]] = []
    ef = model.eval_file
    if ef is None or not ef.loaded:
        return out
    header = model.locate(-1) if model.layout is not None else None
    for path, target in suite_references(ef):
        out.append((header or model.locate(0), path, target))
    for index, located, base in model.case_docs():
        case_ef = located.ef
        if case_ef is None or not case_ef.loaded:
            continue
        if model.layout is not None:
            unit = model.units[index]
            refs = unit.memo.get("references")
            if refs is None:
                refs = unit.memo["references"] = case_references(case_ef, unit.raw_case(), base)
        else:
            raw = case_ef.raw_cases[index] if index < len(case_ef.raw_cases) else None
            refs = case_references(case_ef, raw, base)
        out.extend((located, path, target) for path, target in refs)
    return out


def target_location(model: FileModel) -> tuple[YamlPath, lsp.Location] | None:
    """`execution.target` (or the legacy `target`) and its entry in the targets file."""
    ef = model.eval_file
    if ef is None or not ef.loaded:
        return None
    selected = selected_target(ef.doc.value)
    if selected is None:
        return None
    name, path = selected
    targets_path = find_targets_file(ef.path, ef.repo_root, ef.cwd, ef.fs)
    targets = read_targets(targets_path, ef.fs) if targets_path else None
    if targets is None or name not in targets.names:
        return None
    span = targets.doc.span_of(("targets", targets.names[name], "name"))
    where = to_range(span, lines_of(targets.doc.text.split("\n")))
    return path, lsp.Location(uri=path_to_uri(targets.path), range=where)


def document_links(model: FileModel, encoding: str) -> list[lsp.DocumentLink]:
    out: list[lsp.DocumentLink] = []
    for located, path, target in all_references(model):
        span = model.file_span(located.doc.span_of(path), located)
        out.append(
            lsp.DocumentLink(
                range=to_range(span, model.line, encoding), target=path_to_uri(target), tooltip=target
            )
        )
    found = target_location(model)
    if found is not None:
        path, location = found
        header = model.locate(-1) if model.layout is not None else model.locate(0)
        span = model.file_span(header.doc.span_of(path), header)
        line = location.range.start.line + 1
        out.append(
            lsp.DocumentLink(
                range=to_range(span, model.line, encoding),
                target=f"{location.uri}#L{line}",
                tooltip=f"{location.uri} line {line}",
            )
        )
    return out


def definition(model: FileModel, line: int, character: int, encoding: str) -> list[lsp.Location] | None:
    located = model.locate(line)
    if located.doc.root is None:
        return None
    col = from_client_col(model.line(line), character, encoding)
    doc_path, _ = path_at(located.doc.root, located.line, col)
    path = located.file_path(doc_path)
    ef = located.ef
    if ef is not None and ef.loaded:
        refs: list[Reference] = []
        if located.case is not None or model.layout is None:
            index = located.case if located.case is not None else (path[1] if len(path) > 1 else None)
            if isinstance(index, int):
                base: YamlPath = ("evalcases", 0) if located.case is not None else ("evalcases", index)
                raw = ef.raw_cases[0 if located.case is not None else index] if ef.raw_cases else None
                refs = case_references(ef, raw, base) if index < model.case_count() else []
        refs += suite_references(ef)
        for ref_path, target in refs:
            if ref_path == doc_path:
                start = lsp.Position(line=0, character=0)
                return [lsp.Location(uri=path_to_uri(target), range=lsp.Range(start=start, end=start))]
    found = target_location(model)
    if found is not None and found[0] == path:
        return [found[1]]
    return None


# -- code lenses --------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(case: EvalCase) -> str:
    files = sum(1 for r in case.file_refs if not r.in_expected and r.guideline_pattern is None)
    markers = needs_role_markers(case.input_messages, segments_by_message(case))
    return " · ".join(
        (
            _plural(len(case.input_messages), "turn"),
            _plural(files, "file"),
            _plural(len(case.guideline_paths), "guideline"),
            "role markers" if markers else "flat",
        )
    )


def resolve_lens(model: FileModel, uri: str, index: int, kind: str) -> lsp.Command:
    loaded = model.case_outcome(index)
    if loaded is None:
        return lsp.Command(title="AgentV cannot load this file", command="")
    outcome = loaded[1]
    if outcome.case is None:
        reason = "; ".join(n.message for n in outcome.notices) or "skipped"
        return lsp.Command(title=f"⚠ {reason}", command="")
    if kind == LENS_PREVIEW:
        return lsp.Command(
            title="▶ Preview", command=PREVIEW_CASE, arguments=[{"uri": uri, "caseId": outcome.case.id}]
        )
    return lsp.Command(title=summary(outcome.case), command="")


def document_lens_lines(model: FileModel) -> list[int] | None:
    """The first line of each case that gets lenses (None: the document gets none: only eval
    files do)."""
    return model.case_lines() if model.kind == "eval" else None


def resolve_document_lens(model: FileModel, uri: str, index: int, kind: str) -> lsp.Command:
    if model.kind != "eval":
        return lsp.Command(title="", command="")
    return resolve_lens(model, uri, index, kind)
