"""Reliability figures (issue 6): the largest file handled (time, peak memory), how many
random inputs the parser and engine survive per second, and memory growth when the same
documents are checked again and again.

Run: python benchmarks/bench_reliability.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, peak_rss_of, workload
from agentv_lsp.checks.document import CheckOptions, check_document
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.yamlpos import parse_yaml

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
    peak = peak_rss_of([sys.executable, "-m", "agentv_lsp", "check", str(path), "--format", "json"], root)
    return size, wall, peak


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
    args = parser.parse_args()
    tried, crashed = fuzz(args.seconds / 2)
    print(f"fuzz: {tried} random inputs through the parser in {args.seconds / 2:.0f} s, {crashed} raised")
    size, wall, peak = largest_file(args.cases)
    print(f"largest file: {size:.1f} MB ({args.cases} cases) checked in {wall:.2f} s, peak {peak:.0f} MiB")
    done, growth = soak(args.seconds / 2)
    print(f"soak: {done} checks of an edited 200-case file, memory growth {growth:+.2f} MiB")
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
            }
        )
    )


if __name__ == "__main__":
    main()
