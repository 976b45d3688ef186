"""The differential fuzzer (`yaml_differential.py`) for a bounded, repeatable run: a fixed seed
and a fixed number of generated texts, compared with eemeli/yaml 2.9.1 from the installed
package. Skips when the package or node is missing. Longer runs:

    AGENTV4_MODULES=... python -m tests.reliability.yaml_differential --seconds 300 --seed 1
"""

from __future__ import annotations

import json

import pytest
from tests.reliability.yaml_differential import run
from tests.yaml_suite.eemeli_live import live_unavailable

SEED = 20261126
TEXTS = 500


def test_generated_texts_read_as_the_runtime_reads_them() -> None:
    why = live_unavailable()
    if why:
        pytest.skip(why)
    done, found = run(seconds=120, at_seed=SEED, batch=300, max_texts=TEXTS, shrink_them=False)
    assert done == TEXTS
    new = {cls: f for cls, f in found.items() if not cls.startswith("left: ")}
    assert not new, "\n".join(
        f"{f.cls} ({f.count} texts), e.g. {json.dumps(f.example)}: eemeli {f.theirs}, ours {f.mine}"
        for f in new.values()
    )
