"""Benchmark AgentV 4.x files: `agentv-lsp check` as a whole process on the 4.x workloads
(`make_workload_v4.py`: the v2 mix, 2,000 and 10,000 tests, one file and 100 files, with and
without `tool` turns), and the in-process preview of one test.

Prints wall time (median of `--repeat`, after a warm-up), tests per second, peak memory (largest
process and all processes together), and the ratio to a whole process that only runs
`yaml.compose` (C loader, collector paused) on the same bytes; then the same ratio in CPU time
(user + system of the process and the children it forks, median): on a machine shared with other
work the wall ratio moves with the load, the CPU ratio much less (the check uses every CPU it
may, so with all of them free its wall ratio is below its CPU ratio). Then the preview latency
of one test (p50/p95 over 200 random tests, suite loaded once as the language server caches it).
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
from _workloads import eval_files, peak_rss_of, peak_tree_rss, run_measured, workload_v4

COMPOSE_ONLY = (
    "import gc,sys,yaml;gc.disable();"
    "[yaml.compose(open(p).read(),Loader=yaml.CSafeLoader) for p in sys.argv[1:]]"
)


CHECK_ROWS = [(2000, 1, False), (10000, 1, False), (10000, 100, False), (2000, 1, True), (10000, 1, True)]


def workload_name(tests: int, files: int, no_tool: bool) -> str:
    return f"v4w{tests}" + (f"x{files}" if files > 1 else "") + ("nt" if no_tool else "")


def cpu_seconds(args: list[str], cwd: Path, repeat: int) -> float:
    """Median CPU time (user + system) of a whole process and the children it waited for."""
    spent = []
    for _ in range(repeat):
        before = os.times()
        subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = os.times()
        spent.append(
            after.children_user + after.children_system - before.children_user - before.children_system
        )
    return statistics.median(spent)


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
        wall, fastest, _ = run_measured(check, root, repeat)
        peak = peak_rss_of(check, root)
        together = max(peak_tree_rss(check, root) for _ in range(3))
        paths = [str(p) for p in eval_files(root)]
        compose_args = [sys.executable, "-c", COMPOSE_ONLY, *paths]
        compose, _, _ = run_measured(compose_args, root, repeat)
        check_cpu = cpu_seconds(check, root, repeat)
        compose_cpu = cpu_seconds(compose_args, root, repeat)
        print(
            f"{root.name:<16} {wall:>8.3f} {fastest:>7.3f} {tests / wall:>9.0f} {peak:>9.0f} {together:>9.0f} "
            f"{compose:>10.3f} {wall / compose:>5.2f}x {check_cpu:>6.3f} {compose_cpu:>11.3f} "
            f"{check_cpu / compose_cpu:>8.2f}x"
        )


def bench_preview(tests: int) -> None:
    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v4.preview import preview_v4

    root = workload_v4(tests)
    path = str(eval_files(root)[0])
    fs = FileSystem()
    gc.disable()
    start = time.perf_counter()
    whole = preview_v4(path, str(root), str(root), fs)
    whole_s = time.perf_counter() - start
    ids = [case["id"] for case in whole["cases"]]
    rng = random.Random(7)
    times = []
    for test_id in rng.sample(ids, min(200, len(ids))):
        start = time.perf_counter()
        preview_v4(path, str(root), str(root), fs, case_id=test_id)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(
        f"preview {tests} tests: whole file {whole_s:.3f} s; one test by id (whole-suite load each time) "
        f"p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms"
    )


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
