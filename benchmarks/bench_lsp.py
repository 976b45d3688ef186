"""Language-server latency (issue 4) on the 2,000- and 10,000-case workloads: time from
`didChange` to `publishDiagnostics` (median, p95), and hover, preview and completion on one
case (median, p95), through a real `agentv-lsp serve` process over stdio.

Run: python benchmarks/bench_lsp.py [--sizes 2000 10000] [--edits 8] [--requests 40]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, workload


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


async def measure(size: int, edits: int, requests: int) -> dict[str, tuple[float, float]]:
    root = workload(size)
    path = eval_files(root)[0]
    text = path.read_text()
    client = LanguageClient("bench", "1")
    published: asyncio.Queue[lsp.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "agentv_lsp", "serve")
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="w")],
            initialization_options={"settings": {"preview.debounceMs": 0}},
        )
    )
    client.initialized(lsp.InitializedParams())
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    await published.get()
    lines = text.split("\n")
    middle = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("  - id:"))
    changes: list[float] = []
    for version in range(2, edits + 2):
        edited = text.replace("outcome:", "outcome:" + " " * (version % 2), 1)
        start = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited)],
            )
        )
        while (await published.get()).version != version:
            pass
        changes.append(time.perf_counter() - start)
    doc = lsp.TextDocumentIdentifier(uri=uri)
    position = lsp.Position(line=middle, character=8)
    timings: dict[str, list[float]] = {"hover": [], "preview": [], "completion": []}
    for _ in range(requests):
        start = time.perf_counter()
        await client.text_document_hover_async(lsp.HoverParams(text_document=doc, position=position))
        timings["hover"].append(time.perf_counter() - start)
        start = time.perf_counter()
        await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(
                command="agentv.previewCase",
                arguments=[{"uri": uri, "position": {"line": middle, "character": 0}}],
            )
        )
        timings["preview"].append(time.perf_counter() - start)
        start = time.perf_counter()
        await client.text_document_completion_async(
            lsp.CompletionParams(text_document=doc, position=lsp.Position(line=middle + 3, character=14))
        )
        timings["completion"].append(time.perf_counter() - start)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    result = {"didChange->diagnostics": (statistics.median(changes), p95(changes))}
    result.update({k: (statistics.median(v), p95(v)) for k, v in timings.items()})
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--edits", type=int, default=8)
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    print(f"{'cases':>7} {'operation':<24} {'p50 ms':>9} {'p95 ms':>9}")
    for size in args.sizes:
        for name, (p50, p95_) in asyncio.run(measure(size, args.edits, args.requests)).items():
            print(f"{size:>7} {name:<24} {p50 * 1000:>9.1f} {p95_ * 1000:>9.1f}")
    print(
        "targets: hover/preview p95 < 20 ms at any size; diagnostics p50 < 200 ms (2,000) and < 1 s (10,000)"
    )


if __name__ == "__main__":
    main()
