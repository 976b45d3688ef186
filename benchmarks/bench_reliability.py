"""Reliability figures (issue 6): the largest file handled (time, peak memory), how many
random inputs the parser and engine survive per second, and memory growth when the same
documents are checked again and again.

Through the language server (`agentv-lsp serve`, a raw JSON-RPC client): the same largest
file opened in the editor (time to its diagnostics, the server's peak memory), and an edit
storm (incremental edits sent as fast as the pipe takes them: edits per second, time until
the diagnostics of the last version, the server's memory before and after).

Hostile families (issue 15, `--hostile`): each family of `tests/reliability/hostile_families.py`
checked by `agentv-lsp check --format json` at n and 2n (n chosen so that the file, or folder,
is at least 200 KB): the two times, their ratio (linear work gives about 2) and whether each run
ended with diagnostics (exit 0 or 1). Then, through the server, a small document hovered every
20 ms while a hostile one is checked (int-string-key-collisions, many-cases-with-errors, and
1 MB of flow sequences 200 deep under `%YAML 1.2` stopped by a 1.5 s budget): the hover's
median, 90th percentile and worst (issue 34: within 100 ms).

The package.json family (issue 25, `--manifests`): `auto` runtime detection meeting an
`evals/package.json` that is a link to /dev/zero or /dev/stdin, a FIFO, a 5,000-digit version,
invalid or deeply nested JSON, or a 133 MB sparse file: the wall time and peak memory of
`check`, `preview` and the language server (untrusted workspace, time to the diagnostics), each
next to the same tree without a package.json.

Large tests (issue 25, `--large-test [KB ...]`): a 4.x eval file whose first test holds a pasted
log of 100 KB, 1 MB and 10 MB, opened in the server: time to its diagnostics, time of a hover on
the large test (it must show the prompt), and the server's peak memory.

Open/close cycles (issue 25, `--open-close N`): N small documents (v2, 4.x, other YAML in turn) opened,
asked for their status and closed in the server: its memory before and after, in bytes kept
per cycle (a server that forgets closed documents keeps about none).

Run: python benchmarks/bench_reliability.py [--seconds 20] [--hostile [FAMILY ...]] [--manifests]
     [--large-test [KB ...]] [--open-close N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.reliability.hostile_families import FAMILIES, nested_flow_text, size_of

from _workloads import eval_files, peak_tree_rss, workload
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, check_document
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


async def open_close_memory(cycles: int) -> tuple[float, float, float]:
    """Open, query and close `cycles` small documents: (RSS before, after in MiB, bytes per cycle)."""
    client = RawClient()
    root = workload(2)
    await client.start(sys.executable, "-m", "agentv_lsp", "serve")
    assert client.process is not None
    pid = client.process.pid
    await client.initialize(root)
    v2 = eval_files(root)[0].read_text()
    v4 = "description: Memory\ntests:\n  - id: one\n    input: Hello\n    criteria: Greets back.\n"

    kinds = [(".yaml", v2), (".eval.yaml", v4), (".cases.yaml", "- id: x\n  input: Hi\n")]

    async def cycle(n: int) -> None:
        suffix, text = kinds[n % 3]  # a v2 eval file, a 4.x one, YAML that may be a 4.x cases file
        uri = (root / "evals" / f"open{n}{suffix}").as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        )
        await client.request("agentv/status", {"uri": uri})
        await client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    for n in range(200):  # warm up: imports, schema caches, the allocator's arenas
        await cycle(n)
    await client.request("agentv/status", {"uri": (root / "none.yaml").as_uri()})
    before = server_memory(pid)[0]
    for n in range(200, 200 + cycles):
        await cycle(n)
    await client.request("agentv/status", {"uri": (root / "none.yaml").as_uri()})
    after = server_memory(pid)[0]
    await client.stop()
    return before, after, (after - before) * 2**20 / cycles


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


def _check_seconds(files: dict[str, str], repeat: int) -> tuple[float, int]:
    """Best wall time of `agentv-lsp check` on a tree of `files` (the one file, or the folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        target = str(root / next(iter(files))) if len(files) == 1 else str(root)
        best, code = float("inf"), -1
        for _ in range(repeat):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "agentv_lsp", "check", target, "--format", "json"],
                cwd=root,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            best = min(best, time.perf_counter() - start)
            code = done.returncode
            if code in (0, 1):
                json.loads(done.stdout)  # the report is whole
        return best, code


