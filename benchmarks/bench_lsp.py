"""Language-server latency (issue 4) on the workloads of ../shared/bench/make_workload.py
(2,000 and 10,000 cases in one file), through a real `agentv-lsp serve` process over stdio.

Measured, each as p50 / p95 over many requests at random cases:
- open -> first diagnostics (one sample: the whole-text check, as the CLI does)
- didChange -> publishDiagnostics for that version: incremental edits as VS Code sends them
  (a word changed in one case's outcome, or a line added, which moves every case below);
  `preview.debounceMs` is 0 here, so this is the compute time (the editor adds its 150 ms)
- hover on a case id (exact question), preview (agentv.previewCase by id), completion
  (roles), code lens list + resolve of one case, document symbols
- hover and preview as the first request after an edit (the version is new)

Run: python benchmarks/bench_lsp.py [--sizes 2000 10000] [--edits 30] [--requests 60]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, workload

Timings = dict[str, list[float]]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def timed(timings: Timings, name: str, call: Callable[[], Awaitable[Any]]) -> Any:
    start = time.perf_counter()
    result = await call()
    timings.setdefault(name, []).append(time.perf_counter() - start)
    return result


async def measure(size: int, edits: int, requests: int, seed: int = 1) -> Timings:
    rng = random.Random(seed)
    root = workload(size)
    path = eval_files(root)[0]
    text = path.read_text()
    lines = text.split("\n")
    case_lines = [i for i, line in enumerate(lines) if line.startswith("  - id: ")]
    client = LanguageClient("bench", "1")
    published: dict[int, asyncio.Future[float]] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        future = published.get(params.version or 0)
        if future is not None and not future.done():
            future.set_result(time.perf_counter())

    await client.start_io(sys.executable, "-m", "agentv_lsp", "serve")
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="w")],
            initialization_options={"settings": {"preview": {"debounceMs": 0}}},
        )
    )
    client.initialized(lsp.InitializedParams())
    uri = path.as_uri()
    doc = lsp.TextDocumentIdentifier(uri=uri)
    timings: Timings = {}
    loop = asyncio.get_running_loop()

    async def wait_version(version: int, start: float) -> float:
        return await published[version] - start

    published[1] = loop.create_future()
    start = time.perf_counter()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    timings["open -> diagnostics"] = [await wait_version(1, start)]

    version = 1

    def edit(kind: str) -> None:
        nonlocal version
        version += 1
        case = rng.randrange(len(case_lines))
        outcome = case_lines[case] + 1
        if kind == "word":
            column = len(lines[outcome])
            change = lsp.TextDocumentContentChangePartial(
                range=lsp.Range(
                    start=lsp.Position(line=outcome, character=column),
                    end=lsp.Position(line=outcome, character=column),
                ),
                text=f" v{version}",
            )
            lines[outcome] += f" v{version}"
        else:  # a new line: every case below moves
            at = lsp.Position(line=outcome + 1, character=0)
            change = lsp.TextDocumentContentChangePartial(
                range=lsp.Range(start=at, end=at), text="    # note\n"
            )
            lines.insert(outcome + 1, "    # note")
            for i in range(case + 1, len(case_lines)):
                case_lines[i] += 1
        published[version] = loop.create_future()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[change],
            )
        )

    for i in range(edits):
        kind = "word" if i % 3 else "line"
        start = time.perf_counter()
        edit(kind)
        timings.setdefault("didChange -> diagnostics", []).append(await wait_version(version, start))

    def hover_at(case: int) -> Awaitable[Any]:
        where = lsp.Position(line=case_lines[case], character=10)
        return client.text_document_hover_async(lsp.HoverParams(text_document=doc, position=where))

    def preview_of(case: int) -> Awaitable[Any]:
        case_id = lines[case_lines[case]].split("id: ", 1)[1].strip()
        return client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(
                command="agentv.previewCase", arguments=[{"uri": uri, "caseId": case_id}]
            )
        )

    for _ in range(requests):
        case = rng.randrange(len(case_lines))
        hover = await timed(timings, "hover (case id)", lambda case=case: hover_at(case))
        assert hover is not None and "Question" in hover.contents.value, hover
        result = await timed(timings, "preview (agentv.previewCase)", lambda case=case: preview_of(case))
        assert result and "lm" in result, result
        role_line = next(i for i in range(case_lines[case], len(lines)) if "- role: " in lines[i])
        where = lsp.Position(line=role_line, character=len(lines[role_line].split("role: ")[0]) + 6)
        await timed(
            timings,
            "completion (role)",
            lambda where=where: client.text_document_completion_async(
                lsp.CompletionParams(text_document=doc, position=where)
            ),
        )
    for _ in range(max(3, requests // 6)):
        lenses = await timed(
            timings,
            "codeLens (list)",
            lambda: client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc)),
        )
        lens = lenses[rng.randrange(len(lenses))]
        await timed(timings, "codeLens/resolve", lambda lens=lens: client.code_lens_resolve_async(lens))
        await timed(
            timings,
            "documentSymbol",
            lambda: client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=doc)),
        )
    for i in range(max(5, edits // 2)):
        edit("word" if i % 2 else "line")
        case = rng.randrange(len(case_lines))
        await timed(timings, "hover, first after an edit", lambda case=case: hover_at(case))
        await published[version]
        edit("word")
        case = rng.randrange(len(case_lines))
        await timed(timings, "preview, first after an edit", lambda case=case: preview_of(case))
        await published[version]
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    print(f"{'cases':>7} {'operation':<32} {'n':>4} {'p50 ms':>9} {'p95 ms':>9}")
    for size in args.sizes:
        for name, values in asyncio.run(measure(size, args.edits, args.requests)).items():
            p50 = statistics.median(values) * 1000
            print(f"{size:>7} {name:<32} {len(values):>4} {p50:>9.1f} {p95(values) * 1000:>9.1f}")
    print(
        "targets: hover/preview p95 < 20 ms at any size; didChange -> diagnostics p50 < 200 ms (2,000 cases) "
        "and < 1 s (10,000)"
    )


if __name__ == "__main__":
    main()
