"""Language-server latency (issue 4) on the workloads of ../shared/bench/make_workload.py
(2,000 and 10,000 cases in one file), through a real `agentv-lsp serve` process over stdio;
`--format v4`: on the AgentV 4.x workloads of the same mix (`make_workload_v4.py`, issue 11).

Measured, each as p50 / p95 over many requests at random cases:
- open -> first diagnostics (one sample: the whole-text check, as the CLI does)
- didChange -> publishDiagnostics for that version: incremental edits as VS Code sends them
  (typing at the end of one case's id, or a comment line added, which moves every case below);
  `preview.debounceMs` is 0 here, so this is the compute time (the editor adds its 150 ms)
- hover on a case id (exact question), preview (agentv.previewCase by id), completion
  (roles), code lens list + resolve of one case, document symbols
- code lenses and the outline: the first answer apart (the outline's loads the whole text once),
  again for the same version, and right after an edit; beside them the floor of one answer, its
  JSON written and read once in this process (the server writes it, the client reads it)
- hover and preview as the first request after an edit (the version is new), marked (*) with
  `preview.debounceMs` 0 (the check of the edit runs at the same time), and with the editor's
  150 ms (which the server skips while its checks cost at most 100 ms: see
  `features/diagnostics.py`)

Both formats are checked incrementally (issue 29): an edit inside one test re-checks that
test; the edits here (typing at the end of an id, a comment line under it) are all inside
tests. The machine's load moves every figure: run it a few times and take medians.

What a figure spans: from the request written to the last byte of its answer read (the server's
work and the pipe). Reading the JSON is the client's work, and a Python client reads it several
times slower than the editor does: the column "+ py read" is the p95 with this benchmark's own
`json.loads` included, and for the two large answers (code lenses, outline) the line "JSON.parse
(node)" gives what reading them costs in V8, the engine VS Code's extension host runs.

Run: python benchmarks/bench_lsp.py [--format v2|v4] [--sizes 2000 10000] [--edits 30] [--requests 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, workload, workload_v4

Timings = dict[str, list[float]]


class RawClient:
    """A minimal LSP client over stdio: JSON in, JSON out (no typed objects), so the numbers
    are the server's and the pipe's, not a Python client's deserialization."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.handlers: dict[str, Callable[[Any], None]] = {}
        self.reader_task: asyncio.Task[None] | None = None
        # per answered request: (last byte read, JSON read, body bytes), perf_counter seconds
        self.answered: dict[int, tuple[float, float, int]] = {}
        self.arrived = 0.0  # the last notification's last byte (read by its handler)

    async def start(self, *command: str) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=1 << 26,
        )
        self.reader_task = asyncio.create_task(self._read())

    def _write(self, message: dict[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        stream = self.process.stdout
        while True:
            header = await stream.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in header.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            body = await stream.readexactly(length)
            arrived = time.perf_counter()  # the answer's last byte: the server's and the pipe's part ends
            message = json.loads(body)
            read = time.perf_counter()
            if "method" in message and "id" in message:  # a request from the server
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" in message:
                self.arrived = arrived
                handler = self.handlers.get(message["method"])
                if handler is not None:
                    handler(message.get("params"))
            else:
                self.answered[message["id"]] = (arrived, read, length)
                future = self.waiting.pop(message["id"], None)
                if future is not None and not future.done():
                    future.set_result(message.get("result"))

    async def initialize(self, root: Path, settings: dict[str, Any] | None = None) -> None:
        """`initialize` with `root` as the only workspace folder, then `initialized`."""
        await self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "w"}],
                "initializationOptions": {"settings": settings or {}},
            },
        )
        self.notify("initialized", {})

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return await future

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        assert self.process is not None
        await self.process.wait()
        if self.reader_task is not None:
            self.reader_task.cancel()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


READ = " + py read"  # the same samples with the benchmark's own json.loads included


