"""The mutation differential (`yaml_mutations.py`) for a bounded, repeatable run: real texts
mutated at the scanner's corners with a fixed seed, compared with eemeli/yaml 2.9.1 from the
installed package. Skips when the package or node is missing. Longer runs:

    AGENTV4_MODULES=... python -m tests.reliability.yaml_mutations --texts 5000 --seed 2
"""

from __future__ import annotations

import json

import pytest
from tests.reliability.yaml_mutations import MUTATIONS, mutants, run, sources
from tests.yaml_suite.eemeli_live import live_unavailable

SEED = 20261129
TEXTS = 1000


def test_mutants_read_as_the_runtime_reads_them() -> None:
    why = live_unavailable()
    if why:
        pytest.skip(why)
    done, agree, found = run(TEXTS, SEED, shrink_them=False)
    assert done == TEXTS
    new = {cls: f for cls, f in found.items() if not cls.startswith("left: ")}
    assert not new, "\n".join(
        f"{f.cls} ({f.count} texts), e.g. {json.dumps(f.example)}: eemeli {f.theirs}, ours {f.mine}"
        for f in new.values()
    )
    assert agree >= TEXTS * 0.99  # the classes left alone stay rare


def test_mutants_are_repeatable_and_reach_every_corner() -> None:
    pool = sources()
    assert len(pool) > 400  # the suite's inputs and the goldens at least
    assert mutants(50, 7, pool) == mutants(50, 7, pool)
    texts = mutants(2000, 7, pool)
    assert sum(text not in pool for text in texts) > 1900  # nearly every text is mutated
    for corner in ("\t", "\r", "\ufeff", "%YAML", "\n...", "<<:", "? ", "!!"):
        assert any(corner in text for text in texts), corner
    assert len(MUTATIONS) >= 15