def hostile(names: list[str], repeat: int, min_kb: int) -> None:
    rows = []
    for name in names or list(FAMILIES):
        make = FAMILIES[name]
        n = 64
        while size_of(make(n)) < min_kb * 1024:
            n *= 2
        t1, code1 = _check_seconds(make(n), repeat)
        t2, code2 = _check_seconds(make(2 * n), repeat)
        rows.append(
            {
                "family": name,
                "n": n,
                "kb": size_of(make(n)) // 1024,
                "kb_2n": size_of(make(2 * n)) // 1024,
                "s_n": round(t1, 3),
                "s_2n": round(t2, 3),
                "ratio": round(t2 / t1, 2),
                "exit": [code1, code2],
            }
        )
        r = rows[-1]
        print(
            f"{name:28} n={n:<7} {r['kb']:>6} KB {t1:6.2f} s | 2n {r['kb_2n']:>6} KB {t2:6.2f} s | "
            f"ratio {r['ratio']:.2f} | exit {code1},{code2}",
            flush=True,
        )
    worst = max(rows, key=lambda r: r["ratio"])
    print(
        f"worst ratio: {worst['ratio']:.2f} ({worst['family']}); slowest 2n run: {max(r['s_2n'] for r in rows):.2f} s"
    )
    print(json.dumps(rows))


# The test_hostile.py document the exact reader cannot finish: its check stops at this budget.
DEEP_FLOW = "nested-flow-yaml-1.2"
DEEP_FLOW_BUDGET_MS = 1500


async def hover_while_hostile(family: str, n: int) -> dict[str, float]:
    """Hover on a small document, again and again, while the server checks a hostile one:
    hover latencies (median, 90th percentile, max) and how long the hostile document's check
    took. `DEEP_FLOW`: 1 MB of flow sequences 200 deep under `%YAML 1.2`, checked under a
    1.5 s budget (the exact reader would take tens of seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        small_text = next(iter(FAMILIES["many-cases-with-errors"](2).values()))
        settings = None
        if family == DEEP_FLOW:
            big, big_text = root / "deep.eval.yaml", nested_flow_text(1_000_000, 200)
            settings = {"checkTimeBudgetMs": DEEP_FLOW_BUDGET_MS}
        else:
            big, big_text = root / next(iter(FAMILIES[family](n))), next(iter(FAMILIES[family](n).values()))
        small = root / "small.yaml"
        small.write_text(small_text)
        big.write_text(big_text)
        published: dict[str, float] = {}
        client = RawClient()
        client.handlers["textDocument/publishDiagnostics"] = lambda p: published.setdefault(
            p["uri"], time.perf_counter()
        )
        await client.start(sys.executable, "-m", "agentv_lsp", "serve")
        await client.initialize(root, settings)

        def open_doc(path: Path) -> None:
            client.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": path.as_uri(),
                        "languageId": "yaml",
                        "version": 1,
                        "text": path.read_text(),
                    }
                },
            )

        open_doc(small)
        while small.as_uri() not in published:
            await asyncio.sleep(0.01)
        hover = {"textDocument": {"uri": small.as_uri()}, "position": {"line": 3, "character": 6}}
        await client.request("textDocument/hover", hover)  # warm
        start = time.perf_counter()
        open_doc(big)
        latencies = []
        timeline = []
        while big.as_uri() not in published:
            asked = time.perf_counter()
            await client.request("textDocument/hover", hover)
            latencies.append(time.perf_counter() - asked)
            timeline.append((round(asked - start, 2), round(1000 * latencies[-1])))
            await asyncio.sleep(0.02)
        size = big.stat().st_size
        await client.stop()
        if os.environ.get("AGENTV_BENCH_TIMELINE"):
            print(timeline)
    latencies.sort()
    return {
        "hover_median_ms": 1000 * latencies[len(latencies) // 2] if latencies else 0.0,
        "hover_p90_ms": 1000 * latencies[len(latencies) * 9 // 10] if latencies else 0.0,
        "hover_max_ms": 1000 * max(latencies, default=0.0),
        "hovers": len(latencies),
        "hostile_check_s": published[big.as_uri()] - start,
        "kb": size // 1024,
    }


MANIFEST_SHAPES = (
    "none",
    "dev-zero",
    "dev-stdin",
    "fifo",
    "huge-version",
    "invalid-json",
    "deep-json",
    "sparse-133mb",
)


def _make_manifest(path: Path, shape: str) -> None:
    if shape == "dev-zero":
        path.symlink_to("/dev/zero")
    elif shape == "dev-stdin":
        path.symlink_to("/dev/stdin")
    elif shape == "fifo":
        os.mkfifo(path)
    elif shape == "huge-version":
        path.write_text(json.dumps({"dependencies": {"agentv": "9" * 5000}}))
    elif shape == "invalid-json":
        path.write_text('{"dependencies": {"agentv": "^4.42.4"')
    elif shape == "deep-json":
        path.write_text("[" * 500_000)
    elif shape == "sparse-133mb":
        with open(path, "wb") as handle:
            handle.truncate(133 * 1024 * 1024)


def _tree_hwm_mib(pid: int) -> float:
    """The summed peak RSS (VmHWM) of a process and its children, in MiB (0 once gone)."""
    total = 0
    pids = [pid]
    for current in pids:
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(status.split("VmHWM:")[1].split()[0])
            for task in Path(f"/proc/{current}/task").iterdir():
                pids.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, IndexError, ValueError):
            continue
    return total / 1024


def _bounded_run(args: list[str], cwd: Path, timeout: float) -> tuple[float, float, str]:
    """(seconds, peak MiB, exit code or "timeout") of a command, killed after `timeout`; its
    stdin is a pipe nobody writes to, as a language server's would be between messages."""
    start = time.perf_counter()
    process = subprocess.Popen(
        args, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, _tree_hwm_mib(process.pid))
        if time.perf_counter() - start > timeout:
            process.kill()
            process.wait()
            return timeout, peak, "timeout"
        time.sleep(0.003)
    return time.perf_counter() - start, peak, str(process.returncode)


