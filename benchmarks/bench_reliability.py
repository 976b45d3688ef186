"""Reliability figures (issue 6): the largest file handled (time, peak memory), how many
random inputs the parser and engine survive per second, and memory growth when the same
documents are checked again and again.

Through the language server (`agentv-lsp serve`, a raw JSON-RPC client): the same largest
file opened in the editor (time to its diagnostics, the server's peak memory), and an edit
storm (incremental edits sent as fast as the pipe takes them: edits per second, time until
the diagnostics of the last version, the server's memory before and after).

Run: python benchmarks/bench_reliability.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, peak_tree_rss, workload
from agentv_lsp.checks.document import CheckOptions, check_document
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.yamlpos import parse_yaml
from bench_lsp import RawClient

FRAGMENTS = [
    "- ",
    ": ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "\n",
    "  ",
    "'",
    '"',
    "|\n  ",
    "#",
    "!!str ",
    "---\n",
    "role: user",
    "content: x",
    "evalcases:",
    "$schema: agentv-eval-v2\n",
    "\t",
    "\x00",
    "é",
    "😀",
]


def fuzz(seconds: float) -> tuple[int, int]:
    """Random fragment soup through the parser: (inputs tried, inputs that raised)."""
    rng = random.Random(7)
    tried = crashed = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 60)))
        tried += 1
        try:
            parse_yaml(text)
        except Exception:
            crashed += 1
    return tried, crashed


def largest_file(cases: int) -> tuple[float, float, float]:
    """`agentv-lsp check` on one file of `cases` cases: (MiB, seconds, peak MiB)."""
    root = workload(cases)
    path = eval_files(root)[0]
    size = path.stat().st_size / 2**20
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "agentv_lsp", "check", str(path), "--format", "json"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - start
    peak = peak_tree_rss([sys.executable, "-m", "agentv_lsp", "check", str(path), "--format", "json"], root)
    return size, wall, peak


def server_memory(pid: int) -> tuple[float, float]:
    """(current, peak) RSS of a process in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def through_the_server(cases: int, storm_edits: int) -> dict[str, float]:
    """The largest file opened in the server, then an edit storm on a 2,000-case document."""
    out: dict[str, float] = {}
    published: dict[int, float] = {}
    client = RawClient()
    client.handlers["textDocument/publishDiagnostics"] = lambda p: published.setdefault(
        p.get("version") or 0, time.perf_counter()
    )
    root = workload(cases)
    await client.start(sys.executable, "-m", "agentv_lsp", "serve")
    assert client.process is not None
    pid = client.process.pid
    await client.initialize(root)

    async def open_and_wait(path: Path) -> tuple[str, list[str]]:
        text = path.read_text()
        published.clear()
        start = time.perf_counter()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}},
        )
        while 1 not in published:
            await asyncio.sleep(0.01)
        out.setdefault("open_s", published[1] - start)
        return path.as_uri(), text.split("\n")

    big = eval_files(root)[0]
    uri, _ = await open_and_wait(big)
    out["open_mb"] = big.stat().st_size / 2**20
    out["open_peak_mib"] = server_memory(pid)[1]
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    uri, lines = await open_and_wait(eval_files(workload(2000))[0])
    await client.request("agentv/status", {"uri": uri})
    before = server_memory(pid)[0]
    case_lines = [i for i, line in enumerate(lines) if line.startswith("  - id: ")]
    published.clear()
    start = time.perf_counter()
    for version in range(2, storm_edits + 2):
        line = case_lines[version % len(case_lines)]
        at = {"line": line, "character": len(lines[line])}
        lines[line] += "x"
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}],
            },
        )
        if version % 50 == 0:
            assert client.process.stdin is not None
            await client.process.stdin.drain()
    sent = time.perf_counter()
    last = storm_edits + 1
    while last not in published:
        await asyncio.sleep(0.01)
    await client.request("agentv/status", {"uri": uri})
    out["storm_edits_per_s"] = storm_edits / (sent - start)
    out["storm_settled_s"] = published[last] - sent
    out["storm_publications"] = len(published)
    out["storm_before_mib"], out["storm_after_mib"] = before, server_memory(pid)[0]
    await client.stop()
    return out


def soak(seconds: float) -> tuple[int, float]:
    """Check the same edited document repeatedly: (checks done, traced memory growth in MiB)."""
    root = workload(200)
    path = eval_files(root)[0]
    text = path.read_text()
    opts = CheckOptions(str(root), str(root), FileSystem())
    check_document(str(path), text, opts)
    gc.collect()
    tracemalloc.start()
    baseline = tracemalloc.get_traced_memory()[0]
    done = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        edited = text.replace("outcome:", "outcome:" + " " * (done % 3), 1)
        check_document(str(path), edited, opts)
        done += 1
    gc.collect()
    growth = (tracemalloc.get_traced_memory()[0] - baseline) / 2**20
    tracemalloc.stop()
    return done, growth


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument(
        "--cases", type=int, default=85_000, help="cases in the largest file (85,000 ~ 50 MB)"
    )
    parser.add_argument("--storm", type=int, default=2000, help="edits in the edit storm")
    args = parser.parse_args()
    tried, crashed = fuzz(args.seconds / 2)
    print(f"fuzz: {tried} random inputs through the parser in {args.seconds / 2:.0f} s, {crashed} raised")
    size, wall, peak = largest_file(args.cases)
    print(f"largest file: {size:.1f} MB ({args.cases} cases) checked in {wall:.2f} s, peak {peak:.0f} MiB")
    done, growth = soak(args.seconds / 2)
    print(f"soak: {done} checks of an edited 200-case file, memory growth {growth:+.2f} MiB")
    server = asyncio.run(through_the_server(args.cases, args.storm))
    print(
        f"server: {server['open_mb']:.1f} MB opened, diagnostics after {server['open_s']:.2f} s, "
        f"peak {server['open_peak_mib']:.0f} MiB"
    )
    print(
        f"edit storm: {args.storm} edits at {server['storm_edits_per_s']:.0f}/s, last version's diagnostics "
        f"{server['storm_settled_s']:.2f} s after the last edit ({server['storm_publications']:.0f} "
        f"publications), server {server['storm_before_mib']:.0f} -> {server['storm_after_mib']:.0f} MiB"
    )
    print(
        json.dumps(
            {
                "fuzz_inputs": tried,
                "fuzz_raised": crashed,
                "largest_mb": round(size, 1),
                "largest_s": round(wall, 2),
                "largest_peak_mib": round(peak),
                "soak_checks": done,
                "soak_growth_mib": round(growth, 2),
                **{k: round(v, 2) for k, v in server.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
