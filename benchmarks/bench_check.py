"""Benchmark `agentv-lsp check` as a whole process (issue 3) on the 2,000- and 10,000-case
workloads and on 10,000 cases split over 100 files, plus the `--no-tool` variants (where
`agentv validate` goes on to check file references).

Prints wall time (median of 5, or `--repeat N`, after a warm-up), cases per second, peak memory (of the
largest process, and of all processes together: a large file is checked in two), and the
ratio to a whole process that only runs `yaml.compose` (C loader, collector paused) on the
same bytes. The package's bytecode is compiled first, as `pip install` does: with
PYTHONDONTWRITEBYTECODE set (as on some CI machines) an editable install would otherwise
compile every module on every run (about 0.1 s). Run: python benchmarks/bench_check.py
"""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import eval_files, peak_rss_of, peak_tree_rss, run_measured, workload

COMPOSE_ONLY = (
    "import gc,sys,yaml;gc.disable();"
    "[yaml.compose(open(p).read(),Loader=yaml.CSafeLoader) for p in sys.argv[1:]]"
)


def main() -> None:
    import argparse

    import agentv_lsp

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per workload (median and min)")
    args = parser.parse_args()

    compileall.compile_dir(str(Path(agentv_lsp.__file__).parent), quiet=1)
    rows = [
        (2000, 1, False),
        (10000, 1, False),
        (10000, 100, False),
        (2000, 1, True),
        (10000, 1, True),
        (10000, 100, True),
    ]
    print(
        f"{'workload':<16} {'wall s':>8} {'min s':>7} {'cases/s':>9} {'peak MiB':>9} {'all procs':>9} "
        f"{'compose s':>10} {'ratio':>6}"
    )
    for cases, files, no_tool in rows:
        root = workload(cases, files, no_tool)
        target = "evals" if files > 1 else str(eval_files(root)[0].relative_to(root))
        check = [sys.executable, "-m", "agentv_lsp", "check", target, "--format", "json"]
        wall, fastest, _ = run_measured(check, root, args.repeat)
        peak = peak_rss_of(check, root)
        together = max(peak_tree_rss(check, root) for _ in range(3))
        files_list = [str(p) for p in eval_files(root)]
        compose, _, _ = run_measured([sys.executable, "-c", COMPOSE_ONLY, *files_list], root, args.repeat)
        name = root.name
        print(
            f"{name:<16} {wall:>8.3f} {fastest:>7.3f} {cases / wall:>9.0f} {peak:>9.0f} {together:>9.0f} {compose:>10.3f} "
            f"{wall / compose:>5.2f}x"
        )
    print("targets: < 1 s whole-process for every 10,000-case workload, < 200 MiB")


if __name__ == "__main__":
    main()
