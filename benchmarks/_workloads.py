"""Shared helpers for the benchmarks: generate (and cache) the workloads of
../shared/bench/make_workload.py and run measured subprocesses."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AGENTV_SHARED", REPO.parent / "shared"))
CACHE = Path(os.environ.get("AGENTV_BENCH_CACHE", Path.home() / ".cache" / "agentv-lsp-bench"))


def workload(cases: int, files: int = 1, no_tool: bool = False) -> Path:
    """The workload folder for `cases` cases split over `files` files (generated once)."""
    name = f"w{cases}" + (f"x{files}" if files > 1 else "") + ("nt" if no_tool else "")
    target = CACHE / name
    if not (target / ".done").exists():
        script = SHARED / "bench" / "make_workload.py"
        if not script.exists():
            sys.exit(f"benchmarks need {script} (../shared beside the repository)")
        args = [sys.executable, str(script), str(target), "--cases", str(cases)]
        if files > 1:
            args += ["--files", str(files)]
        if no_tool:
            args.append("--no-tool")
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        (target / ".done").write_text("ok")
    return target


def workload_v4(cases: int, files: int = 1, no_tool: bool = False) -> Path:
    """The AgentV 4.x workload of the same mix (`make_workload_v4.py`, generated once)."""
    name = f"v4w{cases}" + (f"x{files}" if files > 1 else "") + ("nt" if no_tool else "")
    target = CACHE / name
    if not (target / ".done").exists():
        args = [
            sys.executable,
            str(REPO / "benchmarks" / "make_workload_v4.py"),
            str(target),
            "--cases",
            str(cases),
        ]
        args += ["--files", str(files), "--force"] + (["--no-tool"] if no_tool else [])
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        (target / ".done").write_text("ok")
    return target


def eval_files(root: Path) -> list[Path]:
    return sorted((root / "evals").rglob("*.yaml"))


def run_measured(args: list[str], cwd: Path, repeat: int = 5) -> tuple[float, float, float]:
    """Whole-process wall time: (median, min, max) over `repeat` runs after one warm-up,
    and the peak RSS (MiB) of the largest child."""
    times = []
    subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm-up
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return statistics.median(times), min(times), peak


def peak_rss_of(args: list[str], cwd: Path) -> float:
    """Peak RSS (MiB) of one run, measured by a wrapper process so earlier children do not count."""
    probe = (
        "import resource,subprocess,sys;"
        "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *args], cwd=cwd, capture_output=True, text=True)
    return int(out.stdout.strip() or 0) / 1024


def peak_tree_rss(args: list[str], cwd: Path) -> float:
    """Peak of the summed proportional set size (MiB) of a process and its children (the
    checker forks one for a large file), sampled every few milliseconds. PSS, not RSS: pages
    a forked child still shares with its parent count once, split between them."""

    def rss_kib(pid: int) -> int:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def children(pid: int) -> list[int]:
        try:
            found = []
            for task in Path(f"/proc/{pid}/task").iterdir():
                found.extend(int(c) for c in (task / "children").read_text().split())
            return found
        except OSError:
            return []

    process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while process.poll() is None:
        tree = [process.pid]
        for pid in tree:
            tree.extend(children(pid))
        peak = max(peak, sum(rss_kib(pid) for pid in tree))
        time.sleep(0.003)
    return peak / 1024
