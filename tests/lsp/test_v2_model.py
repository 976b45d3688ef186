"""FileModel (no server): a text checked case by case says exactly what `check_document`
says about the whole text, over seeded random edit sequences; and hover/preview positions
map to the same cases and paths in both modes."""

from __future__ import annotations

import gc
import json
import random
import weakref
from pathlib import Path

import pytest
from yaml.nodes import MappingNode

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.v2.check import CheckOptions, check_document
from agentv_lsp.lsp.convert import to_diagnostic
from agentv_lsp.lsp.document import Edit
from agentv_lsp.lsp.server import create_server
from agentv_lsp.lsp.v2 import model as filemodel
from agentv_lsp.lsp.v2 import symbols
from agentv_lsp.lsp.v2.diagnostics import diagnostics_json
from agentv_lsp.lsp.v2.model import FileModel, UnitCache, cut
from agentv_lsp.lsp.v2.navigation import resolve_lens
from agentv_lsp.lsp.v2.symbols import document_symbols
from agentv_lsp.lsp.yamlnav import path_at
from agentv_lsp.yamlpos import parse_yaml
from tests.evalgen import generate, key, mutate
from tests.lsp.conftest import write_repo


@pytest.fixture
def split_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(filemodel, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(filemodel, "FRESH_SHARE", 0.5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_case_by_case_checking_equals_the_whole_text_check(
    tmp_path: Path, split_everything: None, seed: int
) -> None:
    repo = write_repo(tmp_path / "ws")
    (repo / "evals/judges").mkdir(exist_ok=True)
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    cache = UnitCache()
    rng = random.Random(seed)
    text = generate(30, seed)
    split_versions = 0
    for step in range(60):
        model = FileModel(path, text, opts, cache)
        got = [key(d) for d in model.diagnostics()]
        want = [key(d) for d in check_document(path, text, opts).diagnostics if d.file == path]
        assert sorted(got, key=repr) == sorted(want, key=repr), f"seed {seed}, step {step}"
        split_versions += model.split
        text = mutate(text, rng) if rng.random() < 0.8 else generate(30, seed)
    assert split_versions > 20  # most versions were really assembled from units


def test_positions_map_to_the_same_cases_and_paths(tmp_path: Path, split_everything: None) -> None:
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    text = generate(12, 7) + "dataset: after\n"
    split = FileModel(path, text, opts, UnitCache())
    whole = FileModel(path, text, opts, None)
    assert split.split and not whole.split
    assert split.case_lines() == whole.case_lines() and split.case_count() == 12
    lines = text.split("\n")
    for number, line in enumerate(lines):
        assert split.line(number) == line
        column = len(line) - len(line.lstrip()) + 1
        a, b = split.locate(number), whole.locate(number)
        assert a.doc.root is not None and b.doc.root is not None
        path_a = a.file_path(path_at(a.doc.root, a.line, column)[0])
        path_b = b.file_path(path_at(b.doc.root, b.line, column)[0])
        assert path_a == path_b, (number, line)
        assert split.case_at(number) == whole.case_at(number) or not line.strip()
    for index in range(12):
        got, want = split.case_outcome(index), whole.case_outcome(index)
        assert got is not None and want is not None
        assert got[1].case is not None and want[1].case is not None
        assert got[1].case.question == want[1].case.question
    assert split.root_value["dataset"] == "after"


@pytest.mark.parametrize(
    "text",
    [
        "$schema: agentv-eval-v2\nevalcases: [{id: a}]\n",  # flow style
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n---\nx: 1\n",  # two documents
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\r  - id: b\n",  # lone CR
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\nevalcases:\n  - id: b\n",  # duplicate key
        "$schema: agentv-eval-v2\nevalcases: []\n",
    ],
)
def test_the_cut_refuses_what_it_is_not_sure_about(text: str) -> None:
    assert cut(text) is None


def test_the_cut_finds_cases_with_indentless_items_comments_and_a_tail() -> None:
    text = "$schema: agentv-eval-v2\nevalcases:\n# lead\n- id: a\n  outcome: x\n\n- id: b\n# trailing\nnote: end\n"
    layout = cut(text)
    assert layout is not None
    assert layout.lines == [3, 6] and layout.tail_line == 8 and layout.tail == "note: end\n"
    assert layout.chunk(1) == "- id: b\n# trailing\n"


@pytest.mark.parametrize(
    "text",
    [
        "%YAML 1.2\n---\n$schema: agentv-eval-v2\nevalcases:\n  - id: a\n",  # a directive
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n...\n",  # a document end marker
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n'evalcases':\n  - id: b\n",  # quoted duplicate
        "$schema: agentv-eval-v2\n\"evalcases\":\n  - id: a\n",  # only a quoted key
    ],
    ids=["directive", "document-end", "quoted-duplicate", "quoted-key"],
)
def test_the_cut_refuses_markers_and_quoted_or_repeated_keys(text: str) -> None:
    assert cut(text) is None


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_cut_ends_indentless_items_at_a_key_that_starts_with_a_dash(newline: str) -> None:
    text = "$schema: agentv-eval-v2\nevalcases:\n- id: a\n-\n  id: b\n-key: tail\n".replace("\n", newline)
    layout = cut(text)
    assert layout is not None
    assert layout.lines == [2, 3] and layout.tail_line == 5
    assert layout.tail == "-key: tail" + newline


@pytest.mark.parametrize("seed", range(6))
def test_the_cut_agrees_with_the_yaml_parser(seed: int) -> None:
    """Independent oracle: each chunk starts on the line of its case's node, and the tail on
    the line of the first top-level key after `evalcases`."""
    rng = random.Random(seed)
    text = generate(rng.randrange(5, 40), seed)
    if seed % 2:  # items at column 0
        head, cases = text.split("evalcases:\n")
        cases = "".join(line[2:] if line.startswith("  ") else line for line in cases.splitlines(True))
        text = head + "evalcases:\n" + cases
    if seed % 3 == 0:
        text += "# a closing comment\nnote: after the cases\n"
    layout = cut(text)
    assert layout is not None
    doc = parse_yaml(text)
    assert doc.error is None
    root = doc.root
    assert isinstance(root, MappingNode)
    keys = [k.value for k, _ in root.value]
    cases = root.value[keys.index("evalcases")][1]
    assert [item.start_mark.line for item in cases.value] == layout.lines
    after = keys.index("evalcases") + 1
    expected_tail = root.value[after][0].start_mark.line if after < len(keys) else text.count("\n")
    assert layout.tail_line == expected_tail


def random_edit(text: str, rng: random.Random) -> Edit:
    """An edit like typing, pasting or deleting lines, mostly inside the cases."""
    line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    first_case = text.find("\n  - ") + 1 or len(text) // 3
    candidates = [o for o in line_starts if o >= first_case] or [len(text)]
    at = rng.choice(candidates)
    line_end = text.find("\n", at)
    line_end = len(text) if line_end < 0 else line_end
    kind = rng.randrange(8)
    if kind == 0:  # type at the end of a line
        return Edit(line_end, line_end, rng.choice(["x", " more", "é😀"]), 0)
    if kind == 1:  # a comment line
        return Edit(at, at, "    # note\n", 0)
    if kind == 2:  # paste a case before this line (or break the line it lands in)
        return Edit(
            at,
            at,
            "  - id: pasted\n    outcome: p\n    input_messages:\n      - role: usr\n        content: q\n",
            0,
        )
    if kind == 3:  # delete a line
        end = min(len(text), line_end + 1)
        return Edit(at, end, "", text.count("\n", at, end))
    if kind == 4:  # delete a few lines
        end = at
        for _ in range(rng.randint(2, 12)):
            found = text.find("\n", end)
            end = len(text) if found < 0 else found + 1
        return Edit(at, end, "", text.count("\n", at, end))
    if kind == 5:  # retype a role
        found = text.find("role: ", at)
        if found >= 0:
            return Edit(found + 6, found + 9, rng.choice(["use", "usr", "sys"]), 0)
        return Edit(at, at, "", 0)
    if kind == 6:  # a destructive keystroke
        column = rng.randint(at, line_end)
        return Edit(column, column, rng.choice(["\t", "[", ": ", "-", "\n"]), 0)
    return Edit(at, at, "\n", 0)  # a blank line


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_following_edits_equals_cutting_and_checking_again(
    tmp_path: Path, split_everything: None, seed: int
) -> None:
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    rng = random.Random(seed)
    text = generate(25, seed) + ("tail_key: 1\n" if seed % 2 else "")
    model = FileModel(path, text, opts, UnitCache())
    followed = attempts = 0
    for step in range(80):
        if not model.split and rng.random() < 0.3:  # broken for a while: start again
            text = generate(25, seed + step)
            model = FileModel(path, text, opts, UnitCache())
        edits = []
        for _ in range(rng.choice([1, 1, 2, 3])):
            edit = random_edit(text, rng)
            edits.append(edit)
            text = text[: edit.start] + edit.text + text[edit.end :]
        attempts += model.split
        derived = FileModel.after_edits(model, text, edits, opts)
        if derived is not None:
            followed += 1
            fresh = cut(text)
            assert fresh is not None and derived.layout is not None, f"seed {seed} step {step}"
            assert (derived.layout.offsets, derived.layout.lines, derived.layout.tail_line) == (
                fresh.offsets,
                fresh.lines,
                fresh.tail_line,
            ), f"seed {seed} step {step}"
            assert [u.chunk for u in derived.units] == [fresh.chunk(i) for i in range(len(fresh.offsets))]
        model = derived or FileModel(path, text, opts, model._cache)
        got = sorted((key(d) for d in model.diagnostics()), key=repr)
        want = sorted(
            (key(d) for d in check_document(path, text, opts).diagnostics if d.file == path), key=repr
        )
        assert got == want, f"seed {seed}, step {step}"
    assert followed > 20, (followed, attempts)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
def test_published_json_equals_the_typed_conversion(
    tmp_path: Path, split_everything: None, encoding: str
) -> None:
    """The moved JSON templates say what `to_diagnostic` says for the whole file."""
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    server = create_server()
    server.encoding = encoding
    converter = server.protocol._converter
    rng = random.Random(encoding)
    text = generate(20, 5).replace("role: user", "role: usr", 3)
    model = FileModel(path, text, opts, UnitCache())
    for step in range(25):
        got = sorted(json.dumps(d, sort_keys=True) for d in diagnostics_json(server, model))
        want = sorted(
            json.dumps(converter.unstructure(to_diagnostic(d, model.line, encoding)), sort_keys=True)
            for d in (model.diagnostics() if model.agentv else [])
        )
        assert got == want, f"step {step}"
        edit = random_edit(text, rng)
        text = text[: edit.start] + edit.text + text[edit.end :]
        model = FileModel.after_edits(model, text, [edit], opts) or FileModel(path, text, opts, model._cache)


@pytest.mark.parametrize("whole_text_above", [10_000, 0], ids=["case-by-case", "from-the-whole-text"])
def test_symbols_and_lenses_are_the_same_in_both_modes(
    tmp_path: Path, split_everything: None, monkeypatch: pytest.MonkeyPatch, whole_text_above: int
) -> None:
    """Split-mode symbols, built case by case or (a file just opened) from the whole text
    at once, equal the whole-text model's, also after an edit."""
    monkeypatch.setattr(symbols, "WHOLE_TEXT_SYMBOLS", whole_text_above)
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    server = create_server()
    text = generate(15, 3) + "dataset: after\n"
    split = FileModel(path, text, opts, UnitCache())
    whole = FileModel(path, text, opts, None)
    assert split.split and not whole.split
    assert document_symbols(split, server.encoding) == document_symbols(whole, server.encoding)
    edit = Edit(
        text.index("  - id:", 2000), text.index("  - id:", 2000), "  - id: inserted\n    outcome: x\n", 0
    )
    edited = text[: edit.start] + edit.text + text[edit.end :]
    followed = FileModel.after_edits(split, edited, [edit], opts)
    assert followed is not None and followed.split
    assert document_symbols(followed, server.encoding) == document_symbols(
        FileModel(path, edited, opts, None), server.encoding
    )
    for index in range(whole.case_count()):
        assert resolve_lens(split, "u", index, "summary") == resolve_lens(whole, "u", index, "summary")
        assert resolve_lens(split, "u", index, "preview") == resolve_lens(whole, "u", index, "preview")


def test_a_cleared_cache_frees_its_units_without_the_cycle_collector(
    tmp_path: Path, split_everything: None
) -> None:
    """Units and their context refer to each other; the server makes full collections rare,
    so a closed document must be freed by reference counting alone."""
    repo = write_repo(tmp_path / "ws")
    path = str(repo / "evals/suite.eval.yaml")
    opts = CheckOptions(repo_root=str(repo), cwd=str(repo), fs=FileSystem())
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        cache = UnitCache()
        model = FileModel(path, generate(12, 2), opts, cache)
        assert model.split and model.diagnostics() is not None
        units = [weakref.ref(unit) for unit in model.units]
        context = weakref.ref(model.units[0].context)
        del model
        assert all(unit() is not None for unit in units)  # the cache still holds them
        cache.clear()
        assert [unit() for unit in units] == [None] * len(units)
        assert context() is None
    finally:
        if was_enabled:
            gc.enable()