async def _server_on_manifest(root: Path, eval_path: Path, timeout: float) -> tuple[float, float, str]:
    """The language server (untrusted workspace) opening the eval file: (seconds to its
    diagnostics, peak RSS MiB, "ok" or "timeout")."""
    published: dict[str, float] = {}
    client = RawClient()
    client.handlers["textDocument/publishDiagnostics"] = lambda p: published.setdefault(
        p["uri"], time.perf_counter()
    )
    await client.start(sys.executable, "-m", "agentv_lsp", "serve")
    assert client.process is not None
    pid = client.process.pid
    await client.initialize(root, {"agentv": {"trustedWorkspace": False}})
    start = time.perf_counter()
    client.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": eval_path.as_uri(),
                "languageId": "yaml",
                "version": 1,
                "text": eval_path.read_text(),
            }
        },
    )
    state = "ok"
    peak = 0.0
    while eval_path.as_uri() not in published:
        peak = max(peak, server_memory(pid)[1])
        if time.perf_counter() - start > timeout:
            state = "timeout"
            break
        await asyncio.sleep(0.005)
    seconds = published.get(eval_path.as_uri(), time.perf_counter()) - start
    peak = max(peak, server_memory(pid)[1])
    if state == "timeout":
        client.process.kill()
        await client.process.wait()
    else:
        await client.stop()
    return seconds, peak, state


def manifests(timeout: float) -> None:
    rows = []
    eval_text = "description: d\ntests:\n  - id: t\n    criteria: ok\n    input: hello\n"
    for shape in MANIFEST_SHAPES:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / ".git").mkdir()
            (root / "evals").mkdir()
            eval_path = root / "evals" / "a.eval.yaml"
            eval_path.write_text(eval_text)
            if shape != "none":
                _make_manifest(root / "evals" / "package.json", shape)
            command = [sys.executable, "-m", "agentv_lsp"]
            check = _bounded_run([*command, "check", "evals", "--format", "json"], root, timeout)
            preview = _bounded_run([*command, "preview", "evals/a.eval.yaml", "--json"], root, timeout)
            server = asyncio.run(_server_on_manifest(root, eval_path, timeout))
        row = {"shape": shape}
        for name, (seconds, peak, end) in (("check", check), ("preview", preview), ("server", server)):
            row.update({f"{name}_s": round(seconds, 2), f"{name}_peak_mib": round(peak), f"{name}_end": end})
        rows.append(row)
        print(
            f"package.json {shape:13} check {check[0]:5.2f} s {check[1]:5.0f} MiB exit {check[2]:7} | "
            f"preview {preview[0]:5.2f} s {preview[1]:5.0f} MiB exit {preview[2]:7} | "
            f"server {server[0]:5.2f} s {server[1]:5.0f} MiB {server[2]}",
            flush=True,
        )
    print(json.dumps(rows))


