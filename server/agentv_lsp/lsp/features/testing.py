"""What VS Code's Testing view asks (any client may): `agentv/tests` lists the 4.x eval files of
the workspace folders and the tests each loads (where each is written); `agentv/testRunPlan`
(`{"uri", "testIds"?}`) the prompt size of a run before it starts and the project's targets;
`agentv/testResults` (`{"uri"}`) each test's last result once a run is over. The client runs
AgentV itself (only in a trusted workspace); the server only reads."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from agentv_lsp.lsp.base import ServerBase, WorkspaceSymbol, guard
from agentv_lsp.lsp.convert import path_to_uri, uri_to_path
from agentv_lsp.lsp.editor import testing_format
from agentv_lsp.lsp.features.codelens import refresh_code_lenses
from agentv_lsp.lsp.features.symbols import WorkspaceIndex
from agentv_lsp.results import EDITOR_RESULTS

TESTS = "agentv/tests"
TEST_RUN_PLAN = "agentv/testRunPlan"
TEST_RESULTS = "agentv/testResults"
MAX_FILES = 5000
MAX_TESTS = 50_000


def workspace_tests(ls: ServerBase, index: WorkspaceIndex) -> dict[str, Any]:
    """`{"files": [{"uri", "folder", "tests": [{"id", "uri", "line"}]}], "truncated"}`: open
    buffers as they are, the other files as on disk."""
    format_ = testing_format()
    if format_ is None:
        return {"files": [], "truncated": False}
    open_docs = {uri_to_path(uri): doc.source for uri, doc in list(ls.workspace.text_documents.items())}
    files: list[dict[str, Any]] = []
    seen: set[str] = set()
    count = 0
    roots = ls.workspace_roots()

    def add(path: str, tests: list[WorkspaceSymbol]) -> bool:
        nonlocal count
        if not tests or len(files) >= MAX_FILES or count >= MAX_TESTS:
            return count < MAX_TESTS and len(files) < MAX_FILES
        folder = max((r for r in roots if path.startswith(r.rstrip(os.sep) + os.sep)), key=len, default=None)
        shown = [{"id": t.id, "uri": path_to_uri(t.file), "line": t.line} for t in tests[: MAX_TESTS - count]]
        count += len(shown)
        files.append(
            {"uri": path_to_uri(path), "folder": path_to_uri(folder) if folder else None, "tests": shown}
        )
        return True

    for path, text in open_docs.items():
        seen.add(path)
        if any(path.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            add(path, format_.open_symbols(ls, path, text))
    for root in roots:
        for path in index.paths(root):
            if path not in seen:
                seen.add(path)
                if not add(path, index.symbols(ls, format_, path)):
                    return {"files": files, "truncated": True}
    return {"files": sorted(files, key=lambda f: f["uri"]), "truncated": False}


def _file(ls: ServerBase, params: Any) -> tuple[str, str | None] | None:
    uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    if not isinstance(uri, str) or not uri.startswith("file:"):
        return None
    path = uri_to_path(uri)
    document = ls.workspace.text_documents.get(uri)
    # open documents and eval files of the workspace folders only, by the server's read rules
    inside = any(path.startswith(r.rstrip(os.sep) + os.sep) for r in ls.workspace_roots())
    if not path or not (document is not None or inside) or not ls.fs.is_allowed(path):
        return None
    return path, document.source if document is not None else None


def _test_ids(params: Any) -> list[str] | None:
    ids = params.get("testIds") if isinstance(params, dict) else getattr(params, "testIds", None)
    if not isinstance(ids, list):
        return None
    return [i for i in ids if isinstance(i, str)]


def register(server: ServerBase) -> None:
    index = WorkspaceIndex()
    server.file_listeners.append(lambda paths: index.forget_listings())

    @server.feature(TESTS)
    @guard({"files": [], "truncated": False})
    async def tests_request(ls: ServerBase, params: Any) -> dict[str, Any]:
        return await asyncio.to_thread(workspace_tests, ls, index)

    @server.feature(TEST_RUN_PLAN)
    @guard({"error": "internal error"})
    async def run_plan_request(ls: ServerBase, params: Any) -> dict[str, Any]:
        found = _file(ls, params)
        format_ = testing_format()
        if found is None or format_ is None or format_.testing is None:
            return {"error": "not an eval file this workspace may read"}
        path, text = found
        return await asyncio.to_thread(
            format_.testing.run_plan, path, text, ls.options_for(path), _test_ids(params)
        )

    @server.feature(TEST_RESULTS)
    @guard({"error": "internal error"})
    async def test_results_request(ls: ServerBase, params: Any) -> dict[str, Any]:
        found = _file(ls, params)
        format_ = testing_format()
        if found is None or format_ is None or format_.testing is None:
            return {"error": "not an eval file this workspace may read"}
        path, text = found
        # asked after a run: what it wrote is read now, and every lens shows it
        EDITOR_RESULTS.clear()
        answer = await asyncio.to_thread(format_.testing.last_results, path, text, ls.options_for(path))
        refresh_code_lenses(ls)
        return answer
