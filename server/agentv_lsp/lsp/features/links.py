"""`textDocument/documentLink` and `textDocument/definition` for file references, evaluator
prompt files and code-evaluator `cwd` folders, and `execution.target` -> its targets.yaml entry."""

from __future__ import annotations

from lsprotocol import types as lsp

from agentv_lsp.engine.model import YamlPath
from agentv_lsp.engine.targets import find_targets_file, read_targets, selected_target
from agentv_lsp.lsp.convert import from_position, path_to_uri, to_range
from agentv_lsp.lsp.server import AgentVLanguageServer, Analysis
from agentv_lsp.lsp.yamlnav import path_at


def reference_targets(analysis: Analysis) -> list[tuple[YamlPath, str]]:
    """(YAML path of a value, absolute file it points to) for every resolvable reference."""
    ef = analysis.eval_file
    if ef is None or not ef.loaded:
        return []
    out: list[tuple[YamlPath, str]] = []
    for index, raw in enumerate(ef.raw_cases):
        if not isinstance(raw, dict):
            continue
        for key in ("input_messages", "expected_messages"):
            messages = raw.get(key)
            for j, message in enumerate(messages if isinstance(messages, list) else []):
                content = message.get("content") if isinstance(message, dict) else None
                for k, item in enumerate(content if isinstance(content, list) else []):
                    if (
                        isinstance(item, dict)
                        and item.get("type") == "file"
                        and isinstance(item.get("value"), str)
                        and item["value"]
                    ):
                        resolved = ef.resolve(item["value"]).resolved_path
                        if resolved:
                            out.append((("evalcases", index, key, j, "content", k, "value"), resolved))
        for where in (("evaluators",), ("execution", "evaluators")):
            container = raw.get(where[0])
            evaluators = (
                container.get("evaluators") if len(where) == 2 and isinstance(container, dict) else container
            )
            out.extend(_evaluator_targets(analysis, ("evalcases", index, *where), evaluators))
    suite = ef.doc.value.get("execution") if isinstance(ef.doc.value, dict) else None
    if isinstance(suite, dict):
        out.extend(_evaluator_targets(analysis, ("execution", "evaluators"), suite.get("evaluators")))
    return out


def _evaluator_targets(analysis: Analysis, base: YamlPath, evaluators: object) -> list[tuple[YamlPath, str]]:
    ef = analysis.eval_file
    assert ef is not None
    out: list[tuple[YamlPath, str]] = []
    for i, evaluator in enumerate(evaluators if isinstance(evaluators, list) else []):
        for key in ("prompt", "cwd"):
            value = evaluator.get(key) if isinstance(evaluator, dict) else None
            if isinstance(value, str) and value:
                resolved = ef.resolve(value).resolved_path
                if resolved:
                    out.append(((*base, i, key), resolved))
    return out


def target_definition(ls: AgentVLanguageServer, analysis: Analysis) -> tuple[YamlPath, lsp.Location] | None:
    ef = analysis.eval_file
    if ef is None or not ef.loaded:
        return None
    selected = selected_target(ef.doc.value)
    if selected is None:
        return None
    name, path = selected
    targets_path = find_targets_file(ef.path, ef.repo_root, ef.cwd, ls.fs)
    targets = read_targets(targets_path, ls.fs) if targets_path else None
    if targets is None or name not in targets.names:
        return None
    span = targets.doc.span_of(("targets", targets.names[name], "name"))
    lines = targets.doc.text.split("\n")
    return path, lsp.Location(uri=path_to_uri(targets.path), range=to_range(span, lines))


def register(server: AgentVLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK)
    async def document_links(
        ls: AgentVLanguageServer, params: lsp.DocumentLinkParams
    ) -> list[lsp.DocumentLink]:
        if params.text_document.uri not in ls.workspace.text_documents:
            return []
        analysis = await ls.analyze(params.text_document.uri)
        ef = analysis.eval_file
        if ef is None:
            return []
        return [
            lsp.DocumentLink(
                range=to_range(ef.doc.span_of(path), analysis.lines),
                target=path_to_uri(target),
                tooltip=target,
            )
            for path, target in reference_targets(analysis)
        ]

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: AgentVLanguageServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        if params.text_document.uri not in ls.workspace.text_documents:
            return None
        analysis = await ls.analyze(params.text_document.uri)
        doc = analysis.report.doc
        if doc is None:
            return None
        line, col = from_position(params.position, analysis.lines)
        path, _ = path_at(doc.root, line, col)
        for ref_path, target in reference_targets(analysis):
            if ref_path == path:
                start = lsp.Position(line=0, character=0)
                return [lsp.Location(uri=path_to_uri(target), range=lsp.Range(start=start, end=start))]
        found = target_definition(ls, analysis)
        if found is not None and found[0] == path:
            return [found[1]]
        return None
