"""Benchmark AgentV 4.x files: `agentv-lsp check` as a whole process on the 4.x workloads
(`make_workload_v4.py`: the v2 mix, 2,000 and 10,000 tests, one file and 100 files, with and
without `tool` turns), and the in-process preview of one test.

Prints wall time (median of `--repeat`, after a warm-up), tests per second, peak memory (largest
process and all processes together), and the ratio to a whole process that only runs
`yaml.compose` (C loader, collector paused) on the same bytes, the two run in turns so that both
see the same load; then the same ratio in CPU time
(user + system of the process and the children it forks, median): on a machine shared with other
work the wall ratio moves with the load, the CPU ratio much less (the check uses every CPU it
may, so with all of them free its wall ratio is below its CPU ratio). Then the preview latency
of one test (p50/p95 over 200 random tests): of a loaded suite, as the language server keeps
it, and with the suite loaded again (the first request on a new version).
Targets (issue 11/12): check of 10,000 tests within 1.5x the bare compose, < 200 MiB; one-test
preview p95 < 20 ms. Run: python benchmarks/bench_v4.py [--repeat N]
"""

from __future__ import annotations

import argparse
import compileall
import gc
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, peak_rss_of, peak_tree_rss, workload_v4

COMPOSE_ONLY = (
    "import gc,sys,yaml;gc.disable();"
    "[yaml.compose(open(p).read(),Loader=yaml.CSafeLoader) for p in sys.argv[1:]]"
)


CHECK_ROWS = [(2000, 1, False), (10000, 1, False), (10000, 100, False), (2000, 1, True), (10000, 1, True)]


def workload_name(tests: int, files: int, no_tool: bool) -> str:
    return f"v4w{tests}" + (f"x{files}" if files > 1 else "") + ("nt" if no_tool else "")


def run_once(args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system of the process and the children it waited for)."""
    before, start = os.times(), time.perf_counter()
    subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall, after = time.perf_counter() - start, os.times()
    cpu = after.children_user + after.children_system - before.children_user - before.children_system
    return wall, cpu


def measure_against(check: list[str], compose: list[str], cwd: Path, repeat: int) -> dict[str, list[float]]:
    """The check and the bare compose run in turns, after a warm-up of each: on a shared machine
    the load changes from one second to the next, and both must see the same."""
    run_once(check, cwd)
    run_once(compose, cwd)
    runs: dict[str, list[float]] = {"wall": [], "cpu": [], "compose wall": [], "compose cpu": []}
    for _ in range(repeat):
        for prefix, args in (("", check), ("compose ", compose)):
            wall, cpu = run_once(args, cwd)
            runs[prefix + "wall"].append(wall)
            runs[prefix + "cpu"].append(cpu)
    return runs


def bench_check(repeat: int, only: list[str] | None = None) -> None:
    rows = [row for row in CHECK_ROWS if not only or workload_name(*row) in only]
    print(
        f"{'workload':<16} {'wall s':>8} {'min s':>7} {'tests/s':>9} {'peak MiB':>9} {'all procs':>9} "
        f"{'compose s':>10} {'ratio':>6} {'cpu s':>6} {'compose cpu':>11} {'cpu ratio':>9}"
    )
    for tests, files, no_tool in rows:
        root = workload_v4(tests, files, no_tool)
        target = "evals" if files > 1 else str(eval_files(root)[0].relative_to(root))
        check = [sys.executable, "-m", "agentv_lsp", "check", target, "--format", "json", "--agentv", "4"]
        paths = [str(p) for p in eval_files(root)]
        runs = measure_against(check, [sys.executable, "-c", COMPOSE_ONLY, *paths], root, repeat)
        wall, compose = statistics.median(runs["wall"]), statistics.median(runs["compose wall"])
        check_cpu, compose_cpu = statistics.median(runs["cpu"]), statistics.median(runs["compose cpu"])
        peak = peak_rss_of(check, root)
        together = max(peak_tree_rss(check, root) for _ in range(3))
        print(
            f"{root.name:<16} {wall:>8.3f} {min(runs['wall']):>7.3f} {tests / wall:>9.0f} {peak:>9.0f} "
            f"{together:>9.0f} {compose:>10.3f} {wall / compose:>5.2f}x {check_cpu:>6.3f} {compose_cpu:>11.3f} "
            f"{check_cpu / compose_cpu:>8.2f}x"
        )


def bench_preview(tests: int) -> None:
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v4.loader import load_suite
    from agentv_lsp.formats.v4.preview import preview_suite, preview_v4

    root = workload_v4(tests)
    path = str(eval_files(root)[0])
    fs = FileSystem()
    gc.disable()
    start = time.perf_counter()
    whole = preview_v4(path, str(root), str(root), fs)
    whole_s = time.perf_counter() - start
    ids = [case["id"] for case in whole["cases"]]
    rng = random.Random(7)
    picked = rng.sample(ids, min(200, len(ids)))
    suite = load_suite(path, str(root), str(root), fs)  # kept, as the language server keeps it
    kept, cold = [], []
    for test_id in picked:
        start = time.perf_counter()
        preview_suite(suite, fs, case_id=test_id)
        kept.append((time.perf_counter() - start) * 1000)
    for test_id in picked[:40]:
        start = time.perf_counter()
        preview_v4(path, str(root), str(root), fs, case_id=test_id)
        cold.append((time.perf_counter() - start) * 1000)
    print(
        f"preview {tests} tests: whole file {whole_s:.3f} s; one test of the loaded suite (as the language "
        f"server keeps it) p50 {statistics.median(kept):.1f} ms, p95 {_p95(kept):.1f} ms; one test with the "
        f"suite loaded again (a new version) p50 {statistics.median(cold):.1f} ms, p95 {_p95(cold):.1f} ms"
    )
    print("hover and preview through the protocol: python benchmarks/bench_lsp.py --format v4")


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    import agentv_lsp

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per workload (median and min)")
    names = [workload_name(*row) for row in CHECK_ROWS]
    parser.add_argument(
        "--workload",
        action="append",
        choices=names,
        help="check only this workload (repeatable; default: all of them)",
    )
    parser.add_argument("--no-preview", action="store_true", help="skip the one-test preview latency")
    args = parser.parse_args()
    compileall.compile_dir(str(Path(agentv_lsp.__file__).parent), quiet=1)
    bench_check(args.repeat, args.workload)
    if not args.no_preview:
        bench_preview(2000)
    print("targets: check of 10,000 tests <= 1.5x compose, < 200 MiB; one-test preview/hover p95 < 20 ms")


if __name__ == "__main__":
    main()
