"""Large 4.x eval files: the incremental paths (diagnostics and outline from the last exact check
and single-test checks of what changed; previews and hovers from one test's own unit) give
exactly what the whole-text computations give, on random edit sequences (hypothesis) over the
golden files and the workloads, and the server publishes them through the protocol."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from agentv_lsp.engine.files import FileSystem
from agentv_lsp.formats.runtime import choose_runtime
from agentv_lsp.formats.v2.check import CheckOptions
from agentv_lsp.formats.v4.check import check_v4_document
from agentv_lsp.lsp.convert import diagnostic_json, path_to_uri
from agentv_lsp.lsp.document import Edit
from agentv_lsp.lsp.markdown import flagged_at, preview_link
from agentv_lsp.lsp.v4 import incremental as incremental_module
from agentv_lsp.lsp.v4 import units as units_module
from agentv_lsp.lsp.v4.hover import hover_markdown, markdown_of_test
from agentv_lsp.lsp.v4.incremental import SPLIT_MIN_BYTES, History, follow_edits, incremental
from agentv_lsp.lsp.v4.layout import cut_tests
from agentv_lsp.lsp.v4.model import V4Model
from agentv_lsp.lsp.v4.navigation import _symbols, document_symbols, lens_lines, resolve_lens, summary
from agentv_lsp.lsp.v4.preview import preview_at, preview_by_id, preview_of_test
from tests.lsp.conftest import change_doc, diagnostics_until, open_doc
from tests.lsp.test_v4_preview import GOLDEN, golden_session_fixtures

workspace, client = golden_session_fixtures()


TESTS = 540


def make_test(i: int) -> str:
    kind = i % 6
    head = f"  - id: case-{i}\n"
    if kind == 0:
        return head + f"    criteria: Answers {i}\n    input: What is {i} plus one?\n"
    if kind == 1:
        return head + (
            f"    criteria: Reviews snippet {i}\n    input:\n      - role: system\n        content: Be terse.\n"
            f"      - role: user\n        content:\n          - type: text\n            value: Review it.\n"
            f"          - type: file\n            value: ./snippets/s{i}.py\n"
            f"    expected_output: Looks fine {i}.\n"
        )
    if kind == 2:
        return head + (
            f"    input: Return JSON for {i}.\n    assertions:\n      - type: contains\n        value: status\n"
            "      - type: llm-grader\n        prompt: file://graders/g.md\n"
        )
    if kind == 3:
        return head + f"    input: No criteria for {i}\n"  # the runtime skips it
    if kind == 4:
        return head + f"    criteria: Greets {i}\n    input:\n      - role: usr\n        content: Hello {i}\n"
    return head + f"    criteria: Typo {i}\n    inputs: typo\n    input: Hi {i}\n"


def write_big_repo(root: Path) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / "evals/snippets").mkdir(parents=True, exist_ok=True)
    (root / "evals/graders").mkdir(parents=True, exist_ok=True)
    (root / "evals/graders/g.md").write_text("Grade {{ criteria }} against {{ answer }}.\n")
    for i in range(TESTS):
        if i % 6 == 1:
            (root / f"evals/snippets/s{i}.py").write_text(f"print({i})\n")
    text = (
        "description: A large suite\ninput:\n  - role: system\n    content: Suite-wide system text.\ntests:\n"
        + "".join(make_test(i) for i in range(TESTS))
        + "metadata:\n  owner: qa\n"
    )
    assert len(text) >= SPLIT_MIN_BYTES
    path = root / "evals/big.eval.yaml"
    path.write_text(text)
    return path


def edit(rng: random.Random, text: str, n: int) -> str:
    """One random edit that keeps every id unique and every referenced file present."""
    lines = text.split("\n")
    ids = [k for k, line in enumerate(lines) if line.startswith("  - id: ")]
    at = rng.choice(ids)
    kind = n % 6
    if kind == 0:
        lines[at] += f"-r{n}"
    elif kind == 1:
        lines.insert(at + 1, f"    # note {n}")
    elif kind == 2:  # a role typo, or its fix
        for k in range(at, min(at + 12, len(lines))):
            if "role: user" in lines[k] or "role: usr" in lines[k]:
                lines[k] = (
                    lines[k].replace("role: user", "role: usr")
                    if "user" in lines[k]
                    else lines[k].replace("usr", "user")
                )
                break
        else:
            lines[at] += f"-t{n}"
    elif kind == 3:  # a new test
        lines[at:at] = make_test(10_000 + n).rstrip("\n").split("\n")
    elif kind == 4:  # a test removed
        end = next((k for k in ids if k > at), len(lines) - 3)
        del lines[at:end]
    else:
        lines.insert(at + 1, f"    criteria: Changed {n}")
        # a second `criteria` key would be a duplicate: keep only the new one
        for k in range(at + 2, min(at + 8, len(lines))):
            if lines[k].startswith("    criteria:"):
                del lines[k]
                break
    return "\n".join(lines)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_repo(tmp_path_factory.mktemp("big") / "repo")


def model_of(path: Path, text: str, opts: CheckOptions | None = None) -> V4Model:
    root = str(next((p for p in path.parents if (p / ".git").exists()), path.parent.parent))
    opts = opts or CheckOptions(repo_root=root, cwd=root, fs=FileSystem())
    return V4Model(str(path), text, choose_runtime(str(path), text, root, "4"), opts)


class Editor:
    """One open document as the server holds it: each version's model follows the previous
    one's layout through the edits, and its diagnostics come from `incremental` when it can
    say them (else from the whole-text check, which becomes the next base)."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.model = model_of(path, text)
        self.history = History()
        self.merged = 0  # versions answered incrementally

    def check(self) -> None:
        model = self.model
        checked = incremental(model, self.history, 0)
        exact = check_v4_document(str(self.path), model.text, model.opts)
        if checked is None:
            self.history.remember(model, 0, exact)
            return
        self.merged += 1
        assert checked.diagnostics() == exact.diagnostics
        assert checked.json("utf-16") == [diagnostic_json(d, model.line) for d in exact.diagnostics]
        self.history.checked = checked
        if "layout" in model.memo:  # followed through the edits: as cutting the new text gives
            assert model.memo["layout"] == cut_tests(model.text)
        assert document_symbols(model, "utf-16") == _symbols(model_of(self.path, model.text), "utf-16")

    def edit(self, start: int, end: int, inserted: str) -> None:
        old = self.model
        text = old.text[:start] + inserted + old.text[end:]
        model = model_of(self.path, text, old.opts)
        follow_edits(old, model, [Edit(start, end, inserted, old.text.count("\n", start, end))])
        self.model = model


