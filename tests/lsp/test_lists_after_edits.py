"""The code lens list and the outline of a large document after random edit sequences
(hypothesis, the edits of `test_v4_incremental`) equal what the server answers for a document
freshly opened with the same text, both formats: the per-test JSON kept across versions
(`lsp/listing.py`) never goes stale. Through a real server over stdio with a bare JSON-RPC
client (`rawrpc`): hypothesis drives it synchronously, and the responses are checked as bytes
(Content-Length) and JSON-RPC, not only as a typed client reads them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentv_lsp.lsp.listing import MAX_OUTLINE_SYMBOLS
from tests.lsp.rawrpc import RawClient, spawn
from tests.lsp.test_lens_outline_lists import v2_suite
from tests.lsp.test_v4_incremental import apply, edits, make_test

_names = itertools.count(1)


def v4_many() -> str:
    """More tests than the outline's limit: the outline comes from the text alone."""
    tests = "".join(f"  - id: t-{i}\n    criteria: Says {i}\n    input: Say {i}\n" for i in range(5050))
    return "description: Many\ntests:\n" + tests


BASES = {
    "v4": "description: A large suite\ntests:\n" + "".join(make_test(i) for i in range(540)),
    "v2": v2_suite(400),
    "v4 above the limit": v4_many(),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RawClient, Path]]:
    root = tmp_path_factory.mktemp("lists")
    (root / ".git").mkdir()
    (root / "evals").mkdir()
    process, client = spawn()
    client.initialize(root.as_uri())
    yield client, root / "evals"
    client.request("shutdown")
    client.notify("exit")
    process.wait(30)


class Document:
    """An open document edited as an editor does (incremental didChange); `apply` reads
    `.model.text` and calls `edit`."""

    def __init__(self, client: RawClient, folder: Path, text: str) -> None:
        self.client = client
        self.uri = (folder / f"doc{next(_names)}.eval.yaml").as_uri()
        self.text = text
        self.version = 1
        self.model = self
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": self.uri, "languageId": "yaml", "version": 1, "text": text}},
        )

    def position(self, offset: int) -> dict[str, int]:
        line_start = self.text.rfind("\n", 0, offset) + 1
        return {"line": self.text.count("\n", 0, offset), "character": offset - line_start}  # BMP text

    def edit(self, start: int, end: int, inserted: str) -> None:
        change = {"range": {"start": self.position(start), "end": self.position(end)}, "text": inserted}
        self.text = self.text[:start] + inserted + self.text[end:]
        self.version += 1
        self.client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [change]},
        )

    def lists(self) -> tuple[Any, Any]:
        """(lenses, outline), each a valid JSON-RPC response with a result."""
        out = []
        for method in ("textDocument/codeLens", "textDocument/documentSymbol"):
            reply = self.client.request(method, {"textDocument": {"uri": self.uri}}, timeout=120)
            assert set(reply) == {"jsonrpc", "id", "result"} and reply["jsonrpc"] == "2.0", reply
            out.append(reply["result"])
        self.client.notifications.clear()  # the diagnostics published meanwhile
        return out[0], out[1]

    def close(self) -> None:
        self.client.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})


def without_document_number(lenses: list[Any]) -> list[Any]:
    return [{**lens, "data": lens["data"][1:]} for lens in lenses]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_lists_after_random_edits_equal_a_fresh_documents(
    server: tuple[RawClient, Path], data: st.DataObject
) -> None:
    client, folder = server
    base = data.draw(st.sampled_from(sorted(BASES)))
    edited = Document(client, folder, BASES[base])
    edited.lists()  # the first version's lists: what later versions start from
    for step in data.draw(edits(edited.text)):
        apply(edited, *step)  # type: ignore[arg-type]
        lenses, outline = edited.lists()
    fresh = Document(client, folder, edited.text)
    fresh_lenses, fresh_outline = fresh.lists()
    assert without_document_number(lenses) == without_document_number(fresh_lenses)
    assert outline == fresh_outline
    # the lenses are on each item's line; above the limit the outline has no children
    if base == "v4 above the limit" and len(outline) > MAX_OUTLINE_SYMBOLS:
        assert not any("children" in symbol for symbol in outline)
    for document in (edited, fresh):
        document.close()


def test_the_first_lists_follow_the_items_of_the_text(server: tuple[RawClient, Path]) -> None:
    """Against the text itself: three lenses on each item's line, one symbol per test named by
    its id (above the limit: from the text, no children)."""
    client, folder = server
    for base, text in BASES.items():
        document = Document(client, folder, text)
        lenses, outline = document.lists()
        lines = text.split("\n")
        items = [n for n, line in enumerate(lines) if line.startswith("  - id: ")]
        assert [lens["range"]["start"]["line"] for lens in lenses[::3]] == items, base
        assert [lens["data"][1:] for lens in lenses[:3]] == [[0, 0], [0, 2], [0, 1]]
        assert [symbol["name"] for symbol in outline] == [lines[n][8:] for n in items], base
        assert ("children" in outline[0]) == (base != "v4 above the limit"), base
        document.close()


@pytest.mark.parametrize("base", sorted(BASES))
def test_lists_after_edits_that_move_the_tests_below(server: tuple[RawClient, Path], base: str) -> None:
    """Edits that move every test below them (a comment line, a test added or removed), one
    that renames an id, and one at the first test: each version equals a fresh document's."""
    client, folder = server
    edited = Document(client, folder, BASES[base])
    edited.lists()

    def item(k: int) -> int:  # offset of the k-th item's `- id: ` (negative: from the end)
        starts = [n for n in range(len(edited.text)) if edited.text.startswith("\n  - id: ", n)]
        return starts[k] + 1

    steps = [
        lambda: edited.edit(item(7) + len("  - id: t-7"), item(7) + len("  - id: t-7"), "\n    # note"),
        lambda: edited.edit(item(3), item(3), "  - id: added\n    criteria: New\n    input: Hi\n"),
        lambda: edited.edit(item(9), item(10), ""),
        lambda: edited.edit(item(-2) + 8, item(-2) + 8, "renamed-"),
        lambda: edited.edit(item(0) + 8, item(0) + 8, "first-"),
    ]
    for step in steps:
        step()
        lenses, outline = edited.lists()
        fresh = Document(client, folder, edited.text)
        fresh_lenses, fresh_outline = fresh.lists()
        fresh.close()
        assert without_document_number(lenses) == without_document_number(fresh_lenses)
        assert outline == fresh_outline
    edited.close()


def test_cancelled_and_bad_requests_are_still_answered(server: tuple[RawClient, Path]) -> None:
    """A list request cancelled at once gets its result or RequestCancelled (-32800), bad
    params InvalidParams (-32602); the server answers the next request as before."""
    client, folder = server
    document = Document(client, folder, BASES["v4 above the limit"])
    for method in ("textDocument/codeLens", "textDocument/documentSymbol"):
        client.send(
            {"id": f"cancel-{method}", "method": method, "params": {"textDocument": {"uri": document.uri}}}
        )
        client.notify("$/cancelRequest", {"id": f"cancel-{method}"})
        reply = client.wait(lambda m, method=method: m.get("id") == f"cancel-{method}", timeout=120)
        assert ("result" in reply) != ("error" in reply), reply
        if "error" in reply:
            assert reply["error"]["code"] == -32800
        bad = client.request(method, {"textDocument": 5})
        assert bad["error"]["code"] == -32602 and "result" not in bad
    lenses, outline = document.lists()
    assert len(lenses) == 3 * 5050 and len(outline) == 5050
    document.close()