async def timed(client: RawClient, timings: Timings, name: str, call: Callable[[], Awaitable[Any]]) -> Any:
    """`call` (one request) timed to its answer's last byte, and apart with the client's read."""
    start = time.perf_counter()
    result = await call()
    arrived, read, _size = client.answered.pop(client.next_id)
    timings.setdefault(name, []).append(arrived - start)
    timings.setdefault(name + READ, []).append(read - start)
    return result


def v8_parse_seconds(result: Any) -> float | None:
    """Median of 5 `JSON.parse` runs in node over this answer's JSON (None without node)."""
    node = shutil.which("node")
    if node is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"jsonrpc": "2.0", "id": 1, "result": result}, handle, separators=(",", ":"))
    script = (
        "const t=require('fs').readFileSync(process.argv[1],'utf8');const r=[];"
        "for(let i=0;i<5;i++){const s=process.hrtime.bigint();JSON.parse(t);"
        "r.push(Number(process.hrtime.bigint()-s)/1e9)}r.sort((a,b)=>a-b);console.log(r[2])"
    )
    try:
        out = subprocess.run([node, "-e", script, handle.name], capture_output=True, text=True, timeout=120)
        return float(out.stdout.strip()) if out.returncode == 0 else None
    finally:
        os.unlink(handle.name)


