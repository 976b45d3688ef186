"""The hover's token line on a test inlining a 4 MB file: the first hover answers in under a
second (counting never blocks it), and the count it shows, once known, is the exact one."""

from __future__ import annotations

import base64
import random
import time
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient

from agentv_lsp.engine import tokens
from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v4.preview import preview_v4
from agentv_lsp.lsp.markdown import tokens_phrase
from tests.lsp.conftest import (
    SERVER,
    accept_registrations,
    eventually,
    init_params,
    open_doc,
    pos,
    write_repo,
)
from tests.lsp.test_hover import hover_text

pytestmark = pytest.mark.asyncio(loop_scope="module")

SUITE = """\
tests:
  - id: big
    criteria: reads the file
    input:
      - role: user
        content:
          - type: text
            value: Summarise this file
          - type: file
            value: big.txt
"""
# A file no cache has seen: 4 MB of base64 lines (unique pieces: the slowest text per byte to count)
_BASE64 = base64.b64encode(random.Random(38).randbytes(3_000_000)).decode()
BIG = "\n".join(_BASE64[i : i + 76] for i in range(0, len(_BASE64), 76))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_repo(
        tmp_path_factory.mktemp("tokens") / "ws", {"evals/big.txt": BIG, "evals/s.eval.yaml": SUITE}
    )


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, repo: Path):  # type: ignore[no-untyped-def]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(init_params(repo))
    yield
    await lsp_client.shutdown_session()


async def test_the_first_hover_on_a_test_inlining_4_mb_answers_within_a_second(
    client: LanguageClient, repo: Path
) -> None:
    uri = open_doc(client, repo / "evals" / "s.eval.yaml")
    at = pos(SUITE, "id: big", 5)
    # the server's first hover (imports, the document's model) on a key: no test, nothing counted
    assert await hover_text(client, uri, pos(SUITE, "criteria", 2)) is not None
    started = time.perf_counter()
    first = await hover_text(client, uri, at)
    elapsed = time.perf_counter() - started
    assert first is not None and "Summarise this file" in first
    assert elapsed < 1.0, f"first hover took {elapsed:.2f} s"

    async def counted() -> str | None:
        text = await hover_text(client, uri, at)
        return text if text is not None and "to the candidate" in text else None

    shown = await eventually(counted, interval=0.2)
    # exact: the engine's own preview of the test, counted in this process
    preview = preview_v4(str(repo / "evals" / "s.eval.yaml"), str(repo), str(repo), FileSystem())
    expected = tokens.case_tokens(preview["cases"][0])
    assert expected["candidate"] > tokens.count(BIG)  # the file and the text around it
    assert tokens_phrase(expected) in shown.splitlines()[0]  # on the glance line
