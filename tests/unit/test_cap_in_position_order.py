"""The cap of a check's JSON diagnostics (already in position order) picks, without sorting,
exactly what `select_capped` picks (errors first, then by position)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentv_lsp.checks.model import select_capped
from agentv_lsp.lsp.convert import _in_position_order

SEVERITIES = st.sampled_from(["error", "warning", "information", "hint"])
KEYS = st.lists(st.tuples(SEVERITIES, st.integers(0, 12), st.integers(0, 3)), min_size=2, max_size=80)


@given(keys=KEYS, data=st.data())
def test_the_cap_of_keys_in_position_order_equals_select_capped(
    keys: list[tuple[str, int, int]], data: st.DataObject
) -> None:
    ordered = sorted(keys, key=lambda k: k[1:])
    limit = data.draw(st.integers(1, len(ordered) - 1))
    assert _in_position_order(ordered, limit) == select_capped(ordered, limit)


@given(keys=KEYS)
def test_keys_out_of_position_order_are_left_to_select_capped(keys: list[tuple[str, int, int]]) -> None:
    if sorted(keys, key=lambda k: k[1:]) != keys:
        assert _in_position_order(keys, 1) is None
