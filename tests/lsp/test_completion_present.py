"""Key completion leaves out the keys the mapping already has (issue 27), in both formats; the
keys offered elsewhere in the file stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.lsp.conftest import EVAL
from tests.lsp.test_completion import complete

pytestmark = pytest.mark.asyncio(loop_scope="module")

V4 = """\
description: d
tests:
  - id: first
    criteria: c
    ‸
    input: q
  - id: second
    input: q
"""
V4_SECOND = """\
tests:
  - id: first
    criteria: c
    input: q
  - id: second
    ‸
    input: q
"""


async def test_a_4x_test_is_not_offered_its_own_keys(client: LanguageClient, repo: Path) -> None:
    offered = await complete(client, repo, V4)
    assert {"expected_output", "assertions"} <= set(offered)
    assert not {"id", "criteria", "input"} & set(offered)
    # the next test's keys are its own: it is offered `criteria`, not its `id`
    second = await complete(client, repo, V4_SECOND)
    assert "criteria" in second and "id" not in second


async def test_a_v2_case_is_not_offered_its_own_keys(client: LanguageClient, repo: Path) -> None:
    text = EVAL.replace(
        "  - id: flat-one\n    outcome: Answer.\n", "  - id: flat-one\n    outcome: Answer.\n    ‸\n"
    )
    offered = await complete(client, repo, text)
    assert "expected_messages" in offered
    assert not {"id", "outcome", "input_messages"} & set(offered)