# Edits as an author types them: characters into a value, a comment line, a line removed or
# repeated, a key renamed, a role misspelt, a test copied with a new id, YAML punctuation.
FRAGMENTS = ["x", " ", "-", ":", "\n", "\n    # note\n", "usr", "  ", "'", "&a ", "*a", "tests[1]", "é", "\t"]


@st.composite
def edits(draw: st.DrawFn, text: str) -> list[tuple[str, int, int, str]]:
    out = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["type", "type", "type", "delete", "line", "copy-test", "role"]))
        out.append(
            (kind, draw(st.integers(0, 1 << 30)), draw(st.integers(1, 40)), draw(st.sampled_from(FRAGMENTS)))
        )
    return out


def apply(editor: Editor, kind: str, where: int, size: int, fragment: str) -> None:
    text = editor.model.text
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    n = where % max(1, len(lines) - 1)
    if kind == "type":  # at the end of a line, or inside it
        column = len(lines[n]) if where % 3 else min(len(lines[n]), size % 12)
        at = starts[n] + column
        editor.edit(at, at, fragment if fragment != "\n" else f"-{size}")
    elif kind == "delete":
        at = starts[n] + min(len(lines[n]), size % 8)
        editor.edit(at, min(len(text), at + size % 5 + 1), "")
    elif kind == "line":  # a line removed or repeated
        if size % 2:
            editor.edit(starts[n], starts[n + 1], "")
        else:
            editor.edit(starts[n], starts[n], lines[n] + "\n")
    elif kind == "role":
        found = text.find("role: user", starts[n])
        if found >= 0:
            editor.edit(found + 6, found + 10, "usr")
    else:  # a test copied under a new id (after the test holding line n)
        ids = [k for k, line in enumerate(lines) if line.lstrip().startswith("- id: ")]
        after = [k for k in ids if k > n]
        before = [k for k in ids if k <= n]
        if not before:
            return
        first, last = before[-1], after[0] if after else None
        if last is None:
            return
        copy = "\n".join(lines[first:last]) + "\n"
        copy = copy.replace("id: ", f"id: copy{where % 1000}-", 1)
        editor.edit(starts[last], starts[last], copy)


def golden_eval_files() -> list[Path]:
    if not GOLDEN.is_dir():
        return []
    return sorted(p for p in GOLDEN.glob("*/evals/**/*.eval.yaml") if "v2-file" not in p.parts)


@pytest.fixture(scope="module")
def golden_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden") / "cases"
    if GOLDEN.is_dir():
        shutil.copytree(GOLDEN, root, ignore=shutil.ignore_patterns("expected"))
        for case in root.iterdir():
            (case / ".git").mkdir(exist_ok=True)
    return root


