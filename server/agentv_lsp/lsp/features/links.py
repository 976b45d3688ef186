"""`textDocument/documentLink` and `textDocument/definition` for what an eval file points
at: file references (`value` of `type: file` segments), evaluator `prompt` files, code
evaluator `cwd` folders (resolved as AgentV resolves them), and `execution.target` (its
entry in the targets file AgentV would use)."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from agentv_lsp.engine.targets_file import find_targets_file
from agentv_lsp.formats.v2.loader import EvalFile
from agentv_lsp.formats.v2.model import YamlPath
from agentv_lsp.formats.v2.targets import read_targets, selected_target
from agentv_lsp.lsp.convert import from_client_col, lines_of, path_to_uri, to_range
from agentv_lsp.lsp.server import AgentVLanguageServer, guard
from agentv_lsp.lsp.v2.filemodel import FileModel, Located
from agentv_lsp.lsp.v4 import navigation as v4_navigation
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.yamlnav import path_at
from agentv_lsp.yamlpos import Span

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


def document_links(ls: AgentVLanguageServer, model: FileModel) -> list[lsp.DocumentLink]:
    out: list[lsp.DocumentLink] = []
    for located, path, target in all_references(model):
        span = model.file_span(located.doc.span_of(path), located)
        out.append(
            lsp.DocumentLink(
                range=to_range(span, model.line, ls.encoding), target=path_to_uri(target), tooltip=target
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
                range=to_range(span, model.line, ls.encoding),
                target=f"{location.uri}#L{line}",
                tooltip=f"{location.uri} line {line}",
            )
        )
    return out


def definition(
    ls: AgentVLanguageServer, model: FileModel, line: int, character: int
) -> list[lsp.Location] | None:
    located = model.locate(line)
    if located.doc.root is None:
        return None
    col = from_client_col(model.line(line), character, ls.encoding)
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


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK)
    @guard([])
    async def document_link(
        ls: AgentVLanguageServer, params: lsp.DocumentLinkParams
    ) -> list[lsp.DocumentLink]:
        model = await ls.model(params.text_document.uri)
        if model is None or model.kind != "eval":
            return []
        if isinstance(model, V4Model):
            return await asyncio.to_thread(v4_navigation.document_links, model, ls.encoding)
        return await asyncio.to_thread(document_links, ls, model)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @guard()
    async def goto_definition(
        ls: AgentVLanguageServer, params: lsp.DefinitionParams
    ) -> list[lsp.Location] | None:
        model = await ls.model(params.text_document.uri)
        if model is None or model.kind != "eval":
            return None
        position = params.position
        if isinstance(model, V4Model):
            col = from_client_col(model.line(position.line), position.character, ls.encoding)
            return await asyncio.to_thread(v4_navigation.definition, model, position.line, col)
        return await asyncio.to_thread(definition, ls, model, position.line, position.character)


__all__ = ["Span", "all_references", "definition", "document_links", "target_location"]
