"""Hover, outline, code lenses, links, go-to-definition and completion on AgentV 4.42.4
documents, through the real protocol, checked against the runtime's recordings (golden-v4)
and against the files on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_until, doc_id, eventually, open_doc, pos
from tests.lsp.test_v4_preview import GOLDEN, eval_files, expected, golden_session_fixtures

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not GOLDEN.is_dir(), reason="the golden-v4 folders are not on this machine"),
]


workspace, client = golden_session_fixtures()


async def hover_text(client: LanguageClient, uri: str, position: lsp.Position) -> str | None:
    hover = await client.text_document_hover_async(
        lsp.HoverParams(text_document=doc_id(uri), position=position)
    )
    if hover is None:
        return None
    assert isinstance(hover.contents, lsp.MarkupContent)
    return hover.contents.value


def fenced(text: str) -> str:
    return f"```text\n{text}\n```"


@pytest.mark.parametrize(
    "case", ["message-list-system-user", "multi-turn-assistant-tool", "string-input", "input-files"]
)
async def test_hover_anywhere_in_a_test_shows_the_exact_question(
    client: LanguageClient, workspace: Path, case: str
) -> None:
    eval_file = eval_files(case)[0]
    path = workspace / case / eval_file
    text = path.read_text()
    uri = open_doc(client, path)
    for test in expected(workspace, case, eval_file)["cases"]:
        at = pos(text, f"id: {test['id']}\n", 5)

        async def counted(at: lsp.Position = at) -> str | None:
            # the first hover may say "tokens: counting…": the counts never hold it up
            shown = await hover_text(client, uri, at)
            return shown if shown is not None and " tokens to the candidate" in shown else None

        on_id = await eventually(counted, interval=0.1)
        turns = test["lm"]["chatPrompt"] or []
        # the glance first (whether it runs, tokens, turns), the preview a click away
        first, second = on_id.split("\n")[:2]
        assert first.startswith(f"**`{test['id']}`** · runs in AgentV 4.42.4 · "), first
        assert f" · {len(turns) or 1} turn" in first and " tokens to the candidate" in first
        assert second.startswith("[Open in the preview panel](command:agentv.showPreview?")
        # then each prompt text once: the turns, or the flat question they would repeat
        shown = [t["content"] for t in turns] if turns else [test["lm"]["question"]]
        for content in shown:
            assert fenced(content) in on_id, (case, test["id"])
        assert (fenced(test["lm"]["question"]) in on_id) == (not turns)
        system = test["lm"]["systemMessage"]
        said = bool(system) and not any(system in content for content in shown)
        assert (f"**System message**\n\n{fenced(system)}" in on_id) == said
        assert (f"**Criteria:** {test['criteria']}" if test["criteria"] else "**Criteria:** none") in on_id
        assert "**Grader prompt**" in on_id  # no assertions: the default LLM grader
        # the line below the id is still inside the test
        below = pos(text, f"id: {test['id']}\n", len(f"id: {test['id']}\n") + 6)
        assert await hover_text(client, uri, below) == on_id


async def test_hover_shows_the_grader_prompt_and_file_references(
    client: LanguageClient, workspace: Path
) -> None:
    case = "assertions-kinds"
    path = workspace / case / "evals/a.eval.yaml"
    text = path.read_text()
    uri = open_doc(client, path)
    inline = await hover_text(client, uri, pos(text, "id: inline-grader", 5))
    assert inline is not None and "**Grader prompt**" in inline
    # an inline prompt without template variables becomes the criteria of the default template
    assert "Grade whether recursion is explained with a base case." in inline and "`llm-grader`" in inline
    files = workspace / "file-segments-paths"
    text = (files / "evals/files.eval.yaml").read_text()
    uri = open_doc(client, files / "evals/files.eval.yaml")
    found = await hover_text(client, uri, pos(text, "./snippets/a.py", 3))
    assert found is not None and str(files / "evals/snippets/a.py") in found
    assert (files / "evals/snippets/a.py").read_text().split("\n")[0] in found
    missing = workspace / "missing-file"
    text = (missing / eval_files("missing-file")[0]).read_text()
    uri = open_doc(client, missing / eval_files("missing-file")[0])
    not_found = await hover_text(client, uri, pos(text, "./notes/absent.md", 3))
    # the places the runtime printed in "Warning: File not found: … Tried:"
    tried = expected(workspace, "missing-file", eval_files("missing-file")[0])["warnings"][0].split("\n")[2:]
    assert not_found is not None and "not found" in not_found
    assert all(f"`{line.strip()}`" in not_found for line in tried)


DIAGNOSED = """\
description: A misspelt assertion type
tests:
  - id: typo
    criteria: Says the sum
    expected_output: The sum is four.
    input: What is two plus two? Answer in one sentence.
    assertions:
      - type: contans
        value: four
      - type: llm-grader
