"""Benchmark the engine (issue 2): load + format every case of the 200-, 2,000- and
10,000-case workloads, both modes, in-process; and preview one case of a parsed document.

Prints, per workload: time per case, total, the ratio to a bare `yaml.compose` (C loader,
collector paused) of the same text, and the peak memory of a process doing just that.
Run: python benchmarks/bench_engine.py [--sizes 200 2000 10000]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, peak_rss_of, workload


def measure_inprocess(root: Path) -> dict[str, float]:
    import yaml

    from agentv_lsp.engine.files import FileSystem
    from agentv_lsp.formats.v2.loader import load_case, open_eval_file
    from agentv_lsp.formats.v2.prompt import build_both_modes

    path = eval_files(root)[0]
    text = path.read_text()
    gc.disable()
    compose_times, engine_times = [], []
    for _ in range(3):
        start = time.perf_counter()
        yaml.compose(text, Loader=yaml.CSafeLoader)
        compose_times.append(time.perf_counter() - start)
        fs = FileSystem()
        start = time.perf_counter()
        ef = open_eval_file(str(path), repo_root=str(root), cwd=str(root), fs=fs, text=text)
        count = 0
        for i in range(len(ef.raw_cases)):
            outcome = load_case(ef, i)
            if outcome.case is not None:
                build_both_modes(outcome.case, fs)
                count += 1
        engine_times.append(time.perf_counter() - start)
        gc.collect()
    # one case of an already-parsed document (what hover/preview pays)
    middle = len(ef.raw_cases) // 2
    one = []
    for _ in range(200):
        start = time.perf_counter()
        outcome = load_case(ef, middle)
        assert outcome.case is not None
        build_both_modes(outcome.case, fs)
        one.append(time.perf_counter() - start)
    gc.enable()
    compose, engine = min(compose_times), min(engine_times)
    return {
        "cases": count,
        "compose_s": compose,
        "engine_s": engine,
        "ratio": engine / compose,
        "per_case_us": engine / count * 1e6,
        "one_case_ms_median": statistics.median(one) * 1e3,
        "one_case_ms_p95": sorted(one)[int(len(one) * 0.95)] * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000, 10000])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_inprocess(Path(args.child))))
        return
    print(
        f"{'cases':>7} {'load+format':>12} {'per case':>10} {'compose':>9} {'ratio':>6} "
        f"{'1 case p50/p95':>16} {'peak MiB':>9}"
    )
    for size in args.sizes:
        root = workload(size)
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(root)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        m = json.loads(out.stdout)
        peak = peak_rss_of([sys.executable, __file__, "--child", str(root)], root)
        print(
            f"{m['cases']:>7} {m['engine_s']:>11.3f}s {m['per_case_us']:>8.1f}µs {m['compose_s']:>8.3f}s "
            f"{m['ratio']:>5.2f}x {m['one_case_ms_median']:>7.3f}/{m['one_case_ms_p95']:.3f} ms {peak:>8.0f}"
        )
    print("targets: 10,000 cases loaded+formatted < 1 s in-process; one case of a parsed document < 1 ms")


if __name__ == "__main__":
    main()
