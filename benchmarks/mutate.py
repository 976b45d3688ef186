"""Mutation testing of one module: do the tests that cover it fail when its code is wrong?

    python benchmarks/mutate.py server/agentv_lsp/report/__init__.py -n 40 \\
        -t tests/unit/test_report_truncation.py tests/unit/test_checks_report.py

Each mutant is one small change to the module's syntax tree: a comparison flipped (`<` to `>=`,
`==` to `!=`, `in` to `not in`...), `and` to `or` and back, an integer constant off by one, a
statement dropped (made `pass`), an `if`/`while`/ternary condition negated. `-n` mutants are drawn
at random (`--seed`), each written into a copy of `server/` in a temporary folder (the worktree is
never touched) and the tests run against it (`PYTHONPATH`, inherited by a spawned server):
a failing run kills the mutant, a run past `--timeout` seconds too. Without `-t`, the tests are
the files under tests/ that name the module. Prints each survivor (line, change) and the kill
score; exit 1 when the unmutated module already fails its tests. Surviving mutants are either a
missing test or equivalent (no behaviour changes): read each.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / "server"

_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_DROPPABLE = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Continue,
    ast.Break,
)


@dataclass(frozen=True)
class Mutant:
    index: int  # the node's position in ast.walk order
    kind: str
    line: int
    change: str


def _is_docstring(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    parent = parents.get(node)
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and isinstance(parent, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )


def mutants_of(tree: ast.Module) -> list[Mutant]:
    """Every mutation point of the module (`kind` says which change applies to node `index`)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[Mutant] = []
    for index, node in enumerate(ast.walk(tree)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                if type(op) in _FLIPPED:
                    after = _FLIPPED[type(op)].__name__
                    found.append(
                        Mutant(index, f"compare:{position}", line, f"{type(op).__name__} -> {after}")
                    )
        elif isinstance(node, ast.BoolOp):
            found.append(Mutant(index, "boolop", line, "and <-> or"))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            found.append(Mutant(index, "plus-one", line, f"{node.value} -> {node.value + 1}"))
            found.append(Mutant(index, "minus-one", line, f"{node.value} -> {node.value - 1}"))
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            found.append(Mutant(index, "negate", line, f"not ({ast.unparse(node.test)[:60]})"))
        if isinstance(node, _DROPPABLE) and not _is_docstring(node, parents):
            found.append(Mutant(index, "drop", line, f"drop `{ast.unparse(node).splitlines()[0][:60]}`"))
    return found


class _Apply(ast.NodeTransformer):
    def __init__(self, mutant: Mutant, nodes: list[ast.AST]) -> None:
        self.target = nodes[mutant.index]
        self.kind = mutant.kind

    def visit(self, node: ast.AST) -> ast.AST:
        if node is not self.target:
            return self.generic_visit(node)
        if self.kind.startswith("compare:") and isinstance(node, ast.Compare):
            position = int(self.kind.split(":")[1])
            node.ops[position] = _FLIPPED[type(node.ops[position])]()
        elif self.kind == "boolop" and isinstance(node, ast.BoolOp):
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif self.kind in ("plus-one", "minus-one") and isinstance(node, ast.Constant):
            node.value += 1 if self.kind == "plus-one" else -1
        elif self.kind == "negate" and isinstance(node, ast.If | ast.While | ast.IfExp):
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif self.kind == "drop":
            return ast.copy_location(ast.Pass(), node)
        return node


def mutated_source(tree: ast.Module, mutant: Mutant) -> str:
    fresh = copy.deepcopy(tree)
    nodes = list(ast.walk(fresh))
    result = _Apply(mutant, nodes).visit(fresh)
    return ast.unparse(ast.fix_missing_locations(result))


def _tests_naming(module: Path) -> list[str]:
    dotted = ".".join(module.relative_to(SERVER).with_suffix("").parts).removesuffix(".__init__")
    names = {dotted, dotted.rsplit(".", 1)[0] + " import " + dotted.rsplit(".", 1)[1]}
    found = []
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(name in text for name in names):
            found.append(str(path.relative_to(REPO)))
    return found


def _run_tests(server_copy: Path, tests: list[str], timeout: float) -> str:
    """The run's outcome: "pass", "fail" or "timeout"."""
    # the copy first; server/ after it, so tests/conftest.py does not put server/ in front again
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(server_copy), str(SERVER)))}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    try:
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "pass" if done.returncode == 0 else "fail"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("module", help="a module under server/, e.g. server/agentv_lsp/checks/hidden_chars.py")
    parser.add_argument("-t", "--tests", nargs="+", help="test files or node ids (default: those naming it)")
    parser.add_argument("-n", "--count", type=int, default=40, help="mutants drawn (0: all)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per test run")
    args = parser.parse_args(argv)

    module = Path(args.module).resolve()
    if SERVER not in module.parents:
        parser.error(f"{args.module} is not under {SERVER}")
    tests = args.tests or _tests_naming(module)
    if not tests:
        parser.error("no test names the module: pass -t")
    tree = ast.parse(module.read_text(encoding="utf-8"))
    every = mutants_of(tree)
    drawn = every if args.count <= 0 else random.Random(args.seed).sample(every, min(args.count, len(every)))
    drawn.sort(key=lambda m: (m.line, m.index, m.kind))
    print(f"{module.relative_to(REPO)}: {len(drawn)} of {len(every)} mutants; tests: {' '.join(tests)}")

    with tempfile.TemporaryDirectory(prefix="agentv-mutate-") as temp:
        server_copy = Path(temp) / "server"
        shutil.copytree(SERVER, server_copy, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "schema", Path(temp) / "schema")  # found beside server/, as in the repo
        target = server_copy / module.relative_to(SERVER)
        started = time.monotonic()
        if _run_tests(server_copy, tests, args.timeout) != "pass":
            print("the unmutated module fails its tests: nothing to measure")
            return 1
        killed = 0
        for number, mutant in enumerate(drawn, 1):
            target.write_text(mutated_source(tree, mutant), encoding="utf-8")
            outcome = _run_tests(server_copy, tests, args.timeout)
            if outcome == "pass":
                print(f"  survived  line {mutant.line}: {mutant.change}")
            else:
                killed += 1
            print(f"  [{number}/{len(drawn)}] {killed} killed", end="\r", file=sys.stderr)
        shutil.copyfile(module, target)
    score = 100.0 * killed / len(drawn) if drawn else 100.0
    print(f"killed {killed} of {len(drawn)} mutants ({score:.1f}%) in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