@pytest.mark.skipif(not GOLDEN.is_dir(), reason="the golden-v4 folders are not on this machine")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_incremental_diagnostics_equal_the_whole_text_check_on_the_golden_files(
    golden_copy: Path, data: st.DataObject
) -> None:
    """Every golden file, cut into tests however small (the size threshold set to 0)."""
    source = data.draw(st.sampled_from(golden_eval_files()))
    path = golden_copy / source.relative_to(GOLDEN)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(incremental_module, "SPLIT_MIN_BYTES", 0)
        patch.setattr(units_module, "SPLIT_MIN_BYTES", 0)
        editor = Editor(path, path.read_text())
        editor.check()
        for step in data.draw(edits(editor.model.text)):
            apply(editor, *step)
            editor.check()


def test_incremental_diagnostics_equal_the_whole_text_check_on_random_edits(big: Path) -> None:
    """The 540-test file, edits that keep it valid (`edit`): every version is answered
    incrementally (one test checked), and equals the whole-text check."""
    rng = random.Random(7)
    editor = Editor(big, big.read_text())
    editor.check()
    for n in range(10):
        old = editor.model.text
        new = edit(rng, old, n)
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
            end += 1
        editor.edit(start, len(old) - end, new[start : len(new) - end])
        editor.check()
    assert editor.merged == 10


SLOW = bool(os.environ.get("CI") or os.environ.get("AGENTV_SLOW"))


@pytest.mark.skipif(not SLOW, reason="the 10,000-test workload: runs in CI (CI set) or with AGENTV_SLOW=1")
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_incremental_diagnostics_equal_the_whole_text_check_at_10000_tests(data: st.DataObject) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from _workloads import eval_files, workload_v4

    path = eval_files(workload_v4(10_000))[0]
    editor = Editor(path, path.read_text())
    editor.check()
    for step in data.draw(edits(editor.model.text)):
        apply(editor, *step)
        editor.check()


def test_unit_previews_and_hovers_equal_the_whole_file_ones(big: Path) -> None:
    text = big.read_text()
    model = model_of(big, text)
    whole = model_of(big, text)
    for entry in whole.entries()[::23]:
        quick = preview_at(model, entry.start_line + 1)
        if entry.tests:
            expected = preview_of_test(whole, entry.tests[0])
            assert quick == expected
            assert preview_by_id(model, entry.tests[0].id) == expected
            hover = hover_markdown(model, entry.start_line, 8, "utf-16")
            link = preview_link(path_to_uri(str(big)), expected["id"], entry.start_line)
            short = flagged_at(whole.report().diagnostics, whole.path, entry.start_line, 8)
            assert hover == markdown_of_test(expected, "4.42.4", link, short=short)
        else:
            assert quick is not None and quick["error"].startswith("AgentV skips this test")


def test_lenses_of_a_large_file_come_from_its_units(big: Path) -> None:
    text = big.read_text()
    model = model_of(big, text)
    whole = model_of(big, text)
    entries = whole.entries()
    assert lens_lines(model) == [e.start_line for e in entries]
    for index in range(0, len(entries), 17):
        entry = entries[index]
        preview = resolve_lens(model, "file:///big", index, "preview")
        title = resolve_lens(model, "file:///big", index, "summary").title
        if entry.tests:
            assert preview.arguments == [{"uri": "file:///big", "caseId": entry.tests[0].id}]
            assert title == summary(preview_of_test(whole, entry.tests[0]))
        else:  # one lens says why; the preview lens stays empty (nothing to preview)
            assert title.startswith("⚠ AgentV skips this test") and preview.title == ""


@pytest.mark.skipif(not GOLDEN.is_dir(), reason="the golden-v4 folders are not on this machine")
@pytest.mark.asyncio(loop_scope="module")
async def test_edits_of_a_large_file_are_published(client: LanguageClient, workspace: Path) -> None:
    path = write_big_repo(workspace / "string-input" / "big")
    text = path.read_text()
    uri = open_doc(client, path)
    typo = "tests[4].input[0].role"

    def paths(d: list[lsp.Diagnostic]) -> set[str]:
        return {str(x.data.get("path")) for x in d if isinstance(x.data, dict)}

    await asyncio.wait_for(diagnostics_until(client, uri, lambda d: typo in paths(d)), 30)
    fixed = text.replace("role: usr\n        content: Hello 4\n", "role: user\n        content: Hello 4\n")
    change_doc(client, uri, 2, fixed)
    await asyncio.wait_for(diagnostics_until(client, uri, lambda d: typo not in paths(d) and bool(d)), 30)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(line=fixed.split("\n").index("  - id: case-4"), character=8),
        )
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    # the suite-level `input` is prepended to the test's own (golden: suite-input-prepended)
    # (shown as the chatPrompt turns: the flat question would say them again)
    assert "*system*\n\n```text\nSuite-wide system text.\n```" in hover.contents.value
    assert "*user*\n\n```text\nHello 4\n```" in hover.contents.value
