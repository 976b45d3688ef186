"""`publication`: what a publishDiagnostics shows, built from placed parts (JSON only for the
diagnostics shown), equals `convert.cap_json` over all the parts' JSON in order: on random
parts (hypothesis), and on both formats' incremental models after random edits."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, check_document
from agentv_lsp.formats.v4.check import check_v4_document
from agentv_lsp.lsp import publication
from agentv_lsp.lsp.convert import JsonDict, cap_json, diagnostic_json
from agentv_lsp.lsp.publication import Blocks, Placed, all_items
from agentv_lsp.lsp.server import create_server
from agentv_lsp.lsp.v2.diagnostics import diagnostic_parts
from agentv_lsp.lsp.v2.model import FileModel, UnitCache
from agentv_lsp.lsp.v4.incremental import History, incremental
from tests.evalgen import generate
from tests.lsp.conftest import write_repo
from tests.lsp.test_v2_model import random_edit
from tests.lsp.test_v4_incremental import Editor, edit, write_big_repo

HOW = "the agentv.maxDiagnosticsPerFile setting"


def capped(items: list[JsonDict], limit: int, path: str = "/w/a.eval.yaml") -> list[JsonDict]:
    return cap_json(items, limit, path, HOW)


def shown(parts: list[Placed], limit: int, path: str = "/w/a.eval.yaml") -> list[JsonDict]:
    return [json.loads(s) for s in publication.shown(parts, limit, path, HOW)]


def item(severity: int, line: int, character: int, n: int) -> JsonDict:
    position = {"line": line, "character": character}
    return {
        "range": {"start": position, "end": position},
        "message": f"m{n} \u00e9\u2028",
        "severity": severity,
        "code": f"c{n % 3}",
        "source": "agentv",
        "data": {"path": f"tests[{n}]"},
    }


keys = st.tuples(st.integers(1, 4), st.integers(0, 40), st.integers(0, 5))


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.lists(keys, max_size=6), max_size=8),
    order=st.sampled_from(["file", "each part", "none"]),
    lazy=st.lists(st.booleans(), min_size=8, max_size=8),
    limit=st.integers(0, 12),
)
def test_shown_equals_cap_json_of_all_the_parts(
    parts: list[list[tuple[int, int, int]]], order: str, lazy: list[bool], limit: int
) -> None:
    if order == "file":  # a check's output: position order (taken part after part)
        flat = sorted(k[1:] for part in parts for k in part)
        it = iter(flat)
        parts = [[(k[0], *next(it)) for k in part] for part in parts]
    elif order == "each part":  # v2's cases and then the file's own: merged by position
        parts = [sorted(part, key=lambda k: k[1:]) for part in parts]
    n = 0
    items_of: list[list[JsonDict]] = []
    for part in parts:
        items_of.append([item(*k, n + i) for i, k in enumerate(part)])
        n += len(part)
    placed = [
        Placed(
            [(i["severity"], i["range"]["start"]["line"], i["range"]["start"]["character"]) for i in items],
            items.__getitem__,
        )
        if lazy[k]
        else Placed.of_items(items)
        for k, items in enumerate(items_of)
    ]
    everything = [i for items in items_of for i in items]
    assert all_items(placed) == everything
    assert shown(placed, limit) == capped(everything, limit)
    assert publication.count(placed) == len(everything)


def test_the_message_is_the_notification_pygls_would_write() -> None:
    parts = [Placed.of_items([item(1, 3, 0, 0), item(3, 1, 2, 1)])]
    encoded = publication.shown(parts, 0, "/w/a.eval.yaml", HOW)
    for version in (7, None):
        body = publication.message("file:///w/a%20b.eval.yaml", version, encoded)
        assert body.isascii()
        want = {"uri": "file:///w/a%20b.eval.yaml", "diagnostics": all_items(parts)}
        if version is not None:
            want = {"uri": want["uri"], "version": version, "diagnostics": want["diagnostics"]}
        assert json.loads(body) == {
            "jsonrpc": "2.0",
            "method": "textDocument/publishDiagnostics",
            "params": want,
        }


@pytest.mark.parametrize("limit", [0, 3, 40, 1000])
def test_v4_publications_equal_the_capped_whole_text_check(tmp_path: Path, limit: int) -> None:
    """The 540-test file under random valid edits: every version answered incrementally, and
    what it shows equals the cap applied to the whole-text check's JSON."""
    path = write_big_repo(tmp_path / "repo")
    rng = random.Random(limit)
    editor = Editor(path, path.read_text())
    editor.check()
    blocks = Blocks()  # kept from version to version, as the server keeps them
    for n in range(8):
        text = edit(rng, editor.model.text, n)
        old = editor.model.text
        start = next(k for k in range(min(len(old), len(text))) if old[k] != text[k])
        tail = 0
        while tail < min(len(old), len(text)) - start and old[-1 - tail] == text[-1 - tail]:
            tail += 1
        editor.edit(start, len(old) - tail, text[start : len(text) - tail])
        model = editor.model
        checked = incremental(model, editor.history, 0)
        assert checked is not None, n
        editor.history.checked = checked
        exact = check_v4_document(str(path), model.text, model.opts)
        want = capped([diagnostic_json(d, model.line) for d in exact.diagnostics], limit, str(path))
        assert shown(checked.placed("utf-16", blocks), limit, str(path)) == want, n
    assert isinstance(editor.history, History)


