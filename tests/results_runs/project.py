"""A small AgentV 4.42.4 project whose runs the results tests read, and the runner that records
them with the real runtime (`agentv eval run` against a `mock` target: offline, no key).

`python -m tests.results_runs.project record` (with AGENTV4_MODULES set) re-records
`recorded/`: the project, then two runs made by the runtime itself. The tests read that
folder (no node needed) and, where the runtime is installed, make fresh runs the same way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded"

FILES = {
    ".agentv/targets.yaml": "targets:\n  - name: default\n    provider: mock\n    response: Paris\n",
    "evals/geo.eval.yaml": (
        "description: capitals\n"
        "tests:\n"
        "  - id: capital\n"
        "    input: What is the capital of France?\n"
        "    criteria: names Paris\n"
        "    assertions:\n"
        "      - type: contains\n"
        "        value: Paris\n"
        "  - id: failing\n"
        "    input: What is the capital of Spain?\n"
        "    criteria: names Madrid\n"
        "    assertions:\n"
        "      - type: contains\n"
        "        value: Madrid\n"
        "  - id: never-run\n"
        "    input: Say hi\n"
        "    criteria: says hi\n"
    ),
    "evals/snip.py": "def answer():\n    return 42\n",
    "evals/files.eval.yaml": (
        "description: files and turns\n"
        "tests:\n"
        "  - id: with-file\n"
        "    input:\n"
        "      - role: system\n"
        "        content: You are a reviewer.\n"
        "      - role: user\n"
        "        content:\n"
        "          - type: text\n"
        "            value: Review this\n"
        "          - type: file\n"
        "            value: ./snip.py\n"
        "    criteria: reviews the code\n"
        "    assertions:\n"
        "      - type: contains\n"
        "        value: Paris\n"
        "  - id: conversation\n"
        "    input:\n"
        "      - role: user\n"
        "        content: hello\n"
        "      - role: assistant\n"
        "        content: hi there\n"
        "      - role: user\n"
        "        content: what is 2+2?\n"
        "    criteria: says 4\n"
        "    assertions:\n"
        "      - type: contains\n"
        "        value: '4'\n"
    ),
}

# (eval file, test ids or None for all): one run each, in this order
RUNS = (("evals/geo.eval.yaml", ("capital", "failing")), ("evals/files.eval.yaml", None))


def agentv_command(modules: str) -> list[str]:
    return ["node", str(Path(modules) / "agentv" / "dist" / "cli.js")]


def write_project(root: Path) -> None:
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    # the runtime records eval paths relative to the git root
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def run_eval(root: Path, modules: str, eval_file: str, test_ids: tuple[str, ...] | None) -> None:
    command = [*agentv_command(modules), "eval", "run", eval_file, "--target", "default"]
    for test_id in test_ids or ():
        command += ["--test-id", test_id]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC", "AZURE"))}
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=300, env=env)
    if not (root / ".agentv" / "results" / "runs").is_dir():
        raise RuntimeError(f"agentv eval run wrote no run: {done.stdout[-2000:]}{done.stderr[-2000:]}")


def make_runs(root: Path, modules: str) -> None:
    write_project(root)
    for eval_file, test_ids in RUNS:
        run_eval(root, modules, eval_file, test_ids)
    shutil.rmtree(root / ".git")
    (root / ".agentv" / "cache.json").unlink(missing_ok=True)


def main() -> int:
    if sys.argv[1:] != ["record"]:
        print("usage: python -m tests.results_runs.project record", file=sys.stderr)
        return 2
    modules = os.environ.get("AGENTV4_MODULES")
    if not modules:
        print("AGENTV4_MODULES is not set (tests/oracle_v4/install.sh)", file=sys.stderr)
        return 2
    shutil.rmtree(RECORDED, ignore_errors=True)
    make_runs(RECORDED, modules)
    print(f"recorded {RECORDED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