def position(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


async def measure(size: int, edits: int, requests: int, seed: int = 1, file_format: str = "v2") -> Timings:
    rng = random.Random(seed)
    root = workload_v4(size) if file_format == "v4" else workload(size)
    path = eval_files(root)[0]
    text = path.read_text()
    lines = text.split("\n")
    case_lines = [i for i, line in enumerate(lines) if line.startswith("  - id: ")]
    client = RawClient()
    published: dict[int, asyncio.Future[float]] = {}

    def on_diagnostics(params: Any) -> None:
        future = published.get(params.get("version") or 0)
        if future is not None and not future.done():
            future.set_result(client.arrived)

    client.handlers["textDocument/publishDiagnostics"] = on_diagnostics
    await client.start(sys.executable, "-m", "agentv_lsp", "serve")
    await client.initialize(root, {"preview": {"debounceMs": 0}})
    uri = path.as_uri()
    doc = {"uri": uri}
    timings: Timings = {}
    loop = asyncio.get_running_loop()

    async def wait_version(version: int, start: float) -> float:
        return await published[version] - start

    published[1] = loop.create_future()
    start = time.perf_counter()
    client.notify(
        "textDocument/didOpen", {"textDocument": {**doc, "languageId": "yaml", "version": 1, "text": text}}
    )
    timings["open -> diagnostics"] = [await wait_version(1, start)]
    version = 1

    def edit(kind: str) -> None:
        nonlocal version
        version += 1
        case = rng.randrange(len(case_lines))
        id_line = case_lines[case]
        if kind == "word":  # type at the end of the case's id (it stays valid YAML)
            at = position(id_line, len(lines[id_line]))
            inserted = f"-v{version}"
            lines[id_line] += inserted
        else:  # a new comment line under the id: every case below moves
            at = position(id_line + 1, 0)
            inserted = "    # note\n"
            lines.insert(id_line + 1, "    # note")
            for i in range(case + 1, len(case_lines)):
                case_lines[i] += 1
        published[version] = loop.create_future()
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {**doc, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": inserted}],
            },
        )

    for i in range(edits):
        start = time.perf_counter()
        edit("word" if i % 3 else "line")
        timings.setdefault("didChange -> diagnostics", []).append(await wait_version(version, start))

    def hover_at(case: int) -> Awaitable[Any]:
        return client.request(
            "textDocument/hover", {"textDocument": doc, "position": position(case_lines[case], 10)}
        )

    def preview_of(case: int) -> Awaitable[Any]:
        case_id = lines[case_lines[case]].split("id: ", 1)[1].strip()
        return client.request(
            "workspace/executeCommand",
            {"command": "agentv.previewCase", "arguments": [{"uri": uri, "caseId": case_id}]},
        )

    for _ in range(requests):
        case = rng.randrange(len(case_lines))
        hover = await timed(client, timings, "hover (case id)", lambda case=case: hover_at(case))
        shown = hover["contents"]["value"] if hover else ""
        assert "**Question**" in shown or "**Turns**" in shown, hover  # the case's prompt
        result = await timed(
            client, timings, "preview (agentv.previewCase)", lambda case=case: preview_of(case)
        )
        assert result and "lm" in result, result
        role_line = next(i for i in range(case_lines[case], len(lines)) if "- role: " in lines[i])
        where = position(role_line, len(lines[role_line].split("role: ")[0]) + 6)
        await timed(
            client,
            timings,
            "completion (role)",
            lambda where=where: client.request(
                "textDocument/completion", {"textDocument": doc, "position": where}
            ),
        )
    for round in range(max(3, requests // 6)):
        # the first of each is apart: the outline's first answer loads the whole text once
        first = " (first)" if round == 0 else ""
        lenses = await timed(
            client,
            timings,
            f"codeLens (list){first}",
            lambda: client.request("textDocument/codeLens", {"textDocument": doc}),
        )
        lens = lenses[rng.randrange(len(lenses))]
        await timed(
            client, timings, "codeLens/resolve", lambda lens=lens: client.request("codeLens/resolve", lens)
        )
        symbols = await timed(
            client,
            timings,
            f"documentSymbol{first}",
            lambda: client.request("textDocument/documentSymbol", {"textDocument": doc}),
        )
        if round == 0:  # what the editor pays to read each answer
            for name, result in (("codeLens (list)", lenses), ("documentSymbol", symbols)):
                size = len(json.dumps(result, separators=(",", ":"))) / 1e6
                seconds = v8_parse_seconds(result)
                if seconds is not None:
                    timings[f"{name} JSON.parse (node, {size:.1f} MB)"] = [seconds]

    async def first_after_edits(label: str) -> None:
        for i in range(max(5, edits // 2)):
            edit("word" if i % 2 else "line")
            case = rng.randrange(len(case_lines))
            await timed(
                client, timings, f"hover, first after an edit{label}", lambda case=case: hover_at(case)
            )
            await published[version]
            edit("word")
            case = rng.randrange(len(case_lines))
            await timed(
                client, timings, f"preview, first after an edit{label}", lambda case=case: preview_of(case)
            )
            await published[version]

    for i in range(5):  # an editor asks for both again after each change
        edit("word" if i % 2 else "line")
        await published[version]
        await timed(
            client,
            timings,
            "codeLens (list), after an edit",
            lambda: client.request("textDocument/codeLens", {"textDocument": doc}),
        )
        await timed(
            client,
            timings,
            "documentSymbol, after an edit",
            lambda: client.request("textDocument/documentSymbol", {"textDocument": doc}),
        )

    await first_after_edits(" (*)")  # the check of the edit runs at the same time (no debounce)
    client.notify(
        "workspace/didChangeConfiguration", {"settings": {"agentv": {"preview": {"debounceMs": 150}}}}
    )
    await first_after_edits("")  # as in the editor: the check starts 150 ms after the last edit
    await client.stop()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--format", choices=("v2", "v4"), default="v2", help="which workloads (default v2)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    print(f"{'cases':>7} {'operation':<42} {'n':>4} {'p50 ms':>9} {'p95 ms':>9} {'+ py read':>10}")
    for size in args.sizes:
        timings = asyncio.run(measure(size, args.edits, args.requests, file_format=args.format))
        for name, values in timings.items():
            if name.endswith(READ):
                continue
            p50 = statistics.median(values) * 1000
            with_read = timings.get(name + READ)
            read = f"{p95(with_read) * 1000:>10.1f}" if with_read else ""
            print(f"{size:>7} {name:<42} {len(values):>4} {p50:>9.1f} {p95(values) * 1000:>9.1f} {read}")
    print(
        "targets (issue 29): didChange -> diagnostics p50 <= 30 ms for edits inside a test and every request "
        "p95 <= 50 ms, at 2,000 and 10,000 tests; open -> diagnostics no slower than before"
    )


if __name__ == "__main__":
    main()
