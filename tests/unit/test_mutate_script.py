"""benchmarks/mutate.py, the mutation-testing script: every mutant it draws is one real change
that compiles, and each kind of change is found where the code offers it."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCE = '''\
"""A docstring is never dropped."""
def f(a, b):
    if a < 1 and b is not None:
        total = a + 2
        return total
    return 0 if b in (1, 2) else -1
'''


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("mutate", REPO / "benchmarks" / "mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutate", module)  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _run(source: str, a: object, b: object) -> object:
    scope: dict[str, object] = {}
    exec(compile(source, "<mutant>", "exec"), scope)
    return scope["f"](a, b)  # type: ignore[operator]


def test_each_mutant_is_one_compiling_change_of_the_code() -> None:
    mutate = _script()
    tree = ast.parse(SOURCE)
    mutants = mutate.mutants_of(tree)
    kinds = {m.kind.split(":")[0] for m in mutants}
    assert kinds == {"compare", "boolop", "plus-one", "minus-one", "negate", "drop"}
    assert not any(m.kind == "drop" and "docstring" in m.change for m in mutants)
    original = ast.unparse(tree)
    behaviours = set()
    for mutant in mutants:
        source = mutate.mutated_source(tree, mutant)
        assert source != original, mutant
        compile(source, "<mutant>", "exec")
        try:
            behaviours.add((mutant, tuple(_run(source, a, b) for a, b in ((0, 1), (0, None), (5, 3)))))
        except Exception:  # a mutant may crash: that is a change too
            behaviours.add((mutant, "raised"))
    unchanged = tuple(_run(SOURCE, a, b) for a, b in ((0, 1), (0, None), (5, 3)))
    assert unchanged == (2, -1, -1)
    # most mutants change what the function returns on these three calls
    changed = [m for m, seen in behaviours if seen != unchanged]
    assert len(changed) >= len(mutants) * 2 // 3
    assert ast.unparse(ast.parse(SOURCE)) == original  # the tree itself is never mutated
