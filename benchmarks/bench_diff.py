#!/usr/bin/env python3
"""`agentv-lsp diff` of two revisions of a 10,000-test 4.x repository against `agentv-lsp check`
of one revision (target: the diff within 2.5x the check).

Usage: python benchmarks/bench_diff.py [--cases N] [--files K] [--repeat R]
       python benchmarks/bench_diff.py --repo-files 20000 [--large-mib M] [--cases N] [--files K]
       python benchmarks/bench_diff.py --history CLONE BASE HEAD [--repeat R]

The repository is benchmarks/make_workload_v4.py's (10,000 tests in 100 files by default),
committed, then changed (the snippet most eval files inline edited, one test's criteria edited in
10 files) and committed again. Three diffs are timed: that change, the same with --full (every
eval file previewed, every test's tokens counted) and a change that reaches every file (the
suite-level grader prompt file edited). Commands run as whole processes, in turns; medians of the
wall time, and of the processor time of each command with the processes it started.

With --repo-files T the repository also holds unrelated files (T in all: source files of a few
KB, as in a real repository, and with --large-mib one unrelated file of M MiB) and the change is
one line of one eval file: `diff` between the two commits and against the working tree, timed
against `check .` of the same tree, with each command's peak RSS (target: diff within 2x check,
and memory that does not grow with the unrelated files).

With --history a real repository's history: `diff BASE HEAD` in a clone of it (checked out at
HEAD) against `check .` of that one revision, e.g. AgentV's own v4.0.0..v4.42.4 (target: 2x).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workloads import peak_rss_of

HERE = Path(__file__).resolve().parent
GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout


def build(root: Path, cases: int, files: int) -> tuple[str, str, str]:
    subprocess.run(
        [
            sys.executable,
            str(HERE / "make_workload_v4.py"),
            str(root),
            "--cases",
            str(cases),
            "--files",
            str(files),
            "--force",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    os.rmdir(root / ".git")  # the workload's marker folder: a real repository instead
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    # the snippet that the most eval files inline changes (the change reaches those files)
    texts = [p.read_text() for p in (root / "evals").glob("*.eval.yaml")]
    snippets = sorted((root / "evals" / "snippets").iterdir())
    shared = max(snippets, key=lambda p: (sum(p.name in t for t in texts), p.name))
    shared.write_text(shared.read_text() + "\n# one more line\n")
    for path in sorted((root / "evals").glob("*.eval.yaml"))[:10]:
        text = path.read_text()
        path.write_text(text.replace("criteria:", "criteria: (edited)", 1))
    git(root, "commit", "-qam", "head")
    head = git(root, "rev-parse", "HEAD").strip()
    rubric = root / "evals" / "judges" / "rubric.md"
    rubric.write_text(rubric.read_text() + "\nBe strict.\n")
    git(root, "commit", "-qam", "everywhere")
    return base, head, git(root, "rev-parse", "HEAD").strip()


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time, and the processor time of the command and every process it started (on a
    machine other work shares, the steadier figure of the two)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build_large(root: Path, cases: int, files: int, total: int, large_mib: int) -> tuple[str, str]:
    """The workload plus unrelated files up to `total`, committed; then one line of one eval file
    changed and committed (left in the working tree too: HEAD~1..working tree is the change)."""
    maker = [sys.executable, str(HERE / "make_workload_v4.py"), str(root)]
    subprocess.run(
        [*maker, "--cases", str(cases), "--files", str(files), "--force"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    os.rmdir(root / ".git")
    present = sum(1 for p in root.rglob("*") if p.is_file())
    for n in range(max(total - present, 0)):
        folder = root / "src" / f"pkg{n // 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def function_{n}_{i}(x):\n    return x * {i}\n\n" for i in range(40))
        (folder / f"module_{n:05d}.py").write_text(body)
    if large_mib:
        with open(root / "assets.bin", "wb") as handle:
            chunk = os.urandom(1 << 20)
            for _ in range(large_mib):
                handle.write(chunk)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    first = sorted((root / "evals").glob("*.eval.yaml"))[0]
    first.write_text(first.read_text().replace("criteria:", "criteria: (one line edited)", 1))
    git(root, "commit", "-qam", "one line")
    return base, git(root, "rev-parse", "HEAD").strip()


def main_large(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as scratch:
        root = Path(scratch) / "repo"
        base, head = build_large(root, args.cases, args.files, args.repo_files, args.large_mib)
        files = len(git(root, "ls-files", "-z").split("\0")) - 1
        cli = [sys.executable, "-m", "agentv_lsp"]
        commands = {
            "check .": [*cli, "check", "."],
            "diff base head": [*cli, "diff", base, head, "--format", "json"],
            "diff base (work tree)": [*cli, "diff", base, "--format", "json"],
        }
        runs: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                runs[name].append(timed(command, root)[0])
        check = statistics.median(runs["check ."])
        extra = f", one unrelated file of {args.large_mib} MiB" if args.large_mib else ""
        print(
            f"{files:,} files ({args.cases:,} tests in {args.files} eval files{extra}), one line of one eval file"
        )
        print(f"changed; {args.repeat} runs each (medians), peak RSS of one run")
        for name, command in commands.items():
            wall = statistics.median(runs[name])
            rss = peak_rss_of(command, root)
            print(f"{name + ':':<24}{wall:6.2f} s  {wall / check:5.2f}x check   peak RSS {rss:7.1f} MiB")
        print("target: diff within 2x the check of the same tree")


def main_history(args: argparse.Namespace) -> None:
    clone, base, head = Path(args.history[0]).resolve(), args.history[1], args.history[2]
    cli = [sys.executable, "-m", "agentv_lsp"]
    commands = {
        "check .": [*cli, "check", "."],
        f"diff {base} {head}": [*cli, "diff", base, head, "--format", "json"],
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            runs[name].append(timed(command, clone))
    check = statistics.median(w for w, _ in runs["check ."])
    check_cpu = statistics.median(c for _, c in runs["check ."])
    files = len(git(clone, "ls-files", "-z").split("\0")) - 1
    print(
        f"{clone.name}: {files:,} files at the checkout; {args.repeat} runs each (medians), peak RSS of one run"
    )
    for name, command in commands.items():
        wall = statistics.median(w for w, _ in runs[name])
        cpu = statistics.median(c for _, c in runs[name])
        rss = peak_rss_of(command, clone)
        print(
            f"{name + ':':<28}{wall:6.2f} s  {wall / check:5.2f}x check   (processor time {cpu:5.2f} s,"
            f" {cpu / check_cpu:5.2f}x)   peak RSS {rss:7.1f} MiB"
        )
    print("target: the diff of the history within 2x the check of one revision")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--repo-files", type=int, default=0, help="a repository of this many files, one line changed"
    )
    parser.add_argument(
        "--large-mib", type=int, default=0, help="with --repo-files: one unrelated file of M MiB"
    )
    parser.add_argument(
        "--history", nargs=3, metavar=("CLONE", "BASE", "HEAD"), help="diff BASE HEAD in a real clone"
    )
    args = parser.parse_args()
    if args.history:
        main_history(args)
        return
    if args.repo_files:
        main_large(args)
        return
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as scratch:
        root = Path(scratch) / "repo"
        base, head, everywhere = build(root, args.cases, args.files)
        cli = [sys.executable, "-m", "agentv_lsp"]
        runs: dict[str, list[tuple[float, float]]] = {
            "check": [],
            "diff": [],
            "diff --full": [],
            "diff (all files reached)": [],
        }
        for _ in range(args.repeat):
            runs["check"].append(timed([*cli, "check", "evals"], root))
            runs["diff"].append(timed([*cli, "diff", base, head, "--format", "json"], root))
            runs["diff --full"].append(timed([*cli, "diff", base, head, "--format", "json", "--full"], root))
            runs["diff (all files reached)"].append(
                timed([*cli, "diff", head, everywhere, "--format", "json"], root)
            )
        check = statistics.median(w for w, _ in runs["check"])
        check_cpu = statistics.median(c for _, c in runs["check"])
        print(f"{args.cases:,} tests in {args.files} files, {args.repeat} runs each (medians)")
        for name, times in runs.items():
            wall = statistics.median(w for w, _ in times)
            cpu = statistics.median(c for _, c in times)
            print(
                f"{name + ':':<28}{wall:6.2f} s  {wall / check:5.2f}x check"
                f"   (processor time {cpu:5.2f} s, {cpu / check_cpu:5.2f}x)"
            )
        print("target: diff within 2.5x the check of one revision")


if __name__ == "__main__":
    main()
