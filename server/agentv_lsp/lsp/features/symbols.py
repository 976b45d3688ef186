"""`textDocument/documentSymbol` (one symbol per eval case, messages and evaluators inside)
and `workspace/symbol` (case ids across open and on-disk eval files)."""

from __future__ import annotations

import os
import re

from lsprotocol import types as lsp
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from agentv_lsp.checks.runner import walk_yaml
from agentv_lsp.lsp.convert import path_to_uri, to_range
from agentv_lsp.lsp.server import AgentVLanguageServer
from agentv_lsp.yamlpos import Span

_CASE_ID = re.compile(r"^\s*(?:-\s+)?id:\s*['\"]?([^'\"#\n]+?)['\"]?\s*$", re.M)


def _get(node: Node, key: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                return v  # type: ignore[no-any-return]
    return None


def _symbol(
    name: str,
    kind: lsp.SymbolKind,
    node: Node,
    lines: list[str],
    children: list[lsp.DocumentSymbol] | None = None,
) -> lsp.DocumentSymbol:
    full = to_range(Span.of(node), lines)
    head = lsp.Range(
        start=full.start, end=lsp.Position(line=full.start.line, character=full.start.character + 1)
    )
    return lsp.DocumentSymbol(
        name=name or "(unnamed)", kind=kind, range=full, selection_range=head, children=children or None
    )


def register(server: AgentVLanguageServer) -> None:
    workspace_index: dict[str, tuple[float, list[tuple[str, int]]]] = {}

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbols(
        ls: AgentVLanguageServer, params: lsp.DocumentSymbolParams
    ) -> list[lsp.DocumentSymbol]:
        if params.text_document.uri not in ls.workspace.text_documents:
            return []
        analysis = await ls.analyze(params.text_document.uri)
        doc = analysis.report.doc
        cases = doc.node_at(("evalcases",)) if doc is not None and analysis.report.kind == "eval" else None
        if not isinstance(cases, SequenceNode):
            return []
        symbols = []
        for index, case in enumerate(cases.value):
            id_node = _get(case, "id")
            name = str(id_node.value) if isinstance(id_node, ScalarNode) else f"evalcases[{index}]"
            children: list[lsp.DocumentSymbol] = []
            for key in ("input_messages", "expected_messages"):
                messages = _get(case, key)
                if isinstance(messages, SequenceNode):
                    for message in messages.value:
                        role = _get(message, "role")
                        content = _get(message, "content")
                        preview = str(content.value)[:40] if isinstance(content, ScalarNode) else "…"
                        label = f"{role.value if isinstance(role, ScalarNode) else '?'}: {preview}"
                        children.append(_symbol(label, lsp.SymbolKind.Field, message, analysis.lines))
            evaluators = _get(case, "evaluators")
            if isinstance(evaluators, SequenceNode):
                for evaluator in evaluators.value:
                    ev_name = _get(evaluator, "name")
                    label = f"evaluator {ev_name.value if isinstance(ev_name, ScalarNode) else '?'}"
                    children.append(_symbol(label, lsp.SymbolKind.Function, evaluator, analysis.lines))
            symbols.append(_symbol(name, lsp.SymbolKind.Object, case, analysis.lines, children))
        return symbols

    @server.feature(lsp.WORKSPACE_SYMBOL)
    def workspace_symbols(
        ls: AgentVLanguageServer, params: lsp.WorkspaceSymbolParams
    ) -> list[lsp.SymbolInformation]:
        query = params.query.lower()
        found: list[lsp.SymbolInformation] = []
        for root in ls.workspace_roots():
            for path in walk_yaml(root):
                try:
                    mtime = os.stat(path).st_mtime
                except OSError:
                    continue
                cached = workspace_index.get(path)
                if cached is None or cached[0] != mtime:
                    try:
                        text = ls.fs.read_text(path) if ls.fs.is_allowed(path) else ""
                    except Exception:
                        text = ""
                    ids = (
                        [(m.group(1), text.count("\n", 0, m.start(1))) for m in _CASE_ID.finditer(text)]
                        if "agentv-eval-v2" in text
                        else []
                    )
                    cached = workspace_index[path] = (mtime, ids)
                for case_id, line in cached[1]:
                    if query in case_id.lower():
                        where = lsp.Range(
                            start=lsp.Position(line=line, character=0),
                            end=lsp.Position(line=line, character=0),
                        )
                        found.append(
                            lsp.SymbolInformation(
                                name=case_id,
                                kind=lsp.SymbolKind.Object,
                                location=lsp.Location(uri=path_to_uri(path), range=where),
                                container_name=os.path.relpath(path, root),
                            )
                        )
        return found[:500]