def large_test_text(kb: int) -> str:
    """A 4.x eval file whose first test's input is a pasted log of about `kb` KB."""
    line = "      a pasted log line of a failing build, step {:07d}, exit status 1\n"
    log = "".join(line.format(n) for n in range(kb * 1024 // len(line.format(0))))
    return (
        "description: a test with a pasted log\ntests:\n  - id: with-log\n    criteria: Finds the failing step\n"
        "    input: |\n      Which step fails?\n"
        + log
        + "  - id: short\n    criteria: Greets\n    input: Hello\n"
    )


async def large_test(kb: int) -> dict[str, float]:
    """One server, one eval file with a `kb` KB test: open -> diagnostics, hover on that test
    (seconds; the hover must hold the question), the server's peak memory (MiB)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        path = root / "evals" / "log.eval.yaml"
        path.parent.mkdir()
        text = large_test_text(kb)
        path.write_text(text)
        published: dict[int, float] = {}
        client = RawClient()
        client.handlers["textDocument/publishDiagnostics"] = lambda p: published.setdefault(
            p.get("version") or 0, time.perf_counter()
        )
        await client.start(sys.executable, "-m", "agentv_lsp", "serve")
        assert client.process is not None
        await client.initialize(root)
        start = time.perf_counter()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}},
        )
        while 1 not in published:
            await asyncio.sleep(0.01)
        opened = published[1] - start
        start = time.perf_counter()
        hover = await client.request(
            "textDocument/hover",
            {"textDocument": {"uri": path.as_uri()}, "position": {"line": 2, "character": 8}},
        )
        hovered = time.perf_counter() - start
        value = hover["contents"]["value"] if isinstance(hover, dict) else ""
        peak = server_memory(client.process.pid)[1]
        await client.stop()
    return {
        "kb": len(text) // 1024,
        "open_s": opened,
        "hover_s": hovered,
        "hover_ok": float("Which step fails?" in value and "step 0000000" in value),
        "peak_mib": peak,
    }


def large_tests(sizes_kb: list[int]) -> None:
    rows = []
    for kb in sizes_kb:
        r = asyncio.run(large_test(kb))
        rows.append({k: round(v, 3) for k, v in r.items()})
        print(
            f"large test {r['kb']:>7.0f} KB: diagnostics {r['open_s']:6.2f} s, hover {r['hover_s']:6.2f} s "
            f"({'shows the prompt' if r['hover_ok'] else 'NO PROMPT'}), server peak {r['peak_mib']:.0f} MiB",
            flush=True,
        )
    print(json.dumps(rows))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument(
        "--cases", type=int, default=85_000, help="cases in the largest file (85,000 ~ 50 MB)"
    )
    parser.add_argument("--storm", type=int, default=2000, help="edits in the edit storm")
    parser.add_argument(
        "--hostile", nargs="*", metavar="FAMILY", help="only the hostile families (all when none is named)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per hostile measurement (best is kept)")
    parser.add_argument(
        "--min-kb", type=int, default=200, help="smallest hostile input (n is doubled up to it)"
    )
    parser.add_argument(
        "--manifests", action="store_true", help="only the package.json family (check, preview, server)"
    )
    parser.add_argument(
        "--timeout", type=float, default=30, help="seconds before a --manifests run is killed"
    )
    parser.add_argument(
        "--large-test",
        nargs="*",
        type=int,
        metavar="KB",
        help="only the large-test family (default 100 1024 10240 KB)",
    )
    parser.add_argument(
        "--open-close", type=int, metavar="N", help="only the open/close memory figure (N cycles)"
    )
    args = parser.parse_args()
    if args.manifests:
        manifests(args.timeout)
        return
    if args.large_test is not None:
        large_tests(args.large_test or [100, 1024, 10240])
        return
    if args.open_close is not None:
        before, after, per_cycle = asyncio.run(open_close_memory(args.open_close))
        print(
            f"server: {args.open_close} documents opened and closed, {before:.1f} -> {after:.1f} MiB, "
            f"{per_cycle:.0f} bytes kept per cycle"
        )
        return
    if args.hostile is not None:
        hostile(args.hostile, args.repeat, args.min_kb)
        for family, n in (
            ("int-string-key-collisions", 50_000),
            ("many-cases-with-errors", 8000),
            (DEEP_FLOW, 0),
        ):
            r = asyncio.run(hover_while_hostile(family, n))
            print(
                f"server: hover on another document while {family} ({r['kb']} KB) is checked: "
                f"median {r['hover_median_ms']:.0f} ms, p90 {r['hover_p90_ms']:.0f} ms, "
                f"max {r['hover_max_ms']:.0f} ms over {r['hovers']:.0f} hovers; "
                f"the hostile check took {r['hostile_check_s']:.2f} s"
            )
        return
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