# (seeds whose edits leave the file assembled case by case for most versions: some break a
# case for good, and every version is then checked whole)
@pytest.mark.parametrize(("limit", "seed"), [(0, 3), (4, 4), (1000, 1003)])
def test_v2_publications_equal_the_capped_whole_text_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int, seed: int
) -> None:
    """A v2 file checked case by case under random edits (some refused: checked whole)."""
    from agentv_lsp.lsp.v2 import model as filemodel

    monkeypatch.setattr(filemodel, "SPLIT_MIN_BYTES", 0)
    spliced = []  # versions assembled from the previous version's assembly (one run replaced)
    after = FileModel._assemblable_after

    def counted(self: FileModel, *args: object) -> object:
        found = after(self, *args)  # type: ignore[arg-type]
        spliced.append(found is not None)
        return found

    monkeypatch.setattr(FileModel, "_assemblable_after", counted)
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    server = create_server()
    rng = random.Random(seed)
    text = generate(25, 3).replace("role: user", "role: usr", 4)
    model = FileModel(path, text, opts, UnitCache())
    split = 0
    for step in range(30):
        split += model.split
        lines = text.split("\n")
        exact = [
            diagnostic_json(d, lambda n, lines=lines: lines[n] if 0 <= n < len(lines) else "")
            for d in check_document(path, text, opts).diagnostics
            if d.file == path
        ]
        # (blocks kept from version to version under the document's uri, as in the server)
        got = shown(diagnostic_parts(server, model, "file:///suite"), limit, path)
        # the parts come case by case, the file's own last: the same set is shown
        assert sorted(map(json.dumps, got)) == sorted(map(json.dumps, capped(exact, limit, path))), step
        change = random_edit(text, rng)
        text = text[: change.start] + change.text + text[change.end :]
        model = FileModel.after_edits(model, text, [change], opts) or FileModel(
            path, text, opts, model._cache
        )
    assert split > 10
    assert sum(spliced) > 5, spliced


@pytest.mark.parametrize("where", ["case", "head and tail"])
def test_a_case_sources_keys_are_those_of_the_json_it_makes_at_each_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A v2 case's sort keys (`LocalKeys.of`) are the severity and start of the JSON it makes at
    a place, in that place's lines: kept from place to place for diagnostics on the case's own
    lines, asked again at each place for ones on the head's or the tail's lines (which do not
    move with the case; no check of a sample file puts a case's own diagnostic there)."""
    from agentv_lsp.checks.model import Diagnostic
    from agentv_lsp.lsp.v2 import model as filemodel
    from agentv_lsp.lsp.v2.diagnostics import _CaseSource
    from agentv_lsp.lsp.v2.model import CHUNK_BASE, TAIL_BASE
    from agentv_lsp.yamlpos import Span

    monkeypatch.setattr(filemodel, "SPLIT_MIN_BYTES", 0)
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    model = FileModel(path, generate(6, 3) + "tail_key: 1\n", opts, UnitCache())
    assert model.split
    unit = model.units[2]
    lines = [CHUNK_BASE + 3, CHUNK_BASE, CHUNK_BASE + 1]
    if where != "case":
        lines += [1, TAIL_BASE, 0]
    diagnostics = [
        Diagnostic(path, Span(line, n % 3, line, 4), severity, "c", f"m{n}", ("evalcases", 0, "id"))
        for n, (line, severity) in enumerate(zip(lines, ["error", "hint", "warning"] * 2, strict=False))
    ]
    source = _CaseSource(unit, diagnostics)
    assert source.movable == (where == "case")
    for start, tail in ((40, 90), (7, 20), (40, 95)):
        made = [source.make("utf-16", i, start, 2, tail) for i in range(len(diagnostics))]
        want = [
            (m["severity"], m["range"]["start"]["line"] - start, m["range"]["start"]["character"])
            for m in made
        ]
        assert source.sort_keys("utf-16", start, tail).keys == want
    if where != "case":  # the head's lines stay, the tail's follow the tail
        assert want[3:] == [(1, 1 - 40, 0), (4, 95 - 40, 1), (2, -40, 2)]