"""


async def test_hover_on_a_diagnostic_keeps_short_and_the_grader_prompt_says_the_question_once(
    client: LanguageClient, workspace: Path
) -> None:
    """VS Code shows a diagnostic's hover above ours: on its range ours is the glance alone,
    so "Did you mean" and its Quick Fix stay in view; elsewhere the whole test, the question
    said once (the grader prompt points back to it) and the grader's system prompt named by
    more than a first line ending on a colon."""
    path = workspace / "string-input" / "evals" / "diagnosed.eval.yaml"
    path.write_text(DIAGNOSED)
    uri = open_doc(client, path)
    diagnostics = await diagnostics_until(
        client, uri, lambda ds: any(d.code == "v4-assertion-type-unknown" for d in ds)
    )
    typo = next(d for d in diagnostics if d.code == "v4-assertion-type-unknown")
    on_typo = await hover_text(client, uri, typo.range.start)
    on_id = await hover_text(client, uri, pos(DIAGNOSED, "id: typo", 5))
    assert on_typo is not None and on_id is not None
    first_lines = on_id.split("\n")[:2]
    assert on_typo.split("\n") == first_lines  # the glance and the preview link, nothing more
    assert first_lines[0].startswith("**`typo`** · runs in AgentV 4.42.4 · ")
    question = "What is two plus two? Answer in one sentence."
    assert on_id.count(question) == 1
    grader = on_id[on_id.index("**Grader prompt**") :]
    heading = grader.split("\n")[0]
    assert "⟨the question above⟩" in grader and not heading.rstrip("*)").endswith(":")
    assert "`score`" in heading  # the JSON answer the default grader asks for


async def test_outline_and_code_lenses_list_the_tests_by_id(client: LanguageClient, workspace: Path) -> None:
    case = "errors-types-duplicates"
    eval_file = eval_files(case)[0]
    uri = open_doc(client, workspace / case / eval_file)
    loaded = [c["id"] for c in expected(workspace, case, eval_file)["cases"]]
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=doc_id(uri))
    )
    assert symbols is not None
    names = [s.name for s in symbols]
    assert [n for n in names if n in loaded] == loaded  # in order, duplicates included
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc_id(uri)))
    assert lenses is not None
    previews: list[str] = []
    titles: list[str] = []
    for lens in lenses:
        resolved = await client.code_lens_resolve_async(lens)
        assert resolved.command is not None
        titles.append(resolved.command.title)
        if resolved.command.command == "agentv.previewCase":
            previews.append(resolved.command.arguments[0]["caseId"])
    assert previews == loaded
    # the runtime printed "Skipping incomplete test: wrong-role …": its lens says so
    assert sum("AgentV skips this test" in t for t in titles) >= 2


async def test_links_and_definitions_go_where_the_runtime_reads(
    client: LanguageClient, workspace: Path
) -> None:
    case = "file-segments-paths"
    eval_file = eval_files(case)[0]
    root = workspace / case
    text = (root / eval_file).read_text()
    uri = open_doc(client, root / eval_file)
    links = await client.text_document_document_link_async(lsp.DocumentLinkParams(text_document=doc_id(uri)))
    assert links is not None
    targets = {Path(lsp_uri_path(link.target)) for link in links if link.target}
    resolved = {root / p for c in expected(workspace, case, eval_file)["cases"] for p in c["file_paths"]}
    assert resolved and resolved <= targets
    definition = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=doc_id(uri), position=pos(text, "./snippets/a.py", 4))
    )
    assert (
        isinstance(definition, list) and Path(lsp_uri_path(definition[0].uri)) == root / "evals/snippets/a.py"
    )
    external = workspace / "tests-external-yaml"
    text = (external / "evals/main.eval.yaml").read_text()
    uri = open_doc(client, external / "evals/main.eval.yaml")
    to_cases = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=doc_id(uri), position=pos(text, "./cases.yaml", 3))
    )
    assert isinstance(to_cases, list) and Path(lsp_uri_path(to_cases[0].uri)) == external / "evals/cases.yaml"
    inputs = workspace / "input-files"
    text = (inputs / "evals/schema.eval.yaml").read_text()
    uri = open_doc(client, inputs / "evals/schema.eval.yaml")
    links = await client.text_document_document_link_async(lsp.DocumentLinkParams(text_document=doc_id(uri)))
    assert {Path(lsp_uri_path(link.target)) for link in links or [] if link.target} == {
        inputs / "evals/ctx/shared.md",
        inputs / "evals/ctx/own.json",
    }


def lsp_uri_path(uri: str) -> str:
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(uri).path)


async def completion_labels(client: LanguageClient, uri: str, position: lsp.Position) -> set[str]:
    result = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=doc_id(uri), position=position)
    )
    items = result.items if isinstance(result, lsp.CompletionList) else result or []
    return {item.label for item in items}


async def test_completion_offers_keys_roles_segment_and_assertion_types(
    client: LanguageClient, workspace: Path
) -> None:
    root = workspace / "assertions-kinds"
    text = (
        "tests:\n  - id: t\n    input:\n      - role: \n        content:\n          - type: \n"
        "    assertions:\n      - type: \n  - \n"
    )
    uri = open_doc(client, root / "evals/new.eval.yaml", text)
    roles = await completion_labels(client, uri, pos(text, "role: ", 6))
    # the roles `agentv validate` accepts (it rejects `tool`: see the golden folder's validation)
    assert {"system", "user", "assistant"} <= roles
    segments = await completion_labels(client, uri, pos(text, "- type: \n", 8))
    assert {"text", "file", "image"} <= segments
    kinds = await completion_labels(client, uri, pos(text, "assertions:\n      - type: ", 26))
    # every type the runtime accepted in the golden file, and no snake_case twins
    assert {"contains", "regex", "llm-grader", "is-json"} <= kinds and "llm_grader" not in kinds
    keys = await completion_labels(client, uri, pos(text, "  - \n", 4))
    assert {"id", "criteria", "input", "expected_output", "assertions", "input_files"} <= keys
    assert "expected_outcome" not in keys  # deprecated: renamed to criteria
    assert "New test" in keys
    plain = open_doc(client, root / "compose.yaml", "services:\n  - \n")
    assert await completion_labels(client, plain, lsp.Position(line=1, character=4)) == set()
