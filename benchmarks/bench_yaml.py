"""Benchmark the YAML layer (issue 24): what the exactness costs.

On the 4.x workloads (make_workload_v4.py: 2,000 and 10,000 tests in one file, 10,000 in 100
files), in-process CPU time (best of `--repeat`) of:
- `compose`: a bare `yaml.compose` with libyaml (C loader), the floor;
- `prescan`: `needs_eemeli_rules` on every text (what every parse pays to keep exactness);
- `parse_yaml`: the whole layer (libyaml, conversion to values, pre-scan);
- `exact`: `parse_yaml` with every text sent to the exact reader (`eemeli`), which only the texts
  libyaml refuses or may misread take (a tab opening a line of a block scalar, `%YAML 1.1`...);
- `reader`: the exact reader's node tree alone (`eemeli.compose`), what a libyaml compose makes.
Targets: the pre-scan a few per cent of `parse_yaml`; the workloads themselves never flagged;
the exact reader within 5x libyaml (issue 34). `exact/libyaml` and `reader/libyaml` are those
times over a bare libyaml compose of the same texts (`exact` also converts the tree to values,
eagerly, as `document` does for every exact tree).
`--tab` gives each text a tab opening one line of a block scalar (pasted Go code, a Makefile),
the commonest reason a real eval file goes to the exact reader (libyaml refuses such a text;
`compose` is then libyaml's time on the texts without the tab).

The flow-nesting family (issue 34, `--nesting`): lines of `[[…x…]]` under `%YAML 1.2` (the
exact reader's), at a fixed size with the depth growing (25 to 800 at 200 KB) and at a fixed
depth with the size growing (to 1 MB): CPU time of the exact reader alone, of `parse_yaml`
(with its depth guard), and of libyaml. Targets: the time at depth 800 within 1.5x of depth 25,
and linear in size.
Run: python benchmarks/bench_yaml.py [--repeat N] [--no-exact] [--tab] [--nesting]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.reliability.hostile_families import nested_flow_text

from _workloads import eval_files, workload_v4

ROWS = [(2000, 1), (10000, 1), (10000, 100)]
# (KB, depth): the depth grows at 200 KB, then the size at depth 25 and 200
NESTING = [(200, 25), (200, 100), (200, 400), (200, 800), (100, 25), (400, 25), (1000, 25), (1000, 200)]


def best_cpu(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measure (the best is kept)")
    parser.add_argument("--no-exact", action="store_true", help="skip the (slow) exact reader alone")
    parser.add_argument("--nesting", action="store_true", help="only the flow-nesting family")
    parser.add_argument("--tab", action="store_true", help="a tab opening a block scalar line in each text")
    args = parser.parse_args()
    if args.nesting:
        nesting(args.repeat)
        return

    import yaml

    import agentv_lsp.yamlpos.document as document
    from agentv_lsp.yamlpos import eemeli, parse_yaml
    from agentv_lsp.yamlpos.prescan import needs_eemeli_rules

    print(f"{'workload':<16}{'MB':>6}{'flagged':>9}{'compose s':>11}{'prescan s':>11}{'parse s':>9}"
          f"{'prescan %':>11}{'exact s':>9}{'reader s':>10}{'exact/libyaml':>15}{'reader/libyaml':>16}")  # fmt: skip
    for cases, files in ROWS:
        texts = [p.read_text(encoding="utf-8") for p in eval_files(workload_v4(cases, files))]
        floor_texts = texts  # (libyaml refuses the texts with a tab: the floor is without it)
        if args.tab:
            texts = [with_a_tab(t) for t in texts]
        size = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        flagged = sum(needs_eemeli_rules(t) for t in texts)
        gc.disable()
        try:
            compose = best_cpu(
                lambda ts=floor_texts: [yaml.compose(t, Loader=yaml.CSafeLoader) for t in ts], args.repeat
            )
            prescan = best_cpu(lambda ts=texts: [needs_eemeli_rules(t) for t in ts], args.repeat)
            parse = best_cpu(lambda ts=texts: [parse_yaml(t) for t in ts], args.repeat)
            exact = reader = float("nan")
            if not args.no_exact:
                reader = best_cpu(lambda ts=texts: [eemeli.compose(t) for t in ts], args.repeat)
                real = document.needs_eemeli_rules
                document.needs_eemeli_rules = lambda text: True  # type: ignore[assignment]
                try:
                    exact = best_cpu(lambda ts=texts: [parse_yaml(t) for t in ts], args.repeat)
                finally:
                    document.needs_eemeli_rules = real
        finally:
            gc.enable()
        name = f"v4w{cases}" + (f"x{files}" if files > 1 else "")
        print(
            f"{name:<16}{size:>6.1f}{flagged:>9}{compose:>11.3f}{prescan:>11.3f}{parse:>9.3f}"
            f"{100 * prescan / parse:>10.1f}%{exact:>9.2f}{reader:>10.2f}{exact / compose:>14.1f}x"
            f"{reader / compose:>15.1f}x"
        )


def with_a_tab(text: str) -> str:
    """`text` with a tab opening the first line of its first `|` block scalar."""
    header = text.find(": |")
    line = text.find("\n", header) + 1
    if header < 0 or line == 0:
        return text
    indent = len(text[line:]) - len(text[line:].lstrip(" "))
    return text[: line + indent] + "\t" + text[line + indent :]


def nesting(repeat: int) -> None:
    import yaml

    from agentv_lsp.yamlpos import eemeli, parse_yaml

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))  # libyaml's composer, 800 deep
    print(f"{'KB':>6}{'depth':>7}{'exact s':>9}{'parse s':>9}{'libyaml s':>11}{'exact/libyaml':>15}{'exact us/char':>15}")
    for kb, depth in NESTING:
        text = nested_flow_text(kb * 1000, depth)
        gc.disable()
        try:
            exact = best_cpu(lambda t=text: eemeli.compose(t), repeat)
            parse = best_cpu(lambda t=text: parse_yaml(t), repeat)
            libyaml = best_cpu(lambda t=text: yaml.compose(t, Loader=yaml.CSafeLoader), repeat)
        finally:
            gc.enable()
        print(
            f"{kb:>6}{depth:>7}{exact:>9.2f}{parse:>9.2f}{libyaml:>11.3f}{exact / libyaml:>14.1f}x"
            f"{exact / len(text) * 1e6:>15.2f}"
        )


if __name__ == "__main__":
    main()
